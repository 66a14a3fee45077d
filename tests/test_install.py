"""A non-editable `pip install .` into a fresh venv without Paddle: lint and fix work,
the rule database ships inside the wheel, and the runtime is an optional extra."""
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def lint_venv(tmp_path_factory):
    venv = tmp_path_factory.mktemp("lint-only") / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    src = tmp_path_factory.mktemp("src") / "paddle-upgrade"
    # install from a copy, as from a fresh clone: no build artefacts or venvs in the way
    shutil.copytree(ROOT, src, ignore=shutil.ignore_patterns(
        ".venv*", ".git", "build", "*.egg-info", "__pycache__", ".pytest_cache", "demo-out",
        ".paddle_upgrade_cache", "benchmarks", "log"))
    pip = [str(venv / "bin" / "python"), "-m", "pip", "install", "-q", "--disable-pip-version-check"]
    r = subprocess.run(pip + [str(src)], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr[-3000:]
    return venv


def _run(venv, *args, cwd=None):
    return subprocess.run([str(venv / "bin" / "paddle-upgrade"), *args], capture_output=True,
                          text=True, cwd=cwd)


def test_no_paddle_installed(lint_venv):
    r = subprocess.run([str(lint_venv / "bin" / "python"), "-c", "import paddle"], capture_output=True)
    assert r.returncode != 0


def test_check_on_fixtures_without_paddle(lint_venv, tmp_path):
    shutil.copytree(ROOT / "fixtures" / "programs", tmp_path / "programs")
    r = _run(lint_venv, "check", "--no-cache", "--format", "json", "programs", cwd=tmp_path)
    assert r.returncode == 1, r.stderr
    out = json.loads(r.stdout)
    assert out["findings"] and not out["errors"]
    assert {"path", "line", "column", "code", "legacy", "replacement", "fix"} <= set(out["findings"][0])


def test_fix_then_check_without_paddle(lint_venv, tmp_path):
    f = tmp_path / "m.py"
    f.write_text("import paddle.fluid as fluid\n\ny = fluid.layers.relu(x)\n")
    assert _run(lint_venv, "fix", "--no-cache", str(f)).returncode == 0
    assert f.read_text() == "import paddle\n\ny = paddle.nn.functional.relu(x)\n"
    assert _run(lint_venv, "check", "--no-cache", str(f)).returncode == 0


def test_rules_and_explain_read_the_shipped_database(lint_venv):
    r = _run(lint_venv, "rules", "--format", "json")
    assert r.returncode == 0 and len(json.loads(r.stdout)) > 500
    r = _run(lint_venv, "explain", "fluid.layers.cross_entropy")
    assert r.returncode == 0 and "use_softmax=False" in r.stdout
    assert _run(lint_venv, "explain", "no.such.api").returncode == 2
