"""PU214: LR decay objects stepped explicitly (upgrader/fixers/lr_stepping.py).

The fixture pairs in fixtures/PU214/ show the rewrites and the manual notes; the proof
(tests/test_proof.py -k Decay) shows the rewritten training loops match Paddle 1.8.5. These
tests cover the switches: --ignore, noqa, check mode, and scopes; where the stepping cannot
be traced, the decay becomes 1.8's class fix adds (lr_decay_classes), reported with why.
"""
import re

import libcst as cst

from upgrader import upgrade_source

HEAD = "import paddle.fluid as fluid\n\n\n"

LOOP = HEAD + """def train(model, losses):
    lr = fluid.dygraph.PiecewiseDecay([2], [0.1, 0.01], 0)
    opt = fluid.optimizer.SGD(learning_rate=lr, parameter_list=model.parameters())
    for loss in losses:
        opt.minimize(loss){noqa}
{extra}"""


def _codes(res):
    return sorted((f.code, f.fix, f.applied) for f in res.findings if f.code in ("PU104", "PU214"))


def _stepped(code, name="lr"):
    return re.search(rf"^\s+{name}\.step\(\)$", code, re.M) is not None


def _fix(src, **kw):
    res = upgrade_source(src, **kw)
    cst.parse_module(res.code)
    assert upgrade_source(res.code, **kw).code == res.code, "not idempotent"
    return res


def test_step_inserted_after_minimize():
    res = _fix(LOOP.format(noqa="", extra=""))
    assert "        opt.minimize(loss)\n        lr.step()\n" in res.code
    assert "paddle.optimizer.lr.PiecewiseDecay([2], [0.1, 0.01], 0 - 1)" in res.code
    assert ("PU214", "safe", True) in _codes(res)


def test_check_mode_reports_without_changing():
    src = LOOP.format(noqa="", extra="")
    res = upgrade_source(src, fix=False)
    assert res.code == src
    assert ("PU214", "safe", True) in _codes(res)


def test_ignored_code_leaves_the_scheduler_legacy():
    res = _fix(LOOP.format(noqa="", extra=""), ignore=["PU214"])
    assert "fluid.dygraph.PiecewiseDecay" in res.code and not _stepped(res.code)


def test_noqa_on_a_minimize_keeps_everything():
    res = _fix(LOOP.format(noqa="  # noqa: PU214", extra=""))
    assert "fluid.dygraph.PiecewiseDecay" in res.code and not _stepped(res.code)


def _as_class(res, name, reason):
    """The decay became 1.8's class fix adds (lr_decay_classes), reported with ``reason``."""
    assert f"{name}(" in res.code and not _stepped(res.code)
    assert "import paddle.fluid" not in res.code
    (f,) = [f for f in res.findings if f.code == "PU104" and f.replacement == name]
    assert f.fix == "safe" and f.applied and reason in f.message, f.message


def test_current_step_lr_keeps_1_8s_class():
    # today's get_lr() would give the next step's rate: 1.8's class keeps the last one
    src = LOOP.format(noqa="", extra="        print(opt.current_step_lr())\n")
    res = _fix(src)
    _as_class(res, "_FluidPiecewiseDecay", "`opt.current_step_lr()` (now get_lr()) gives the "
              "next step's rate")
    assert "opt.get_lr()" in res.code


def test_module_level_scheduler_read_in_a_function_keeps_1_8s_class():
    src = HEAD + """lr = fluid.dygraph.NoamDecay(64, 10)
opt = fluid.optimizer.Adam(learning_rate=lr, parameter_list=[])


def log():
    print(lr)


opt.minimize(loss)
"""
    res = _fix(src)
    _as_class(res, "_FluidNoamDecay", "`lr` is read in another scope (`print(lr)`)")


def test_global_rebinding_keeps_1_8s_class():
    src = HEAD + """def train(model, loss):
    global opt
    lr = fluid.dygraph.NoamDecay(64, 10)
    opt = fluid.optimizer.Adam(learning_rate=lr, parameter_list=model.parameters())
    opt.minimize(loss)
"""
    res = _fix(src)
    _as_class(res, "_FluidNoamDecay", "not a plain name assigned once")


def test_epoch_inside_an_expression_keeps_1_8s_class():
    src = HEAD + """def train(model):
    s = fluid.dygraph.StepDecay(0.1, step_size=2)
    opt = fluid.optimizer.SGD(learning_rate=s, parameter_list=model.parameters())
    x = s.epoch() or 1
"""
    res = _fix(src)
    _as_class(res, "_FluidStepDecay", "`s.epoch()` is inside an expression")
    assert "s.epoch() or 1" in res.code  # 1.8's epoch() is the class's


def test_epoch_based_needs_no_optimizer_steps():
    src = HEAD + """def train(model, epochs):
    s = fluid.dygraph.MultiStepDecay(0.1, milestones=[2, 4])
    opt = fluid.optimizer.SGD(learning_rate=s, parameter_list=model.parameters())
    for e in range(epochs):
        s.epoch(e)
"""
    res = _fix(src)
    assert "paddle.optimizer.lr.MultiStepDecay(0.1, milestones=[2, 4])" in res.code
    assert "        s.step(e)\n" in res.code and "s.step()" not in res.code


def test_minimize_in_a_one_line_suite_keeps_1_8s_class():
    src = HEAD + """def train(model, loss, ok):
    lr = fluid.dygraph.PolynomialDecay(0.1, 100)
    opt = fluid.optimizer.SGD(learning_rate=lr, parameter_list=model.parameters())
    if ok: opt.minimize(loss)
"""
    res = _fix(src)
    _as_class(res, "_FluidPolynomialDecay", "`opt.minimize()` is inside an expression")


FACTORY = HEAD + """def optimizer_setting(params):
    lr = fluid.dygraph.PiecewiseDecay([2], [0.1, 0.01], 0)
    opt = fluid.optimizer.SGD(learning_rate=lr, parameter_list=params)
    return opt
"""


def test_factory_returned_optimizer_steps_its_scheduler_on_minimize():
    # models/dygraph's optimizer_setting(): the optimizer is returned, its minimize() is the
    # caller's; the helper makes that minimize() step the scheduler, as 1.8's did
    res = _fix(FACTORY)
    assert "    opt = _fluid_decay_on_minimize(paddle.optimizer.SGD(learning_rate=lr, " \
           "parameters=params), lr)\n    return opt\n" in res.code
    assert "def _fluid_decay_on_minimize(optimizer, scheduler):" in res.code
    assert [(f.code, f.fix) for f in res.findings if f.code == "PU214"] == [("PU214", "safe")]


def test_factory_in_a_module_reading_the_rate_back_keeps_1_8s_class():
    # current_step_lr() anywhere: the returned optimizer is not wrapped (today's get_lr()
    # would give the next step's rate); 1.8's class advances itself and keeps the rate
    res = _fix(FACTORY + "print(optimizer_setting([]).current_step_lr())\n")
    _as_class(res, "_FluidPiecewiseDecay", "optimizer `opt` is returned (`return opt`)")
    assert "_fluid_decay_on_minimize" not in res.code
