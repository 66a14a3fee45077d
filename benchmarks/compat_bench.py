"""Per-call overhead of the compat runtime (run with the project's .venv: needs Paddle).

    .venv/bin/python benchmarks/compat_bench.py [--quick]   # prints one JSON object

1. Eager ops: ``compat.fluid.layers.relu(x)`` vs ``paddle.nn.functional.relu(x)``,
   ``compat.fluid.layers.elementwise_add(x, y)`` vs ``paddle.add(x, y)``, and matmul,
   softmax, reshape, transpose and tanh against their modern calls, on small
   tensors (where a wrapper's fixed cost shows most), many calls per repeat, the minimum
   per-call time over the repeats.
2. A training step: a legacy 1.8 dygraph MLP step (``fluid.dygraph.Linear`` with
   ``act``, ``fluid.optimizer.Adam``, ``softmax_with_cross_entropy``, ``minimize``,
   ``clear_gradients``) run unmodified through ``compat`` (``compat.install()`` makes
   ``import paddle.fluid`` resolve to the shim) vs the code ``paddle-upgrade fix``
   makes of it, run natively. Same seeds, same data.

Calls alternate between the two sides repeat by repeat so that load on a shared machine
hits both alike. The two training-step sides run in separate worker processes: compat's
patches are process-wide (``Tensor.backward``, parameter construction) and the upgraded
code runs without them in real use.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import time
import types
import warnings
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("GLOG_minloglevel", "2")
warnings.simplefilter("ignore")

LEGACY_STEP = '''\
import time

import numpy as np
import paddle.fluid as fluid


class MLP(fluid.dygraph.Layer):
    def __init__(self):
        super(MLP, self).__init__()
        self.fc1 = fluid.dygraph.Linear(64, 128, act='relu')
        self.fc2 = fluid.dygraph.Linear(128, 10)

    def forward(self, x):
        return self.fc2(self.fc1(x))


def make():
    np.random.seed(0)
    model = MLP()
    opt = fluid.optimizer.Adam(learning_rate=0.001, parameter_list=model.parameters())
    x = fluid.dygraph.to_variable(np.random.rand(32, 64).astype('float32'))
    y = fluid.dygraph.to_variable(np.random.randint(0, 10, (32, 1)).astype('int64'))

    def step():
        logits = model(x)
        loss = fluid.layers.reduce_mean(fluid.layers.softmax_with_cross_entropy(logits, y))
        loss.backward()
        opt.minimize(loss)
        model.clear_gradients()
        return loss

    return step


def bench(n, repeats, warmup=5):
    times = []
    with fluid.dygraph.guard():
        step = make()
        for _ in range(warmup):
            step()
        for _ in range(repeats):
            t = time.perf_counter()
            for _ in range(n):
                loss = step()
            times.append((time.perf_counter() - t) / n)
        final = float(loss.numpy().reshape(-1)[0])
    return times, final
'''


def _min_time(fn, n: int) -> float:
    t = time.perf_counter()
    for _ in range(n):
        fn()
    return (time.perf_counter() - t) / n


def eager_ops(calls: int, repeats: int) -> dict:
    import paddle
    import compat.fluid as fluid
    out = {}
    with fluid.dygraph.guard():
        paddle.seed(0)
        x = paddle.rand([8, 8])
        y = paddle.rand([8, 8])
        pairs = {
            "relu": (lambda: fluid.layers.relu(x), lambda: paddle.nn.functional.relu(x)),
            "elementwise_add": (lambda: fluid.layers.elementwise_add(x, y),
                                lambda: paddle.add(x, y)),
            "matmul": (lambda: fluid.layers.matmul(x, y), lambda: paddle.matmul(x, y)),
            "softmax": (lambda: fluid.layers.softmax(x), lambda: paddle.nn.functional.softmax(x)),
            "reshape": (lambda: fluid.layers.reshape(x, [64]), lambda: paddle.reshape(x, [64])),
            "transpose": (lambda: fluid.layers.transpose(x, [1, 0]),
                          lambda: paddle.transpose(x, [1, 0])),
            "tanh": (lambda: fluid.layers.tanh(x), lambda: paddle.tanh(x)),
        }
        for name, (legacy, native) in pairs.items():
            legacy(), native()  # first-use warnings, lazy imports
            for _ in range(200):
                legacy(), native()
            lt, nt = [], []
            for _ in range(repeats):
                lt.append(_min_time(legacy, calls))
                nt.append(_min_time(native, calls))
            lmin, nmin = min(lt), min(nt)
            out[name] = {"compat_us": lmin * 1e6, "native_us": nmin * 1e6,
                         "overhead": lmin / nmin - 1.0, "calls": calls, "repeats": repeats}
    return out


def upgraded_step_source() -> str:
    from upgrader.engine import upgrade_source
    res = upgrade_source(LEGACY_STEP)
    left = [f for f in upgrade_source(res.code, fix=False).findings]
    if left:
        raise SystemExit("the upgraded training step still has legacy findings: " +
                         "; ".join(f"{f.code} {f.message}" for f in left))
    return res.code


def _step_worker(side: str) -> int:
    """One side of the training-step benchmark in its own process: the upgraded code
    runs on plain Paddle (compat's patches, e.g. of ``Tensor.backward``, are process
    wide and must not slow it down), the legacy code through ``compat.install()``.
    Reads ``<steps>`` lines from stdin, answers each with one JSON line."""
    import paddle
    paddle.set_device("cpu")
    if side == "legacy":
        import compat
        compat.install()
        src = LEGACY_STEP
    else:
        src = sys.stdin.readline()
        src = json.loads(src)
    mod = types.ModuleType(side + "_step")
    exec(compile(src, side + "_step.py", "exec"), mod.__dict__)
    print("ready", flush=True)
    for line in sys.stdin:
        steps = int(line)
        paddle.seed(0)
        cpu = time.process_time()
        times, final = mod.bench(steps, 1)
        cpu = (time.process_time() - cpu) / (steps + 5)  # bench() runs 5 warm-up steps
        if side == "legacy":
            paddle.disable_static()  # the legacy side leaves 1.x's default (static) mode
        print(json.dumps({"time": times[0], "cpu": cpu, "final": final}), flush=True)
    return 0


def training_step(steps: int, repeats: int) -> dict:
    import subprocess
    new_src = upgraded_step_source()
    env = dict(os.environ, PYTHONWARNINGS="ignore")
    procs = {}
    for side in ("legacy", "upgraded"):
        procs[side] = subprocess.Popen(
            [sys.executable, os.path.abspath(__file__), "--step-worker", side],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
            text=True, env=env, cwd=str(ROOT))
    procs["upgraded"].stdin.write(json.dumps(new_src) + "\n")
    procs["upgraded"].stdin.flush()
    for side, proc in procs.items():
        if proc.stdout.readline().strip() != "ready":
            raise SystemExit(f"the {side} step worker failed to start")
    runs = {"legacy": [], "upgraded": []}
    cpus = {"legacy": [], "upgraded": []}
    finals = {}
    try:
        for _ in range(repeats):  # alternate: load on the machine hits both alike
            for side, proc in procs.items():
                proc.stdin.write(f"{steps}\n")
                proc.stdin.flush()
                rec = json.loads(proc.stdout.readline())
                runs[side].append(rec["time"])
                cpus[side].append(rec["cpu"])
                finals[side] = rec["final"]
    finally:
        for proc in procs.values():
            proc.stdin.close()
            proc.wait(timeout=60)
    lmin, mmin = min(runs["legacy"]), min(runs["upgraded"])
    lcpu, mcpu = min(cpus["legacy"]), min(cpus["upgraded"])
    return {"compat_ms": lmin * 1e3, "native_ms": mmin * 1e3, "overhead": lmin / mmin - 1.0,
            "compat_cpu_ms": lcpu * 1e3, "native_cpu_ms": mcpu * 1e3,
            "cpu_overhead": lcpu / mcpu - 1.0,
            "steps": steps, "repeats": repeats, "final_loss_compat": finals["legacy"],
            "final_loss_upgraded": finals["upgraded"], "upgraded_source": new_src}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--step-worker", choices=("legacy", "upgraded"), help=argparse.SUPPRESS)
    ap.add_argument("--steps", type=int, help="training steps per repeat")
    ap.add_argument("--repeats", type=int, help="training-step repeats (per side)")
    ap.add_argument("--only-step", action="store_true", help="skip the eager-op measurement")
    a = ap.parse_args(argv)
    if a.step_worker:
        return _step_worker(a.step_worker)
    calls, repeats, steps = (500, 5, 20) if a.quick else (5000, 15, 100)
    import paddle
    paddle.set_device("cpu")
    res = {"paddle": paddle.__version__}
    if not a.only_step:
        res["eager"] = eager_ops(calls, repeats)
    res["train_step"] = training_step(a.steps or steps, a.repeats or max(5, repeats // 2))
    print(json.dumps(res))
    return 0


if __name__ == "__main__":
    sys.exit(main())
