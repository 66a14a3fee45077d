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


def _dtype_members():
    try:
        from paddle.pir.core import vartype_to_datatype
    except ImportError:  # pragma: no cover - older layouts
        return {}
    out = {}
    for name in dir(_core.VarDesc.VarType):
        member = getattr(_core.VarDesc.VarType, name)
        if isinstance(member, _core.VarDesc.VarType) and member in vartype_to_datatype:
            out[name] = vartype_to_datatype[member]
    return out


class _VarTypeMeta(type):
    """1.8's ``VarDesc.VarType``: its data-type members are today's ``paddle.float32``...

    A tensor's ``dtype`` is a ``paddle.dtype`` (DataType) on Paddle 3 and never equals
    a ``VarType`` member, so 1.8 tests such as ``x.dtype == core.VarDesc.VarType.FP32``
    (True on 1.8.5) were always False. The variable kinds (LOD_TENSOR, SELECTED_ROWS...)
    stay today's ``VarType`` members."""

    def __getattr__(cls, name):
        if name.startswith("__"):
            raise AttributeError(name)
        if name in cls._dtypes:
            return cls._dtypes[name]
        return getattr(_core.VarDesc.VarType, name)

    def __instancecheck__(cls, obj):
        return isinstance(obj, (_core.VarDesc.VarType, paddle.dtype))

    def __call__(cls, *args, **kwargs):
        return _core.VarDesc.VarType(*args, **kwargs)


class _VarType(metaclass=_VarTypeMeta):
    _dtypes = _dtype_members()


class _VarDescMeta(type):
    def __getattr__(cls, name):
        if name.startswith("__"):
            raise AttributeError(name)
        return getattr(_core.VarDesc, name)

    def __instancecheck__(cls, obj):
        return isinstance(obj, _core.VarDesc)


class VarDesc(metaclass=_VarDescMeta):
    """``paddle.fluid.core.VarDesc`` (1.8): today's, with 1.8's ``VarType`` (see _VarTypeMeta)."""
    VarType = _VarType


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
