"""``paddle.fluid.dygraph.layers`` (1.8): ``Layer``."""
from __future__ import annotations

import paddle

from compat import _lazy
from compat._runtime import legacy
from compat._wrap import same_as_meta


@legacy("paddle.fluid.dygraph.Layer", "paddle.fluid.dygraph.layers.Layer", replacement="paddle.nn.Layer")
class Layer(paddle.nn.Layer, metaclass=same_as_meta(type(paddle.nn.Layer))):
    """``paddle.nn.Layer`` with 1.x's constructor and ``set_dict``/``load_dict`` order.
    Every layer is an instance, as in 1.x (``isinstance(fluid.dygraph.Linear(3, 2),
    fluid.dygraph.Layer)``); user subclasses answer as usual."""

    __compat_same_as__ = paddle.nn.Layer

    def __init__(self, name_scope=None, dtype=paddle.base.core.VarDesc.VarType.FP32):
        super().__init__(name_scope=name_scope, dtype=dtype)

    def set_dict(self, stat_dict, include_sublayers=True, use_structured_name=True):
        return self.set_state_dict(stat_dict, use_structured_name=use_structured_name)

    def load_dict(self, stat_dict, include_sublayers=True, use_structured_name=True):
        return self.set_state_dict(stat_dict, use_structured_name=use_structured_name)


_lazy.attach(globals())
