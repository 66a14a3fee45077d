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


@pytest.mark.slow
def test_launch_dygraph_data_parallel(tmp_path):
    """1.x DataParallel (prepare_context, scale_loss, apply_collective_grads) in 2 workers:
    both end with the weights of the averaged gradient."""
    code = ("import numpy as np\n"
            "import paddle.fluid as fluid\n"
            "with fluid.dygraph.guard():\n"
            "    strategy = fluid.dygraph.prepare_context()\n"
            "    lin = fluid.dygraph.Linear(2, 1, param_attr=fluid.initializer.Constant(0.1),\n"
            "                               bias_attr=fluid.initializer.Constant(0.0))\n"
            "    model = fluid.dygraph.DataParallel(lin, strategy)\n"
            "    opt = fluid.optimizer.SGD(0.1, parameter_list=model.parameters())\n"
            "    env = fluid.dygraph.ParallelEnv()\n"
            "    x = np.ones((2, 2), 'float32') * (env.local_rank + 1)\n"
            "    loss = model.scale_loss(fluid.layers.mean(model(fluid.dygraph.to_variable(x))))\n"
            "    loss.backward()\n"
            "    model.apply_collective_grads()\n"
            "    opt.minimize(loss)\n"
            "    print('RANK', env.local_rank, env.nranks, lin.weight.numpy().ravel().tolist())\n")
    (tmp_path / "dp.py").write_text(code)
    drive = "import sys; from compat import launch; sys.exit(launch.launch(sys.argv[1], [], 2))"
    proc = run(["-c", drive, str(tmp_path / "dp.py")], cwd=str(tmp_path), PYTHONWARNINGS="ignore")
    assert proc.returncode == 0, explain(proc)
    rows = sorted(l.split(" ", 3) for p in (tmp_path / "log").glob("workerlog.*")
                  for l in p.read_text().splitlines() if l.startswith("RANK"))
    assert [r[1:3] for r in rows] == [["0", "2"], ["1", "2"]]
    # d mean(x w) / dw_j = mean_i x_ij = rank + 1; the workers average it
    import json
    import numpy as np
    expected = 0.1 - 0.1 * np.mean([1.0, 2.0])
    for r in rows:
        np.testing.assert_allclose(json.loads(r[3]), [expected, expected], rtol=1e-6)


def test_project_module_named_compat_is_reported(tmp_path):
    """A project's own compat.py next to the script cannot be imported under the shim:
    the runner says so (naming the file) before the script runs; the script still runs."""
    (tmp_path / "compat.py").write_text("VALUE = 1\n")
    path = tmp_path / "prog.py"
    path.write_text(emit_source() + "import paddle.fluid as fluid\nemit(fluid=fluid.__name__)\n")
    proc = run(["-m", "compat", str(path)])  # cwd: the project root, not the script's
    assert proc.returncode == 0, explain(proc)
    assert results(proc)["fluid"] == "compat.fluid"
    assert "%s is shadowed" % (tmp_path / "compat.py") in proc.stderr
    (tmp_path / "compat.py").unlink()
    proc = run(["-m", "compat", str(path)])
    assert proc.returncode == 0 and "shadowed" not in proc.stderr, explain(proc)
