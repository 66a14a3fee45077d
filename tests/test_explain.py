"""``paddle-upgrade explain`` and the docs table say what the rewrite really does.

- an entry whose structural rewrite deletes the call (its fixer lists the structural name
  in ``DELETES``) shows "(call removed)", not its ``target``, in explain, docs and ``rules``;
- notes are printed as written: Markdown markup in them (``<...>``, ``*``, ``_``) is escaped;
- a code several structural rule modules share documents every one of them.
"""
from __future__ import annotations

import importlib.util
import io
import re
from pathlib import Path

import pytest
from click.testing import CliRunner
from rich.console import Console
from rich.markdown import Markdown

from upgrader import explain, fixers, shell
from upgrader.cli import main
from upgrader.engine import RULE_NAMES
from upgrader.rulebook import load

ROOT = Path(__file__).resolve().parent.parent
BOOK = load()
DELETED = [e for e in BOOK if e.structural in fixers.DELETING]


def flat(text: str) -> str:
    return " ".join(text.split())


def cli(*args: str) -> str:
    r = CliRunner().invoke(main, list(args), env={"COLUMNS": "200", "NO_COLOR": "1"})
    assert r.exit_code == 0, r.output
    return flat(r.output)


def rendered(markdown: str) -> str:
    console = Console(file=io.StringIO(), width=200, no_color=True, force_terminal=False)
    console.print(Markdown(markdown))
    return flat(console.file.getvalue())


def gen_rules_doc():
    spec = importlib.util.spec_from_file_location("gen_rules_doc", ROOT / "tools" / "gen_rules_doc.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_deleting_structurals_are_declared_by_their_fixer():
    for mod in fixers.MODULES.values():
        for name in getattr(mod, "DELETES", ()):
            assert name in mod.STRUCTURAL, (mod.__name__, name)
    assert DELETED, "no entry uses a structural rewrite that deletes the call"


@pytest.mark.parametrize("e", DELETED, ids=lambda e: e.short)
def test_explain_says_the_call_is_removed(e):
    doc = explain.entry_doc(e, BOOK)
    first = doc["what"].split("\n\n")[0]
    assert explain.CALL_REMOVED in first
    assert e.target not in first
    out = cli("explain", e.name)
    assert f"{e.short} → {explain.CALL_REMOVED}" in out
    assert f"→ {e.target}" not in out


def test_docs_and_rules_table_say_the_call_is_removed():
    text = gen_rules_doc().render()
    for e in DELETED:
        row = [ln for ln in text.splitlines() if ln.startswith(f"| `{e.short}` |")]
        assert len(row) == 1, e.name
        assert row[0].split(" | ")[1] == explain.CALL_REMOVED
    out = cli("rules", DELETED[0].name)
    assert explain.CALL_REMOVED in out


def test_rules_json_says_the_call_is_removed():
    import json
    got = {d["legacy"]: d for d in json.loads(cli("rules", "--format", "json", DELETED[0].short))}
    d = got[DELETED[0].name]
    assert d["removes_call"] is True and d["modern"] == explain.CALL_REMOVED
    assert d["target"] == DELETED[0].target   # the validated modern namespace stays
    kept = next(e for e in BOOK if e.target and not e.structural)
    d = {x["legacy"]: x for x in json.loads(cli("rules", "--format", "json", kept.short))}[kept.name]
    assert d["removes_call"] is False and d["modern"] == kept.target


def test_other_entries_keep_their_target():
    kept = [e for e in BOOK if e.target and not e.structural][:20]
    for e in kept:
        assert explain.modern(e) == e.target
        assert explain.entry_doc(e, BOOK)["what"].startswith(f"`{e.short}` → `{e.target}`")


def _unspanned(text: str) -> str:
    """What Markdown shows for code spans: their content without the backticks."""
    return re.sub(r"(`+)(.+?)\1", lambda m: m.group(2), text, flags=re.S)


@pytest.mark.parametrize("text", [
    "lr_lambda=<that factor of n>", "a *b* c", "__init__ and _x_", "[link](target)",
    "&amp; &lt; a & b", "x ~~y~~", r"back\slash", "`<kept>` <html> `a*b*`", "1 < 2 > 0",
    "f(*args, **kwargs)", "x * mask * 2", "shape [3, 4] and [a](b)", "# not a heading",
    "> not a quote", "two\n# lines", "snake_case_name stays", "<https://example.com>",
])
def test_md_escape_shows_text_as_written(text):
    assert rendered(explain.md_escape(text)) == flat(_unspanned(text))


def test_every_note_renders_as_written():
    bad = []
    for e in BOOK:
        for text in (e.note, e.why):
            if text and rendered(explain.md_escape(text)) != flat(_unspanned(text)):
                bad.append(e.name)
    assert not bad, bad[:10]


def test_explain_prints_angle_brackets_of_notes():
    with_markup = [e for e in BOOK if re.search(r"<[a-z][^>`]*>", _unspanned(e.note))]
    assert with_markup, "no note with <...> to check"
    for e in with_markup[:5]:
        out = cli("explain", e.name)
        for m in re.finditer(r"<[a-z][^>`]*>", e.note):
            assert flat(m.group(0)) in out, (e.name, m.group(0))


def _modules(code: str):
    return [m for m in list(fixers.MODULES.values()) + [shell]
            if getattr(m, "CODE", None) == code and m.__doc__]


SHARED = [c for c in sorted(RULE_NAMES) if len(_modules(c)) > 1]


def test_some_code_is_shared():
    assert SHARED


@pytest.mark.parametrize("code", SHARED)
def test_shared_code_documents_every_module(code):
    doc = explain.code_doc(code, BOOK)
    out = cli("explain", code)
    for mod in _modules(code):
        title = mod.__doc__.strip().splitlines()[0]
        name = title.partition(":")[0][len(code):].strip()
        assert f"**{name}**" in doc["what"], (code, mod.__name__)
        assert flat(_unspanned(title.partition(":")[2])) in out, (code, mod.__name__)
    # the docs table's one-line summary is the code's own, not one module's
    assert doc["what"].split("\n\n")[0] == explain.CODE_DOCS[code]


@pytest.mark.parametrize("code", [c for c in sorted(RULE_NAMES) if len(_modules(c)) == 1])
def test_single_module_code_keeps_its_doc(code):
    doc = explain.code_doc(code, BOOK)
    assert doc["what"].startswith(explain._sections(_modules(code)[0].__doc__)["what"])


def test_args_taken_name_real_arguments_of_structural_entries():
    """A fixer's ARGS_TAKEN speaks of entries it rewrites and of their 1.8 arguments, and
    explain shows it instead of the plain mapping's "manual"."""
    assert fixers.ARGS_TAKEN
    for name, args in fixers.ARGS_TAKEN.items():
        e = BOOK.lookup(name)
        assert e is not None and e.structural, name
        assert set(args) <= set(e.args), (name, set(args) - set(e.args))
        text = " ".join(explain.arg_changes(e))
        for arg, what in args.items():
            assert what in text, (name, arg)
