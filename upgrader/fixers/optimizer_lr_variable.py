"""PU104 optimizer-lr-variable: an optimizer given a learning rate computed in the program.

What it does
    Reports as manual an optimizer (``fluid.optimizer.SGD``, ``Momentum``, ``Adam``, ...)
    whose ``learning_rate`` is a graph variable: a ``fluid.layers`` call other than the
    learning-rate decays (``create_global_var``, ``fill_constant``, the global step of
    ``learning_rate_scheduler._decay_step_counter()``, ...), arithmetic on such a value, a
    name every assignment of which in the module is one, or a call of a function of the
    module that returns one (the ERNIE/BERT ``linear_warmup_decay`` helpers); a ``paddle.*``
    operator counts too, so that a second ``fix`` of the upgraded module keeps the call.

Why is this bad?
    1.8's static optimizers read a Variable learning rate at every run, so custom schedules
    were built in the program. ``paddle.optimizer`` classes take a float or an
    ``LRScheduler`` only: the renamed call raises TypeError ("learning rate should be float
    or LRScheduler") on Paddle 3.3.1.

Example
    ``lr = fluid.layers.create_global_var(shape=[1], value=0.05, dtype='float32',
    persistable=True)``; ``fluid.optimizer.Momentum(learning_rate=lr * 2.0, momentum=0.9)``
    is left for a manual migration.

Fix safety
    Manual: write the schedule as a ``paddle.optimizer.lr.LRScheduler`` (for example
    ``paddle.optimizer.lr.LambdaDecay(base_lr, lambda step: ...)``) and call
    ``scheduler.step()`` after each run. The ``fluid.layers.*_decay`` functions are not
    concerned (PU214 makes them schedulers); a learning rate the module does not show to be
    a graph value (a float, a parameter of the enclosing function, an attribute) is
    rewritten as before.
"""
from __future__ import annotations

import ast
from typing import Dict, Optional, Set

import libcst as cst

CODE = "PU104"
MANUAL_WHEN = tuple("paddle.fluid.optimizer." + n for n in (
    "SGD", "Momentum", "Adagrad", "Adam", "Adamax", "RMSProp", "LambOptimizer", "LarsMomentum"))

#: functions of fluid.layers that return a learning-rate schedule PU214 rewrites
_DECAYS = frozenset(("exponential_decay", "natural_exp_decay", "inverse_time_decay",
                     "polynomial_decay", "piecewise_decay", "noam_decay", "cosine_decay",
                     "linear_lr_warmup"))

WHY = ("learning_rate is a variable computed in the program (`{code}`): 1.8 read it at every "
       "run, paddle.optimizer classes take only a float or an LRScheduler (a variable raises "
       "TypeError on 3.3.1). Write the schedule as a paddle.optimizer.lr.LRScheduler (e.g. "
       "paddle.optimizer.lr.LambdaDecay(base_lr, lambda step: ...)) and call "
       "scheduler.step() after each run")


def manual_reason(up, original: cst.Call, entry) -> Optional[str]:
    arg = _learning_rate(original)
    if arg is None or isinstance(arg, (cst.Integer, cst.Float)):
        return None
    if "fluid" not in up.source:  # pragma: no cover - an optimizer entry implies it
        return None
    code = cst.Module([]).code_for_node(arg)
    try:
        expr = ast.parse(code.strip(), mode="eval").body
    except SyntaxError:
        return None
    facts = _facts(up)
    return WHY.format(code=code.strip()) if facts.graph(expr) else None


def _learning_rate(call: cst.Call) -> Optional[cst.BaseExpression]:
    for i, a in enumerate(call.args):
        if a.keyword is not None and a.keyword.value == "learning_rate":
            return a.value
        if a.keyword is None and not a.star and i == 0:
            return a.value
    return None


def _facts(up) -> "_Facts":
    cached = getattr(up, "_lr_variable_facts", None)
    if cached is None or cached.source is not up.source:
        cached = up._lr_variable_facts = _Facts(up)
    return cached


def _dotted(node: ast.AST) -> Optional[str]:
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        return None
    parts.append(node.id)
    return ".".join(reversed(parts))


class _Facts(object):
    """Which names and module functions of the module hold / return graph values."""

    def __init__(self, up):
        from upgrader import untouched
        self.up = up
        self.source = up.source
        self.assigned: Dict[str, list] = {}   # name -> every value assigned to it
        self.returns: Dict[str, list] = {}    # module-level function -> its return values
        self.names: Set[str] = set()
        self.functions: Set[str] = set()
        try:
            tree = untouched.parse(up.source)
        except SyntaxError:
            return
        for stmt in tree.body:
            if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)):
                self.returns[stmt.name] = [n.value for n in ast.walk(stmt)
                                           if isinstance(n, ast.Return) and n.value is not None]
        for node in ast.walk(tree):
            if isinstance(node, ast.Assign):
                for t in node.targets:
                    if isinstance(t, ast.Name):
                        self.assigned.setdefault(t.id, []).append(node.value)
                    elif isinstance(t, (ast.Tuple, ast.List)):
                        for e in t.elts:  # unpacked values: not followed
                            if isinstance(e, ast.Name):
                                self.assigned.setdefault(e.id, []).append(None)
            elif isinstance(node, (ast.AugAssign, ast.AnnAssign)) and isinstance(node.target, ast.Name):
                self.assigned.setdefault(node.target.id, []).append(node.value)
            elif isinstance(node, (ast.For, ast.comprehension)):
                for n in ast.walk(node.target):
                    if isinstance(n, ast.Name):
                        self.assigned.setdefault(n.id, []).append(None)
            elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
                a = node.args
                for p in a.posonlyargs + a.args + a.kwonlyargs + [a.vararg, a.kwarg]:
                    if p is not None:
                        self.assigned.setdefault(p.arg, []).append(None)
        changed = True
        while changed:  # a fixed point: names and functions built from graph values
            changed = False
            for name, values in self.assigned.items():
                if name not in self.names and values and all(
                        v is not None and self._graph(v) for v in values):
                    self.names.add(name)
                    changed = True
            for name, values in self.returns.items():
                if name not in self.functions and values and all(self._graph(v) for v in values):
                    self.functions.add(name)
                    changed = True

    def graph(self, node: ast.AST) -> bool:
        return self._graph(node)

    def _graph(self, node: ast.AST) -> bool:
        if isinstance(node, ast.Name):
            return node.id in self.names
        if isinstance(node, ast.BinOp):
            return self._graph(node.left) or self._graph(node.right)
        if isinstance(node, ast.UnaryOp):
            return self._graph(node.operand)
        if isinstance(node, ast.Call):
            dotted = _dotted(node.func)
            if dotted is None:
                return False
            if dotted in self.functions:
                return True
            full = self._resolve(dotted)
            if full is None or not full.startswith("paddle.") or full.startswith(
                    ("paddle.optimizer.lr.", "paddle.fluid.dygraph.")):
                return False  # not paddle, or a schedule object (a valid learning rate)
            last = full.rsplit(".", 1)[-1]
            if full.startswith("paddle.fluid."):
                return ((".layers." in full and last not in _DECAYS)
                        or last in ("data", "create_global_var"))
            return True  # today's operators (a module already upgraded once)
        return False

    def _resolve(self, dotted: str) -> Optional[str]:
        head, _, rest = dotted.partition(".")
        base = self.up.imports.resolve_name(head)
        if base is None:
            return None
        return f"{base}.{rest}" if rest else base
