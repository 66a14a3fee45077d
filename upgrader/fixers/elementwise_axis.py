"""PU210 elementwise-axis: ``elementwise_*(x, y, axis=k)`` keeps 1.x's broadcasting.

What it does
    ``fluid.layers.elementwise_add(x, y, axis=1)`` becomes
    ``paddle.add(x, paddle.unsqueeze(y, list(range(y.ndim, x.ndim - 1))))``: ``y`` gets the
    trailing size-1 dimensions that line its dimensions up with ``x``'s, starting at
    dimension ``k`` — what 1.x's ``axis`` meant. With ``axis=-1`` (the default) the call is
    a plain rename.

Why is this bad?
    Today's ``paddle.add/subtract/multiply/divide/...`` broadcast NumPy-style (trailing
    dimensions aligned) and have no ``axis``. Dropping it raises a shape error, or —
    worse — silently aligns ``y`` with the wrong dimensions when their sizes happen to
    match (``x[2, 3, 3] + y[3]`` with ``axis=1``).

Example
    ``fluid.layers.elementwise_mul(img, scale, axis=1)`` (img ``[N, C, H, W]``, scale
    ``[C]``) → ``paddle.multiply(img, paddle.unsqueeze(scale, list(range(scale.ndim, img.ndim - 1))))``.

Fix safety
    Safe for a literal ``axis``. ``x`` and ``y`` appear twice in the rewrite, so an operand
    that is not a name, attribute or literal (a call, an expression) is first assigned to a
    fresh name (``elementwise_y = ...``) in a statement placed just before the one holding
    the call — only where that keeps Python's order of evaluation: the call sits in a
    plain expression, assignment or return statement of its own line, outside lambdas,
    comprehensions, conditional expressions and ``and``/``or``, and everything the
    statement evaluates before the operand is a name, attribute or literal (so no layer
    is built, and no parameter created, in a different order). Other forms are manual.
    1.x also dropped trailing size-1 dimensions of ``y`` first; the rewrite does not, which
    only matters for such ``y``.
"""
from __future__ import annotations

import copy
import re
from typing import Optional

import libcst as cst

from upgrader.args import Manual, _simple, bind, code_of, literal
from upgrader.rulebook import ArgSpec

CODE = "PU210"
STRUCTURAL = ("elementwise-axis",)


def rewrite_call(up, original: cst.Call, updated: cst.Call, entry):
    bound = bind(entry, updated)
    if isinstance(bound, Manual):
        up.report_entry(original, entry, False, manual=bound.reason)
        return updated
    arg = bound.values.get("axis")
    kind, axis = literal(code_of(arg.value)) if arg is not None else ("ok", -1)
    if kind == "ok" and axis == -1:
        return up.apply_entry(original, updated, entry, entry_override=_override(entry, None))
    if kind != "ok" or not isinstance(axis, int) or axis < 0:
        up.report_entry(original, entry, False, manual=(
            f"axis={code_of(arg.value)} is not a literal non-negative int; align y by hand with "
            "paddle.unsqueeze (1.x placed y's dimensions at x's dimension `axis`)"))
        return updated
    operands = [(p, bound.values[p]) for p in ("x", "y")
                if p in bound.values and not _simple(bound.values[p].value)]
    if not operands:
        return up.apply_entry(original, updated, entry, entry_override=_override(entry, axis))
    if not up.can_apply(entry, original):
        up.report_entry(original, entry, False)
        return updated
    stmt = _hoist_statement(up, original)
    if isinstance(stmt, str):
        up.report_entry(original, entry, False, manual=(
            f"`{code_of(operands[0][1].value)}` would be evaluated twice in the rewrite and "
            f"cannot be moved before the statement here ({stmt}); assign it to a variable first"))
        return updated
    names = {id(arg): _fresh_name(up, f"elementwise_{p}") for p, arg in operands}
    replaced = updated.with_changes(args=[
        a.with_changes(value=cst.Name(names[id(a)])) if id(a) in names else a
        for a in updated.args])
    mapped = up.apply_entry(original, replaced, entry, entry_override=_override(entry, axis))
    if mapped is replaced:  # not applied (reported by apply_entry)
        return updated
    pending = up.__dict__.setdefault("_hoists", {})
    pending.setdefault(id(stmt), []).extend(
        (names[id(arg)], arg.value) for p, arg in operands)
    return mapped


def _override(entry, axis):
    e = copy.copy(entry)
    e.args = dict(entry.args)
    e.args["axis"] = ArgSpec(drop=True)
    if axis is not None:
        y = entry.args.get("y")
        e.args["y"] = ArgSpec(
            rename=y.rename if y else None,
            transform=f"paddle.unsqueeze({{}}, list(range({{}}.ndim, {{x}}.ndim - {axis})))")
    return e


def leave_statement(up, original, updated):
    """The operands moved out of a rewritten call, assigned just before its statement."""
    pending = up.__dict__.get("_hoists")
    if not pending or id(original) not in pending:
        return updated
    assigns = [cst.SimpleStatementLine(body=[cst.Assign(
        targets=[cst.AssignTarget(cst.Name(name))], value=value)])
        for name, value in pending.pop(id(original))]
    nodes = list(updated.nodes) if isinstance(updated, cst.FlattenSentinel) else [updated]
    # the statement's comments and blank lines stay above everything it became
    assigns[0] = assigns[0].with_changes(leading_lines=nodes[0].leading_lines)
    nodes[0] = nodes[0].with_changes(leading_lines=())
    return cst.FlattenSentinel(assigns + nodes)


def _fresh_name(up, base: str) -> str:
    """``base`` (then ``base_2``, ...): a name the module does not spell anywhere."""
    taken = up.__dict__.get("_hoist_names")
    if taken is None:
        taken = up._hoist_names = set(re.findall(r"[A-Za-z_][A-Za-z0-9_]*", up.source))
    for cand in [base] + [f"{base}_{i}" for i in range(2, 1000)]:
        if cand not in taken:
            taken.add(cand)
            return cand
    raise RuntimeError("no free name")  # pragma: no cover


def hoist(up, call: cst.Call, value: cst.BaseExpression, base: str):
    """Assign ``value`` (an argument of ``call``, already rewritten) to a fresh name in a
    statement just before the one holding ``call``, where that keeps the order of
    evaluation (see Fix safety): the name, or a short reason why not. For other fixers
    whose rewrite reads an argument more than once."""
    stmt = _hoist_statement(up, call)
    if isinstance(stmt, str):
        return None, stmt
    name = _fresh_name(up, base)
    up.__dict__.setdefault("_hoists", {}).setdefault(id(stmt), []).append((name, value))
    return name, None


_STATEMENTS = (cst.Expr, cst.Assign, cst.AnnAssign, cst.Return)


def _hoist_statement(up, call: cst.Call):
    """The statement (original node) before which the operands of ``call`` can be
    assigned without changing what is evaluated first, or why not (a short reason)."""
    if not up.stmt_stack:
        return "it is not in a statement"
    line = up.stmt_stack[-1][0]
    if not isinstance(line, cst.SimpleStatementLine) or len(line.body) != 1:
        return "its statement shares a line with another or is a compound statement"
    for node, _ in reversed(up.stmt_stack[:-1]):
        if isinstance(node, cst.ClassDef):
            return "in a class body the name would become a class attribute"
        if isinstance(node, cst.FunctionDef):
            break
    small = line.body[0]
    if not isinstance(small, _STATEMENTS) or getattr(small, "value", None) is None:
        return f"it is in a {type(small).__name__} statement"
    found = _before([small.value], call)  # an assignment's targets come after its value
    if found is None:
        return "it is evaluated conditionally or in another scope (lambda, comprehension, `if` expression, `and`/`or`, comparison)"
    return line if found else "the statement evaluates a call or an operation before it"


def _before(nodes, call) -> Optional[bool]:
    """Walk ``nodes`` in evaluation order up to ``call``: True when only names, attributes
    and literals were evaluated before it, False when something else was, None when the
    call is not reached on a plain evaluation path."""
    for node in nodes:
        if node is call:
            return True
        if _contains(node, call):
            parts = _parts(node)
            if parts is None:
                return None
            return _before(parts, call)
        if not _pure(node):
            return False
    return None


def _parts(node) -> Optional[list]:
    """The sub-expressions of ``node`` in the order Python evaluates them, or None for a
    node that evaluates its parts conditionally or in another scope."""
    if isinstance(node, cst.Call):
        return [node.func] + [a.value for a in node.args]
    if isinstance(node, cst.Attribute):
        return [node.value]
    if isinstance(node, cst.Subscript):
        return [node.value] + [e.slice.value for e in node.slice
                               if isinstance(e.slice, cst.Index)]
    if isinstance(node, cst.BinaryOperation):
        return [node.left, node.right]
    if isinstance(node, cst.UnaryOperation):
        return [node.expression]
    if isinstance(node, (cst.Tuple, cst.List)):
        return [e.value for e in node.elements]
    return None


def _pure(node) -> bool:
    """Evaluating it builds nothing: a name, an attribute chain of one, a literal."""
    if isinstance(node, (cst.Name, cst.Integer, cst.Float, cst.SimpleString)):
        return True
    if isinstance(node, cst.Attribute):
        return _pure(node.value)
    return False


def _contains(node, target) -> bool:
    if node is target:
        return True
    return any(_contains(c, target) for c in node.children)
