"""compat: the 1.x optimizer wrappers with no faithful counterpart on Paddle 3.3.1 raise
LegacyAPIError with the rule's migration note instead of failing inside Paddle or
training differently (LookaheadOptimizer: paddle.incubate.LookAhead rejects a 1.x inner
optimizer and does not pull back at 1.8.5's step). ExponentialMovingAverage, whose
paddle.static counterpart raises TypeError on PIR programs, is rebuilt by compat
(compat/fluid/_ema.py, proven by its 1.8.5 snippet), so it builds here."""
import subprocess
import sys

from tests._compat_support import ROOT, env

CODE = """
import compat.fluid as fluid
from compat import LegacyAPIError
main, startup = fluid.Program(), fluid.Program()
with fluid.program_guard(main, startup):
    x = fluid.data(name='x', shape=[None, 3], dtype='float32')
    loss = fluid.layers.mean(fluid.layers.fc(x, 1))
    makers = [lambda: fluid.optimizer.ExponentialMovingAverage(0.9),
              lambda: fluid.optimizer.LookaheadOptimizer(fluid.optimizer.SGD(0.1), alpha=0.5, k=2)]
    for make in makers:
        try:
            make()
            print('no error')
        except LegacyAPIError as e:
            print('raised', 'How to migrate' in str(e))
"""


def test_lookahead_raises_with_migration_and_ema_builds():
    proc = subprocess.run([sys.executable, "-c", CODE], env=env(PYTHONWARNINGS="ignore"),
                          cwd=str(ROOT), capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]
    lines = [l for l in proc.stdout.splitlines() if l.startswith(("no error", "raised"))]
    assert lines == ["no error", "raised True"], proc.stdout
