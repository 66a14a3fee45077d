"""``paddle.fluid.framework`` (1.8): programs, variables, guards, places."""
from __future__ import annotations

import contextlib

import paddle

from compat import _lazy, device
from compat._runtime import ensure_static, legacy, mode_state
from compat.fluid import _pir

__all__ = ["Program", "Variable", "Block", "Operator", "Parameter", "program_guard", "default_main_program",
           "default_startup_program", "name_scope", "in_dygraph_mode", "cpu_places",
           "cuda_places", "cuda_pinned_places", "device_guard", "is_compiled_with_cuda",
           "require_version", "set_flags", "get_flags", "ComplexVariable",
           "load_op_library"]


class _ProgramMeta(type):
    def __instancecheck__(cls, obj):
        return isinstance(obj, (paddle.pir.Program, paddle.base.framework.Program))


@legacy("paddle.fluid.Program", "paddle.fluid.framework.Program")
class Program(metaclass=_ProgramMeta):
    """``fluid.Program()``: a static program (a PIR program on today's Paddle)."""

    def __new__(cls):
        ensure_static()
        return paddle.static.Program()

    def __init__(self):  # documents the 1.x signature; __new__ returns the program
        pass


class _GraphClassMeta(type):
    """A 1.x graph class answering ``isinstance``/``issubclass`` for the old-IR class and
    its PIR counterpart (``__compat_classes__``: names under ``paddle``), as the upgrader's
    rewrite of its class checks does (upgrader/fixers/type_checks.py)."""

    def _classes(cls):
        out = []
        for dotted in cls.__compat_classes__:
            obj = paddle
            for part in dotted.split("."):
                obj = getattr(obj, part)
            out.append(obj)
        return tuple(out)

    def __instancecheck__(cls, obj):
        return isinstance(obj, cls._classes())

    def __subclasscheck__(cls, sub):
        return sub is cls or issubclass(sub, cls._classes())


_VARIABLE_NAMES = ["paddle.fluid.framework.Variable"] + [
    "paddle.fluid.layers.%sVariable" % m for m in (
        "", "tensor.", "nn.", "control_flow.", "io.", "ops.", "sequence_lod.",
        "learning_rate_scheduler.", "loss.", "detection.", "metric_op.", "math_op_patch.")]


@legacy("paddle.fluid.Variable", *_VARIABLE_NAMES, warn=False)
class Variable(metaclass=_GraphClassMeta):
    """``fluid.Variable`` for ``isinstance`` checks: an old-IR variable or a PIR value, and
    in dynamic mode a tensor (``paddle.static.Variable``'s own answer there), as 1.8's
    ``Variable`` answered for a ``VarBase`` in dygraph mode only."""
    __compat_classes__ = ("static.Variable", "pir.Value")

    def __new__(cls, *args, **kwargs):
        raise TypeError("fluid.Variable is not created directly; use fluid.data, "
                        "fluid.layers.create_tensor or fluid.layers.create_parameter")

    def __init__(self, block, type=paddle.base.core.VarDesc.VarType.LOD_TENSOR, name=None,
                 shape=None, dtype=None, lod_level=None, capacity=None, persistable=None,
                 error_clip=None, stop_gradient=False, is_data=False, need_check_feed=False,
                 belong_to_optimizer=False, **kwargs):  # documents the 1.8.5 signature
        pass


class ComplexVariable(metaclass=_GraphClassMeta):
    """1.8's experimental complex pair: a real (complex-dtype) tensor or value today."""
    __compat_classes__ = Variable.__compat_classes__

    def __new__(cls, *args, **kwargs):
        raise TypeError("fluid.ComplexVariable is not created directly: use a complex tensor")

    def __init__(self, real, imag):  # documents the 1.8.5 signature
        pass


@legacy("paddle.fluid.framework.Block")
class Block(metaclass=_GraphClassMeta):
    """``fluid.framework.Block``: an old-IR block or a PIR block."""
    __compat_classes__ = ("framework.Block", "pir.Block")

    def __new__(cls, *args, **kwargs):
        return paddle.framework.Block(*args, **kwargs)


@legacy("paddle.fluid.framework.Operator")
class Operator(metaclass=_GraphClassMeta):
    """``fluid.framework.Operator``: an old-IR operator or a PIR operation."""
    __compat_classes__ = ("static.Operator", "pir.Operation")

    def __new__(cls, *args, **kwargs):
        return paddle.static.Operator(*args, **kwargs)


class _ParameterMeta(type):
    def __instancecheck__(cls, obj):
        if isinstance(obj, paddle.pir.Value):
            try:
                return obj.get_defining_op().name() == "builtin.parameter"
            except Exception:
                return False
        return isinstance(obj, (paddle.base.framework.EagerParamBase,
                                paddle.base.framework.Parameter))


class Parameter(metaclass=_ParameterMeta):
    def __new__(cls, *args, **kwargs):
        raise TypeError("create parameters with fluid.layers.create_parameter")




@legacy("paddle.fluid.program_guard", "paddle.fluid.framework.program_guard")
@contextlib.contextmanager
def program_guard(main_program, startup_program=None):
    ensure_static()
    with paddle.static.program_guard(main_program, startup_program):
        yield


@legacy("paddle.fluid.default_main_program", "paddle.fluid.framework.default_main_program")
def default_main_program():
    if not mode_state.explicit_dygraph:
        ensure_static()
    return paddle.static.default_main_program()


@legacy("paddle.fluid.default_startup_program", "paddle.fluid.framework.default_startup_program")
def default_startup_program():
    if not mode_state.explicit_dygraph:
        ensure_static()
    return paddle.static.default_startup_program()


@legacy("paddle.fluid.name_scope", "paddle.fluid.framework.name_scope")
@contextlib.contextmanager
def name_scope(prefix=None):
    if paddle.in_dynamic_mode():
        yield
        return
    with paddle.static.name_scope(prefix):
        yield


@legacy("paddle.fluid.in_dygraph_mode", "paddle.fluid.framework.in_dygraph_mode")
def in_dygraph_mode():
    return paddle.in_dynamic_mode()


@legacy("paddle.fluid.is_compiled_with_cuda", "paddle.fluid.framework.is_compiled_with_cuda",
        "paddle.fluid.core.is_compiled_with_cuda")
def is_compiled_with_cuda():
    return device.is_compiled_with_cuda()


@legacy("paddle.fluid.cpu_places", "paddle.fluid.framework.cpu_places")
def cpu_places(device_count=None):
    return device.cpu_places(device_count)


@legacy("paddle.fluid.cuda_places", "paddle.fluid.framework.cuda_places")
def cuda_places(device_ids=None):
    return device.cuda_places(device_ids)


@legacy("paddle.fluid.cuda_pinned_places", "paddle.fluid.framework.cuda_pinned_places")
def cuda_pinned_places(device_count=None):
    return device.cuda_pinned_places(device_count)


@legacy("paddle.fluid.device_guard", "paddle.fluid.framework.device_guard")
@contextlib.contextmanager
def device_guard(device=None):
    if paddle.in_dynamic_mode():
        yield
        return
    if device is not None and device.startswith("gpu") and not is_compiled_with_cuda():
        device = "cpu"
    with paddle.static.device_guard(device):
        yield


@legacy("paddle.fluid.require_version", "paddle.fluid.framework.require_version")
def require_version(min_version, max_version=None):
    """1.x programs check for a 1.x Paddle; under compat they run on today's Paddle, so
    the requirement is accepted (the shim provides the 1.8 API)."""
    if not isinstance(min_version, str):
        raise TypeError("The type of 'min_version' in require_version must be str, but received %s."
                        % type(min_version))


@legacy("paddle.fluid.set_flags", "paddle.fluid.framework.set_flags")
def set_flags(flags):
    if not isinstance(flags, dict):
        raise TypeError("flags in set_flags should be a dict")
    known = {}
    for k, v in flags.items():
        try:
            paddle.get_flags([k])
            known[k] = v
        except Exception:
            pass  # a 1.x flag that no longer exists: nothing to set
    if known:
        paddle.set_flags(known)


@legacy("paddle.fluid.get_flags", "paddle.fluid.framework.get_flags")
def get_flags(flags):
    return paddle.get_flags(flags)


@legacy("paddle.fluid.load_op_library", "paddle.fluid.framework.load_op_library")
def load_op_library(lib_filename):
    from compat._runtime import manual_error
    raise manual_error("paddle.fluid.load_op_library",
                       "1.x custom-op libraries cannot be loaded; rebuild the op with "
                       "paddle.utils.cpp_extension")


_pir.install()
_lazy.attach(globals())
