"""The pre-commit hooks (.pre-commit-hooks.yaml), used from this checkout as a hook repository.

A temporary git repository points pre-commit at this checkout's HEAD: a commit with legacy
code is refused by ``paddle-upgrade-check`` (the finding is printed) and accepted once
fixed; ``paddle-upgrade-fix`` rewrites the file, fails the commit as pre-commit does for
modified files, and the re-added file commits. pre-commit installs the hook environment
from PyPI once per HEAD; it is cached in ``.venv/.pre-commit-home`` when ``.venv`` exists.
"""
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from _upgrade_fakes import real_snippet

ROOT = Path(__file__).resolve().parents[1]
PRE_COMMIT = Path(sys.executable).parent / "pre-commit"
SNIPPET = real_snippet()

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(not PRE_COMMIT.exists(), reason="pre-commit is not installed"),
    pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed"),
    pytest.mark.skipif(SNIPPET is None, reason="the rule book has no simple safe rename"),
]


def head():
    res = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "HEAD"], capture_output=True,
                         text=True)
    if res.returncode != 0:
        pytest.skip("this checkout is not a git repository")
    shown = subprocess.run(["git", "-C", str(ROOT), "cat-file", "-e",
                            f"{res.stdout.strip()}:.pre-commit-hooks.yaml"])
    if shown.returncode != 0:
        pytest.skip(".pre-commit-hooks.yaml is not committed yet")
    return res.stdout.strip()


@pytest.fixture
def repo(tmp_path):
    home = ROOT / ".venv" / ".pre-commit-home" if (ROOT / ".venv").is_dir() else tmp_path / "home"
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GIT_", "PRE_COMMIT"))
           and k != "SKIP"}
    env.update(PRE_COMMIT_HOME=str(home), GIT_AUTHOR_NAME="t", GIT_AUTHOR_EMAIL="t@example.com",
               GIT_COMMITTER_NAME="t", GIT_COMMITTER_EMAIL="t@example.com", NO_COLOR="1",
               GIT_CONFIG_NOSYSTEM="1", GIT_CONFIG_GLOBAL=os.devnull)
    d = tmp_path / "proj"
    d.mkdir()

    def sh(*args, check=True):
        res = subprocess.run(list(args), cwd=d, env=env, capture_output=True, text=True,
                             timeout=900)
        if check and res.returncode != 0:
            raise AssertionError(f"{args} failed:\n{res.stdout}\n{res.stderr}")
        return res

    sh("git", "init", "-q")
    return d, sh


def configure(d, sh, hook_id):
    (d / ".pre-commit-config.yaml").write_text(
        f"repos:\n- repo: {ROOT.as_uri()}\n  rev: {head()}\n  hooks:\n  - id: {hook_id}\n")
    sh(str(PRE_COMMIT), "install")
    sh("git", "add", ".pre-commit-config.yaml")


def test_check_hook_refuses_legacy_commit_and_accepts_the_fixed_file(repo):
    d, sh = repo
    configure(d, sh, "paddle-upgrade-check")
    code, legacy, target = SNIPPET
    (d / "train.py").write_text(code)
    sh("git", "add", "train.py")
    refused = sh("git", "commit", "-m", "legacy", check=False)
    out = refused.stdout + refused.stderr
    assert refused.returncode != 0, out
    assert "paddle-upgrade check" in out and "Failed" in out
    assert "train.py:" in out and legacy.split(".")[-1] in out
    assert sh("git", "rev-list", "--all", check=False).stdout.strip() == ""  # nothing committed
    fix = subprocess.run([str(Path(sys.executable).parent / "paddle-upgrade"), "fix",
                          "--no-cache", "train.py"], cwd=d, capture_output=True, text=True)
    assert fix.returncode == 0, fix.stdout + fix.stderr
    sh("git", "add", "train.py")
    accepted = sh("git", "commit", "-m", "upgraded", check=False)
    assert accepted.returncode == 0, accepted.stdout + accepted.stderr
    assert "Passed" in accepted.stdout + accepted.stderr
    committed = sh("git", "show", "HEAD:train.py").stdout
    assert "fluid" not in committed and target in committed


def test_fix_hook_rewrites_then_the_readded_file_commits(repo):
    d, sh = repo
    configure(d, sh, "paddle-upgrade-fix")
    code, legacy, target = SNIPPET
    (d / "train.py").write_text(code)
    (d / "notes.md").write_text("fluid.layers everywhere\n")  # not python: never touched
    sh("git", "add", "train.py", "notes.md")
    first = sh("git", "commit", "-m", "legacy", check=False)
    out = first.stdout + first.stderr
    assert first.returncode != 0 and "files were modified by this hook" in out, out
    assert "fluid" not in (d / "train.py").read_text()
    assert (d / "notes.md").read_text() == "fluid.layers everywhere\n"
    sh("git", "add", "train.py")
    second = sh("git", "commit", "-m", "upgraded", check=False)
    assert second.returncode == 0, second.stdout + second.stderr
    assert target in sh("git", "show", "HEAD:train.py").stdout
