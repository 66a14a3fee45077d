"""``paddle.fluid.layers.ops`` (1.8): generated from the rule database, but ``cumsum``,
whose ``exclusive`` / ``reverse`` today's ``paddle.cumsum`` lacks, and the activations
whose 1.x arguments today's have not (``relu6`` threshold, ``soft_relu``, ``hard_swish``
threshold/scale/offset; 1.8 kept them in ``layers.nn``) or whose values/gradients at the
bounds differ (``clip``, ``brelu``, ``hard_shrink``)."""
from __future__ import annotations

import paddle

from compat import _lazy
from compat._runtime import legacy


@legacy("paddle.fluid.layers.cumsum", "paddle.fluid.layers.ops.cumsum",
        replacement="paddle.cumsum (+ paddle.flip for reverse, shifted for exclusive)")
def cumsum(x, axis=None, exclusive=None, reverse=None):
    """1.x: ``axis=None`` is the last axis; ``reverse`` sums from the end; ``exclusive``
    leaves each element out of its own sum (the inclusive sum shifted by one, zeros first,
    which adds in the order 1.x's kernel did); int32 stays int32 as in 1.x."""
    axis = -1 if axis is None else axis
    if reverse:
        x = paddle.flip(x, axis=[axis])
    out = paddle.cumsum(x, axis=axis)
    if x.dtype == paddle.int32 and out.dtype != paddle.int32:
        out = paddle.cast(out, paddle.int32)  # 1.x summed int32 in int32; today's gives int64
    if exclusive:
        out = paddle.concat([paddle.zeros_like(paddle.slice(x, axes=[axis], starts=[0], ends=[1])),
                             paddle.slice(out, axes=[axis], starts=[0], ends=[-1])], axis=axis)
    if reverse:
        out = paddle.flip(out, axis=[axis])
    return out


def _with_gradient(value, x, grad):
    """``value`` whose gradient to ``x`` is ``grad`` (element-wise): the value of
    ``x * g - (x * g).detach()`` is exactly 0."""
    g = grad.detach()
    return value.detach() + (x * g - (x * g).detach())


@legacy("paddle.fluid.layers.relu6", "paddle.fluid.layers.nn.relu6",
        replacement="paddle.nn.functional.relu6 (threshold 6 only)")
def relu6(x, threshold=6.0, name=None):
    """``min(max(x, 0), threshold)``; gradient 1 strictly between 0 and ``threshold``."""
    if threshold == 6.0:
        return paddle.nn.functional.relu6(x)
    inside = paddle.logical_and(x > 0, x < threshold).astype(x.dtype)
    return _with_gradient(paddle.clip(x, 0.0, threshold), x, inside)


@legacy("paddle.fluid.layers.soft_relu", "paddle.fluid.layers.nn.soft_relu",
        replacement="paddle.log(1 + paddle.exp(paddle.clip(x, -threshold, threshold)))")
def soft_relu(x, threshold=40.0, name=None):
    """The function fix adds (upgrader/fixers/formula_helpers.py): ``log(1 + exp(clip(x,
    -threshold, threshold)))`` with 1.x's gradient ``1 - exp(-out)`` where ``out <
    threshold``, else 0."""
    from compat._added import added
    return added("formula_helpers", "_fluid_soft_relu")(x, threshold)


@legacy("paddle.fluid.layers.hard_swish", "paddle.fluid.layers.nn.hard_swish",
        replacement="paddle.nn.functional.hardswish (threshold 6, scale 6, offset 3 only)")
def hard_swish(x, threshold=6.0, scale=6.0, offset=3.0, name=None):
    """``x * min(max(x + offset, 0), threshold) / scale``; 1.x's gradient is
    ``(2x + offset) / scale`` where ``0 < x + offset < threshold`` and 1 (not
    ``threshold / scale``) from ``threshold`` on."""
    if threshold == 6.0 and scale == 6.0 and offset == 3.0:
        return paddle.nn.functional.hardswish(x)
    shifted = x + offset
    out = x * paddle.clip(shifted, 0.0, threshold) / scale
    inside = paddle.logical_and(shifted > 0, shifted < threshold).astype(x.dtype)
    grad = inside * (2.0 * x + offset) / scale + (shifted >= threshold).astype(x.dtype)
    return _with_gradient(out, x, grad)


@legacy("paddle.fluid.layers.clip", "paddle.fluid.layers.nn.clip", replacement="paddle.clip")
def clip(x, min, max, name=None):
    """``paddle.clip`` with 1.x's gradient: 0 at the bounds too (``paddle.clip`` passes
    it there, e.g. for the zeros of a relu clipped to [0, 6])."""
    out = paddle.clip(x, min, max)
    if x.stop_gradient:
        return out
    return _with_gradient(out, x, paddle.logical_and(x > min, x < max).astype(x.dtype))


@legacy("paddle.fluid.layers.brelu", "paddle.fluid.layers.nn.brelu", replacement="paddle.clip")
def brelu(x, t_min=0.0, t_max=24.0, name=None):
    """``clip(x, t_min, t_max)`` with 1.x's gradient: 1 strictly between the bounds, 0 at
    them (``paddle.clip`` passes the gradient at the bounds)."""
    inside = paddle.logical_and(x > t_min, x < t_max).astype(x.dtype)
    return _with_gradient(paddle.clip(x, t_min, t_max), x, inside)


@legacy("paddle.fluid.layers.hard_shrink", "paddle.fluid.layers.ops.hard_shrink",
        replacement="paddle.nn.functional.hardshrink")
def hard_shrink(x, threshold=None):
    """``x`` where ``|x| > threshold`` (default 0.5), else 0 (-0 for negative ``x``), as
    1.x: today's hardshrink keeps an element exactly at +-threshold."""
    t = 0.5 if threshold is None else threshold
    return x * paddle.logical_or(x > t, x < -t).astype(x.dtype)


_lazy.attach(globals())
