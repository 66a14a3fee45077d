"""PU101 exec-strategy: an ``ExecutionStrategy`` that only tuned ``with_data_parallel`` is
deleted with the attributes set on it.

What it does
    ``es = fluid.ExecutionStrategy()``, the statements ``es.<attr> = <value>`` and the
    ``exec_strategy=es`` argument of ``fluid.CompiledProgram(prog).with_data_parallel(...)``
    (which the compiled-program rewrite turns into ``prog``, PU209) go away together when
    those are the only uses of ``es`` in its function (or module).

Why is this bad?
    ``ExecutionStrategy`` is gone in 3.x (``paddle.static.ExecutionStrategy`` no longer
    exists): its settings (``num_threads``, ``num_iteration_per_drop_scope``,
    ``use_thread_barrier``, ...) tuned the ParallelExecutor behind ``with_data_parallel``,
    which is gone too; the upgraded program runs the plain program.

Example
    ``es = fluid.ExecutionStrategy()`` / ``es.num_threads = 1`` /
    ``prog = fluid.CompiledProgram(main).with_data_parallel(loss_name=loss.name,
    exec_strategy=es)`` becomes ``prog = main``.

Fix safety
    Safe: the settings changed how the executor scheduled ops, not what they computed
    (checked on 1.8.5: the same losses with and without them). Only when every use of the
    name is visible and harmless: bound once, by that statement, in a function or the
    module (not read in a nested function, not ``global``), every other use an attribute
    assignment statement of its own whose value calls nothing (its evaluation would be
    lost), or ``exec_strategy=`` of a ``CompiledProgram(<program>).with_data_parallel``
    chain that is rewritten or of a ``ParallelExecutor(...)`` that becomes
    ``_FluidParallelExecutor`` (PU101 parallel-executor drops the argument). Anything else
    (a ``ParallelExecutor`` left as it is, a
    ``DistributedStrategy`` attribute, a returned strategy) stays manual with the entry's
    note.
"""
from __future__ import annotations

from typing import List, Optional, Set

import libcst as cst

from upgrader import removal
from upgrader.args import code_of, literal
from upgrader.fixers import parallel_executor

CODE = "PU101"
STRUCTURAL = ("exec-strategy",)
DELETES = ("exec-strategy",)

_COMPILED = ("paddle.fluid.CompiledProgram", "paddle.fluid.compiler.CompiledProgram")
_SCOPES = (cst.FunctionDef, cst.Lambda, cst.ClassDef)


def _plan(up) -> Set[int]:
    p = getattr(up, "_exec_strategy_drops", None)
    if p is None:
        p = up._exec_strategy_drops = set()
    return p


def _statement_of(up, call: cst.Call) -> Optional[cst.SimpleStatementLine]:
    """``name = <call>`` as a statement line of its own, else None."""
    if not up.stmt_stack:
        return None
    stmt = up.stmt_stack[-1][0]
    if not isinstance(stmt, cst.SimpleStatementLine) or len(stmt.body) != 1:
        return None
    a = stmt.body[0]
    if not isinstance(a, cst.Assign) or a.value is not call or len(a.targets) != 1 \
            or not isinstance(a.targets[0].target, cst.Name):
        return None
    return stmt


def _scope_node(up, stmt) -> cst.CSTNode:
    """The function whose body holds ``stmt`` (innermost), else the module."""
    found: List[cst.CSTNode] = []

    class Find(cst.CSTVisitor):
        def __init__(self):
            super().__init__()
            self.stack: List[cst.CSTNode] = []

        def on_visit(self, node):
            if node is stmt:
                found.append(next((n for n in reversed(self.stack)
                                   if isinstance(n, _SCOPES)), up.module))
                return False
            if found:
                return False
            self.stack.append(node)
            return True

        def on_leave(self, original_node):
            if self.stack and self.stack[-1] is original_node:
                self.stack.pop()

    up.module.visit(Find())
    return found[0] if found else up.module


def _calls_nothing(node: cst.CSTNode) -> bool:
    class V(cst.CSTVisitor):
        bad = False

        def visit_Call(self, n):
            V.bad = True

        def visit_Yield(self, n):
            V.bad = True

        def visit_Await(self, n):
            V.bad = True

        def visit_NamedExpr(self, n):
            V.bad = True

        def visit_Lambda(self, n):
            return False

    V.bad = False
    node.visit(V())
    return not V.bad


def _survey(up, scope: cst.CSTNode, name: str, stmt):
    """The ids of the statements to delete (the constructor's and the attribute
    assignments), or the reason why some use of ``name`` in ``scope`` is not harmless."""
    drops: Set[int] = {id(stmt)}
    ok = [True]
    why: List[str] = []

    class V(cst.CSTVisitor):
        def __init__(self):
            super().__init__()
            self.stack: List[cst.CSTNode] = []
            self.seen = False

        def on_visit(self, node):
            # nested functions are walked with the same rules: a closure's use is harmless
            # or not as in the function itself, and a parameter or assignment of the name
            # there (another variable) is no allowed use, so it keeps the strategy
            if isinstance(node, (cst.Global, cst.Nonlocal)) and any(
                    n.name.value == name for n in node.names):
                ok[0] = False
            if node is stmt:
                self.seen = True
                return False
            parent = self.stack[-1] if self.stack else None
            if isinstance(node, cst.Name) and node.value == name and not (
                    isinstance(parent, cst.Arg) and parent.keyword is node) and not (
                    isinstance(parent, cst.Attribute) and parent.attr is node):
                if not self.seen:
                    ok[0] = False  # used before the strategy is built (a loop)
                    why.append(f"`{name}` is used before it is built")
                self._use(node)
            self.stack.append(node)
            return True

        def on_leave(self, original_node):
            if self.stack and self.stack[-1] is original_node:
                self.stack.pop()

        def _use(self, node):
            st = self.stack
            parent = st[-1] if st else None
            # es.<attr> = <value>: a statement of its own
            if isinstance(parent, cst.Attribute) and parent.value is node and len(st) >= 4 \
                    and isinstance(st[-2], cst.AssignTarget) and st[-2].target is parent \
                    and isinstance(st[-3], cst.Assign) and len(st[-3].targets) == 1 \
                    and isinstance(st[-4], cst.SimpleStatementLine) and len(st[-4].body) == 1:
                if _calls_nothing(st[-3].value):
                    drops.add(id(st[-4]))
                    return
                ok[0] = False
                why.append(f"`{name}.{parent.attr.value} = {code_of(st[-3].value)}` calls a "
                           "function (deleting the statement would skip it)")
                return
            # CompiledProgram(<program>).with_data_parallel(..., exec_strategy=es)
            if isinstance(parent, cst.Arg) and parent.value is node and parent.keyword is not None \
                    and parent.keyword.value == "exec_strategy" and len(st) >= 2 \
                    and isinstance(st[-2], cst.Call) and (
                        _unwrapped(up, st[-2]) or parallel_executor.rewritten(up, st[-2])):
                return
            ok[0] = False
            line = next((n for n in reversed(st) if isinstance(n, cst.BaseStatement)), None)
            where = code_of(line).strip().splitlines()[0] if line is not None else name
            why.append(f"`{name}` is used by `{where[:70]}`")

    if isinstance(scope, cst.ClassDef):
        return "built in a class body"
    scope.visit(V())
    if ok[0]:
        return drops
    return why[0] if why else f"`{name}` is declared global or nonlocal"


def _unwrapped(up, call: cst.Call) -> bool:
    """``call`` is ``<CompiledProgram(p)>.with_data_parallel(...)`` that the compiled-program
    rewrite replaces by ``p`` (small_forms._compiled)."""
    f = call.func
    if not (isinstance(f, cst.Attribute) and f.attr.value == "with_data_parallel"
            and isinstance(f.value, cst.Call)):
        return False
    inner = f.value
    entry = up.entry_for(up.resolve_dotted(inner.func))
    if entry is None or entry.name not in _COMPILED or entry.structural != "compiled-program":
        return False
    first = inner.args[0] if inner.args else None
    if first is None or first.star or (
            first.keyword is not None and first.keyword.value != "program_or_graph"):
        return False
    if literal(code_of(first.value))[0] == "ok":
        return False
    return up.can_apply(entry, inner)


def rewrite_call(up, original: cst.Call, updated: cst.Call, entry):
    if not up.opts.enabled(entry.code) or up.suppressed_node(original, entry.code):
        up.report_entry(original, entry, False)
        return updated
    stmt = _statement_of(up, original)
    drops = "not assigned to a plain name by a statement of its own"
    if original.args:  # 1.8's constructor took none; *args / **kwargs are unknown
        drops = "built with arguments"
    elif stmt is not None:
        name = stmt.body[0].targets[0].target.value
        drops = _survey(up, _scope_node(up, stmt), name, stmt)
    if isinstance(drops, str):
        up.report_entry(original, entry, False, manual=(
            f"{drops}; only a strategy set by attribute assignments and given to a "
            "CompiledProgram(...).with_data_parallel(...) is deleted. Its settings tuned the "
            "ParallelExecutor and have no 3.x counterpart: delete it and its exec_strategy= "
            "arguments"))
        return updated
    _plan(up).update(drops)
    up.report(original, entry.code, f"`{entry.short}` removed with the attributes set on it: "
              "its settings tuned the ParallelExecutor of with_data_parallel, which is gone",
              entry.name, "", "safe", applied=True)
    return updated


def leave_statement(up, original, updated):
    p = getattr(up, "_exec_strategy_drops", None)
    if p and id(original) in p and up.opts.fix:
        return removal.remove(up, original, updated)
    if p:
        return removal.carry_in(up, original, updated)
    return updated
