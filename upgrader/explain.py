"""Documentation of rules, from the rule database and the fixers' docstrings.

Used by ``paddle-upgrade explain``, ``paddle-upgrade rules`` and ``docs/rules.md``; every
rule doc has the same four sections: What it does / Why is this bad? / Example / Fix safety.
"""
from __future__ import annotations

import re
from typing import Dict, List, Optional

from upgrader import fixers
from upgrader.engine import RULE_NAMES, upgrade_source
from upgrader.rulebook import Entry, RuleBook, load

CODE_DOCS: Dict[str, str] = {
    "PU001": "A `paddle.fluid` name with no entry in the rule database. `check` never calls "
             "a file clean while it still uses fluid; migrate the name by hand.",
    "PU002": "A legacy import (`import paddle.fluid`); it fails on Paddle 2.6+. `fix` removes "
             "it once nothing uses it.",
    "PU003": "`from paddle.fluid... import *`: names cannot be resolved; import the module instead.",
    "PU101": "A legacy API with a modern equivalent: renamed, arguments mapped by the 1.8 signature.",
    "PU102": "A legacy API with no faithful modern equivalent: migrate by hand as the note says.",
    "PU103": "A legacy API whose modern counterpart changed defaults or semantics.",
    "PU104": "Optimizers, regularizers, gradient clipping and learning-rate decay.",
    "PU105": "Saving and loading (checkpoints, inference models, program state).",
    "PU106": "Data pipeline (readers, DataLoader, DataFeeder).",
    "PU301": "Places and device selection.",
    "PU302": "Device queries.",
}


def normalize(name: str) -> str:
    name = name.strip()
    if name.startswith("fluid."):
        return "paddle." + name
    if not name.startswith("paddle."):
        return "paddle.fluid." + name
    return name


def find_entry(book: RuleBook, query: str) -> Optional[Entry]:
    for cand in (query, normalize(query)):
        e = book.lookup(cand)
        if e is not None:
            return e
    tail = [e for e in book if e.name.endswith("." + query)]
    return tail[0] if len(tail) == 1 else None


def fixer_doc(code: str) -> Optional[str]:
    from upgrader import shell
    for mod in list(fixers.MODULES.values()) + [shell]:
        if getattr(mod, "CODE", None) == code and mod.__doc__:
            return mod.__doc__
    return None


def example_before(e: Entry) -> Optional[str]:
    if e.doc_example and e.doc_example.get("before"):
        return e.doc_example["before"]
    if e.example and e.example.get("code"):
        return "import paddle.fluid as fluid\n\n" + e.example["code"].strip() + "\n"
    return None


def example_after(e: Entry, before: str, book: RuleBook) -> str:
    if e.doc_example and e.doc_example.get("after"):
        return e.doc_example["after"]
    try:
        return upgrade_source(before, rules=book, unsafe_fixes=True).code
    except Exception as exc:  # pragma: no cover - shown to the user
        return f"(rewrite failed: {exc})"


def arg_changes(e: Entry) -> List[str]:
    out = []
    for name, s in e.args.items():
        if s.drop:
            out.append(f"`{name}` dropped")
        elif s.drop_if_default:
            out.append(f"`{name}` dropped when default, else manual")
        elif s.manual_if_set:
            out.append(f"`{name}`: manual ({s.manual_if_set})")
        elif s.act:
            out.append(f"`{name}` → explicit activation call")
        elif s.wrap:
            out.append(f"`{name}` → `{s.wrap}`")
        else:
            parts = [f"`{name}` → `{s.rename or name}`"]
            if s.transform:
                parts.append(f"value `{s.transform}`")
            if s.values:
                parts.append("values " + ", ".join(f"{k}→{v}" for k, v in s.values.items()))
            if s.default is not None:
                parts.append(f"default `{s.default}`")
            out.append(" ".join(parts))
    for k, v in e.extra.items():
        out.append(f"adds `{k}={v}`")
    return out


SAFETY_TEXT = {
    "safe": "Safe: applied by `paddle-upgrade fix`; proven to compute what 1.8.5 computed.",
    "unsafe": "Unsafe: applied only with `--unsafe-fixes`; it changes something a user may rely on.",
    "manual": "Manual: reported by `check`; `fix` leaves the code runnable and adds a "
              "`# TODO(paddle-upgrade)` comment.",
}


def entry_doc(e: Entry, book: Optional[RuleBook] = None) -> Dict[str, str]:
    book = book or load()
    what = f"`{e.short}` → `{e.target}`" if e.target else f"`{e.short}` has no automatic rewrite"
    changes = arg_changes(e)
    if changes:
        what += "\n\nArguments: " + "; ".join(changes) + "."
    if e.structural:
        what += f"\n\nStructural rewrite: `{e.structural}`."
    sig = f"\n\n1.8 signature: `{e.short.rsplit('.', 1)[-1]}{e.signature}`" if e.signature else ""
    why = (e.why or "") + ("\n\n" if e.why and e.note else "") + (e.note or "")
    why = why or "Removed with `paddle.fluid` in Paddle 2.6."
    before = example_before(e)
    example = ""
    if before:
        example = f"Before:\n\n{before}\nAfter:\n\n{example_after(e, before, book)}"
    return {"code": e.code, "rule": RULE_NAMES.get(e.code, "legacy-api"), "legacy": e.name,
            "target": e.target, "safety": e.safety, "what": what + sig, "why": why,
            "example": example, "fix_safety": SAFETY_TEXT[e.safety], "file": e.file,
            "aliases": ", ".join(e.aliases)}


def code_doc(code: str, book: Optional[RuleBook] = None) -> Optional[Dict[str, str]]:
    code = code.upper()
    if code not in RULE_NAMES:
        return None
    book = book or load()
    doc = fixer_doc(code)
    members = [e for e in book if e.code == code]
    if doc:
        sections = _sections(doc)
    else:
        sections = {"what": CODE_DOCS.get(code, ""), "why": "`paddle.fluid` was removed in Paddle 2.6.",
                    "example": "", "fix_safety": "Per entry; see `paddle-upgrade explain <api>`."}
    if members:
        sections["what"] += f"\n\n{len(members)} rule entries use {code}, e.g. " + ", ".join(
            f"`{e.short}`" for e in members[:8]) + ("…" if len(members) > 8 else "")
    return {"code": code, "rule": RULE_NAMES[code], **sections}


def _sections(doc: str) -> Dict[str, str]:
    lines = doc.strip().splitlines()
    title = lines[0]
    keys = {"What it does": "what", "Why is this bad?": "why", "Example": "example",
            "Fix safety": "fix_safety"}
    out = {"what": "", "why": "", "example": "", "fix_safety": "", "title": title}
    cur = None
    for line in lines[1:]:
        s = line.strip()
        if s in keys:
            cur = keys[s]
            continue
        if cur:
            out[cur] += (s + "\n") if s else "\n"
    return {k: re.sub(r"\n{3,}", "\n\n", v).strip() for k, v in out.items()}
