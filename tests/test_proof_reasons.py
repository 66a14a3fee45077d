"""Every automatic rule the proof cannot prove is reported with its reason.

- ``differs``: an unsafe entry's example declares the modes where the rewrite is known not
  to reproduce 1.8.5; the run must confirm it (else the note is stale);
- ``unprovable``: an unsafe entry's example says why it cannot run here;
- not in Paddle 1.8.5: no name of the entry resolves on the legacy engine, as probed by
  ``make goldens-rules`` (``fixtures/goldens/legacy_names.json``).
"""
import copy
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from proof import cases as proof_cases  # noqa: E402
from proof import legacy_names, report, runner, snippets  # noqa: E402
from upgrader.rulebook import RuleBook, load  # noqa: E402

BOOK = load()
CODE = "out = fluid.layers.scale(x, scale=2.0)"


def _entry(name="paddle.fluid.layers.scale", **changes):
    e = copy.copy(BOOK.lookup(name))
    for k, v in changes.items():
        setattr(e, k, v)
    return e


def _payload(*values):
    return {"sequence": False, "inputs_digest": "d",
            "outputs": [{"shape": [len(values)], "dtype": "float32", "values": list(values)}]}


def _golden(case, result):
    return {"ok": True, "result": result, "example_digest": case.example_digest,
            "program_digest": case.program_digest}


def _case(mode="static", **entry_changes):
    example = {"inputs": {"x": "randn(2, 3)"}, "code": CODE, "modes": ["dygraph", "static"],
               "differs": {"static": "why it differs"}}
    example.update(entry_changes.pop("example", {}))
    entry = _entry(example=example, **entry_changes)
    return next(c for c in proof_cases.cases_for(entry) if c.mode == mode)


def _judge(case, rewrite, compat=None):
    golden = _golden(case, _payload(1.0, 2.0))
    records = {"rewrite": rewrite, "compat": compat or {"ok": True, "result": _payload(1.0, 2.0)}}
    return runner.judge(case, golden, records)


# -- differs ------------------------------------------------------------------------------

def test_differs_string_covers_every_mode_of_the_example():
    e = _entry(example={"code": CODE, "modes": ["dygraph", "static"], "differs": "why"})
    assert proof_cases.differs(e) == {"dygraph": "why", "static": "why"}
    e = _entry(example={"code": CODE, "differs": {"static": "why"}})
    assert proof_cases.differs(e) == {"static": "why"}
    assert proof_cases.differs(_entry(example={"code": CODE})) == {}


def test_a_confirmed_difference_is_neither_proven_nor_a_problem():
    case = _case(safety="unsafe")
    v = _judge(case, {"ok": True, "result": _payload(1.0, 3.0)})
    assert v.difference_confirmed and not v.proven and not v.problems
    assert v.documented and v.documented[0].startswith("rewrite:")


def test_a_rewrite_that_fails_confirms_the_difference_too():
    v = _judge(_case(safety="unsafe"), {"ok": False, "error": "ValueError: boom"})
    assert v.difference_confirmed and "boom" in v.documented[0]


def test_a_difference_that_no_longer_shows_is_a_problem():
    v = _judge(_case(safety="unsafe"), {"ok": True, "result": _payload(1.0, 2.0)})
    assert not v.proven and not v.difference_confirmed
    assert "no longer shows" in v.problems[0]


def test_only_unsafe_entries_may_declare_a_difference():
    v = _judge(_case(safety="safe"), {"ok": True, "result": _payload(1.0, 3.0)})
    assert not v.proven and "not unsafe" in v.problems[0]


def test_the_other_modes_are_judged_as_usual():
    case = _case(mode="dygraph", safety="unsafe")
    assert case.difference == ""
    assert _judge(case, {"ok": True, "result": _payload(1.0, 2.0)}).proven
    v = _judge(case, {"ok": True, "result": _payload(1.0, 3.0)})
    assert not v.proven and v.problems[0].startswith("rewrite:")


def test_the_report_lists_confirmed_differences_apart_from_failures():
    case = _case(safety="unsafe")
    other = _case(mode="dygraph", safety="unsafe")
    verdicts = {case.key: _judge(case, {"ok": True, "result": _payload(1.0, 3.0)}),
                other.key: _judge(other, {"ok": True, "result": _payload(1.0, 2.0)})}
    rep = report.build(verdicts, [], BOOK)
    f = rep["files"][case.entry.file]
    assert case.entry.short in f["documented"] and case.entry.short not in f["failing"]
    assert f["documented"][case.entry.short]["static"][0] == "why it differs"
    assert rep["summary"]["documented"] >= 1
    assert not report.engine_ok(verdicts[case.key], "rewrite")


# -- unprovable and not in 1.8.5 -----------------------------------------------------------

def test_unprovable_entries_are_collected_as_missing_not_as_invalid_cases():
    e = _entry(safety="unsafe", example={"unprovable": "needs a cluster"})
    book = RuleBook({e.name: e}, {}, "digest")
    cases, missing = proof_cases.collect(book)
    assert cases == [] and missing == [e]
    assert proof_cases.unprovable(e) == "needs a cluster"
    # with code the example runs, whatever else it says
    assert proof_cases.unprovable(_entry(example={"code": CODE, "unprovable": "x"})) == ""


def test_the_report_gives_each_entry_without_example_its_reason(monkeypatch):
    unprov = _entry("paddle.fluid.layers.scale", safety="unsafe",
                    example={"unprovable": "needs a cluster"})
    safe_unprov = _entry("paddle.fluid.layers.relu", example={"unprovable": "needs a cluster"})
    absent = _entry("paddle.fluid.layers.sigmoid", example=None, aliases=["paddle.fluid.x.y"])
    plain = _entry("paddle.fluid.layers.tanh", example=None, aliases=[])
    monkeypatch.setattr(legacy_names, "load", lambda path=None: {
        absent.name: False, "paddle.fluid.x.y": False, plain.name: True})
    rep = report.build({}, [unprov, safe_unprov, absent, plain], BOOK)
    f = rep["files"][unprov.file]
    assert f["unprovable"] == {unprov.short: "needs a cluster"}
    assert f["not_in_1_8_5"] == [absent.short]
    # a safe entry must be proven: "cannot run here" is no excuse for it
    assert sorted(f["missing_example"]) == sorted([safe_unprov.short, plain.short])


def test_absent_needs_every_name_probed_and_none_resolving():
    e = _entry(aliases=["paddle.fluid.a.b"])
    assert legacy_names.absent(e, {e.name: False, "paddle.fluid.a.b": False}) is True
    assert legacy_names.absent(e, {e.name: False, "paddle.fluid.a.b": True}) is False
    assert legacy_names.absent(e, {e.name: False}) is None


def test_the_probe_program_reports_a_payload_the_driver_reads():
    text = legacy_names.probe_program(["paddle.fluid.layers.relu"])
    assert snippets.RESULT_PREFIX in text and "paddle.fluid.layers.relu" in text
    compile(text, "<probe>", "exec")


def test_probe_on_real_paddle_1_8_5():
    if not runner.LEGACY_PYTHON.exists():
        pytest.skip(".venv-legacy (Paddle 1.8.5) is not installed")
    names = ["paddle.fluid.layers.relu", "paddle.fluid.layers.cosh",
             "paddle.fluid.dygraph.jit.save", "paddle.fluid.core.CPUPlace"]
    _, recs = runner.run_programs(runner.legacy_engine(),
                                  [("probe", "static", legacy_names.probe_program(names))],
                                  cache=False)
    got = recs["probe"]["result"]["names"]
    assert got["paddle.fluid.layers.relu"] is True and got["paddle.fluid.core.CPUPlace"] is True
    assert got["paddle.fluid.layers.cosh"] is False
    assert got["paddle.fluid.dygraph.jit.save"] is False


# -- the rule book --------------------------------------------------------------------------

def test_every_entry_without_example_was_probed_on_1_8_5():
    _, missing = proof_cases.collect(BOOK)
    recorded = legacy_names.load()
    unprobed = [e.short for e in missing if legacy_names.absent(e, recorded) is None
                and not proof_cases.unprovable(e)]
    assert not unprobed, "run make goldens-rules: " + ", ".join(unprobed[:20])


def test_every_automatic_entry_has_an_example_or_a_reason():
    """make proof's 'missing example' column stays empty: an automatic rule without an
    example is proven by the scaffolding of every example, or is unsafe with an
    unprovable reason, or names something 1.8.5 does not have."""
    _, missing = proof_cases.collect(BOOK)
    recorded = legacy_names.load()
    lacking = [e.short for e in missing
               if not report.scaffolding_modes(e, BOOK)
               and not (proof_cases.unprovable(e) and e.safety == "unsafe")
               and not legacy_names.absent(e, recorded)]
    assert not lacking, "add an example to: " + ", ".join(lacking)


def test_only_unsafe_entries_declare_differs_or_unprovable():
    wrong = [e.name for e in BOOK if e.automatic and e.example
             and (e.example.get("differs") or e.example.get("unprovable"))
             and e.safety != "unsafe"]
    assert not wrong, wrong


# -- names first in 2.0: recorded on Paddle 2.0.2 (example engine = "2.0") -----------------

def test_an_example_can_name_the_2_0_engine():
    e = _entry(example={"inputs": {"x": "randn(2, 3)"}, "code": CODE, "engine": "2.0"})
    (dy, st) = proof_cases.cases_for(e)
    assert dy.engine == st.engine == "2.0" and not dy.invalid
    plain = proof_cases.cases_for(_entry(example={"inputs": {"x": "randn(2, 3)"}, "code": CODE}))
    assert plain[0].engine == "1.8" and plain[0].example_digest != dy.example_digest
    bad = proof_cases.cases_for(_entry(example={"code": CODE, "engine": "1.7"}))
    assert all("unknown engine" in c.invalid for c in bad)
    assert runner.legacy_engine(version="2.0").python == str(runner.LEGACY20_PYTHON)
    assert "enable_static" in runner.legacy_engine(version="2.0").static_setup
    assert not runner.legacy_engine().static_setup


def test_a_golden_from_another_engine_is_stale():
    e = _entry(example={"inputs": {"x": "randn(2, 3)"}, "code": CODE, "engine": "2.0"})
    case = proof_cases.cases_for(e)[0]
    golden = _golden(case, _payload(1.0))
    assert proof_cases.golden_status(case, dict(golden, recorded_with={"paddle": "2.0.2"})) == "ok"
    assert proof_cases.golden_status(case, dict(golden, recorded_with={"paddle": "1.8.5"})) == "stale"


def test_examples_on_the_2_0_engine_name_what_1_8_5_lacks():
    """engine = "2.0" only for entries none of whose names resolves on 1.8.5 (probed by
    make goldens-rules); everything 1.8.5 has is proven against 1.8.5."""
    recorded = legacy_names.load()
    cases, _ = proof_cases.collect(BOOK)
    wrong = sorted({c.entry.short for c in cases
                    if c.engine == "2.0" and legacy_names.absent(c.entry, recorded) is not True})
    assert not wrong, "on 1.8.5 (or never probed: make goldens-rules): " + ", ".join(wrong)


def test_parameter_server_reason_still_holds_for_the_installed_paddle():
    """The parameter-server fleet methods are manual because no rewrite of them can be
    proven: today's CPU wheel has no parameter-server core. When an installed Paddle gains
    it, this fails: prove them then (a 1.8.5 server and worker on localhost run, with the
    results of plain local SGD) and make them automatic."""
    cited = [e.short for e in BOOK.entries.values()
             if "DistFleetWrapper" in (e.note or "") and e.safety == "manual"]
    assert len(cited) >= 6, "the parameter-server fleet methods no longer cite the missing core"
    paddle = pytest.importorskip("paddle")
    from paddle.base import libpaddle
    present = [n for n in ("DistFleetWrapper", "PSHost", "CommContext") if hasattr(libpaddle, n)]
    assert not present, (f"Paddle {paddle.__version__} has {present}: the reason given for "
                         f"{cited} no longer holds")


# -- both modes, or why one ----------------------------------------------------------------

def test_examples_of_both_mode_apis_run_both_modes_or_say_why():
    """An automatic rule of an API that runs in dynamic and static mode (entry mode "any")
    is proven in both, or its example's ``modes_why`` says why one mode is not run (1.8.5
    rejects it, the API is bound to one mode, another proof covers it). ``make proof``
    lists them."""
    automatic = [e for e in BOOK if e.automatic]
    one = report.one_mode(automatic)
    lacking = sorted(n for n, why in one.items() if not why.strip())
    assert not lacking, "run both modes or add modes_why to the example of: " + ", ".join(lacking)
    stray = sorted(e.short for e in automatic if (e.example or {}).get("modes_why")
                   and e.short not in one)
    assert not stray, "modes_why on an example that runs every mode of its API: " + ", ".join(stray)


def test_one_mode_report_reads_modes_why():
    e = _entry(example={"inputs": {"x": "randn(2, 3)"}, "code": CODE, "modes": ["static"],
                        "modes_why": "static only"})
    both = _entry(example={"inputs": {"x": "randn(2, 3)"}, "code": CODE})
    assert report.one_mode([e, both]) == {e.short: "static only"}
    assert report.one_mode([_entry(example={"code": CODE, "modes": ["dygraph"]})]) == \
        {e.short: ""}


def test_an_example_can_give_one_mode_its_own_code():
    ex = {"inputs": {"x": "randn(2, 3)"}, "code": CODE, "static_code": "out = x"}
    assert "out = x" in snippets.program(ex, "static")
    assert CODE in snippets.program(ex, "dygraph") and "out = x\n" not in snippets.program(ex, "dygraph")
    plain = {"inputs": {"x": "randn(2, 3)"}, "code": CODE}
    assert snippets.example_digest(ex, "dygraph") == snippets.example_digest(plain, "dygraph")
    assert snippets.example_digest(ex, "static") != snippets.example_digest(plain, "static")
