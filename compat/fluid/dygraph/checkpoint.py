"""``paddle.fluid.dygraph.checkpoint`` (1.8): ``save_dygraph`` / ``load_dygraph`` with the
1.x file names (``<path>.pdparams`` for layers, ``<path>.pdopt`` for optimizers) and the
1.x return value of ``load_dygraph``: ``(parameters or None, optimizer state or None)``,
values as numpy arrays."""
from __future__ import annotations

import os

import paddle

from compat import _lazy
from compat._runtime import legacy


def _is_parameter(v) -> bool:
    return isinstance(v, paddle.base.framework.EagerParamBase)


@legacy("paddle.fluid.dygraph.save_dygraph", "paddle.fluid.dygraph.checkpoint.save_dygraph",
        "paddle.fluid.save_dygraph", replacement="paddle.save(state_dict, path + '.pdparams')")
def save_dygraph(state_dict, model_path):
    base = os.path.basename(model_path)
    if base == "":
        raise AssertionError("The input model_path MUST be format of dirname/filename "
                             "[dirname\\filename in Windows system], but received filename is empty string.")
    if len(state_dict) == 0:
        raise AssertionError("state_dict is empty, no need to save")
    suffix = ".pdparams"
    if not any(_is_parameter(v) for v in state_dict.values()):
        suffix = ".pdopt"
    d = os.path.dirname(model_path)
    if d and not os.path.exists(d):
        os.makedirs(d)
    paddle.save(state_dict, model_path + suffix)


def _numpy(obj):
    if isinstance(obj, dict):
        return {k: _numpy(v) for k, v in obj.items()}
    if isinstance(obj, paddle.Tensor):
        return obj.numpy()
    return obj


@legacy("paddle.fluid.dygraph.load_dygraph", "paddle.fluid.dygraph.checkpoint.load_dygraph",
        "paddle.fluid.load_dygraph", replacement="paddle.load(path + '.pdparams'), paddle.load(path + '.pdopt')")
def load_dygraph(model_path, keep_name_table=False):
    prefix = model_path
    for ext in (".pdparams", ".pdopt", ".pdmodel"):
        if prefix.endswith(ext):
            prefix = prefix[:-len(ext)]
            break
    params_path, opt_path = prefix + ".pdparams", prefix + ".pdopt"
    if not os.path.exists(params_path) and not os.path.exists(opt_path):
        raise ValueError("Model saved directory '" + os.path.dirname(prefix) + "' is not exists!")
    para = opti = None
    if os.path.exists(params_path):
        para = _numpy(paddle.load(params_path, return_numpy=True))
        if not keep_name_table and isinstance(para, dict):
            para.pop("StructuredToParameterName@@", None)
    if os.path.exists(opt_path):
        opti = _numpy(paddle.load(opt_path, return_numpy=True))
    return para, opti


_lazy.attach(globals())
