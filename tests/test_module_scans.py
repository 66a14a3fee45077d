"""Module scans that stop early give the answers of the full walks: the static/dynamic
mode survey (fixers/static_dropout.py, stops once both modes are seen) against the same
survey walking the whole module."""
from pathlib import Path

from upgrader.engine import upgrade_source
from upgrader.fixers import static_dropout

ROOT = Path(__file__).resolve().parent.parent
SOURCES = sorted(ROOT.glob("fixtures/PU*/*.in.py")) + sorted((ROOT / "fixtures" / "programs").glob("*.py")) \
    + sorted((ROOT / "tests" / "data" / "stability").glob("*.py"))


def _surveys(monkeypatch, stop: bool):
    monkeypatch.setattr(static_dropout, "_STOP_WHEN_DECIDED", stop)
    seen = []
    survey = static_dropout._survey

    def spy(up):
        got = survey(up)
        seen.append(got)
        return got

    monkeypatch.setattr(static_dropout, "_survey", spy)
    out = []
    for p in SOURCES:
        code = p.read_text()
        for fix, unsafe in ((False, False), (True, False), (True, True)):
            seen.clear()
            r = upgrade_source(code, fix=fix, unsafe_fixes=unsafe)
            out.append((p.name, fix, unsafe, list(seen), r.code, [f.to_dict() for f in r.findings]))
    return out


def test_mode_survey_stops_with_the_same_answer(monkeypatch):
    fast = _surveys(monkeypatch, True)
    full = _surveys(monkeypatch, False)
    assert fast == full
    answers = [a for row in full for a in row[3]]
    assert (True, True) in answers and (True, False) in answers  # both paths are exercised
