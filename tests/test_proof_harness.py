"""Test the tests: the proof harness must catch a rule that is wrong.

Rules broken on purpose (a copy of the real rule book with ``act`` dropped, with
cross_entropy's ``use_softmax=False`` removed, with the dropout modes swapped) must be
reported as not proven, while the intact rule book proves the same cases. The rest checks
the machinery: example programs, the batch driver's isolation, comparison, staleness.
"""
import copy
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from proof import cases as proof_cases  # noqa: E402
from proof import runner, snippets  # noqa: E402
from upgrader.rulebook import ArgSpec, load  # noqa: E402

LEGACY = runner.LEGACY_PYTHON


def needs_legacy():
    if not LEGACY.exists():
        if os.environ.get("PADDLE_UPGRADE_REQUIRE_LEGACY", "") not in ("", "0"):
            pytest.fail(f"{LEGACY} is required (PADDLE_UPGRADE_REQUIRE_LEGACY)")
        pytest.skip(".venv-legacy (Paddle 1.8.5) is not installed")


# -- example programs ---------------------------------------------------------------------

@pytest.mark.parametrize("src", ["rand(2, 3)", "rand((2, 3))", "randn(4)", "rand(2, dtype='float64')",
                                 "randint(0, 5, (4, 1))", "randint(-3, 3, 6)",
                                 "softmax(rand(4, 5))", "softmax(randn(2, 3), axis=0)",
                                 "const(1.5, (2, 2))", "const(7, [3], 'int32')"])
def test_generators_compile_to_numpy(src):
    import numpy as np

    expr, _ = snippets.generator_source(src)
    ns = {"np": np, "_rs": np.random.RandomState(0)}
    exec(snippets.SOFTMAX_SOURCE, ns)
    arr = eval(expr, ns)
    assert isinstance(arr, np.ndarray)


@pytest.mark.parametrize("src", ["rand(x)", "uniform(2, 3)", "rand(2, -1)", "randint(0, 5)",
                                 "rand(2, dtype=3)", "2 +", "softmax(1)", "const(1.0)"])
def test_bad_generators_are_rejected(src):
    with pytest.raises(snippets.ExampleError):
        snippets.generator_source(src)


EXAMPLE = {"inputs": {"x": "rand(2, 3)", "y": "softmax(randn(2, 3))", "i": "randint(0, 3, (2, 1))"},
           "code": "out = fluid.layers.elementwise_add(x, y)\nidx = i"}


@pytest.mark.parametrize("mode", snippets.MODES)
def test_programs_parse_and_use_only_the_documented_scaffolding(mode):
    import ast

    text = snippets.program(EXAMPLE, mode)
    tree = ast.parse(text)
    used = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute):
            parts = []
            n = node
            while isinstance(n, ast.Attribute):
                parts.append(n.attr)
                n = n.value
            if isinstance(n, ast.Name) and n.id == "fluid":
                used.add("paddle.fluid." + ".".join(reversed(parts)))
    used = {u for u in used if not u.startswith("paddle.fluid.layers")}
    # every legacy API the template runs is listed (so the report can count it proven)
    listed = set(snippets.SCAFFOLDING[mode])
    assert {u for u in used if not any(l.startswith(u + ".") for l in listed)} <= listed


def test_example_modes_default_from_the_entry_mode():
    assert snippets.example_modes({}, "any") == ["dygraph", "static"]
    assert snippets.example_modes({}, "static") == ["static"]
    assert snippets.example_modes({"modes": ["dygraph"]}, "any") == ["dygraph"]
    with pytest.raises(snippets.ExampleError):
        snippets.example_modes({"modes": ["eager"]})


def test_inputs_are_identical_on_legacy_and_modern_numpy(tmp_path):
    needs_legacy()
    text = snippets.program(EXAMPLE, "dygraph")
    prelude = text.split("with fluid.dygraph.guard():")[0].replace("import paddle.fluid as fluid\n", "")
    script = tmp_path / "inputs.py"
    script.write_text(prelude + "_emit([x_np, y_np, i_np], (x_np, y_np, i_np))\n")
    outs = [subprocess.run([py, str(script)], capture_output=True, text=True, check=True).stdout
            for py in (str(LEGACY), runner.modern_python())]
    legacy, modern = (snippets.parse_output(o) for o in outs)
    assert legacy["inputs_digest"] == modern["inputs_digest"]
    assert snippets.compare(legacy, modern, 0.0, 0.0) is None


# -- comparison -----------------------------------------------------------------------------

def _payload(values, dtype="float32", shape=None, sequence=False):
    import numpy as np

    a = np.asarray(values, dtype=dtype)
    return {"sequence": sequence, "inputs_digest": "d",
            "outputs": [{"shape": list(shape if shape is not None else a.shape),
                         "dtype": dtype, "values": a.tolist()}]}


def test_compare_reports_shape_dtype_and_value_differences():
    base = _payload([[1.0, 2.0]])
    assert snippets.compare(base, _payload([[1.0, 2.0 + 1e-7]])) is None
    assert "shape" in snippets.compare(_payload([3.0]), _payload(3.0))
    assert "dtype" in snippets.compare(base, _payload([[1, 2]], "int64"))
    assert "values differ" in snippets.compare(base, _payload([[1.0, 2.1]]))
    assert "list/tuple" in snippets.compare(base, _payload([[1.0, 2.0]], sequence=True))
    assert snippets.compare(base, _payload([[1.0, 2.1]]), rtol=0.1) is None
    nan = _payload([float("nan")])
    assert snippets.compare(nan, _payload([float("nan")])) is None
    assert snippets.compare(_payload([True], "bool"), _payload([False], "bool"))
    other_inputs = dict(base, inputs_digest="e")
    assert "inputs differ" in snippets.compare(base, other_inputs)


# -- the batch driver -----------------------------------------------------------------------

def plain(k, extra=""):
    """A program emitting ``arange(6).reshape(2, 3) * k`` without Paddle."""
    return ("import json\nimport numpy as np\nimport hashlib\n\n" + snippets.EMIT_SOURCE
            + "\nout = np.arange(6).reshape(2, 3) * %d\n%s_emit(out)\n" % (k, extra))


def test_batch_isolates_failures_crashes_and_mode(tmp_path):
    items = [
        ("a", "dygraph", plain(1)),
        ("boom", "dygraph", "raise ValueError('example is wrong')\n"),
        ("silent", "dygraph", "x = 1\n"),
        ("static", "dygraph", "import paddle\npaddle.enable_static()\n" + plain(0)),
        ("mode", "dygraph", "import paddle\n" + plain(1, "out = np.asarray(paddle.in_dynamic_mode())\n")),
        ("exit", "dygraph", "import sys\nsys.exit(3)\n"),
        ("crash", "dygraph", "import os\nos._exit(7)\n"),
        ("b", "dygraph", plain(2)),
    ]
    env, recs = runner.run_programs(runner.rewrite_engine(), items, cache=False)
    assert env["paddle"][0] >= "2"
    assert recs["a"]["ok"] and recs["a"]["result"]["outputs"][0]["values"] == [[0, 1, 2], [3, 4, 5]]
    assert not recs["boom"]["ok"] and "ValueError: example is wrong" in recs["boom"]["error"]
    assert "no result" in recs["silent"]["error"]
    # one program's enable_static does not leak into the next one
    assert recs["mode"]["result"]["outputs"][0]["values"] is True
    assert not recs["exit"]["ok"] and "SystemExit" in recs["exit"]["error"]
    assert recs["crash"].get("died") and "exit code 7" in recs["crash"]["error"]
    assert recs["b"]["ok"] and recs["b"]["result"]["outputs"][0]["values"][1] == [6, 8, 10]


def test_batch_result_equals_a_standalone_run(tmp_path):
    text = plain(3)
    script = tmp_path / "prog.py"
    script.write_text(text)
    alone = snippets.parse_output(subprocess.run(
        [runner.modern_python(), str(script)], capture_output=True, text=True, check=True).stdout)
    _, recs = runner.run_programs(runner.rewrite_engine(), [("p", "static", text)], cache=False)
    assert recs["p"]["result"] == alone


def test_legacy_names_ignores_comments_and_strings():
    code = "import paddle\n# fluid.layers.fc\ns = 'fluid'\ny = fluid.layers.fc(x)\n"
    assert runner.legacy_names(code) == [(4, "y = fluid.layers.fc(x)")]


# -- goldens ----------------------------------------------------------------------------------

def _entry_with(example, name="paddle.fluid.layers.reduce_sum"):
    book = load()
    entry = copy.deepcopy(book.lookup(name)) if book.lookup(name) else None
    if entry is None:
        from upgrader.rulebook import Entry
        entry = Entry(name=name, file="x.toml", target="paddle.sum")
    entry.example = example
    return entry


def test_a_changed_example_makes_the_golden_stale(tmp_path, monkeypatch):
    monkeypatch.setattr(proof_cases, "GOLDENS", tmp_path)
    ex = {"inputs": {"x": "rand(2, 3)"}, "code": "out = fluid.layers.reduce_sum(x)",
          "modes": ["static"]}
    (case,) = proof_cases.cases_for(_entry_with(ex))
    assert proof_cases.golden_status(case) == "missing"
    fake = {"ok": True, "result": _payload([1.0])}
    proof_cases.write_golden(case, proof_cases.golden_record(case, fake, {"paddle": "1.8.5"}))
    assert proof_cases.golden_status(case) == "ok"
    assert json.loads(case.golden_path.read_text())["result"] == fake["result"]
    (changed,) = proof_cases.cases_for(_entry_with(dict(ex, code="out = fluid.layers.reduce_sum(x, dim=0)")))
    assert proof_cases.golden_status(changed) == "stale"
    verdict = runner.judge(changed, proof_cases.load_golden(changed), {})
    assert "stale" in verdict.problems[0]
    assert proof_cases.orphan_goldens([]) == [case.golden_path]


def test_a_rule_without_golden_says_how_to_record_it(tmp_path, monkeypatch):
    monkeypatch.setattr(proof_cases, "GOLDENS", tmp_path)
    ex = {"inputs": {"x": "rand(2, 3)"}, "code": "out = fluid.layers.reduce_sum(x)"}
    verdicts = runner.prove(proof_cases.cases_for(_entry_with(ex)))
    for v in verdicts.values():
        assert v.problems == ["no golden recorded: run make goldens-rules"]


# -- rules broken on purpose ------------------------------------------------------------------
#
# Each mutation is applied to a copy of the rule book; all mutated entries share one copy
# (a program only uses its own entry), so one batch per engine and mode runs them all.

BOOK = load()


def _uses_act(e):
    # a function whose act= the entry's data handles (layer classes go through a fixer)
    return (e.kind == "function" and not e.structural
            and any(spec.act for spec in e.args.values())
            and "act=" in (e.example or {}).get("code", ""))


def _drop_act(e):
    for pname, spec in list(e.args.items()):
        if spec.act:
            e.args[pname] = ArgSpec(drop=True)


def _no_use_softmax(e):
    e.extra.pop("use_softmax")


def _swap_dropout_modes(e):
    spec = e.args["dropout_implementation"]
    spec.values = {"'downgrade_in_infer'": "'upscale_in_train'",
                   "'upscale_in_train'": "'downscale_in_infer'"}
    if spec.default:
        spec.default = "'upscale_in_train'"


MUTATIONS = [  # (id, which entries, how to break them, engines that must notice)
    # compat applies act= itself (not from the entry's flag): only the rewrite reads it
    ("act-dropped", _uses_act, _drop_act, ("rewrite",)),
    ("cross_entropy-softmax-again",
     lambda e: e.name == "paddle.fluid.layers.cross_entropy" and "use_softmax" in e.extra,
     _no_use_softmax, ("rewrite", "compat")),
    ("dropout-modes-swapped",
     lambda e: e.name == "paddle.fluid.layers.dropout" and "dropout_implementation" in e.args,
     # compat runs fix's _fluid_dropout (upgrader/fixers/static_dropout.py), which maps
     # the modes in its own text: only the plain rewrite of static-only modules reads them
     _swap_dropout_modes, ("rewrite",)),
]
ENGINES = {m[0]: m[3] for m in MUTATIONS}

TARGETS = [(m[0], e.name) for m in MUTATIONS
           for e in sorted(BOOK, key=lambda e: e.name) if e.automatic and e.example and m[1](e)]


@pytest.fixture(scope="module")
def mutation_verdicts():
    """{(mutation, entry): (intact verdicts, broken verdicts)} for every target at once."""
    broken = copy.deepcopy(BOOK)
    for mid, name in TARGETS:
        dict((m[0], m[2]) for m in MUTATIONS)[mid](broken.entries[name])
    intact_cases = [c for _, n in TARGETS for c in proof_cases.cases_for(BOOK.entries[n])]
    broken_cases = [c for _, n in TARGETS for c in proof_cases.cases_for(broken.entries[n])]
    intact = runner.prove(intact_cases)
    mutated = runner.prove(broken_cases, book=broken)
    return {(mid, n): ([intact[c.key] for c in proof_cases.cases_for(BOOK.entries[n])],
                       [mutated[c.key] for c in proof_cases.cases_for(broken.entries[n])])
            for mid, n in TARGETS}


def _passes(verdict, engine):
    # no record at all when the golden itself is missing, stale or failing
    return verdict.records.get(engine, {}).get("ok") and not any(
        p.startswith(engine + ":") for p in verdict.problems)


def _mismatch(verdict, engine):
    return any(p.startswith(engine + ":") and any(k in p for k in ("differ", "shape", "dtype"))
               for p in verdict.problems)


@pytest.mark.parametrize("mutation", [m[0] for m in MUTATIONS])
def test_each_mutation_has_a_target(mutation):
    if not any(mid == mutation for mid, _ in TARGETS):
        pytest.skip(f"no rule entry with an example to break ({mutation})")


@pytest.mark.parametrize("mutation,name", TARGETS,
                         ids=[f"{m}:{n[len('paddle.'):]}" for m, n in TARGETS])
def test_a_rule_broken_on_purpose_is_not_proven(mutation, name, mutation_verdicts):
    intact, broken = mutation_verdicts[(mutation, name)]
    checked = 0
    for engine in ENGINES[mutation]:
        pairs = [(i, b) for i, b in zip(intact, broken) if _passes(i, engine)]
        if not pairs:
            continue  # not proven even intact on this engine: tests/test_proof.py says why
        checked += 1
        assert any(_mismatch(b, engine) for _, b in pairs), (
            f"{name} broken on purpose ({mutation}) still matches Paddle 1.8.5 on {engine} in "
            f"{', '.join(i.case.mode for i, _ in pairs)} mode: its example does not exercise "
            f"what the mutation breaks (e.g. act='relu' on inputs that are all positive: use "
            f"randn). Broken verdicts: {[b.problems for _, b in pairs]}")
    if not checked:
        pytest.skip(f"{name} is not proven even intact (see tests/test_proof.py): "
                    f"{intact[0].problems[:1]}")


# -- golden re-verification -----------------------------------------------------------------

def test_verify_reruns_a_disagreeing_case_alone_and_reports_only_a_lasting_one(monkeypatch):
    """A batch of 1.8.5 runs shares one interpreter on a loaded machine: a case that
    disagrees with its golden there is re-run alone, and reported only if it disagrees
    again (a 1.8.5 DataLoader example once failed so in CI, then passed alone)."""
    from proof import record
    book = load()
    (case,) = [c for c in proof_cases.cases_for(book.lookup("paddle.fluid.layers.relu"))
               if c.mode == "static"]
    golden = proof_cases.load_golden(case)
    good = {"ok": True, "result": golden["result"]}
    bad = {"ok": False, "error": "RuntimeError: reader timed out"}
    env = {"paddle": "1.8.5"}
    runs = []

    def fake(cases, python=None, version="1.8"):
        runs.append([c.key for c in cases])
        return env, {c.key: (bad if len(runs) in failing else good) for c in cases}

    monkeypatch.setattr(record, "run_legacy", fake)
    failing = {1}  # the batch only
    assert record.verify([case]) == [] and runs == [[case.key], [case.key]]
    runs.clear()
    failing = {1, 2}  # the batch and alone
    (problem,) = record.verify([case])
    assert case.key in problem and "reader timed out" in problem
    runs.clear()
    failing = set()
    assert record.verify([case]) == [] and len(runs) == 1  # no re-run when all agree


def test_record_reruns_a_case_that_fails_in_its_batch_alone(monkeypatch, tmp_path):
    from proof import record
    book = load()
    cases = [c for name in ("paddle.fluid.layers.relu", "paddle.fluid.layers.sigmoid")
             for c in proof_cases.cases_for(book.lookup(name)) if c.mode == "static"]
    written = {}
    monkeypatch.setattr(record, "write_golden", lambda c, g: written.__setitem__(c.key, g))
    monkeypatch.setattr(record, "orphan_goldens", lambda cases: [])
    calls = []

    def fake(group, python=None, version="1.8"):
        calls.append(len(group))
        first = len(calls) == 1
        return {"paddle": "1.8.5"}, {c.key: ({"ok": False, "error": "killed"} if first and c is cases[0]
                                             else {"ok": True, "result": {"outputs": [], "sequence": False}})
                                     for c in group}

    monkeypatch.setattr(record, "run_legacy", fake)
    counts = record.record(cases, everything=True, out=open(os.devnull, "w"))
    assert calls == [2, 1] and counts["failing_on_1.8.5"] == 0
    assert written[cases[0].key]["ok"] and written[cases[1].key]["ok"]
