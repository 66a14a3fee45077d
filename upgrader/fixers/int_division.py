"""PU103 int-division: ``elementwise_div`` / ``elementwise_mod`` / ``elementwise_floordiv``
keep 1.8's integer results.

What it does
    After the rewrite of ``fluid.layers.elementwise_div`` / ``elementwise_mod`` /
    ``elementwise_floordiv`` (elementwise-axis: ``axis`` and ``act`` as there), the
    ``paddle.divide`` / ``paddle.mod`` / ``paddle.floor_divide`` call becomes
    ``_fluid_elementwise_div`` / ``_fluid_elementwise_mod`` / ``_fluid_elementwise_floordiv``,
    functions fix adds to the module: today's op, then for integer tensors 1.8's C
    semantics, a quotient truncated toward zero in the integer dtype (-7 / 2 = -3,
    -7 // 2 = -3) and a remainder with the sign of ``x`` (-7 mod 2 = -1).

Why is this bad?
    ``paddle.divide`` returns the true quotient of integers as float32 (int64 [7, 9] /
    [2, 4]: 1.8 gave int64 [3, 2]); ``paddle.mod`` and ``paddle.floor_divide`` follow
    Python (a remainder with the sign of ``y``, a quotient rounded down: 1 and -4), so
    integer operands of different signs give other numbers than in 1.8 (checked on 1.8.5
    and 3.3.1); floats agree (1.8's float mod was Python's, and it had no float
    floordiv). The ``/`` operator on integer tensors changed like elementwise_div; it is
    not rewritten (fix cannot tell a tensor's dtype from the source).

Example
    ``fluid.layers.elementwise_mod(ids, buckets)`` → ``_fluid_elementwise_mod(ids, buckets)``.

Fix safety
    Safe: the rules' examples (integers of both signs, floats, an ``axis``) agree with
    1.8.5 in both modes.
"""
from __future__ import annotations

import libcst as cst

CODE = "PU103"
NAMES = {"paddle.fluid.layers.elementwise_div": ("paddle.divide", "_fluid_elementwise_div"),
         "paddle.fluid.layers.elementwise_mod": ("paddle.mod", "_fluid_elementwise_mod"),
         "paddle.fluid.layers.elementwise_floordiv": ("paddle.floor_divide",
                                                      "_fluid_elementwise_floordiv")}
AFTER_APPLY_WHEN = tuple(NAMES)
_INTEGER = ("    integer = x.dtype in (paddle.int8, paddle.int16, paddle.int32, paddle.int64, "
            "paddle.uint8)\n")
SOURCES = {
    "_fluid_elementwise_div": '''def _fluid_elementwise_div(x, y, name=None):
    """Paddle 1.8's elementwise_div: for integers the quotient truncated toward zero, in
    x's dtype (7 / 2 = 3, -7 / 2 = -3; paddle.divide returns the true quotient as
    float32); for floats paddle.divide's."""
    import paddle
''' + _INTEGER + '''    if not integer:
        return paddle.divide(x, y)
    out = paddle.floor_divide(x, y)
    return paddle.where((paddle.mod(x, y) != 0) & ((x < 0) != (y < 0)), out + 1, out)
''',
    "_fluid_elementwise_mod": '''def _fluid_elementwise_mod(x, y, name=None):
    """Paddle 1.8's elementwise_mod: for integers the C remainder, with the sign of x
    (-7 mod 2 = -1); for floats paddle.mod's (the sign of y)."""
    import paddle
''' + _INTEGER + '''    out = paddle.mod(x, y)
    if integer:
        out = paddle.where((out != 0) & ((out < 0) != (x < 0)), out - y, out)
    return out
''',
    "_fluid_elementwise_floordiv": '''def _fluid_elementwise_floordiv(x, y, name=None):
    """Paddle 1.8's elementwise_floordiv: for integers the quotient truncated toward zero
    (-7 // 2 = -3; paddle.floor_divide rounds down: -4)."""
    import paddle
''' + _INTEGER + '''    out = paddle.floor_divide(x, y)
    if integer:
        out = paddle.where((paddle.mod(x, y) != 0) & ((x < 0) != (y < 0)), out + 1, out)
    return out
''',
}


def after_apply(up, original: cst.Call, node, entry):
    """The rewritten call with today's op replaced by the function fix adds."""
    from upgrader.fixers import helper_state, need_helper
    target, name = NAMES[entry.name]
    if helper_state(up, name, SOURCES[name]) == "conflict":
        return node
    found = []

    class Swap(cst.CSTTransformer):
        def leave_Call(self, orig, upd):
            if cst.Module([]).code_for_node(upd.func) == target:
                found.append(True)
                return upd.with_changes(func=cst.Name(name))
            return upd

    out = node.visit(Swap())
    if found:
        need_helper(up, name)
        up.needed_imports.add("paddle")
    return out


def finish_module(up, module: cst.Module) -> cst.Module:
    from upgrader.fixers import add_used_helpers
    return add_used_helpers(up, module, SOURCES)
