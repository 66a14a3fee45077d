"""``paddle.fluid.layers.io`` (1.8): ``data`` (batch dimension prepended) and readers."""
from __future__ import annotations

import paddle

from compat import _lazy
from compat._runtime import ensure_static, legacy

_LOD_TENSOR = paddle.base.core.VarDesc.VarType.LOD_TENSOR


@legacy("paddle.fluid.layers.data", "paddle.fluid.layers.io.data",
        replacement="paddle.static.data (shape with the batch dimension)")
def data(name, shape, append_batch_size=True, dtype="float32", lod_level=0, type=_LOD_TENSOR,
         stop_gradient=True):
    """1.x: ``-1`` is prepended to ``shape`` unless a dim is already ``None``/negative or
    ``append_batch_size=False``."""
    ensure_static()
    shape = list(shape)
    for i, s in enumerate(shape):
        if s is None:
            shape[i] = -1
            append_batch_size = False
        elif s < 0:
            append_batch_size = False
    if append_batch_size:
        shape = [-1] + shape
    var = paddle.static.data(name=name, shape=shape, dtype=dtype, lod_level=lod_level)
    var.stop_gradient = stop_gradient
    return var


_lazy.attach(globals())
