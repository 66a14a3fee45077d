"""``paddle.fluid.param_attr`` (1.8): ``ParamAttr``, ``WeightNormParamAttr``."""
from __future__ import annotations

import paddle

from compat import _lazy
from compat._runtime import legacy, manual_error

__all__ = ["ParamAttr", "WeightNormParamAttr"]


@legacy("paddle.fluid.ParamAttr", "paddle.fluid.param_attr.ParamAttr", replacement="paddle.ParamAttr")
class ParamAttr(paddle.ParamAttr):
    """1.8.5's signature (no ``need_clip``: 1.x clipped per optimizer ``grad_clip``)."""

    def __init__(self, name=None, initializer=None, learning_rate=1.0, regularizer=None,
                 trainable=True, do_model_average=True):
        super().__init__(name=name, initializer=initializer, learning_rate=learning_rate,
                         regularizer=regularizer, trainable=trainable,
                         do_model_average=do_model_average)


@legacy("paddle.fluid.WeightNormParamAttr", "paddle.fluid.param_attr.WeightNormParamAttr",
        replacement="paddle.static.WeightNormParamAttr")
class WeightNormParamAttr(paddle.static.WeightNormParamAttr):
    def __init__(self, dim=None, name=None, initializer=None, learning_rate=1.0,
                 regularizer=None, trainable=True, do_model_average=False):
        # 3.x builds the g/v parameters of a weight-normalized parameter only in old-IR
        # programs: on PIR its initializers fail with a bare TypeError (full: argument must
        # be paddle::DataType) when a layer uses the attribute (checked on 3.3.1)
        if not paddle.in_dynamic_mode() and paddle.framework.in_pir_mode():
            raise manual_error("paddle.fluid.WeightNormParamAttr",
                               "3.x's WeightNormParamAttr cannot build its g/v parameters in "
                               "PIR static programs")
        super().__init__(dim=dim, name=name, initializer=initializer,
                         learning_rate=learning_rate, regularizer=regularizer,
                         trainable=trainable, do_model_average=do_model_average)


_lazy.attach(globals())
