"""compat's 1.x block control flow (``While``, ``Switch``), the compare ops' ``cond``
output and ``create_global_var`` against the real Paddle 1.8.5 engine.

One legacy program runs on 1.8.5 (``.venv-legacy``) and unmodified through
``python -m compat``: a ``While`` whose body writes outer variables in place
(``assign(x, output)``, ``increment(in_place=True)``, ``array_write``) and refreshes
its condition with ``less_than(..., cond=)``, a loop that runs zero times for some
feeds, a ``Switch`` on a persistable global variable with ``less_equal``/
``greater_than``/``equal``/``not_equal`` writing ``cond=``, nested blocks writing
variables two and three blocks up (a ``Switch`` in a ``While`` body, a ``While`` in a
``While``, a ``While`` in a ``Switch`` case), and ``Program.all_parameters()`` (global
variables are not parameters). Results for
several feeds must agree.
"""
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
LEGACY_PY = ROOT / ".venv-legacy" / "bin" / "python"
sys.path.insert(0, str(ROOT / "tools"))
import program_result as pr  # noqa: E402

PROGRAM = r'''
import json
import numpy as np
import paddle.fluid as fluid
from paddle.fluid import layers


def report(name, value):
    a = np.asarray(value)
    print("RESULT", name, json.dumps({"shape": list(a.shape), "dtype": str(a.dtype),
                                      "values": a.ravel().tolist()}))


def const(value, dtype="float32"):
    return layers.fill_constant([1], dtype, value)


main, startup = fluid.Program(), fluid.Program()
with fluid.program_guard(main, startup):
    n = layers.data(name="n", shape=[1], dtype="int64", append_batch_size=False)
    x = layers.data(name="x", shape=[1], dtype="float32", append_batch_size=False)
    w = layers.create_parameter(shape=[1], dtype="float32", name="w",
                                default_initializer=fluid.initializer.Constant(2.0))
    g = layers.create_global_var(shape=[1], value=3.0, dtype="float32", persistable=True,
                                 name="g")

    # factorial-like loop with a tensor array and a Switch in its body
    i = layers.fill_constant([1], "int64", 0)
    acc = layers.fill_constant([1], "float32", 1.0)
    bonus = layers.fill_constant([1], "float32", 0.0)
    arr = layers.create_array("float32")
    cond = layers.less_than(i, n)
    loop = layers.While(cond=cond)
    with loop.block():
        fi = layers.cast(i, "float32")
        layers.assign(acc * (fi + 1.0), acc)
        with layers.Switch() as sw:  # nested: writes a variable two blocks up
            with sw.case(layers.less_than(fi, const(2.0))):
                layers.assign(bonus + 1.0, bonus)
            with sw.case(layers.less_than(fi, const(4.0))):
                layers.assign(bonus + 10.0, bonus)
            with sw.default():
                layers.assign(bonus + 100.0, bonus)
        layers.array_write(acc, i=i, array=arr)
        layers.increment(x=i, value=1, in_place=True)
        layers.less_than(x=i, y=n, cond=cond)
    length = layers.array_length(arr)
    last = layers.array_read(arr, i=layers.elementwise_sub(i, layers.fill_constant([1], "int64", 1)))

    # a second loop counting down, its condition from greater_than(cond=)
    k = layers.fill_constant([1], "float32", 5.0)
    total = layers.fill_constant([1], "float32", 0.0)
    kc = layers.greater_than(k, x)
    down = layers.While(cond=kc)
    with down.block():
        layers.assign(total + k, total)
        layers.increment(x=k, value=-1.0, in_place=True)
        layers.greater_than(x=k, y=x, cond=kc)

    # nested loops: sum over j < k < 4 of (j + 1), and a loop inside a Switch case
    k2 = layers.fill_constant([1], "int64", 0)
    nested = layers.fill_constant([1], "float32", 0.0)
    k2c = layers.less_than(k2, layers.fill_constant([1], "int64", 4))
    outer = layers.While(cond=k2c)
    with outer.block():
        j = layers.fill_constant([1], "int64", 0)
        jc = layers.less_than(j, k2)
        inner = layers.While(cond=jc)
        with inner.block():
            layers.assign(nested + layers.cast(j, "float32") + 1.0, nested)
            layers.increment(x=j, value=1, in_place=True)
            layers.less_than(x=j, y=k2, cond=jc)
        layers.increment(x=k2, value=1, in_place=True)
        layers.less_than(x=k2, y=layers.fill_constant([1], "int64", 4), cond=k2c)
    in_case = layers.fill_constant([1], "float32", 0.0)
    with layers.Switch() as sw:
        with sw.case(layers.greater_than(x, const(0.0))):
            m = layers.fill_constant([1], "float32", 0.0)
            mc = layers.less_than(m, x)
            mloop = layers.While(cond=mc)
            with mloop.block():
                layers.assign(in_case + 2.0, in_case)
                layers.increment(x=m, value=1.0, in_place=True)
                layers.less_than(x=m, y=x, cond=mc)
        with sw.default():
            layers.assign(const(-5.0), in_case)

    # compare ops writing into existing bool variables, a Switch on them
    flags = [layers.fill_constant([1], "bool", False) for _ in range(4)]
    layers.less_equal(x, g, cond=flags[0])
    layers.greater_than(x, g, cond=flags[1])
    layers.equal(x, g, cond=flags[2])
    layers.not_equal(x, g, cond=flags[3])
    picked = layers.fill_constant([1], "float32", -1.0)
    with layers.Switch() as sw:
        with sw.case(flags[2]):
            layers.assign(const(0.0), picked)
        with sw.case(flags[0]):
            layers.assign(x * w, picked)
        with sw.default():
            layers.assign(x + w, picked)

report("num_parameters", np.array(len(main.all_parameters())))
exe = fluid.Executor(fluid.CPUPlace())
exe.run(startup)
fetch = [acc, bonus, length, last, i, total, picked, nested, in_case] + flags
for nv, xv in ((1, -1.5), (3, 2.5), (6, 4.0), (7, 3.5)):
    out = exe.run(main, feed={"n": np.array([nv], "int64"), "x": np.array([xv], "float32")},
                  fetch_list=fetch)
    for idx, value in enumerate(out):
        report("n%d_out%d" % (nv, idx), value)
'''


def _run(cmd, cwd):
    env = dict(os.environ, PYTHONPATH=str(ROOT), PYTHONWARNINGS="ignore", GLOG_minloglevel="2")
    proc = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return pr.parse_results(proc.stdout)


@pytest.mark.skipif(not LEGACY_PY.exists(), reason="needs .venv-legacy (Paddle 1.8.5)")
def test_block_control_flow_matches_1_8_5(tmp_path):
    prog = tmp_path / "control_flow_program.py"
    prog.write_text(PROGRAM)
    golden = _run([str(LEGACY_PY), str(prog)], tmp_path)
    got = _run([sys.executable, "-m", "compat", str(prog)], tmp_path)
    assert len(golden) == 1 + 4 * 13
    diffs = pr.compare(golden, got)
    assert not diffs, "\n".join(diffs)


def test_block_control_flow_is_static_only():
    code = (
        "import compat.fluid as fluid\n"
        "from compat import LegacyAPIError\n"
        "with fluid.dygraph.guard():\n"
        "    c = fluid.dygraph.to_variable(__import__('numpy').array([True]))\n"
        "    for make in (lambda: fluid.layers.While(cond=c), lambda: fluid.layers.Switch()):\n"
        "        try:\n"
        "            make()\n"
        "        except LegacyAPIError as e:\n"
        "            print('raised', 'Python control flow' in str(e))\n"
    )
    env = dict(os.environ, PYTHONPATH=str(ROOT), PYTHONWARNINGS="ignore", GLOG_minloglevel="2")
    proc = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                          timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert proc.stdout.split().count("True") == 2, proc.stdout



def test_tensor_array_written_two_blocks_down_raises():
    code = (
        "import compat.fluid as fluid\n"
        "from compat import LegacyAPIError\n"
        "L = fluid.layers\n"
        "main, startup = fluid.Program(), fluid.Program()\n"
        "with fluid.program_guard(main, startup):\n"
        "    arr = L.create_array('float32')\n"
        "    i = L.fill_constant([1], 'int64', 0)\n"
        "    c = L.less_than(i, L.fill_constant([1], 'int64', 3))\n"
        "    try:\n"
        "        with L.While(cond=c).block():\n"
        "            with L.Switch() as sw:\n"
        "                with sw.case(c):\n"
        "                    L.array_write(L.cast(i, 'float32'), i=i, array=arr)\n"
        "    except LegacyAPIError as e:\n"
        "        print('raised', 'cannot be relayed' in str(e))\n"
    )
    env = dict(os.environ, PYTHONPATH=str(ROOT), PYTHONWARNINGS="ignore", GLOG_minloglevel="2")
    proc = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                          timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "raised True" in proc.stdout, proc.stdout
