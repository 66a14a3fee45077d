"""``paddle.fluid.initializer`` (1.8) on ``paddle.nn.initializer``.

1.x ``seed=0`` meant "the program's random seed"; a non-zero seed has no per-initializer
counterpart today (use ``paddle.seed``). Xavier and MSRA keep their 1.x formulas
(``XavierUniform/XavierNormal``, ``KaimingUniform/KaimingNormal`` compute the same
bounds and standard deviations).
"""
from __future__ import annotations

import numpy as np
import paddle.nn.initializer as I

from compat import _lazy
from compat._runtime import legacy

__all__ = ["Constant", "Uniform", "Normal", "TruncatedNormal", "Xavier", "Bilinear", "MSRA",
           "ConstantInitializer", "UniformInitializer", "NormalInitializer",
           "TruncatedNormalInitializer", "XavierInitializer", "BilinearInitializer",
           "MSRAInitializer", "NumpyArrayInitializer", "init_on_cpu", "force_init_on_cpu"]


@legacy("paddle.fluid.initializer.ConstantInitializer", "paddle.fluid.initializer.Constant",
        replacement="paddle.nn.initializer.Constant")
class ConstantInitializer(I.Constant):
    def __init__(self, value=0.0, force_cpu=False):
        super().__init__(value=float(value))
        self._force_cpu = force_cpu


@legacy("paddle.fluid.initializer.UniformInitializer", "paddle.fluid.initializer.Uniform",
        replacement="paddle.nn.initializer.Uniform")
class UniformInitializer(I.Uniform):
    def __init__(self, low=-1.0, high=1.0, seed=0, diag_num=0, diag_step=0, diag_val=1.0):
        if diag_num:
            from compat._runtime import manual_error
            raise manual_error("paddle.fluid.initializer.UniformInitializer",
                               "diag_num/diag_step/diag_val (a diagonal written over the uniform "
                               "values) have no counterpart; initialise with "
                               "paddle.nn.initializer.Assign")
        super().__init__(low=low, high=high)
        self._seed = seed


@legacy("paddle.fluid.initializer.NormalInitializer", "paddle.fluid.initializer.Normal",
        replacement="paddle.nn.initializer.Normal")
class NormalInitializer(I.Normal):
    def __init__(self, loc=0.0, scale=1.0, seed=0):
        super().__init__(mean=loc, std=scale)
        self._seed = seed


@legacy("paddle.fluid.initializer.TruncatedNormalInitializer",
        "paddle.fluid.initializer.TruncatedNormal", replacement="paddle.nn.initializer.TruncatedNormal")
class TruncatedNormalInitializer(I.TruncatedNormal):
    """1.x truncated at loc +- 2 * scale; today's ``a``/``b`` are absolute cutoffs
    (default -2.0 / 2.0), so they are passed (not for scale 0: a == b gives NaN)."""

    def __init__(self, loc=0.0, scale=1.0, seed=0):
        if scale:
            super().__init__(mean=loc, std=scale, a=loc - 2.0 * scale, b=loc + 2.0 * scale)
        else:
            super().__init__(mean=loc, std=scale)
        self._seed = seed


@legacy("paddle.fluid.initializer.XavierInitializer", "paddle.fluid.initializer.Xavier",
        replacement="paddle.nn.initializer.XavierUniform / XavierNormal")
class XavierInitializer(object):
    """``uniform=True`` -> ``XavierUniform(fan_in, fan_out)``, else ``XavierNormal``."""

    def __new__(cls, uniform=True, fan_in=None, fan_out=None, seed=0):
        if uniform:
            return I.XavierUniform(fan_in=fan_in, fan_out=fan_out)
        return I.XavierNormal(fan_in=fan_in, fan_out=fan_out)

    def __init__(self, uniform=True, fan_in=None, fan_out=None, seed=0):
        pass


@legacy("paddle.fluid.initializer.MSRAInitializer", "paddle.fluid.initializer.MSRA",
        replacement="paddle.nn.initializer.KaimingUniform / KaimingNormal")
class MSRAInitializer(object):
    """``uniform=True`` -> ``KaimingUniform(fan_in)`` (bound sqrt(6/fan_in)), else
    ``KaimingNormal(fan_in)`` (std sqrt(2/fan_in)), as in 1.x."""

    def __new__(cls, uniform=True, fan_in=None, seed=0):
        if uniform:
            return I.KaimingUniform(fan_in=fan_in)
        return I.KaimingNormal(fan_in=fan_in)

    def __init__(self, uniform=True, fan_in=None, seed=0):
        pass


@legacy("paddle.fluid.initializer.BilinearInitializer", "paddle.fluid.initializer.Bilinear",
        replacement="paddle.nn.initializer.Bilinear")
class BilinearInitializer(I.Bilinear):
    def __init__(self):
        super().__init__()


@legacy("paddle.fluid.initializer.NumpyArrayInitializer",
        replacement="paddle.nn.initializer.Assign")
class NumpyArrayInitializer(I.Assign):
    def __init__(self, value):
        if not isinstance(value, np.ndarray):
            raise TypeError("NumpyArrayInitializer takes a numpy array")
        super().__init__(value)


Constant = ConstantInitializer
Uniform = UniformInitializer
Normal = NormalInitializer
TruncatedNormal = TruncatedNormalInitializer
Xavier = XavierInitializer
MSRA = MSRAInitializer
Bilinear = BilinearInitializer


def force_init_on_cpu():
    return False


class init_on_cpu(object):  # noqa: N801 - 1.x name (a context manager)
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


_lazy.attach(globals())
