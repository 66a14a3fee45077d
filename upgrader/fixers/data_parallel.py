"""PU212 data-parallel: 1.8 dygraph data parallel → ``init_parallel_env`` + ``paddle.DataParallel``.

What it does
    For a model wrapped by ``fluid.dygraph.DataParallel(model, strategy)`` (the wrapper
    itself becomes ``paddle.DataParallel(model)``, rule PU101):
    ``loss = model.scale_loss(loss)`` and ``model.apply_collective_grads()`` are deleted
    (``pass`` when they were the only statement of a block), ``y = model.scale_loss(x)``
    becomes ``y = x``, and ``strategy = fluid.dygraph.prepare_context()`` becomes
    ``paddle.distributed.init_parallel_env()`` when the strategy was only handed to
    ``DataParallel``.

Why is this bad?
    Paddle 2.0+ ``DataParallel`` averages the gradients across ranks inside
    ``loss.backward()``. 1.8 did it in two explicit steps: ``scale_loss`` divided the loss
    by the number of ranks and ``apply_collective_grads`` summed the gradients. Both are
    kept only as deprecated no-ops today; ``init_parallel_env()`` returns a process group
    (or ``None`` with one process), not the 1.8 ``ParallelStrategy``.

Example
    ``strategy = fluid.dygraph.prepare_context()`` /
    ``model = fluid.dygraph.DataParallel(model, strategy)`` / ``loss = model.scale_loss(loss)`` /
    ``loss.backward()`` / ``model.apply_collective_grads()`` becomes
    ``paddle.distributed.init_parallel_env()`` / ``model = paddle.DataParallel(model)`` /
    ``loss.backward()``.

Fix safety
    Safe: the parameters after each step are the same (proven with two processes on CPU
    against the single-process 1.8.5 run on the whole batch, tests/test_distributed.py).
    One visible difference: with N ranks 1.8's scaled loss printed as loss / N, the loss
    is now the rank's unscaled loss. A ``prepare_context()`` result used for anything else
    than ``DataParallel`` (``strategy.nranks``, ...) is manual: use
    ``paddle.distributed.get_world_size()`` / ``get_rank()``.
"""
from __future__ import annotations

from typing import Dict, List, Optional, Set, Tuple

import libcst as cst

from upgrader import removal
from upgrader.args import Manual, bind, code_of

CODE = "PU212"
STRUCTURAL = ("data-parallel",)

DATA_PARALLEL = ("paddle.fluid.dygraph.DataParallel", "paddle.fluid.dygraph.parallel.DataParallel")
PREPARE = ("paddle.fluid.dygraph.prepare_context", "paddle.fluid.dygraph.parallel.prepare_context")
METHODS = ("scale_loss", "apply_collective_grads")


class _Plan:
    def __init__(self):
        self.wrapped: Set[str] = set()          # source of targets bound to DataParallel(...)
        self.actions: Dict[int, tuple] = {}     # id(statement) -> (kind, data)
        self.strategy_ok: Dict[int, bool] = {}  # id(prepare_context call) -> only fed to DataParallel


def _resolves(up, node, names) -> bool:
    from upgrader.names import dotted_of
    d = dotted_of(node)
    if d is None:
        return False
    head, _, rest = d.partition(".")
    base = up.imports.resolve_name(head)
    if base is None:
        return False
    full = f"{base}.{rest}" if rest else base
    entry = up.rules.lookup(full)
    return entry is not None and entry.name in names or full in names


def _single(stmt: cst.SimpleStatementLine):
    return stmt.body[0] if len(stmt.body) == 1 else None


def _method_call(node, method):
    if isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute) and \
            node.func.attr.value == method:
        return node
    return None


class _Survey(cst.CSTVisitor):
    """Simple statements and the Name nodes read as values, each with its function scope."""

    def __init__(self, up):
        self.up = up
        self.scopes: List[int] = [0]
        self.statements: List[Tuple[cst.SimpleStatementLine, int]] = []
        self.loads: Dict[Tuple[str, int], list] = {}
        self.dp_calls: List[cst.Call] = []

    def visit_SimpleStatementLine(self, node):
        self.statements.append((node, self.scopes[-1]))

    def visit_Call(self, node):
        if _resolves(self.up, node.func, DATA_PARALLEL):
            self.dp_calls.append(node)

    def visit_Name(self, node):
        self.loads.setdefault((node.value, self.scopes[-1]), []).append(node)

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

    def visit_FunctionDef(self, node):
        for d in node.decorators:
            d.visit(self)
        self.scopes.append(id(node))
        node.params.visit(self)
        node.body.visit(self)
        self.scopes.pop()
        return False

    def visit_Lambda(self, node):
        self.scopes.append(id(node))
        node.body.visit(self)
        self.scopes.pop()
        return False

    def visit_ClassDef(self, node):
        for d in node.decorators:
            d.visit(self)
        for a in node.bases:
            a.visit(self)
        node.body.visit(self)
        return False

    def visit_Import(self, node):
        return False

    def visit_ImportFrom(self, node):
        return False


def plan(up) -> _Plan:
    """Survey the whole (original) module once: wrapped models, removable statements."""
    p = getattr(up, "_data_parallel_plan", None)
    if p is not None:
        return p
    p = up._data_parallel_plan = _Plan()
    v = _Survey(up)
    up.module.visit(v)
    for stmt, _ in v.statements:
        s = _single(stmt)
        if isinstance(s, cst.Assign) and len(s.targets) == 1 and isinstance(s.value, cst.Call) \
                and _resolves(up, s.value.func, DATA_PARALLEL):
            p.wrapped.add(code_of(s.targets[0].target))
    # strategies handed to DataParallel(model, strategy)
    fed: Set[int] = set()
    for call in v.dp_calls:
        for i, a in enumerate(call.args):
            if (a.keyword is None and i == 1) or (a.keyword is not None and a.keyword.value == "strategy"):
                if isinstance(a.value, cst.Name):
                    fed.add(id(a.value))
    for stmt, scope in v.statements:
        s = _single(stmt)
        if isinstance(s, cst.Expr):
            call = _method_call(s.value, "apply_collective_grads")
            if call is not None and not call.args and code_of(call.func.value) in p.wrapped:
                p.actions[id(stmt)] = ("remove", "apply_collective_grads")
        elif isinstance(s, cst.Assign) and len(s.targets) == 1:
            call = _method_call(s.value, "scale_loss")
            if call is not None and code_of(call.func.value) in p.wrapped and len(call.args) == 1 \
                    and call.args[0].keyword is None and not call.args[0].star:
                arg = call.args[0].value
                if code_of(arg) == code_of(s.targets[0].target):
                    p.actions[id(stmt)] = ("remove", "scale_loss")
                else:
                    p.actions[id(stmt)] = ("value", arg)
            elif isinstance(s.value, cst.Call) and _resolves(up, s.value.func, PREPARE) \
                    and isinstance(s.targets[0].target, cst.Name):
                target = s.targets[0].target
                uses = [n for n in v.loads.get((target.value, scope), []) if n is not target]
                ok = scope != 0 or not any(  # a module-level strategy read inside a function
                    n for (name, sc), ns in v.loads.items() if name == target.value and sc != 0
                    for n in ns)
                ok = ok and all(id(n) in fed for n in uses)
                p.strategy_ok[id(s.value)] = ok
                if ok:
                    p.actions[id(stmt)] = ("drop_target", None)
    return p


def _enabled(up, node) -> bool:
    return up.opts.enabled(CODE) and not up.suppressed(up.pos(node)[0], CODE)


def rewrite_call(up, original: cst.Call, updated: cst.Call, entry):
    """``prepare_context()``: the data rule, unless its strategy is used beyond DataParallel.
    ``DataParallel(layers, strategy)``: the data rule (strategy dropped), unless dropping the
    strategy expression would drop a call (``DataParallel(m, prepare_context())``)."""
    if entry.name in DATA_PARALLEL:
        bound = bind(entry, updated)
        if not isinstance(bound, Manual):
            strategy = bound.values.get("strategy")
            if strategy is not None and not isinstance(strategy.value, (cst.Name, cst.Attribute)):
                up.report_entry(original, entry, False, manual=(
                    "the strategy argument is an expression that would be dropped with its side "
                    "effects: call paddle.distributed.init_parallel_env() first, then "
                    "paddle.DataParallel(layers)"))
                return updated
        return up.apply_entry(original, updated, entry)
    p = plan(up)
    if p.strategy_ok.get(id(original)) is False:
        up.report_entry(original, entry, False, manual=(
            "the returned 1.8 ParallelStrategy is used beyond DataParallel; "
            "paddle.distributed.init_parallel_env() returns a process group: read "
            "paddle.distributed.get_world_size() / get_rank() instead"))
        return updated
    return up.apply_entry(original, updated, entry)


def leave_statement(up, original, updated):
    """Statement hook (every simple and compound statement): the planned rewrites."""
    result = _leave(up, original, updated)
    if result is not cst.RemovalSentinel.REMOVE:
        result = removal.carry_in(up, original, result)
    return result


def _leave(up, original, updated):
    if not isinstance(updated, cst.SimpleStatementLine):
        return updated
    s = _single(original)
    if s is None or not isinstance(s, (cst.Expr, cst.Assign)):
        return updated
    value = s.value
    if not isinstance(value, cst.Call) or not isinstance(value.func, (cst.Attribute, cst.Name)):
        return updated
    if isinstance(value.func, cst.Attribute) and value.func.attr.value not in METHODS \
            and not value.func.attr.value.endswith("prepare_context"):
        return updated
    if isinstance(value.func, cst.Name) and value.func.value != "prepare_context" and \
            up.imports.resolve_name(value.func.value) not in PREPARE:
        return updated
    p = plan(up)
    action = p.actions.get(id(original))
    if action is None or not _enabled(up, original):
        return updated
    kind, data = action
    if kind == "drop_target":
        new_value = updated.body[0].value
        if not code_of(new_value).startswith("paddle.distributed.init_parallel_env"):
            return updated  # the call itself was not rewritten (noqa, select, manual)
        up.report(original, CODE, "the ParallelStrategy returned by `prepare_context()` is no "
                  "longer needed: `paddle.distributed.init_parallel_env()`",
                  "paddle.fluid.dygraph.prepare_context", "paddle.distributed.init_parallel_env",
                  "safe", applied=True)
        return updated.with_changes(body=[cst.Expr(value=new_value)])
    if kind == "value":
        up.report(original, CODE, "`scale_loss(x)` → `x`: DataParallel averages gradients in "
                  "backward", "paddle.fluid.dygraph.DataParallel.scale_loss", "", "safe",
                  applied=True)
        assign = updated.body[0]
        return updated.with_changes(body=[assign.with_changes(value=data)])
    up.report(original, CODE, f"`{data}()` removed: paddle.DataParallel averages gradients "
              "across ranks in backward", f"paddle.fluid.dygraph.DataParallel.{data}", "",
              "safe", applied=True)
    return removal.remove(up, original, updated)
