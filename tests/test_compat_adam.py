"""compat's dygraph Adam and backward against the real Paddle 1.8.5 engine, bit for bit.

The same legacy program runs on 1.8.5 (``.venv-legacy``) and unmodified through
``python -m compat``; every parameter after every step must be identical (not just
close): compat's fast path feeds today's fused kernel 1.8.5's exact scalars. The
program covers gradients from 1e-12 to 10 and exact zeros, several epsilons/betas,
a per-parameter learning rate, a parameter that misses updates (its beta powers lag),
a piecewise learning-rate decay (its rates are exact floats: compat's other decays
compute their rate in double where 1.8.5 used float ops, a separate matter), optimizer state restored from a snapshot mid-run (beta powers rewind), and the 1.x rule that
a backward overwrites gradients that were not cleared (one of two layers cleared).
"""
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parent.parent
LEGACY_PY = ROOT / ".venv-legacy" / "bin" / "python"

PROGRAM = r'''
import sys
import numpy as np
import paddle.fluid as fluid


def run(steps=25, n=1030, seed=0, eps=1e-8, lr=0.01, b1=0.9, b2=0.999, decay=False,
        reload_at=None):
    rng = np.random.RandomState(seed)
    scales = np.array([1e-12, 1e-9, 1e-8, 1e-6, 1e-3, 1.0, 10.0, 0.0], 'float32')
    sc = scales[rng.randint(0, len(scales), n)]
    out = []
    with fluid.dygraph.guard():
        layer = fluid.dygraph.Layer()
        init = fluid.initializer.NumpyArrayInitializer
        layer.w = layer.create_parameter(
            shape=[n], dtype='float32', default_initializer=init(rng.randn(n).astype('float32')))
        layer.v = layer.create_parameter(
            shape=[7], dtype='float32', attr=fluid.ParamAttr(learning_rate=0.5),
            default_initializer=init(rng.randn(7).astype('float32')))
        layer.u = layer.create_parameter(
            shape=[5], dtype='float32', default_initializer=init(rng.randn(5).astype('float32')))
        rate = fluid.dygraph.PiecewiseDecay([4, 9], [lr, lr * 0.5, lr * 0.1], 0) if decay else lr
        opt = fluid.optimizer.Adam(learning_rate=rate, beta1=b1, beta2=b2, epsilon=eps,
                                   parameter_list=layer.parameters())
        for t in range(steps):
            g = (rng.randn(n).astype('float32') * sc).astype('float32')
            if t % 7 == 3:
                g[: n // 4] = 0
            loss = fluid.layers.reduce_sum(
                fluid.layers.elementwise_mul(layer.w, fluid.dygraph.to_variable(g)))
            loss = loss + fluid.layers.reduce_sum(fluid.layers.square(layer.v))
            if t % 3 != 1:  # u misses every third update: its beta powers lag behind
                loss = loss + fluid.layers.reduce_sum(fluid.layers.exp(layer.u))
            loss.backward()
            opt.minimize(loss)
            layer.clear_gradients()
            if reload_at == t:  # snapshot the optimizer state, restore it 3 steps later
                state = {k: v.numpy() for k, v in opt.state_dict().items()
                         if hasattr(v, 'numpy')}
            if reload_at is not None and t == reload_at + 3:
                opt.set_dict(state)
            out.append(np.concatenate([p.numpy().ravel() for p in (layer.w, layer.v, layer.u)]))
    return np.stack(out)


def overwrite():
    """Two backward passes; only one of the two layers cleared in between."""
    with fluid.dygraph.guard():
        a = fluid.dygraph.Linear(3, 2, param_attr=fluid.ParamAttr(
            initializer=fluid.initializer.Constant(0.3)))
        b = fluid.dygraph.Linear(2, 1, param_attr=fluid.ParamAttr(
            initializer=fluid.initializer.Constant(-0.2)))
        x = fluid.dygraph.to_variable(np.arange(6, dtype='float32').reshape(2, 3))
        grads = []
        for s in (1.0, 3.0, 5.0):
            loss = fluid.layers.reduce_mean(b(a(x)) * s)
            loss.backward()
            grads += [a.weight.gradient().ravel(), b.weight.gradient().ravel()]
            b.clear_gradients()
        return np.concatenate(grads)


cfgs = [dict(), dict(eps=1e-6, lr=0.1, decay=True), dict(eps=1e-3, b2=0.99, seed=1, reload_at=9),
        dict(eps=0.1, b1=0.5, b2=0.9, seed=2)]
np.savez(sys.argv[1], overwrite=overwrite(), **{'cfg%d' % i: run(**c) for i, c in enumerate(cfgs)})
'''


def _run(cmd, cwd):
    env = dict(os.environ, PYTHONPATH=str(ROOT), PYTHONWARNINGS="ignore", GLOG_minloglevel="2")
    proc = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]


@pytest.mark.skipif(not LEGACY_PY.exists(), reason="needs .venv-legacy (Paddle 1.8.5)")
def test_dygraph_adam_and_backward_bitwise_equal_to_1_8_5(tmp_path):
    prog = tmp_path / "adam_program.py"
    prog.write_text(PROGRAM)
    _run([str(LEGACY_PY), str(prog), str(tmp_path / "golden.npz")], tmp_path)
    _run([sys.executable, "-m", "compat", str(prog), str(tmp_path / "compat.npz")], tmp_path)
    golden, got = np.load(tmp_path / "golden.npz"), np.load(tmp_path / "compat.npz")
    assert sorted(golden.files) == sorted(got.files)
    for key in golden.files:
        g, c = golden[key], got[key]
        assert g.shape == c.shape, key
        if key.startswith("cfg"):
            assert not np.array_equal(g[0], g[-1]), "the parameters must move"
        bad = np.argwhere(g != c)
        assert bad.size == 0, (
            f"{key}: {len(bad)} of {g.size} values differ from 1.8.5, first at {bad[0]}: "
            f"{g[tuple(bad[0])]!r} vs {c[tuple(bad[0])]!r}")
