"""``paddle.fluid.regularizer`` (1.8) on ``paddle.regularizer``.

As in 1.x, a regularizer set in a parameter's ``ParamAttr`` takes precedence over the
optimizer's ``regularization`` for that parameter.
"""
from __future__ import annotations

import paddle

from compat import _lazy
from compat._runtime import legacy

__all__ = ["L1Decay", "L2Decay", "L1DecayRegularizer", "L2DecayRegularizer"]


@legacy("paddle.fluid.regularizer.L1DecayRegularizer", "paddle.fluid.regularizer.L1Decay",
        replacement="paddle.regularizer.L1Decay")
class L1DecayRegularizer(paddle.regularizer.L1Decay):
    def __init__(self, regularization_coeff=0.0):
        super().__init__(coeff=regularization_coeff)


@legacy("paddle.fluid.regularizer.L2DecayRegularizer", "paddle.fluid.regularizer.L2Decay",
        replacement="paddle.regularizer.L2Decay")
class L2DecayRegularizer(paddle.regularizer.L2Decay):
    def __init__(self, regularization_coeff=0.0):
        super().__init__(coeff=regularization_coeff)


L1Decay = L1DecayRegularizer
L2Decay = L2DecayRegularizer

_lazy.attach(globals())
