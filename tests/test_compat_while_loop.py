"""compat's ``layers.while_loop`` in a static program with a backward, against the real
Paddle 1.8.5 engine.

A loop variable ``h`` that an op outside the loop also reads for its gradient
(``h * h``), ``while_loop(.., [i, h])`` changing it, then ``append_backward``: on Paddle
3.3.1 ``paddle.static.nn.while_loop`` with ``h`` itself made every run fail ("Tensor
holds no memory"); compat starts the loop from a copy. The forward results of several
runs must match 1.8.5 (its gradients read ``h`` after 1.8's loop had written its final
value into it, which is not reproduced, so they are not compared), and a second program
with the loop variable carried unchanged also trains (SGD) to 1.8.5's parameters.
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
import numpy as np
import paddle.fluid as fluid
from paddle.fluid import layers


def report(name, value):
    a = np.asarray(value)
    print("RESULT", name, json.dumps({"shape": list(a.shape), "dtype": str(a.dtype),
                                      "values": a.ravel().tolist()}))


rs = np.random.RandomState(12)
xv = rs.randn(4, 3).astype('float32')
wv = rs.randn(3, 3).astype('float32') * 0.5


def build(changing):
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup):
        x = fluid.data(name='x', shape=[4, 3], dtype='float32')
        w = layers.create_parameter([3, 3], 'float32', name='w',
                                    default_initializer=fluid.initializer.NumpyArrayInitializer(wv))
        h = layers.matmul(x, w)
        sq = layers.reduce_sum(layers.elementwise_mul(h, h))
        i = layers.fill_constant([1], 'int64', 0)
        n = layers.fill_constant([1], 'int64', 3)
        acc = layers.zeros([4, 3], 'float32')

        def body(i, v, acc):
            return [i + 1, layers.scale(v, 0.9) if changing else v,
                    layers.scale(acc, 0.5) + layers.tanh(v)]

        i, hv, acc = layers.while_loop(lambda i, v, acc: layers.less_than(i, n), body, [i, h, acc])
        loss = sq * 0.01 + layers.reduce_mean(hv) + layers.reduce_mean(acc)
        if changing:
            fluid.backward.append_backward(loss)
        else:
            fluid.optimizer.SGD(learning_rate=0.2).minimize(loss)
    return main, startup, [i, hv, acc, sq, loss]


for changing in (True, False):
    main, startup, fetch = build(changing)
    scope = fluid.Scope()
    with fluid.scope_guard(scope):
        exe = fluid.Executor(fluid.CPUPlace())
        exe.run(startup)
        for it in range(3):
            out = exe.run(main, feed={'x': xv * (1 - it)}, fetch_list=fetch)
            for idx, value in enumerate(out):
                report("%s_run%d_out%d" % (changing, it, idx), value)
        if not changing:
            report("w", np.array(scope.find_var('w').get_tensor()))
'''


def _run(cmd, cwd):
    env = dict(os.environ, PYTHONPATH=str(ROOT), PYTHONWARNINGS="ignore", GLOG_minloglevel="2")
    proc = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return pr.parse_results(proc.stdout)


@pytest.mark.skipif(not LEGACY_PY.exists(), reason="needs .venv-legacy (Paddle 1.8.5)")
def test_while_loop_with_backward_matches_1_8_5(tmp_path):
    prog = tmp_path / "while_loop_program.py"
    prog.write_text(PROGRAM)
    golden = _run([str(LEGACY_PY), str(prog)], tmp_path)
    got = _run([sys.executable, "-m", "compat", str(prog)], tmp_path)
    assert len(golden) == 2 * 3 * 5 + 1
    diffs = pr.compare(golden, got)
    assert not diffs, "\n".join(diffs)
