"""Never lose user code: killed runs, concurrent edits, encodings, modes, bad files.

The kill test drives the real CLI (``paddle-upgrade fix``) on a 200-file tree and SIGKILLs
its whole process group at random moments: afterwards every file must be exactly the
original or exactly the fully upgraded version (by hash), and a rerun must finish the job.
Set PADDLE_UPGRADE_KILL_TRIALS / PADDLE_UPGRADE_KILL_SEED to run more or other trials.
"""
import hashlib
import os
import random
import shutil
import signal
import stat
import subprocess
import sys
import time
from pathlib import Path

import pytest

from _upgrade_fakes import real_snippet
from upgrader import config as cfg
from upgrader import runner

CLI = Path(sys.executable).parent / "paddle-upgrade"
SNIPPET = real_snippet()
needs_rule = pytest.mark.skipif(SNIPPET is None, reason="the rule book has no simple safe rename")
needs_cli = pytest.mark.skipif(not CLI.exists(), reason=f"{CLI} is not installed")


def legacy_line():
    code, legacy, target = SNIPPET
    return code.splitlines()[0], code.splitlines()[-1], target


def sha(p: Path) -> str:
    return hashlib.sha256(p.read_bytes()).hexdigest()


def hashes(root: Path) -> dict:
    return {p.relative_to(root).as_posix(): sha(p) for p in sorted(root.rglob("*.py"))}


def make_tree(root: Path, n: int = 200) -> None:
    imp, use, _ = legacy_line()
    for i in range(n):
        d = root / f"pkg{i % 7}"
        d.mkdir(parents=True, exist_ok=True)
        filler = "".join(f"def f{j}(a, b=2):\n    return a * b + {j}\n\n" for j in range(4))
        if i % 5 == 0:
            (d / f"m{i:03d}.py").write_text("import os\n\n" + filler)
        elif i % 5 == 1:
            text = f"# -*- coding: gbk -*-\r\n# 中文注释：模型 {i}\r\n{imp}\r\n{filler}{use}\r\n"
            (d / f"m{i:03d}.py").write_bytes(text.replace("\n\n", "\r\n\r\n").encode("gbk"))
        else:
            (d / f"m{i:03d}.py").write_text(f"{imp}\n\n{filler}{use}\n")


def cli(*args, cwd=None, timeout=600):
    return subprocess.run([str(CLI), *map(str, args)], cwd=cwd, capture_output=True, text=True,
                          timeout=timeout)


@pytest.mark.slow
@needs_cli
@needs_rule
def test_sigkill_at_random_moments_leaves_every_file_original_or_upgraded(tmp_path):
    orig = tmp_path / "orig"
    make_tree(orig)
    before = hashes(orig)
    ref = tmp_path / "ref"
    shutil.copytree(orig, ref)
    t0 = time.monotonic()
    done = cli("fix", "--no-cache", ref)
    duration = time.monotonic() - t0
    assert done.returncode == 0, done.stdout + done.stderr
    after = hashes(ref)
    upgradable = {k for k in before if before[k] != after[k]}
    assert len(upgradable) >= 150
    rng = random.Random(int(os.environ.get("PADDLE_UPGRADE_KILL_SEED", "20261202")))
    trials = int(os.environ.get("PADDLE_UPGRADE_KILL_TRIALS", "20"))
    partial = 0
    for t in range(trials):
        d = tmp_path / f"trial{t}"
        shutil.copytree(orig, d)
        jobs = ["--jobs", "1"] if t % 2 else []
        proc = subprocess.Popen([str(CLI), "fix", "--no-cache", *jobs, str(d)],
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                start_new_session=True)
        time.sleep(rng.uniform(0.1, 1.0) * duration)
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        proc.wait()
        time.sleep(0.05)  # workers die with the group
        now = hashes(d)
        assert set(now) == set(before), "a .py file appeared or vanished"
        for rel, h in now.items():
            assert h in (before[rel], after[rel]), f"trial {t}: {rel} is neither original nor upgraded"
        n_up = sum(1 for k in upgradable if now[k] == after[k])
        if 0 < n_up < len(upgradable):
            partial += 1
        if t % 10 == 0:  # a rerun finishes the job
            again = cli("fix", "--no-cache", d)
            assert again.returncode == 0, again.stdout + again.stderr
            assert hashes(d) == after
        shutil.rmtree(d)
    print(f"reference run {duration:.1f}s; {partial}/{trials} kills landed mid-run")
    assert partial >= 1, "no kill landed in the middle of a run; the test proved nothing"


# ---------------------------------------------------------------------- encodings

def variants():
    imp, use, _ = legacy_line()
    return {
        "utf8-bom": ("\ufeff" + f"# 说明\n{imp}\nx = 1\n{use}\n").encode("utf-8"),
        "gbk-cookie": (f"# -*- coding: gbk -*-\n# 中文注释\n{imp}\n{use}  # 设备\n").encode("gbk"),
        "latin1-cookie": (f"# coding: latin-1\n# café\n{imp}\n{use}\n").encode("latin-1"),
        "crlf": f"# c\r\n{imp}\r\n\r\n{use}\r\n".encode(),
        "mixed-newlines": f"# a\r\n{imp}\n# b\r\n{use}\n# c\r".encode(),
        "tabs": f"{imp}\nif True:\n\t{use}\n\tz = 1\n".encode(),
        "form-feed": f"{imp}\n\x0c\ndef f():\n    {use}\n\x0c\n".encode(),
        "no-trailing-newline": f"{imp}\n{use}".encode(),
        "long-line": f"{imp}\n{use}\nv = '{'x' * 200000}'  # {'y' * 5000}\n".encode(),
    }


def clean_variant(raw: bytes) -> bytes:
    """The same bytes with the legacy usage taken out (so nothing is to be fixed)."""
    imp, use, _ = legacy_line()
    return raw.replace(imp.encode(), b"import os").replace(use.encode(), b"thing = 1")


def codec_of(name):
    return {"gbk-cookie": "gbk", "latin1-cookie": "latin-1", "utf8-bom": "utf-8-sig"}.get(name, "utf-8")


def run_fix(path: Path):
    return runner.run([path], mode="fix", jobs=1, use_cache=False,
                      settings=cfg.Settings(root=path.parent))


@needs_rule
@pytest.mark.parametrize("name", list(variants()))
def test_untouched_files_are_byte_identical(tmp_path, name):
    raw = clean_variant(variants()[name])
    f = tmp_path / "a.py"
    f.write_bytes(raw)
    assert run_fix(f).exit_code == 0
    assert f.read_bytes() == raw
    # a file that mentions fluid (so it is parsed) but has nothing to fix
    raw2 = raw + (b"\n# fluid is mentioned here\n" if not raw.endswith(b"\r") else b"")
    f.write_bytes(raw2)
    run_fix(f)
    assert f.read_bytes() == raw2


@needs_rule
@pytest.mark.parametrize("name", list(variants()))
def test_upgraded_files_keep_encoding_bom_and_newlines(tmp_path, name):
    imp, use, target = legacy_line()
    raw = variants()[name]
    f = tmp_path / "a.py"
    f.write_bytes(raw)
    rep = run_fix(f)
    assert rep.all_errors == [] and rep.written == [str(f)]
    out = f.read_bytes()
    assert out.startswith(b"\xef\xbb\xbf") == raw.startswith(b"\xef\xbb\xbf")
    text = out.decode(codec_of(name))
    assert "fluid" not in text and target in text
    # every line without legacy usage survives byte for byte, with its own line ending
    for line in raw.splitlines(keepends=True):
        if b"fluid" not in line and not line.startswith(b"\xef\xbb\xbf"):
            assert line in out, (name, line[:60])
    if name == "crlf":
        assert out.count(b"\n") == out.count(b"\r\n")
    assert out.endswith((b"\n", b"\r")) == raw.endswith((b"\n", b"\r"))
    assert run_fix(f).written == [] and f.read_bytes() == out  # idempotent


@needs_rule
def test_file_mode_is_kept(tmp_path):
    f = tmp_path / "train.py"
    f.write_text("#!/usr/bin/env python\n" + SNIPPET[0])
    os.chmod(f, 0o750)
    run_fix(f)
    assert stat.S_IMODE(os.stat(f).st_mode) == 0o750 and "fluid" not in f.read_text()


@needs_rule
def test_concurrent_edit_is_not_overwritten(tmp_path, monkeypatch):
    f = tmp_path / "a.py"
    f.write_text(SNIPPET[0])
    real = runner._engine_call

    def engine(code, **kw):
        res = real(code, **kw)
        if kw.get("fix"):
            f.write_text(SNIPPET[0] + "# typed by the user while the tool ran\n")
        return res
    monkeypatch.setattr(runner, "_engine_call", engine)
    rep = run_fix(f)
    assert rep.exit_code == 2 and "changed on disk" in rep.all_errors[0]["message"]
    assert f.read_text().endswith("# typed by the user while the tool ran\n")


@needs_cli
@needs_rule
def test_undecodable_file_is_reported_exit_2_and_others_proceed(tmp_path):
    imp, use, _ = legacy_line()
    bad = tmp_path / "bad.py"
    bad.write_bytes(f"{imp}\n# 中文\n{use}\n".encode("gbk"))  # GBK without a cookie
    good = tmp_path / "good.py"
    good.write_text(SNIPPET[0])
    before = bad.read_bytes()
    res = cli("fix", "--no-cache", tmp_path)
    assert res.returncode == 2, res.stdout + res.stderr
    out = res.stdout + res.stderr
    assert f"{bad}:2" in out and "decode" in out
    assert bad.read_bytes() == before
    assert "fluid" not in good.read_text()


@needs_cli
@needs_rule
def test_check_exit_codes_through_the_cli(tmp_path):
    (tmp_path / "clean.py").write_text("import os\n")
    assert cli("check", "--no-cache", tmp_path).returncode == 0
    (tmp_path / "old.py").write_text(SNIPPET[0])
    assert cli("check", "--no-cache", tmp_path).returncode == 1
    (tmp_path / "py2.py").write_text("import paddle.fluid as fluid\nprint 'x'\n")
    res = cli("check", "--no-cache", tmp_path)
    assert res.returncode == 2 and "2to3" in res.stdout + res.stderr


@needs_cli
@needs_rule
@pytest.mark.parametrize("jobs", [[], ["--jobs", "1"]])
def test_ctrl_c_stops_cleanly_and_reports_exactly_what_was_written(tmp_path, jobs):
    code = SNIPPET[0]
    for i in range(80):
        (tmp_path / f"m{i:03d}.py").write_text(code + f"v = {i}\n")
    original = code + "v = 0\n"
    proc = subprocess.Popen([str(CLI), "fix", "--no-cache", *jobs, str(tmp_path)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            start_new_session=True)
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:  # wait until some, not all, files are written
        if any("fluid" not in p.read_text() for p in tmp_path.glob("*.py")):
            break
        time.sleep(0.02)
    os.killpg(proc.pid, signal.SIGINT)
    out, err = proc.communicate(timeout=120)
    upgraded = sorted(p.name for p in tmp_path.glob("*.py") if "fluid" not in p.read_text())
    for p in tmp_path.glob("*.py"):  # whole files only
        text = p.read_text()
        assert text.endswith(f"v = {int(p.stem[1:])}\n") and (
            "fluid" in text) == (text == original.replace("v = 0", f"v = {int(p.stem[1:])}"))
    if len(upgraded) == 80:
        pytest.skip("the run finished before Ctrl-C arrived")
    assert proc.returncode == 2, out + err
    line = [l for l in (out + err).splitlines() if l.startswith("Interrupted:")][0]
    assert line.startswith(f"Interrupted: {len(upgraded)} file(s) had been written")
    assert sorted(Path(x.strip()).name for x in line.split(": ", 2)[2].split(";")[0].split(",")) \
        == upgraded
