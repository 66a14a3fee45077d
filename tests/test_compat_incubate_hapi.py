"""compat.incubate_hapi: Paddle 1.8.5's paddle.incubate.hapi generated from the rule book.

The legacy program fixtures/programs/hapi_fit.py, run unmodified with the shim installed,
reproduces its Paddle 1.8.5 golden; the 1.x import forms resolve to the rule-built
wrappers.
"""
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PROGRAMS = ROOT / "fixtures" / "programs"
sys.path.insert(0, str(ROOT / "tools"))
import program_result as pr  # noqa: E402

PRELUDE = """\
import runpy, sys
import compat
compat.install()
import compat.incubate_hapi as shim
shim.install()
shim.install()  # idempotent
"""


def _run(code, tmp_path, *args):
    script = tmp_path / "driver.py"
    script.write_text(PRELUDE + code)
    env = dict(os.environ, PYTHONPATH=str(ROOT), PYTHONWARNINGS="ignore")
    return subprocess.run([sys.executable, str(script), *args], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=600)


def test_hapi_program_matches_1_8_5_with_the_shim(tmp_path):
    proc = _run("sys.argv = sys.argv[1:]\nrunpy.run_path(sys.argv[0], run_name='__main__')\n",
                tmp_path, str(PROGRAMS / "hapi_fit.py"))
    assert proc.returncode == 0, proc.stderr[-3000:]
    golden = pr.load_golden(PROGRAMS / "goldens" / "hapi_fit.json")
    diffs = pr.compare(golden, pr.parse_results(proc.stdout))
    assert not diffs, "\n".join(diffs)


def test_import_forms_and_legacy_signature(tmp_path):
    code = """
import json
import paddle
from paddle.incubate.hapi.distributed import DistributedBatchSampler
from paddle.incubate import hapi
import paddle.incubate.hapi.vision.transforms as T
data = list(range(11))
s = DistributedBatchSampler(data, 3, True, True)
legacy = [list(s), list(s)]
m = paddle.io.DistributedBatchSampler(data, 3, shuffle=True, drop_last=True)
modern = [list(m), list(m)]
print(json.dumps({
    "same_batches": legacy == modern,
    "same_class": hapi.distributed.DistributedBatchSampler is DistributedBatchSampler,
    "aliases": T.ColorJitter is hapi.vision.ColorJitter is T.transforms.ColorJitter,
    "is_modern": isinstance(T.BrightnessTransform(0.2), paddle.vision.transforms.BrightnessTransform),
    "dir": sorted(n for n in dir(T) if not n.startswith("_")),
}))
"""
    proc = _run(code, tmp_path)
    assert proc.returncode == 0, proc.stderr[-3000:]
    import json
    out = json.loads(proc.stdout.strip().splitlines()[-1])
    assert out["same_batches"] and out["same_class"] and out["aliases"] and out["is_modern"]
    assert {"BrightnessTransform", "ColorJitter", "ContrastTransform", "HueTransform",
            "SaturationTransform"} <= set(out["dir"])
