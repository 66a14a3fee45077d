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


# ---------------------------------------------------------------- statement-local positions
# Upgrader.pos places most findings with a code generation of the statement (or compound
# statement header) that holds them instead of the whole module; the numbers must be the
# whole module's, end positions included.

def _full(code, fix, unsafe=False):
    from upgrader import engine
    old = engine._FULL_POSITIONS
    out = []
    for full in (False, True):
        engine._FULL_POSITIONS = full
        try:
            r = upgrade_source(code, fix=fix, unsafe_fixes=unsafe)
        finally:
            engine._FULL_POSITIONS = old
        out.append((r.code, [f.to_dict() for f in r.findings]))
    return out


TRICKY = [
    # CRLF line ends, a tab-indented function, non-ASCII text before a finding on its line
    "import paddle.fluid as fluid\r\n\r\ndef f(x):\r\n\ty = 'é€'; z = fluid.layers.relu(x)\r\n\treturn z\r\n",
    "import paddle.fluid as fluid\n\ndef f(x):\n    s = 'ü'; return fluid.layers.softmax(x)  # ünï\n",
    # decorators, a comment after the colon, nested blocks, elif with legacy tests
    ("import paddle.fluid as fluid\nimport functools\n\n\n@functools.lru_cache()\n# between\n"
     "@functools.wraps(print)\ndef g(x):  # note\n    if x is None:\n        pass\n"
     "    elif fluid.in_dygraph_mode():\n        return fluid.layers.relu(x)\n"
     "    else:\n        return fluid.layers.sigmoid(x)\n"),
    # a dygraph guard block (reported over the whole block), with `as`, and its else-less body
    ("import paddle.fluid as fluid\nimport numpy as np\n\nwith fluid.dygraph.guard():  # dyn\n"
     "    x = fluid.dygraph.to_variable(np.ones([2, 2], 'float32'))\n\n"
     "    y = fluid.layers.relu(x)\n    # trailing comment\n"
     "for i in range(2):\n    with fluid.dygraph.guard() as g:\n        z = fluid.layers.relu(\n"
     "            x)\nelse:\n    w = fluid.layers.relu(x)\n"),
    # multi-line strings, backslash continuations, parenthesized statements, a class
    ('import paddle.fluid as fluid\n\nDOC = """\nfluid.layers.relu(x)\n"""\n\nclass Net(fluid.dygraph.Layer):\n'
     '    """doc\n    more"""\n    def forward(self, x):\n        y = x + \\\n            fluid.layers.relu(x)\n'
     '        (fluid.layers\n         .softmax(y))\n        return y\n'),
    # try/except/finally and while/else bodies
    ("import paddle.fluid as fluid\n\ntry:\n    a = fluid.layers.relu(1)\nexcept ValueError:\n"
     "    a = fluid.layers.sigmoid(1)\nfinally:\n    b = fluid.layers.relu(2)\nwhile False:\n"
     "    c = fluid.layers.relu(3)\nelse:\n    c = fluid.layers.tanh(3)\n"),
]


@pytest.mark.parametrize("fix", [True, False], ids=["fix", "check"])
def test_local_positions_are_the_modules(fix):
    differ = []
    for p in SOURCES:
        local, full = _full(p.read_text(), fix)
        if local != full:
            differ.append(p.name)
    for i, code in enumerate(TRICKY):
        for unsafe in (False, True):
            local, full = _full(code, fix, unsafe)
            assert local[1], f"tricky source {i} has no findings"
            if local != full:
                differ.append(f"tricky {i} unsafe={unsafe}")
    assert not differ


def test_local_positions_are_the_modules_on_generated_programs():
    sys.path.insert(0, str(ROOT / "tests"))
    from hypothesis import HealthCheck, Phase, given, settings
    from strategies import legacy_programs

    @settings(max_examples=30, derandomize=True, database=None, deadline=None,
              phases=[Phase.generate], suppress_health_check=list(HealthCheck))
    @given(legacy_programs())
    def check(program):
        for fix in (True, False):
            local, full = _full(program.code, fix)
            assert local == full

    check()


def test_local_positions_used_for_most_statements():
    """The fast path is taken: on a legacy program, the whole module's positions are not
    computed (every finding sits in a statement that can be placed)."""
    from upgrader import engine
    calls = []
    real = engine.positions
    engine.positions = lambda m: calls.append(1) or real(m)
    try:
        r = upgrade_source(TRICKY[3], fix=False)
    finally:
        engine.positions = real
    assert r.findings and not calls


# ---------------------------------------------------------------- quiet statements
# The survey and the used-names walk also skip statements (untouched.py `quiet`); modern
# code through a plain `import paddle` counts as quiet unless something rebinds the name.
QUIET = [
    ("import paddle\nimport paddle.fluid as fluid\n\npaddle.seed(1)\nnet = paddle.nn.Linear(2, 2)\n"
     "opt = fluid.optimizer.Adam(0.1, parameter_list=net.parameters())\n"
     "a, b = paddle.nn.Linear(1, 1), make()\nfluid.save_dygraph(net.state_dict(), 'm')\n"
     "fluid.save_dygraph(opt.state_dict(), 'o')\n"),
    ("import paddle as P\nimport paddle.fluid as fluid\n\ndef f(P=None):\n    return P.nn.Linear(2, 2)\n\n"
     "m = P.nn.Linear(2, 2)\nfluid.save_dygraph(m.state_dict(), 'x')\n"),
    ("import paddle\nimport paddle.fluid as fluid\n\nprint(paddle.__version__)\npaddle.enable_static()\n"
     "y = fluid.layers.data('y', [1])\n"),
    ("import paddle.fluid\n\nw = paddle.nn.Linear(2, 2)\nz = paddle.fluid.layers.relu(w)\n"),
    # an alias inside the guard block becomes module-level when the guard goes: its uses
    # are not quiet (the cleanup used to drop the alias and leave `t(...)` undefined)
    ("import numpy as np\nimport paddle.fluid as fluid\n\nwith fluid.dygraph.guard():\n"
     "    t = fluid.dygraph.to_variable\n    u = t\n    x = u(np.ones([2], 'float32'))\n"),
]


@pytest.mark.parametrize("i", range(len(QUIET)))
def test_quiet_statements_change_nothing(i):
    for fix in (True, False):
        for unsafe in (False, True):
            assert _result(QUIET[i], fix, True, unsafe_fixes=unsafe) == \
                _result(QUIET[i], fix, False, unsafe_fixes=unsafe)


def _quiet(code):
    from upgrader.engine import _plain_packages
    m = cst.parse_module(code)
    im = collect_imports(m)
    q = {}
    untouched.untouched_statements(m, code, {k: b.dotted for k, b in im.bindings.items()},
                                   _legacy_tops(load()), {}, q, _plain_packages(im))
    return m, q


def test_quiet_takes_modern_code_through_a_plain_import():
    m, q = _quiet(QUIET[0])
    assert q[id(m.body[2])] == []  # paddle.seed(1)
    assert id(m.body[3]) not in q  # net = paddle.nn.Linear(...): net is traced (untouched.py)
    assert q[id(m.body[5])] == [("a", "paddle.nn.Linear"), ("b", "")]
    m, q = _quiet(QUIET[1])  # P is a parameter of f: P loads are not quiet anywhere
    assert not any(isinstance(s, cst.SimpleStatementLine) and id(s) in q for s in m.body[3:])
    m, q = _quiet(QUIET[2])  # the program switching itself is the survey's business
    assert id(m.body[3]) not in q and id(m.body[2]) in q
    m, q = _quiet(QUIET[3])  # `import paddle.fluid` binds paddle too: the cleanup may drop it
    assert id(m.body[1]) not in q
