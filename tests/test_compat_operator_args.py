"""compat: 1.x ``Operator.input_arg_names`` / ``output_arg_names`` on the operations of a
program, ``Block.var`` of those names, and a startup block that lists the parameters it
initializes (``name in startup.global_block().vars``).

PaddleHub's finetune strategies found the pretrained parameters this way
(``get_pretrained_parameter``: the parameters read by the main program's ops that the
startup program does not initialize). The same script runs on 1.8.5 (when the legacy
environment exists) and through compat, and prints the same lines."""
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
LEGACY_PYTHON = ROOT / ".venv-legacy" / "bin" / "python"

SCRIPT = textwrap.dedent("""
    import paddle.fluid as fluid
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup):
        x = fluid.data(name="x", shape=[None, 3], dtype="float32")
        h = fluid.layers.fc(x, 4, param_attr=fluid.ParamAttr(name="body.w"),
                            bias_attr=fluid.ParamAttr(name="body.b"))
    # a "pretrained" parameter: initialized by another startup program
    with fluid.program_guard(main, fluid.Program()):
        out = fluid.layers.fc(h, 2, param_attr=fluid.ParamAttr(name="pre.w"), bias_attr=False)
    gb = main.global_block()
    pretrained = []
    for op in gb.ops[::-1]:
        for input_arg in op.input_arg_names:
            var = gb.var(input_arg)
            if isinstance(var, fluid.framework.Parameter) and \\
                    input_arg not in startup.global_block().vars:
                pretrained.append(var.name)
    print("PRETRAINED", pretrained)
    read = sorted(set(n for op in gb.ops for n in op.input_arg_names
                      if isinstance(gb.var(n), fluid.framework.Parameter)))
    print("READ", read)
    written = [n for op in gb.ops for n in op.output_arg_names]
    print("OUTPUT_FOUND", all(gb.var(n) is not None for n in written), out.name in written)
    print("STARTUP", "body.w" in startup.global_block().vars, startup.global_block().has_var("body.b"),
          "pre.w" in startup.global_block().vars)
""")


def _run(cmd, tmp_path):
    prog = tmp_path / "prog.py"
    prog.write_text(SCRIPT)
    proc = subprocess.run(cmd + [str(prog)], cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return [l for l in proc.stdout.splitlines() if l.split(" ", 1)[0].isupper()]


def test_operator_arg_names_through_compat(tmp_path):
    got = _run([sys.executable, "-m", "compat"], tmp_path)
    assert got[0] == "PRETRAINED ['pre.w']"
    if not LEGACY_PYTHON.exists():
        pytest.skip("no Paddle 1.8.5 environment (.venv-legacy) to compare with")
    assert got == _run([str(LEGACY_PYTHON)], tmp_path)
