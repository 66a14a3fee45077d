"""PU101 fluid-layer-helpers: 1.8 layers with no Paddle 3 counterpart that a few ``paddle``
ops compute exactly (``lstm_unit``, ``gru_unit``, ``pad_constant_like``, ``prelu``,
``one_hot`` with ``allow_out_of_range=True``) become functions fix adds to the module.

What it does
    ``fluid.layers.lstm_unit(...)`` becomes ``_fluid_lstm_unit(...)``, and likewise
    ``gru_unit`` → ``_fluid_gru_unit``, ``pad_constant_like`` → ``_fluid_pad_constant_like``, ``prelu`` → ``_fluid_prelu``,
    ``one_hot(..., allow_out_of_range=<anything but a literal False>)`` →
    ``_fluid_one_hot``: the same arguments (1.8's signatures), the function added once after
    the module's imports. Each runs in dynamic mode and in static (PIR) programs:

    - ``lstm_unit``: 1.8.5's fc layer, parameters ``fc_<n>.w_0`` [D + H, 4H] (Xavier
      uniform) and ``fc_<n>.b_0`` [4H] (zeros; none with ``bias_attr=False``) unless the
      attributes name or initialise them, over ``concat([x_t, hidden_t_prev], 1)``, split
      into i, f, o, g: ``c = sigmoid(f + forget_bias) * cell_t_prev + sigmoid(i) *
      tanh(g)``, ``h = sigmoid(o) * tanh(c)``; returns ``(h, c)``;
    - ``gru_unit``: 1.8.5's op on an input already projected to ``size`` = 3H, weight
      ``gru_unit_<n>.w_0`` [H, 3H] (Xavier uniform) read as the update/reset weights
      [H, 2H] followed in memory by the candidate weights [H, H], bias
      ``gru_unit_<n>.b_0`` [1, 3H]; sigmoid gates and a tanh candidate whatever
      ``activation`` / ``gate_activation`` say (1.8.5 did not pass them to the op),
      ``origin_mode`` as 1.8.5's kernel; returns ``(hidden, reset_hidden_prev, gate)``, the
      last two without gradient;
    - ``pad_constant_like``: ``y`` padded with ``pad_value`` at the end of every axis up
      to ``x``'s shape (``x`` only gives the shape; the gradient goes to ``y``);
    - ``prelu``: a float32 parameter alpha named ``<name or prelu_<n>>.w_0``, Constant
      0.25 unless ``param_attr`` says otherwise, of 1.8's shape per mode (``[1]`` 'all',
      ``[1, C, 1, 1]`` 'channel', ``[1] + x.shape[1:]`` 'element'); ``x`` where ``x > 0``,
      else ``alpha * x``, with 1.8's gradients (alpha's: the sum of ``x * dout`` where
      ``x <= 0``);
    - ``one_hot``: ids ``[..., 1]``, the trailing 1 replaced by ``depth`` (float32); with
      ``allow_out_of_range`` an id outside [0, depth) gives an all-zero row.

    In a static program a parameter whose attribute names one that the program already has
    is that parameter (1.8 shared named parameters within a program: one update from the
    summed gradients, not one optimizer update per call).

Why is this bad?
    The ops are gone from Paddle 3. ``paddle.nn.LSTMCell`` keeps separate input and hidden
    weights in another gate order and has no forget_bias, ``paddle.nn.GRUCell`` projects
    its input itself and applies the reset gate after the hidden matmul; ``paddle.static.nn.prelu`` only
    builds old-IR programs (TypeError in Paddle 3's PIR programs) and ``paddle.nn.PReLU``
    has alpha shaped ``[C]``, not 1.8's ``[1, C, 1, 1]``, and no per-element mode;
    ``paddle.nn.functional.one_hot`` appends a dimension and raises for an id out of
    range; nothing pads one tensor to another's shape.

Example
    ``h, c = fluid.layers.lstm_unit(x_t, h, c, forget_bias=1.0)`` →
    ``h, c = _fluid_lstm_unit(x_t, h, c, forget_bias=1.0)``;
    ``fluid.layers.one_hot(ids, depth=5, allow_out_of_range=True)`` →
    ``_fluid_one_hot(ids, depth=5, allow_out_of_range=True)``, while ``one_hot(ids, 5)``
    keeps the plain rewrite to ``paddle.nn.functional.one_hot``.

Fix safety
    Safe: values, shapes, dtypes, parameter names and the gradients of inputs and
    parameters agree with 1.8.5 in both modes (the rules' examples: a static program trained
    with SGD reads the parameters back by their 1.8 names), and so does program
    static_nlp_ops_mix. Randomly initialised weights (lstm_unit's default Xavier) are drawn
    like 1.8's from today's random generator. Manual when the module already uses the
    function's name for something else.
"""
from __future__ import annotations

import libcst as cst

from upgrader.args import Manual, bind, code_of, literal

CODE = "PU101"
STRUCTURAL = ("fluid-layer-helpers",)
ONE_HOT = "paddle.fluid.layers.one_hot"
#: what explain shows for an argument the plain mapping would leave manual
ARGS_TAKEN = {ONE_HOT: {"allow_out_of_range": "_fluid_one_hot(...) (all-zero rows for ids out "
                                              "of range)"}}
NAMES = {"paddle.fluid.layers.lstm_unit": "_fluid_lstm_unit",
         "paddle.fluid.layers.gru_unit": "_fluid_gru_unit",
         "paddle.fluid.layers.pad_constant_like": "_fluid_pad_constant_like",
         "paddle.fluid.layers.prelu": "_fluid_prelu",
         ONE_HOT: "_fluid_one_hot"}
WHAT = "a function fix adds to the module: 1.8's layer with paddle ops"
#: what explain and docs/rules.md show for each entry
HELPER_OF = {name: f"{fn} ({WHAT})" for name, fn in NAMES.items()}
HELPER_OF[ONE_HOT] = (f"paddle.nn.functional.one_hot; with allow_out_of_range other than a "
                      f"literal False, _fluid_one_hot ({WHAT})")

#: 1.8's parameter creation, shared by the layers that have parameters
_PARAMETER = '''
    def parameter(attr, suffix, shape, dtype, initializer):
        # 1.8's LayerHelper: <prefix>.<suffix>_<n> unless the attribute names it; in a
        # static program a named parameter the program already has is that parameter: the
        # first initializer counts, the last call's learning rate, regularizer, ... hold
        attr = paddle.ParamAttr._to_attr(attr)
        if attr is False:
            return None
        attr = copy.deepcopy(attr)
        if attr.name is None:
            attr.name = paddle.utils.unique_name.generate(prefix + '.' + suffix)
        elif not paddle.in_dynamic_mode():
            shared = paddle.static.default_main_program().get_parameter_value_by_name(attr.name)
            if shared.initialized():
                for key, value in attr._to_kwargs().items():
                    if key != 'name':
                        setattr(shared, key, value)
                shared.stop_gradient = not attr.trainable
                return shared
        return paddle.create_parameter(shape, dtype, attr=attr, is_bias=suffix == 'b',
                                       default_initializer=initializer)
'''

SOURCES = {
    "_fluid_lstm_unit": '''def _fluid_lstm_unit(x_t, hidden_t_prev, cell_t_prev, forget_bias=0.0, param_attr=None,
                     bias_attr=None, name=None):
    """Paddle 1.8's fluid.layers.lstm_unit: an fc layer over concat([x_t, hidden_t_prev], 1)
    (weight fc_<n>.w_0 [D + H, 4H], Xavier uniform, and bias fc_<n>.b_0 [4H], zeros, unless
    the attributes say otherwise; bias_attr=False: no bias) split into i, f, o, g;
    c = sigmoid(f + forget_bias) * cell_t_prev + sigmoid(i) * tanh(g),
    h = sigmoid(o) * tanh(c). Returns (h, c)."""
    import copy
    import paddle
    size = cell_t_prev.shape[1]
    concat = paddle.concat([x_t, hidden_t_prev], axis=1)
    prefix = paddle.utils.unique_name.generate('fc')
''' + _PARAMETER + '''
    weight = parameter(param_attr, 'w', [concat.shape[1], 4 * size], x_t.dtype,
                       paddle.nn.initializer.XavierUniform())
    bias = parameter(bias_attr, 'b', [4 * size], x_t.dtype, paddle.nn.initializer.Constant(0.0))
    gates = paddle.matmul(concat, weight)
    if bias is not None:
        gates = gates + bias
    i, f, o, g = paddle.split(gates, 4, axis=1)
    sigmoid = paddle.nn.functional.sigmoid
    c = sigmoid(f + forget_bias) * cell_t_prev + sigmoid(i) * paddle.tanh(g)
    return sigmoid(o) * paddle.tanh(c), c
''',
    "_fluid_gru_unit": '''def _fluid_gru_unit(input, hidden, size, param_attr=None, bias_attr=None,
                    activation='tanh', gate_activation='sigmoid', origin_mode=False):
    """Paddle 1.8's fluid.layers.gru_unit: one GRU step on an input already projected to
    size = 3 * H. weight gru_unit_<n>.w_0 [H, 3H] (Xavier uniform) holds the update/reset
    weights [H, 2H] followed by the candidate weights [H, H] in memory; bias
    gru_unit_<n>.b_0 [1, 3H] (zeros; none with bias_attr=False). 1.8.5 passed neither
    activation to the op: the gates are sigmoid and the candidate tanh. h = c + u * (h_prev
    - c) with origin_mode, else u * (c - h_prev) + h_prev. Returns (hidden,
    reset_hidden_prev, gate), the last two without gradient."""
    import copy
    import paddle
    names = ('identity', 'sigmoid', 'tanh', 'relu')
    for act in (activation, gate_activation):
        if act not in names:
            raise KeyError(act)
    h = size // 3
    prefix = paddle.utils.unique_name.generate('gru_unit')
''' + _PARAMETER + '''
    weight = parameter(param_attr, 'w', [h, 3 * h], input.dtype,
                       paddle.nn.initializer.XavierUniform())
    bias = parameter(bias_attr, 'b', [1, 3 * h], input.dtype, paddle.nn.initializer.Constant(0.0))
    flat = paddle.reshape(weight, [-1])
    w_ur = paddle.reshape(flat[:2 * h * h], [h, 2 * h])
    w_c = paddle.reshape(flat[2 * h * h:], [h, h])
    x = input if bias is None else input + bias
    ur = paddle.nn.functional.sigmoid(x[:, :2 * h] + paddle.matmul(hidden, w_ur))
    u, r = ur[:, :h], ur[:, h:]
    reset_hidden = r * hidden
    c = paddle.tanh(x[:, 2 * h:] + paddle.matmul(reset_hidden, w_c))
    if origin_mode:
        new_hidden = c + u * (hidden - c)
    else:
        new_hidden = u * (c - hidden) + hidden
    return new_hidden, reset_hidden.detach(), paddle.concat([u, r, c], axis=1).detach()
''',
    "_fluid_pad_constant_like": '''def _fluid_pad_constant_like(x, y, pad_value=0.0, name=None):
    """Paddle 1.8's fluid.layers.pad_constant_like: y padded with pad_value at the end of
    every axis up to x's shape (x gives only the shape). An axis whose size a static
    program does not know is extended by a block of pad_value of the missing size."""
    import paddle
    xs, ys = list(x.shape), list(y.shape)
    pads = []
    for a, b in zip(xs, ys):
        pads += [0, a - b if a >= 0 and b >= 0 else 0]
    out = paddle.nn.functional.pad(y, pads, value=float(pad_value))
    for i, (a, b) in enumerate(zip(xs, ys)):
        if a < 0 or b < 0:
            shape = [paddle.shape(out)[j] for j in range(len(ys))]
            shape[i] = paddle.shape(x)[i] - paddle.shape(y)[i]
            out = paddle.concat([out, paddle.full(shape, pad_value, y.dtype)], axis=i)
    return out
''',
    "_fluid_prelu": '''def _fluid_prelu(x, mode, param_attr=None, name=None):
    """Paddle 1.8's fluid.layers.prelu: alpha, a float32 parameter <name or prelu_<n>>.w_0
    (Constant 0.25 unless param_attr says otherwise) of shape [1] (mode 'all'),
    [1, C, 1, 1] ('channel') or [1] + x.shape[1:] ('element'); x where x > 0, else
    alpha * x."""
    import copy
    import paddle
    prefix = name if name is not None else paddle.utils.unique_name.generate('prelu')
    if mode not in ('all', 'channel', 'element'):
        raise ValueError('mode should be one of all, channel, element.')
    if mode == 'channel':
        shape = [1, x.shape[1], 1, 1]
    elif mode == 'element':
        shape = [1] + list(x.shape[1:])
    else:
        shape = [1]
''' + _PARAMETER + '''
    alpha = parameter(param_attr, 'w', shape, 'float32', paddle.nn.initializer.Constant(0.25))
    if mode == 'channel' and len(x.shape) != 4:
        alpha = paddle.reshape(alpha, [1, -1] + [1] * (len(x.shape) - 2))
    return paddle.where(x > 0, x, x * alpha)
''',
    "_fluid_one_hot": '''def _fluid_one_hot(input, depth, allow_out_of_range=False):
    """Paddle 1.8's fluid.layers.one_hot: ids [..., 1], the trailing 1 replaced by depth
    (float32); with allow_out_of_range an id outside [0, depth) gives an all-zero row
    (without it such an id raises, as in 1.8)."""
    import paddle
    if not allow_out_of_range:
        return paddle.nn.functional.one_hot(paddle.squeeze(input, axis=-1), depth)
    return paddle.cast(input == paddle.arange(depth, dtype=input.dtype), 'float32')
''',
}


def _plain_one_hot(updated, entry) -> bool:
    """``one_hot`` without ``allow_out_of_range`` or with a literal False: the rule's
    rewrite to paddle.nn.functional.one_hot is exact."""
    bound = bind(entry, updated)
    if isinstance(bound, Manual):
        return True  # the rule's mapping reports why
    arg = bound.values.get("allow_out_of_range")
    if arg is None:
        return True
    kind, value = literal(code_of(arg.value))
    return kind == "ok" and value is False


def rewrite_call(up, original: cst.Call, updated: cst.Call, entry):
    from upgrader.fixers import call_added_function
    if entry.name == ONE_HOT and _plain_one_hot(updated, entry):
        return up.apply_entry(original, updated, entry)
    name = NAMES[entry.name]
    return call_added_function(up, original, updated, entry, name, SOURCES[name], WHAT)


def finish_module(up, module: cst.Module) -> cst.Module:
    """Add the functions the rewrites call after the module's docstring and imports."""
    from upgrader.fixers import add_used_helpers
    return add_used_helpers(up, module, SOURCES)
