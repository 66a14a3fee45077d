"""PU213 program-translator: ``ProgramTranslator`` switches and calls → ``paddle.jit``.

What it does
    ``ProgramTranslator().enable(flag)`` and ``ProgramTranslator.get_instance().enable(flag)``
    become ``paddle.jit.enable_to_static(flag)``; ``<translator>.get_output(func, *args)``
    becomes ``paddle.jit.to_static(func, full_graph=True)(*args)`` (1.8 translated the
    function's source, as ``full_graph=True`` does). A translator kept in a variable
    (``translator = fluid.dygraph.ProgramTranslator()``) is handled when the variable is
    only used for those calls: its assignment is deleted.

Why is this bad?
    ``ProgramTranslator`` is gone from the public API: ``@declarative`` became
    ``@paddle.jit.to_static(full_graph=True)`` and the global switch ``ProgramTranslator().enable(False)``
    (run the decorated functions eagerly) became ``paddle.jit.enable_to_static(False)``.

Example
    ``fluid.dygraph.ProgramTranslator().enable(False)`` →
    ``paddle.jit.enable_to_static(False)``; ``out = prog_trans.get_output(func, x)`` →
    ``out = paddle.jit.to_static(func, full_graph=True)(x)``.

Fix safety
    Safe for ``enable`` and ``get_output`` (same results, proven by the bundled program
    ``to_static_control_flow``). The other methods are manual and reported with the
    translator: ``get_func`` (1.8 returned static-graph building code: use
    ``paddle.jit.to_static(func)``), ``get_program`` (``paddle.jit.to_static(func)``
    then ``.get_concrete_program(*args)``), ``get_code`` (``paddle.jit.to_static(func).code``),
    ``save_inference_model`` (``paddle.jit.save(layer, path_prefix, input_spec=...)``).
"""
from __future__ import annotations

from typing import Dict, List, Set

import libcst as cst

from upgrader import removal
from upgrader.names import FastVisitor

CODE = "PU213"
STRUCTURAL = ("program-translator",)

TRANSLATOR = ("paddle.fluid.dygraph.ProgramTranslator",
              "paddle.fluid.dygraph.ProgramTranslator.get_instance")
METHODS = ("enable", "get_output")


class _Plan:
    def __init__(self):
        self.claimed: Set[int] = set()        # id(ProgramTranslator() call) handled by statements
        self.statements: Set[int] = set()     # id(statement) holding translator calls to rewrite
        self.removals: Set[int] = set()       # id(statement) `translator = ProgramTranslator()`
        self.variables: Set[str] = set()      # translator variables that go away


def _translator_call(up, node) -> bool:
    """``ProgramTranslator()`` / ``ProgramTranslator.get_instance()`` (any import spelling)."""
    if not isinstance(node, cst.Call) or node.args:
        return False
    from upgrader.fixers import imported_entry
    entry = imported_entry(up, node.func)
    return entry is not None and entry.name in TRANSLATOR


def _args_ok(call: cst.Call, method: str) -> bool:
    args = list(call.args)
    if method == "enable":
        return len(args) == 1 and not args[0].star and (
            args[0].keyword is None or args[0].keyword.value == "enable_declarative")
    return bool(args) and not args[0].star and args[0].keyword is None


def _method_call(node):
    """(receiver, method) of ``<recv>.enable(...)`` / ``<recv>.get_output(...)``."""
    if isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute) and \
            node.func.attr.value in METHODS and _args_ok(node, node.func.attr.value):
        return node.func.value, node.func.attr.value
    return None


def plan(up, first_call: cst.CSTNode) -> _Plan:
    """Survey the original module, at the first translator call the traversal meets."""
    p = getattr(up, "_program_translator_plan", None)
    if p is not None:
        return p
    here = up.pos(first_call)[:2]
    p = up._program_translator_plan = _Plan()
    names: Dict[str, list] = {}
    bindings: Dict[str, list] = {}   # variable -> [(statement, assign target, value call)]
    uses: Dict[str, list] = {}       # variable -> [(statement, receiver Name)]
    stack: List[cst.CSTNode] = []

    class Survey(FastVisitor):
        def visit_SimpleStatementLine(self, node):
            stack.append(node)
            if len(node.body) == 1 and isinstance(node.body[0], cst.Assign):
                a = node.body[0]
                if len(a.targets) == 1 and isinstance(a.targets[0].target, cst.Name) and \
                        _translator_call(up, a.value):
                    bindings.setdefault(a.targets[0].target.value, []).append(
                        (node, a.targets[0].target, a.value))

        def leave_SimpleStatementLine(self, node):
            stack.pop()

        def visit_Call(self, node):
            m = _method_call(node)
            if m is None or not stack:
                return
            recv, _ = m
            if _translator_call(up, recv):
                p.claimed.add(id(recv))
                p.statements.add(id(stack[-1]))
            elif isinstance(recv, cst.Name):
                uses.setdefault(recv.value, []).append((stack[-1], recv))

        def visit_Name(self, node):
            names.setdefault(node.value, []).append(node)

        def visit_Attribute(self, node):
            node.value.visit(self)
            return False

        def visit_Arg(self, node):
            node.value.visit(self)
            return False

        def visit_Param(self, node):
            if node.default is not None:
                node.default.visit(self)
            return False

        def visit_Import(self, node):
            return False

        def visit_ImportFrom(self, node):
            return False

    up.module.visit(Survey())
    for var, assigns in bindings.items():
        receivers = {id(r) for _, r in uses.get(var, [])}
        targets = {id(t) for _, t, _ in assigns}
        if any(id(n) not in receivers and id(n) not in targets for n in names.get(var, [])):
            continue  # used for something else: the translator stays (manual)
        if any(up.pos(stmt)[2:] < here for stmt, _ in uses.get(var, [])):
            continue  # a use the traversal has already left behind: keep the variable
        p.variables.add(var)
        for stmt, _, value in assigns:
            p.removals.add(id(stmt))
            p.claimed.add(id(value))
        for stmt, _ in uses.get(var, []):
            p.statements.add(id(stmt))
    return p


def _enabled(up, node) -> bool:
    return up.opts.enabled(CODE) and not up.suppressed_node(node, CODE)


def rewrite_call(up, original: cst.Call, updated: cst.Call, entry):
    """``ProgramTranslator()``: silent when a statement rewrite takes it, else manual."""
    if id(original) in plan(up, original).claimed and _enabled(up, original):
        return updated
    up.report_entry(original, entry, False)
    return updated


class _Rewrite(cst.CSTTransformer):
    def __init__(self, up, p):
        super().__init__()
        self.up, self.p, self.done = up, p, []

    def leave_Call(self, original, updated):
        m = _method_call(updated)
        if m is None:
            return updated
        recv, method = m
        if not (_translator_call(self.up, recv) or
                (isinstance(recv, cst.Name) and recv.value in self.p.variables)):
            return updated
        args = list(updated.args)
        self.done.append(method)
        if method == "enable":
            return cst.Call(func=cst.parse_expression("paddle.jit.enable_to_static"),
                            args=[args[0].with_changes(keyword=None, equal=cst.MaybeSentinel.DEFAULT)])
        # full_graph=True: 1.8 translated the function's source (AST), as @declarative did
        # (a lambda: the AST mode cannot read its source on 3.3.1, nor could 1.8.5's)
        static = cst.parse_expression("paddle.jit.to_static(f)" if isinstance(args[0].value, cst.Lambda)
                                      else "paddle.jit.to_static(f, full_graph=True)")
        static = static.with_changes(args=[args[0].with_changes(comma=static.args[0].comma)]
                                     + list(static.args[1:]))
        return cst.Call(func=static, args=args[1:])


def leave_statement(up, original, updated):
    """Statement hook (every simple and compound statement): the planned rewrites."""
    result = _leave(up, original, updated)
    if result is not cst.RemovalSentinel.REMOVE:
        result = removal.carry_in(up, original, result)
    return result


def _leave(up, original, updated):
    if not isinstance(updated, cst.SimpleStatementLine):
        return updated
    # The plan is made at the first translator call (rewrite_call); before it, no statement
    # of this file is concerned (uses left before then keep their translator variable).
    p = getattr(up, "_program_translator_plan", None)
    if p is None or not _enabled(up, original):
        return updated
    if id(original) in p.removals:
        up.report(original, CODE, "the ProgramTranslator object is not needed any more: its "
                  "calls became paddle.jit functions", "paddle.fluid.dygraph.ProgramTranslator",
                  "", "safe", applied=True)
        return removal.remove(up, original, updated)
    if id(original) not in p.statements:
        return updated
    rw = _Rewrite(up, p)
    new = updated.visit(rw)
    for method in rw.done:
        target = "paddle.jit.enable_to_static" if method == "enable" else "paddle.jit.to_static"
        up.report(original, CODE, f"`ProgramTranslator.{method}` → `{target}`",
                  f"paddle.fluid.dygraph.ProgramTranslator.{method}", target, "safe", applied=True)
    return new
