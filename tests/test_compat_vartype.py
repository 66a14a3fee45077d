"""``fluid.core.VarDesc.VarType`` data types compare with tensors' dtypes as on 1.8.5.

1.8 code tests a tensor's type with ``x.dtype == core.VarDesc.VarType.FP32``, keys dicts by
VarType members and passes them as dtypes. On Paddle 3 a tensor's dtype is a
``paddle.dtype`` that never equals a ``VarType`` member, so under compat every such test
was False. The same legacy program runs on 1.8.5 (``.venv-legacy``) and through
``python -m compat``; the answers must agree (dygraph and static programs).
"""
import json
import subprocess
from pathlib import Path

import pytest

from _compat_support import ROOT, env, explain, run_script

LEGACY_PY = ROOT / ".venv-legacy" / "bin" / "python"
MARK = "VARTYPE "

PROGRAM = r'''
import json
import numpy as np
import paddle.fluid as fluid
from paddle.fluid import core

VT = core.VarDesc.VarType
NAMES = {VT.FP32: 'fp32', VT.INT64: 'int64', VT.FP16: 'fp16', VT.INT32: 'int32', VT.FP64: 'fp64'}
R = {}


def probe(v):
    return [v.dtype == VT.FP32, v.dtype == fluid.core.VarDesc.VarType.INT64, v.dtype != VT.FP32,
            NAMES.get(v.dtype), v.dtype in (VT.FP16, VT.FP32), v.dtype == VT.BOOL]


with fluid.dygraph.guard():
    x = fluid.dygraph.to_variable(np.ones((2, 3), 'float32'))
    i = fluid.dygraph.to_variable(np.ones((2,), 'int64'))
    R['dy'] = [probe(x), probe(i), probe(fluid.layers.greater_than(x, x))]
    y = fluid.layers.cast(x, VT.FP64)
    R['dy_cast'] = [str(y.numpy().dtype), y.dtype == VT.FP64, NAMES.get(y.dtype)]
    R['dy_cast_like'] = str(fluid.layers.cast(i, dtype=x.dtype).numpy().dtype)
    R['dy_fill'] = str(fluid.layers.fill_constant([1], VT.INT32, 3).numpy().dtype)

main, start = fluid.Program(), fluid.Program()
with fluid.program_guard(main, start):
    a = fluid.data('a', [None, 3], 'float32')
    b = fluid.data('b', [None], 'int64')
    c = fluid.layers.cast(a, VT.INT32)
    R['st'] = [probe(a), probe(b), c.dtype == VT.INT32, NAMES.get(c.dtype)]
exe = fluid.Executor(fluid.CPUPlace())
exe.run(start)
r, = exe.run(main, feed={'a': np.ones((2, 3), 'float32'), 'b': np.ones((2,), 'int64')}, fetch_list=[c])
R['st_run'] = [str(r.dtype), r.tolist()]
R['kinds'] = [VT.LOD_TENSOR == core.VarDesc.VarType.LOD_TENSOR, VT.LOD_TENSOR == VT.FP32]
print("VARTYPE " + json.dumps(R, sort_keys=True))
'''


def _answers(proc):
    lines = [l for l in proc.stdout.splitlines() if l.startswith(MARK)]
    assert proc.returncode == 0 and len(lines) == 1, explain(proc)
    return json.loads(lines[0][len(MARK):])


@pytest.mark.skipif(not LEGACY_PY.exists(), reason="needs .venv-legacy (Paddle 1.8.5)")
def test_vartype_dtype_comparisons_match_1_8_5(tmp_path):
    prog = Path(tmp_path) / "prog.py"
    prog.write_text(PROGRAM)
    e = env()
    e.pop("PYTHONPATH", None)  # the real paddle.fluid, not compat's
    golden = _answers(subprocess.run([str(LEGACY_PY), str(prog)], cwd=str(tmp_path), env=e,
                                     capture_output=True, text=True, timeout=600))
    got = _answers(run_script(tmp_path, PROGRAM, name="prog_compat.py"))
    assert sorted(got) == sorted(golden)
    for key in golden:
        assert got[key] == golden[key], key
