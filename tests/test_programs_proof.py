"""Every bundled legacy program, upgraded by `fix` and run on today's Paddle, and run
unmodified through compat, reproduces what it computed on real Paddle 1.8.5 (golden).

A program whose upgrade leaves manual follow-ups cannot run after `fix` alone; such
programs are listed in fixtures/programs/expectations.toml with the exact findings
(code + legacy API) and why, and the test checks that list instead of running them. A
documented numeric difference (e.g. Adam's epsilon placement) is a per-program tolerance
there, with the reason.
"""
import os
import re
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from upgrader import upgrade_source

ROOT = Path(__file__).resolve().parent.parent
PROGRAMS = ROOT / "fixtures" / "programs"
sys.path.insert(0, str(ROOT / "tools"))
import program_result as pr  # noqa: E402

NAMES = sorted(p.stem for p in PROGRAMS.glob("*.py"))
assert NAMES, "no programs"
EXPECT = tomllib.loads((PROGRAMS / "expectations.toml").read_text())


def _golden(name):
    return pr.load_golden(PROGRAMS / "goldens" / f"{name}.json")


def _leftovers(findings):
    return sorted({f"{f.code} {f.legacy}" for f in findings
                   if f.fix == "manual" or (f.fix == "unsafe" and not f.applied)})


def _run(args, cwd, timeout=600):
    env = dict(os.environ, PYTHONPATH=str(ROOT), PYTHONWARNINGS="ignore")
    return subprocess.run(args, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout)


@pytest.mark.parametrize("name", NAMES)
def test_upgraded_program_matches_1_8_5(name, tmp_path):
    src = (PROGRAMS / f"{name}.py").read_text()
    res = upgrade_source(src)
    left = _leftovers(res.findings)
    expected = EXPECT.get(name, {})
    if expected.get("unsafe_followups"):
        # a plain fix leaves exactly these unsafe rewrites (and the manual follow-ups, if
        # any); --unsafe-fixes must finish it, or leave the manual ones only
        unsafe = sorted(expected["unsafe_followups"])
        assert left == sorted(unsafe + expected.get("followups", [])), (
            "unsafe follow-ups changed; update fixtures/programs/expectations.toml")
        # (calls of the same API that a plain fix rewrote are not follow-ups: gather with
        # overwrite=False next to an unsafe default gather)
        assert all(f.fix == "unsafe" for f in res.findings
                   if f"{f.code} {f.legacy}" in unsafe and not f.applied)
        res = upgrade_source(src, unsafe_fixes=True)
        left = _leftovers(res.findings)
    if expected.get("followups"):
        assert left == sorted(expected["followups"]), (
            "manual follow-ups changed; update fixtures/programs/expectations.toml")
        return
    assert not left, f"manual follow-ups remain after fix: {left}"
    prog = tmp_path / f"{name}.py"
    prog.write_text(res.code)
    proc = _run([sys.executable, str(prog)], cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr[-3000:]
    diffs = pr.compare(_golden(name), pr.parse_results(proc.stdout), **_tol(name))
    assert not diffs, "\n".join(diffs)
    if expected.get("exact_with"):
        # the documented difference is all there is: fix's output with the rule note's
        # exact migration written in (text edits) matches 1.8.5 at the default tolerance
        code = res.code
        for old, new in expected["exact_with"]:
            assert old in code, f"exact_with: {old!r} is not in fix's output"
            code = code.replace(old, new)
        prog.write_text(code)
        proc = _run([sys.executable, str(prog)], cwd=tmp_path)
        assert proc.returncode == 0, proc.stderr[-3000:]
        diffs = pr.compare(_golden(name), pr.parse_results(proc.stdout),
                           **_tol(name, documented=False))
        assert not diffs, "\n".join(diffs)


def _tol(name, documented=True):
    """The program's documented tolerance: its rule's numeric difference (rtol / atol;
    not with ``documented=False``) and its dependence on the CPU's float path
    (machine_rtol), the larger of the two."""
    e = EXPECT.get(name, {})
    tol = {k: e[k] for k in ("rtol", "atol") if k in e and documented}
    if "machine_rtol" in e:
        assert e.get("machine_why"), f"{name}: machine_rtol without machine_why"
        tol["rtol"] = max(tol.get("rtol", 0.0), e["machine_rtol"])
    return tol


@pytest.mark.parametrize("name", NAMES)
def test_original_program_through_compat_matches_1_8_5(name, tmp_path):
    proc = _run([sys.executable, "-m", "compat", str(PROGRAMS / f"{name}.py")], cwd=tmp_path)
    expected_error = EXPECT.get(name, {}).get("compat_error")
    if expected_error:
        # documented: compat refuses with a clear LegacyAPIError instead of approximating
        assert proc.returncode != 0 and expected_error in proc.stderr, proc.stderr[-3000:]
        return
    assert proc.returncode == 0, proc.stderr[-3000:]
    diffs = pr.compare(_golden(name), pr.parse_results(proc.stdout), **_tol(name))
    assert not diffs, "\n".join(diffs)


_IMPORTS = [
    (re.compile(r"^(\s*)from paddle import fluid\b", re.M), r"\1from compat import fluid"),
    (re.compile(r"^(\s*)import paddle\.fluid\b", re.M), r"\1import compat.fluid"),
    (re.compile(r"^(\s*)from paddle\.fluid\b", re.M), r"\1from compat.fluid"),
]


def _via_compat_import(src):
    """The program with its fluid imports spelled `compat.fluid` (no import hook), or
    None when it reaches legacy modules another way (``import paddle`` + ``paddle.fluid.x``
    or ``paddle.incubate.hapi``): those need the import hook (python -m compat)."""
    for pat, rep in _IMPORTS:
        src = pat.sub(rep, src)
    body = "\n".join(l for l in src.splitlines() if not l.lstrip().startswith("#"))
    if re.search(r"\bpaddle\.(fluid|incubate\.hapi)\b", body.split('"""', 2)[-1]):
        return None
    return src


def test_most_programs_use_the_compat_import_form():
    usable = [n for n in NAMES if _via_compat_import((PROGRAMS / f"{n}.py").read_text())]
    assert len(usable) >= 10, usable


@pytest.mark.parametrize("name", NAMES)
def test_program_with_import_compat_fluid_matches_1_8_5(name, tmp_path):
    src = _via_compat_import((PROGRAMS / f"{name}.py").read_text())
    if src is None or EXPECT.get(name, {}).get("compat_error"):
        assert name not in ("fit_a_line_static", "dygraph_mnist_cnn")  # the demo programs must run
        return  # reaches fluid through `import paddle` (needs the hook) or documented failure
    prog = tmp_path / f"{name}.py"
    prog.write_text(src)
    proc = _run([sys.executable, str(prog)], cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr[-3000:]
    diffs = pr.compare(_golden(name), pr.parse_results(proc.stdout), **_tol(name))
    assert not diffs, "\n".join(diffs)
