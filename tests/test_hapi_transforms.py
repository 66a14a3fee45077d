"""The hapi colour transforms' documented differences (rules/incubate_hapi.toml), observed
on both engines: the proof examples cover value=0, the identity of both versions; for other
values the notes say how 3.x's paddle.vision.transforms (on numpy images: OpenCV, from the
test extras) departs from 1.8.5's. One program runs on real Paddle 1.8.5 (.venv-legacy,
its OpenCV 4.2) and, rewritten with --unsafe-fixes, on today's Paddle.
"""
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from upgrader import upgrade_source

ROOT = Path(__file__).resolve().parent.parent
LEGACY = ROOT / ".venv-legacy" / "bin" / "python"
MARK = "TRANSFORMS "

PROGRAM = r'''
import hashlib
import json
import random
import numpy as np
from paddle.incubate.hapi.vision.transforms import BrightnessTransform, ContrastTransform, HueTransform

img = (np.random.RandomState(0).rand(16, 16, 3) * 255).astype('uint8')
R = {}


def run(key, t, im):
    random.seed(0)
    np.random.seed(0)
    try:
        r = t(im)
        R[key] = [str(r.dtype), hashlib.md5(np.ascontiguousarray(r).tobytes()).hexdigest()]
    except Exception as e:
        R[key] = type(e).__name__


run('brightness_float32', BrightnessTransform(0.4), img.astype('float32'))
run('contrast_float32', ContrastTransform(0.4), img.astype('float32'))
run('hue_zero_shift', HueTransform(0.001), img)   # the shift truncates to 0 in both
print('TRANSFORMS ' + json.dumps(R))
'''


def _run(python, code, tmp_path, name):
    path = tmp_path / name
    path.write_text(code)
    env = dict(os.environ, GLOG_minloglevel="2", PYTHONWARNINGS="ignore")
    proc = subprocess.run([str(python), str(path)], cwd=str(tmp_path), env=env,
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]
    line = [l for l in proc.stdout.splitlines() if l.startswith(MARK)]
    assert line, proc.stdout[-2000:]
    return json.loads(line[-1][len(MARK):])


@pytest.fixture(scope="module")
def results(tmp_path_factory):
    if not LEGACY.exists():
        if os.environ.get("PADDLE_UPGRADE_REQUIRE_LEGACY") == "1":
            pytest.fail(f"{LEGACY} is missing [PADDLE_UPGRADE_REQUIRE_LEGACY=1]")
        pytest.skip("Paddle 1.8.5 (.venv-legacy) is not installed")
    pytest.importorskip("cv2", reason="paddle.vision.transforms needs OpenCV on numpy images")
    tmp = tmp_path_factory.mktemp("transforms")
    rewritten = upgrade_source(PROGRAM, unsafe_fixes=True).code
    assert "incubate" not in rewritten
    return _run(LEGACY, PROGRAM, tmp, "legacy.py"), _run(sys.executable, rewritten, tmp, "modern.py")


def test_brightness_returns_uint8_for_a_float_image(results):
    legacy, modern = results
    assert legacy["brightness_float32"][0] == "float32"
    assert modern["brightness_float32"][0] == "uint8"


def test_contrast_raises_on_a_float_image(results):
    legacy, modern = results
    assert legacy["contrast_float32"][0] == "float32"
    assert modern["contrast_float32"] == "error"  # cv2.error: cv2.LUT takes uint8 only


def test_hue_round_trip_differs_between_opencv_releases(results):
    legacy, modern = results
    assert legacy["hue_zero_shift"][0] == modern["hue_zero_shift"][0] == "uint8"
    assert legacy["hue_zero_shift"][1] != modern["hue_zero_shift"][1]
