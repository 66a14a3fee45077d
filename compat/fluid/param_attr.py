"""``paddle.fluid.param_attr`` (1.8): ``ParamAttr``, ``WeightNormParamAttr``."""
from __future__ import annotations

import paddle

from compat import _lazy
from compat._runtime import legacy

__all__ = ["ParamAttr", "WeightNormParamAttr"]


@legacy("paddle.fluid.ParamAttr", "paddle.fluid.param_attr.ParamAttr", replacement="paddle.ParamAttr")
class ParamAttr(paddle.ParamAttr):
    """1.x signature; ``gradient_clip`` (deprecated in 1.8 in favour of the optimizer's
    ``grad_clip``) is kept as an attribute and has no effect."""

    def __init__(self, name=None, initializer=None, learning_rate=1.0, regularizer=None,
                 trainable=True, gradient_clip=None, do_model_average=True):
        super().__init__(name=name, initializer=initializer, learning_rate=learning_rate,
                         regularizer=regularizer, trainable=trainable,
                         do_model_average=do_model_average)
        self.gradient_clip = gradient_clip


@legacy("paddle.fluid.WeightNormParamAttr", "paddle.fluid.param_attr.WeightNormParamAttr",
        replacement="paddle.static.WeightNormParamAttr")
class WeightNormParamAttr(paddle.static.WeightNormParamAttr):
    def __init__(self, dim=None, name=None, initializer=None, learning_rate=1.0,
                 regularizer=None, trainable=True, gradient_clip=None, do_model_average=False):
        super().__init__(dim=dim, name=name, initializer=initializer,
                         learning_rate=learning_rate, regularizer=regularizer,
                         trainable=trainable, do_model_average=do_model_average)
        self.gradient_clip = gradient_clip


_lazy.attach(globals())
