"""PU103 scatter-gather-grad: ``fluid.layers.scatter``, and ``fluid.layers.gather`` without a
literal ``overwrite=False``, become functions fix adds to the module that keep 1.8's
gradients.

What it does
    ``fluid.layers.scatter(input, index, updates, name, overwrite)`` becomes
    ``_fluid_scatter(...)`` and ``fluid.layers.gather(input, index, overwrite)`` becomes
    ``_fluid_gather(...)``, with the same arguments (1.8's signatures); ``fix`` adds each
    function once, after the module's imports. Values come from ``paddle.scatter`` /
    ``paddle.gather``; the gradients are 1.8.5's:

    - ``_fluid_scatter``: ``paddle.scatter(c, index, updates, overwrite) + (input - c)``
      with ``c`` a copy of ``input`` that needs no gradient, so every row of ``input``
      gets the output's gradient (1.8 passed it also to the rows the updates replaced;
      ``paddle.scatter`` gives those rows 0); ``updates`` get today's (= 1.8's) gradient;
    - ``_fluid_gather`` with ``overwrite=True`` (1.8's default): a row of ``input`` that
      ``index`` names several times gets the gradient of its LAST occurrence only (1.8's
      overwriting gradient scatter), the others' gradient is masked off; with
      ``overwrite=False`` it is ``paddle.gather`` itself (gradients summed). A
      non-literal ``overwrite`` is decided when the call runs.

    ``gather(..., overwrite=False)`` with a literal ``False`` keeps the plain rewrite to
    ``paddle.gather(x, index)``.

Why is this bad?
    The forward values never differ, the gradients with respect to ``input`` do (checked on
    1.8.5 and 3.3.1, static and dygraph): ``paddle.scatter`` zeroes the gradient of the
    replaced rows, and ``paddle.gather`` always sums the gradients of a repeated index
    (``gather(x, [1, 1, 3, 1])`` weighted by 1..12 gives row 1 ``[10, 11, 12]`` on 1.8.5 with
    ``overwrite=True``, ``[15, 18, 21]`` today).

Example
    ``fluid.layers.scatter(x, index, updates)`` → ``_fluid_scatter(x, index, updates)``;
    ``fluid.layers.gather(feature, src, overwrite=False)`` → ``paddle.gather(feature, src)``.

Fix safety
    Safe: values, shapes, dtypes and the gradients of ``input`` (and ``updates``) agree with
    1.8.5 in both modes, with repeated indices and both ``overwrite`` values (the rules'
    examples). In a static program the copy without gradient is ``paddle.assign(input)``
    with ``stop_gradient = True`` (a detached value used as an operand can read back wrong
    values in 3.3.1's static programs). Manual when the module already uses the function's
    name for something else.
"""
from __future__ import annotations

import libcst as cst

from upgrader.args import Manual, bind, code_of, literal

CODE = "PU103"
STRUCTURAL = ("scatter-gather-grad",)
NAMES = {"paddle.fluid.layers.scatter": "_fluid_scatter",
         "paddle.fluid.layers.gather": "_fluid_gather"}
WHAT = "a function fix adds to the module: 1.8's gradients"
HELPER_OF = {"paddle.fluid.layers.scatter": f"_fluid_scatter ({WHAT})",
             "paddle.fluid.layers.gather": f"paddle.gather with a literal overwrite=False, "
                                           f"else _fluid_gather ({WHAT})"}

#: a copy of input that needs no gradient (shared by both functions). In a static program
#: it is an assign with stop_gradient: a detached value used as an operand can read back
#: wrong values in 3.3.1's static programs.
_CONSTANT = """    if paddle.in_dynamic_mode():
        constant = input.detach()
    else:
        constant = paddle.assign(input)
        constant.stop_gradient = True
"""

SOURCES = {
    "_fluid_scatter": '''def _fluid_scatter(input, index, updates, name=None, overwrite=True):
    """Paddle 1.8's fluid.layers.scatter: paddle.scatter's values, and 1.8's gradient with
    respect to input, the output's gradient on every row (the replaced rows included)."""
    import paddle
''' + _CONSTANT + '''    return paddle.scatter(constant, index, updates, overwrite) + (input - constant)
''',
    "_fluid_gather": '''def _fluid_gather(input, index, overwrite=True):
    """Paddle 1.8's fluid.layers.gather: paddle.gather's values; with overwrite=True (1.8's
    default) a row that index names several times gets the gradient of its last occurrence
    only, as 1.8's overwriting gradient did (paddle.gather sums them: overwrite=False)."""
    import paddle
    out = paddle.gather(input, index)
    if not overwrite:
        return out
''' + _CONSTANT + '''    flat = paddle.reshape(index, [-1]).astype('int64')
    position = paddle.arange(paddle.shape(flat)[0], dtype='int64')
    last = paddle.put_along_axis(paddle.full(paddle.shape(input)[0:1], -1, 'int64'), flat,
                                 position, 0, reduce='amax')
    keep = paddle.cast(paddle.gather(last, flat) == position, out.dtype)
    keep = paddle.reshape(keep, [-1] + [1] * (len(out.shape) - 1))
    fixed = paddle.gather(constant, index)
    return fixed + (out - fixed) * keep
''',
}


def _plain_gather(updated, entry) -> bool:
    """``gather(..., overwrite=False)`` with a literal False: paddle.gather is exact."""
    bound = bind(entry, updated)
    if isinstance(bound, Manual):
        return False
    arg = bound.values.get("overwrite")
    if arg is None:
        return False
    kind, value = literal(code_of(arg.value))
    return kind == "ok" and value is False


def rewrite_call(up, original: cst.Call, updated: cst.Call, entry):
    from upgrader.fixers import call_added_function
    if entry.name == "paddle.fluid.layers.gather" and _plain_gather(updated, entry):
        return up.apply_entry(original, updated, entry)
    name = NAMES[entry.name]
    return call_added_function(up, original, updated, entry, name, SOURCES[name], WHAT)


def finish_module(up, module: cst.Module) -> cst.Module:
    """Add the functions the rewrites call after the module's docstring and imports."""
    from upgrader.fixers import add_used_helpers
    return add_used_helpers(up, module, SOURCES)
