"""Fast paths of the engine and the runner give exactly what the straightforward code
gives: one walk for every function's local bindings (``BindingsCollector``) equals
``local_bindings`` per function; the one-walk ``_used_names`` equals the two-walk
reference; positions computed without ``MetadataWrapper`` equal ``PositionProvider``'s;
the per-type dispatch of ``FastVisitor`` calls what libcst's would; the stat cache skips
reading only files whose stat is unchanged, and a warm run reports what a cold one does."""
from __future__ import annotations

import os
import time
from pathlib import Path

import libcst as cst
import pytest
from libcst.metadata import MetadataWrapper, PositionProvider

from upgrader import cache as cache_mod
from upgrader import config as cfg
from upgrader import engine, runner
from upgrader.fixers.imports import _used_names, _used_names_reference
from upgrader.names import BindingsCollector, FastVisitor, local_bindings

from test_fastpaths import CLEAN, key_of, legacy_files, write

ROOT = Path(__file__).resolve().parent.parent

TRICKY = '''
import paddle.fluid as fluid
x = 1
def outer(a, b=(lambda q: q)(1), *args, c: int = 2, **kw):
    global g
    g = 1
    y, [z, *w] = 1, [2, 3]
    (v := 5)
    for i, j in enumerate([]):
        pass
    with open("f") as (fh, other):
        pass
    try:
        pass
    except Exception as exc:
        pass
    k = [m for m in range(3) if (n := m)]
    class Inner:
        attr = 1
        def method(self):
            s = 1
    def nested(p=(r := 1)):
        fluid = 2
        nonlocal_y = lambda t: t + fluid
        return fluid
    @fluid.dygraph.no_grad
    def deco(fluid):
        return fluid.layers.relu(x)
    async def co():
        async for u in aiter():
            pass
        async with ctx() as cm:
            pass
    ann: int = 3
    aug += 1
    global late
    late = 2
    return fluid.layers.fc(x, 3)
lam = lambda fluid: fluid.layers.relu(x)
def shadow_then_global():
    fluid = 1
    global fluid
'''


def sources():
    out = [TRICKY]
    for pattern in ("fixtures/**/*.py", "upgrader/**/*.py", "tests/*.py"):
        out += [p.read_text(encoding="utf-8") for p in sorted(ROOT.glob(pattern))]
    return out


def modules():
    for text in sources():
        try:
            yield text, cst.parse_module(text)
        except Exception:
            continue


def test_one_walk_bindings_equal_local_bindings_per_function():
    count = 0
    for _, m in modules():
        v = BindingsCollector()
        m.visit(v)
        for fn, names in v.bindings.values():
            assert names == local_bindings(fn), (fn.name.value, names ^ local_bindings(fn))
            count += 1
    assert count > 1000


def test_one_walk_used_names_equal_the_two_walk_reference():
    for _, m in modules():
        assert _used_names(m) == _used_names_reference(m)


def test_positions_equal_position_provider():
    for _, m in modules():
        want = MetadataWrapper(m, unsafe_skip_copy=True).resolve(PositionProvider)
        got = engine.positions(m)
        assert dict(want) == dict(got)


def test_fast_visitor_calls_what_libcst_calls():
    class Log:
        def __init__(self):
            self.calls = []

        def visit_Name(self, node):
            self.calls.append(("Name", node.value))

        def leave_Call(self, node):
            self.calls.append(("leave_Call",))

        def visit_FunctionDef(self, node):
            self.calls.append(("def", node.name.value))
            return node.name.value != "skip"

        def visit_FunctionDef_body(self, node):
            self.calls.append(("body", node.name.value))

        def leave_Param_default(self, node):
            self.calls.append(("default", node.name.value))

    class Slow(Log, cst.CSTVisitor):
        def __init__(self):
            Log.__init__(self)
            cst.CSTVisitor.__init__(self)

    class Fast(Log, FastVisitor):
        def __init__(self):
            Log.__init__(self)
            FastVisitor.__init__(self)

    code = "def f(a=b):\n    g(c)\ndef skip(d=e):\n    h(i)\nj(k)\n"
    for text in [code, TRICKY]:
        m = cst.parse_module(text)
        slow, fast = Slow(), Fast()
        m.visit(slow)
        m.visit(fast)
        assert slow.calls == fast.calls and slow.calls


# ------------------------------------------------------------------------ stat cache

def _run(root, **kw):
    return runner.run([root], mode="check", settings=cfg.Settings(root=root), jobs=1, **kw)


def _age(root: Path, seconds: float = 10.0):
    """Make every file look older than the racy window (mtime; ctime moves on with the
    utime call itself, so the cache's clock is moved instead where needed)."""
    t = time.time() - seconds
    for p in root.rglob("*"):
        if p.is_file():
            os.utime(p, (t, t))


@pytest.fixture
def later(monkeypatch):
    """The runner's clock, 10 s ahead: files written by the test are not 'racy'."""
    real = time.time_ns
    monkeypatch.setattr(runner.time, "time_ns", lambda: real() + 10_000_000_000)


def test_warm_run_skips_reading_unchanged_non_candidates(tmp_path, later, monkeypatch):
    files = {**legacy_files(), **CLEAN, "pkg/more_plain.py": "x = [batch for batch in y]\n"}
    root = write(tmp_path / "t", files)
    cold = _run(root, use_cache=True)
    opened = []
    real_open = open

    def spy(path, *a, **kw):
        opened.append(str(path))
        return real_open(path, *a, **kw)

    monkeypatch.setattr("builtins.open", spy)
    warm = _run(root, use_cache=True)
    monkeypatch.setattr("builtins.open", real_open)
    assert key_of(warm) == key_of(cold) == key_of(_run(root, use_cache=False))
    skipped = [r.path for r in warm.files if r.skipped]
    assert skipped and not any(p in opened for p in skipped)


@pytest.mark.parametrize("how", ["rewrite", "same_size_same_mtime", "replace"])
def test_a_changed_file_is_read_again(tmp_path, later, how):
    root = write(tmp_path / "t", {**CLEAN, "target.py": "x = 1  # modern code, nothing legacy here; long enough for the other\n"})
    target = root / "target.py"
    first = _run(root, use_cache=True)
    assert next(r for r in first.files if r.path.endswith("target.py")).skipped
    st = os.stat(target)
    legacy = b"import paddle.fluid as F\ny = F.layers.relu(x)\n"
    if how == "rewrite":
        target.write_bytes(legacy)
    elif how == "same_size_same_mtime":
        new = legacy[:st.st_size].ljust(st.st_size, b" ")
        assert len(new) == st.st_size
        target.write_bytes(new)
        os.utime(target, ns=(st.st_atime_ns, st.st_mtime_ns))  # ctime still moves
    else:
        tmp = root / "tmp.txt"
        tmp.write_bytes(legacy)
        os.replace(tmp, target)
    again = _run(root, use_cache=True)
    r = next(r for r in again.files if r.path.endswith("target.py"))
    assert not r.skipped and r.findings
    assert key_of(again) == key_of(_run(root, use_cache=False))


def test_recently_changed_files_are_not_remembered(tmp_path):
    root = write(tmp_path / "t", CLEAN)
    _run(root, use_cache=True)  # the files were just written: racy, not remembered
    stats = list((root / cache_mod.CACHE_DIR_NAME).rglob("stat-*.json"))
    assert not stats or all(p.read_text() in ("{}",) for p in stats)


def test_stat_cache_is_per_tool_and_noqa_option(tmp_path, later):
    root = write(tmp_path / "t", {**CLEAN, "noqa_only.py": "x = 1  # noqa: PU101\n"})
    _run(root, use_cache=True)
    on = runner.run([root], mode="check", settings=cfg.Settings(root=root, report_unused_noqa=True),
                    jobs=1, use_cache=True)
    off = runner.run([root], mode="check", settings=cfg.Settings(root=root, report_unused_noqa=True),
                     jobs=1, use_cache=False)
    assert key_of(on) == key_of(off)
    assert len(list((root / cache_mod.CACHE_DIR_NAME).rglob("stat-*.json"))) == 2


def test_no_cache_writes_no_stat_cache(tmp_path, later):
    root = write(tmp_path / "t", CLEAN)
    _run(root, use_cache=False)
    assert not list(root.rglob("stat-*.json"))


# ------------------------------------------------------------ remaining after a fix

def _programs():
    out = [p.read_text(encoding="utf-8") for p in sorted(ROOT.glob("fixtures/PU*/*.in.py"))]
    out += [p.read_text(encoding="utf-8") for p in sorted(ROOT.glob("fixtures/programs/*.py"))]
    return out


@pytest.mark.parametrize("settings", [cfg.Settings(), cfg.Settings(unsafe_fixes=True),
                                      cfg.Settings(report_unused_noqa=True),
                                      cfg.Settings(select=["PU1", "PU2"], ignore=["PU202"])],
                         ids=["default", "unsafe", "noqa", "select"])
def test_remaining_after_fix_is_a_fresh_check_of_the_output(settings):
    """What fix reports as left equals a check of the code it wrote (the engine is not run
    again on an output with no legacy marker)."""
    skipped = 0
    for text in _programs():
        out = runner.upgrade_python(text, settings, "x.py", True)
        if not out.changed:
            continue
        fresh = runner.upgrade_python(out.new_text, settings, "x.py", False)
        assert out.remaining == fresh.findings
        skipped += not runner.is_candidate(out.new_text, runner.legacy_markers(),
                                           noqa=settings.report_unused_noqa)
    assert skipped  # the fast path was taken at least once


def test_remaining_after_fix_on_generated_programs():
    from hypothesis import HealthCheck, Phase, given, settings as hsettings
    from strategies import legacy_programs

    @hsettings(max_examples=30, derandomize=True, database=None, deadline=None,
               phases=[Phase.generate], suppress_health_check=list(HealthCheck))
    @given(legacy_programs())
    def check(program):
        s = cfg.Settings()
        out = runner.upgrade_python(program.code, s, "x.py", True)
        if out.changed:
            assert out.remaining == runner.upgrade_python(out.new_text, s, "x.py", False).findings

    check()


@pytest.mark.parametrize("mode", ["check", "diff"])
def test_warm_run_with_workers_reads_the_cache_in_the_parent(tmp_path, later, mode):
    files = {**legacy_files(), **CLEAN}
    root = write(tmp_path / "t", files)
    s = cfg.Settings(root=root)
    cold = runner.run([root], mode=mode, settings=s, jobs=2, use_cache=True)
    warm = runner.run([root], mode=mode, settings=s, jobs=2, use_cache=True)
    plain = runner.run([root], mode=mode, settings=s, jobs=2, use_cache=False)
    processed = [r for r in warm.files if not r.skipped and not r.errors]
    assert processed and all(r.cached for r in processed)
    assert key_of(warm) == key_of(cold) == key_of(plain)


def test_import_upgrader_does_not_import_the_engine():
    import subprocess
    import sys
    code = ("import sys, upgrader, upgrader.cli, upgrader.runner; "
            "print('libcst' in sys.modules); from upgrader import upgrade_source; "
            "print(upgrade_source.__module__)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         cwd=ROOT, check=True).stdout.split()
    assert out == ["False", "upgrader.engine"]
