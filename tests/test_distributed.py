"""Distributed training: 1.8 dygraph data parallel on the real multi-process engine, the
data-parallel rewrite (PU212), and legacy launch commands in shell scripts (PU107).

The 2-process proof: fixtures/programs/dist_data_parallel.py gives every rank its shard of
a fixed global batch. Paddle 1.8.5 had no multi-process data parallel on CPU (NCCL only),
so the expectation is the program's golden: the same program run by 1.8.5 as one process
on the whole batch. Averaged gradients make every rank of a 2-process run land exactly
there. The program is run (a) upgraded by `paddle-upgrade fix` under
`python -m paddle.distributed.launch --nproc_per_node 2` and (b) unmodified under
`paddle-upgrade run --nproc_per_node 2` (compat); CPU, gloo.
"""
import os
import subprocess
import sys
from pathlib import Path


from upgrader import upgrade_source
from upgrader.shell import scan_shell

ROOT = Path(__file__).resolve().parent.parent
PROGRAM = ROOT / "fixtures" / "programs" / "dist_data_parallel.py"
sys.path.insert(0, str(ROOT / "tools"))
import program_result as pr  # noqa: E402

CLI = Path(sys.executable).parent / "paddle-upgrade"


def _env():
    env = dict(os.environ, PYTHONPATH=str(ROOT), PYTHONWARNINGS="ignore")
    for k in list(env):  # a surrounding launcher must not leak its rank into ours
        if k.startswith("PADDLE_") and k not in ("PADDLE_COMPAT_DEVICE",):
            env.pop(k)
    return env


def _rank_results(cwd: Path, proc):
    logs = sorted((cwd / "log").glob("workerlog.*"))
    assert [p.name for p in logs] == ["workerlog.0", "workerlog.1"], (
        f"launcher logs: {logs}\n{proc.stdout[-2000:]}\n{proc.stderr[-2000:]}")
    out = []
    for rank, path in enumerate(logs):
        text = path.read_text(errors="replace")
        assert f"TRAINER {rank} OF 2" in text, f"rank {rank} did not run data parallel:\n{text[-3000:]}"
        out.append(pr.parse_results(text))
    return out


def _check_ranks(results):
    golden = pr.load_golden(ROOT / "fixtures" / "programs" / "goldens" / "dist_data_parallel.json")
    r0, r1 = results
    assert set(r0) == set(r1) == set(golden)
    for name in golden:  # both ranks hold identical parameters...
        assert r0[name]["values"] == r1[name]["values"], f"{name}: ranks differ"
    diffs = pr.compare(golden, r0)  # ...equal to the single-process 1.8.5 run on the whole batch
    assert not diffs, "\n".join(diffs)


def test_upgraded_data_parallel_two_processes_match_single_process_1_8_5(tmp_path):
    res = upgrade_source(PROGRAM.read_text())
    left = [f for f in res.findings if f.fix == "manual" or (f.fix == "unsafe" and not f.applied)]
    assert not left, left
    assert "= model.scale_loss(" not in res.code and "model.apply_collective_grads()\n" not in res.code
    assert "paddle.distributed.init_parallel_env()" in res.code and "paddle.DataParallel(model)" in res.code
    script = tmp_path / "train.py"
    script.write_text(res.code)
    proc = subprocess.run([sys.executable, "-m", "paddle.distributed.launch", "--nproc_per_node", "2",
                           "--log_dir", str(tmp_path / "log"), str(script)],
                          cwd=tmp_path, env=_env(), capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    _check_ranks(_rank_results(tmp_path, proc))


def test_original_data_parallel_two_processes_through_compat(tmp_path):
    proc = subprocess.run([str(CLI), "run", "--nproc_per_node", "2", str(PROGRAM)],
                          cwd=tmp_path, env=_env(), capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    _check_ranks(_rank_results(tmp_path, proc))


# ---------------------------------------------------------------- PU212 data-parallel

DP_SOURCE = '''\
import paddle.fluid as fluid

with fluid.dygraph.guard():
    strategy = fluid.dygraph.parallel.prepare_context()
    model = fluid.dygraph.parallel.DataParallel(model, strategy)
    loss = model.scale_loss(loss)
    loss.backward()
    model.apply_collective_grads()
'''


def test_data_parallel_rewrite():
    got = upgrade_source(DP_SOURCE).code
    assert got == ("import paddle\n\n"
                   "paddle.distributed.init_parallel_env()\n"
                   "model = paddle.DataParallel(model)\n"
                   "loss.backward()\n")
    assert upgrade_source(got).code == got


def test_strategy_used_elsewhere_is_manual():
    src = DP_SOURCE.replace("    loss.backward()\n", "    print(strategy.nranks)\n    loss.backward()\n")
    res = upgrade_source(src)
    manual = [f for f in res.findings if f.fix == "manual"]
    assert [f.legacy for f in manual] == ["paddle.fluid.dygraph.prepare_context"]
    assert "strategy = fluid.dygraph.parallel.prepare_context()" in res.code
    assert "model.apply_collective_grads()" not in res.code  # the rest is still rewritten


def test_data_parallel_rewrite_respects_ignore_and_noqa():
    res = upgrade_source(DP_SOURCE, ignore=["PU212"])
    assert "model.scale_loss(loss)" in res.code and "model.apply_collective_grads()" in res.code
    assert not [f for f in res.findings if f.code == "PU212"]
    src = DP_SOURCE.replace("model.apply_collective_grads()", "model.apply_collective_grads()  # noqa: PU212")
    assert "model.apply_collective_grads()  # noqa: PU212" in upgrade_source(src).code


def test_scale_loss_of_other_objects_is_left_alone():
    src = ("import paddle.fluid as fluid\n\n"
           "loss = scaler.scale_loss(loss)\nscaler.apply_collective_grads()\n"
           "x = fluid.layers.relu(y)\n")
    got = upgrade_source(src).code
    assert "loss = scaler.scale_loss(loss)\nscaler.apply_collective_grads()\n" in got


# ---------------------------------------------------------------- PU107 launch commands

def _legacy(findings):
    return [(f["line"], f["column"], f["legacy"], f["replacement"]) for f in findings]


def test_scan_shell_reports_legacy_launch_options():
    text = ("#!/bin/bash\n"
            "# python -m paddle.distributed.launch --selected_gpus 0 commented.py\n"
            "python -m paddle.distributed.launch --selected_gpus=0,1 --log_dir logs train.py --selected_gpus 5\n"
            "python3 -u -m paddle.distributed.launch \\\n"
            "    --cluster_node_ips 10.0.0.1,10.0.0.2 \\\n"
            "    --node_ip 10.0.0.1 --started_port 6170 --use_paddlecloud \\\n"
            "    --print_config False --log_level 20 train.py\n"
            "$PYTHON -m paddle.distributed.launch_ps --worker_num 2 --server_num 2 ps.py && echo ok\n")
    assert _legacy(scan_shell(text)) == [
        (3, 37, "paddle.distributed.launch --selected_gpus", "--devices"),
        (5, 5, "paddle.distributed.launch --cluster_node_ips", "--ips"),
        (6, 5, "paddle.distributed.launch --node_ip", ""),
        (6, 24, "paddle.distributed.launch --started_port", "--start_port"),
        (6, 44, "paddle.distributed.launch --use_paddlecloud", ""),
        (7, 5, "paddle.distributed.launch --print_config", ""),
        (7, 26, "paddle.distributed.launch --log_level", "--log_level"),
        (8, 12, "paddle.distributed.launch_ps", "paddle.distributed.launch"),
    ]
    f = scan_shell(text)[0]
    assert set(f) == {"path", "line", "column", "end_line", "end_column", "code", "rule", "message",
                      "legacy", "replacement", "fix"}
    assert (f["code"], f["rule"], f["fix"], f["end_column"]) == ("PU107", "legacy-launch", "manual", 52)


def test_scan_shell_leaves_modern_commands_alone():
    text = ("python -m paddle.distributed.launch --devices 0,1 --log_level INFO train.py\n"
            "python -m paddle.distributed.launch --nproc_per_node 2 train.py --selected_gpus 3\n"
            "echo \"python -m paddle.distributed.launch --selected_gpus 0\"\n"
            "grep -m paddle.distributed.launch notes.txt\n")
    assert scan_shell(text) == []
