"""PU214 in static programs: fluid.layers decays stepped after each exe.run of their program.

The fixture pairs fixtures/PU214/lr_static*.py show the rewrites and the manual notes; the
proof (tests/test_proof.py -k decay, the static examples) and the program
fixtures/programs/lr_stepping_static.py (tests/test_programs_proof.py) show the rewritten
training loops match Paddle 1.8.5. These tests cover the switches (--ignore, noqa, check
mode) and what keeps a decay manual.
"""
import re

import libcst as cst

from upgrader import upgrade_source

HEAD = "import paddle.fluid as fluid\n\n\n"

TRAIN = HEAD + """def train(loss, feeds):
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup):
        lr = fluid.layers.exponential_decay(0.1, 10, 0.5)
        opt = fluid.optimizer.SGD(learning_rate=lr)
        opt.minimize(loss)
{between}    exe = fluid.Executor(fluid.CPUPlace())
    exe.run(startup)
    for feed in feeds:
        exe.run(main, feed=feed){noqa}
{extra}"""


def _fix(src, **kw):
    res = upgrade_source(src, **kw)
    cst.parse_module(res.code)
    assert upgrade_source(res.code, **kw).code == res.code, "not idempotent"
    return res


def _stepped(code, name="lr"):
    return re.search(rf"^\s+{name}\.step\(\)$", code, re.M) is not None


def _counted(code, times=1):
    """The decay keeps 1.8's step counter in its program (_FluidProgramDecay), unstepped."""
    calls = re.findall(r"(?<!class )_FluidProgramDecay\(paddle\.optimizer\.lr\.", code)
    return len(calls) == times and ".step()" not in code


def _codes(res):
    return sorted((f.code, f.fix, f.applied) for f in res.findings if f.code in ("PU104", "PU214")
                  and "decay" in f.legacy)


def _src(between="", noqa="", extra=""):
    return TRAIN.format(between=between, noqa=noqa, extra=extra)


def test_step_inserted_after_each_run_of_the_program():
    res = _fix(_src())
    assert "        exe.run(main, feed=feed)\n        lr.step()\n" in res.code
    assert "lr_lambda=lambda n, steps=10, rate=0.5: rate ** (n / steps)" in res.code
    assert "import math" not in res.code  # no staircase: the formula needs no math
    assert ("PU214", "safe", True) in _codes(res) and ("PU104", "safe", True) in _codes(res)


def test_check_mode_reports_without_changing():
    src = _src()
    res = upgrade_source(src, fix=False)
    assert res.code == src
    assert ("PU214", "safe", True) in _codes(res)


def test_ignored_code_leaves_the_decay_legacy():
    res = _fix(_src(), ignore=["PU214"])
    assert "fluid.layers.exponential_decay" in res.code and not _stepped(res.code)


def test_noqa_on_a_run_keeps_everything():
    res = _fix(_src(noqa="  # noqa: PU214"))
    assert "fluid.layers.exponential_decay" in res.code and not _stepped(res.code)


def test_a_test_clone_is_not_stepped_but_a_full_clone_is_manual():
    res = _fix(_src(between="    test = main.clone(for_test=True)\n",
                    extra="        exe.run(test, feed=feed)\n"))
    assert res.code.count("lr.step()") == 1
    res = _fix(_src(between="    copy = main.clone()\n"))
    assert not _stepped(res.code) and "`main.clone()` keeps 1.8's step counter" in res.code


def test_runs_of_other_objects_are_not_executor_runs():
    res = _fix(_src(extra="        app.run()\n        worker.run(1)\n"))
    assert res.code.count("lr.step()") == 1


def test_a_run_of_an_untraceable_program_keeps_the_counter_in_the_program():
    # every run of the program advances the counter, whoever runs it
    res = _fix(_src(extra="        exe.run(programs[0], feed=feed)\n"))
    assert not _stepped(res.code) and _counted(res.code)
    assert "runs a program that cannot be traced" not in res.code


def test_parallel_executor_is_manual():
    res = _fix(_src(extra="        pe = fluid.ParallelExecutor(False, loss.name)\n"
                          "        pe.run(feed=feed)\n"))
    assert not _stepped(res.code) and "runs programs its own way" in res.code


def test_two_trainings_in_the_global_scope_share_the_counter_unless_each_has_its_own_scope():
    other = """

def other(loss, feeds, exe):
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup):
        lr2 = fluid.layers.piecewise_decay([5], [0.1, 0.01])
        fluid.optimizer.SGD(learning_rate=lr2).minimize(loss)
{body}"""
    shared = other.format(body="    exe.run(startup)\n    for feed in feeds:\n        exe.run(main, feed=feed)\n")
    res = _fix(_src() + shared)
    # the counter is a variable of the scope: both programs' runs advance both decays
    assert not _stepped(res.code) and not _stepped(res.code, "lr2") and _counted(res.code, 2)
    assert "shares 1.8's step counter in the same fluid scope" not in res.code
    own = other.format(body="    scope = fluid.Scope()\n    with fluid.scope_guard(scope):\n"
                            "        exe.run(startup)\n        for feed in feeds:\n"
                            "            exe.run(main, feed=feed)\n")
    res = _fix(_src() + own)
    assert _stepped(res.code) and _stepped(res.code, "lr2")


def test_default_main_program_passed_on_is_manual():
    src = HEAD + """x = fluid.data(name='x', shape=[None, 3], dtype='float32')
loss = fluid.layers.reduce_mean(fluid.layers.fc(x, 1))
lr = fluid.layers.cosine_decay(0.1, 10, 3)
fluid.optimizer.SGD(learning_rate=lr).minimize(loss)
exe = fluid.Executor(fluid.CPUPlace())
exe.run(fluid.default_startup_program())
for i in range(3):
    exe.run(feed={'x': xs[i]})
EXTRA"""
    res = _fix(src.replace("EXTRA", ""))
    assert "    exe.run(feed={'x': xs[i]})\n    lr.step()\n" in res.code and "import math" in res.code
    res = _fix(src.replace("EXTRA", "fluid.io.load_persistables(exe, 'ckpt')\n"))
    assert not _stepped(res.code) and "may save or restore 1.8's step counter" in res.code
    # a save does not run the program: same rates in this run, but the checkpoint lacks the
    # counter, so the rewrite is unsafe (applied with --unsafe-fixes)
    saving = src.replace("EXTRA", "fluid.io.save_persistables(exe, 'ckpt')\n")
    res = _fix(saving)
    assert not _stepped(res.code) and "apply with --unsafe-fixes" in res.code
    assert "\n    lr.step()\n" in upgrade_source(saving, unsafe_fixes=True).code
    res = _fix(src.replace("EXTRA", "fluid.io.save_params(exe, 'ckpt')\n"))
    assert "\n    lr.step()\n" in res.code  # parameters only: 1.8 did not save the counter either
    res = _fix(src.replace("EXTRA", "prog = fluid.default_main_program()\n"))
    assert not _stepped(res.code) and _counted(res.code)


def test_module_level_decay_stepped_in_a_function_that_sees_it():
    src = HEAD + """x = fluid.data(name='x', shape=[None, 3], dtype='float32')
loss = fluid.layers.reduce_mean(fluid.layers.fc(x, 1))
lr = fluid.layers.noam_decay(64, 100)
fluid.optimizer.SGD(learning_rate=lr).minimize(loss)
exe = fluid.Executor(fluid.CPUPlace())


def step(feed):
{body}    exe.run(fluid.default_main_program(), feed=feed)
"""
    res = _fix(src.format(body=""))
    assert "        exe.run(paddle.static.default_main_program(), feed=feed)\n    lr.step()\n" \
        not in res.code
    assert "    exe.run(paddle.static.default_main_program(), feed=feed)\n    lr.step()\n" in res.code
    res = _fix(src.format(body="    lr = None\n"))
    assert not _stepped(res.code) and _counted(res.code)


def test_a_run_before_the_decay_keeps_the_counter_in_the_program():
    src = HEAD + """def train(loss, exe, feeds):
    exe.run(fluid.default_main_program(), feed=feeds[0])
    lr = fluid.layers.piecewise_decay([5], [0.1, 0.01])
    fluid.optimizer.SGD(learning_rate=lr).minimize(loss)
    exe.run(fluid.default_main_program(), feed=feeds[1])
"""
    res = _fix(src)
    assert not _stepped(res.code) and _counted(res.code)


def test_built_in_a_lambda_is_manual():
    src = HEAD + """make = lambda: fluid.layers.piecewise_decay([5], [0.1, 0.01])
"""
    res = _fix(src)
    assert "built in a lambda" in res.code


def test_an_inline_decay_is_named_before_its_optimizer():
    src = HEAD + """def train(loss, feeds, lr):
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup):
        fluid.optimizer.SGD(learning_rate=fluid.layers.piecewise_decay([10], [0.1, 0.01])).minimize(loss)
    with fluid.scope_guard(fluid.Scope()):
        exe = fluid.Executor(fluid.CPUPlace())
        exe.run(startup)
        for feed in feeds:
            exe.run(main, feed=feed)
"""
    res = _fix(src)
    # `lr` is taken (a parameter): the scheduler gets a name the module does not use
    assert "        lr_scheduler = paddle.optimizer.lr.PiecewiseDecay([10], [0.1, 0.01])\n" \
        "        paddle.optimizer.SGD(learning_rate=lr_scheduler).minimize(loss)\n" in res.code
    assert _stepped(res.code, "lr_scheduler")


def test_an_inline_decay_in_an_expression_keeps_the_counter_in_the_program():
    src = HEAD + """def train(loss, feeds, exe):
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup):
        opts = [fluid.optimizer.SGD(learning_rate=fluid.layers.piecewise_decay([10], [0.1, 0.01]))]
        opts[0].minimize(loss)
    for feed in feeds:
        exe.run(main, feed=feed)
"""
    res = _fix(src)
    assert not _stepped(res.code, "lr") and _counted(res.code)


def test_a_fresh_scope_guard_holds_only_its_program():
    src = _src() + """

def other(loss, feeds, exe):
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup):
        lr2 = fluid.layers.piecewise_decay([5], [0.1, 0.01])
        fluid.optimizer.SGD(learning_rate=lr2).minimize(loss)
    with fluid.scope_guard(fluid.Scope()):
        exe.run(startup)
        for feed in feeds:
            exe.run(main, feed=feed)
"""
    res = _fix(src)
    assert _stepped(res.code) and _stepped(res.code, "lr2")


def test_warmup_of_a_piecewise_decay_moves_its_boundaries():
    src = HEAD + """def train(loss, feeds, exe, bounds):
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup):
        lr = fluid.layers.linear_lr_warmup(fluid.layers.piecewise_decay(BOUNDS, [0.1, 0.01]), 4, 0.0, 0.1)
        fluid.optimizer.SGD(learning_rate=lr).minimize(loss)
    with fluid.scope_guard(fluid.Scope()):
        exe.run(startup)
        for feed in feeds:
            exe.run(main, feed=feed)
"""
    res = _fix(src.replace("BOUNDS", "[10]"))
    assert "paddle.optimizer.lr.LinearWarmup(paddle.optimizer.lr.PiecewiseDecay([6], [0.1, 0.01]), 4" \
        in res.code and _stepped(res.code)
    res = _fix(src.replace("BOUNDS", "bounds"))
    assert not _stepped(res.code) and "neither a number nor a piecewise_decay" in res.code
    assert "fluid.layers.piecewise_decay(bounds" in res.code


def test_a_program_from_the_caller_keeps_the_counter_a_run_per_batch_is_manual():
    src = HEAD + """def train(main, startup, loss, feeds, exe):
    with fluid.program_guard(main, startup):
        lr = fluid.layers.piecewise_decay([5], [0.1, 0.01])
        fluid.optimizer.SGD(learning_rate=lr).minimize(loss)
    for feed in feeds:
        exe.run(main, feed=feed)
"""
    res = _fix(src)
    assert not _stepped(res.code) and _counted(res.code)
    res = _fix(_src(extra="        exe.train_from_dataset(dataset=feed)\n"))
    assert not _stepped(res.code) and "runs a program once per batch" in res.code
