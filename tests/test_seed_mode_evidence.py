"""A program's ``random_seed`` set through ``default_main_program()`` /
``default_startup_program()`` is the seeding idiom of both 1.8 modes (the dygraph models set
it in their guard, and fix keeps the startup one as ``paddle.static.default_startup_program()``):
it is no static-graph evidence for the module mode survey (fixers/static_dropout.py), so a
dygraph module that seeds this way is still dygraph-only, before and after fix."""
from pathlib import Path

from upgrader import upgrade_source
from upgrader.fixers import static_dropout

CASE = Path(__file__).resolve().parent.parent / "fixtures" / "PU104" / "seeded_dygraph_modes.in.py"


def _modes(source):
    seen = []
    survey = static_dropout._survey

    def spy(up):
        got = survey(up)
        seen.append(got)
        return got

    static_dropout._survey = spy
    try:
        upgrade_source(source, fix=False)
    finally:
        static_dropout._survey = survey
    return seen


def test_seeded_dygraph_module_is_dygraph_only_before_and_after_fix():
    src = CASE.read_text()
    out = upgrade_source(src).code
    assert "paddle.static.default_startup_program().random_seed" in out
    for code in (src, out):
        assert set(_modes(code)) == {(False, True)}


def test_layers_decay_note_names_dygraph_mode_after_fix():
    out = upgrade_source(CASE.read_text()).code
    notes = [f.message for f in upgrade_source(out, fix=False).findings
             if f.code == "PU104" and "piecewise_decay" in f.message]
    assert notes and all("called in dygraph mode" in m for m in notes), notes
