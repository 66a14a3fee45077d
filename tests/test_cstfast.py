"""``upgrader/cstfast.py`` (libcst's ``_parenthesize`` and the base code generator's
``record_syntactic_position`` as plain classes) changes no output: code, positions and the
engine's rewrites and findings are the same with libcst's own generators."""
from __future__ import annotations

import os
from pathlib import Path

import libcst as cst
import pytest
from libcst.metadata import (MetadataWrapper, PositionProvider,
                             WhitespaceInclusivePositionProvider)

from upgrader import config as cfg
from upgrader import cstfast, engine, runner

ROOT = Path(__file__).resolve().parent.parent


def _sources():
    out = []
    for pattern in ("fixtures/**/*.py", "upgrader/**/*.py"):
        out += [p.read_text(encoding="utf-8") for p in sorted(ROOT.glob(pattern))]
    return out


def _observe(texts):
    """Code generation of each module and of every statement, both position providers,
    the engine's statement positions, and fix/check on the legacy ones."""
    out = []
    s = cfg.Settings()
    for text in texts:
        try:
            m = cst.parse_module(text)
        except Exception:
            continue
        empty = cst.Module(body=[])
        w = MetadataWrapper(m, unsafe_skip_copy=True)
        out.append((m.code, [empty.code_for_node(st) for st in m.body],
                    sorted((str(type(n).__name__), str(r)) for n, r in w.resolve(PositionProvider).items()),
                    sorted(str(r) for r in w.resolve(WhitespaceInclusivePositionProvider).values()),
                    sorted(str(r) for r in engine.positions(m).values())))
        if runner.is_candidate(text, runner.legacy_markers()):
            for fix in (True, False):
                try:
                    o = runner.upgrade_python(text, s, "x.py", fix)
                    out.append((o.new_text, o.findings, o.remaining))
                except Exception as exc:  # the same refusal both ways
                    out.append(repr(exc))
    return out


def test_installed_on_this_libcst():
    if os.environ.get("PADDLE_UPGRADE_NO_CST_FAST") == "1":
        pytest.skip("switched off")
    assert cstfast.INSTALLED, "libcst's generators changed: update cstfast._KNOWN after checking them"


def test_same_code_positions_and_results_as_libcsts_generators():
    texts = _sources()
    fast = _observe(texts)
    cstfast.uninstall()
    try:
        reference = _observe(texts)
    finally:
        cstfast.install()
    assert len(fast) > 200
    assert fast == reference


def test_an_error_inside_is_not_swallowed():
    from libcst._nodes.internal import CodegenState

    class Boom(Exception):
        pass

    def run():
        node = cst.parse_expression("(a)")
        state = CodegenState(default_indent="    ", default_newline="\n")
        with pytest.raises(Boom):
            with node._parenthesize(state):
                raise Boom
        return state.tokens

    fast = run()
    cstfast.uninstall()
    try:
        assert run() == fast and ")" not in fast
    finally:
        cstfast.install()


def test_the_walk_raises_and_removes_as_libcst_does():
    class Bad(cst.CSTTransformer):
        def leave_Name(self, original, updated):
            return 3

    class Remove(cst.CSTTransformer):
        def leave_Name(self, original, updated):
            return cst.RemoveFromParent()

    class Flatten(cst.CSTTransformer):
        def leave_Name(self, original, updated):
            return cst.FlattenSentinel([updated, updated])

    class Statements(cst.CSTTransformer):
        def leave_SimpleStatementLine(self, original, updated):
            if "x" in cst.Module(body=[]).code_for_node(original):
                return cst.RemoveFromParent()
            return cst.FlattenSentinel([updated, updated])

    class Args(cst.CSTTransformer):
        def leave_Arg(self, original, updated):
            return cst.RemoveFromParent() if original.keyword else cst.FlattenSentinel([updated, updated])

    def run():
        out = []
        for v in (Bad(), Remove(), Flatten()):
            try:
                out.append(cst.parse_module("a.b\n").visit(v).code)
            except Exception as exc:
                out.append((type(exc).__name__, str(exc)))
        out.append(cst.parse_module("x = 1\ny = 2\n").visit(Statements()).code)
        out.append(cst.parse_module("f(a, k=b)\n").visit(Args()).code)
        return out

    fast = run()
    cstfast.uninstall()
    try:
        assert run() == fast
    finally:
        cstfast.install()
    assert fast[0][0] == "CSTValidationError" and fast[1][0] == fast[2][0] == "TypeError"


def test_visitor_classes_made_per_call_stay_collectable():
    import gc
    import weakref

    def walk():
        class V(cst.CSTVisitor):
            def visit_Name(self, node):
                pass

        class T(cst.CSTTransformer):
            def leave_Name(self, original, updated):
                return updated

        m = cst.parse_module("a = b\n")
        m.visit(V())
        m.visit(T())
        return weakref.ref(V), weakref.ref(T)

    refs = walk()
    gc.collect()
    assert [r() for r in refs] == [None, None]
