"""compat's ``ProgramTranslator`` methods against the real Paddle 1.8.5 engine.

One legacy program runs on 1.8.5 (``.venv-legacy``) and unmodified through
``python -m compat``: ``get_output`` (translated once per function, numpy arguments
turned into tensors by ``to_variable`` inside the translated code, tensor-dependent
``if``), ``get_output`` with translation disabled (eager), ``get_func`` and
``get_code``. The methods whose 1.x results have no counterpart raise
``LegacyAPIError`` under compat.
"""
import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parent.parent
LEGACY_PY = ROOT / ".venv-legacy" / "bin" / "python"

PROGRAM = r'''
import json
import numpy as np
import paddle.fluid as fluid


def func(x):
    x = fluid.dygraph.to_variable(x)
    if fluid.layers.mean(x) > 0:
        x_v = x * 2.0 - 1
    else:
        x_v = x + 1
    return x_v


out = {}
pt = fluid.dygraph.ProgramTranslator()
with fluid.dygraph.guard():
    x = np.array([[0.5, -2.0], [1.5, 3.0]], dtype='float32')
    out['numpy_pos'] = pt.get_output(func, x).numpy().tolist()
    out['numpy_neg'] = pt.get_output(func, -x).numpy().tolist()
    out['tensor'] = pt.get_output(func, fluid.dygraph.to_variable(x)).numpy().tolist()
    out['func'] = pt.get_func(func)(fluid.dygraph.to_variable(-x)).numpy().tolist()
    out['code_is_str'] = isinstance(pt.get_code(func), str)
    pt.enable(False)
    out['eager'] = pt.get_output(func, fluid.dygraph.to_variable(x)).numpy().tolist()
    pt.enable(True)
print('JSON', json.dumps(out))
'''


def _run(cmd, cwd):
    env = dict(os.environ, PYTHONPATH=str(ROOT), PYTHONWARNINGS="ignore", GLOG_minloglevel="2")
    proc = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]
    line = [ln for ln in proc.stdout.splitlines() if ln.startswith("JSON ")][-1]
    return json.loads(line[5:])


@pytest.mark.skipif(not LEGACY_PY.exists(), reason="needs .venv-legacy (Paddle 1.8.5)")
def test_program_translator_matches_1_8_5(tmp_path):
    prog = tmp_path / "translator_program.py"
    prog.write_text(PROGRAM)
    golden = _run([str(LEGACY_PY), str(prog)], tmp_path)
    got = _run([sys.executable, "-m", "compat", str(prog)], tmp_path)
    assert sorted(golden) == sorted(got)
    for key in golden:
        np.testing.assert_allclose(np.asarray(got[key], dtype=float),
                                   np.asarray(golden[key], dtype=float), rtol=1e-6, err_msg=key)


def test_program_translator_methods_without_counterpart_raise():
    code = (
        "import compat.fluid as fluid\n"
        "from compat import LegacyAPIError\n"
        "pt = fluid.dygraph.ProgramTranslator()\n"
        "for call in (lambda: pt.get_program(abs, 1), lambda: pt.save_inference_model('d'),\n"
        "             lambda: pt.get_program_cache()):\n"
        "    try:\n"
        "        call()\n"
        "    except LegacyAPIError as e:\n"
        "        print('raised', 'How to migrate' in str(e))\n"
    )
    env = dict(os.environ, PYTHONPATH=str(ROOT), PYTHONWARNINGS="ignore", GLOG_minloglevel="2")
    proc = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                          timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert proc.stdout.split().count("raised") == 3, proc.stdout
