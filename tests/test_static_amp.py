"""PU217 (static AMP) on today's Paddle: what the rule's unsafe note says, observed.

The rewrite is proven on CPU against 1.8.5 (its example, tests/test_proof.py, and
fixtures/programs/amp_static_loss_scaling.py upgraded with --unsafe-fixes,
tests/test_programs_proof.py), where every white-listed op is black-listed because
neither engine has float16 CPU kernels. What makes it unsafe is observed here, so that a
Paddle release that changes it fails this test and the note gets revisited:

- layers whose bias follows the dtype of their op's output (``static.nn.fc``) create
  that bias in the low precision when built under ``auto_cast`` with the op white-listed
  (1.8's decorate rewrote a finished program and kept every parameter float32);
- bfloat16 autocast, the CPU's mixed precision, builds but cannot be optimized with
  Momentum for that reason (``momentum_`` has no bfloat16 kernel).
"""
import json
import os
import subprocess
import sys

from upgrader import upgrade_source

PROBE = r'''
import json, sys, warnings
warnings.filterwarnings("ignore")
import paddle
paddle.enable_static()
dtype, black = sys.argv[1], sys.argv[2:]
main, startup = paddle.static.Program(), paddle.static.Program()
out = {}
with paddle.static.program_guard(main, startup):
    with paddle.amp.auto_cast(dtype=dtype, custom_black_list=black):
        x = paddle.static.data(name="x", shape=[None, 4], dtype="float32")
        loss = paddle.mean(paddle.static.nn.fc(x, size=3))
        opt = paddle.static.amp.decorate(paddle.optimizer.Momentum(0.1, momentum=0.9), dtype=dtype)
    out["params"] = {p.name: str(p.dtype) for p in main.global_block().all_parameters()}
    scaler = paddle.amp.GradScaler(init_loss_scaling=1024.0)
    try:
        scaler.minimize(opt, scaler.scale(loss))
        out["minimize"] = "ok"
    except TypeError as e:
        out["minimize"] = str(e).splitlines()[0][:200]
print("PROBE " + json.dumps(out))
'''


def _probe(*args):
    env = dict(os.environ, PYTHONWARNINGS="ignore")
    proc = subprocess.run([sys.executable, "-c", PROBE, *args], capture_output=True, text=True,
                          env=env, timeout=300)
    line = [l for l in proc.stdout.splitlines() if l.startswith("PROBE ")]
    assert line, proc.stderr[-2000:]
    return json.loads(line[0][6:])


def test_black_listed_matmul_keeps_every_parameter_float32():
    got = _probe("bfloat16", "matmul_v2")
    assert set(got["params"].values()) == {"paddle.float32"}
    assert got["minimize"] == "ok"


def test_white_listed_matmul_makes_the_fc_bias_low_precision():
    got = _probe("bfloat16")
    assert got["params"]["fc_0.w_0"] == "paddle.float32"
    assert got["params"]["fc_0.b_0"] == "paddle.bfloat16"   # 1.8 kept it float32
    assert "momentum_" in got["minimize"] and "bfloat16" in got["minimize"]


def test_rule_note_states_what_is_observed():
    from upgrader import rulebook
    note = rulebook.load().lookup("paddle.fluid.contrib.mixed_precision.decorate").note
    assert "bias" in note and "bfloat16" in note


def test_custom_lists_get_todays_op_names():
    src = ("import paddle.fluid as fluid\n"
           "def build(main, startup):\n"
           "    with fluid.program_guard(main, startup):\n"
           "        x = fluid.data(name='x', shape=[None, 4], dtype='float32')\n"
           "        loss = fluid.layers.mean(fluid.layers.fc(x, 1))\n"
           "        lists = fluid.contrib.mixed_precision.AutoMixedPrecisionLists(custom_white_list=['reshape2'], custom_black_list=['matmul'])\n"
           "        opt = fluid.contrib.mixed_precision.decorate(fluid.optimizer.SGD(0.1), lists)\n"
           "        opt.minimize(loss)\n")
    code = upgrade_source(src, unsafe_fixes=True).code
    assert "paddle.amp.auto_cast(custom_white_list=['reshape2', 'reshape'], custom_black_list=['matmul', 'matmul_v2'])" in code
    plain = upgrade_source(src)
    assert [f.fix for f in plain.findings if f.code == "PU217"] == ["unsafe"]
    assert "fluid.contrib.mixed_precision.decorate" in plain.code   # left for --unsafe-fixes
