"""Statements left out of the rewriting walk (upgrader/untouched.py) change nothing: the
engine's output and findings are the same with and without skipping."""
import sys
from pathlib import Path

import libcst as cst
import pytest

from upgrader import untouched
from upgrader.engine import _legacy_tops, upgrade_source
from upgrader.names import collect_imports
from upgrader.rulebook import load

ROOT = Path(__file__).resolve().parent.parent
SOURCES = sorted(ROOT.glob("fixtures/PU*/*.in.py")) + sorted((ROOT / "fixtures" / "programs").glob("*.py")) \
    + sorted((ROOT / "tests" / "data" / "stability").glob("*.py"))


def _result(code, fix, skip, **kw):
    old = untouched.ENABLED
    untouched.ENABLED = skip
    try:
        r = upgrade_source(code, fix=fix, **kw)
    finally:
        untouched.ENABLED = old
    return r.code, [(f.line, f.column, f.code, f.message, f.fix, f.applied) for f in r.findings]


@pytest.mark.parametrize("fix", [True, False], ids=["fix", "check"])
def test_skipping_changes_nothing_on_fixtures_and_programs(fix):
    differ = [p.name for p in SOURCES
              if _result(p.read_text(), fix, True) != _result(p.read_text(), fix, False)]
    assert not differ


def test_skipping_changes_nothing_on_generated_programs():
    sys.path.insert(0, str(ROOT / "tests"))
    from hypothesis import HealthCheck, Phase, given, settings
    from strategies import legacy_programs

    @settings(max_examples=60, derandomize=True, database=None, deadline=None,
              phases=[Phase.generate], suppress_health_check=list(HealthCheck))
    @given(legacy_programs())
    def check(program):
        for fix in (True, False):
            assert _result(program.code, fix, True) == _result(program.code, fix, False)
            assert _result(program.code, fix, True, unsafe_fixes=True) == \
                _result(program.code, fix, False, unsafe_fixes=True)

    check()


def _skipped(code, m=None):
    m = m or cst.parse_module(code)
    im = collect_imports(m)
    return untouched.untouched_statements(m, code, {k: b.dotted for k, b in im.bindings.items()},
                                          _legacy_tops(load()))


def test_what_is_skipped():
    code = ("import paddle\nimport paddle.fluid as fluid\nimport numpy as np\n\n"
            "def plain(x):\n    y = np.ones(3)\n    return paddle.nn.functional.relu(x) + y\n\n"
            "def legacy(x):\n    a = np.zeros(2)\n    for i in range(3):\n        a += i\n"
            "    return fluid.layers.relu(x)\n\n"
            "def trainer(opt, loss):\n    opt.minimize(loss)\n\n"
            "def loader():\n    return paddle.dataset.mnist.train()\n\n"
            "def dynamic():\n    return __import__('paddle.fluid')\n")
    m = cst.parse_module(code)
    skipped = _skipped(code, m)
    top = {s.name.value: s for s in m.body if isinstance(s, cst.FunctionDef)}
    assert id(top["plain"]) in skipped  # modern paddle.nn: nothing legacy
    assert id(top["legacy"]) not in skipped
    inner = top["legacy"].body.body
    assert id(inner[0]) in skipped and id(inner[1]) in skipped and id(inner[2]) not in skipped
    assert id(top["trainer"]) not in skipped  # a method a structural rule looks at
    assert id(top["loader"]) not in skipped  # paddle.dataset is legacy
    assert id(top["dynamic"]) not in skipped  # a string naming paddle


def test_parsers_that_disagree_skip_nothing():
    assert _skipped("import paddle.fluid as fluid\nx = 1\ny = 2\n")
    m = cst.parse_module("import paddle.fluid as fluid\nx = 1; y = 2\nz = 3\n")
    assert untouched.untouched_statements(m, "import paddle.fluid as fluid\nx = 1\n",
                                          {"fluid": "paddle.fluid"}, frozenset({"fluid"})) == set()
