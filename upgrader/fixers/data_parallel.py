"""PU212 data-parallel: 1.8 dygraph data parallel → ``init_parallel_env`` + ``paddle.DataParallel``.

What it does
    For a model wrapped by ``fluid.dygraph.DataParallel(model, strategy)`` (the wrapper
    itself becomes ``paddle.DataParallel(model)``, rule PU101):
    ``loss = model.scale_loss(loss)`` and ``model.apply_collective_grads()`` are deleted
    (``pass`` when they were the only statement of a block), ``y = model.scale_loss(x)``
    becomes ``y = x``, and ``strategy = fluid.dygraph.prepare_context()`` becomes
    ``paddle.distributed.init_parallel_env()`` when the strategy was only handed to
    ``DataParallel``. The collective fleet's no-op calls (entries marked
    ``structural = "collective-noop"``: ``fleet.init_worker()``, ``init_server()``,
    ``run_server()``, ``stop_worker()`` of ``fluid.incubate.fleet.collective``) are deleted
    when they are a statement of their own (``pass`` when they were the only statement of a
    block).

Why is this bad?
    Paddle 2.0+ ``DataParallel`` averages the gradients across ranks inside
    ``loss.backward()``. 1.8 did it in two explicit steps: ``scale_loss`` divided the loss
    by the number of ranks and ``apply_collective_grads`` summed the gradients. Both are
    kept only as deprecated no-ops today; ``init_parallel_env()`` returns a process group
    (or ``None`` with one process), not the 1.8 ``ParallelStrategy``. 1.8's collective
    fleet only logged "You should not call 'init_worker' method for collective mode" for
    the parameter-server calls; ``paddle.distributed.fleet`` raises ``ValueError`` ("Fleet
    can not find suitable runtime handler") for them after ``fleet.init(is_collective=True)``.

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
    ``paddle.distributed.get_world_size()`` / ``get_rank()``. Deleting the collective fleet
    no-ops is safe too (each entry's example, proven on 1.8.5 in both modes; on a line of
    several statements only the call goes). A collective fleet no-op whose
    value is used (``r = fleet.init_worker()``), that shares a one-line block
    (``if a: fleet.stop_worker()``) or whose arguments are more than names, attributes and
    literals (their evaluation would be lost) is manual.
"""
from __future__ import annotations

from typing import Dict, List, Optional, Set, Tuple

import libcst as cst

from upgrader import removal
from upgrader.args import Manual, bind, code_of
from upgrader.fixers import bound_or_report
from upgrader.names import FastVisitor

CODE = "PU212"
STRUCTURAL = ("data-parallel", "collective-noop")
# Structural names whose rewrite deletes the call statement: ``explain`` and docs/rules.md
# show "(call removed)" for their entries instead of the entry's ``target``.
DELETES = ("collective-noop",)

DATA_PARALLEL = ("paddle.fluid.dygraph.DataParallel", "paddle.fluid.dygraph.parallel.DataParallel")
PREPARE = ("paddle.fluid.dygraph.prepare_context", "paddle.fluid.dygraph.parallel.prepare_context")
METHODS = ("scale_loss", "apply_collective_grads")


class _Plan:
    def __init__(self):
        self.wrapped: Set[str] = set()          # source of targets bound to DataParallel(...)
        self.actions: Dict[int, tuple] = {}     # id(statement) -> (kind, data)
        self.strategy_ok: Dict[int, bool] = {}  # id(prepare_context call) -> only fed to DataParallel
        self.noop_calls: Dict[int, Optional[Tuple[int, int]]] = {}  # id(Expr's call) -> (id(line), index)
        self.noop_drops: Dict[int, Dict[int, str]] = {}   # id(line) -> {index: legacy name}


def _resolves(up, node, names) -> bool:
    from upgrader.fixers import imported_name
    full = imported_name(up, node)
    if full is None:
        return False
    entry = up.rules.lookup(full)
    return entry is not None and entry.name in names or full in names


def _single(stmt: cst.SimpleStatementLine):
    return stmt.body[0] if len(stmt.body) == 1 else None


def _method_call(node, method):
    if isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute) and \
            node.func.attr.value == method:
        return node
    return None


class _Survey(FastVisitor):
    """Simple statements and the Name nodes read as values, each with its function scope."""

    def __init__(self, up):
        super().__init__()
        self.up = up
        self.scopes: List[int] = [0]
        self.statements: List[Tuple[cst.SimpleStatementLine, int]] = []
        self.loads: Dict[Tuple[str, int], list] = {}
        self.dp_calls: List[cst.Call] = []
        self.expr_calls: Dict[int, Optional[Tuple[int, int]]] = {}

    def visit_SimpleStatementLine(self, node):
        self.statements.append((node, self.scopes[-1]))
        for i, small in enumerate(node.body):
            if isinstance(small, cst.Expr) and isinstance(small.value, cst.Call):
                self.expr_calls[id(small.value)] = (id(node), i)

    def visit_SimpleStatementSuite(self, node):  # `if a: f()`: not deleted (manual)
        for small in node.body:
            if isinstance(small, cst.Expr) and isinstance(small.value, cst.Call):
                self.expr_calls[id(small.value)] = None

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
    p.noop_calls = v.expr_calls
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
    return up.opts.enabled(CODE) and not up.suppressed_node(node, CODE)


def rewrite_call(up, original: cst.Call, updated: cst.Call, entry):
    """``prepare_context()``: the data rule, unless its strategy is used beyond DataParallel.
    ``DataParallel(layers, strategy)``: the data rule (strategy dropped), unless dropping the
    strategy expression would drop a call (``DataParallel(m, prepare_context())``)."""
    if entry.structural == "collective-noop":
        return _noop_call(up, original, updated, entry)
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


def _plain(node) -> bool:
    return isinstance(node, (cst.Name, cst.Attribute, cst.Integer, cst.Float, cst.SimpleString,
                             cst.ConcatenatedString))


def _noop_call(up, original, updated, entry):
    """A collective fleet no-op: the statement hook deletes it when it is a statement of its
    own; a call whose value is used stays (manual)."""
    bound = bound_or_report(up, original, updated, entry, _enabled(up, original))
    if bound is None:
        return updated
    if not all(_plain(a.value) for a in original.args):
        up.report_entry(original, entry, False, manual=(
            "its arguments would be evaluated no more once the no-op call is deleted: "
            "evaluate them in a statement of their own, then delete the call"))
        return updated
    calls = plan(up).noop_calls
    if id(original) in calls and calls[id(original)] is None:
        up.report_entry(original, entry, False, manual=(
            "it is the body of a one-line block: put the block on its own lines (or write "
            "pass there) and delete the call"))
        return updated
    where = calls.get(id(original))
    if where is None:
        up.report_entry(original, entry, False, manual=(
            "its value is used: 1.8's collective fleet returned None (and logged a warning); "
            "3.x raises ValueError in collective mode: drop the call and use None"))
        return updated
    line, index = where
    plan(up).noop_drops.setdefault(line, {})[index] = entry.name
    return updated


def leave_statement(up, original, updated):
    """Statement hook (every simple and compound statement): the planned rewrites."""
    result = _leave(up, original, updated)
    if result is not cst.RemovalSentinel.REMOVE:
        result = removal.carry_in(up, original, result)
    return result


def _leave(up, original, updated):
    if not isinstance(updated, cst.SimpleStatementLine):
        return updated
    p = getattr(up, "_data_parallel_plan", None)
    drops = p.noop_drops.get(id(original)) if p is not None else None
    if drops:
        return _drop_noops(up, original, updated, drops)
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


def _drop_noops(up, original, updated, drops):
    for name in drops.values():
        up.report(original, CODE, f"`{name.rsplit('.', 1)[-1]}()` of the collective fleet "
                  "deleted: 1.8 only logged that it should not be called in collective mode; "
                  "paddle.distributed.fleet raises ValueError for it", name, "", "safe",
                  applied=True)
    if len(drops) == len(updated.body):
        return removal.remove(up, original, updated)
    body = [s for i, s in enumerate(updated.body) if i not in drops]
    if isinstance(body[-1].semicolon, cst.Semicolon):
        body[-1] = body[-1].with_changes(semicolon=cst.MaybeSentinel.DEFAULT)
    return updated.with_changes(body=body)
