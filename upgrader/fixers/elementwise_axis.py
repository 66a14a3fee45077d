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

import libcst as cst

from upgrader import hoist
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
    stmt = hoist.statement_for(up, original, [arg.value for p, arg in operands])
    if isinstance(stmt, str):
        up.report_entry(original, entry, False, manual=(
            f"`{code_of(operands[0][1].value)}` would be evaluated twice in the rewrite and "
            f"cannot be moved before the statement here ({stmt}); assign it to a variable first"))
        return updated
    names = {id(arg): hoist.fresh_name(up, f"elementwise_{p}") for p, arg in operands}
    replaced = updated.with_changes(args=[
        a.with_changes(value=cst.Name(names[id(a)])) if id(a) in names else a
        for a in updated.args])
    mapped = up.apply_entry(original, replaced, entry, entry_override=_override(entry, axis))
    if mapped is replaced:  # not applied (reported by apply_entry)
        return updated
    hoist.add(up, stmt, [(names[id(arg)], arg.value) for p, arg in operands])
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


# the statement hook that writes the hoisted assignments (upgrader/hoist.py)
leave_statement = hoist.leave_statement
