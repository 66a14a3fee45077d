"""`check` reports legacy launch commands in .sh files; `fix` leaves them as follow-ups."""
import json
import subprocess
import sys


def _cli(*args, cwd):
    return subprocess.run([sys.executable, "-m", "upgrader.cli", *args], capture_output=True,
                          text=True, cwd=cwd)


def test_shell_launch_scripts_are_checked_not_rewritten(tmp_path):
    script = tmp_path / "run.sh"
    text = ("#!/bin/bash\n# 4 GPUs\npython -m paddle.distributed.launch --selected_gpus=0,1,2,3 \\\n"
            "    train.py --epochs 3\n")
    script.write_text(text)
    (tmp_path / "other.sh").write_text("echo hello\n")
    r = _cli("check", "--no-cache", "--format", "json", ".", cwd=tmp_path)
    assert r.returncode == 1, r.stderr
    f = json.loads(r.stdout)["findings"]
    assert [(x["path"], x["line"], x["code"], x["fix"]) for x in f] == [("run.sh", 3, "PU107", "manual")]
    assert _cli("fix", "--no-cache", ".", cwd=tmp_path).returncode == 1
    assert script.read_text() == text
    assert _cli("check", "--no-cache", "--ignore", "PU107", ".", cwd=tmp_path).returncode == 0
