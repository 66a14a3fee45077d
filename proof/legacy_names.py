"""Which legacy names of the rule book exist in real Paddle 1.8.5.

Some automatic entries name APIs of the 2.0 pre-releases (``fluid.dygraph.jit.save``,
``fluid.dataloader.*``, ``fluid.layers.cosh``) or of CUDA-only builds
(``fluid.core.get_cuda_device_count``): no example of theirs can run on the 1.8.5 engine
the proof uses, so they can never be proven against it. ``make goldens-rules`` asks the
legacy interpreter which names of the automatic entries without a runnable example
resolve (``import`` of the longest module prefix, then ``getattr``) and records the answer
in ``fixtures/goldens/legacy_names.json``; the report classifies an entry none of whose
names resolves as "not in Paddle 1.8.5" instead of "no example". The names of the entries
whose examples run on Paddle 2.0.2 (``engine = "2.0"``) are probed too: only what 1.8.5
lacks may be proven there. Like every golden, the file is only ever written from what the
legacy interpreter printed.
"""
from __future__ import annotations

import json
from typing import Dict, Iterable, List, Optional

from proof import snippets
from proof.cases import ROOT

GOLDEN = ROOT / "fixtures" / "goldens" / "legacy_names.json"
PROBE_ID = "legacy-names"

#: the probe program (Python 3.7 compatible); ``NAMES`` is filled in
PROBE_SOURCE = '''\
import importlib
import json

NAMES = %r


def _resolves(dotted):
    parts = dotted.split(".")
    for i in range(len(parts), 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:i]))
        except Exception:
            continue
        try:
            for attr in parts[i:]:
                obj = getattr(obj, attr)
        except Exception:
            return False
        return True
    return False


import paddle.fluid  # noqa: F401  (the engine itself must import)
print(%r + json.dumps({"names": dict((n, _resolves(n)) for n in NAMES)}))
'''


def probe_program(names: Iterable[str]) -> str:
    return PROBE_SOURCE % (sorted(set(names)), snippets.RESULT_PREFIX)


def wanted_names(entries) -> List[str]:
    """Every dotted name (and alias) of ``entries``."""
    out = set()
    for e in entries:
        out.add(e.name)
        out.update(e.aliases)
    return sorted(out)


def load(path=None) -> Dict[str, bool]:
    try:
        data = json.loads((path or GOLDEN).read_text(encoding="utf-8"))
    except FileNotFoundError:
        return {}
    return dict(data.get("names", {}))


def absent(entry, recorded: Dict[str, bool]) -> Optional[bool]:
    """True when no name of ``entry`` resolves on 1.8.5, False when one does, None when
    some name was never probed (run ``make goldens-rules``)."""
    names = [entry.name] + list(entry.aliases)
    if any(recorded.get(n) for n in names):
        return False
    if all(n in recorded for n in names):
        return True
    return None


def record(entries, python=None, out=None) -> Optional[dict]:
    """Probe the names of ``entries`` on the legacy interpreter; write the golden when its
    answer changed. Returns the golden (None when there was nothing to probe)."""
    from proof.runner import legacy_engine, run_programs

    names = wanted_names(entries)
    if not names:
        return None
    env, recs = run_programs(legacy_engine(python),
                             [(PROBE_ID, "static", probe_program(names))], cache=False)
    rec = recs.get(PROBE_ID) or {}
    if not rec.get("ok"):
        raise SystemExit("probing the legacy names failed on 1.8.5: "
                         + str(rec.get("error", "no result"))[-500:])
    if not str(env.get("paddle", "")).startswith("1.8"):
        raise SystemExit(f"the legacy interpreter runs Paddle {env.get('paddle')!r}, "
                         "not 1.8.x: refusing to record the legacy names")
    golden = {"recorded_with": {k: env.get(k) for k in ("paddle", "numpy", "python")},
              "names": rec["result"]["names"]}
    text = json.dumps(golden, indent=1, sort_keys=True) + "\n"
    old = GOLDEN.read_text(encoding="utf-8") if GOLDEN.exists() else None
    if old != text:
        GOLDEN.parent.mkdir(parents=True, exist_ok=True)
        GOLDEN.write_text(text, encoding="utf-8")
        if out is not None:
            gone = sum(1 for v in golden["names"].values() if not v)
            print(f"legacy names: {len(names)} probed on 1.8.5, {gone} absent "
                  f"({GOLDEN.relative_to(ROOT)})", file=out)
    return golden


def verify(entries, python=None) -> List[str]:
    """Problems re-probing the recorded names on 1.8.5 (empty = all good)."""
    from proof.runner import legacy_engine, run_programs

    recorded = load()
    names = wanted_names(entries)
    missing = [n for n in names if n not in recorded]
    problems = [f"legacy name {n} never probed on 1.8.5: run make goldens-rules"
                for n in missing[:20]]
    if not recorded:
        return problems
    _, recs = run_programs(legacy_engine(python),
                           [(PROBE_ID, "static", probe_program(recorded))], cache=False)
    rec = recs.get(PROBE_ID) or {}
    if not rec.get("ok"):
        return problems + ["probing the legacy names failed on 1.8.5: "
                           + str(rec.get("error", "no result"))[-300:]]
    now = rec["result"]["names"]
    for n, v in sorted(recorded.items()):
        if now.get(n) != v:
            problems.append(f"legacy name {n}: recorded {'present' if v else 'absent'}, "
                            f"1.8.5 now says {'present' if now.get(n) else 'absent'}")
    return problems
