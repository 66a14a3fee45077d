"""Record (or verify) the rule goldens on real Paddle 1.8.5 (2.0.2 for 2.0 names).

    python -m proof.record               # record missing and stale goldens, drop orphans
    python -m proof.record --all         # re-record every golden
    python -m proof.record --verify      # re-run on 1.8.5, fail on any difference
    python -m proof.record fluid.layers.reduce_sum ...   # only these entries

It also records which names of the automatic entries without a runnable example exist
on 1.8.5 at all (``proof/legacy_names.py``). Goldens are written only here, from what
the legacy interpreter printed (``--legacy-python``, default ``.venv-legacy/bin/python``;
an example with ``engine = "2.0"``, whose names first appeared in 2.0's ``paddle.fluid``, on
``--legacy20-python``, default ``.venv-legacy20/bin/python``, Paddle 2.0.2).
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import Dict, List, Optional, Sequence

from proof import cases as cases_mod
from proof import legacy_names, snippets
from proof.cases import (ENGINE_LABELS, ROOT, Case, collect, golden_record, golden_status,
                         load_golden, orphan_goldens, write_golden)
from proof.runner import LEGACY20_PYTHON, LEGACY_PYTHON, LEGACY_PYTHONS, legacy_engine, run_programs
from upgrader.rulebook import load

#: re-running 1.8.5 on the same inputs must reproduce the golden within the tolerance the
#: proof judges by (rtol 1e-5, atol 1e-6): on one CPU the kernels are deterministic, but
#: another CPU takes other vector kernels, whose summation order moves sums that nearly
#: cancel by a few float32 ulps (seen: conv3d, 1.2e-7 on -0.01508, rel. 8e-6)
VERIFY_RTOL, VERIFY_ATOL = snippets.DEFAULT_RTOL, snippets.DEFAULT_ATOL


def probed(cases: Sequence[Case], missing) -> list:
    """The entries whose names are probed on 1.8.5: those without a runnable example, and
    those whose example runs on 2.0.2 (it must name something 1.8.5 lacks)."""
    extra = {c.entry.name: c.entry for c in cases if c.engine != "1.8"}
    return list(missing) + [e for _, e in sorted(extra.items())]


def select(cases: List[Case], names: Sequence[str]) -> List[Case]:
    if not names:
        return cases
    wanted = set()
    for n in names:
        wanted.add(n if n.startswith("paddle.") else "paddle." + n)
    return [c for c in cases if c.entry.name in wanted or c.key in names]


def engine_python(version: str, python: Optional[str] = None,
                  python20: Optional[str] = None) -> str:
    """The interpreter recording the goldens of ``version`` (``--legacy-python`` for 1.8,
    ``--legacy20-python`` for 2.0)."""
    given = python if version == "1.8" else python20
    return str(given or LEGACY_PYTHONS[version])


def by_engine(cases: Sequence[Case]) -> Dict[str, List[Case]]:
    out: Dict[str, List[Case]] = {}
    for c in cases:
        out.setdefault(c.engine, []).append(c)
    return out


def run_legacy(cases: Sequence[Case], python: Optional[str] = None, version: str = "1.8"):
    """Run ``cases`` (all of one engine) on their legacy interpreter: ``(env, records)``."""
    engine = legacy_engine(python, version)
    if not Path(engine.python).exists():
        venv = Path(engine.python).parent.parent.name
        raise SystemExit(f"no {ENGINE_LABELS[version]} interpreter at {engine.python}: run "
                         f"make goldens-rules (it creates {venv})")
    # never cached: a golden must come from a run, and a verification must be one
    return run_programs(engine, [(c.key, c.mode, c.program) for c in cases], cache=False)


def verify(cases: Sequence[Case], python: Optional[str] = None,
           python20: Optional[str] = None) -> List[str]:
    """Problems found re-running every case on its legacy engine (1.8.5, or 2.0.2 for the
    examples that say so) against its golden (empty = all good)."""
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
    for version, group in sorted(by_engine(runnable).items()):
        label = ENGINE_LABELS[version]
        py = engine_python(version, python, python20)
        env, recs = run_legacy(group, py, version)
        if env and not str(env.get("paddle", "")).startswith(version + "."):
            problems.append(f"the {label} interpreter runs Paddle {env.get('paddle')}, "
                            f"not {version}.x")
        for c in group:
            why = _disagreement(c, recs.get(c.key, {}), label)
            if why:
                # a batch shares one interpreter and a loaded machine: re-run the case alone
                # (a fresh interpreter) and report it only when it disagrees there too
                _, alone = run_legacy([c], py, version)
                again = _disagreement(c, alone.get(c.key, {}), label)
                if again:
                    problems.append(again)
                else:
                    print(f"note: {c.key} disagreed in the batch but matches when re-run "
                          f"alone ({why[:200]})", file=sys.stderr)
    return problems


def _disagreement(c: Case, rec: dict, label: str) -> str:
    """Why a legacy run's record of case ``c`` does not reproduce its golden, or ""."""
    golden = load_golden(c)
    if bool(rec.get("ok")) != bool(golden.get("ok")):
        return (f"{c.key}: golden says ok={golden.get('ok')}, {label} now says "
                f"ok={rec.get('ok')} {rec.get('error', '')[-300:]}")
    if golden.get("ok"):
        why = snippets.compare(golden["result"], rec["result"], VERIFY_RTOL, VERIFY_ATOL, label)
        if why:
            return f"{c.key}: re-run on {label} differs from the golden: {why}"
    return ""


def record(cases: Sequence[Case], everything: bool = False, python: Optional[str] = None,
           prune: bool = True, out=sys.stdout, python20: Optional[str] = None) -> Dict[str, int]:
    todo = [c for c in cases if not c.invalid
            and (everything or golden_status(c) != "ok")]
    counts = {"cases": len(cases), "recorded": 0, "failing_on_1.8.5": 0, "unchanged": 0,
              "invalid": sum(1 for c in cases if c.invalid), "pruned": 0}
    counts["unchanged"] = len(cases) - len(todo) - counts["invalid"]
    for c in cases:
        if c.invalid:
            print(f"invalid example {c.key}: {c.invalid}", file=out)
    for version, group in sorted(by_engine(todo).items()):
        label = ENGINE_LABELS[version]
        env, recs = run_legacy(group, engine_python(version, python, python20), version)
        if not str(env.get("paddle", "")).startswith(version + "."):
            raise SystemExit(f"the {label} interpreter runs Paddle {env.get('paddle')!r}, "
                             f"not {version}.x: refusing to record goldens")
        for c in group:
            rec = recs.get(c.key) or {"ok": False, "error": "no result from the legacy run"}
            if not rec.get("ok") and len(group) > 1:
                # a failure inside a batch may come from an earlier example's leftovers in
                # the shared interpreter (1.8.5's dygraph DataLoader was killed so once):
                # the golden is what the example does alone
                _, alone = run_legacy([c], engine_python(version, python, python20), version)
                rec = alone.get(c.key) or rec
            golden = golden_record(c, rec, env)
            write_golden(c, golden)
            counts["recorded"] += 1
            if not golden["ok"]:
                counts["failing_on_1.8.5"] += 1
                print(f"example fails on {label} {c.key}: {golden['error']}", file=out)
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
    ap.add_argument("--legacy20-python", default=str(LEGACY20_PYTHON),
                    help="Paddle 2.0.2, for the examples with engine = \"2.0\"")
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
        problems = verify(cases, args.legacy_python, args.legacy20_python)
        if probe_names and not args.names:
            problems += legacy_names.verify(probed(all_cases, missing), args.legacy_python)
        for p in problems:
            print(p)
        engines = ", ".join(f"{len(g)} on {ENGINE_LABELS[v]}"
                            for v, g in sorted(by_engine(cases).items()))
        print(f"verified {len(cases) - len(problems)}/{len(cases)} rule goldens ({engines}) "
              f"in {time.time() - t0:.1f}s")
        return 1 if problems else 0
    counts = record(cases, args.all, args.legacy_python, prune=not args.names,
                    python20=args.legacy20_python)
    if probe_names:
        legacy_names.record(probed(all_cases, missing), args.legacy_python, out=sys.stdout)
    print(f"rule goldens: {counts['recorded']} recorded ({counts['failing_on_1.8.5']} fail on "
          f"1.8.5), {counts['unchanged']} up to date, {counts['invalid']} invalid examples, "
          f"{counts['pruned']} orphans removed; {time.time() - t0:.1f}s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
