"""fixers/act_by_name.py: the function fix adds for ``act=<name>`` known only at run time."""
from pathlib import Path

from upgrader import upgrade_source
from upgrader.fixers import act_by_name
from upgrader.rulebook import ACT_TARGETS

ROOT = Path(__file__).resolve().parent.parent
PROGRAM = ROOT / "fixtures" / "programs" / "static_act_by_name.py"


def test_every_branch_is_run_by_the_program():
    """Each branch of _fluid_act is checked against 1.8.5 by program static_act_by_name:
    a name added to ACT_TARGETS or EXTRA_ACTS must be added to the program (and its
    golden re-recorded) too."""
    src = PROGRAM.read_text(encoding="utf-8")
    names = set(ACT_TARGETS) | set(act_by_name.EXTRA_ACTS)
    missing = sorted(n for n in names if '"%s"' % n not in src)
    assert not missing, "program static_act_by_name does not run act=%s" % missing


def test_branches_follow_the_tables():
    """A literal act and a run-time name give the same modern call (ACT_TARGETS first)."""
    code = act_by_name.helper_source()
    acts = dict(act_by_name.EXTRA_ACTS)
    acts.update(ACT_TARGETS)
    for name, tmpl in acts.items():
        assert "    if act == %r:\n        return %s\n" % (name, tmpl.replace("{call}", "x")) in code


def test_function_added_once_and_only_when_used():
    src = ("import paddle.fluid as fluid\n\n\n"
           "def fc(x, act=None):\n    return fluid.layers.fc(x, 3, act=act)\n\n\n"
           "def fc2(x, a):\n    return fluid.layers.fc(x, 3, act=a)\n")
    out = upgrade_source(src).code
    assert out.count("def _fluid_act(") == 1
    assert "_fluid_act(paddle.static.nn.fc(x, 3), act)" in out
    assert upgrade_source(out).code == out
    literal = "import paddle.fluid as fluid\n\n\ndef fc(x):\n    return fluid.layers.fc(x, 3, act='relu')\n"
    assert "_fluid_act" not in upgrade_source(literal).code


def test_check_reports_the_rewrite_as_safe():
    src = "import paddle.fluid as fluid\n\n\ndef fc(x, act=None):\n    return fluid.layers.fc(x, 3, act=act)\n"
    findings = [f for f in upgrade_source(src, fix=False).findings if f.legacy == "paddle.fluid.layers.fc"]
    assert [f.fix for f in findings] == ["safe"]


def test_layer_class_gets_a_forward_hook():
    src = ("import paddle.fluid as fluid\nfrom paddle.fluid.dygraph import Linear\n\n\n"
           "class Net(fluid.dygraph.Layer):\n    def __init__(self, act):\n"
           "        super(Net, self).__init__()\n        self.lin = Linear(4, 2, act=act)\n\n"
           "    def forward(self, x):\n        return self.lin(x)\n")
    out = upgrade_source(src).code
    assert "self.lin = _fluid_layer_act(paddle.nn.Linear(4, 2), act)" in out
    assert out.count("def _fluid_act(") == 1 and out.count("def _fluid_layer_act(") == 1
    assert upgrade_source(out).code == out
    findings = [f for f in upgrade_source(src, fix=False).findings
                if f.legacy.endswith("Linear") and f.code != "PU002"]
    assert [f.fix for f in findings] == ["safe"]
    to_static = src + "\n\nnet = fluid.dygraph.jit.declarative(Net('relu').forward)\n"
    assert "_fluid_layer_act" not in upgrade_source(to_static).code
