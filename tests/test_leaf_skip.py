"""The walks do not enter token/whitespace-only nodes (names.SYNTAX_LEAVES); outputs and
findings are those of walks that enter every node (PADDLE_UPGRADE_NO_LEAF_SKIP=1, read at
import time, so the reference runs in a subprocess)."""
import json
import os
import subprocess
import sys
from pathlib import Path

from upgrader import names
from upgrader.engine import upgrade_source

ROOT = Path(__file__).resolve().parent.parent
SOURCES = sorted(ROOT.glob("fixtures/PU*/*.in.py")) + sorted((ROOT / "fixtures" / "programs").glob("*.py")) \
    + sorted((ROOT / "tests" / "data" / "stability").glob("*.py"))

_RUN = r"""
import json, sys
from upgrader.engine import upgrade_source
out = {}
for p in sys.argv[1:]:
    code = open(p).read()
    for fix, unsafe in ((False, False), (True, False), (True, True)):
        r = upgrade_source(code, fix=fix, unsafe_fixes=unsafe)
        out[f"{p}:{fix}:{unsafe}"] = [r.code, [f.to_dict() for f in r.findings]]
json.dump(out, sys.stdout)
"""


def _here(paths):
    out = {}
    for p in paths:
        code = open(p).read()
        for fix, unsafe in ((False, False), (True, False), (True, True)):
            r = upgrade_source(code, fix=fix, unsafe_fixes=unsafe)
            out[f"{p}:{fix}:{unsafe}"] = [r.code, [f.to_dict() for f in r.findings]]
    return out


def test_leaves_are_skipped_here():
    import libcst as cst
    assert cst.Comma in names.SYNTAX_LEAVES and cst.Name in names.SYNTAX_LEAVES
    assert cst.Call not in names.SYNTAX_LEAVES and cst.Attribute not in names.SYNTAX_LEAVES


def test_skipping_leaves_changes_nothing():
    paths = [str(p) for p in SOURCES]
    env = dict(os.environ, PADDLE_UPGRADE_NO_LEAF_SKIP="1")
    proc = subprocess.run([sys.executable, "-c", _RUN] + paths, capture_output=True, text=True,
                          env=env, cwd=str(ROOT), check=True)
    reference = json.loads(proc.stdout)
    here = _here(paths)
    assert set(here) == set(reference)
    differ = sorted(k for k in here if here[k] != reference[k])
    assert not differ
