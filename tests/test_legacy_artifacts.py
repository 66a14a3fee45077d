"""Files saved by real Paddle 1.8.5 (fixtures/legacy_artifacts/saved/) load on Paddle 3.x.

Each loader program (fixtures/legacy_artifacts/loaders/, a 1.8 program) runs in a copy of
the saved files: upgraded by `fix` and unmodified through compat, with the outcome
fixtures/legacy_artifacts/expectations.toml states (reproducing the 1.8.5 golden, or the
exact error); every documented conversion recipe (recipes/, docs/legacy-formats.md)
reproduces the 1.8.5 golden of the loader it replaces. The artifacts and goldens are
committed, so none of this needs Python 3.7; the ``legacy`` test re-saves and re-loads
everything on Paddle 1.8.5 (when ``.venv-legacy`` or ``PADDLE_UPGRADE_LEGACY_PYTHON``
exists; required with ``PADDLE_UPGRADE_REQUIRE_LEGACY=1``).
"""
import functools
import json
import os
import pickle
import shutil
import subprocess
import sys
import tempfile
import tomllib
from pathlib import Path

import numpy as np
import pytest

from upgrader import upgrade_source

ROOT = Path(__file__).resolve().parent.parent
BASE = ROOT / "fixtures" / "legacy_artifacts"
SAVED = BASE / "saved"
LOADERS = BASE / "loaders"
RECIPES = BASE / "recipes"
CONVERT = BASE / "convert"
GOLDENS = BASE / "goldens"
DOC = ROOT / "docs" / "legacy-formats.md"
sys.path.insert(0, str(ROOT / "tools"))
sys.path.insert(0, str(CONVERT))
import legacy_tensors  # noqa: E402
import program_result as pr  # noqa: E402

EXPECT = tomllib.loads((BASE / "expectations.toml").read_text())
LOADER_NAMES = sorted(p.stem for p in LOADERS.glob("*.py"))
RECIPE_NAMES = sorted(p.stem for p in RECIPES.glob("*.py"))
SAVER_GOLDEN = pr.load_golden(GOLDENS / "save_artifacts.json")
ENV = {"PYTHONPATH": os.pathsep.join([str(ROOT), str(CONVERT)]), "PYTHONWARNINGS": "ignore",
       "GLOG_minloglevel": "2"}


def _golden(name):
    return pr.load_golden(GOLDENS / f"{name}.json")


def _leftovers(findings):
    return sorted({f"{f.code} {f.legacy}" for f in findings
                   if f.fix == "manual" or (f.fix == "unsafe" and not f.applied)})


def _run(args, timeout=600):
    """Run *args* in a fresh copy of the saved files; (returncode, stdout, stderr)."""
    workdir = tempfile.mkdtemp(prefix="legacy-artifacts-")
    try:
        for entry in SAVED.iterdir():
            shutil.copytree(entry, Path(workdir) / entry.name)
        proc = subprocess.run(args, cwd=workdir, env=dict(os.environ, **ENV),
                              capture_output=True, text=True, timeout=timeout)
        return proc.returncode, proc.stdout, proc.stderr
    finally:
        shutil.rmtree(workdir, ignore_errors=True)


# -- the committed artifacts and goldens (no Paddle needed) ----------------------------------

def _files(directory):
    return sorted(str(p.relative_to(directory)) for p in directory.rglob("*") if p.is_file())


def test_every_format_is_saved_and_tiny():
    files = _files(SAVED)
    for expected in ("dygraph/model.pdparams", "dygraph/model.pdopt", "static/model.pdparams",
                     "static/model.pdopt", "static/model.pdmodel", "params/fc_0.w_0",
                     "params_single/params", "persistables/fc_0.w_0_velocity_0",
                     "persistables/learning_rate_0", "persistables_single/persistables",
                     "inference/__model__", "inference/fc_1.b_0", "inference_combined/model",
                     "inference_combined/params"):
        assert expected in files, expected
    total = sum((SAVED / f).stat().st_size for f in files)
    assert total < 64 * 1024, total


def test_every_loader_and_recipe_is_accounted_for():
    assert sorted(EXPECT) == LOADER_NAMES
    assert sorted(p.stem for p in GOLDENS.glob("*.json")) == sorted(LOADER_NAMES + ["save_artifacts"])
    used = sorted({r for e in EXPECT.values() for r in e.get("recipes", [])})
    assert used == RECIPE_NAMES
    for name, e in EXPECT.items():
        assert e["fix"] in ("ok", "unsafe", "manual", "error"), name
        assert e["compat"] in ("ok", "error"), name
        if e["fix"] != "ok" or e["compat"] != "ok":
            assert e.get("recipes") or e["fix"] in ("ok", "unsafe"), (
                f"{name}: a format that does not load needs a documented recipe")


def test_goldens_come_from_1_8_5_and_each_loader_got_back_what_was_saved():
    """On 1.8.5 itself every loader reproduces the saved model's predictions and losses."""
    expected = {"prediction": SAVER_GOLDEN["static_prediction"],
                "next_losses": SAVER_GOLDEN["static_next_losses"]}
    assert pr.compare({"p": SAVER_GOLDEN["dygraph_prediction"]}, {"p": expected["prediction"]}) == []
    for name in LOADER_NAMES + ["save_artifacts"]:
        data = json.loads((GOLDENS / f"{name}.json").read_text())
        assert data["engine"] == "paddlepaddle 1.8.5"
        checked = 0
        for key, record in data["results"].items():
            for suffix, want in expected.items():
                if key.endswith("_" + suffix):
                    assert pr.compare({key: want}, {key: record}) == [], (name, key)
                    checked += 1
        assert checked, name


def test_loaders_are_1_8_programs():
    import ast
    for path in sorted(LOADERS.glob("*.py")) + [BASE / "save_artifacts.py"]:
        tree = ast.parse(path.read_text(), feature_version=(3, 7))
        assert ast.get_docstring(tree), path.name
        assert "import paddle.fluid as fluid" in path.read_text(), path.name


def test_numpy_reader_agrees_with_the_pickled_checkpoint():
    """convert/legacy_tensors.py (no Paddle) reads every 1.x variable file; the combined
    files hold the variables in sorted name order; the values equal fluid.save's pickle."""
    with open(SAVED / "static" / "model.pdparams", "rb") as handle:
        pdparams = pickle.load(handle, encoding="latin1")
    with open(SAVED / "static" / "model.pdopt", "rb") as handle:
        pdopt = pickle.load(handle, encoding="latin1")
    both = dict(pdparams, **pdopt)
    per_var = legacy_tensors.read_variable_dir(SAVED / "persistables")
    assert sorted(per_var) == sorted(both)
    combined = legacy_tensors.read_combined(SAVED / "persistables_single" / "persistables", per_var)
    for name, value in both.items():
        assert value.dtype == per_var[name].dtype == np.float32
        np.testing.assert_array_equal(per_var[name], value.reshape(per_var[name].shape))
        np.testing.assert_array_equal(combined[name], per_var[name])
    for directory, combined_file in (("params", "params_single/params"),
                                     ("inference", "inference_combined/params")):
        state = legacy_tensors.read_variable_dir(SAVED / directory)
        assert sorted(state) == sorted(pdparams), directory
        again = legacy_tensors.read_combined(SAVED / combined_file, state)
        for name in state:
            np.testing.assert_array_equal(again[name], pdparams[name])
    with pytest.raises(ValueError, match="holds 9 tensors"):
        legacy_tensors.read_tensor(SAVED / "persistables_single" / "persistables")
    with pytest.raises(ValueError, match="4 names given"):
        legacy_tensors.read_combined(SAVED / "persistables_single" / "persistables", pdparams)


def test_doc_covers_every_format_loader_and_recipe():
    text = DOC.read_text()
    for name in LOADER_NAMES + RECIPE_NAMES + ["legacy_tensors", "inference_model_to_pir"]:
        assert name in text, name
    for e in EXPECT.values():
        for key in ("fix_error", "compat_error"):
            if key in e:
                assert e[key].split(":")[0] in text


# -- Paddle 3.x: upgraded, through compat, and the documented recipes ------------------------

@pytest.mark.parametrize("name", LOADER_NAMES)
def test_upgraded_loader_on_paddle_3(name, tmp_path):
    e = EXPECT[name]
    unsafe = e["fix"] == "unsafe" or e.get("unsafe_fixes", False)
    res = upgrade_source((LOADERS / f"{name}.py").read_text(), unsafe_fixes=unsafe)
    if e["fix"] == "manual":
        assert _leftovers(res.findings) == sorted(e["followups"])
        return
    if unsafe:
        plain = upgrade_source((LOADERS / f"{name}.py").read_text())
        assert _leftovers(plain.findings) == sorted(e["followups"])
    assert _leftovers(res.findings) == []
    prog = tmp_path / f"{name}.py"
    prog.write_text(res.code)
    code, out, err = _run([sys.executable, str(prog)])
    if e["fix"] == "error":
        assert code != 0 and e["fix_error"] in err, err[-3000:]
        return
    assert code == 0, err[-3000:]
    diffs = pr.compare(_golden(name), pr.parse_results(out), allow_extra=False)
    assert not diffs, "\n".join(diffs)


@pytest.mark.parametrize("name", LOADER_NAMES)
def test_original_loader_through_compat(name):
    e = EXPECT[name]
    code, out, err = _run([sys.executable, "-m", "compat", str(LOADERS / f"{name}.py")])
    if e["compat"] == "error":
        assert code != 0 and e["compat_error"] in err, err[-3000:]
        return
    assert code == 0, err[-3000:]
    diffs = pr.compare(_golden(name), pr.parse_results(out), allow_extra=False)
    assert not diffs, "\n".join(diffs)


@functools.lru_cache(maxsize=None)
def _recipe_results(recipe):
    code, out, err = _run([sys.executable, str(RECIPES / f"{recipe}.py")])
    assert code == 0, err[-3000:]
    return pr.parse_results(out)


@pytest.mark.parametrize("name,recipe", [(n, r) for n in LOADER_NAMES
                                         for r in EXPECT[n].get("recipes", [])])
def test_documented_recipe_matches_loader_golden(name, recipe):
    results = _recipe_results(recipe)
    diffs = pr.compare(_golden(name), results)  # every golden key, extra keys allowed
    assert not diffs, "\n".join(diffs)
    for key, record in results.items():  # extra predictions: the saved model's too
        if key.endswith("_prediction"):
            assert pr.compare({key: SAVER_GOLDEN["static_prediction"]}, {key: record}) == [], key


def test_inference_model_needs_the_old_ir_on_paddle_3():
    """The precise failure the recipes work around: 3.x's default load_inference_model
    reads a 1.x __model__ as PIR JSON."""
    script = ("import paddle\npaddle.enable_static()\n"
              "exe = paddle.static.Executor(paddle.CPUPlace())\n"
              "for d, kw in (('inference', {}), ('inference', {'model_filename': '__model__'}),"
              " ('inference_combined', {'model_filename': 'model', 'params_filename': 'params'})):\n"
              "    try:\n"
              "        paddle.static.load_inference_model(d, exe, **kw)\n"
              "        print('LOADED', d)\n"
              "    except Exception as exc:\n"
              "        print('FAILED', type(exc).__name__, str(exc).splitlines()[0][:120])\n")
    code, out, err = _run([sys.executable, "-c", script])
    assert code == 0, err[-3000:]
    lines = [l for l in out.splitlines() if l.startswith(("LOADED", "FAILED"))]
    assert len(lines) == 3 and all(l.startswith("FAILED") for l in lines), out
    assert "parse_error" in lines[0]
    assert all("UnicodeDecodeError" in l for l in lines[1:]), lines


def test_documented_paddle_3_facts_about_1_x_files():
    """docs/legacy-formats.md [4] and the parameter-name pitfall, as 3.3.1 behaves."""
    script = """
import warnings
import numpy as np
import paddle
paddle.enable_static()
warnings.simplefilter("ignore")
print("PIR_DIR", sorted(paddle.static.load_program_state("params")))
with paddle.pir_utils.OldIrGuard():
    print("OLD_IR_DIR", sorted(paddle.static.load_program_state("persistables")))
try:
    paddle.static.load_program_state("params_single/params")
except ValueError as exc:
    print("COMBINED_STATE", exc)
print("COMBINED_LOAD", np.array(paddle.load("params_single/params")).shape)
print("ONE_FILE", np.array(paddle.load("params/fc_0.w_0")).shape)
names = []
for _ in range(2):
    main, startup = paddle.static.Program(), paddle.static.Program()
    with paddle.static.program_guard(main, startup), paddle.utils.unique_name.guard():
        x = paddle.static.data(name="x", shape=[None, 4], dtype="float32")
        paddle.static.nn.fc(paddle.static.nn.fc(x, size=3), size=2)
    names.append(sorted(p.name for p in main.global_block().all_parameters()))
print("NAMES", names)
"""
    code, out, err = _run([sys.executable, "-c", script])
    assert code == 0, err[-3000:]
    lines = dict(l.split(" ", 1) for l in out.splitlines() if l.split(" ")[0].isupper())
    assert lines["PIR_DIR"] == "[]"
    persistables = sorted(legacy_tensors.read_variable_dir(SAVED / "persistables"))
    assert lines["OLD_IR_DIR"] == str(persistables)
    assert "var_list can not be None" in lines["COMBINED_STATE"]
    # the combined file's first tensor (sorted names: fc_0.b_0), not the whole file
    assert lines["COMBINED_LOAD"] == "(3,)"
    assert lines["ONE_FILE"] == "(4, 3)"
    assert lines["NAMES"] == str([["fc_0.b_0", "fc_0.w_0", "fc_1.b_0", "fc_1.w_0"],
                                  ["fc_2.b_0", "fc_2.w_0", "fc_3.b_0", "fc_3.w_0"]])


# -- re-verification on real Paddle 1.8.5 ------------------------------------------------------

def _legacy_python():
    candidates = [os.environ.get("PADDLE_UPGRADE_LEGACY_PYTHON"),
                  str(ROOT / ".venv-legacy" / "bin" / "python")]
    for candidate in candidates:
        if candidate and os.path.exists(candidate):
            return candidate
    return None


@pytest.mark.legacy
def test_artifacts_and_goldens_reproduce_on_paddle_1_8_5():
    python = _legacy_python()
    if python is None:
        message = ("no Python with paddle 1.8.5 (.venv-legacy/bin/python or "
                   "PADDLE_UPGRADE_LEGACY_PYTHON): run `make legacy-venv`")
        if os.environ.get("PADDLE_UPGRADE_REQUIRE_LEGACY") == "1":
            pytest.fail(message + " [PADDLE_UPGRADE_REQUIRE_LEGACY=1]")
        pytest.skip(message)
    proc = subprocess.run([python, str(ROOT / "tools" / "record_legacy_artifacts.py"), "--verify",
                           "--python", python], capture_output=True, text=True, timeout=1200)
    assert proc.returncode == 0, (
        "Paddle 1.8.5 no longer writes the committed artifacts or loads them as the goldens "
        "say (re-record with `make legacy-artifacts` if the programs changed):\n"
        + proc.stdout[-3000:] + proc.stderr[-2000:])


def _record_tool():
    import importlib.util
    spec = importlib.util.spec_from_file_location(
        "record_legacy_artifacts", ROOT / "tools" / "record_legacy_artifacts.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_verify_compares_parameter_files_as_arrays(tmp_path):
    """--verify accepts a last-bit rounding difference in a saved parameter (another CPU)
    and still reports a real change of value, shape or file."""
    import shutil
    tool = _record_tool()
    saved = BASE / "saved"
    copy = tmp_path / "saved"
    shutil.copytree(saved, copy)
    assert tool.compare_trees(str(saved), str(copy)) == []

    target = copy / "params" / "fc_0.w_0"
    data = bytearray(target.read_bytes())
    data[-4] ^= 0x01  # lowest mantissa bit of the last float32 (little endian: its first byte)
    target.write_bytes(bytes(data))
    assert tool.compare_trees(str(saved), str(copy)) == []

    data[-2] ^= 0x40  # a high mantissa bit: a change well above rounding
    target.write_bytes(bytes(data))
    problems = tool.compare_trees(str(saved), str(copy))
    assert len(problems) == 1 and problems[0].startswith("params/fc_0.w_0 differs")

    shutil.copy(saved / "params" / "fc_0.w_0", target)
    (copy / "params" / "fc_0.b_0").write_bytes((saved / "params" / "fc_0.w_0").read_bytes())
    problems = tool.compare_trees(str(saved), str(copy))
    assert problems and "fc_0.b_0" in problems[0]
