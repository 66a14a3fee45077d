"""Fixture pairs: fixtures/<CODE>/<case>.in.py → <case>.out.py (no .out.py: must not change).

Run with the shipped rule database; a case named ``*_unsafe`` runs with ``--unsafe-fixes``
(the rewrites of unsafe rules). Every output parses, `fix` is a fixpoint, and when a
`<case>.report.txt` exists, the findings (code + line + fix) must match it.
"""
from pathlib import Path

import libcst as cst
import pytest

from upgrader import upgrade_source

ROOT = Path(__file__).resolve().parent.parent / "fixtures"
CASES = sorted(p for p in ROOT.glob("PU*/*.in.py"))


@pytest.mark.parametrize("case", CASES, ids=lambda p: f"{p.parent.name}/{p.name[:-6]}")
def test_fixture_pair(case: Path):
    src = case.read_text(encoding="utf-8")
    out_path = case.with_name(case.name[:-6] + ".out.py")
    expected = out_path.read_text(encoding="utf-8") if out_path.exists() else src
    unsafe = case.name[:-6].endswith("_unsafe")
    got = upgrade_source(src, unsafe_fixes=unsafe).code
    assert got == expected
    cst.parse_module(got)
    assert upgrade_source(got, unsafe_fixes=unsafe).code == got, "fix is not idempotent"
    report = case.with_name(case.name[:-6] + ".report.txt")
    if report.exists():
        findings = upgrade_source(src, fix=False, unsafe_fixes=unsafe).findings
        lines = [f"{f.line}:{f.column} {f.code} {f.fix}" for f in findings]
        assert lines == [l for l in report.read_text().splitlines() if l.strip()]


def test_fixture_codes_exist_and_have_cases():
    from upgrader.engine import RULE_NAMES
    for d in ROOT.glob("PU*"):
        assert d.name in RULE_NAMES, f"fixtures/{d.name}: unknown rule code"
    assert CASES, "no fixture pairs found"


def test_every_structural_fixer_has_doc_and_fixture():
    from upgrader import fixers
    for name, mod in fixers.MODULES.items():
        doc = mod.__doc__ or ""
        for section in ("What it does", "Why is this bad?", "Example", "Fix safety"):
            assert section in doc, f"fixers/{name}.py: docstring lacks '{section}'"
        code = getattr(mod, "CODE")
        assert list(ROOT.glob(f"{code}/*.in.py")), f"fixers/{name}.py ({code}) has no fixture pair"
