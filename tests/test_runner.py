"""The runner: modes, prefilter, noqa, selection, cache, errors, jobs, interrupts."""
import os
import subprocess
from pathlib import Path

import pytest

from _upgrade_fakes import fake_engine, real_snippet
from upgrader import config as cfg
from upgrader import runner


@pytest.fixture
def fake(monkeypatch):
    monkeypatch.setattr(runner, "_engine_call", fake_engine)


def tree(tmp_path, files):
    for name, text in files.items():
        p = tmp_path / name
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text) if isinstance(text, str) else p.write_bytes(text)
    return tmp_path


def run(tmp_path, mode="check", **kw):
    kw.setdefault("jobs", 1)
    kw.setdefault("use_cache", False)
    settings = kw.pop("settings", None) or cfg.Settings(root=tmp_path)
    return runner.run([tmp_path], mode=mode, settings=settings, **kw)


LEGACY = "import paddle.fluid as fluid\ny = fluid.relu(x)\n"


# ------------------------------------------------------------------------ prefilter

@pytest.mark.parametrize("code", [
    "import paddle.fluid as fluid\n",
    "from paddle import fluid\n",
    "import importlib\nm = importlib.import_module('paddle.fluid')\n",
    "m = __import__('paddle.fluid')\n",
    "import paddle\npaddle.fluid.layers.fc(x, 2)\n",
    "from paddle.fluid.dygraph import Linear\n",
    "import paddle\nreader = paddle.batch(r, 32)\n",
    "import paddle\nds = paddle.dataset.mnist.train()\n",
    "import paddle\nr = paddle.reader.shuffle(r, 100)\n",
    "from paddle import batch\n",
])
def test_prefilter_never_skips_legacy_usage(code):
    assert runner.is_candidate(code)
    assert runner.is_candidate(code.encode("utf-8"))


@pytest.mark.parametrize("code", [
    "import os\n", "import paddle\nx = paddle.to_tensor([1])\n", "batch = 3\n",
])
def test_prefilter_skips_files_without_markers(code):
    assert not runner.is_candidate(code)


def test_markers_include_non_fluid_rule_book_names():
    assert "fluid" in runner.legacy_markers()
    assert {"batch", "reader", "dataset"} <= set(runner.legacy_markers())


def test_skipped_files_are_reported_as_such(tmp_path, fake):
    rep = run(tree(tmp_path, {"clean.py": "import os\n", "old.py": LEGACY}))
    by = {Path(r.path).name: r for r in rep.files}
    assert by["clean.py"].skipped and not by["old.py"].skipped


# ---------------------------------------------------------------------------- modes

def test_check_reports_and_writes_nothing(tmp_path, fake):
    tree(tmp_path, {"a.py": LEGACY})
    rep = run(tmp_path, "check")
    assert [f["code"] for f in rep.findings] == ["PU101"]
    assert rep.findings[0]["path"] == str(tmp_path / "a.py")
    assert rep.exit_code == 1 and (tmp_path / "a.py").read_text() == LEGACY


def test_diff_shows_unified_diff_and_writes_nothing(tmp_path, fake):
    tree(tmp_path, {"a.py": LEGACY})
    rep = run(tmp_path, "diff")
    d = rep.files[0].diff
    assert "-y = fluid.relu(x)" in d and "+y = paddle.relu(x)" in d
    assert d.startswith(f"--- a/{tmp_path / 'a.py'}")
    assert (tmp_path / "a.py").read_text() == LEGACY and rep.exit_code == 0


def test_diff_marks_missing_trailing_newline(tmp_path, fake):
    tree(tmp_path, {"a.py": "y = fluid.relu(x)"})
    assert "\\ No newline at end of file" in run(tmp_path, "diff").files[0].diff


def test_fix_writes_and_exit_reflects_manual_follow_ups(tmp_path, fake):
    tree(tmp_path, {"a.py": LEGACY, "b.py": "z = fluid.manual_thing(x)\n"})
    rep = run(tmp_path, "fix")
    assert (tmp_path / "a.py").read_text() == LEGACY.replace("fluid.relu", "paddle.relu")
    assert (tmp_path / "b.py").read_text() == "z = fluid.manual_thing(x)\n"
    assert [f["code"] for f in rep.findings] == ["PU102"]
    assert rep.written == [str(tmp_path / "a.py")] and rep.fixed == 1
    assert rep.exit_code == 1


def test_fix_clean_tree_exits_zero_and_is_byte_identical(tmp_path, fake):
    tree(tmp_path, {"a.py": "import os\r\n", "b.py": b"\xef\xbb\xbfx = 1"})
    before = {p: p.read_bytes() for p in tmp_path.iterdir()}
    rep = run(tmp_path, "fix")
    assert rep.exit_code == 0 and {p: p.read_bytes() for p in tmp_path.iterdir()} == before


def test_unsafe_fixes_only_with_the_option(tmp_path, fake):
    tree(tmp_path, {"a.py": "y = fluid.unsafe_op(x)\n"})
    rep = run(tmp_path, "fix")
    assert rep.exit_code == 1 and "fluid.unsafe_op" in (tmp_path / "a.py").read_text()
    rep = run(tmp_path, "fix", settings=cfg.Settings(root=tmp_path, unsafe_fixes=True))
    assert rep.exit_code == 0 and "paddle.unsafe_op" in (tmp_path / "a.py").read_text()


# --------------------------------------------------------------------- noqa, select

def test_noqa_on_line_and_on_first_line_of_statement(tmp_path, fake):
    tree(tmp_path, {"a.py": (
        "a = fluid.relu(x)  # noqa\n"
        "b = fluid.relu(x)  # noqa: PU101\n"
        "c = fluid.relu(x)  # noqa: PU2\n"
        "d = f(  # noqa: PU1\n"
        "    fluid.relu(x))\n"
        "s = '# noqa'; e = fluid.relu(x)\n")})
    rep = run(tmp_path)
    assert sorted(f["line"] for f in rep.findings) == [3, 6]


def test_report_unused_noqa(tmp_path, fake):
    tree(tmp_path, {"a.py": "a = fluid.relu(x)  # noqa: PU101,PU205\nb = 1  # noqa: E501\n"})
    rep = run(tmp_path, settings=cfg.Settings(root=tmp_path, report_unused_noqa=True))
    assert [(f["code"], f["line"]) for f in rep.findings] == [("PU900", 1)]
    assert "PU205" in rep.findings[0]["message"]


def test_select_ignore_and_per_file_ignores(tmp_path, fake):
    tree(tmp_path, {"a.py": "y = fluid.relu(x)\nz = fluid.manual_op(x)\n",
                    "tests/t.py": "y = fluid.relu(x)\n"})
    codes = lambda rep: sorted((Path(f["path"]).name, f["code"]) for f in rep.findings)
    assert codes(run(tmp_path, settings=cfg.Settings(root=tmp_path, ignore=["PU102"]))) == \
        [("a.py", "PU101"), ("t.py", "PU101")]
    assert codes(run(tmp_path, settings=cfg.Settings(root=tmp_path, select=["PU102"]))) == \
        [("a.py", "PU102")]
    s = cfg.Settings(root=tmp_path, per_file_ignores={"tests/*": ["PU1"]})
    assert codes(run(tmp_path, settings=s)) == [("a.py", "PU101"), ("a.py", "PU102")]
    # ignored codes are not fixed either
    run(tmp_path, "fix", settings=cfg.Settings(root=tmp_path, ignore=["PU101"]))
    assert "fluid.relu" in (tmp_path / "a.py").read_text()


# ------------------------------------------------------------------------- errors

def test_python2_file_reported_with_hint_others_proceed(tmp_path, fake):
    tree(tmp_path, {"old.py": "import paddle.fluid as fluid\nprint 'hello'\n", "a.py": LEGACY})
    rep = run(tmp_path, "fix")
    (err,) = rep.all_errors
    assert err["path"] == str(tmp_path / "old.py") and err["line"] == 2
    assert "2to3" in err["message"]
    assert (tmp_path / "old.py").read_text() == "import paddle.fluid as fluid\nprint 'hello'\n"
    assert "paddle.relu" in (tmp_path / "a.py").read_text()
    assert rep.exit_code == 2


def test_engine_crash_on_one_file_is_an_error_not_a_stop(tmp_path, monkeypatch):
    def engine(code, **kw):
        if "boom" in code:
            raise KeyError("boom")
        return fake_engine(code, **kw)
    monkeypatch.setattr(runner, "_engine_call", engine)
    tree(tmp_path, {"a.py": "boom = fluid.relu(x)\n", "b.py": LEGACY})
    rep = run(tmp_path, "fix")
    assert len(rep.all_errors) == 1 and "internal error (KeyError" in rep.all_errors[0]["message"]
    assert "paddle.relu" in (tmp_path / "b.py").read_text()


def test_rewrite_that_does_not_parse_is_never_written(tmp_path, monkeypatch):
    def engine(code, *, fix=True, **kw):
        res = fake_engine(code, fix=fix, **kw)
        if fix and res.changed:
            res.code += "def (:\n"
        return res
    monkeypatch.setattr(runner, "_engine_call", engine)
    tree(tmp_path, {"a.py": LEGACY})
    rep = run(tmp_path, "fix")
    assert "does not parse" in rep.all_errors[0]["message"]
    assert (tmp_path / "a.py").read_text() == LEGACY


def test_concurrent_edit_during_processing_is_not_overwritten(tmp_path, monkeypatch):
    target = tmp_path / "a.py"

    def engine(code, **kw):
        if "fluid" in code and kw.get("fix"):
            target.write_text(LEGACY + "# the user's edit\n")
        return fake_engine(code, **kw)
    monkeypatch.setattr(runner, "_engine_call", engine)
    tree(tmp_path, {"a.py": LEGACY})
    rep = run(tmp_path, "fix")
    assert "changed on disk" in rep.all_errors[0]["message"]
    assert target.read_text() == LEGACY + "# the user's edit\n"


def test_read_only_file_reported_and_left(tmp_path, fake):
    tree(tmp_path, {"a.py": LEGACY})
    os.chmod(tmp_path / "a.py", 0o444)
    rep = run(tmp_path, "fix")
    assert "read-only" in rep.all_errors[0]["message"] and rep.exit_code == 2
    assert (tmp_path / "a.py").read_text() == LEGACY


def test_missing_path_is_exit_2_but_others_checked(tmp_path, fake):
    tree(tmp_path, {"a.py": LEGACY})
    rep = runner.run([tmp_path / "a.py", tmp_path / "missing"], mode="check", jobs=1,
                     use_cache=False, settings=cfg.Settings(root=tmp_path))
    assert rep.findings and rep.exit_code == 2


# ----------------------------------------------------------------------- cache

def test_cache_hit_same_result_and_invalidated_by_content_and_options(tmp_path, monkeypatch):
    calls = []

    def engine(code, **kw):
        calls.append(code)
        return fake_engine(code, **kw)
    monkeypatch.setattr(runner, "_engine_call", engine)
    tree(tmp_path, {"a.py": LEGACY})
    s = cfg.Settings(root=tmp_path)
    first = run(tmp_path, settings=s, use_cache=True)
    n = len(calls)
    second = run(tmp_path, settings=s, use_cache=True)
    assert len(calls) == n and second.files[0].cached
    assert second.findings == first.findings
    assert (tmp_path / ".paddle_upgrade_cache" / ".gitignore").exists()
    run(tmp_path, settings=cfg.Settings(root=tmp_path, ignore=["PU2"]), use_cache=True)
    assert len(calls) > n  # options are part of the key
    n = len(calls)
    (tmp_path / "a.py").write_text(LEGACY + "w = fluid.relu(v)\n")
    assert len(run(tmp_path, settings=s, use_cache=True).findings) == 2 and len(calls) > n
    n = len(calls)
    run(tmp_path, settings=s, use_cache=False)
    assert len(calls) > n


def test_cached_fix_still_writes(tmp_path, fake):
    tree(tmp_path, {"a.py": LEGACY})
    s = cfg.Settings(root=tmp_path)
    run(tmp_path, "diff", settings=s, use_cache=True)
    rep = run(tmp_path, "fix", settings=s, use_cache=True)
    assert "paddle.relu" in (tmp_path / "a.py").read_text() and rep.written


# ------------------------------------------------------------------ jobs, SIGINT

def test_jobs_2_gives_the_same_report_as_jobs_1(tmp_path):
    snip = real_snippet()
    files = {f"m{i}.py": (LEGACY if snip is None else snip[0]) for i in range(6)}
    files["clean.py"] = "import os\n"
    files["bad.py"] = "import paddle.fluid\nprint 'x'\n"
    tree(tmp_path, files)
    one = run(tmp_path, "check", jobs=1)
    two = run(tmp_path, "check", jobs=2)
    assert one.findings == two.findings and one.all_errors == two.all_errors
    assert [r.path for r in one.files] == [r.path for r in two.files]


def test_interrupt_stops_cleanly_and_reports_what_was_written(tmp_path, fake, monkeypatch):
    tree(tmp_path, {f"m{i}.py": LEGACY for i in range(5)})
    real = runner.process_file
    seen = []

    def process(path, opts, sf=None):
        if len(seen) == 2:
            raise KeyboardInterrupt
        seen.append(path)
        return real(path, opts, sf)
    monkeypatch.setattr(runner, "process_file", process)
    rep = run(tmp_path, "fix")
    assert rep.interrupted and rep.exit_code == 2
    assert rep.written == seen
    changed = [p for p in tmp_path.glob("*.py") if "paddle.relu" in p.read_text()]
    assert sorted(map(str, changed)) == sorted(seen)


# ---------------------------------------------------------------- git, backup

def git(cwd, *args):
    subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@t", *args], cwd=cwd,
                   check=True, capture_output=True)


def test_require_clean_refuses_dirty_git_tree_and_warns_otherwise(tmp_path, fake):
    tree(tmp_path, {"a.py": LEGACY})
    git(tmp_path, "init", "-q")
    git(tmp_path, "add", "a.py")
    git(tmp_path, "commit", "-qm", "init")
    assert run(tmp_path, "fix", require_clean=True).warnings == []
    git(tmp_path, "commit", "-qam", "fixed")
    (tmp_path / "a.py").write_text(LEGACY)  # uncommitted change
    rep = run(tmp_path, "fix", require_clean=True)
    assert rep.exit_code == 2 and "uncommitted" in rep.all_errors[0]["message"]
    assert (tmp_path / "a.py").read_text() == LEGACY
    rep = run(tmp_path, "fix")
    assert rep.warnings and "uncommitted" in rep.warnings[0]
    assert "paddle.relu" in (tmp_path / "a.py").read_text()


def test_backup_dir_keeps_originals(tmp_path, fake, monkeypatch):
    src = tmp_path / "src"
    tree(src, {"pkg/a.py": LEGACY})
    monkeypatch.chdir(tmp_path)
    runner.run(["src"], mode="fix", jobs=1, use_cache=False, backup_dir="bak",
               settings=cfg.Settings(root=tmp_path))
    assert (tmp_path / "bak" / "src" / "pkg" / "a.py").read_text() == LEGACY
    assert "paddle.relu" in (src / "pkg" / "a.py").read_text()


# ------------------------------------------------------------------- real engine

def test_real_engine_fix_then_check_is_clean_and_idempotent(tmp_path):
    snip = real_snippet()
    if snip is None:
        pytest.skip("the rule book has no simple safe rename yet")
    code, legacy, target = snip
    tree(tmp_path, {"a.py": code, "clean.py": "import os\n"})
    rep = run(tmp_path, "check")
    assert rep.exit_code == 1 and any(f["legacy"] == legacy for f in rep.findings)
    rep = run(tmp_path, "fix")
    assert rep.exit_code == 0, rep.findings
    out = (tmp_path / "a.py").read_text()
    assert "fluid" not in out and target in out
    assert run(tmp_path, "check").exit_code == 0
    run(tmp_path, "fix")
    assert (tmp_path / "a.py").read_text() == out


def test_python2_hint_patterns():
    assert runner.python2_hint("print 'x'\n", 1)
    assert runner.python2_hint("try:\n    pass\nexcept ValueError, e:\n    pass\n")
    assert not runner.python2_hint("print('x')\nd = '2020-01-05'\n", 1)
