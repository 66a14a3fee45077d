"""engine.parse_module skips libcst's per-node validation while the parser runs: the trees
must be the same as the validating parser's, and validation must be back on afterwards
for the nodes the fixers build."""
from pathlib import Path

import libcst as cst
import pytest

from upgrader import engine

ROOT = Path(__file__).resolve().parent.parent
SOURCES = sorted(p for d in ("fixtures", "tests", "upgrader", "compat", "benchmarks", "tools", "proof")
                 if (ROOT / d).is_dir()
                 for p in (ROOT / d).rglob("*.py") if "corpus" not in p.parts and ".venv" not in str(p))


def _parses(text):
    try:
        return cst.parse_module(text)
    except Exception:
        return None


def test_there_are_sources():
    assert len(SOURCES) > 200


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: str(p.relative_to(ROOT)))
def test_same_tree_as_the_validating_parser(path):
    text = path.read_text(encoding="utf-8", errors="surrogateescape")
    ref = _parses(text)
    if ref is None:
        with pytest.raises(Exception):
            engine.parse_module(text)
        return
    fast = engine.parse_module(text)
    assert fast.deep_equals(ref)
    assert fast.code == ref.code == text


def test_validation_is_back_on_after_parsing():
    engine.parse_module("x = 1\n")
    with pytest.raises(cst.CSTValidationError):
        cst.Name("not an identifier")


def test_validation_is_back_on_after_a_parse_error():
    with pytest.raises(cst.ParserSyntaxError):
        engine.parse_module("def f(:\n")
    with pytest.raises(cst.CSTValidationError):
        cst.Integer("x1")
