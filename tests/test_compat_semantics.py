"""1.x semantics through compat, against goldens recorded on real Paddle 1.8.5.

Each snippet of fixtures/goldens/compat/snippets.json (written by
tools/record_compat_goldens.py) runs unmodified through ``python -m compat``; its outputs
must equal what 1.8.5 printed (same shapes and dtypes, rtol 1e-5 / atol 1e-6). Where a
snippet carries a numpy model of the 1.x semantics (``-log p[label]`` for cross_entropy on
probabilities, ``x * (1 - p)`` for downgrade_in_infer dropout at inference, NumPy
broadcasting after the 1.x axis alignment, ...), compat's output must equal the model too.
"""
import json
import math

import pytest

from _compat_support import GOLDENS, explain, run

DATA = json.loads((GOLDENS / "snippets.json").read_text())
NAMES = sorted(DATA["snippets"])
RTOL, ATOL = DATA["rtol"], DATA["atol"]

DRIVER = r'''
import json, sys, traceback
import numpy as np
import paddle.fluid as fluid
data = json.load(open(sys.argv[1]))
out = {}
for name, rec in sorted(data["snippets"].items()):
    ns = {"fluid": fluid, "__name__": "__snippet__"}
    try:
        exec(compile(data["prelude"] + rec["code"], "<snippet %s>" % name, "exec"), ns)
        o = ns["out"]
        items = o if isinstance(o, (list, tuple)) else [o]
        rows = []
        for item in items:
            a = np.asarray(item.numpy() if hasattr(item, "numpy") else item)
            rows.append({"shape": list(a.shape), "dtype": str(a.dtype), "values": a.ravel().tolist()})
        out[name] = {"outputs": rows}
    except Exception:
        out[name] = {"error": traceback.format_exc()}
    if fluid.in_dygraph_mode():
        fluid.disable_dygraph()
json.dump(out, open(sys.argv[2], "w"))
'''


@pytest.fixture(scope="module")
def compat_outputs(tmp_path_factory):
    d = tmp_path_factory.mktemp("compat-snippets")
    (d / "driver.py").write_text(DRIVER)
    proc = run(["-m", "compat", str(d / "driver.py"), str(GOLDENS / "snippets.json"),
                str(d / "out.json")], cwd=str(d), PYTHONWARNINGS="ignore")
    assert proc.returncode == 0, explain(proc)
    return json.loads((d / "out.json").read_text())


def _close(e, a):
    if isinstance(e, bool) or isinstance(a, bool) or not isinstance(e, (int, float)):
        return e == a
    if isinstance(e, float) and math.isnan(e):
        return isinstance(a, float) and math.isnan(a)
    return abs(a - e) <= ATOL + RTOL * abs(e)


def _diff(label, exp, act):
    problems = []
    if exp["shape"] != act["shape"]:
        return ["%s: shape %s != %s" % (label, act["shape"], exp["shape"])]
    if exp["dtype"] != act["dtype"]:
        problems.append("%s: dtype %s != %s" % (label, act["dtype"], exp["dtype"]))
    bad = [(i, e, a) for i, (e, a) in enumerate(zip(exp["values"], act["values"])) if not _close(e, a)]
    if bad:
        problems.append("%s: %d of %d values differ, first: %r" % (label, len(bad), len(exp["values"]), bad[:3]))
    return problems


@pytest.mark.parametrize("name", NAMES)
def test_snippet_matches_1_8_5(name, compat_outputs):
    golden = DATA["snippets"][name]
    got = compat_outputs[name]
    assert "error" not in got, "%s failed through compat:\n%s\ncode:%s" % (name, got.get("error"), golden["code"])
    assert len(got["outputs"]) == len(golden["outputs"])
    problems = []
    for i, (exp, act) in enumerate(zip(golden["outputs"], got["outputs"])):
        problems += _diff("%s[%d]" % (name, i), exp, act)
    assert not problems, "\n".join(problems) + "\ncode:" + golden["code"]


MODELLED = sorted(n for n in NAMES if "model" in DATA["snippets"][n])


@pytest.mark.parametrize("name", MODELLED)
def test_snippet_matches_numpy_model_of_1x(name, compat_outputs):
    golden = DATA["snippets"][name]
    problems = []
    for idx, model in golden["model"].items():
        exp = dict(model)
        # the model is float64/int64 numpy; compare values and shape, dtype from 1.8.5
        exp["dtype"] = golden["outputs"][int(idx)]["dtype"]
        problems += _diff("%s[%s] golden vs numpy model" % (name, idx), exp, golden["outputs"][int(idx)])
        problems += _diff("%s[%s] compat vs numpy model" % (name, idx), exp,
                          compat_outputs[name]["outputs"][int(idx)])
    assert not problems, "\n".join(problems)


def test_goldens_cover_the_pitfalls():
    """The issue's pitfall list is covered by recorded snippets."""
    for needed in ("cross_entropy_probs_dygraph", "cross_entropy_probs_static",
                   "dropout_downgrade_in_infer_static", "dropout_dygraph_eval", "fc_act_static",
                   "layer_act_dygraph", "reductions_static", "elementwise_axis_static",
                   "fill_constant_order"):
        assert needed in DATA["snippets"]
    assert DATA["engine"].startswith("paddlepaddle 1.8")


def test_compat_goldens_reverify_on_real_paddle_1_8_5():
    """The committed compat goldens (fixtures/goldens/compat/snippets.json) are what Paddle
    1.8.5 prints today for the snippets of tools/record_compat_goldens.py."""
    import os
    import subprocess
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parents[1]
    legacy = root / ".venv-legacy" / "bin" / "python"
    if not legacy.exists():
        if os.environ.get("PADDLE_UPGRADE_REQUIRE_LEGACY", "") not in ("", "0"):
            pytest.fail(f"PADDLE_UPGRADE_REQUIRE_LEGACY is set but {legacy} is missing: "
                        "make legacy-venv")
        pytest.skip(".venv-legacy (Paddle 1.8.5) is not installed")
    proc = subprocess.run([sys.executable, str(root / "tools" / "record_compat_goldens.py"),
                           "--verify", "--python", str(legacy)],
                          capture_output=True, text=True, timeout=900, cwd=str(root))
    drift = [line for line in proc.stderr.splitlines() if line.startswith(("drift:", "error:", "note:"))]
    assert proc.returncode == 0 and "0 drifted" in proc.stdout, (
        "\n".join(drift) or proc.stdout[-2000:] + proc.stderr[-2000:])
