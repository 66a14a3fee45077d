"""``python -m compat SCRIPT [ARGS]``, ``compat.run_script`` and the launcher wrapper."""
import sys
from pathlib import Path

import pytest

from _compat_support import ROOT, emit_source, explain, results, run, run_script

SCRIPT = emit_source() + r'''
import os, sys
import helper                      # a module next to the script (sys.path[0])
import paddle.fluid as fluid
emit(argv=sys.argv, path0=sys.path[0], name=__name__, helper=helper.VALUE,
     fluid=fluid.__name__)
code = int(sys.argv[1]) if len(sys.argv) > 1 else 0
sys.exit(code)
'''


def test_argv_path_and_exit_code(tmp_path):
    (tmp_path / "helper.py").write_text("VALUE = 42\n")
    proc = run_script(tmp_path, SCRIPT, args=["3", "--flag", "x y"])
    assert proc.returncode == 3, explain(proc)
    r = results(proc)
    assert r["argv"][1:] == ["3", "--flag", "x y"]
    assert Path(r["argv"][0]).name == "prog.py"
    assert Path(r["path0"]) == tmp_path
    assert r["name"] == "__main__"
    assert r["helper"] == 42
    assert r["fluid"] == "compat.fluid"


def test_exit_zero_and_string_exit(tmp_path):
    (tmp_path / "helper.py").write_text("VALUE = 1\n")
    assert run_script(tmp_path, SCRIPT, args=["0"]).returncode == 0
    proc = run_script(tmp_path, "import sys\nsys.exit('fatal: stop')\n", name="msg.py")
    assert proc.returncode == 1 and "fatal: stop" in proc.stderr


def test_traceback_points_at_user_lines(tmp_path):
    code = ("import paddle.fluid as fluid\n"
            "\n"
            "def build():\n"
            "    raise ValueError('boom in user code')\n"
            "\n"
            "build()\n")
    proc = run_script(tmp_path, code, name="bad.py")
    assert proc.returncode == 1
    err = proc.stderr
    assert "Traceback (most recent call last):" in err
    assert 'bad.py", line 6, in <module>' in err
    assert 'bad.py", line 4, in build' in err
    assert "ValueError: boom in user code" in err
    tb = err[err.index("Traceback (most recent call last):"):]
    assert "runpy" not in tb and "_runner.py" not in tb


def test_missing_script_and_usage(tmp_path):
    proc = run(["-m", "compat", str(tmp_path / "nope.py")])
    assert proc.returncode == 2 and "nope.py" in proc.stderr
    proc = run(["-m", "compat"])
    assert proc.returncode == 2 and "usage" in proc.stdout
    assert run(["-m", "compat", "--help"]).returncode == 0


def test_run_script_api(tmp_path):
    (tmp_path / "helper.py").write_text("VALUE = 7\n")
    (tmp_path / "prog.py").write_text(SCRIPT)
    proc = run(["-c", "import sys, compat; sys.exit(compat.run_script(sys.argv[1], ['5', 'a']))",
                str(tmp_path / "prog.py")], cwd=str(tmp_path))
    assert proc.returncode == 5, explain(proc)
    assert results(proc)["argv"][1:] == ["5", "a"]


def test_paddle_upgrade_run(tmp_path):
    (tmp_path / "helper.py").write_text("VALUE = 9\n")
    (tmp_path / "prog.py").write_text(SCRIPT)
    proc = run(["-c", "import sys; from upgrader.cli import main; sys.argv[0] = 'paddle-upgrade'; main()",
                "run", str(tmp_path / "prog.py"), "4"], cwd=str(tmp_path))
    assert proc.returncode == 4, explain(proc)
    assert results(proc)["helper"] == 9


def test_launch_command_shape():
    from compat import launch
    cmd = launch.command("train.py", ["--lr", "0.1"], 2)
    assert cmd[:3] == [sys.executable, "-m", "paddle.distributed.launch"]
    assert cmd[3:5] == ["--nproc_per_node", "2"]
    assert cmd[5] == launch.WORKER and cmd[5].endswith("launch_worker.py")
    assert cmd[6].endswith("train.py") and cmd[7:] == ["--lr", "0.1"]
    assert str(ROOT) in launch.environment()["PYTHONPATH"].split(":")


@pytest.mark.slow
def test_launch_two_workers(tmp_path):
    code = ("import os, sys\n"
            "import paddle.fluid as fluid\n"
            "print('WORKER', os.environ.get('PADDLE_TRAINER_ID'), fluid.__name__, sys.argv[1:])\n"
            "sys.exit(int(sys.argv[1]))\n")
    (tmp_path / "w.py").write_text(code)
    drive = ("import sys; from compat import launch; "
             "sys.exit(launch.launch(sys.argv[1], sys.argv[2:], 2))")
    proc = run(["-c", drive, str(tmp_path / "w.py"), "0"], cwd=str(tmp_path), PYTHONWARNINGS="ignore")
    assert proc.returncode == 0, explain(proc)
    logs = sorted((tmp_path / "log").glob("workerlog.*"))
    assert [p.name for p in logs] == ["workerlog.0", "workerlog.1"]
    seen = sorted(l for p in logs for l in p.read_text().splitlines() if l.startswith("WORKER"))
    assert seen == ["WORKER 0 compat.fluid ['0']", "WORKER 1 compat.fluid ['0']"]
    failing = run(["-c", drive, str(tmp_path / "w.py"), "3"], cwd=str(tmp_path), PYTHONWARNINGS="ignore")
    assert failing.returncode != 0
