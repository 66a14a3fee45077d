"""Mutation survey: does each proven rule's example see what the rule's data does?

    python -m proof.mutate [--kinds act,extra,default,transform,values,wrap]

For each kind, a copy of the rule book has that part of every proven entry removed
(``act`` handling dropped, ``extra`` keywords dropped, ``default`` values not emitted,
``transform``/``wrap`` not applied, ``values`` maps inverted or made the identity). An entry
whose rewrite changed but whose proof still passes has an example that does not exercise
that part: e.g. ``act='relu'`` on inputs that are all positive, or an extra keyword equal
to today's default for the example's arguments. Such an example proves less than it seems;
make it sharper (or, where the part truly makes no difference, say so in the note).
"""
from __future__ import annotations

import argparse
import copy
import sys
import time
from typing import Callable, Dict, List, Optional, Sequence

from proof import cases as proof_cases
from proof import runner
from upgrader.rulebook import ArgSpec, Entry, load


def _act(e: Entry) -> bool:
    hit = False
    for k, s in list(e.args.items()):
        if s.act:
            e.args[k] = ArgSpec(drop=True)
            hit = True
    return hit


def _extra(e: Entry) -> bool:
    hit = bool(e.extra)
    e.extra.clear()
    return hit


def _default(e: Entry) -> bool:
    hit = False
    for s in e.args.values():
        if s.default:
            s.default, hit = None, True
    return hit


def _transform(e: Entry) -> bool:
    hit = False
    for s in e.args.values():
        if s.transform:
            s.transform, s.transform_when, hit = None, None, True
    return hit


def _values(e: Entry) -> bool:
    hit = False
    for s in e.args.values():
        if s.values:
            inverted = {v: k for k, v in s.values.items()}
            s.values = inverted if len(s.values) > 1 else {k: k for k in s.values}
            hit = True
    return hit


def _wrap(e: Entry) -> bool:
    hit = bool(e.wrap)
    e.wrap = None
    for s in e.args.values():
        if s.wrap:
            s.wrap, hit = None, True
    return hit


KINDS: Dict[str, Callable[[Entry], bool]] = {
    "act": _act, "extra": _extra, "default": _default, "transform": _transform,
    "values": _values, "wrap": _wrap}


def survey(kinds: Sequence[str], out=sys.stdout) -> Dict[str, List[str]]:
    book = load()
    cases, _ = proof_cases.collect(book)
    intact = runner.prove(cases, engines=["rewrite"])
    proven = sorted({v.case.entry.name for v in intact.values() if v.proven})
    blind: Dict[str, List[str]] = {}
    for kind in kinds:
        broken = copy.deepcopy(book)
        targets = [n for n in proven if KINDS[kind](broken.entries[n])]
        bcases = [c for n in targets for c in proof_cases.cases_for(broken.entries[n])]
        verdicts = runner.prove(bcases, book=broken, engines=["rewrite"])
        changed = set()
        for c in bcases:
            before = intact[c.key].records.get("rewrite", {}).get("program")
            if runner.rewrite(c, broken).get("code") != before:
                changed.add(c.entry.name)
        blind[kind] = [n for n in targets if n in changed and all(
            v.proven for v in verdicts.values() if v.case.entry.name == n)]
        print(f"{kind:<10} {len(targets):>4} proven entries use it, {len(changed):>4} rewrites "
              f"changed, {len(blind[kind]):>3} examples blind to it"
              + (": " + ", ".join(n[len("paddle."):] for n in blind[kind]) if blind[kind] else ""),
              file=out)
    return blind


def main(argv: Optional[Sequence[str]] = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m proof.mutate", description=__doc__.split("\n")[0])
    ap.add_argument("--kinds", default=",".join(KINDS))
    args = ap.parse_args(argv)
    kinds = [k for k in args.kinds.split(",") if k]
    unknown = [k for k in kinds if k not in KINDS]
    if unknown:
        ap.error(f"unknown kind(s) {unknown}; choose from {sorted(KINDS)}")
    t0 = time.time()
    blind = survey(kinds)
    print(f"{sum(len(v) for v in blind.values())} blind spots; {time.time() - t0:.1f}s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
