"""``paddle.fluid.core`` (1.8): the C++ core's Python names legacy programs use.

Named 1.x entries are defined here; any other attribute is looked up in the rule
database, then in today's ``paddle.base.core`` (internal, with a warning).
"""
from __future__ import annotations

import warnings

import paddle
from paddle.base import core as _core

from compat import LegacyAPIWarning, device
from compat._runtime import legacy
from compat.device import CPUPlace, CUDAPinnedPlace, CUDAPlace, XPUPlace  # noqa: F401

EOFException = _core.EOFException
EnforceNotMet = getattr(_core, "EnforceNotMet", RuntimeError)
VarDesc = _core.VarDesc
LoDTensor = _core.DenseTensor
Tensor = _core.DenseTensor
LoDTensorArray = getattr(_core, "DenseTensorArray", getattr(_core, "LoDTensorArray", list))
VarBase = paddle.Tensor
Scope = _core.Scope


def is_compiled_with_cuda():
    return device.is_compiled_with_cuda()


def is_compiled_with_xpu():
    return device.is_compiled_with_xpu()


def is_compiled_with_mkldnn():
    return bool(_core.is_compiled_with_mkldnn())


def get_cuda_device_count():
    return device.get_cuda_device_count()


@legacy("paddle.fluid.core.globals")
def globals():  # noqa: A001 - 1.x name
    return _core.globals()


def __getattr__(name):
    if name.startswith("__"):
        raise AttributeError(name)
    from compat import _lazy
    try:
        return _lazy.lookup(__name__, name)
    except AttributeError:
        pass
    if hasattr(_core, name):
        warnings.warn("paddle.fluid.core.%s is internal to Paddle 1.x [PU001]; compat uses "
                      "today's paddle.base.core.%s, which may differ" % (name, name),
                      LegacyAPIWarning, stacklevel=2)
        return getattr(_core, name)
    raise AttributeError("module 'paddle.fluid.core' has no attribute %r" % name)
