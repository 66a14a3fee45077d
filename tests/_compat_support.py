"""Helpers of the compat tests (tests/test_compat_*.py).

compat patches process-wide Paddle state (graph mode, PIR value names, Tensor.backward),
so the tests run legacy code in child interpreters and look at what they print.
"""
import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PY = sys.executable
GOLDENS = ROOT / "fixtures" / "goldens" / "compat"
MARK = "COMPAT-JSON "


def env(**extra):
    e = dict(os.environ)
    e["PYTHONPATH"] = os.pathsep.join([str(ROOT)] + [p for p in e.get("PYTHONPATH", "").split(os.pathsep) if p])
    e.setdefault("GLOG_minloglevel", "2")
    e.pop("PADDLE_COMPAT_DEVICE", None)
    e.pop("PYTHONWARNINGS", None)
    for k, v in extra.items():
        if v is None:
            e.pop(k, None)
        else:
            e[k] = str(v)
    return e


def run(args, cwd=None, timeout=600, **env_extra):
    return subprocess.run([PY] + list(args), cwd=cwd or str(ROOT), env=env(**env_extra),
                          capture_output=True, text=True, timeout=timeout)


def run_script(tmp_path, code, args=(), via_compat=True, name="prog.py", **env_extra):
    """Write *code* to a script and run it (through ``python -m compat`` by default)."""
    path = Path(tmp_path) / name
    path.write_text(textwrap.dedent(code))
    cmd = (["-m", "compat"] if via_compat else []) + [str(path)] + list(args)
    return run(cmd, cwd=str(tmp_path), **env_extra)


def emit_source():
    """Source of ``emit(obj)``: prints one JSON line the tests parse with :func:`results`."""
    return ("import json as _json\n"
            "def emit(**kw):\n"
            "    print(%r + _json.dumps(kw, default=repr), flush=True)\n" % MARK)


def results(proc):
    out = {}
    for line in proc.stdout.splitlines():
        if line.startswith(MARK):
            out.update(json.loads(line[len(MARK):]))
    return out


def explain(proc):
    return "exit %s\n--- stdout\n%s\n--- stderr\n%s" % (
        proc.returncode, proc.stdout[-3000:], proc.stderr[-5000:])
