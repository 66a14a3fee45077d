"""PU101 smooth-l1-weights: ``fluid.layers.smooth_l1`` with ``inside_weight`` /
``outside_weight`` (detection models' box regression) or a ``sigma`` that is not a number
becomes ``_fluid_smooth_l1``, a function fix adds to the module.

What it does
    ``fluid.layers.smooth_l1(x, y, inside_weight=iw, outside_weight=ow, sigma=s)`` becomes
    ``_fluid_smooth_l1(x, y, inside_weight=iw, outside_weight=ow, sigma=s)`` with the same
    arguments (1.8's signature), and ``fix`` adds the function once, after the module's
    imports. It computes 1.8's loss: ``d = (x - y) * inside_weight``, per element
    ``0.5 * (sigma * d) ** 2`` where ``|d| < 1 / sigma ** 2`` and ``|d| - 0.5 / sigma ** 2``
    elsewhere (``paddle.nn.functional.smooth_l1_loss(d, 0, delta=1 / sigma ** 2,
    is_huber=False)``), times ``outside_weight``, summed over every axis but the first
    (shape ``[N, 1]``); ``sigma=None`` means 1.0, decided when the call runs. As in 1.8,
    ``x`` and ``y`` get the gradient of this formula and the two weights none. Calls with
    neither weight and a number (or no) ``sigma`` keep the plain rewrite to
    ``smooth_l1_loss`` summed per row.

Why is this bad?
    ``paddle.nn.functional.smooth_l1_loss`` has no weights, and its ``delta`` is
    ``1 / sigma ** 2``, which the plain rewrite can only write for a known ``sigma``.

Example
    ``fluid.layers.smooth_l1(x=pred, y=target, inside_weight=iw, outside_weight=ow,
    sigma=1.0)`` → ``_fluid_smooth_l1(x=pred, y=target, inside_weight=iw,
    outside_weight=ow, sigma=1.0)``.

Fix safety
    Safe: values, shapes, dtypes and the gradients of ``x`` and ``y`` agree with 1.8.5 in
    both modes (the rule's example, with weights and sigma 1.5 given as a variable). Manual
    when the module already uses the function's name for something else.
"""
from __future__ import annotations

import libcst as cst

CODE = "PU101"
STRUCTURAL = ("smooth-l1-weights",)
NAME = "_fluid_smooth_l1"
WHAT = "a function fix adds to the module: 1.8's weighted smooth L1 loss"
HELPER_OF = {"paddle.fluid.layers.smooth_l1": f"paddle.nn.functional.smooth_l1_loss summed per "
                                              f"row; with weights or a sigma that is not a "
                                              f"number, {NAME} ({WHAT})"}

SOURCE = '''def _fluid_smooth_l1(x, y, inside_weight=None, outside_weight=None, sigma=None):
    """Paddle 1.8's fluid.layers.smooth_l1: d = (x - y) * inside_weight, per element
    0.5 * (sigma * d) ** 2 where |d| < 1 / sigma ** 2, else |d| - 0.5 / sigma ** 2, times
    outside_weight, summed per row (shape [N, 1]; sigma None means 1.0). The weights get
    no gradient and count only when both are given (an outside_weight alone was ignored,
    an inside_weight alone an error), as in 1.8."""
    import paddle
    if inside_weight is not None and outside_weight is None:
        raise ValueError("If weights are provided, must specify both inside and outside weights.")
    weighted = inside_weight is not None and outside_weight is not None
    sigma = 1.0 if sigma is None else sigma
    diff = x - y
    if weighted:
        diff = diff * inside_weight.detach()
    loss = paddle.nn.functional.smooth_l1_loss(diff, paddle.zeros_like(diff), reduction='none',
                                               delta=1.0 / sigma ** 2, is_huber=False)
    if weighted:
        loss = loss * outside_weight.detach()
    return paddle.sum(paddle.reshape(loss, [0, -1]), axis=1, keepdim=True)
'''


def _needs_helper(bound) -> bool:
    """Weights given (other than a literal None), or a sigma that is not a number."""
    for name in ("inside_weight", "outside_weight"):
        arg = bound.values.get(name)
        if arg is not None and not (isinstance(arg.value, cst.Name) and arg.value.value == "None"):
            return True
    sigma = bound.values.get("sigma")
    if sigma is None:
        return False
    value = sigma.value
    if isinstance(value, cst.UnaryOperation) and isinstance(value.operator, (cst.Minus, cst.Plus)):
        value = value.expression
    return not (isinstance(value, (cst.Integer, cst.Float)) or
                (isinstance(value, cst.Name) and value.value == "None"))


def rewrite_call(up, original: cst.Call, updated: cst.Call, entry):
    from upgrader.args import Manual, bind
    from upgrader.fixers import call_added_function
    bound = bind(entry, updated)
    if isinstance(bound, Manual) or not _needs_helper(bound):
        return up.apply_entry(original, updated, entry)
    return call_added_function(up, original, updated, entry, NAME, SOURCE, WHAT)


def finish_module(up, module: cst.Module) -> cst.Module:
    """Add the function the rewrites call after the module's docstring and imports."""
    from upgrader.fixers import add_used_helpers
    return add_used_helpers(up, module, {NAME: SOURCE})
