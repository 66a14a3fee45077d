"""compat: a user RNNCell that lacks part of 1.8's protocol (call, or state_shape when
get_initial_states gets no shape) fails with a NotImplementedError naming the cell, as
1.8's base class did; state_dtype is optional (float32)."""
import subprocess
import sys

from tests._compat_support import ROOT, env

CODE = """
import compat.fluid as fluid
class Bare(fluid.layers.RNNCell):
    pass
class Shaped(fluid.layers.RNNCell):
    state_shape = [3]
    def call(self, inputs, states):
        return inputs, states
for make in (lambda: Bare()(1, 2), lambda: Bare().get_initial_states(None)):
    try:
        make()
        print('no error')
    except NotImplementedError as e:
        print('raised', 'Bare' in str(e))
with fluid.dygraph.guard():
    ref = fluid.dygraph.to_variable(__import__('numpy').zeros((4, 2), 'float32'))
    init = Shaped().get_initial_states(ref, dtype=None)
    print('init', list(init.shape), init.dtype)
    print('step', Shaped()(5, 6))
"""


def test_cell_protocol_errors_and_defaults():
    proc = subprocess.run([sys.executable, "-c", CODE], env=env(PYTHONWARNINGS="ignore"),
                          cwd=str(ROOT), capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]
    lines = [l for l in proc.stdout.splitlines() if l.split(" ")[0] in ("raised", "no", "init", "step")]
    assert lines[:2] == ["raised True", "raised True"], proc.stdout
    assert lines[2].startswith("init [4, 3]") and "float32" in lines[2], proc.stdout
    assert lines[3] == "step (5, 6)", proc.stdout
