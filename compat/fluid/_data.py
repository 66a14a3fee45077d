"""``fluid.data`` (1.8: shape used as given, ``None`` = any size)."""
from __future__ import annotations

import paddle

from compat._runtime import ensure_static, legacy


@legacy("paddle.fluid.data", "paddle.fluid.data.data", replacement="paddle.static.data")
def data(name, shape, dtype="float32", lod_level=0):
    ensure_static()
    shape = [-1 if s is None else s for s in shape]
    return paddle.static.data(name=name, shape=shape, dtype=dtype, lod_level=lod_level)
