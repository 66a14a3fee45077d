"""The tool's own safety: the upgrader never imports or executes the code it reads;
compat never swallows the user's exceptions."""
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_check_and_fix_never_execute_or_import_user_code(tmp_path):
    marker = tmp_path / "executed"
    (tmp_path / "sideeffect.py").write_text(f"open({str(marker)!r}, 'w').write('imported')\n")
    (tmp_path / "train.py").write_text(
        "import sideeffect\nimport paddle.fluid as fluid\n"
        f"open({str(marker)!r}, 'w').write('ran')\n"
        "y = fluid.layers.relu(x)\n")
    env = dict(os.environ, PYTHONPATH=str(tmp_path))
    for args in (["check", "--no-cache", "."], ["fix", "--no-cache", "--diff", "."], ["fix", "--no-cache", "."]):
        subprocess.run([sys.executable, "-m", "upgrader.cli", *args], cwd=tmp_path, env=env,
                       capture_output=True, text=True)
    assert not marker.exists()
    assert "paddle.nn.functional.relu(x)" in (tmp_path / "train.py").read_text()


def test_compat_does_not_swallow_user_exceptions(tmp_path):
    script = tmp_path / "boom.py"
    script.write_text(
        "import paddle.fluid as fluid\n"
        "with fluid.dygraph.guard():\n"
        "    x = fluid.dygraph.to_variable(__import__('numpy').ones([2], 'float32'))\n"
        "    raise ValueError('user error 42')\n")
    env = dict(os.environ, PYTHONPATH=str(ROOT), PYTHONWARNINGS="ignore")
    r = subprocess.run([sys.executable, "-m", "compat", str(script)], cwd=tmp_path, env=env,
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 1
    assert "ValueError: user error 42" in r.stderr
    assert f'File "{script}", line 4' in r.stderr
