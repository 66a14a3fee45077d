"""compat's ``TracedLayer.save_inference_model(dirname, feed=[...])`` with some of the traced
inputs, against the real Paddle 1.8.5 engine.

1.8 pruned the saved program to the fed inputs: a classifier traced with its label
(``forward(x, label)`` returning ``(pred, loss)``) was exported with ``feed=[0],
fetch=[0]``, and a two-branch layer with ``feed=[1], fetch=[1]``. compat passed only the
fed inputs' specs to ``paddle.jit.save``, which failed ("forward() requires `label`
arguments"). One legacy program runs on 1.8.5 (``.venv-legacy``) and unmodified through
``python -m compat``; the loaded models' feed counts and outputs must agree.
"""
import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parent.parent
LEGACY_PY = ROOT / ".venv-legacy" / "bin" / "python"

PROGRAM = r'''
import json
import os
import shutil
import tempfile

import numpy as np
import paddle.fluid as fluid
from paddle.fluid.dygraph import Linear, TracedLayer, to_variable


def attr(seed, shape):
    return fluid.ParamAttr(initializer=fluid.initializer.NumpyArrayInitializer(
        np.random.RandomState(seed).normal(0, 0.5, shape).astype('float32')))


class Classifier(fluid.dygraph.Layer):
    def __init__(self):
        super(Classifier, self).__init__()
        self.fc = Linear(3, 4, param_attr=attr(1, (3, 4)), act='softmax')

    def forward(self, x, label):
        pred = self.fc(x)
        return pred, fluid.layers.mean(fluid.layers.cross_entropy(pred, label))


class TwoBranch(fluid.dygraph.Layer):
    def __init__(self):
        super(TwoBranch, self).__init__()
        self.fa = Linear(3, 2, param_attr=attr(2, (3, 2)))
        self.fb = Linear(4, 2, param_attr=attr(3, (4, 2)))

    def forward(self, a, b):
        yb = self.fb(b)
        return self.fa(a) + yb, fluid.layers.relu(yb) * 2.0


rng = np.random.RandomState(3)
X = rng.uniform(-1, 1, (2, 3)).astype('float32')
Y = np.array([[1], [3]], 'int64')
B = rng.uniform(-1, 1, (2, 4)).astype('float32')
dirs = [tempfile.mkdtemp() for _ in range(2)]
out = {}
try:
    with fluid.dygraph.guard():
        (pred, loss), traced = TracedLayer.trace(Classifier(), inputs=[to_variable(X), to_variable(Y)])
        out['pred'] = pred.numpy().tolist()
        traced.save_inference_model(dirs[0], feed=[0], fetch=[0])
        two = TwoBranch()
        outs, traced = TracedLayer.trace(two, inputs=[to_variable(X), to_variable(B)])
        out['branch'] = outs[1].numpy().tolist()
        traced.save_inference_model(dirs[1], feed=[1], fetch=[1])
    exe = fluid.Executor(fluid.CPUPlace())
    for d, name, data in ((dirs[0], 'classifier', X * 2), (dirs[1], 'two_branch', B * 3)):
        with fluid.scope_guard(fluid.core.Scope()):
            prog, feeds, fetches = fluid.io.load_inference_model(d, exe)
            res = exe.run(prog, feed={feeds[0]: data}, fetch_list=fetches)
            out[name + '_counts'] = [len(feeds), len(fetches)]
            out[name] = np.asarray(res[0]).tolist()
finally:
    for d in dirs:
        shutil.rmtree(d)
print('JSON', json.dumps(out))
'''


def _run(cmd, cwd):
    env = dict(os.environ, PYTHONPATH=str(ROOT), PYTHONWARNINGS="ignore", GLOG_minloglevel="2")
    proc = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]
    line = [ln for ln in proc.stdout.splitlines() if ln.startswith("JSON ")][-1]
    return json.loads(line[5:])


@pytest.mark.skipif(not LEGACY_PY.exists(), reason="needs .venv-legacy (Paddle 1.8.5)")
def test_traced_layer_saved_with_some_inputs_matches_1_8_5(tmp_path):
    prog = tmp_path / "traced_feed_subset.py"
    prog.write_text(PROGRAM)
    golden = _run([str(LEGACY_PY), str(prog)], tmp_path)
    got = _run([sys.executable, "-m", "compat", str(prog)], tmp_path)
    assert sorted(golden) == sorted(got)
    for key in golden:
        np.testing.assert_allclose(np.asarray(got[key], dtype=float),
                                   np.asarray(golden[key], dtype=float), rtol=1e-6, atol=1e-7,
                                   err_msg=key)
