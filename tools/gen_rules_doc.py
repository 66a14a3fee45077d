"""Generate docs/rules.md from the rule database (checked in CI to be up to date).

    python tools/gen_rules_doc.py          # write docs/rules.md
    python tools/gen_rules_doc.py --check  # exit 1 if docs/rules.md is stale
"""
from __future__ import annotations

import sys
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from upgrader.engine import RULE_NAMES  # noqa: E402
from upgrader.explain import arg_changes, code_doc, md_escape, modern  # noqa: E402
from upgrader.rulebook import load  # noqa: E402

OUT = ROOT / "docs" / "rules.md"


def cell(text: str) -> str:
    return " ".join(str(text).split()).replace("|", "\\|")


def render() -> str:
    book = load()
    lines = ["# Rules", "",
             "Generated from `rules/*.toml` by `tools/gen_rules_doc.py`; do not edit by hand.",
             "`paddle-upgrade explain <legacy name or code>` prints the full doc of a rule.", "",
             "## Codes", "", "| code | name | what |", "|---|---|---|"]
    for code, name in sorted(RULE_NAMES.items()):
        doc = code_doc(code, book) or {}
        what = (doc.get("what") or "").split("\n\n")[0]
        lines.append(f"| {code} | {name} | {cell(what)} |")
    counts = defaultdict(lambda: defaultdict(int))
    for e in book:
        counts[e.file][e.safety] += 1
    lines += ["", "## Summary", "", "| file | safe | unsafe | manual |", "|---|---|---|---|"]
    for f in sorted(counts):
        c = counts[f]
        lines.append(f"| {f} | {c['safe']} | {c['unsafe']} | {c['manual']} |")
    by_file = defaultdict(list)
    for e in book:
        by_file[e.file].append(e)
    for f in sorted(by_file):
        lines += ["", f"## {f}", "", "| legacy | modern | code | fix | argument changes | note |",
                  "|---|---|---|---|---|---|"]
        for e in sorted(by_file[f], key=lambda e: e.name):
            changes = "; ".join(arg_changes(e))
            if e.structural:
                changes = (changes + "; " if changes else "") + f"structural: {e.structural}"
            new = modern(e)
            new = ('`' + new + '`') if new == e.target and new else (new or '—')
            lines.append(f"| `{e.short}` | {new} | {e.code} | "
                         f"{e.safety} | {cell(changes)} | {cell(md_escape(e.note))} |")
    return "\n".join(lines) + "\n"


def main() -> int:
    text = render()
    if "--check" in sys.argv:
        if not OUT.exists() or OUT.read_text(encoding="utf-8") != text:
            print("docs/rules.md is stale: run `python tools/gen_rules_doc.py`", file=sys.stderr)
            return 1
        return 0
    OUT.parent.mkdir(exist_ok=True)
    OUT.write_text(text, encoding="utf-8")
    print(f"wrote {OUT.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
