"""cProfile summaries of the measured paths, written to benchmarks/profiles/*.txt.

    .venv/bin/python benchmarks/hotspots.py [engine] [fix-run] [check-cold] [check-warm]
                                            [compat-op] [compat-step]   # default: all

* ``engine``      — ``upgrade_source`` (fix) over the legacy files of the 100k corpus;
* ``fix-run``     — ``runner.run(mode="fix", jobs=1)`` on a copy of the 100k tree;
* ``check-cold``  — ``runner.run(mode="check", use_cache=False, jobs=1)`` on the 1M tree;
* ``check-warm``  — the same with a warm cache;
* ``compat-op``   — ``compat.fluid.layers.relu`` in a loop;
* ``compat-step`` — the legacy dygraph training step of compat_bench.py through compat.

Each file holds the CPU time without the profiler, then the top functions by own time
and by cumulative time (the profiler itself roughly doubles the times it shows).
"""
from __future__ import annotations

import cProfile
import io
import os
import pstats
import shutil
import sys
import tempfile
import time
import types
import warnings
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BENCH = ROOT / "benchmarks"
OUT = BENCH / "profiles"
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(BENCH))
warnings.simplefilter("ignore")


def report(name: str, fn, note: str, top: int = 30) -> None:
    t = time.process_time()
    fn()
    plain = time.process_time() - t
    pr = cProfile.Profile()
    pr.enable()
    fn()
    pr.disable()
    s = io.StringIO()
    s.write(f"# {name}: {note}\n# CPU time without the profiler: {plain:.3f} s\n\n")
    st = pstats.Stats(pr, stream=s)
    st.sort_stats("tottime").print_stats(top)
    st.sort_stats("cumulative").print_stats(top)
    import re
    text = s.getvalue().replace(str(ROOT) + "/", "")
    text = re.sub(r"\S*/site-packages/", "", text)
    text = re.sub(r"\S*/lib/python3\.\d+/", "", text)
    OUT.mkdir(exist_ok=True)
    (OUT / f"{name}.txt").write_text(text)
    print(f"{name}: {plain:.3f} s cpu -> {OUT.relative_to(ROOT) / (name + '.txt')}")


def corpus(size: str) -> Path:
    d = BENCH / "corpus" / size
    if not (d / "MANIFEST.json").exists():
        raise SystemExit(f"{d} missing: run benchmarks/make_corpus.py first")
    return d


def engine() -> None:
    from upgrader import runner
    from upgrader.engine import upgrade_source
    texts = [p.read_text() for p in sorted(corpus("100k").rglob("*.py"))]
    legacy = [t for t in texts if runner.is_candidate(t)]
    lines = sum(t.count("\n") for t in legacy)
    upgrade_source(legacy[0])
    report("engine", lambda: [upgrade_source(t) for t in legacy],
           f"upgrade_source (fix) on the {len(legacy)} legacy files of the 100k corpus "
           f"({lines} lines)")


def check(warm: bool) -> None:
    from upgrader import config as cfg
    from upgrader import runner
    with tempfile.TemporaryDirectory(prefix="paddle-upgrade-prof-") as tmp:
        d = Path(tmp) / "1M"
        shutil.copytree(corpus("1M"), d)
        s = cfg.resolve([str(d)])
        run = lambda: runner.run([str(d)], mode="check", settings=s, jobs=1, use_cache=warm)
        if warm:
            run()
        report("check-warm" if warm else "check-cold", run,
               f"runner.run(check, jobs=1, use_cache={warm}) on the 1M-line tree")


def fix_run() -> None:
    from upgrader import config as cfg
    from upgrader import runner
    with tempfile.TemporaryDirectory(prefix="paddle-upgrade-prof-") as tmp:
        src = corpus("100k")
        state = {"n": 0}

        def run():
            state["n"] += 1
            d = Path(tmp) / f"100k-{state['n']}"
            shutil.copytree(src, d)
            runner.run([str(d)], mode="fix", settings=cfg.resolve([str(d)]), jobs=1,
                       use_cache=False)
        report("fix-run", run, "runner.run(fix, jobs=1, no cache) on the 100k-line tree "
               "(includes copying the tree)")


def compat_op() -> None:
    import paddle
    import compat.fluid as fluid
    with fluid.dygraph.guard():
        x = paddle.rand([8, 8])
        fluid.layers.relu(x)

        def loop():
            for _ in range(20000):
                fluid.layers.relu(x)
        report("compat-op", loop, "20000 calls of compat.fluid.layers.relu on an 8x8 tensor")


def compat_step() -> None:
    import compat_bench as cb
    import compat
    compat.install()
    legacy = types.ModuleType("legacy_step")
    exec(compile(cb.LEGACY_STEP, "legacy_step.py", "exec"), legacy.__dict__)
    legacy.bench(20, 1)
    report("compat-step", lambda: legacy.bench(300, 1),
           "300 legacy dygraph training steps (MLP, Adam) through compat")


PARTS = {"engine": engine, "fix-run": fix_run, "check-cold": lambda: check(False), "check-warm": lambda: check(True),
         "compat-op": compat_op, "compat-step": compat_step}


def main(argv=None) -> int:
    names = (argv if argv is not None else sys.argv[1:]) or list(PARTS)
    os.environ.setdefault("GLOG_minloglevel", "2")
    for n in names:
        PARTS[n]()
    return 0


if __name__ == "__main__":
    sys.exit(main())
