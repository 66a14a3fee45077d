"""``paddle.fluid.dygraph.jit`` (1.8): ``declarative`` -> ``paddle.jit.to_static``."""
from __future__ import annotations

import paddle

from compat import _lazy
from compat._runtime import legacy


@legacy("paddle.fluid.dygraph.declarative", "paddle.fluid.dygraph.jit.declarative",
        replacement="paddle.jit.to_static")
def declarative(func):
    return paddle.jit.to_static(func)


@legacy("paddle.fluid.dygraph.dygraph_to_static_func", "paddle.fluid.dygraph.jit.dygraph_to_static_func",
        replacement="paddle.jit.to_static")
def dygraph_to_static_func(func):
    return paddle.jit.to_static(func)


_lazy.attach(globals())
