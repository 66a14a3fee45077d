"""``paddle.fluid.layers.tensor`` (1.8): hand-written where 1.x returned more (or other
shapes) than today's op; the rest from the rule database."""
from __future__ import annotations

import paddle

from compat import _lazy
from compat._runtime import legacy


def _t(name, replacement=None):
    return legacy("paddle.fluid.layers." + name, "paddle.fluid.layers.tensor." + name,
                  replacement=replacement)


_rule_create_global_var = None


@legacy("paddle.fluid.layers.create_global_var", "paddle.fluid.layers.tensor.create_global_var",
        warn=False)  # the rule-built function below warns
def create_global_var(shape, value, dtype, persistable=False, force_cpu=False, name=None):
    """The rule database's non-trainable parameter (see its note), remembered as a 1.x
    global variable: 1.x's ``Program.all_parameters()`` did not list it."""
    from compat.fluid import _pir
    global _rule_create_global_var
    if _rule_create_global_var is None:
        from compat import _runtime, _wrap
        e = _runtime.entry("paddle.fluid.layers.create_global_var")
        _rule_create_global_var = _wrap._make_function(e, _wrap.resolve(e.target))
    out = _rule_create_global_var(shape, value, dtype, persistable=persistable,
                                  force_cpu=force_cpu, name=name)
    if not paddle.in_dynamic_mode():
        _pir.mark_global_var(out)
    return out


@_t("create_parameter", replacement="paddle.create_parameter")
def create_parameter(shape, dtype, name=None, attr=None, is_bias=False, default_initializer=None):
    """1.x: ``name`` names the parameter when ``attr`` is None; otherwise it is named like a
    1.x layer's, ``create_parameter_<n>.w_0`` / ``.b_0`` from unique_name's counters (reset
    by ``unique_name.guard()``). ``paddle.create_parameter`` numbers it from the static
    program's own name counter instead, which every parameter compat's layers make also
    advances and no guard resets (create_parameter_20.w_0 after 20 layer parameters)."""
    from compat.fluid.layers import _helper
    if attr is None:
        attr = paddle.ParamAttr(name=name)
    return _helper.create_parameter(_helper.layer_name("create_parameter"), "b" if is_bias else "w",
                                    shape, dtype, attr, is_bias=is_bias,
                                    default_initializer=default_initializer)


_rule_concat = None


@legacy("paddle.fluid.layers.concat", "paddle.fluid.layers.tensor.concat", warn=False)
def concat(input, axis=0, name=None):
    """The rule database's concat, with 0-D inputs taken as shape [1]: 1.x had no 0-D
    tensors, so such an input comes from today's indexing (``fluid.layers.shape(x)[0]``
    gave shape [1] in 1.8, a 0-D tensor today), and concatenating it raised on 3.3.1."""
    global _rule_concat
    if _rule_concat is None:
        from compat import _runtime, _wrap
        e = _runtime.entry("paddle.fluid.layers.concat")
        _rule_concat = _wrap._make_function(e, _wrap.resolve(e.target))
    if isinstance(input, (list, tuple)):
        input = [paddle.reshape(v, [1]) if hasattr(v, "shape") and len(v.shape) == 0 else v
                 for v in input]
        input = _grad_through_all(input)
    return _rule_concat(input, axis=axis, name=name)


_rule_assign = None


@legacy("paddle.fluid.layers.assign", "paddle.fluid.layers.tensor.assign", warn=False)
def assign(input, output=None):
    """The rule database's assign; a static learning-rate decay as ``input`` is its
    value in the graph (1.x's decay was a variable: PaddleCV's ``lr_warmup`` assigns a
    ``piecewise_decay`` into its warmup rate inside a ``Switch`` block)."""
    global _rule_assign
    if _rule_assign is None:
        from compat import _runtime, _wrap
        e = _runtime.entry("paddle.fluid.layers.assign")
        _rule_assign = _wrap._make_function(e, _wrap.resolve(e.target))
    from compat.fluid.layers import learning_rate_scheduler as lrs
    if isinstance(input, lrs.LegacyDecay) and not paddle.in_dynamic_mode():
        input = lrs.graph_value(input)
    out = _rule_assign(input, output=output)
    if output is not None and _PLACEHOLDERS.get(id(output)) is output:
        # a create_tensor placeholder of a PIR program takes the written value's type, as
        # 1.x's variable took its shape and dtype at build time
        output.set_type(out.type())
    return out


def _grad_through_all(values):
    """In a static (PIR) program, a float concat of inputs that need a gradient and inputs
    that do not: the latter go through a copy that takes one (and hands nothing on, its
    source stops gradients). Paddle 3.3.1 crashes (SIGSEGV in ConcatGradOp's Vjp) when a
    second-order gradient (fluid.gradients of a gradient: WGAN-GP's penalty) meets such a
    concat; 1.8 computed it. Values and first-order gradients are unchanged."""
    if paddle.in_dynamic_mode() or len(values) < 2 or \
            not all(isinstance(v, paddle.pir.Value) for v in values):
        return values
    flags = [v.stop_gradient for v in values]
    if all(flags) or not any(flags) or not all(v.dtype in (paddle.float32, paddle.float64, paddle.float16)
                                               for v in values):
        return values
    out = []
    for v, stop in zip(values, flags):
        if stop:
            v = paddle.assign(v)
            v.stop_gradient = False
        out.append(v)
    return out


#: id -> the placeholder Value create_tensor made in a PIR program (kept, so ids stay unique;
#: a Value's == builds an op, so no set of Values)
_PLACEHOLDERS = {}


@_t("create_tensor", replacement="x = paddle.assign(value) where 1.x wrote the variable")
def create_tensor(dtype, name=None, persistable=False):
    """1.x's empty variable, written later by an op given it as its output:
    ``accuracy(total=t)`` (ERNIE's ``num_seqs``), ``assign(x, t)``,
    ``fill_constant(..., out=t)``. The placeholder is an empty tensor of ``dtype``; each
    of those writes it in place (paddle.assign(x, output=t)), so the ops built after the
    write and a fetch of ``t`` see what was written; in dygraph the tensor takes the
    written value. In a PIR program ``assign`` also gives it the written value's shape
    and dtype at build time (1.8 did); the other writers leave its ``shape`` [0]. A
    persistable one (a value kept across runs) stays manual (the rule's note)."""
    if persistable:
        from compat._runtime import manual_error
        raise manual_error("paddle.fluid.layers.create_tensor",
                           "compat fills only a non-persistable one")
    out = paddle.empty(shape=[0], dtype=dtype)
    if not paddle.in_dynamic_mode():
        _PLACEHOLDERS[id(out)] = out
    return out


@_t("tensor_array_to_tensor", replacement="paddle.concat / paddle.stack of the array, with the sizes along axis")
def tensor_array_to_tensor(input, axis=1, name=None, use_stack=False):
    """1.x's tensor array concatenated (or stacked) along ``axis``, with the sizes along
    it: the function fix adds (upgrader/fixers/tensor_array_to_tensor.py), in static (PIR)
    programs on a tensor array (tensors of different sizes along ``axis`` too) and in
    dygraph on a list (1.x's dygraph array)."""
    from compat._added import added
    return added("tensor_array_to_tensor", "_fluid_tensor_array_to_tensor")(
        input, axis=axis, name=name, use_stack=use_stack)


@_t("argsort", replacement="paddle.sort + paddle.argsort")
def argsort(input, axis=-1, descending=False, name=None):
    """1.x returned ``(sorted values, indices)``."""
    return (paddle.sort(input, axis=axis, descending=descending),
            paddle.argsort(input, axis=axis, descending=descending))


@_t("fill_constant_batch_size_like", replacement="paddle.full with the batch size of the input")
def fill_constant_batch_size_like(input, shape, dtype, value, input_dim_idx=0, output_dim_idx=0,
                                  force_cpu=False):
    shape = list(shape)
    if paddle.in_dynamic_mode():
        shape[output_dim_idx] = int(input.shape[input_dim_idx])
    else:
        dim = int(input.shape[input_dim_idx])
        shape[output_dim_idx] = dim if dim >= 0 else paddle.shape(input)[input_dim_idx]
    return paddle.full(shape, value, dtype)


@_t("has_inf", replacement="paddle.any(paddle.isinf(x))")
def has_inf(x):
    return paddle.reshape(paddle.any(paddle.isinf(x)), [1])


@_t("has_nan", replacement="paddle.any(paddle.isnan(x))")
def has_nan(x):
    return paddle.reshape(paddle.any(paddle.isnan(x)), [1])


@_t("isfinite", replacement="paddle.all(paddle.isfinite(x))")
def isfinite(x):
    """1.x: ONE bool, true when every element is finite."""
    return paddle.reshape(paddle.all(paddle.isfinite(x)), [1])


_lazy.attach(globals())


@legacy("paddle.fluid.layers.meshgrid", "paddle.fluid.layers.nn.meshgrid", replacement="paddle.meshgrid")
def meshgrid(input, name=None):
    """1.x ``meshgrid(input)``: the tensors as one list ('ij' indexing), a list of grids."""
    return paddle.meshgrid(list(input))
