"""``paddle.fluid.layers.nn`` (1.8).

Hand-written here: the layers that create parameters (``fc``, ``conv2d``,
``batch_norm``, ``layer_norm``, ``embedding`` ... work in dygraph and in static PIR
programs, with 1.x parameter names and default initializers), and the ops whose 1.x
semantics no single call expresses (``elementwise_*`` with ``axis``, ``mul`` with
``num_col_dims``, ``flatten`` to 2-D, ``pool2d``). Everything else comes from the rule
database (module ``__getattr__``).
"""
from __future__ import annotations

import paddle
import paddle.nn.functional as F
import paddle.nn.initializer as I

from compat import _lazy
from compat._runtime import legacy
from compat.fluid.layers import math_op_patch
from compat.fluid.layers._helper import (apply_act, create_parameter, layer_name, prod,
                                         shape_of)

__all__ = ["fc", "embedding", "conv2d", "conv2d_transpose", "pool2d", "pool3d", "batch_norm",
           "layer_norm", "group_norm", "instance_norm", "elementwise_add", "elementwise_sub",
           "elementwise_mul", "elementwise_div", "elementwise_max", "elementwise_min",
           "elementwise_pow", "elementwise_mod", "elementwise_floordiv", "mul", "flatten",
           "prelu", "swish", "resize_nearest", "resize_bilinear", "resize_trilinear",
           "image_resize", "cos_sim", "scale", "reduce_sum",
           "reduce_max", "reduce_min", "linear_chain_crf", "crf_decoding", "ctc_greedy_decoder"]


def _nn(name, replacement=None):
    return legacy("paddle.fluid.layers." + name, "paddle.fluid.layers.nn." + name,
                  replacement=replacement)


def _matmul_flat(x, w, num_flatten_dims):
    """1.x ``mul(x, w, x_num_col_dims=k)`` for a 2-D ``w``: x's dims from k on are
    flattened, the result keeps x's first k dims."""
    rank = len(x.shape)
    if rank > num_flatten_dims + 1:
        x = paddle.flatten(x, start_axis=num_flatten_dims)
    elif rank < num_flatten_dims + 1:
        x = paddle.unsqueeze(x, list(range(rank, num_flatten_dims + 1)))
    return paddle.matmul(x, w)


@_nn("fc", replacement="paddle.static.nn.fc (static) / paddle.nn.Linear (dygraph)")
def fc(input, size, num_flatten_dims=1, param_attr=None, bias_attr=None, act=None, name=None):
    prefix = layer_name("fc", name)
    inputs = input if isinstance(input, (list, tuple)) else [input]
    attrs = param_attr if isinstance(param_attr, (list, tuple)) else [param_attr] * len(inputs)
    if len(attrs) != len(inputs):
        raise ValueError("fc: param_attr must be a single attribute or one per input")
    outs = []
    for x, attr in zip(inputs, attrs):
        in_dim = prod(shape_of(x)[num_flatten_dims:])
        w = create_parameter(prefix, "w", [in_dim, size], x.dtype, attr)
        outs.append(_matmul_flat(x, w, num_flatten_dims))
    out = outs[0] if len(outs) == 1 else paddle.add_n(outs)
    b = create_parameter(prefix, "b", [size], inputs[0].dtype, bias_attr, is_bias=True)
    if b is not None:
        out = out + b
    return apply_act(out, act)


def _lookup(input, size, is_sparse, padding_idx, param_attr, dtype, squeeze_last):
    prefix = layer_name("embedding")
    w = create_parameter(prefix, "w", list(size), dtype, param_attr)
    if padding_idx is not None and padding_idx < 0:
        padding_idx = size[0] + padding_idx
    ids = input
    if squeeze_last:
        if int(ids.shape[-1]) != 1:
            raise ValueError("fluid.layers.embedding: the last dimension of the ids must be 1 "
                             "(got shape %s); use fluid.embedding to append the dimension"
                             % list(ids.shape))
        ids = paddle.squeeze(ids, axis=-1)
    if is_sparse and padding_idx is not None and not paddle.in_dynamic_mode():
        # 1.8.5's sparse lookup_table(_v2) gradient copied the output gradient of every
        # id into its row, the padding row too (only the dense gradient skipped it), so
        # training moved weight[padding_idx]; PIR programs take a dense gradient, which
        # skips it. Zeros forward (out - out), the full gradient backward.
        out = F.embedding(ids, w, sparse=is_sparse)
        pad = paddle.unsqueeze(paddle.cast(ids == padding_idx, out.dtype), -1)
        return out - (out * pad).detach()
    return F.embedding(ids, w, padding_idx=padding_idx, sparse=is_sparse)


@_nn("embedding", replacement="paddle.nn.Embedding / paddle.nn.functional.embedding on squeezed ids")
def embedding(input, size, is_sparse=False, is_distributed=False, padding_idx=None,
              param_attr=None, dtype="float32"):
    """1.x lookup_table (v1): ids ``[..., 1]`` -> ``[..., size[1]]`` (the trailing 1 is
    replaced)."""
    return _lookup(input, size, is_sparse, padding_idx, param_attr, dtype, squeeze_last=True)


def embedding_v2(input, size, is_sparse=False, is_distributed=False, padding_idx=None,
                 param_attr=None, dtype="float32"):
    """``fluid.embedding`` (lookup_table_v2): appends the embedding dimension."""
    return _lookup(input, size, is_sparse, padding_idx, param_attr, dtype, squeeze_last=False)


def _padded_only(name, length):
    if length is None:
        from compat._runtime import manual_error
        raise manual_error("paddle.fluid.layers." + name,
                           "compat runs only the padded form (input [N, T, D] with length=)")


@_nn("linear_chain_crf", replacement="the CRF negative log-likelihood written with paddle ops")
def linear_chain_crf(input, label, param_attr=None, length=None):
    """The function fix adds (upgrader/fixers/linear_chain_crf.py), 1.8.5's padded
    linear_chain_crf (``length`` given): the [D + 2, D] transition parameter (start row,
    end row, tag-to-tag rows; ``linear_chain_crf_<n>.w_0`` and Xavier by default, one per
    name in a static program) and per sequence the negative log-likelihood ``log Z -
    score(label)``, shape [N, 1], 0 for length 0."""
    _padded_only("linear_chain_crf", length)
    from compat._added import added
    return added("linear_chain_crf", "_fluid_linear_chain_crf")(input, label, param_attr, length)


@_nn("crf_decoding", replacement="Viterbi decoding written with paddle ops")
def crf_decoding(input, param_attr, label=None, length=None):
    """The function fix adds (upgrader/fixers/linear_chain_crf.py), 1.8.5's padded
    crf_decoding (``length`` given) in a static program: the Viterbi path [N, T] int64
    under the transition parameter ``param_attr`` names (0 past each length; ties go to
    the first tag); with ``label``, 1 where the path equals it. Raises in dygraph mode, as
    1.8.5 did."""
    _padded_only("crf_decoding", length)
    from compat._added import added
    return added("linear_chain_crf", "_fluid_crf_decoding")(input, param_attr, label, length)


def _pair(v, n=2):
    if isinstance(v, (list, tuple)):
        return list(v)
    return [v] * n


@_nn("conv2d", replacement="paddle.nn.Conv2D / paddle.nn.functional.conv2d")
def conv2d(input, num_filters, filter_size, stride=1, padding=0, dilation=1, groups=None,
           param_attr=None, bias_attr=None, use_cudnn=True, act=None, name=None,
           data_format="NCHW"):
    prefix = layer_name("conv2d", name)
    groups = 1 if groups is None else groups
    channels = int(input.shape[1] if data_format == "NCHW" else input.shape[-1])
    k = _pair(filter_size)
    shape = [num_filters, channels // groups] + k
    std = (2.0 / (k[0] * k[1] * channels)) ** 0.5
    w = create_parameter(prefix, "w", shape, input.dtype, param_attr,
                         default_initializer=I.Normal(0.0, std))
    b = create_parameter(prefix, "b", [num_filters], input.dtype, bias_attr, is_bias=True)
    if isinstance(padding, str):
        padding = padding.upper()
    out = F.conv2d(input, w, bias=b, stride=stride, padding=padding, dilation=dilation,
                   groups=groups, data_format=data_format)
    return apply_act(out, act)


@_nn("conv2d_transpose", replacement="paddle.nn.Conv2DTranspose / paddle.nn.functional.conv2d_transpose")
def conv2d_transpose(input, num_filters, output_size=None, filter_size=None, padding=0, stride=1,
                     dilation=1, groups=None, param_attr=None, bias_attr=None, use_cudnn=True,
                     act=None, name=None, data_format="NCHW"):
    prefix = layer_name("conv2d_transpose", name)
    groups = 1 if groups is None else groups
    channels = int(input.shape[1] if data_format == "NCHW" else input.shape[-1])
    if filter_size is None:
        if output_size is None:
            raise ValueError("output_size must be set when filter_size is None")
        osz = _pair(output_size)
        h, w_ = (input.shape[2], input.shape[3]) if data_format == "NCHW" else (input.shape[1], input.shape[2])
        p, s, d = _pair(padding), _pair(stride), _pair(dilation)
        filter_size = [(osz[0] - (int(h) - 1) * s[0] + 2 * p[0] - 1) // d[0] + 1,
                       (osz[1] - (int(w_) - 1) * s[1] + 2 * p[1] - 1) // d[1] + 1]
    k = _pair(filter_size)
    shape = [channels, num_filters // groups] + k
    w = create_parameter(prefix, "w", shape, input.dtype, param_attr)
    b = create_parameter(prefix, "b", [num_filters], input.dtype, bias_attr, is_bias=True)
    out = F.conv2d_transpose(input, w, bias=b, stride=stride, padding=padding, dilation=dilation,
                             groups=groups, output_size=output_size, data_format=data_format)
    return apply_act(out, act)


def _pool(nd, input, pool_size, pool_type, pool_stride, pool_padding, global_pooling,
          ceil_mode, exclusive, data_format):
    """1.8's pool2d / pool3d (``nd`` spatial dimensions) on today's functional pools."""
    if pool_type not in ("max", "avg"):
        raise ValueError("Unknown Attr(pool_type): '%s'. It can only be 'max' or 'avg'." % pool_type)
    if global_pooling:
        if pool_type == "avg":
            return getattr(F, "adaptive_avg_pool%dd" % nd)(input, 1, data_format=data_format)
        return getattr(F, "adaptive_max_pool%dd" % nd)(input, 1)
    if pool_size == -1:
        raise ValueError("When Attr(global_pooling) is False, Attr(pool_size) must be set")
    padding = pool_padding.upper() if isinstance(pool_padding, str) else pool_padding
    if pool_type == "max":
        return getattr(F, "max_pool%dd" % nd)(input, pool_size, stride=pool_stride, padding=padding,
                                               ceil_mode=ceil_mode, data_format=data_format)
    # the function fix adds (upgrader/fixers/avg_pool.py): 1.x divided every window by
    # the kernel size with exclusive=False, also past an asymmetric padding or ceil_mode
    from compat._added import added
    return added("avg_pool", "_fluid_avg_pool")(input, pool_size, pool_stride, padding,
                                                ceil_mode, exclusive, data_format)


@_nn("pool2d", replacement="paddle.nn.functional.max_pool2d / avg_pool2d (stride=1 explicitly)")
def pool2d(input, pool_size=-1, pool_type="max", pool_stride=1, pool_padding=0,
           global_pooling=False, use_cudnn=True, ceil_mode=False, name=None, exclusive=True,
           data_format="NCHW"):
    return _pool(2, input, pool_size, pool_type, pool_stride, pool_padding, global_pooling,
                 ceil_mode, exclusive, data_format)


@_nn("pool3d", replacement="paddle.nn.functional.max_pool3d / avg_pool3d (stride=1 explicitly)")
def pool3d(input, pool_size=-1, pool_type="max", pool_stride=1, pool_padding=0,
           global_pooling=False, use_cudnn=True, ceil_mode=False, name=None, exclusive=True,
           data_format="NCDHW"):
    return _pool(3, input, pool_size, pool_type, pool_stride, pool_padding, global_pooling,
                 ceil_mode, exclusive, data_format)


def _bn_format(x, data_layout):
    rank = len(x.shape)
    if data_layout == "NCHW":
        return {2: "NC", 3: "NCL", 4: "NCHW", 5: "NCDHW"}.get(rank, "NCHW")
    return {3: "NLC", 4: "NHWC", 5: "NDHWC"}.get(rank, "NHWC")


@_nn("batch_norm", replacement="paddle.nn.BatchNorm2D / paddle.nn.functional.batch_norm")
def batch_norm(input, act=None, is_test=False, momentum=0.9, epsilon=1e-05, param_attr=None,
               bias_attr=None, data_layout="NCHW", in_place=False, name=None,
               moving_mean_name=None, moving_variance_name=None,
               do_model_average_for_mean_and_var=True, use_global_stats=False):
    prefix = layer_name("batch_norm", name)
    c = int(input.shape[1] if data_layout == "NCHW" else input.shape[-1])
    dtype = input.dtype
    scale = create_parameter(prefix, "w", [c], dtype, param_attr, default_initializer=I.Constant(1.0))
    bias = create_parameter(prefix, "b", [c], dtype, bias_attr, is_bias=True)
    mean = create_parameter(prefix, "w", [c], dtype,
                            paddle.ParamAttr(name=moving_mean_name, initializer=I.Constant(0.0),
                                             trainable=False,
                                             do_model_average=do_model_average_for_mean_and_var),
                            trainable=False)
    var = create_parameter(prefix, "w", [c], dtype,
                           paddle.ParamAttr(name=moving_variance_name, initializer=I.Constant(1.0),
                                            trainable=False,
                                            do_model_average=do_model_average_for_mean_and_var),
                           trainable=False)
    out = F.batch_norm(input, mean, var, weight=scale, bias=bias, training=not is_test,
                       momentum=momentum, epsilon=epsilon,
                       data_format=_bn_format(input, data_layout),
                       use_global_stats=True if use_global_stats else None)
    return apply_act(out, act)


@_nn("layer_norm", replacement="paddle.nn.LayerNorm / paddle.nn.functional.layer_norm")
def layer_norm(input, scale=True, shift=True, begin_norm_axis=1, epsilon=1e-05, param_attr=None,
               bias_attr=None, act=None, name=None):
    prefix = layer_name("layer_norm", name)
    shape = shape_of(input)
    norm_shape = shape[begin_norm_axis:]
    n = prod(norm_shape)
    w = create_parameter(prefix, "w", [n], input.dtype, param_attr,
                         default_initializer=I.Constant(1.0)) if scale else None
    b = create_parameter(prefix, "b", [n], input.dtype, bias_attr, is_bias=True) if shift else None
    out = F.layer_norm(input, norm_shape, weight=w, bias=b, epsilon=epsilon)
    return apply_act(out, act)


@_nn("group_norm", replacement="paddle.nn.GroupNorm / paddle.nn.functional.group_norm")
def group_norm(input, groups, epsilon=1e-05, param_attr=None, bias_attr=None, act=None,
               data_layout="NCHW", name=None):
    prefix = layer_name("group_norm", name)
    c = int(input.shape[1] if data_layout == "NCHW" else input.shape[-1])
    # 1.8.5 created the scale and the bias only for a true param_attr / bias_attr (`if
    # param_attr:`): by default group_norm had neither (no trainable affine parameters)
    w = create_parameter(prefix, "w", [c], input.dtype, param_attr or False,
                         default_initializer=I.Constant(1.0))
    b = create_parameter(prefix, "b", [c], input.dtype, bias_attr or False, is_bias=True)
    out = F.group_norm(input, groups, epsilon=epsilon, weight=w, bias=b, data_format=data_layout)
    return apply_act(out, act)


@_nn("instance_norm", replacement="paddle.nn.InstanceNorm2D / paddle.nn.functional.instance_norm")
def instance_norm(input, epsilon=1e-05, param_attr=None, bias_attr=None, name=None):
    prefix = layer_name("instance_norm", name)
    c = int(input.shape[1])
    w = create_parameter(prefix, "w", [c], input.dtype, param_attr, default_initializer=I.Constant(1.0))
    b = create_parameter(prefix, "b", [c], input.dtype, bias_attr, is_bias=True)
    return F.instance_norm(input, weight=w, bias=b, eps=epsilon)


@_nn("prelu", replacement="paddle.nn.PReLU / paddle.nn.functional.prelu")
def prelu(x, mode, param_attr=None, name=None):
    """The function fix adds (upgrader/fixers/fluid_layer_helpers.py): a float32 alpha
    ``<name or prelu_<n>>.w_0`` of 1.x's shape, ``[1]`` (all), ``[1, C, 1, 1]`` (channel),
    ``[1] + x.shape[1:]`` (element), Constant 0.25 by default; ``x`` where ``x > 0``, else
    ``alpha * x``. Not ``F.prelu``: its backward crashes today when ``x`` needs no
    gradient."""
    from compat._added import added
    return added("fluid_layer_helpers", "_fluid_prelu")(x, mode, param_attr, name)


# -- elementwise ops with 1.x axis broadcasting -----------------------------------------

def align_y(x, y, axis):
    """Reshape *y* so that NumPy broadcasting puts its dims at *axis* of *x* (1.x rule:
    trailing size-1 dims of Y are dropped, ``axis=-1`` means ``rank(X) - rank(Y)``)."""
    if axis is None or axis == -1:
        return y
    if not hasattr(y, "shape") or not hasattr(x, "shape"):
        return y
    rx = len(x.shape)
    ys = shape_of(y)
    while ys and ys[-1] == 1:
        ys = ys[:-1]
    if axis < 0:
        axis = axis + rx
    want = ys + [1] * (rx - axis - len(ys))
    if want == shape_of(y):
        return y
    if not want:
        want = [1]
    return paddle.reshape(y, want)


def _elementwise(kind, fn):
    name = "elementwise_" + kind

    def op(x, y, axis=-1, act=None, name=None):
        if axis == -1 and act is None:  # NumPy broadcasting is the 1.x default rule
            return fn(x, y)
        if not hasattr(y, "shape"):
            y = paddle.full([1], y, x.dtype)
        return apply_act(fn(x, align_y(x, y, axis)), act)
    op.__name__ = op.__qualname__ = name
    op.__doc__ = "1.x ``%s(x, y, axis=-1, act=None, name=None)``: Y aligned at ``axis``." % name
    return _nn(name)(op)


def _int_aware(fn, int_fn):
    """1.x ran the op in the inputs' dtype: on integers division and remainder truncate
    toward zero (math_op_patch.trunc_div)."""
    def call(x, y):
        if math_op_patch.is_int(x) and math_op_patch.is_int(y) and x.dtype == y.dtype:
            return int_fn(x, y)
        return fn(x, y)
    return call


elementwise_add = _elementwise("add", paddle.add)
elementwise_sub = _elementwise("sub", paddle.subtract)
elementwise_mul = _elementwise("mul", paddle.multiply)
elementwise_div = _elementwise("div", _int_aware(paddle.divide, math_op_patch.trunc_div))
def _tie_to_y(compare, fn):
    """1.x's max/min kernels: ``x if compare(x, y) else y``, so at a tie the whole gradient
    goes to ``y`` (today's maximum/minimum split it in halves); NaN in ``x`` gives ``y``."""
    def call(x, y):
        if not hasattr(y, "shape") or (x.stop_gradient and y.stop_gradient):
            return fn(x, y)
        return paddle.where(compare(x, y), x, y)
    return call


elementwise_max = _elementwise("max", _tie_to_y(paddle.greater_than, paddle.maximum))
elementwise_min = _elementwise("min", _tie_to_y(paddle.less_than, paddle.minimum))
elementwise_pow = _elementwise("pow", paddle.pow)
elementwise_mod = _elementwise("mod", _int_aware(paddle.remainder, math_op_patch.trunc_mod))
elementwise_floordiv = _elementwise("floordiv", _int_aware(paddle.floor_divide, math_op_patch.trunc_div))


_rule_reduce_sum = []


@legacy("paddle.fluid.layers.reduce_sum", "paddle.fluid.layers.nn.reduce_sum", warn=False)
def reduce_sum(input, dim=None, keep_dim=False, name=None):
    """The rule database's ``paddle.sum`` (shape [1] for full reductions), in the input's
    dtype for int32 as in 1.8 (today's sum of int32 is int64)."""
    from compat import _runtime
    if "paddle.fluid.layers.reduce_sum" not in _runtime._warned:  # at the caller's line
        _runtime.warn_once("paddle.fluid.layers.reduce_sum", None, 3)
    if not _rule_reduce_sum:
        from compat import _wrap
        e = _runtime.entry("paddle.fluid.layers.reduce_sum")
        _rule_reduce_sum.append(_wrap._make_function(e, _wrap.resolve(e.target)))
    out = _rule_reduce_sum[0](input, dim, keep_dim, name)
    if getattr(input, "dtype", None) == paddle.int32 and out.dtype != paddle.int32:
        out = paddle.cast(out, paddle.int32)
    return out


def _reduce_extreme(kind, extreme):
    legacy_name = "paddle.fluid.layers.reduce_" + kind
    rule = []

    @legacy(legacy_name, "paddle.fluid.layers.nn.reduce_" + kind, warn=False)
    def op(input, dim=None, keep_dim=False, name=None):
        from compat import _runtime
        if legacy_name not in _runtime._warned:  # at the caller's line
            _runtime.warn_once(legacy_name, None, 3)
        if not rule:
            from compat import _wrap
            e = _runtime.entry(legacy_name)
            rule.append(_wrap._make_function(e, _wrap.resolve(e.target)))
        out = rule[0](input, dim, keep_dim, name)
        if getattr(input, "stop_gradient", True) or not paddle.is_floating_point(input):
            return out
        # 1.x's gradient: every element equal to the result gets the whole output gradient
        # (today's max/min split it among tied elements); the added term's value is 0
        axis = None if dim is None else (list(dim) if isinstance(dim, (list, tuple)) else [dim])
        tied = (input == extreme(input, axis=axis, keepdim=True)).astype(input.dtype)
        return out.detach() + paddle.sum((input - input.detach()) * tied, axis=axis, keepdim=keep_dim)
    op.__name__ = op.__qualname__ = "reduce_" + kind
    op.__doc__ = ("The rule database's ``paddle.%s`` with 1.x's gradient at ties: every element "
                  "equal to the result gets the whole output gradient." % kind)
    return op


reduce_max = _reduce_extreme("max", paddle.max)
reduce_min = _reduce_extreme("min", paddle.min)


@_nn("mul", replacement="paddle.matmul on paddle.flatten'ed inputs")
def mul(x, y, x_num_col_dims=1, y_num_col_dims=1, name=None):
    """The function fix adds (upgrader/fixers/formula_helpers.py): X flattened to 2-D at
    ``x_num_col_dims``, Y at ``y_num_col_dims``; the result has shape
    ``X.shape[:x_num_col_dims] + Y.shape[y_num_col_dims:]``."""
    from compat._added import added
    return added("formula_helpers", "_fluid_mul")(x, y, x_num_col_dims, y_num_col_dims, name)


@_nn("cos_sim", replacement="paddle.nn.functional.cosine_similarity(x, y, axis=1) on 2-D inputs, unsqueezed to [N, 1]")
def cos_sim(X, Y):
    """The function fix adds (upgrader/fixers/formula_helpers.py): X and Y flattened to
    ``[N, -1]`` (Y may have first dim 1), ``[N, 1]`` similarities, squared norms floored at
    1e-8 as 1.8's kernel did."""
    from compat._added import added
    return added("formula_helpers", "_fluid_cos_sim")(X, Y)


@_nn("swish", replacement="paddle.nn.functional.swish")
def swish(x, beta=1.0, name=None):
    """Paddle 1.8.5's swish kernel ignored ``beta`` (``swish(x, beta=1.5)`` returned
    ``x * sigmoid(x)``, checked on 1.8.5); so does this."""
    return F.swish(x)


@_nn("l2_normalize", replacement="paddle.nn.functional.normalize")
def l2_normalize(x, axis, epsilon=1e-12, name=None):
    """1.8.5's norm op divided by ``sqrt(sum(x**2) + epsilon)``; today's normalize divides
    by ``max(norm, epsilon)``, which differs visibly for a non-default epsilon (1e-4:
    relative 5e-5 on unit vectors). A 1-D input is normalised along axis 0, as 1.8."""
    if len(x.shape) == 1:
        axis = 0
    return x / paddle.sqrt(paddle.sum(paddle.square(x), axis=axis, keepdim=True) + epsilon)


@_nn("pad_constant_like", replacement="paddle.nn.functional.pad(y, [0, x.shape[i] - y.shape[i] for each axis], value=pad_value)")
def pad_constant_like(x, y, pad_value=0.0, name=None):
    """The function fix adds (upgrader/fixers/fluid_layer_helpers.py): y padded with
    pad_value at the end of every axis up to x's shape (an axis whose size a static program
    does not know is extended by concatenating a block of pad_value)."""
    from compat._added import added
    return added("fluid_layer_helpers", "_fluid_pad_constant_like")(x, y, pad_value, name)


@_nn("scatter", replacement="paddle.scatter")
def scatter(input, index, updates, name=None, overwrite=True):
    """The function fix adds (upgrader/fixers/scatter_gather_grad.py): paddle.scatter's
    values; the gradient with respect to ``input`` is 1.8's, the output's gradient on
    every row, also on the rows the updates replaced (today's op gives them 0)."""
    from compat._added import added
    return added("scatter_gather_grad", "_fluid_scatter")(input, index, updates, name, overwrite)


@_nn("one_hot", replacement="paddle.nn.functional.one_hot on ids squeezed on their last axis")
def one_hot(input, depth, allow_out_of_range=False):
    """The function fix adds (upgrader/fixers/fluid_layer_helpers.py), 1.8's one_hot v1:
    the trailing size-1 axis is replaced by depth; with allow_out_of_range an id outside
    [0, depth) gives an all-zero row."""
    from compat._added import added
    return added("fluid_layer_helpers", "_fluid_one_hot")(input, depth, allow_out_of_range)


_rule_reshape = None


@legacy("paddle.fluid.layers.reshape", "paddle.fluid.layers.nn.reshape", warn=False)  # the rule-built function warns
def reshape(x, shape, actual_shape=None, act=None, inplace=False, name=None):
    """The rule database's reshape; 1.8's actual_shape (a shape tensor) took precedence
    over a list shape in a static program (not over a Variable shape) and was ignored
    in dygraph."""
    global _rule_reshape
    if _rule_reshape is None:
        from compat import _runtime, _wrap
        e = _runtime.entry("paddle.fluid.layers.reshape")
        _rule_reshape = _wrap._make_function(e, _wrap.resolve(e.target))
    if actual_shape is not None and not paddle.in_dynamic_mode() and isinstance(shape, (list, tuple)):
        shape = actual_shape
    return _rule_reshape(x, shape, act=act, inplace=inplace, name=name)


@legacy("paddle.fluid.layers.dropout", "paddle.fluid.layers.nn.dropout",
        replacement="paddle.nn.functional.dropout")
def dropout(x, dropout_prob, is_test=False, seed=None, name=None,
            dropout_implementation="downgrade_in_infer"):
    """fix's ``_fluid_dropout``: in dygraph 1.8 ignored is_test and followed the tracer's
    train mode (Layer.train()/eval() of any layer, off inside no_grad()); is_test in a
    static program."""
    from compat._added import added
    return added("static_dropout", "_fluid_dropout")(x, dropout_prob, is_test, seed, name,
                                                    dropout_implementation)


@_nn("gather", replacement="paddle.gather")
def gather(input, index, overwrite=True):
    """The function fix adds (upgrader/fixers/scatter_gather_grad.py): paddle.gather's
    values; with overwrite=True (1.8's default) a row gathered several times gets the
    output gradient of its LAST occurrence (1.8 scattered it back with overwrite), not
    their sum as today's op gives."""
    from compat._added import added
    return added("scatter_gather_grad", "_fluid_gather")(input, index, overwrite)


def _legacy_negative_start(start, end, stride, dim):
    """1.8.5 took every |stride|-th element of (end, start] counting from end's side:
    the numpy start that picks the same elements (start, end normalized as 1.8 did)."""
    s = start + dim if start < 0 else start
    e = end + dim if end < 0 else end
    s, e = min(s, dim - 1), max(e, -1)
    if s <= e:
        return start
    return e + 1 + ((s - e - 1) // -stride) * -stride


@_nn("strided_slice", replacement="paddle.strided_slice")
def strided_slice(input, axes, starts, ends, strides):
    """paddle.strided_slice, with 1.8.5's choice of elements for a stride below -1 (it
    counted from the end of the range; today from start) where the sizes are known."""
    if all(isinstance(v, (list, tuple)) and all(isinstance(i, int) for i in v)
           for v in (axes, starts, ends, strides)) and any(st < -1 for st in strides):
        starts = list(starts)
        for k, (ax, st) in enumerate(zip(axes, strides)):
            dim = input.shape[ax]
            if st < -1 and dim is not None and dim >= 0:
                starts[k] = _legacy_negative_start(starts[k], ends[k], st, dim)
    return paddle.strided_slice(input, axes, starts, ends, strides)


@_nn("unique", replacement="paddle.unique(x, return_inverse=True) (sorted values)")
def unique(x, dtype="int32"):
    """The function fix adds (upgrader/fixers/unique_first_order.py): 1.8's order of
    first occurrence."""
    from compat._added import added
    return added("unique_first_order", "_fluid_unique")(x, dtype)


@_nn("unique_with_counts",
     replacement="paddle.unique(x, return_inverse=True, return_counts=True) (sorted values)")
def unique_with_counts(x, dtype="int32"):
    """The function fix adds (upgrader/fixers/unique_first_order.py)."""
    from compat._added import added
    return added("unique_first_order", "_fluid_unique_with_counts")(x, dtype)


@_nn("uniform_random_batch_size_like", replacement="paddle.uniform with shape[output_dim_idx] = paddle.shape(input)[input_dim_idx]")
def uniform_random_batch_size_like(input, shape, dtype="float32", input_dim_idx=0, output_dim_idx=0,
                                   min=-1.0, max=1.0, seed=0):
    """The function fix adds (upgrader/fixers/random_batch_size_like.py)."""
    from compat._added import added
    return added("random_batch_size_like", "_fluid_uniform_random_batch_size_like")(
        input, shape, dtype, input_dim_idx, output_dim_idx, min, max, seed)


@_nn("gaussian_random_batch_size_like", replacement="paddle.normal with shape[output_dim_idx] = paddle.shape(input)[input_dim_idx]")
def gaussian_random_batch_size_like(input, shape, input_dim_idx=0, output_dim_idx=0, mean=0.0,
                                    std=1.0, seed=0, dtype="float32"):
    """The function fix adds (upgrader/fixers/random_batch_size_like.py)."""
    from compat._added import added
    return added("random_batch_size_like", "_fluid_gaussian_random_batch_size_like")(
        input, shape, input_dim_idx, output_dim_idx, mean, std, seed, dtype)


@_nn("fsp_matrix", replacement="paddle.bmm of the flattened maps / (H * W)")
def fsp_matrix(x, y):
    """The function fix adds (upgrader/fixers/formula_helpers.py): the flow-of-solution-
    procedure matrix of x [N, C1, H, W] and y [N, C2, H, W], ``x @ y^T / (H * W)`` over
    the flattened maps, shape [N, C1, C2]."""
    from compat._added import added
    return added("formula_helpers", "_fluid_fsp_matrix")(x, y)


def _image_resize(*args):
    """The function fix adds (upgrader/fixers/image_resize.py): 1.8's output size (float32
    ``int(in * scale)``, ``actual_shape``) and source positions (``in / out``; nearest with
    1.8's ``align_corners`` indices, gathered)."""
    from compat._added import added
    return added("image_resize", "_fluid_image_resize")(*args)


@_nn("resize_nearest", replacement="paddle.nn.functional.interpolate(mode='nearest')")
def resize_nearest(input, out_shape=None, scale=None, name=None, actual_shape=None,
                   align_corners=True, data_format="NCHW"):
    """1.x default ``align_corners=True`` rounds the source index; today's nearest
    mode cannot align corners, so the rows/columns are gathered explicitly."""
    return _image_resize(input, out_shape, scale, name, "NEAREST", actual_shape, align_corners,
                         1, data_format)


@_nn("resize_bilinear", replacement="paddle.nn.functional.interpolate(mode='bilinear', "
     "align_corners=True, align_mode=1 explicitly)")
def resize_bilinear(input, out_shape=None, scale=None, name=None, actual_shape=None,
                    align_corners=True, align_mode=1, data_format="NCHW"):
    return _image_resize(input, out_shape, scale, name, "BILINEAR", actual_shape, align_corners,
                         align_mode, data_format)


@_nn("resize_trilinear", replacement="paddle.nn.functional.interpolate(mode='trilinear', "
     "align_corners=True, align_mode=1 explicitly)")
def resize_trilinear(input, out_shape=None, scale=None, name=None, actual_shape=None,
                     align_corners=True, align_mode=1, data_format="NCDHW"):
    return _image_resize(input, out_shape, scale, name, "TRILINEAR", actual_shape, align_corners,
                         align_mode, data_format)


@_nn("image_resize", replacement="paddle.nn.functional.interpolate (align_corners=True, align_mode=1 explicitly)")
def image_resize(input, out_shape=None, scale=None, name=None, resample="BILINEAR",
                 actual_shape=None, align_corners=True, align_mode=1, data_format="NCHW"):
    return _image_resize(input, out_shape, scale, name, resample, actual_shape, align_corners,
                         align_mode, data_format)


@_nn("flatten", replacement="paddle.flatten (1.x always returned 2-D)")
def flatten(x, axis=1, name=None):
    """1.x: ``[prod(shape[:axis]), prod(shape[axis:])]`` (always 2-D)."""
    rank = len(x.shape)
    if axis < 0 or axis > rank:
        raise ValueError("The axis should be a int, and in range [0, rank(x)]")
    if axis == 0:
        return paddle.reshape(x, [1, -1])
    out = x if axis >= rank else paddle.flatten(x, start_axis=axis)
    if axis == rank:
        out = paddle.unsqueeze(out, -1)
    if axis > 1:
        out = paddle.flatten(out, start_axis=0, stop_axis=axis - 1)
    return out


_lazy.attach(globals())


@_nn("scale", replacement="paddle.scale")
def scale(x, scale=1.0, bias=0.0, bias_after_scale=True, act=None, name=None):
    """1.x ``scale``; 1.8.5 applied ``act`` in static graphs only (its dygraph branch called
    the activation helper without it, checked), so does this."""
    if isinstance(scale, paddle.Tensor) and paddle.in_dynamic_mode():
        scale = float(scale.numpy().reshape(-1)[0])
    out = paddle.scale(x, scale=scale, bias=float(bias), bias_after_scale=bias_after_scale)
    if act is None or paddle.in_dynamic_mode():
        return out
    return apply_act(out, act)


@_nn("adaptive_pool2d", replacement="paddle.nn.functional.adaptive_max_pool2d / adaptive_avg_pool2d")
def adaptive_pool2d(input, pool_size, pool_type="max", require_index=False, name=None):
    """1.x ``adaptive_pool2d``: max (optionally with indices) or average pooling."""
    if pool_type == "max":
        return F.adaptive_max_pool2d(input, pool_size, return_mask=require_index)
    if pool_type != "avg":
        raise ValueError("Unknown pool_type: '%s'. It can only be 'max' or 'avg'." % pool_type)
    if require_index:
        raise ValueError('invalid setting \'require_index\' true when \'pool_type\' is \'avg\'.')
    return F.adaptive_avg_pool2d(input, pool_size)


@_nn("relu6", replacement="paddle.nn.functional.relu6")
def relu6(x, threshold=6.0, name=None):
    """1.x ``relu6``: min(max(0, x), threshold) for any threshold."""
    if threshold == 6.0:
        return F.relu6(x)
    return paddle.clip(x, 0.0, float(threshold))


@_nn("hard_swish", replacement="paddle.nn.functional.hardswish")
def hard_swish(x, threshold=6.0, scale=6.0, offset=3.0, name=None):
    """1.x ``hard_swish``: x * min(max(0, x + offset), threshold) / scale."""
    if (threshold, scale, offset) == (6.0, 6.0, 3.0):
        return F.hardswish(x)
    return x * paddle.clip(x + float(offset), 0.0, float(threshold)) / float(scale)


def _space_to_depth_index(c, h, w, blocksize):
    """Where each output element of 1.8.5's space_to_depth comes from, per sample: the
    kernel is darknet's reorg over the flat sample buffer (input element
    ``i + w * (j + h * k)`` goes to ``w2 + w * bs * (h2 + h * bs * c2)`` with
    ``c2 = k % (c / bs**2)``, ``offset = k // (c / bs**2)``, ``w2 = i * bs + offset % bs``,
    ``h2 = j * bs + offset // bs``), and the buffer is then read as
    ``[c * bs**2, h / bs, w / bs]``: not the channel order of pixel_unshuffle (checked
    on 1.8.5 with several shapes and block sizes)."""
    import numpy as np
    bs = blocksize
    out_c = c // (bs * bs)
    k, j, i = np.meshgrid(np.arange(c), np.arange(h), np.arange(w), indexing="ij")
    offset = k // out_c
    dest = (i * bs + offset % bs) + w * bs * ((j * bs + offset // bs) + h * bs * (k % out_c))
    source = np.empty(c * h * w, dtype="int64")
    source[dest.ravel()] = np.arange(c * h * w)
    return source


@_nn("space_to_depth", replacement="no counterpart with 1.8's channel order "
                                   "(paddle.nn.functional.pixel_unshuffle orders them differently)")
def space_to_depth(x, blocksize, name=None):
    """1.8.5's space_to_depth (NCHW, channels divisible by blocksize**2, height and width
    by blocksize): a fixed permutation of each sample's elements, applied with a gather
    (so gradients flow back as in 1.8)."""
    n, c, h, w = shape_of(x)
    bs = int(blocksize)
    if c % (bs * bs) or h % bs or w % bs:
        raise ValueError("space_to_depth: the channel count must be divisible by blocksize**2 "
                         "and height and width by blocksize (1.8.5 raised too): got %s, "
                         "blocksize %d" % ([n, c, h, w], bs))
    index = paddle.to_tensor(_space_to_depth_index(c, h, w, bs))
    flat = paddle.reshape(x, [-1, c * h * w])
    return paddle.reshape(paddle.gather(flat, index, axis=1), [-1, c * bs * bs, h // bs, w // bs])


@_nn("shuffle_channel", replacement="paddle.nn.functional.channel_shuffle (its gradient is "
                                    "the correct one, 1.8.5's was not: see the rule note)")
def shuffle_channel(x, group, name=None):
    """1.8.5's shuffle_channel: the forward values of channel_shuffle(x, group), and 1.8.5's
    gradient, which applied the same permutation to the output gradient instead of its
    inverse (wrong unless group * group == channels; checked on 1.8.5 with 8 channels,
    group 2). The gradient flows through channel_shuffle(x, channels // group), whose
    transpose is that permutation; its forward contribution is exactly zero."""
    out = paddle.nn.functional.channel_shuffle(x, int(group))
    c = x.shape[1]
    if x.stop_gradient or c is None or c < 0 or c // int(group) == int(group):
        return out
    q = paddle.nn.functional.channel_shuffle(x, c // int(group))
    return out.detach() + (q - q.detach())


@_nn("ctc_greedy_decoder", replacement="argmax over the classes, then repeats merged and "
     "blanks dropped with paddle ops on padded batches with lengths")
def ctc_greedy_decoder(input, blank, input_length=None, padding_value=0, name=None):
    """1.8's padded mode (``input`` [batch, T, classes], ``input_length`` [batch, 1] int64)
    through the function fix adds (upgrader/fixers/ctc_edit_distance.py): the best class
    per step (the first of tied maxima, as 1.8's topk(k=1)), repeats merged, blanks
    dropped, each row padded with ``padding_value``; returns ``(output [batch, T] int64,
    output_length [batch, 1] int64)``. The LoD mode (no ``input_length``) has no
    counterpart."""
    if input_length is None:
        from compat._runtime import manual_error
        raise manual_error("paddle.fluid.layers.ctc_greedy_decoder",
                           "without input_length the sequences came from LoD, which today's "
                           "tensors do not have: pass a padded [batch, T, classes] input and "
                           "its lengths [batch, 1]")
    from compat._added import added
    return added("ctc_edit_distance", "_fluid_ctc_greedy_decoder")(
        input, blank, input_length, padding_value)
