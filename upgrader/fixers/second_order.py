"""PU103 second-order: ``fluid.gradients`` in a module that also minimizes (or calls
``append_backward``) is unsafe: 1.8.5's minimize did not differentiate through it.

What it does
    ``fluid.gradients(targets, inputs)`` becomes ``paddle.static.gradients(targets,
    inputs)`` as its rule says; in a module that also calls ``.minimize(`` or
    ``append_backward(`` the rewrite is unsafe (``--unsafe-fixes``), with the reason below.

Why is this bad?
    1.8.5's ``append_backward`` (what ``minimize`` runs) differentiated the forward ops
    only; the ops ``fluid.gradients`` adds have the Backward role, so a loss term computed
    from a gradient (WGAN-GP's gradient penalty, double backprop) contributed its value
    but no parameter gradient (checked on 1.8.5: SGD on such a penalty alone leaves the
    weights unchanged). Paddle 3 differentiates through it, so training changes.

Example
    ``grad = fluid.gradients(d_inter, inter)[0]`` / ``gp = ...(grad)`` /
    ``opt.minimize(d_loss + 10 * gp)`` is reported; to keep 1.8.5's training pass the
    gradient values in ``no_grad_set`` of that ``minimize`` (what compat does).

Fix safety
    Unsafe in such modules, safe elsewhere (a gradient that is only fetched or used
    outside the minimized loss is the same value).
"""
from __future__ import annotations

import ast
import re
from typing import Optional

CODE = "PU103"
UNSAFE_WHEN = ("paddle.fluid.gradients",)
_TRAINS = re.compile(r"\.minimize\s*\(|\bappend_backward\s*\(")


def _computed_from(up, original) -> bool:
    """The names the call's statement binds (``grad = fluid.gradients(...)[0]``,
    ``gx, gy = ...``) are operands of arithmetic or of a Paddle call somewhere
    in the module: the gradient goes into further computation (a penalty), not only into
    a fetch list or a report."""
    from upgrader import untouched
    from upgrader.fixers.optimizer_methods import _ast_dotted
    line = up.pos(original)[0]
    try:
        tree = untouched.parse(up.source)
    except SyntaxError:
        return True
    names, assigned = set(), False
    for n in ast.walk(tree):
        if isinstance(n, ast.Assign) and n.lineno <= line <= (n.end_lineno or n.lineno):
            assigned = True
            for t in n.targets:
                for x in (t.elts if isinstance(t, (ast.Tuple, ast.List)) else [t]):
                    if isinstance(x, ast.Name):
                        names.add(x.id)
    if not assigned:
        return True  # used in place (an expression): assume computation
    for n in ast.walk(tree):
        operands = []
        if isinstance(n, ast.BinOp):
            operands = [n.left, n.right]
        elif isinstance(n, ast.UnaryOp):
            operands = [n.operand]
        elif isinstance(n, ast.Call) and _ast_dotted(up, n.func).startswith("paddle."):
            operands = list(n.args) + [k.value for k in n.keywords]
        for o in operands:
            if isinstance(o, ast.Subscript):
                o = o.value
            if isinstance(o, (ast.List, ast.Tuple)) and isinstance(n, ast.Call):  # concat([g, ..])
                if any(isinstance(e, ast.Name) and e.id in names for e in o.elts):
                    return True
            elif isinstance(o, ast.Name) and o.id in names:
                return True
    return False


def unsafe_reason(up, original, entry) -> Optional[str]:
    """Why this call's rewrite can change training in this module, or None."""
    if not _TRAINS.search(up.source) or not _computed_from(up, original):
        return None
    return ("the module also minimizes: 1.8.5's minimize / append_backward did not "
            "differentiate through the ops fluid.gradients added, so a loss term computed "
            "from its result (a gradient penalty) gave no parameter gradient; Paddle 3's "
            "does (checked on 1.8.5). To keep 1.8.5's training, pass the returned gradients "
            "in that minimize's no_grad_set")
