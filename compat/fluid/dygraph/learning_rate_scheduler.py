"""``paddle.fluid.dygraph.learning_rate_scheduler`` (1.8): see
:mod:`compat.fluid.layers.learning_rate_scheduler` (one implementation for both)."""
from compat import _lazy
from compat.fluid.layers.learning_rate_scheduler import (  # noqa: F401
    CosineDecay, ExponentialDecay, InverseTimeDecay, LambdaDecay, LearningRateDecay,
    LinearLrWarmup, MultiStepDecay, NaturalExpDecay, NoamDecay, PiecewiseDecay,
    PolynomialDecay, ReduceLROnPlateau, StepDecay)

__all__ = ["LearningRateDecay", "PiecewiseDecay", "NaturalExpDecay", "ExponentialDecay",
           "InverseTimeDecay", "PolynomialDecay", "CosineDecay", "NoamDecay", "LinearLrWarmup",
           "ReduceLROnPlateau", "StepDecay", "MultiStepDecay", "LambdaDecay"]

_lazy.attach(globals())
