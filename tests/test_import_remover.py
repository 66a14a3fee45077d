"""The import cleanup rebuilds only the statements that hold an import to remove
(fixers/imports._holders); the output is the one of a walk over every statement."""
from pathlib import Path

import pytest

from upgrader.engine import upgrade_source
from upgrader.fixers import imports

ROOT = Path(__file__).resolve().parent.parent
SOURCES = sorted(ROOT.glob("fixtures/PU*/*.in.py")) + sorted((ROOT / "fixtures" / "programs").glob("*.py"))

NESTED = [
    # imports in functions, try/except/else/finally, if/elif/else, one-line suites, classes
    ("import os\ntry:\n    import paddle.fluid as fluid  # legacy\nexcept ImportError:\n    fluid = None\n"
     "else:\n    import paddle.fluid.layers as L\nfinally:\n    pass\n\n"
     "def f(x):\n    import paddle.fluid as fluid\n    if x:\n        from paddle.fluid import layers\n"
     "        return layers.relu(x)\n    elif x is None:\n        import paddle.fluid.dygraph as dg\n"
     "        return dg.to_variable(x)\n    else:\n        return fluid.layers.sigmoid(x)\n\n"
     "class C:\n    import paddle.fluid as fluid\n    def g(self, x):\n"
     "        if x: import paddle.fluid as fluid2; y = 1\n        return fluid.layers.tanh(x)\n"),
    # a module alias and an import that becomes empty in the middle of a block
    ("import paddle.fluid as fluid\nimport numpy as np\nL = fluid.layers\n\n"
     "def h(x):\n    # keep me\n    import paddle.fluid as fluid\n    y = L.relu(x)\n    return y\n"),
]


def _both(code, unsafe=False):
    out = []
    real = imports._holders
    for holders in (real, lambda body, remove: None):
        imports._holders = holders
        try:
            r = upgrade_source(code, fix=True, unsafe_fixes=unsafe)
        finally:
            imports._holders = real
        out.append((r.code, [f.to_dict() for f in r.findings]))
    return out


def test_only_holders_rebuilt_same_output_on_fixtures_and_programs():
    differ = [p.name for p in SOURCES if (lambda a: a[0] != a[1])(_both(p.read_text()))]
    assert not differ


@pytest.mark.parametrize("i", range(len(NESTED)))
def test_only_holders_rebuilt_same_output_on_nested_imports(i):
    pruned, full = _both(NESTED[i])
    assert pruned == full
    gone = {0: ["import paddle.fluid.dygraph as dg", "from paddle.fluid import layers"],
            1: ["L = fluid.layers"]}[i]
    assert all(g in NESTED[i] and g not in pruned[0] for g in gone)


def test_holders_are_the_enclosing_statements():
    import libcst as cst
    m = cst.parse_module(NESTED[0])
    im = imports.collect_imports(m)
    inner = [b for b in im.all_bindings if b.dotted == "paddle.fluid.dygraph"]
    remove = {id(b.node) for b in inner}
    held = imports._holders(m.body, remove)
    f = next(s for s in m.body if isinstance(s, cst.FunctionDef))
    assert id(f) in held  # the def, its if/elif chain and the import line, nothing else
    assert all(id(s) not in held for s in m.body if s is not f)
    assert len(held) == 4
