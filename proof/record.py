"""Record (or verify) the rule goldens on real Paddle 1.8.5.

    python -m proof.record               # record missing and stale goldens, drop orphans
    python -m proof.record --all         # re-record every golden
    python -m proof.record --verify      # re-run on 1.8.5, fail on any difference
    python -m proof.record fluid.layers.reduce_sum ...   # only these entries

It also records which names of the automatic entries without a runnable example exist
on 1.8.5 at all (``proof/legacy_names.py``). Goldens are written only here, from what
the legacy interpreter printed (``--legacy-python``, default ``.venv-legacy/bin/python``).
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import Dict, List, Optional, Sequence

from proof import cases as cases_mod
from proof import legacy_names, snippets
from proof.cases import (ROOT, Case, collect, golden_record, golden_status, load_golden,
                         orphan_goldens, write_golden)
from proof.runner import LEGACY_PYTHON, legacy_engine, run_programs
from upgrader.rulebook import load

#: re-running 1.8.5 on the same inputs must reproduce the golden within the tolerance the
#: proof judges by (rtol 1e-5, atol 1e-6): on one CPU the kernels are deterministic, but
#: another CPU takes other vector kernels, whose summation order moves sums that nearly
#: cancel by a few float32 ulps (seen: conv3d, 1.2e-7 on -0.01508, rel. 8e-6)
VERIFY_RTOL, VERIFY_ATOL = snippets.DEFAULT_RTOL, snippets.DEFAULT_ATOL


def select(cases: List[Case], names: Sequence[str]) -> List[Case]:
    if not names:
        return cases
    wanted = set()
    for n in names:
        wanted.add(n if n.startswith("paddle.") else "paddle." + n)
    return [c for c in cases if c.entry.name in wanted or c.key in names]


def run_legacy(cases: Sequence[Case], python: Optional[str] = None):
    engine = legacy_engine(python)
    if not Path(engine.python).exists():
        raise SystemExit(f"no legacy interpreter at {engine.python}: run make goldens-rules "
                         "(it creates .venv-legacy with paddlepaddle==1.8.5)")
    # never cached: a golden must come from a run, and a verification must be one
    return run_programs(engine, [(c.key, c.mode, c.program) for c in cases], cache=False)


def verify(cases: Sequence[Case], python: Optional[str] = None) -> List[str]:
    """Problems found re-running every case on 1.8.5 against its golden (empty = all good)."""
    problems = []
    runnable = []
    for c in cases:
        if c.invalid:
            continue
        status = golden_status(c)
        if status != "ok":
            problems.append(f"{c.key}: golden {status}: run make goldens-rules")
        else:
            runnable.append(c)
    env, recs = run_legacy(runnable, python)
    if env and not str(env.get("paddle", "")).startswith("1.8"):
        problems.append(f"the legacy interpreter runs Paddle {env.get('paddle')}, not 1.8.x")
    for c in runnable:
        golden, rec = load_golden(c), recs.get(c.key, {})
        if bool(rec.get("ok")) != bool(golden.get("ok")):
            problems.append(f"{c.key}: golden says ok={golden.get('ok')}, 1.8.5 now says "
                            f"ok={rec.get('ok')} {rec.get('error', '')[-300:]}")
        elif golden.get("ok"):
            why = snippets.compare(golden["result"], rec["result"], VERIFY_RTOL, VERIFY_ATOL)
            if why:
                problems.append(f"{c.key}: re-run differs from the golden: {why}")
    return problems


def record(cases: Sequence[Case], everything: bool = False, python: Optional[str] = None,
           prune: bool = True, out=sys.stdout) -> Dict[str, int]:
    todo = [c for c in cases if not c.invalid
            and (everything or golden_status(c) != "ok")]
    counts = {"cases": len(cases), "recorded": 0, "failing_on_1.8.5": 0, "unchanged": 0,
              "invalid": sum(1 for c in cases if c.invalid), "pruned": 0}
    counts["unchanged"] = len(cases) - len(todo) - counts["invalid"]
    for c in cases:
        if c.invalid:
            print(f"invalid example {c.key}: {c.invalid}", file=out)
    if todo:
        env, recs = run_legacy(todo, python)
        if not str(env.get("paddle", "")).startswith("1.8"):
            raise SystemExit(f"the legacy interpreter runs Paddle {env.get('paddle')!r}, "
                             "not 1.8.x: refusing to record goldens")
        for c in todo:
            rec = recs.get(c.key) or {"ok": False, "error": "no result from the legacy run"}
            golden = golden_record(c, rec, env)
            write_golden(c, golden)
            counts["recorded"] += 1
            if not golden["ok"]:
                counts["failing_on_1.8.5"] += 1
                print(f"example fails on 1.8.5 {c.key}: {golden['error']}", file=out)
    if prune:
        for p in orphan_goldens(cases):
            p.unlink()
            counts["pruned"] += 1
            print(f"removed orphan golden {p.relative_to(ROOT)}", file=out)
    return counts


def main(argv: Optional[Sequence[str]] = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m proof.record", description=__doc__.split("\n")[0])
    ap.add_argument("names", nargs="*", help="entries (fluid.layers.x or paddle.fluid.layers.x)")
    ap.add_argument("--all", action="store_true", help="re-record every golden")
    ap.add_argument("--verify", action="store_true", help="re-run on 1.8.5 and compare")
    ap.add_argument("--legacy-python", default=str(LEGACY_PYTHON))
    ap.add_argument("--rules", help="a rule directory other than rules/ (harness tests)")
    ap.add_argument("--goldens", help="a goldens directory other than fixtures/goldens/rules")
    args = ap.parse_args(argv)
    t0 = time.time()
    if args.goldens:
        cases_mod.GOLDENS = Path(args.goldens).resolve()
    all_cases, missing = collect(load(args.rules) if args.rules else None)
    cases = select(all_cases, args.names)
    if args.names and not cases:
        print(f"no proof case matches {' '.join(args.names)}", file=sys.stderr)
        return 2
    # the names of entries without a runnable example: which exist on 1.8.5 at all
    probe_names = not (args.rules or args.goldens)
    if args.verify:
        problems = verify(cases, args.legacy_python)
        if probe_names and not args.names:
            problems += legacy_names.verify(missing, args.legacy_python)
        for p in problems:
            print(p)
        print(f"verified {len(cases) - len(problems)}/{len(cases)} rule goldens on Paddle 1.8.5 "
              f"in {time.time() - t0:.1f}s")
        return 1 if problems else 0
    counts = record(cases, args.all, args.legacy_python, prune=not args.names)
    if probe_names:
        legacy_names.record(missing, args.legacy_python, out=sys.stdout)
    print(f"rule goldens: {counts['recorded']} recorded ({counts['failing_on_1.8.5']} fail on "
          f"1.8.5), {counts['unchanged']} up to date, {counts['invalid']} invalid examples, "
          f"{counts['pruned']} orphans removed; {time.time() - t0:.1f}s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
