"""Proof cases (one per automatic rule entry and mode) and their goldens.

A golden, ``fixtures/goldens/rules/<fluid.short.name>.<mode>.json``, is what real Paddle
1.8.5 printed for the case's legacy program (Paddle 2.0.2 for an example that declares
``engine = "2.0"``: its names first appeared in 2.0's ``paddle.fluid``). It is only ever written by
``proof/record.py`` (``make goldens-rules``); it carries the digests of the example and of
the program, so an edited example (or a changed program template) shows up as stale.
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Dict, Iterable, List, Optional, Tuple

from proof import snippets
from upgrader.rulebook import Entry, RuleBook, load

ROOT = Path(__file__).resolve().parent.parent
GOLDENS = ROOT / "fixtures" / "goldens" / "rules"
#: engine -> how the proof names it
ENGINE_LABELS = {"1.8": "Paddle 1.8.5", "2.0": "Paddle 2.0.2"}


@dataclass
class Case:
    entry: Entry
    mode: str
    program: str = ""          # the legacy program; "" when the example is invalid
    invalid: str = ""          # why the example cannot become a program

    @property
    def key(self) -> str:
        """``fluid.layers.reduce_sum.dygraph``: batch id and golden file stem."""
        return f"{self.entry.short}.{self.mode}"

    @property
    def test_id(self) -> str:
        return f"{self.entry.short}-{self.mode}"

    @property
    def example(self) -> dict:
        return self.entry.example or {}

    @property
    def engine(self) -> str:
        """The legacy engine of the golden: ``"1.8"`` (Paddle 1.8.5) or ``"2.0"``."""
        try:
            return snippets.example_engine(self.example)
        except snippets.ExampleError:
            return snippets.DEFAULT_ENGINE

    @property
    def engine_label(self) -> str:
        return ENGINE_LABELS[self.engine]

    @property
    def example_digest(self) -> str:
        return snippets.example_digest(self.example, self.mode)

    @property
    def program_digest(self) -> str:
        return snippets.program_digest(self.program)

    @property
    def golden_path(self) -> Path:
        return GOLDENS / f"{self.key}.json"

    @property
    def tolerance(self) -> Tuple[float, float]:
        tol = self.entry.numeric_tolerance or {}
        return (float(tol.get("rtol", snippets.DEFAULT_RTOL)),
                float(tol.get("atol", snippets.DEFAULT_ATOL)))

    @property
    def unsafe(self) -> bool:
        return self.entry.safety == "unsafe"

    @property
    def difference(self) -> str:
        """The documented known difference of this mode (example ``differs``), or ""."""
        return differs(self.entry).get(self.mode, "")


def differs(entry: Entry) -> Dict[str, str]:
    """Mode -> why the rewrite does not reproduce 1.8.5 there, from the example's
    ``differs``: a string (every mode of the example) or a table ``{mode = "why"}``."""
    d = (entry.example or {}).get("differs")
    if not d:
        return {}
    if isinstance(d, str):
        return {m: d for m in case_modes(entry)}
    return {str(m): str(why) for m, why in dict(d).items()}


def unprovable(entry: Entry) -> str:
    """Why an entry's example cannot run here (example ``unprovable``, no ``code``), or ""."""
    ex = entry.example or {}
    if ex.get("code"):
        return ""
    return str(ex.get("unprovable", "") or "")


def case_modes(entry: Entry) -> List[str]:
    try:
        return snippets.example_modes(entry.example or {}, entry.mode)
    except snippets.ExampleError:
        return list(snippets.MODES)


def cases_for(entry: Entry) -> List[Case]:
    out = []
    try:
        modes = snippets.example_modes(entry.example or {}, entry.mode)
        snippets.example_engine(entry.example or {})
    except snippets.ExampleError as exc:
        return [Case(entry, m, invalid=str(exc)) for m in snippets.MODES]
    for mode in modes:
        try:
            out.append(Case(entry, mode, snippets.program(entry.example, mode, entry.short)))
        except snippets.ExampleError as exc:
            out.append(Case(entry, mode, invalid=str(exc)))
    return out


def collect(book: Optional[RuleBook] = None) -> Tuple[List[Case], List[Entry]]:
    """All proof cases of the automatic entries, and the automatic entries with no example
    (or with only an ``unprovable`` reason instead of one)."""
    book = book or load()
    cases: List[Case] = []
    missing: List[Entry] = []
    for entry in sorted(book, key=lambda e: (e.file, e.name)):
        if not entry.automatic:
            continue
        if not entry.example or unprovable(entry):
            missing.append(entry)
            continue
        cases.extend(cases_for(entry))
    return cases, missing


# -- goldens ------------------------------------------------------------------------------

def load_golden(case: Case) -> Optional[dict]:
    try:
        return json.loads(case.golden_path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return None


def golden_status(case: Case, golden: Optional[dict] = None) -> str:
    """``missing``, ``stale`` (example or program changed since recording) or ``ok``."""
    golden = golden if golden is not None else load_golden(case)
    if golden is None:
        return "missing"
    if (golden.get("example_digest") != case.example_digest
            or golden.get("program_digest") != case.program_digest):
        return "stale"
    recorded = (golden.get("recorded_with") or {}).get("paddle")
    if recorded and not str(recorded).startswith(case.engine + "."):
        return "stale"  # recorded on another engine than the example names
    return "ok"


def golden_record(case: Case, rec: dict, env: Dict[str, str]) -> dict:
    """The golden for ``case`` from the legacy driver's record ``rec``."""
    golden = {
        "rule": case.entry.name,
        "mode": case.mode,
        "file": case.entry.file,
        "example_digest": case.example_digest,
        "program_digest": case.program_digest,
        "recorded_with": {k: env.get(k) for k in ("paddle", "numpy", "python")},
        "ok": bool(rec.get("ok")),
    }
    if rec.get("ok"):
        golden["result"] = rec["result"]
    else:
        golden["error"] = last_error_line(rec.get("error", ""))
    return golden


def write_golden(case: Case, golden: dict) -> None:
    GOLDENS.mkdir(parents=True, exist_ok=True)
    text = dump_golden(golden)
    tmp = case.golden_path.with_suffix(".json.tmp")
    tmp.write_text(text, encoding="utf-8")
    tmp.replace(case.golden_path)


def dump_golden(golden: dict) -> str:
    """Readable JSON: one key per line, each output on one line (values stay compact)."""
    head = {k: v for k, v in golden.items() if k != "result"}
    text = json.dumps(head, indent=1, sort_keys=True)
    result = golden.get("result")
    if result is None:
        return text + "\n"
    outs = ",\n".join("   " + json.dumps(o, sort_keys=True) for o in result.get("outputs", []))
    rest = {k: v for k, v in result.items() if k != "outputs"}
    body = json.dumps(rest, sort_keys=True)[:-1]
    body = (body + ", " if rest else "{") + '"outputs": [\n' + outs + "\n  ]}"
    return text[:-2] + ',\n "result": ' + body + "\n}\n"


def orphan_goldens(cases: Iterable[Case]) -> List[Path]:
    """Goldens of no current case (entry or mode removed, example dropped)."""
    wanted = {c.golden_path.name for c in cases}
    if not GOLDENS.is_dir():
        return []
    return sorted(p for p in GOLDENS.glob("*.json") if p.name not in wanted)


def last_error_line(text: str) -> str:
    """The exception line(s) of a traceback: what a reader needs, no machine paths."""
    if "Error Message Summary:" in text:  # Paddle's C++ errors: the summary says it all
        text = text.split("Error Message Summary:", 1)[1].lstrip("-\n")
        return "\n".join(l for l in text.strip().splitlines() if l.strip())[-2000:]
    lines = [l for l in text.strip().splitlines() if l.strip()]
    if not lines:
        return "unknown error"
    # the exception message starts at the last line that is not indented
    for i in range(len(lines) - 1, -1, -1):
        if not lines[i].startswith(" ") and not lines[i].startswith("Traceback"):
            start = i
            while start > 0 and not lines[start - 1].startswith(" ") \
                    and not lines[start - 1].startswith("Traceback"):
                start -= 1
            return "\n".join(lines[start:])[-2000:]
    return lines[-1][-2000:]
