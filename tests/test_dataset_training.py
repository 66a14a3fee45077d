"""1.8's Dataset training (fluid.DatasetFactory / QueueDataset + Executor.train_from_dataset,
PaddleRec's trainers) on Paddle 3.3.1: the successor paddle.distributed.QueueDataset trains
only old-IR programs, and the rule notes say so.

A tiny CTR-style program reads a MultiSlot pipe (one float per slot and a label) in batches
of 4 and is trained with SGD. Built in today's default PIR mode, train_from_dataset raises
AttributeError; built under paddle.pir_utils.OldIrGuard() it trains, and its weights equal
those of the same program on 1.8.5 (fluid.DatasetFactory().create_dataset("QueueDataset")
with set_use_var / set_pipe_command / set_batch_size / set_thread / set_filelist), run
here in the legacy environment when it exists."""
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

READER = textwrap.dedent("""
    import sys
    for line in sys.stdin:
        a, b, y = line.split()
        print("1 %s 1 %s 1 %s" % (a, b, y))
""")
DATA = "".join("%.4f %.4f %d\n" % (a, b, int(a + b > 1)) for a, b in
               [(0.1343, 0.8474), (0.7637, 0.2551), (0.4954, 0.4495), (0.6516, 0.7887),
                (0.0939, 0.0283), (0.8358, 0.4328), (0.7622, 0.0021), (0.4454, 0.7215),
                (0.2288, 0.9453), (0.9014, 0.0306), (0.0254, 0.5414), (0.9391, 0.3812)])

MODERN = textwrap.dedent("""
    import json, os, sys
    import numpy as np
    import paddle
    paddle.enable_static()
    here = os.path.dirname(os.path.abspath(__file__))
    guard = paddle.pir_utils.OldIrGuard() if sys.argv[1] == "old_ir" else None
    if guard is not None:
        guard.__enter__()
    main, startup = paddle.static.Program(), paddle.static.Program()
    with paddle.static.program_guard(main, startup):
        a = paddle.static.data(name="a", shape=[None, 1], dtype="float32")
        b = paddle.static.data(name="b", shape=[None, 1], dtype="float32")
        y = paddle.static.data(name="y", shape=[None, 1], dtype="int64")
        x = paddle.concat([a, b], axis=1)
        p = paddle.nn.functional.softmax(paddle.static.nn.fc(
            x, 2, weight_attr=paddle.ParamAttr(initializer=paddle.nn.initializer.Constant(0.1))))
        loss = paddle.mean(paddle.nn.functional.cross_entropy(p, y, use_softmax=False))
        paddle.optimizer.SGD(0.5).minimize(loss)
    exe = paddle.static.Executor(paddle.CPUPlace())
    exe.run(startup)
    dataset = paddle.distributed.QueueDataset()
    dataset.init(batch_size=4, thread_num=1, use_var=[a, b, y],
                 pipe_command=sys.executable + " " + os.path.join(here, "reader.py"))
    dataset.set_filelist([os.path.join(here, "part-0")])
    try:
        exe.train_from_dataset(program=main, dataset=dataset, fetch_list=[loss],
                               fetch_info=["loss"], print_period=100)
    except AttributeError as e:
        print("ERROR", e)
        sys.exit(0)
    w = np.array(paddle.static.global_scope().find_var(
        main.global_block().all_parameters()[0].name).get_tensor())
    print("WEIGHTS", json.dumps(w.ravel().tolist()))
""")


LEGACY = textwrap.dedent("""
    import json, os, sys
    import numpy as np
    import paddle.fluid as fluid
    here = os.path.dirname(os.path.abspath(__file__))
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup):
        a = fluid.data(name="a", shape=[None, 1], dtype="float32")
        b = fluid.data(name="b", shape=[None, 1], dtype="float32")
        y = fluid.data(name="y", shape=[None, 1], dtype="int64")
        x = fluid.layers.concat([a, b], axis=1)
        p = fluid.layers.fc(x, 2, act="softmax",
                            param_attr=fluid.ParamAttr(initializer=fluid.initializer.Constant(0.1)))
        loss = fluid.layers.mean(fluid.layers.cross_entropy(p, y))
        fluid.optimizer.SGD(0.5).minimize(loss)
    exe = fluid.Executor(fluid.CPUPlace())
    exe.run(startup)
    dataset = fluid.DatasetFactory().create_dataset("QueueDataset")
    dataset.set_use_var([a, b, y])
    dataset.set_pipe_command(sys.executable + " " + os.path.join(here, "reader.py"))
    dataset.set_batch_size(4)
    dataset.set_thread(1)
    dataset.set_filelist([os.path.join(here, "part-0")])
    exe.train_from_dataset(program=main, dataset=dataset, fetch_list=[loss],
                           fetch_info=["loss"], print_period=100)
    w = np.array(fluid.global_scope().find_var(
        main.global_block().all_parameters()[0].name).get_tensor())
    print("WEIGHTS", json.dumps(w.ravel().tolist()))
""")
LEGACY_PYTHON = ROOT / ".venv-legacy" / "bin" / "python"


def _weights(out):
    import json
    line = next(l for l in out.splitlines() if l.startswith("WEIGHTS"))
    return json.loads(line.split(" ", 1)[1])


def _run(tmp_path, mode, program=MODERN, python=sys.executable):
    (tmp_path / "reader.py").write_text(READER)
    (tmp_path / "part-0").write_text(DATA)
    (tmp_path / "prog.py").write_text(program)
    env = dict(os.environ, PYTHONWARNINGS="ignore")
    proc = subprocess.run([str(python), str(tmp_path / "prog.py"), mode], cwd=tmp_path,
                          env=env, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return proc.stdout


def test_train_from_dataset_rejects_a_pir_program(tmp_path):
    out = _run(tmp_path, "pir")
    assert "ERROR" in out and "_pipeline_opt" in out, out[-2000:]


def test_train_from_dataset_trains_an_old_ir_program(tmp_path):
    w = _weights(_run(tmp_path, "old_ir"))
    assert len(w) == 4 and w != [0.1] * 4  # trained: SGD moved the constant weights
    if not LEGACY_PYTHON.exists():
        pytest.skip("no Paddle 1.8.5 environment (.venv-legacy) to compare with")
    legacy = tmp_path / "legacy"
    legacy.mkdir()
    expected = _weights(_run(legacy, "legacy", LEGACY, LEGACY_PYTHON))
    assert w == pytest.approx(expected, rel=1e-5, abs=1e-6)


@pytest.mark.parametrize("name", ["paddle.fluid.dataset.DatasetFactory",
                                  "paddle.fluid.dataset.InMemoryDataset",
                                  "paddle.fluid.dataset.QueueDataset",
                                  "paddle.fluid.io.DataLoader.from_dataset"])
def test_dataset_notes_name_the_old_ir_requirement(name):
    from upgrader.rulebook import load
    note = load().entries[name].note
    assert "OldIrGuard" in note and "_pipeline_opt" in note
