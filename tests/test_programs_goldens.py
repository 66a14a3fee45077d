"""The bundled legacy programs (fixtures/programs/) and their goldens from real Paddle 1.8.5.

Needs no modern Paddle. The ``legacy`` tests re-run every program on Paddle 1.8.5 and
compare with its golden; they run when a legacy interpreter is found
(``PADDLE_UPGRADE_LEGACY_PYTHON``, else ``.venv-legacy/bin/python``, else this
interpreter if it is Python 3.7 with paddle 1.8.5). Without one they skip, or fail when
``PADDLE_UPGRADE_REQUIRE_LEGACY=1`` (CI must not pass without checking).
"""
import ast
import importlib.util
import json
import math
import os
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PROGRAMS = ROOT / "fixtures" / "programs"
GOLDENS = PROGRAMS / "goldens"
ENGINE = "paddlepaddle 1.8.5"


def _load(name):
    spec = importlib.util.spec_from_file_location(name, ROOT / "tools" / (name + ".py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


program_result = _load("program_result")

NAMES = sorted(p.stem for p in PROGRAMS.glob("*.py") if not p.name.startswith("_"))
legacy = pytest.mark.legacy


def _golden(name):
    return json.loads((GOLDENS / (name + ".json")).read_text())


# -- the set of programs -----------------------------------------------------------------

def test_there_are_enough_programs():
    assert len(NAMES) >= 12, NAMES


@pytest.mark.parametrize("name", NAMES)
def test_every_program_has_a_golden(name):
    assert (GOLDENS / (name + ".json")).is_file(), (
        "no golden for %s.py: run `make goldens-programs`" % name)


def test_every_golden_has_a_program():
    orphans = sorted(p.name for p in GOLDENS.glob("*.json") if p.stem not in NAMES)
    assert not orphans, "goldens without program (run `make goldens-programs`): %s" % orphans


def test_readme_lists_every_program():
    readme = (PROGRAMS / "README.md").read_text()
    missing = [n for n in NAMES if "`%s.py`" % n not in readme]
    assert not missing, "fixtures/programs/README.md does not list: %s" % missing


# -- the programs themselves ---------------------------------------------------------------

def _tree(name):
    source = (PROGRAMS / (name + ".py")).read_text()
    # 1.8.5 only runs on Python <= 3.7: the programs must parse as 3.7 code.
    return ast.parse(source, filename=name + ".py", feature_version=(3, 7))


def _dotted(node):
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        parts.append(node.id)
        return ".".join(reversed(parts))
    return None


@pytest.mark.parametrize("name", NAMES)
def test_program_is_a_documented_legacy_program(name):
    tree = _tree(name)
    assert ast.get_docstring(tree), "%s.py needs a module docstring saying what it exercises" % name
    imported = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            imported.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            imported.add(node.module)
            imported.update(node.module + "." + alias.name for alias in node.names)
    assert any(m == "paddle.fluid" or m.startswith("paddle.fluid.") for m in imported), (
        "%s.py does not import paddle.fluid" % name)
    functions = {n.name for n in tree.body if isinstance(n, ast.FunctionDef)}
    assert "report" in functions, "%s.py must define its own report(name, value)" % name


# Calls that draw from a global, unseeded random state (results would not be comparable).
UNSEEDED = {"np.random.rand", "np.random.randn", "np.random.randint", "np.random.uniform",
            "np.random.normal", "np.random.random", "np.random.choice", "np.random.shuffle",
            "np.random.permutation", "np.random.seed", "random.random", "random.randint",
            "random.choice", "random.uniform", "fluid.initializer.Normal",
            "fluid.initializer.Uniform", "fluid.initializer.Xavier", "fluid.initializer.MSRA",
            "fluid.initializer.NormalInitializer", "fluid.initializer.UniformInitializer",
            "fluid.initializer.XavierInitializer", "fluid.initializer.MSRAInitializer",
            "fluid.initializer.TruncatedNormal"}


# Programs that draw random initial parameters on purpose and report only what the
# initializers' arguments decide (ranges, spreads, truncation: booleans that hold with
# overwhelming probability on any generator), never the drawn values.
DISTRIBUTION_FACTS = {"api_sweep_initializers"}


def test_distribution_fact_programs_exist():
    """The exemption below names real programs (a renamed one must not escape the check)."""
    assert DISTRIBUTION_FACTS <= set(NAMES)


@pytest.mark.parametrize("name", [n for n in NAMES if n not in DISTRIBUTION_FACTS])
def test_program_uses_no_unseeded_randomness(name):
    offenders = []
    for node in ast.walk(_tree(name)):
        if isinstance(node, ast.Call) and _dotted(node.func) in UNSEEDED:
            offenders.append("line %d: %s" % (node.lineno, _dotted(node.func)))
    assert not offenders, "%s.py: %s" % (name, "; ".join(offenders))


# -- golden files ------------------------------------------------------------------------------

@pytest.mark.parametrize("name", NAMES)
def test_golden_is_well_formed(name):
    path = GOLDENS / (name + ".json")
    if not path.is_file():
        pytest.fail("no golden for %s.py: run `make goldens-programs`" % name)
    data = json.loads(path.read_text())
    assert set(data) == {"engine", "program", "results"}
    assert data["engine"] == ENGINE
    assert data["program"] == name + ".py"
    results = data["results"]
    assert results, "empty golden"
    for key, record in results.items():
        assert key and " " not in key
        assert set(record) == {"shape", "dtype", "values"}, key
        assert all(isinstance(d, int) and d >= 0 for d in record["shape"]), key
        assert len(record["values"]) == math.prod(record["shape"]), key
        assert isinstance(record["dtype"], str) and record["dtype"], key
        for value in record["values"]:
            assert isinstance(value, (bool, int, float)), (key, value)
            if isinstance(value, float):  # inf is a result (an AMP overflow step); NaN is not
                assert not math.isnan(value), (key, value)


# -- program_result helpers -----------------------------------------------------------------

def _record(values, shape=None, dtype="float32"):
    return {"shape": [len(values)] if shape is None else shape, "dtype": dtype, "values": values}


def test_parse_results_reads_result_lines_only():
    out = ("noise\nRESULT a %s\nRESULT b %s\nnot RESULT c {}\n"
           % (json.dumps(_record([1.0, 2.0])), json.dumps(_record([True], [], "bool"))))
    parsed = program_result.parse_results(out)
    assert sorted(parsed) == ["a", "b"]
    assert parsed["a"]["values"] == [1.0, 2.0]
    assert parsed["b"]["shape"] == []


@pytest.mark.parametrize("bad", [
    "RESULT a",
    "RESULT a {not json}",
    'RESULT a {"shape": [2], "dtype": "float32", "values": [1.0]}',
    'RESULT a {"shape": [], "values": [1.0]}',
])
def test_parse_results_rejects_malformed_lines(bad):
    with pytest.raises(ValueError):
        program_result.parse_results(bad)


def test_parse_results_rejects_duplicate_names():
    line = "RESULT a %s\n" % json.dumps(_record([1.0]))
    with pytest.raises(ValueError, match="twice"):
        program_result.parse_results(line * 2)


def test_compare_tolerances():
    golden = {"x": _record([1.0, 100.0, 0.0])}
    assert program_result.compare(golden, {"x": _record([1.0 + 5e-6, 100.0 + 9e-4, 9e-7])}) == []
    diffs = program_result.compare(golden, {"x": _record([1.0, 100.0 + 2e-3, 0.0])})
    assert diffs and diffs[0].startswith("x: 1 of 3 values differ")
    assert "[1] expected 100.0" in diffs[1]


def test_compare_reports_shape_dtype_missing_and_extra():
    golden = {"a": _record([1.0], [1]), "b": _record([1, 2], dtype="int64"), "c": _record([0.0])}
    actual = {"a": _record([1.0], []), "b": _record([1, 2], dtype="int32"), "d": _record([0.0])}
    diffs = program_result.compare(golden, actual, allow_extra=False)
    assert any(d.startswith("a: shape [] != expected [1]") for d in diffs)
    assert any(d.startswith("b: dtype int32 != expected int64") for d in diffs)
    assert "c: missing" in diffs
    assert "d: unexpected result" in diffs
    relaxed = program_result.compare(golden, actual, loose_shape=True, check_dtype=False)
    assert relaxed == ["c: missing"]


def test_compare_nan_bool_and_inf():
    golden = {"n": _record([float("nan")]), "b": _record([True], [1], "bool"),
              "i": _record([float("inf")])}
    assert program_result.compare(golden, dict(golden)) == []
    wrong = {"n": _record([0.0]), "b": _record([False], [1], "bool"), "i": _record([1e30])}
    assert len([d for d in program_result.compare(golden, wrong) if not d.startswith(" ")]) == 3


def test_run_program_parses_output_and_reports_failures(tmp_path):
    ok = tmp_path / "ok.py"
    ok.write_text("import json, os\nprint('RESULT cwd_is_temp', json.dumps("
                  "{'shape': [], 'dtype': 'bool', 'values': [os.getcwd() != %r]}))\n"
                  "print('RESULT env', json.dumps({'shape': [], 'dtype': 'str', "
                  "'values': [os.environ.get('PU_X', '')]}))\n" % str(ROOT))
    results = program_result.run_program(sys.executable, str(ok), env={"PU_X": "y"})
    assert results["cwd_is_temp"]["values"] == [True]
    assert results["env"]["values"] == ["y"]
    bad = tmp_path / "bad.py"
    bad.write_text("import sys\nprint('boom', file=sys.stderr)\nsys.exit(3)\n")
    with pytest.raises(program_result.ProgramError) as info:
        program_result.run_program(sys.executable, str(bad))
    assert info.value.returncode == 3 and "boom" in str(info.value)
    silent = tmp_path / "silent.py"
    silent.write_text("print('hello')\n")
    with pytest.raises(program_result.ProgramError, match="no RESULT"):
        program_result.run_program(sys.executable, str(silent))
    slow = tmp_path / "slow.py"
    slow.write_text("import time\ntime.sleep(30)\n")
    with pytest.raises(program_result.ProgramError, match="timed out"):
        program_result.run_program(sys.executable, str(slow), timeout=1)


# -- re-verification on real Paddle 1.8.5 ------------------------------------------------------

def _legacy_python():
    """A Python running paddle 1.8.5, or None."""
    candidates = [os.environ.get("PADDLE_UPGRADE_LEGACY_PYTHON"),
                  str(ROOT / ".venv-legacy" / "bin" / "python")]
    if sys.version_info[:2] == (3, 7):
        candidates.append(sys.executable)
    for candidate in candidates:
        if not candidate or not os.path.exists(candidate):
            continue
        try:
            version = subprocess.run(
                [candidate, "-c", "import paddle; print(paddle.__version__)"],
                stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, universal_newlines=True,
                timeout=120).stdout.strip().splitlines()
        except (OSError, subprocess.SubprocessError):
            continue
        if version and version[-1] == "1.8.5":
            return candidate
    return None


@pytest.fixture(scope="session")
def legacy_python():
    python = _legacy_python()
    if python is None:
        message = ("no Python with paddle 1.8.5 (.venv-legacy/bin/python or "
                   "PADDLE_UPGRADE_LEGACY_PYTHON): run `make goldens-programs` to create it")
        if os.environ.get("PADDLE_UPGRADE_REQUIRE_LEGACY") == "1":
            pytest.fail(message + " [PADDLE_UPGRADE_REQUIRE_LEGACY=1]")
        pytest.skip(message)
    return python


@legacy
@pytest.mark.parametrize("name", NAMES)
def test_program_reproduces_its_golden_on_paddle_1_8_5(name, legacy_python):
    recorder = _load("record_program_goldens")
    results = program_result.run_program(legacy_python, str(PROGRAMS / (name + ".py")),
                                         env=recorder.RUN_ENV, timeout=300)
    # a program whose results depend on the CPU's float path is re-checked within its
    # documented machine_rtol (fixtures/programs/expectations.toml), every other exactly
    rtol = recorder.machine_rtol(name)
    tol = {"rtol": rtol} if rtol else {}
    diffs = program_result.compare(_golden(name)["results"], results, allow_extra=False, **tol)
    assert not diffs, "%s.py on Paddle 1.8.5 differs from its golden (re-record with " \
        "`make goldens-programs` if the program changed):\n%s" % (name, "\n".join(diffs))


def test_machine_rtol_read_by_the_legacy_tool_matches_the_toml():
    """tools/record_program_goldens.py (run by Python 3.7, no TOML parser) reads each
    program's machine_rtol with a pattern: it must agree with the parsed file."""
    recorder = _load("record_program_goldens")
    parsed = tomllib.loads((PROGRAMS / "expectations.toml").read_text())
    found = {n: recorder.machine_rtol(n) for n in NAMES}
    assert found == {n: parsed.get(n, {}).get("machine_rtol") for n in NAMES}
    assert sum(v is not None for v in found.values()) >= 1
    for n, v in found.items():
        if v is not None:
            assert parsed[n].get("machine_why"), n
