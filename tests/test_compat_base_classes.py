"""Base classes users subclass (MetricBase, LearningRateDecay) behave as in 1.8.5: the
bare base builds, and its subclass-defined methods raise NotImplementedError.

What 1.8.5 does was checked on the real engine, and is re-checked here when it is
installed (.venv-legacy): the same script runs on both and must print the same lines.
"""
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
LEGACY = ROOT / ".venv-legacy" / "bin" / "python"

SCRIPT = r'''
import warnings
warnings.simplefilter("ignore")
import sys
if sys.argv[1] == "compat":
    import compat.fluid as fluid
    from compat.fluid.dygraph import LearningRateDecay
else:
    import paddle.fluid as fluid
    from paddle.fluid.dygraph.learning_rate_scheduler import LearningRateDecay

def outcome(f):
    try:
        f()
        return "ok"
    except NotImplementedError as e:
        return "NotImplementedError " + (str(e) if "extend" in str(e) else "")

m = fluid.metrics.MetricBase("m")
print("update", outcome(lambda: m.update(1, 2)))
print("eval", outcome(m.eval))

class Mine(fluid.metrics.MetricBase):
    def update(self, preds, labels):
        self.n = preds + labels
    def eval(self):
        return self.n
mine = Mine("mine")
mine.update(1, 2)
print("subclass", mine.eval())

class Half(LearningRateDecay):
    def step(self):
        return 0.5 ** self.step_num

with fluid.dygraph.guard():
    d = LearningRateDecay()
    print("base builds", d.step_num)
    print("base step", outcome(d.step))
    print("subclass rate", float(Half().step()))
'''


def _run(python, mode, tmp_path):
    script = tmp_path / "base_classes.py"
    script.write_text(SCRIPT)
    env = dict(os.environ, PYTHONPATH=str(ROOT), GLOG_minloglevel="2")
    proc = subprocess.run([python, str(script), mode], capture_output=True, text=True,
                          env=env, timeout=300, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr[-2000:]
    return proc.stdout.splitlines()


def test_compat_base_classes(tmp_path):
    lines = _run(sys.executable, "compat", tmp_path)
    assert lines == [
        "update NotImplementedError Should not use it directly, please extend it.",
        "eval NotImplementedError Should not use it directly, please extend it.",
        "subclass 3",
        "base builds 0",
        "base step NotImplementedError ",
        "subclass rate 1.0",
    ]


@pytest.mark.legacy
def test_same_as_paddle_1_8_5(tmp_path):
    if not LEGACY.exists():
        if os.environ.get("PADDLE_UPGRADE_REQUIRE_LEGACY") == "1":
            pytest.fail(f"{LEGACY} is missing [PADDLE_UPGRADE_REQUIRE_LEGACY=1]")
        pytest.skip(".venv-legacy (Paddle 1.8.5) is not installed")
    assert _run(str(LEGACY), "legacy", tmp_path) == _run(sys.executable, "compat", tmp_path)
