"""Shared pieces of the hand-written 1.x layers: parameter creation with 1.x names and
default initializers, shapes, activations."""
from __future__ import annotations

import copy

import paddle
import paddle.nn.initializer as I
from paddle.utils import unique_name

from compat._wrap import apply_act  # noqa: F401  (re-exported for the layers)


def layer_name(layer_type, name=None):
    """1.x ``LayerHelper``: ``name`` as given, else ``<type>_<n>``."""
    return name if name is not None else unique_name.generate(layer_type)


def to_attr(attr):
    """``ParamAttr._to_attr`` plus a private copy (1.x deep-copied attributes)."""
    if attr is False:
        return False
    out = paddle.ParamAttr._to_attr(attr)
    if out is False:
        return False
    return copy.copy(out)


def create_parameter(prefix, suffix, shape, dtype, attr, is_bias=False, default_initializer=None,
                     trainable=None):
    """A parameter named like 1.x (``fc_0.w_0``) unless ``attr`` names it."""
    attr = to_attr(attr)
    if attr is False:
        return None
    if attr.name is None:
        attr.name = unique_name.generate(".".join([prefix, suffix]))
    if trainable is not None:
        attr.trainable = trainable
    if default_initializer is None:
        default_initializer = I.Constant(0.0) if is_bias else I.XavierUniform()
    p = paddle.create_parameter(shape=[int(s) for s in shape], dtype=dtype, attr=attr,
                                is_bias=is_bias, default_initializer=default_initializer)
    if trainable is False:
        p.stop_gradient = True
    return p


def shape_of(x):
    return [int(s) if s is not None else -1 for s in x.shape]


def prod(values):
    out = 1
    for v in values:
        out *= int(v)
    return out


def dtype_of(x):
    d = x.dtype
    return d
