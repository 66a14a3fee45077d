"""compat's static ``fluid.contrib.mixed_precision.decorate`` on a CPU against 1.8.5.

On a CPU 1.8.5 had no float16 kernels for the white-listed ops, so a 1.x program that
trains there black-lists them; ``decorate`` still scaled the loss, unscaled and checked
the gradients, skipped overflowing updates and moved the scaling. The same legacy
program runs on 1.8.5 (``.venv-legacy``) and through ``python -m compat`` with several
optimizers and dynamic or fixed loss scaling; losses, the fetched scaling and the final
parameters must agree (fixtures/programs/amp_static_loss_scaling.py is the bundled
sample; this covers the other settings).
"""
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
LEGACY_PY = ROOT / ".venv-legacy" / "bin" / "python"
sys.path.insert(0, str(ROOT / "tools"))
import program_result as pr  # noqa: E402

PROGRAM = r'''
import json
import sys
import numpy as np
import paddle.fluid as fluid

OPT, DECORATE = sys.argv[1], sys.argv[2]


def report(name, value):
    a = np.asarray(value)
    print("RESULT", name, json.dumps({"shape": list(a.shape), "dtype": str(a.dtype),
                                      "values": a.ravel().tolist()}))


def init(seed, shape):
    return fluid.ParamAttr(initializer=fluid.initializer.NumpyArrayInitializer(
        np.random.RandomState(seed).normal(0, 0.5, size=shape).astype("float32")))


main, startup = fluid.Program(), fluid.Program()
with fluid.program_guard(main, startup):
    x = fluid.data(name="x", shape=[None, 4], dtype="float32")
    y = fluid.data(name="y", shape=[None, 1], dtype="float32")
    hidden = fluid.layers.fc(x, size=3, act="relu", param_attr=init(1, (4, 3)), bias_attr=init(2, (3,)))
    pred = fluid.layers.fc(hidden, size=1, param_attr=init(3, (3, 1)), bias_attr=init(4, (1,)))
    loss = fluid.layers.mean(fluid.layers.square_error_cost(pred, y))
    lists = fluid.contrib.mixed_precision.AutoMixedPrecisionLists(custom_black_list=["mul"])
    optimizer = fluid.contrib.mixed_precision.decorate(eval(OPT), amp_lists=lists, **eval(DECORATE))
    optimizer.minimize(loss)
    scaling = optimizer.get_loss_scaling()

exe = fluid.Executor(fluid.CPUPlace())
exe.run(startup)
rng = np.random.RandomState(3)
X = rng.uniform(-1, 1, size=(8, 4)).astype("float32")
Y = (X[:, :1] - X[:, 1:2] * 0.5).astype("float32")
BAD = X.copy()
BAD[0, 0] = 3e38
for step, batch in enumerate([X, X, BAD, X, X, BAD, BAD, X, X, X, BAD, X]):
    out_loss, out_scaling = exe.run(main, feed={"x": batch, "y": Y}, fetch_list=[loss, scaling])
    report("loss_%d" % step, out_loss)
    report("scaling_%d" % step, out_scaling)
for p in main.global_block().all_parameters():
    report("param_" + p.name, np.array(fluid.global_scope().find_var(p.name).get_tensor()))
'''

CASES = [
    ("fluid.optimizer.Adam(learning_rate=0.02)",
     "dict(init_loss_scaling=1024.0, incr_every_n_steps=2, decr_every_n_nan_or_inf=1)"),
    ("fluid.optimizer.SGD(learning_rate=0.1)",
     "dict(init_loss_scaling=8.0, use_dynamic_loss_scaling=False)"),
    ("fluid.optimizer.Momentum(learning_rate=0.05, momentum=0.9, use_nesterov=True)",
     "dict(incr_every_n_steps=1, incr_ratio=3.0, decr_ratio=0.5)"),
]


def _run(cmd, cwd):
    env = dict(os.environ, PYTHONPATH=str(ROOT), PYTHONWARNINGS="ignore", GLOG_minloglevel="2")
    proc = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return pr.parse_results(proc.stdout)


@pytest.mark.skipif(not LEGACY_PY.exists(), reason="needs .venv-legacy (Paddle 1.8.5)")
@pytest.mark.parametrize("opt,decorate", CASES, ids=["adam-dynamic", "sgd-fixed", "momentum-dynamic"])
def test_static_amp_on_cpu_matches_1_8_5(opt, decorate, tmp_path):
    prog = tmp_path / "amp_program.py"
    prog.write_text(PROGRAM)
    golden = _run([str(LEGACY_PY), str(prog), opt, decorate], tmp_path)
    got = _run([sys.executable, "-m", "compat", str(prog), opt, decorate], tmp_path)
    assert len(golden) == 28
    diffs = pr.compare(golden, got)
    assert not diffs, "\n".join(diffs)
