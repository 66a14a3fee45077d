"""``compat.fluid``: Paddle 1.8's ``paddle.fluid`` on today's Paddle.

Importing it puts Paddle in static-graph mode, 1.x's default (``fluid.dygraph.guard()``
gives dygraph inside and restores the mode afterwards). Names not written here by hand
are generated from the rule database on first use; see compat/README.md.
"""
from __future__ import annotations

import paddle

from compat import _finder, _lazy

_finder.install_fallback_finder()

from compat import device as _device  # noqa: E402
from compat._runtime import mode_state as _mode_state  # noqa: E402

if paddle.in_dynamic_mode() and not _mode_state.explicit_dygraph:
    paddle.enable_static()  # Paddle 1.x programs start in static-graph mode

from compat.fluid import _pir  # noqa: E402

_pir.install()

import compat as _compat  # noqa: E402

paddle.jit.ignore_module([_compat])  # to_static must not rewrite the shim's own code

from compat.fluid import core, framework, unique_name  # noqa: E402,F401
from compat.fluid import initializer, param_attr, regularizer  # noqa: E402,F401
from compat.fluid import executor, compiler  # noqa: E402,F401
from compat.fluid import layers  # noqa: E402,F401
from compat.fluid import clip, optimizer, backward  # noqa: E402,F401
from compat.fluid import _ema  # noqa: E402,F401  (registers optimizer.ExponentialMovingAverage)
from compat.fluid import data_feeder, reader, io, metrics  # noqa: E402,F401
from compat.fluid import dygraph, lod_tensor, input  # noqa: E402,F401
from compat.fluid import contrib, nets  # noqa: E402,F401

from compat.device import CPUPlace, CUDAPinnedPlace, CUDAPlace, XPUPlace  # noqa: E402,F401
from compat.fluid._data import data  # noqa: E402,F401
from compat.fluid.backward import append_backward, gradients  # noqa: E402,F401
from compat.fluid.compiler import BuildStrategy, CompiledProgram, ExecutionStrategy  # noqa: E402,F401
from compat.fluid.core import LoDTensor, LoDTensorArray, Tensor  # noqa: E402,F401
from compat.fluid.data_feeder import DataFeeder  # noqa: E402,F401
from compat.fluid.dygraph.base import (disable_dygraph, disable_imperative,  # noqa: E402,F401
                                       enable_dygraph, enable_imperative)
from compat.fluid.dygraph.checkpoint import load_dygraph, save_dygraph  # noqa: E402,F401
from compat.fluid.executor import Executor, Scope, global_scope, scope_guard  # noqa: E402,F401
from compat.fluid.framework import (Program, Variable, cpu_places,  # noqa: E402,F401
                                    cuda_pinned_places, cuda_places, default_main_program,
                                    default_startup_program, device_guard, get_flags,
                                    in_dygraph_mode, is_compiled_with_cuda, load_op_library,
                                    name_scope, program_guard, require_version, set_flags)
from compat.fluid.input import embedding, one_hot  # noqa: E402,F401
from compat.fluid.io import load, save  # noqa: E402,F401
from compat.fluid.lod_tensor import create_lod_tensor, create_random_int_lodtensor  # noqa: E402,F401
from compat.fluid.param_attr import ParamAttr, WeightNormParamAttr  # noqa: E402,F401

VarBase = paddle.Tensor
ComplexVariable = framework.ComplexVariable

_lazy.attach(globals())
