"""``paddle.fluid.layers.ops`` (1.8): generated from the rule database, but ``cumsum``,
whose ``exclusive`` / ``reverse`` today's ``paddle.cumsum`` lacks."""
from __future__ import annotations

import paddle

from compat import _lazy
from compat._runtime import legacy


@legacy("paddle.fluid.layers.cumsum", "paddle.fluid.layers.ops.cumsum",
        replacement="paddle.cumsum (+ paddle.flip for reverse, shifted for exclusive)")
def cumsum(x, axis=None, exclusive=None, reverse=None):
    """1.x: ``axis=None`` is the last axis; ``reverse`` sums from the end; ``exclusive``
    leaves each element out of its own sum (the inclusive sum shifted by one, zeros first,
    which adds in the order 1.x's kernel did)."""
    axis = -1 if axis is None else axis
    if reverse:
        x = paddle.flip(x, axis=[axis])
    out = paddle.cumsum(x, axis=axis)
    if exclusive:
        out = paddle.concat([paddle.zeros_like(paddle.slice(x, axes=[axis], starts=[0], ends=[1])),
                             paddle.slice(out, axes=[axis], starts=[0], ends=[-1])], axis=axis)
    if reverse:
        out = paddle.flip(out, axis=[axis])
    return out


_lazy.attach(globals())
