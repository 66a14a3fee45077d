"""PU104 optimizer-lr-variable: an optimizer given a learning rate computed in the program.

What it does
    An optimizer (``fluid.optimizer.SGD``, ``Momentum``, ``Adam``, ...) whose
    ``learning_rate`` is a graph variable (a ``fluid.layers`` call other than the
    learning-rate decays: ``create_global_var``, ``fill_constant``, the global step of
    ``learning_rate_scheduler._decay_step_counter()``, ...; arithmetic on such a value, a
    name every assignment of which in the module is one, or a call of a function of the
    module that returns one: the ERNIE/BERT ``linear_warmup_decay`` helpers; a ``paddle.*``
    operator counts too, so that a second ``fix`` of the upgraded module keeps the call)
    becomes ``_fluid_graph_lr(<optimizer with learning_rate=0.0>, <that variable>)``, a
    function fix adds to the module that makes the variable the optimizer's learning-rate
    variable, as 1.8 did.

Why is this bad?
    1.8's static optimizers read a Variable learning rate at every update, so custom
    schedules were built in the program (or set in the scope between runs).
    ``paddle.optimizer`` classes take a float or an ``LRScheduler`` only: the renamed call
    raises TypeError ("learning rate should be float or LRScheduler") on Paddle 3.3.1.
    Their static programs still read the rate from a variable of the program (the one
    ``_global_learning_rate()`` returns, created from the float or the scheduler), which
    the function points at the given variable.

Example
    ``lr = fluid.layers.create_global_var(shape=[1], value=0.05, dtype='float32',
    persistable=True)``; ``fluid.optimizer.Momentum(learning_rate=lr * 2.0, momentum=0.9)``
    → ``_fluid_graph_lr(paddle.optimizer.Momentum(learning_rate=0.0, momentum=0.9),
    lr * 2.0)``.

Fix safety
    Safe: program static_lr_variable (a global-variable rate set in the scope between runs
    and one computed from it, SGD and Momentum) agrees with 1.8.5. The function relies on
    Paddle 3's private ``Optimizer._global_learning_rate``; a float or a scheduler given
    at run time is passed on as such. A learning rate the module does not show to be a
    graph value (a float, a parameter of the enclosing function, an attribute) is
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
    """None (the call is rewritten); a graph learning rate is remembered for after_apply,
    or reported manual when the module uses the function's name for something else."""
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
    if not _facts(up).graph(expr):
        return None
    from upgrader.fixers import helper_state
    if helper_state(up, NAME, SOURCE) == "conflict":
        return (f"the module already uses the name {NAME} for something else; "
                + WHY.format(code=code.strip()))
    up.__dict__.setdefault("_graph_lr_calls", set()).add(id(original))
    return None


AFTER_APPLY_WHEN = MANUAL_WHEN
NAME = "_fluid_graph_lr"
SOURCE = f'''def {NAME}(optimizer, learning_rate):
    """Paddle 1.8's optimizers took a learning rate computed in the program (a variable
    that its ops or the scope set before each run) and read it at every update. Paddle 3's
    optimizers take a float or an LRScheduler, and their static programs read the rate
    from the variable _global_learning_rate() returns: this points it at the given
    variable, as 1.8 did. A float or a scheduler is passed on as such."""
    import paddle
    if isinstance(learning_rate, paddle.pir.Value):
        optimizer._global_learning_rate = lambda program=None: learning_rate
    elif isinstance(learning_rate, (int, float, paddle.optimizer.lr.LRScheduler)):
        optimizer._learning_rate = learning_rate
    else:
        raise TypeError('learning_rate: a float, an LRScheduler or a variable of a static '
                        'program, got %s' % type(learning_rate).__name__)
    return optimizer
'''


def after_apply(up, original: cst.Call, node, entry):
    """``<optimizer>(learning_rate=<graph value>, ...)`` →
    ``_fluid_graph_lr(<optimizer>(learning_rate=0.0, ...), <graph value>)``."""
    if id(original) not in up.__dict__.get("_graph_lr_calls", ()) or not isinstance(node, cst.Call):
        return node
    args = list(node.args)
    at = next((i for i, a in enumerate(args) if a.keyword is not None
               and a.keyword.value == "learning_rate"), None)
    if at is None and args and args[0].keyword is None and not args[0].star:
        at = 0
    if at is None:
        return node
    value = args[at].value
    args[at] = args[at].with_changes(value=cst.Float("0.0"))
    from upgrader.fixers import need_helper
    need_helper(up, NAME)
    up.needed_imports.add("paddle")
    up.report(original, CODE, f"learning_rate computed in the program → `{NAME}(...)` (a "
              "function fix adds to the module: the variable becomes the optimizer's "
              "learning-rate variable, as in 1.8)", "paddle.fluid.optimizer.Optimizer",
              "paddle.optimizer.Optimizer", "safe", applied=True)
    return cst.Call(func=cst.Name(NAME), args=[
        cst.Arg(node.with_changes(args=args), comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))),
        cst.Arg(value)])


def finish_module(up, module: cst.Module) -> cst.Module:
    """Add the function the optimizers given a graph learning rate call."""
    from upgrader.fixers import add_used_helpers
    return add_used_helpers(up, module, {NAME: SOURCE})


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
        self.local: Dict[str, Dict[str, list]] = {}  # function -> its own name -> values
        for stmt in tree.body:
            if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)):
                self.returns[stmt.name] = [n.value for n in ast.walk(stmt)
                                           if isinstance(n, ast.Return) and n.value is not None]
                own = self.local[stmt.name] = {}
                for n in ast.walk(stmt):
                    if isinstance(n, ast.Assign):
                        for t in n.targets:
                            for e in ([t] if isinstance(t, ast.Name) else
                                      t.elts if isinstance(t, (ast.Tuple, ast.List)) else []):
                                if isinstance(e, ast.Name):
                                    own.setdefault(e.id, []).append(
                                        n.value if e is t else None)
                    elif isinstance(n, (ast.AugAssign, ast.AnnAssign)) and isinstance(n.target, ast.Name):
                        own.setdefault(n.target.id, []).append(n.value)
                    elif isinstance(n, (ast.For, ast.comprehension, ast.withitem)):
                        target = n.optional_vars if isinstance(n, ast.withitem) else n.target
                        for e in ast.walk(target) if target is not None else ():
                            if isinstance(e, ast.Name):
                                own.setdefault(e.id, []).append(None)
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
                if name not in self.functions and values and all(
                        self._returned_graph(name, v) for v in values):
                    self.functions.add(name)
                    changed = True

    def _returned_graph(self, function: str, node: ast.AST) -> bool:
        """A return value of ``function``: a name it assigns itself is judged by those
        assignments (another scope may reuse the name for anything)."""
        own = self.local.get(function, {})
        if isinstance(node, ast.Name) and node.id in own:
            values = own[node.id]
            return all(v is not None and self._graph(v) for v in values)
        return self._graph(node)

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
