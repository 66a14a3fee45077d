"""PU220 layer-eval-mode: ``layer.eval()`` in a 1.8 dygraph program that trains afterwards
without ever calling ``train()``.

What it does
    In a file that uses legacy Paddle, calls ``backward()`` and never calls ``train()``,
    reports every statement ``<layer>.eval()`` (a call with no arguments whose result is
    not used, as ``Layer.eval()`` returns nothing) after which a ``backward()`` may run: one
    follows it in the file or shares a loop with it (for an ``eval()`` inside a function:
    with a call of that function). The code is left as it is, with a
    ``# TODO(paddle-upgrade)`` note in fix mode.

Why is this bad?
    1.8's ``Layer.eval()`` switched the global dygraph tracer to eval mode as well as the
    layer: until a ``train()`` call on any layer, no operation recorded its backward, so
    every ``backward()`` after it computed no gradient and every optimizer step left the
    parameters as they were (checked on 1.8.5: a second model trained after the first
    one's ``eval()`` kept its initial parameters and loss). Today ``eval()`` only switches
    that layer and its sublayers to inference (dropout, batch norm); gradients are always
    recorded. A 1.8 program that evaluates one model and then trains (the same or another
    model) without calling ``train()`` did not train in 1.8, and trains today.

Example
    ``sampler.eval(); fake = sampler(z)`` then ``loss.backward(); opt.minimize(loss)`` on
    another model: 1.8.5 left that model unchanged. Call ``model.train()`` before training
    again (what such code means), or, to keep 1.8's results, train nothing after the
    ``eval()``. The compat runtime keeps 1.8's global eval mode.

Fix safety
    Manual: whether the training after the ``eval()`` was meant to run is the program's
    decision. Files that call ``train()`` somewhere are not reported (the usual
    ``model.train()`` at the start of each epoch, ``model.eval()`` before validation),
    although a ``train()`` that runs only later, or on a branch not taken, leaves some
    steps without gradients in 1.8; nor is an ``eval()`` that no ``backward()`` can follow
    (inference at the end of a script). A static check cannot tell the order in which
    functions and branches run: an ``eval()`` in a function called before a training loop
    is reported even when that call is skipped at run time.
"""
from __future__ import annotations

import ast

import libcst as cst

CODE = "PU220"
LEGACY = "paddle.fluid.dygraph.Layer.eval"
MODERN = "paddle.nn.Layer.eval"
MESSAGE = ("after this `eval()` 1.8 recorded no gradients until some layer's `train()`, which "
           "this file never calls: call `<model>.train()` before training again. 1.8's "
           "`Layer.eval()` also put the whole dygraph tracer in eval mode, so the "
           "`backward()` calls after it computed no gradient and the optimizer steps changed "
           "nothing (checked on 1.8.5); today `eval()` switches only this layer to inference "
           "and training goes on. To keep 1.8's results instead, train nothing after this "
           "point")


def _plain_call(node, method: str) -> bool:
    return isinstance(node, ast.Call) and not node.args and not node.keywords and \
        isinstance(node.func, ast.Attribute) and node.func.attr == method


class _Plan:
    """Where training runs: the lines of the ``backward()`` calls, the line spans of the
    loops holding one, and the call sites of every function by name."""

    def __init__(self, tree: ast.Module):
        self.backward: list = []
        self.loops: list = []      # (first, last) line of loops holding a backward()
        self.calls: dict = {}      # function name -> lines calling it
        self.evals: dict = {}      # line of an eval() statement -> enclosing function names
        self._walk(tree, [], [])

    def _walk(self, node, funcs, loops):
        for child in ast.iter_child_nodes(node):
            f, lp = funcs, loops
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
                f = funcs + [child.name]
            elif isinstance(child, (ast.For, ast.While, ast.AsyncFor)):
                lp = loops + [child]
            if isinstance(child, ast.Call) and isinstance(child.func, ast.Attribute) and \
                    child.func.attr == "backward":
                self.backward.append(child.lineno)
                for loop in loops:
                    self.loops.append((loop.lineno, getattr(loop, "end_lineno", loop.lineno)))
            if isinstance(child, ast.Call):
                fn = child.func
                name = fn.id if isinstance(fn, ast.Name) else fn.attr if isinstance(fn, ast.Attribute) else None
                if name is not None:
                    self.calls.setdefault(name, []).append(child.lineno)
            if isinstance(child, ast.Expr) and _plain_call(child.value, "eval"):
                self.evals[child.lineno] = list(funcs)
            self._walk(child, f, lp)

    def trains_after(self, line: int) -> bool:
        """A ``backward()`` may run after the ``eval()`` statement at ``line``: one follows
        it in the file or shares a loop with it; for an ``eval()`` inside a function, the
        same holds for a line calling that function (any of the enclosing ones)."""
        todo, seen = [line], set()
        for name in self.evals.get(line, []):
            todo.extend(self.calls.get(name, []))
        for at in todo:
            if at in seen:
                continue
            seen.add(at)
            if any(b > at for b in self.backward) or any(a <= at <= z for a, z in self.loops):
                return True
        return False


def _plan(up):
    """The file's plan when it calls ``backward()`` and ``eval()`` and never ``train()``
    (an ``ast`` pass, once per module, only when the source mentions all it needs); None
    otherwise."""
    if hasattr(up, "_eval_mode_plan"):
        return up._eval_mode_plan
    src = up.source
    plan = None
    if ".eval()" in src and ".backward(" in src and "fluid" in src:
        from upgrader import untouched
        try:
            tree = untouched.parse(src)  # shared with the engine's passes: read only
        except (SyntaxError, ValueError):
            tree = None
        if tree is not None and _legacy(tree) and \
                not any(_plain_call(n, "train") for n in ast.walk(tree)):
            plan = _Plan(tree)
    up._eval_mode_plan = plan
    return plan


def _legacy(tree: ast.Module) -> bool:
    """The module imports legacy Paddle (``paddle.fluid`` in any spelling)."""
    for n in ast.walk(tree):
        if isinstance(n, ast.Import) and any(a.name.startswith("paddle.fluid") for a in n.names):
            return True
        if isinstance(n, ast.ImportFrom) and n.module and (
                n.module.startswith("paddle.fluid") or
                (n.module == "paddle" and any(a.name == "fluid" for a in n.names))):
            return True
    return False


def leave_statement(up, original, updated):
    if not isinstance(original, cst.SimpleStatementLine) or len(original.body) != 1:
        return updated
    expr = original.body[0]
    if not isinstance(expr, cst.Expr):
        return updated
    call = expr.value
    if not (isinstance(call, cst.Call) and not call.args and isinstance(call.func, cst.Attribute)
            and call.func.attr.value == "eval"):
        return updated
    if not up.opts.enabled(CODE):
        return updated
    plan = _plan(up)
    if plan is None or not plan.trains_after(up.pos(original)[0]):
        return updated
    up.report(original, CODE, MESSAGE, LEGACY, MODERN, "manual")
    return updated
