"""``make proof``: which automatic rules are proven by execution, per rules file.

    python -m proof.report [--json proof/report.json] [--strict] [--engines rewrite,compat]

An entry is proven when, in every mode its example supports, the rewritten program on
today's Paddle and the unmodified program under ``compat`` both reproduce what real
Paddle 1.8.5 printed (the golden). ``--strict`` exits 1 unless every automatic entry is.

Every automatic entry that is not proven is listed with the reason:

- failing: the example does not reproduce 1.8.5 (the problems are printed);
- known difference: an unsafe entry whose example declares ``differs`` for a mode, and
  the rewrite indeed does not reproduce 1.8.5 there (the run confirms the note);
- not in Paddle 1.8.5: no name of the entry resolves on the legacy engine, as recorded by
  ``make goldens-rules`` in ``fixtures/goldens/legacy_names.json``, and the entry has no
  example for Paddle 2.0.2 (``engine = "2.0"``, where the 2.0-era names are proven);
- cannot run here: an unsafe entry whose ``example`` holds only ``unprovable = "why"``
  (a Hadoop cluster, parameter servers, a GPU);
- no example.
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from collections import OrderedDict
from pathlib import Path
from typing import Dict, List, Optional, Sequence

from proof import cases as cases_mod
from proof import legacy_names, snippets
from proof.cases import ROOT, collect, unprovable
from proof.runner import Verdict, prove
from upgrader.rulebook import load

DEFAULT_JSON = ROOT / "proof" / "report.json"


def scaffolding_modes(entry, book) -> set:
    """The modes whose every program runs ``entry`` (empty: not part of the scaffolding)."""
    return {mode for mode, names in snippets.SCAFFOLDING.items()
            if any(book.lookup(n) is entry for n in names)}


def engine_ok(v: Verdict, engine: str) -> bool:
    """The case passes on ``engine`` (whatever the other engines say)."""
    if v.documented and engine == "rewrite":
        return False
    return not v.problems or (all(":" in p for p in v.problems) and v.records
                              and not any(p.startswith(engine + ":") for p in v.problems))


def build(verdicts: Dict[str, Verdict], missing, book,
          engines: Sequence[str] = ("rewrite", "compat")) -> dict:
    files: Dict[str, dict] = OrderedDict()

    def slot(name: str) -> dict:
        return files.setdefault(name, {"automatic": 0, "with_example": 0, "proven": 0,
                                       "by_engine": {e: 0 for e in engines},
                                       "failing": OrderedDict(), "documented": OrderedDict(),
                                       "not_in_1_8_5": [], "unprovable": OrderedDict(),
                                       "missing_example": []})

    recorded = legacy_names.load()

    automatic = sorted((e for e in book if e.automatic), key=lambda e: (e.file, e.name))
    for e in automatic:
        slot(e.file)["automatic"] += 1
    proven_modes = {v.case.mode for v in verdicts.values() if v.proven}
    for e in missing:
        modes = scaffolding_modes(e, book)
        if modes and modes <= proven_modes:
            f = slot(e.file)
            f["proven"] += 1
            f.setdefault("proven_by_scaffolding", []).append(e.short)
        elif unprovable(e) and e.safety == "unsafe":
            slot(e.file)["unprovable"][e.short] = unprovable(e)
        elif legacy_names.absent(e, recorded):
            slot(e.file)["not_in_1_8_5"].append(e.short)
        else:
            slot(e.file)["missing_example"].append(e.short)
    by_entry: Dict[str, List[Verdict]] = OrderedDict()
    for v in verdicts.values():
        by_entry.setdefault(v.case.entry.name, []).append(v)
    for name, vs in by_entry.items():
        entry = vs[0].case.entry
        f = slot(entry.file)
        f["with_example"] += 1
        for engine in engines:
            if all(engine_ok(v, engine) for v in vs):
                f["by_engine"][engine] = f["by_engine"].get(engine, 0) + 1
        if all(v.proven for v in vs):
            f["proven"] += 1
        elif all(v.proven or v.difference_confirmed for v in vs):
            f["documented"][entry.short] = OrderedDict(
                (v.case.mode, [v.case.difference] + v.documented)
                for v in sorted(vs, key=lambda v: v.case.mode) if v.difference_confirmed)
        else:
            f["failing"][entry.short] = OrderedDict(
                (v.case.mode, v.problems) for v in sorted(vs, key=lambda v: v.case.mode)
                if v.problems)
    total = {"automatic": 0, "with_example": 0, "proven": 0, "failing": 0, "documented": 0,
             "not_in_1_8_5": 0, "unprovable": 0, "missing_example": 0,
             "by_engine": {e: 0 for e in engines}}
    for f in files.values():
        f["percent"] = round(100.0 * f["proven"] / f["automatic"], 1) if f["automatic"] else 100.0
        for k in ("automatic", "with_example", "proven"):
            total[k] += f[k]
        for e in engines:
            total["by_engine"][e] += f["by_engine"].get(e, 0)
        for k in UNPROVEN:
            total[k] += len(f[k])
    total["percent"] = (round(100.0 * total["proven"] / total["automatic"], 1)
                        if total["automatic"] else 100.0)
    # what fix applies by default: every safe rule must be proven (an unproven rule is
    # demoted to unsafe with the reason, tests/test_proof_reasons.py)
    safety = {e.short: e.safety for e in automatic}
    unproven_safe = sorted(n for f in files.values()
                           for k in ("failing", "not_in_1_8_5", "missing_example")
                           for n in f[k] if safety.get(n) == "safe")
    total["safe"] = sum(1 for e in automatic if e.safety == "safe")
    total["safe_proven"] = total["safe"] - len(unproven_safe)
    total["safe_unproven"] = unproven_safe
    total["unsafe"] = total["automatic"] - total["safe"]
    return {"rules_digest": book.digest, "summary": total, "files": files,
            "one_mode": one_mode(automatic)}


def one_mode(entries) -> Dict[str, str]:
    """Short name -> ``modes_why`` of the automatic entries of APIs that run in both modes
    (entry mode ``any``) whose example runs in one mode only."""
    out: Dict[str, str] = OrderedDict()
    for e in entries:
        ex = e.example or {}
        if e.mode != "any" or not ex.get("code") or unprovable(e):
            continue
        try:
            modes = snippets.example_modes(ex, e.mode)
        except snippets.ExampleError:
            continue
        if len(modes) == 1:
            out[e.short] = str(ex.get("modes_why", "") or "")
    return out


#: why an automatic entry is not proven: report key -> column title
UNPROVEN = OrderedDict([("failing", "failing"), ("documented", "known diff"),
                        ("not_in_1_8_5", "not in 1.8.5"), ("unprovable", "cannot run"),
                        ("missing_example", "no example")])


def _count(v) -> int:
    return v if isinstance(v, int) else len(v)


def render(report: dict, out=sys.stdout, width: int = 100) -> None:
    engines = list(report["summary"]["by_engine"])
    head = f"{'rules file':<24}{'automatic':>10}{'example':>9}" \
           + "".join(f"{e + ' ok':>11}" for e in engines) + f"{'proven':>8}" \
           + "".join(f"{t:>{len(t) + 2}}" for t in UNPROVEN.values()) + f"{'proven %':>10}"
    print(head, file=out)
    print("-" * len(head), file=out)
    rows = list(report["files"].items()) + [("TOTAL", report["summary"])]
    for name, f in rows:
        if name == "TOTAL":
            print("-" * len(head), file=out)
        per_engine = "".join(f"{f['by_engine'].get(e, 0):>11}" for e in engines)
        why = "".join(f"{_count(f.get(k, 0)):>{len(t) + 2}}" for k, t in UNPROVEN.items())
        print(f"{name:<24}{f['automatic']:>10}{f['with_example']:>9}{per_engine}{f['proven']:>8}"
              f"{why}{f['percent']:>9.1f}%", file=out)
    for name, f in report["files"].items():
        if not any(f.get(k) for k in UNPROVEN):
            continue
        print(f"\n{name}", file=out)
        for short, modes in f["failing"].items():
            for mode, problems in modes.items():
                for p in problems:
                    first = p.splitlines()[0] if p else p
                    print(f"  not proven  {short} [{mode}]: {first[:width * 2]}", file=out)
        for short, modes in f.get("documented", {}).items():
            for mode, (why, *seen) in modes.items():
                print(f"  known difference (unsafe, confirmed)  {short} [{mode}]: "
                      f"{why[:width * 2]}", file=out)
        for short, why in f.get("unprovable", {}).items():
            print(f"  cannot run here (unsafe)  {short}: {why[:width * 2]}", file=out)
        if f.get("not_in_1_8_5"):
            print(f"  not in Paddle 1.8.5 (no name of the entry resolves on the legacy engine, "
                  f"see {legacy_names.GOLDEN.relative_to(ROOT)}): "
                  f"{', '.join(f['not_in_1_8_5'])}", file=out)
        if f["missing_example"]:
            print(f"  no example  {', '.join(f['missing_example'])}", file=out)
    scaffold = [n for f in report["files"].values() for n in f.get("proven_by_scaffolding", [])]
    if scaffold:
        print(f"\nproven by every program of their mode (no example needed): "
              f"{', '.join(scaffold)}", file=out)
    one = report.get("one_mode", {})
    if one:
        print(f"\nrun in one mode only, with the reason in their example's modes_why "
              f"({len(one)}; the legacy API rejects the other mode, is bound to one, or "
              f"another proof covers it): {', '.join(sorted(one))}", file=out)


def main(argv: Optional[Sequence[str]] = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m proof.report", description=__doc__.split("\n")[0])
    ap.add_argument("--json", default=str(DEFAULT_JSON), help="where to write the JSON report")
    ap.add_argument("--strict", action="store_true", help="exit 1 unless 100%% are proven")
    ap.add_argument("--explained", action="store_true",
                    help="exit 1 when an automatic rule fails or has no example and no "
                         "recorded reason (known difference, not in 1.8.5, cannot run here)")
    ap.add_argument("--engines", default="rewrite,compat")
    ap.add_argument("--rules", help="a rule directory other than rules/")
    ap.add_argument("--goldens", help="a goldens directory other than fixtures/goldens/rules")
    args = ap.parse_args(argv)
    t0 = time.time()
    if args.goldens:
        cases_mod.GOLDENS = Path(args.goldens).resolve()
    book = load(args.rules) if args.rules else load()
    cases, missing = collect(book)
    engines = [e for e in args.engines.split(",") if e]
    verdicts = prove(cases, book=book if args.rules else None, engines=engines)
    report = build(verdicts, missing, book, engines)
    report["seconds"] = round(time.time() - t0, 1)
    render(report)
    if args.json:
        Path(args.json).write_text(json.dumps(report, indent=1) + "\n", encoding="utf-8")
    s = report["summary"]
    print(f"\n{s['proven']}/{s['automatic']} automatic rules proven ({s['percent']}%); "
          f"not proven: {s['failing']} failing, {s['documented']} with a confirmed documented "
          f"difference (unsafe), {s['not_in_1_8_5']} not in Paddle 1.8.5, {s['unprovable']} "
          f"cannot run here (unsafe), {s['missing_example']} without example; "
          f"{report['seconds']}s", file=sys.stdout)
    print(f"safe rules (applied by fix by default): {s['safe_proven']}/{s['safe']} proven"
          + (f"; not proven: {', '.join(s['safe_unproven'])}" if s["safe_unproven"] else "")
          + f"; unsafe rules (only with --unsafe-fixes): {s['unsafe']}"
          + (", each proven, or its difference confirmed, or why it cannot run recorded"
             if not (s["failing"] or s["missing_example"]) else ""), file=sys.stdout)
    if args.strict and s["proven"] < s["automatic"]:
        return 1
    if args.explained and (s["failing"] or s["missing_example"]):
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
