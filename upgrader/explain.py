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
    "PU201": "Dygraph blocks: `with fluid.dygraph.guard()` unwrapped, and what 1.8 set up "
             "inside one (the program's random seed).",
    "PU207": "Optimizer methods whose 1.x spelling is gone: minimize/backward arguments "
             "given as names, renamed methods, weight tying in one program.",
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


CALL_REMOVED = "(call removed)"


def removes_call(e: Entry) -> bool:
    """The entry's rewrite deletes the call statement (its structural fixer says so in
    ``DELETES``): there is no modern call to show, whatever ``target`` names."""
    return bool(e.structural) and e.structural in fixers.DELETING


def modern(e: Entry) -> str:
    """What a legacy use becomes, for tables: the target, "(call removed)", the code fix
    adds to the module (a structural fixer's ``HELPERS``) or ""."""
    if removes_call(e):
        return CALL_REMOVED
    return fixers.HELPERS_BY_NAME.get(e.name) or fixers.HELPERS.get(e.structural or "", e.target)


def fixer_docs(code: str) -> List[str]:
    """The docstrings of every structural rule module documented under ``code``."""
    from upgrader import shell
    return [mod.__doc__ for mod in list(fixers.MODULES.values()) + [shell]
            if getattr(mod, "CODE", None) == code and mod.__doc__]


def fixer_doc(code: str) -> Optional[str]:
    docs = fixer_docs(code)
    return docs[0] if docs else None


_CODE_SPAN = re.compile(r"(`+)(.+?)\1", re.S)
# What Markdown (CommonMark/GFM, rich) would take as markup in plain text: backslashes,
# ``<`` (tags, autolinks), ``&name;`` entities, ``~`` (strikethrough), ``*`` not between
# spaces and ``_`` not inside a word (emphasis), ``](`` / ``]:`` (links), ``>`` and ``#``
# opening a line (block quote, heading).
_MARKUP = re.compile(r"[\\<~]|&(?=#?\w+;)|(?<!\s)\*|\*(?!\s)|(?<![A-Za-z0-9])_|_(?![A-Za-z0-9])"
                     r"|\](?=[(:])|^[ \t]*[>#]", re.M)


def _backslash(m) -> str:
    t = m.group(0)
    return t[:-1] + "\\" + t[-1]  # a line's indentation stays before the escape


def md_escape(text: str) -> str:
    """``text`` for Markdown, shown as written: the characters Markdown would take as
    markup (``<tag>``, ``&entity;``, emphasis, links, ...) are backslash-escaped outside
    code spans (inside them Markdown keeps every character)."""
    out, pos = [], 0
    for m in _CODE_SPAN.finditer(text):
        out.append(_MARKUP.sub(_backslash, text[pos:m.start()]))
        out.append(m.group(0))
        pos = m.end()
    out.append(_MARKUP.sub(_backslash, text[pos:]))
    return "".join(out)


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
    from upgrader.fixers import ARGS_TAKEN
    taken = ARGS_TAKEN.get(e.name, {})
    out = []
    for name, s in e.args.items():
        if name in taken and not s.drop_if_default:
            out.append(f"`{name}`: {taken[name]}")
        elif s.drop:
            out.append(f"`{name}` dropped")
        elif s.drop_if_default:
            out.append(f"`{name}` dropped when default, else {taken.get(name, 'manual')}")
        elif s.manual_if_set:
            out.append(f"`{name}`: manual ({s.manual_if_set})")
        elif s.call_arg:
            out.append(f"`{name}` → `{s.call_arg}` of the layer call")
        elif s.act:
            out.append(f"`{name}` → explicit activation call")
        elif s.unsafe_if_set:
            out.append(f"`{name}`: unsafe when set ({s.unsafe_if_set})")
        elif s.unsafe_below:
            out.append(f"`{name}`: unsafe below {s.unsafe_below['bound']} or when not a literal "
                       f"({s.unsafe_below['why']})")
        elif s.unsafe_above:
            out.append(f"`{name}`: unsafe above {s.unsafe_above['bound']} or when not a literal "
                       f"({s.unsafe_above['why']})")
        elif s.manual_values:
            out.append(f"`{name}`: manual for {', '.join(s.manual_values)} or a non-literal value")
        elif s.wrap:
            out.append(f"`{name}` → `{s.wrap}`")
        else:
            parts = [f"`{name}` → `{s.rename or name}`"]
            if s.transform:
                parts.append(f"value `{s.transform}`" + (
                    f" when `{s.transform_when}` is not its 1.8 default" if s.transform_when else ""))
            if s.values:
                parts.append("values " + ", ".join(f"{k}→{v}" for k, v in s.values.items()))
            if s.default is not None:
                parts.append(f"default `{s.default}`")
            if s.manual_if_unset:
                parts.append(f"(manual when not given: {s.manual_if_unset})")
            out.append(" ".join(parts))
    for k, v in e.extra.items():
        out.append(f"adds `{k}={v}`")
    return out


SAFETY_TEXT = {
    "safe": "Safe: applied by `paddle-upgrade fix`; proven to compute what 1.8.5 computed.",
    "unsafe": "Unsafe: applied only with `--unsafe-fixes`; it changes something a user may rely on.",
    "manual": "Manual: reported by `check`; `fix` leaves the call as it is, with a "
              "`# TODO(paddle-upgrade)` comment above it, and keeps the legacy import it needs: "
              "the file runs on Paddle 3 once the follow-up is done (or, unmodified, through "
              "`python -m compat`).",
}


def entry_doc(e: Entry, book: Optional[RuleBook] = None) -> Dict[str, str]:
    book = book or load()
    if removes_call(e):
        what = (f"`{e.short}` → {CALL_REMOVED}: the `{e.structural}` rewrite deletes the call "
                "statement (see the note)")
    elif e.structural in fixers.HELPERS:
        what = f"`{e.short}` → {modern(e)}"
    elif e.target:
        what = f"`{e.short}` → `{e.target}`"
    else:
        what = f"`{e.short}` has no automatic rewrite"
    changes = arg_changes(e)
    if changes:
        what += "\n\nArguments: " + "; ".join(changes) + "."
    if e.structural:
        what += f"\n\nStructural rewrite: `{e.structural}`."
    sig = f"\n\n1.8 signature: `{e.short.rsplit('.', 1)[-1]}{e.signature}`" if e.signature else ""
    why = md_escape(e.why or "") + ("\n\n" if e.why and e.note else "") + md_escape(e.note or "")
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
    docs = fixer_docs(code)
    members = [e for e in book if e.code == code]
    if len(docs) > 1:
        sections = _shared_sections(code, docs)
    elif docs:
        sections = _sections(docs[0])
    else:
        sections = {"what": CODE_DOCS.get(code, ""), "why": "`paddle.fluid` was removed in Paddle 2.6.",
                    "example": "", "fix_safety": "Per entry; see `paddle-upgrade explain <api>`."}
    if members:
        sections["what"] += f"\n\n{len(members)} rule entries use {code}, e.g. " + ", ".join(
            f"`{e.short}`" for e in members[:8]) + ("…" if len(members) > 8 else "")
    return {"code": code, "rule": RULE_NAMES[code], **sections}


def _paragraph(text: str) -> str:
    return text.split("\n\n")[0].strip()


def _shared_sections(code: str, docs: List[str]) -> Dict[str, str]:
    """A code several structural rule modules use: the code's summary, then for each
    module its name and the first paragraph of each section (the title under What)."""
    parts = []
    for d in docs:
        p = _sections(d)
        name, _, title = p["title"].partition(":")
        parts.append((name[len(code):].strip() or name, title.strip(), p))

    def listed(key: str) -> str:
        return "\n".join(f"- **{name}**: {_paragraph(p[key])}" for name, _, p in parts if p[key])

    what = (CODE_DOCS.get(code, "") + f"\n\n{len(parts)} structural rules use {code}:\n\n"
            + "\n".join(f"- **{name}**: {title} {_paragraph(p['what'])}" for name, title, p in parts))
    return {"what": what.strip(), "why": listed("why"), "example": listed("example"),
            "fix_safety": listed("fix_safety") + "\n\nThe other entries: see `paddle-upgrade "
            "explain <api>`.", "title": f"{code} {RULE_NAMES.get(code, '')}".strip()}


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
