"""``paddle.fluid.dygraph.nn`` (1.8): layer classes with 1.x signatures, ``act=`` applied
in ``forward``, 1.x defaults (``Pool2D`` stride 1, ``Dropout`` downgrade_in_infer) and
1.x parameter behaviour (``Embedding`` keeps its padding row)."""
from __future__ import annotations

import contextlib

import numpy as np
import paddle
import paddle.nn.functional as F
import paddle.nn.initializer as I
from paddle import _C_ops

from compat import _lazy
from compat._added import added
from compat._runtime import legacy
from compat._wrap import apply_act
from compat.fluid.dygraph.layers import Layer
from compat.fluid.layers import nn as _L

__all__ = ["Conv2D", "Conv3D", "Pool2D", "Linear", "BatchNorm", "Dropout", "Embedding",
           "InstanceNorm", "LayerNorm", "PRelu", "BilinearTensorProduct", "Conv2DTranspose",
           "Conv3DTranspose", "GroupNorm", "GRUUnit"]


def _d(name, replacement=None):
    return legacy("paddle.fluid.dygraph." + name, "paddle.fluid.dygraph.nn." + name,
                  replacement=replacement)


@contextlib.contextmanager
def _default_dtype(dtype):
    if dtype in (None, "float32", paddle.float32):
        yield
        return
    old = paddle.get_default_dtype()
    paddle.set_default_dtype(dtype)
    try:
        yield
    finally:
        paddle.set_default_dtype(old)


@_d("Linear", replacement="paddle.nn.Linear (+ explicit activation)")
class Linear(paddle.nn.Linear):
    def __init__(self, input_dim, output_dim, param_attr=None, bias_attr=None, act=None,
                 dtype="float32"):
        with _default_dtype(dtype):
            super().__init__(input_dim, output_dim, weight_attr=param_attr, bias_attr=bias_attr)
        self._act = act

    def forward(self, input):
        return apply_act(super().forward(input), self._act)


@_d("Conv2D", replacement="paddle.nn.Conv2D (+ explicit activation)")
class Conv2D(paddle.nn.Conv2D):
    def __init__(self, num_channels, num_filters, filter_size, stride=1, padding=0, dilation=1,
                 groups=None, param_attr=None, bias_attr=None, use_cudnn=True, act=None,
                 dtype="float32"):
        with _default_dtype(dtype):
            super().__init__(num_channels, num_filters, filter_size, stride=stride,
                             padding=padding, dilation=dilation,
                             groups=1 if groups is None else groups,
                             weight_attr=param_attr, bias_attr=bias_attr)
        self._act = act

    def forward(self, input):
        return apply_act(super().forward(input), self._act)


@_d("Conv3D", replacement="paddle.nn.Conv3D (+ explicit activation)")
class Conv3D(paddle.nn.Conv3D):
    def __init__(self, num_channels, num_filters, filter_size, stride=1, padding=0, dilation=1,
                 groups=None, param_attr=None, bias_attr=None, use_cudnn=True, act=None,
                 dtype="float32"):
        with _default_dtype(dtype):
            super().__init__(num_channels, num_filters, filter_size, stride=stride,
                             padding=padding, dilation=dilation,
                             groups=1 if groups is None else groups,
                             weight_attr=param_attr, bias_attr=bias_attr)
        self._act = act

    def forward(self, input):
        return apply_act(super().forward(input), self._act)


@_d("Conv2DTranspose", replacement="paddle.nn.Conv2DTranspose (note the order: stride before padding)")
class Conv2DTranspose(paddle.nn.Conv2DTranspose):
    def __init__(self, num_channels, num_filters, filter_size, output_size=None, padding=0,
                 stride=1, dilation=1, groups=None, param_attr=None, bias_attr=None,
                 use_cudnn=True, act=None, dtype="float32"):
        with _default_dtype(dtype):
            super().__init__(num_channels, num_filters, filter_size, stride=stride,
                             padding=padding, dilation=dilation,
                             groups=1 if groups is None else groups,
                             weight_attr=param_attr, bias_attr=bias_attr)
        self._act = act
        self._legacy_output_size = output_size

    def forward(self, input):
        out = super().forward(input, output_size=self._legacy_output_size)
        return apply_act(out, self._act)


@_d("Conv3DTranspose", replacement="paddle.nn.Conv3DTranspose (note the order: stride before padding)")
class Conv3DTranspose(paddle.nn.Conv3DTranspose):
    def __init__(self, num_channels, num_filters, filter_size, padding=0, stride=1, dilation=1,
                 groups=None, param_attr=None, bias_attr=None, use_cudnn=True, act=None,
                 dtype="float32"):
        with _default_dtype(dtype):
            super().__init__(num_channels, num_filters, filter_size, stride=stride,
                             padding=padding, dilation=dilation,
                             groups=1 if groups is None else groups,
                             weight_attr=param_attr, bias_attr=bias_attr)
        self._act = act
        # 1.8.5 created the bias but added it only ``if self._bias_attr:``: with the default
        # None it stayed an unused zero parameter without gradient
        self._legacy_add_bias = bool(bias_attr)

    def forward(self, input):
        if self._legacy_add_bias:
            return apply_act(super().forward(input), self._act)
        out = F.conv3d_transpose(input, self.weight, bias=None, padding=self._padding,
                                 output_padding=self.output_padding, stride=self._stride,
                                 dilation=self._dilation, groups=self._groups,
                                 data_format=self._data_format)
        return apply_act(out, self._act)


@_d("Pool2D", replacement="paddle.nn.MaxPool2D / AvgPool2D (stride=1 explicitly) / AdaptiveMaxPool2D(1)")
class Pool2D(Layer):
    def __init__(self, pool_size=-1, pool_type="max", pool_stride=1, pool_padding=0,
                 global_pooling=False, use_cudnn=True, ceil_mode=False, exclusive=True):
        if pool_type not in ("max", "avg"):
            raise ValueError("Unknown pool_type: '%s'. It can only be 'max' or 'avg'." % pool_type)
        if global_pooling is False and pool_size == -1:
            raise ValueError("When the global_pooling is False, pool_size must be passed "
                             "and be a valid value. Received pool_size: " + str(pool_size))
        super().__init__()
        self._pool_size, self._pool_type = pool_size, pool_type
        self._pool_stride, self._pool_padding = pool_stride, pool_padding
        self._global_pooling, self._ceil_mode, self._exclusive = global_pooling, ceil_mode, exclusive

    def forward(self, input):
        return _L.pool2d.__compat_impl__(
            input, pool_size=self._pool_size, pool_type=self._pool_type,
            pool_stride=self._pool_stride, pool_padding=self._pool_padding,
            global_pooling=self._global_pooling, ceil_mode=self._ceil_mode,
            exclusive=self._exclusive)


@_d("BatchNorm", replacement="paddle.nn.BatchNorm1D/2D/3D (+ explicit activation)")
class BatchNorm(paddle.nn.BatchNorm):
    """``paddle.nn.BatchNorm`` is 1.x's class (same signature); ``act`` is applied here
    with 1.x's activation defaults (today's class passes the 1.x op attributes with the
    wrong types for ``leaky_relu``/``softplus`` and has no ``soft_relu``)."""

    def __init__(self, num_channels, act=None, is_test=False, momentum=0.9, epsilon=1e-05,
                 param_attr=None, bias_attr=None, dtype="float32", data_layout="NCHW",
                 in_place=False, moving_mean_name=None, moving_variance_name=None,
                 do_model_average_for_mean_and_var=True, use_global_stats=False,
                 trainable_statistics=False):
        super().__init__(num_channels, act=None, is_test=is_test, momentum=momentum,
                         epsilon=epsilon, param_attr=param_attr, bias_attr=bias_attr,
                         dtype=dtype, data_layout=data_layout, in_place=in_place,
                         moving_mean_name=moving_mean_name,
                         moving_variance_name=moving_variance_name,
                         do_model_average_for_mean_and_var=do_model_average_for_mean_and_var,
                         use_global_stats=use_global_stats,
                         trainable_statistics=trainable_statistics)
        self._legacy_act = act
        if paddle.in_dynamic_mode():
            # 1.x dygraph ignored is_test: the layer followed train()/eval() and started in
            # training mode (today's class starts in eval mode when is_test=True)
            self.training = True

    def forward(self, input):
        w, b = _norm_affine(self.weight, self.bias)
        if w is not self.weight or b is not self.bias:
            out = _C_ops.batch_norm(input, self._mean, self._variance, w, b, not self.training,
                                    self._momentum, self._epsilon, self._data_layout,
                                    self._use_global_stats, self._trainable_statistics)[0]
            return apply_act(out, self._legacy_act)
        return apply_act(super().forward(input), self._legacy_act)


def _norm_affine(weight, bias):
    """Today's batch_norm / instance_norm backward computes neither the scale nor the bias
    gradient when one of them needs none (a trainable=False bias left the scale untrained;
    1.8.5 trained it): in dygraph the frozen one goes in as a detached alias that takes a
    gradient, which is dropped (the parameter itself stays frozen)."""
    if not paddle.in_dynamic_mode() or weight is None or bias is None \
            or weight.stop_gradient == bias.stop_gradient:
        return weight, bias

    def alias(p):
        if not p.stop_gradient:
            return p
        a = p.detach()
        a.stop_gradient = False
        return a
    return alias(weight), alias(bias)


_DROPOUT_MODES = {"downgrade_in_infer": "downscale_in_infer",
                  "upscale_in_train": "upscale_in_train"}


@_d("Dropout", replacement="paddle.nn.Dropout(p, mode='downscale_in_infer')")
class Dropout(Layer):
    """In dygraph 1.x took ``is_test`` from ``not self.training``; the default
    ``downgrade_in_infer`` scales by ``1 - p`` at inference (today: ``downscale_in_infer``)."""

    def __init__(self, p=0.5, seed=None, dropout_implementation="downgrade_in_infer",
                 is_test=False):
        super().__init__()
        if dropout_implementation not in _DROPOUT_MODES:
            raise ValueError("dropout_implementation must be 'downgrade_in_infer' or "
                             "'upscale_in_train'")
        self._dropout_prob = p
        self._seed = seed
        self._dropout_implementation = dropout_implementation
        self._is_test = is_test

    def forward(self, input):
        return F.dropout(input, p=self._dropout_prob, training=self.training,
                         mode=_DROPOUT_MODES[self._dropout_implementation])


@_d("Embedding", replacement="paddle.nn.Embedding(size[0], size[1], sparse=is_sparse, weight_attr=param_attr), _FluidEmbedding with a padding_idx")
class Embedding(added("embedding_padding", "_FluidEmbedding"), Layer):
    """fix's _FluidEmbedding (lookup_table_v2: the embedding dim is appended) with 1.x's
    signature, as a compat Layer. Unlike ``paddle.nn.Embedding`` it does not zero the
    padding row of the weight: the output for ``padding_idx`` is zero, the stored row
    keeps its initial value, as in 1.x."""

    def __init__(self, size, is_sparse=False, is_distributed=False, padding_idx=None,
                 param_attr=None, dtype="float32"):
        super().__init__(size[0], size[1], padding_idx, sparse=is_sparse, dtype=dtype,
                         weight_attr=param_attr)
        self._size = list(size)
        self._is_sparse = is_sparse
        self._is_distributed = is_distributed
        self._param_attr = param_attr


@_d("LayerNorm", replacement="paddle.nn.LayerNorm (+ explicit activation)")
class LayerNorm(Layer):
    def __init__(self, normalized_shape, scale=True, shift=True, epsilon=1e-05, param_attr=None,
                 bias_attr=None, act=None, dtype="float32"):
        super().__init__()
        if isinstance(normalized_shape, int):
            normalized_shape = [normalized_shape]
        self._normalized_shape = list(normalized_shape)
        self._scale, self._shift, self._epsilon, self._act = scale, shift, epsilon, act
        shape = [int(np.prod(self._normalized_shape))]
        self.weight = (self.create_parameter(attr=param_attr, shape=shape, dtype=dtype,
                                             default_initializer=I.Constant(1.0))
                       if scale else None)
        self.bias = (self.create_parameter(attr=bias_attr, shape=shape, dtype=dtype, is_bias=True)
                     if shift else None)

    def forward(self, input):
        w, b = self.weight, self.bias  # flat, as the layer_norm op takes them
        out = F.layer_norm(input, self._normalized_shape, weight=w, bias=b, epsilon=self._epsilon)
        return apply_act(out, self._act)


@_d("GroupNorm", replacement="paddle.nn.GroupNorm (+ explicit activation)")
class GroupNorm(Layer):
    def __init__(self, channels, groups, epsilon=1e-05, param_attr=None, bias_attr=None,
                 act=None, data_layout="NCHW", dtype="float32"):
        super().__init__()
        self._groups, self._epsilon, self._act, self._data_layout = groups, epsilon, act, data_layout
        # 1.8.5 built both with `attr or False`: no scale and no bias unless an attr is given
        self.weight = self.create_parameter(attr=param_attr or False, shape=[channels], dtype=dtype,
                                            default_initializer=I.Constant(1.0))
        self.bias = self.create_parameter(attr=bias_attr or False, shape=[channels], dtype=dtype,
                                          is_bias=True)

    def forward(self, input):
        out = F.group_norm(input, self._groups, epsilon=self._epsilon, weight=self.weight,
                           bias=self.bias, data_format=self._data_layout)
        return apply_act(out, self._act)


@_d("InstanceNorm", replacement="paddle.nn.InstanceNorm2D")
class InstanceNorm(added("dygraph_norm_prelu", "_FluidInstanceNorm"), Layer):
    """fix's _FluidInstanceNorm (1.8's scale and bias, any rank, the normalisation with
    paddle ops: today's instance_norm backward drops both affine gradients when one is
    frozen) as a compat Layer."""


@_d("PRelu", replacement="paddle.nn.PReLU")
class PRelu(added("dygraph_norm_prelu", "_FluidPRelu"), Layer):
    """fix's _FluidPRelu (1.x parameter layout: ``weight`` is ``[1]`` (all),
    ``[1, C, 1, 1]`` (channel) or ``[1] + input_shape[1:]`` (element), named
    ``prelu_N.w_0``, initialised to 1.0 as 1.8.5's dygraph layer) as a compat Layer."""


@_d("BilinearTensorProduct", replacement="paddle.nn.Bilinear (+ explicit activation)")
class BilinearTensorProduct(paddle.nn.Bilinear):
    def __init__(self, input1_dim, input2_dim, output_dim, name=None, act=None, param_attr=None,
                 bias_attr=None, dtype="float32"):
        with _default_dtype(dtype):
            super().__init__(input1_dim, input2_dim, output_dim, weight_attr=param_attr,
                             bias_attr=bias_attr)
        self._act = act

    def forward(self, x, y):
        return apply_act(super().forward(x, y), self._act)


_GRU_ACTS = {"identity": lambda v: v, "sigmoid": F.sigmoid, "tanh": paddle.tanh,
             "relu": F.relu}


@_d("GRUUnit", replacement="paddle.nn.GRUCell (its own input projection, weights and gates)")
class GRUUnit(Layer):
    """1.x's gru_unit op on an input already projected to 3*H: ``weight`` [H, 3H] is one
    buffer holding the update/reset weights as [H, 2H] followed by the candidate weights
    as [H, H]; ``u, r = gate_act(x[:, :2H] + b + h @ W_ur)``,
    ``c = act(x[:, 2H:] + b + (r * h) @ W_c)``, ``h' = u * (c - h) + h``. Returns
    ``(h', r * h, concat(u, r, c))``, the last two without gradient. The 1.8 dygraph layer did not pass origin_mode to
    the op (always False)."""

    def __init__(self, size, param_attr=None, bias_attr=None, activation="tanh",
                 gate_activation="sigmoid", origin_mode=False, dtype="float32"):
        super().__init__()
        self._bias_attr = bias_attr
        self._act = _GRU_ACTS[activation]
        self._gate_act = _GRU_ACTS[gate_activation]
        self._dtype = dtype
        size = size // 3
        self.weight = self.create_parameter(attr=param_attr, shape=[size, 3 * size],
                                            dtype=dtype)
        self._bias_size = [1, 3 * size]
        self.bias = self.create_parameter(attr=bias_attr, shape=self._bias_size, dtype=dtype,
                                          is_bias=True)

    def forward(self, input, hidden):
        h = hidden.shape[1]
        flat = paddle.reshape(self.weight, [-1])
        w_ur = paddle.reshape(flat[: 2 * h * h], [h, 2 * h])
        w_c = paddle.reshape(flat[2 * h * h:], [h, h])
        x = input if self.bias is None else input + self.bias
        ur = self._gate_act(x[:, : 2 * h] + paddle.matmul(hidden, w_ur))
        u, r = ur[:, :h], ur[:, h:]
        reset_hidden = r * hidden
        c = self._act(x[:, 2 * h:] + paddle.matmul(reset_hidden, w_c))
        new_hidden = u * (c - hidden) + hidden
        # the op's Gate and ResetHiddenPrev outputs carried no gradient in 1.x (its
        # gradient kernel reads only Hidden@GRAD; checked on 1.8.5)
        return new_hidden, reset_hidden.detach(), paddle.concat([u, r, c], axis=1).detach()


_lazy.attach(globals())
