"""1.x graph modes: static by default, dygraph inside ``dygraph.guard()`` (restored
afterwards), ``enable_dygraph``/``disable_dygraph``, static on first use of a static API."""
import numpy as np

from _compat_support import emit_source, explain, results, run_script

PROBE = emit_source() + r'''
import paddle
import paddle.fluid as fluid
m = fluid.in_dygraph_mode
emit(at_import=m())
with fluid.dygraph.guard():
    inside = m()
    with fluid.dygraph.guard():
        nested = m()
    after_nested = m()
    fluid.default_main_program().random_seed = 3   # 1.x idiom inside dygraph: stays dygraph
    still = m()
emit(inside=inside, nested=nested, after_nested=after_nested, still=still, after=m())
try:
    with fluid.dygraph.guard():
        raise RuntimeError("x")
except RuntimeError:
    pass
emit(after_exception=m())
fluid.enable_dygraph()
on = m()
p = fluid.Program()          # explicit dygraph: a Program object does not switch modes
kept = m()
fluid.disable_dygraph()
emit(enable=on, kept=kept, disable=m())
fluid.dygraph.enable_imperative(); imp = m(); fluid.dygraph.disable_imperative()
emit(imperative=imp, imperative_off=m())
# a program that switched to dygraph by hand (not through fluid) gets static back on the
# first static API, as 1.x programs are static unless they enter dygraph
paddle.disable_static()
x = fluid.data("x", [None, 2], "float32")
emit(static_api_switches=not m(), data_name=x.name)
paddle.disable_static()
exe = fluid.Executor(fluid.CPUPlace())
emit(executor_switches=not m())
with fluid.dygraph.guard():
    enabled = fluid.dygraph.enabled()
emit(enabled=enabled, enabled_after=fluid.dygraph.enabled())
'''


def test_modes(tmp_path):
    proc = run_script(tmp_path, PROBE, PYTHONWARNINGS="ignore")
    assert proc.returncode == 0, explain(proc)
    r = results(proc)
    assert r["at_import"] is False
    assert r["inside"] is True and r["nested"] is True and r["after_nested"] is True
    assert r["still"] is True and r["after"] is False
    assert r["after_exception"] is False
    assert r["enable"] is True and r["kept"] is True and r["disable"] is False
    assert r["imperative"] is True and r["imperative_off"] is False
    assert r["static_api_switches"] is True and r["data_name"] == "x"
    assert r["executor_switches"] is True
    assert r["enabled"] is True and r["enabled_after"] is False


def test_dygraph_program_runs_without_static_calls(tmp_path):
    """A typical 1.x dygraph program: no enable_static/disable_static anywhere."""
    code = emit_source() + r'''
import numpy as np
import paddle.fluid as fluid
with fluid.dygraph.guard():
    lin = fluid.dygraph.Linear(3, 2, param_attr=fluid.initializer.Constant(0.5), act="relu")
    out = lin(fluid.dygraph.to_variable(np.ones((2, 3), "float32")))
    emit(out=out.numpy().tolist())
main, startup = fluid.Program(), fluid.Program()
with fluid.program_guard(main, startup):
    x = fluid.data("x", [None, 3], "float32")
    y = fluid.layers.fc(x, 2, param_attr=fluid.initializer.Constant(0.5), act="relu")
exe = fluid.Executor(fluid.CPUPlace())
exe.run(startup)
emit(static=exe.run(main, feed={"x": np.ones((2, 3), "float32")}, fetch_list=[y])[0].tolist())
'''
    proc = run_script(tmp_path, code, PYTHONWARNINGS="ignore")
    assert proc.returncode == 0, explain(proc)
    r = results(proc)
    model = np.maximum(np.ones((2, 3)) @ np.full((3, 2), 0.5), 0.0)  # relu(x W), bias 0
    np.testing.assert_allclose(r["out"], model, rtol=1e-6)
    np.testing.assert_allclose(r["static"], model, rtol=1e-6)
