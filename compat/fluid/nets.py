"""``paddle.fluid.nets`` (1.8): compositions of 1.x layers, kept as 1.x built them
(today's Paddle has no ``nets`` module)."""
from __future__ import annotations

import paddle
import paddle.nn.functional as F

from compat import _lazy
from compat._runtime import legacy, manual_error
from compat.fluid.layers import nn as _nn

__all__ = ["simple_img_conv_pool", "img_conv_group", "sequence_conv_pool", "glu",
           "scaled_dot_product_attention"]

_conv2d = _nn.conv2d.__compat_impl__
_pool2d = _nn.pool2d.__compat_impl__
_batch_norm = _nn.batch_norm.__compat_impl__
_fc = _nn.fc.__compat_impl__


@legacy("paddle.fluid.nets.simple_img_conv_pool", replacement="paddle.nn.Conv2D + paddle.nn.MaxPool2D")
def simple_img_conv_pool(input, num_filters, filter_size, pool_size, pool_stride, pool_padding=0,
                         pool_type="max", global_pooling=False, conv_stride=1, conv_padding=0,
                         conv_dilation=1, conv_groups=1, param_attr=None, bias_attr=None,
                         act=None, use_cudnn=True):
    conv_out = _conv2d(input=input, num_filters=num_filters, filter_size=filter_size,
                       stride=conv_stride, padding=conv_padding, dilation=conv_dilation,
                       groups=conv_groups, param_attr=param_attr, bias_attr=bias_attr, act=act,
                       use_cudnn=use_cudnn)
    return _pool2d(input=conv_out, pool_size=pool_size, pool_type=pool_type,
                   pool_stride=pool_stride, pool_padding=pool_padding,
                   global_pooling=global_pooling, use_cudnn=use_cudnn)


@legacy("paddle.fluid.nets.img_conv_group", replacement="paddle.nn.Sequential of Conv2D/BatchNorm/Dropout + pooling")
def img_conv_group(input, conv_num_filter, pool_size, conv_padding=1, conv_filter_size=3,
                   conv_act=None, param_attr=None, conv_with_batchnorm=False,
                   conv_batchnorm_drop_rate=0.0, pool_stride=1, pool_type="max", use_cudnn=True):
    assert isinstance(conv_num_filter, (list, tuple))
    n = len(conv_num_filter)

    def extend(obj):
        if not hasattr(obj, "__len__"):
            return [obj] * n
        assert len(obj) == n
        return obj

    conv_padding = extend(conv_padding)
    conv_filter_size = extend(conv_filter_size)
    param_attr = extend(param_attr)
    conv_with_batchnorm = extend(conv_with_batchnorm)
    conv_batchnorm_drop_rate = extend(conv_batchnorm_drop_rate)
    tmp = input
    for i in range(n):
        act = None if conv_with_batchnorm[i] else conv_act
        tmp = _conv2d(input=tmp, num_filters=conv_num_filter[i], filter_size=conv_filter_size[i],
                      padding=conv_padding[i], param_attr=param_attr[i], act=act,
                      use_cudnn=use_cudnn)
        if conv_with_batchnorm[i]:
            tmp = _batch_norm(input=tmp, act=conv_act)
            rate = conv_batchnorm_drop_rate[i]
            if abs(rate) > 1e-5:
                tmp = F.dropout(tmp, p=rate, training=True, mode="downscale_in_infer")
    return _pool2d(input=tmp, pool_size=pool_size, pool_type=pool_type, pool_stride=pool_stride,
                   use_cudnn=use_cudnn)


@legacy("paddle.fluid.nets.sequence_conv_pool", replacement="(LoD sequences: pad and use paddle.nn.Conv1D)")
def sequence_conv_pool(input, num_filters, filter_size, param_attr=None, act="sigmoid",
                       pool_type="max", bias_attr=None):
    raise manual_error("paddle.fluid.nets.sequence_conv_pool",
                       "it works on LoD sequences, which today's tensors do not have; pad the "
                       "sequences and use paddle.nn.Conv1D with a mask")


@legacy("paddle.fluid.nets.glu", replacement="paddle.nn.functional.glu")
def glu(input, dim=-1):
    a, b = paddle.split(input, 2, axis=dim)
    return a * F.sigmoid(b)


@legacy("paddle.fluid.nets.scaled_dot_product_attention",
        replacement="paddle.nn.functional.scaled_dot_product_attention / paddle.nn.MultiHeadAttention")
def scaled_dot_product_attention(queries, keys, values, num_heads=1, dropout_rate=0.):
    if not (len(queries.shape) == len(keys.shape) == len(values.shape) == 3):
        raise ValueError("Inputs queries, keys and values should all be 3-D tensors.")
    if keys.shape[-1] % num_heads != 0 or values.shape[-1] % num_heads != 0:
        raise ValueError("The hidden size must be divisible by the number of attention heads.")
    if num_heads != 1:
        q = _fc(input=queries, size=queries.shape[-1], num_flatten_dims=2)
        k = _fc(input=keys, size=keys.shape[-1], num_flatten_dims=2)
        v = _fc(input=values, size=values.shape[-1], num_flatten_dims=2)
    else:
        q, k, v = queries, keys, values

    def split_heads(x):
        if num_heads == 1:
            return x
        hidden = x.shape[-1]
        x = paddle.reshape(x, [0, 0, num_heads, hidden // num_heads])
        return paddle.transpose(x, [0, 2, 1, 3])

    q, k, v = split_heads(q), split_heads(k), split_heads(v)
    scaled_q = paddle.scale(q, scale=(keys.shape[-1] // num_heads) ** -0.5)
    product = paddle.matmul(scaled_q, k, transpose_y=True)
    weights = F.softmax(product, axis=-1)
    if dropout_rate:
        weights = F.dropout(weights, p=dropout_rate, training=True, mode="downscale_in_infer")
    ctx = paddle.matmul(weights, v)
    if len(ctx.shape) == 4:
        ctx = paddle.transpose(ctx, [0, 2, 1, 3])
        ctx = paddle.reshape(ctx, [0, 0, ctx.shape[2] * ctx.shape[3]])
    return ctx


_lazy.attach(globals())
