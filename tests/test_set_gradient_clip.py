"""set_gradient_clip → _FluidGradientClipMarks (upgrader/fixers/set_gradient_clip.py): which
modules get the rewrite, the optimizers' grad_clip wrapper, and the wrapper in dynamic mode
(1.8.5's dygraph optimizers clipped with their own clip or not at all). The clipping in
static programs is proven against 1.8.5 by the rule's example (tests/test_proof.py) and the
programs static_set_gradient_clip / gradient_clipping."""
import numpy as np
import pytest

from upgrader import rulebook
from upgrader.engine import upgrade_source
from upgrader.fixers import set_gradient_clip

HEAD = "import paddle.fluid as fluid\n"
NET = ("x = fluid.data(name='x', shape=[None, 3], dtype='float32')\n"
       "loss = fluid.layers.mean(fluid.layers.fc(x, 1))\n")
MARK = "fluid.clip.set_gradient_clip(fluid.clip.GradientClipByGlobalNorm(clip_norm=1.0))\n"


def fixed(src):
    return upgrade_source(src, unsafe_fixes=False)


def test_wrapped_optimizers_are_the_rules_with_grad_clip():
    names = {e.name for e in rulebook.load() if e.name.startswith("paddle.fluid.optimizer.")
             and e.kind == "class" and e.params is not None
             and any(p.name == "grad_clip" for p in e.params)}
    assert set(set_gradient_clip.AFTER_APPLY_WHEN) == names


def test_marks_and_every_optimizer_of_the_module_wrapped():
    out = fixed(HEAD + NET + MARK + "opt = fluid.optimizer.SGD(0.1)\nopt.minimize(loss)\n"
                "other = fluid.optimizer.Momentum(0.1, 0.9, grad_clip=fluid.clip.GradientClipByValue(1.0))\n").code
    assert "_FluidGradientClipMarks.mark(paddle.nn.ClipGradByGlobalNorm(clip_norm=1.0))" in out
    assert "paddle.optimizer.SGD(0.1, grad_clip=_FluidGradientClipMarks())" in out
    assert "grad_clip=_FluidGradientClipMarks(_FluidClipGradByValue(1.0))" in out
    assert "class _FluidGradientClipMarks(paddle.nn.clip.ClipGradBase)" in out
    assert "import paddle.fluid" not in out


def test_graph_learning_rate_wraps_the_wrapped_optimizer():
    out = fixed(HEAD + NET + MARK +
                "lr = fluid.layers.create_global_var([1], 0.1, 'float32', persistable=True)\n"
                "fluid.optimizer.SGD(learning_rate=lr).minimize(loss)\n").code
    assert ("_fluid_graph_lr(paddle.optimizer.SGD(learning_rate=0.0, "
            "grad_clip=_FluidGradientClipMarks()), lr)") in out


@pytest.mark.parametrize("tail, why", [
    ("", "builds no optimizer"),
    ("opt = fluid.optimizer.SGD(**kw)\n", "* / ** arguments"),
    ("opt = fluid.optimizer.SGD(0.1, None, None, None)\n", "grad_clip by position"),
    ("opt = fluid.optimizer.Adam(0.1, lazy_mode=True)\n", "keeps its legacy form"),
    ("opt = fluid.optimizer.SGD(0.1)\nkinds = [fluid.optimizer.SGD]\n", "used other than by a call"),
    ("opt = fluid.optimizer.DecayedAdagrad(0.1)\n", "not rewritten by a plain fix"),
])
def test_manual_when_an_optimizer_would_miss_the_marks(tail, why):
    result = fixed(HEAD + "kw = {}\n" + NET + MARK + tail)
    found = [f for f in result.findings if f.legacy == "paddle.fluid.clip.set_gradient_clip"]
    assert found and not found[0].applied and why in found[0].message
    assert "_FluidGradientClipMarks" not in result.code


def test_manual_in_a_dygraph_only_module():
    src = (HEAD + "with fluid.dygraph.guard():\n"
           "    lin = fluid.dygraph.Linear(3, 1)\n"
           "    fluid.clip.set_gradient_clip(fluid.clip.GradientClipByNorm(1.0))\n"
           "    opt = fluid.optimizer.SGD(0.1, parameter_list=lin.parameters())\n")
    result = fixed(src)
    found = [f for f in result.findings if f.legacy == "paddle.fluid.clip.set_gradient_clip"]
    assert found and not found[0].applied and "raised in dynamic mode" in found[0].message


def test_the_wrapper_in_dynamic_mode_clips_with_the_own_clip_or_not_at_all():
    import paddle
    from compat._added import added
    marks = added("set_gradient_clip", "_FluidGradientClipMarks")
    was_static = not paddle.in_dynamic_mode()
    paddle.disable_static()
    try:
        def step(clip):
            paddle.seed(1)
            lin = paddle.nn.Linear(3, 2)
            opt = paddle.optimizer.SGD(1.0, parameters=lin.parameters(), grad_clip=clip)
            loss = paddle.sum(lin(paddle.ones([4, 3])) ** 2)
            loss.backward()
            opt.step()
            return lin.weight.numpy()
        np.testing.assert_array_equal(step(marks()), step(None))
        own = paddle.nn.ClipGradByValue(0.01)
        np.testing.assert_array_equal(step(marks(own)), step(paddle.nn.ClipGradByValue(0.01)))
        assert not np.array_equal(step(marks(own)), step(None))
    finally:
        if was_static:  # leave the process in the mode it was in
            paddle.enable_static()


def test_mark_checks_its_arguments_as_1_8_5_did():
    import paddle
    from compat._added import added
    marks = added("set_gradient_clip", "_FluidGradientClipMarks")
    was_dynamic = paddle.in_dynamic_mode()
    paddle.enable_static()
    try:
        main, startup = paddle.static.Program(), paddle.static.Program()
        with paddle.static.program_guard(main, startup):
            w = paddle.create_parameter([2], "float32", name="mark_w")
            with pytest.raises(TypeError):
                marks.mark(object())
            with pytest.raises(ValueError, match="mark_v"):
                marks.mark(paddle.nn.ClipGradByNorm(1.0), param_list=["mark_v"])
            with pytest.raises(TypeError):
                marks.mark(paddle.nn.ClipGradByNorm(1.0), param_list=["mark_w", w])
            marks.mark(paddle.nn.ClipGradByNorm(1.0), param_list=[w])
        assert list(main._fluid_gradient_clip_marks) == ["mark_w"]
    finally:
        if was_dynamic:  # leave the process in the mode it was in
            paddle.disable_static()
