"""What a 1.8 script sets up around Paddle survives ``python -m compat``: its logging
configuration (Paddle 3's import configures the root logger; 1.8's did not), the
device-id query of ``fluid.dygraph.parallel.Env`` on a CPU-only build, and device warnings
that point at the script's own line."""
from _compat_support import explain, run_script

LOGGING = '''
import logging, os
logging.basicConfig(filename=os.path.join(os.path.dirname(os.path.abspath(__file__)), "train.log"),
                    level=logging.DEBUG, format="%(levelname)s %(message)s")
import paddle.fluid as fluid
logging.getLogger("train").debug("debug line")
logging.getLogger("train").info("info line")
'''


def test_script_logging_config_is_kept(tmp_path):
    proc = run_script(tmp_path, LOGGING)
    assert proc.returncode == 0, explain(proc)
    log = (tmp_path / "train.log").read_text()
    assert "DEBUG debug line" in log and "INFO info line" in log
    assert "info line" not in proc.stderr  # not also on Paddle's stderr handler


def test_parallel_env_dev_id_on_cpu(tmp_path):
    proc = run_script(tmp_path, '''
import paddle.fluid as fluid
print("DEV", fluid.dygraph.parallel.Env().dev_id, fluid.dygraph.ParallelEnv().dev_id)
''')
    assert proc.returncode == 0, explain(proc)
    assert "DEV 0 0" in proc.stdout


def test_device_fallback_warning_points_at_the_script(tmp_path):
    proc = run_script(tmp_path, '''
import paddle.fluid as fluid
places = fluid.cuda_places()
''', name="devices.py")
    assert proc.returncode == 0, explain(proc)
    lines = [l for l in proc.stderr.splitlines() if "DeviceFallbackWarning" in l]
    assert lines and all("devices.py:3:" in l for l in lines), proc.stderr


def test_project_module_named_upgrader(tmp_path):
    """The rule database is loaded before the script's directory leads the import path,
    and the script's own `upgrader` module is the one it imports."""
    (tmp_path / "upgrader.py").write_text("NAME = 'project'\n")
    proc = run_script(tmp_path, '''
import numpy as np
import paddle.fluid as fluid
import upgrader
with fluid.dygraph.guard():
    y = fluid.layers.sigmoid(fluid.dygraph.to_variable(np.zeros([2], "float32")))
print("OUT", upgrader.NAME, y.numpy().tolist())
''')
    assert proc.returncode == 0, explain(proc)
    assert "OUT project [0.5, 0.5]" in proc.stdout


def test_spawned_children_and_subprocesses_get_the_shim(tmp_path):
    """A multiprocessing 'spawn' child re-imports the script (`import paddle.fluid` at the
    top) and a subprocess may run another 1.x script: both find paddle.fluid, as under 1.8."""
    (tmp_path / "other.py").write_text(
        "import paddle.fluid as fluid\nprint('OTHER', fluid.layers.relu is not None)\n")
    proc = run_script(tmp_path, '''
import multiprocessing as mp, subprocess, sys
import numpy as np
import paddle.fluid as fluid

def work(q):
    q.put(int(np.sum(np.arange(5))))

if __name__ == "__main__":
    q = mp.get_context("spawn").Queue()
    p = mp.get_context("spawn").Process(target=work, args=(q,))
    p.start(); r = q.get(timeout=120); p.join()
    out = subprocess.run([sys.executable, "other.py"], capture_output=True, text=True).stdout
    plain = subprocess.run([sys.executable, "-c", "import sys; print('PLAIN', 'paddle' in sys.modules)"],
                           capture_output=True, text=True).stdout
    print("SPAWN", r, p.exitcode, out.strip(), plain.strip())
''')
    assert proc.returncode == 0, explain(proc)
    assert "SPAWN 10 0 OTHER True PLAIN False" in proc.stdout, proc.stdout
