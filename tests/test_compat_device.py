"""Device selection and the PADDLE_COMPAT_DEVICE policy (auto | strict).

The suite runs on a CPU-only Paddle build: every GPU request is "unavailable" here,
which is exactly what the policies are about (CUDAPlace(0) must never kill the process).
"""
import pytest

from _compat_support import emit_source, explain, results, run_script

PROBE = emit_source() + r'''
import warnings
warnings.simplefilter("always")
import numpy as np
import paddle
import paddle.fluid as fluid
import compat
from compat import DeviceUnavailableError, DeviceFallbackWarning

def attempt(label, fn):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            value = fn()
            result = {"ok": True, "value": repr(value)}
        except DeviceUnavailableError as exc:
            result = {"ok": False, "error": str(exc)}
    result["warnings"] = [str(w.message) for w in caught if issubclass(w.category, DeviceFallbackWarning)]
    emit(**{label: result})

emit(compiled_with_cuda=fluid.is_compiled_with_cuda(), core_count=fluid.core.get_cuda_device_count())
attempt("cuda0", lambda: fluid.CUDAPlace(0))
attempt("cuda0_again", lambda: fluid.CUDAPlace(0))
attempt("pinned", lambda: fluid.CUDAPinnedPlace())
attempt("xpu1", lambda: fluid.XPUPlace(1))
attempt("cuda_places", lambda: fluid.cuda_places())
attempt("cuda_places_ids", lambda: fluid.cuda_places([0, 1]))
attempt("cpu_places", lambda: fluid.cpu_places())
attempt("cpu_places_3", lambda: fluid.cpu_places(3))
emit(isinstance_cpu=isinstance(fluid.CPUPlace(), fluid.CPUPlace),
     isinstance_cuda=isinstance(fluid.CPUPlace(), fluid.CUDAPlace))

def executor_run():
    exe = fluid.Executor(fluid.CUDAPlace(0))
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup):
        x = fluid.data("x", [None, 2], "float32")
        y = fluid.layers.reduce_sum(x)
    exe.run(startup)
    return exe.run(main, feed={"x": np.ones((2, 2), "float32")}, fetch_list=[y])[0].tolist()
attempt("executor", executor_run)

def guard_run():
    with fluid.dygraph.guard(fluid.CUDAPlace(0)):
        v = fluid.dygraph.to_variable(np.ones((2,), "float32"))
        return (paddle.get_device(), float(fluid.layers.reduce_sum(v).numpy()[0]))
attempt("guard", guard_run)
emit(device_after=paddle.get_device(), static_after=not paddle.in_dynamic_mode())
'''


def _probe(tmp_path, **env):
    proc = run_script(tmp_path, PROBE, PYTHONWARNINGS="ignore::DeprecationWarning", **env)
    assert proc.returncode == 0, explain(proc)
    r = results(proc)
    if r["compiled_with_cuda"] and r["core_count"] > 0:
        pytest.skip("a GPU is present: the fallback paths are not exercised here")
    return r


def test_auto_falls_back_to_cpu_with_one_warning(tmp_path):
    r = _probe(tmp_path, PADDLE_COMPAT_DEVICE=None, CUDA_VISIBLE_DEVICES=None, CPU_NUM=None)
    assert r["compiled_with_cuda"] is False or r["core_count"] == 0
    assert r["cuda0"]["ok"] and "Place(cpu)" in r["cuda0"]["value"]
    # ONE warning for the whole process, naming what was asked for
    assert len(r["cuda0"]["warnings"]) == 1
    msg = r["cuda0"]["warnings"][0]
    assert "CUDAPlace(0)" in msg and "CPU" in msg and "PADDLE_COMPAT_DEVICE=strict" in msg
    for key in ("cuda0_again", "pinned", "xpu1", "cuda_places", "cuda_places_ids", "executor", "guard"):
        assert r[key]["ok"], (key, r[key])
        assert r[key]["warnings"] == [], (key, r[key])
    assert r["executor"]["value"] == "[4.0]"
    assert r["guard"]["value"] == "('cpu', 2.0)"
    assert r["cpu_places"]["value"] == "[Place(cpu)]"
    assert r["cpu_places_3"]["value"].count("Place(cpu)") == 3
    assert r["isinstance_cpu"] is True and r["isinstance_cuda"] is False
    assert r["device_after"] == "cpu" and r["static_after"] is True


def test_strict_raises_naming_place_and_devices(tmp_path):
    r = _probe(tmp_path, PADDLE_COMPAT_DEVICE="strict", CUDA_VISIBLE_DEVICES=None)
    for key in ("cuda0", "pinned", "xpu1", "cuda_places", "cuda_places_ids", "executor", "guard"):
        assert r[key]["ok"] is False, (key, r[key])
        assert "Devices here: cpu" in r[key]["error"], r[key]
        assert "PADDLE_COMPAT_DEVICE=strict" in r[key]["error"]
    assert "CUDAPlace(0) was requested but is not available" in r["cuda0"]["error"]
    assert "CPU-only build" in r["cuda0"]["error"]
    assert "XPUPlace(1)" in r["xpu1"]["error"] and "XPU" in r["xpu1"]["error"]
    assert "cuda_places([0, 1]) -> gpu:0, gpu:1" in r["cuda_places_ids"]["error"]
    assert r["cpu_places"]["ok"]  # CPU places are always there


def test_cuda_visible_devices_names_the_requested_gpus(tmp_path):
    r = _probe(tmp_path, PADDLE_COMPAT_DEVICE="strict", CUDA_VISIBLE_DEVICES="3,5")
    # CUDA renumbers the visible devices from 0
    assert "cuda_places() -> gpu:0, gpu:1" in r["cuda_places"]["error"]
    r = _probe(tmp_path, PADDLE_COMPAT_DEVICE="auto", CUDA_VISIBLE_DEVICES="3,5", FLAGS_selected_gpus=None)
    assert r["cuda_places"]["ok"]
    assert r["cuda_places"]["value"].count("Place(cpu)") == 2  # one per requested GPU


def test_cpu_num(tmp_path):
    r = _probe(tmp_path, CPU_NUM="4")
    assert r["cpu_places"]["value"].count("Place(cpu)") == 4


def test_bad_policy_value(tmp_path):
    proc = run_script(tmp_path, "import paddle.fluid as fluid\nfluid.CUDAPlace(0)\n",
                      PADDLE_COMPAT_DEVICE="sometimes")
    assert proc.returncode == 1
    assert "PADDLE_COMPAT_DEVICE must be 'auto' or 'strict'" in proc.stderr
