"""``fluid.load(program, path, exe, var_list=[...])``: 1.8.5 read ``var_list`` only in its
fallback for one combined file written by ``save_vars`` / ``save_params`` /
``save_persistables`` with ``filename=`` (a ``fluid.save`` prefix ignored it). Today's
``paddle.static.load`` reads only the prefix form on PIR programs and raises
FileNotFoundError (``<file>.pdparams``) for a combined file, so the call is manual; without
``var_list`` the rewrite stays (fixtures/programs/static_resume_training.py). The rule
note's migration, ``paddle.static.load_vars(exe, dirname, main_program=prog,
vars=var_list, filename=basename)``, reads such a file on 3.3.1."""
import os
import subprocess
import sys
from pathlib import Path

from upgrader import upgrade_source

ROOT = Path(__file__).resolve().parent.parent

SRC = """import os
import paddle.fluid as fluid

x = fluid.data(name='x', shape=[None, 3], dtype='float32')
y = fluid.layers.fc(x, 2, param_attr=fluid.ParamAttr(name='w'), bias_attr=fluid.ParamAttr(name='b'))
prog = fluid.default_main_program()
exe = fluid.Executor(fluid.CPUPlace())
exe.run(fluid.default_startup_program())
fluid.io.save_vars(exe, '/tmp/d', prog, vars=prog.global_block().all_parameters(), filename='params')
fluid.load(prog, os.path.join('/tmp/d', 'params'), exe, var_list=prog.global_block().all_parameters())
fluid.load(prog, '/tmp/prefix', exe)
"""


def test_var_list_makes_the_call_manual():
    res = upgrade_source(SRC)
    loads = [f for f in res.findings if f.legacy == "paddle.fluid.load"]
    assert sorted(f.fix for f in loads) == ["manual", "safe"], [(f.fix, f.message) for f in loads]
    manual = next(f for f in loads if f.fix == "manual")
    assert "var_list" in manual.message and "load_vars" in manual.message
    # the manual call keeps its legacy spelling; the prefix form is rewritten
    assert "fluid.load(prog, os.path.join('/tmp/d', 'params'), exe, var_list=" in res.code
    assert "paddle.static.load(prog, '/tmp/prefix', exe)" in res.code


MIGRATION = """
import os, tempfile
import numpy as np
import paddle
paddle.enable_static()
prog, startup = paddle.static.Program(), paddle.static.Program()
with paddle.static.program_guard(prog, startup):
    x = paddle.static.data(name='x', shape=[None, 3], dtype='float32')
    y = paddle.static.nn.fc(x, 2, weight_attr=paddle.ParamAttr(name='w'), bias_attr=paddle.ParamAttr(name='b'))
exe = paddle.static.Executor(paddle.CPUPlace())
exe.run(startup)
params = prog.global_block().all_parameters()
d = tempfile.mkdtemp()
paddle.static.save_vars(exe, d, main_program=prog, vars=params, filename='params')
saved = np.array(paddle.static.global_scope().find_var('w').get_tensor())
paddle.static.global_scope().find_var('w').get_tensor().set(np.zeros((3, 2), 'float32'), paddle.CPUPlace())
path = os.path.join(d, 'params')
try:
    paddle.static.load(prog, path, exe, var_list=params)
    print('LOAD_OK')
except FileNotFoundError:
    print('LOAD_FILE_NOT_FOUND')
paddle.static.load_vars(exe, os.path.dirname(path), main_program=prog, vars=params, filename=os.path.basename(path))
print('RESTORED', np.array_equal(np.array(paddle.static.global_scope().find_var('w').get_tensor()), saved))
"""


def test_combined_file_needs_load_vars_on_3x(tmp_path):
    env = dict(os.environ, PYTHONPATH=str(ROOT), PYTHONWARNINGS="ignore")
    proc = subprocess.run([sys.executable, "-c", MIGRATION], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "LOAD_FILE_NOT_FOUND" in proc.stdout
    assert "RESTORED True" in proc.stdout
