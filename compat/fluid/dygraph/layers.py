"""``paddle.fluid.dygraph.layers`` (1.8): ``Layer``."""
from __future__ import annotations

import paddle

from compat import _lazy
from compat._runtime import legacy
from compat._wrap import same_as_meta


class LegacyLayerMethods(object):
    """1.x's ``sublayers(include_sublayers)`` and ``named_sublayers(prefix,
    include_sublayers, include_self, layers_set)``: today's methods lost
    ``include_sublayers`` (its slot is ``include_self``). With ``include_sublayers=False``
    1.8.5 yielded no sublayer at all (only the layer itself when ``include_self``), so
    ``sublayers(False)`` was ``[]``. Today's keyword calls pass through."""

    def sublayers(self, include_sublayers=True, include_self=False):
        if not include_sublayers:
            return [self] if include_self else []
        return super().sublayers(include_self=include_self)

    def named_sublayers(self, prefix="", include_sublayers=True, include_self=False,
                        layers_set=None, **kwargs):
        if not include_sublayers:
            return iter([(prefix, self)] if include_self else [])
        return super().named_sublayers(prefix=prefix, include_self=include_self,
                                       layers_set=layers_set, **kwargs)


@legacy("paddle.fluid.dygraph.Layer", "paddle.fluid.dygraph.layers.Layer", replacement="paddle.nn.Layer")
class Layer(LegacyLayerMethods, paddle.nn.Layer, metaclass=same_as_meta(type(paddle.nn.Layer))):
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
