"""``paddle.fluid.layers.rnn`` (1.8): ``gru_unit``, ``lstm_unit``, ``RNNCell``, ``GRUCell``,
``LSTMCell`` and ``rnn`` by hand, the rest generated from the rule database."""
from __future__ import annotations

import paddle
import paddle.nn.functional as F

from compat import _lazy
from compat._runtime import legacy

__all__ = ["gru_unit", "lstm_unit", "RNNCell", "GRUCell", "LSTMCell", "rnn"]


@legacy("paddle.fluid.layers.lstm_unit", "paddle.fluid.layers.rnn.lstm_unit",
        replacement="paddle.nn.LSTMCell (its own weights and gate layout, no forget_bias)")
def lstm_unit(x_t, hidden_t_prev, cell_t_prev, forget_bias=0.0, param_attr=None, bias_attr=None,
              name=None):
    """The function fix adds (upgrader/fixers/fluid_layer_helpers.py), 1.8.5's lstm_unit:
    an ``fc`` layer (``fc_<n>.w_0`` [D + H, 4H], ``fc_<n>.b_0`` [4H]) over
    ``concat([x_t, hidden_t_prev], 1)``, then the lstm_unit op on its four H-wide slices
    i, f, o, g: ``c = sigmoid(f + forget_bias) * c_prev + sigmoid(i) * tanh(g)``,
    ``h = sigmoid(o) * tanh(c)``; returns ``(h, c)``."""
    from compat._added import added
    return added("fluid_layer_helpers", "_fluid_lstm_unit")(
        x_t, hidden_t_prev, cell_t_prev, forget_bias, param_attr, bias_attr, name)


@legacy("paddle.fluid.layers.gru_unit", "paddle.fluid.layers.rnn.gru_unit",
        replacement="paddle.nn.GRUCell (its own input projection, weights and gates)")
def gru_unit(input, hidden, size, param_attr=None, bias_attr=None, activation="tanh",
             gate_activation="sigmoid", origin_mode=False):
    """The function fix adds (upgrader/fixers/fluid_layer_helpers.py), 1.8.5's gru_unit op:
    ``input`` already projected to ``size`` = 3*H; one [H, 3H]
    weight buffer read as [H, 2H] update/reset weights followed by [H, H] candidate
    weights; ``u, r = sigmoid(x[:, :2H] + b + h @ W_ur)``,
    ``c = tanh(x[:, 2H:] + b + (r * h) @ W_c)``; ``h' = u * (c - h) + h``
    (``origin_mode``: ``c + u * (h - c)``). 1.8.5 built the op with tanh and sigmoid
    whatever ``activation`` / ``gate_activation`` said. Returns ``(h', r * h, concat(u, r,
    c))``, the last two without gradient (the op's gradient reads only Hidden@GRAD)."""
    from compat._added import added
    return added("fluid_layer_helpers", "_fluid_gru_unit")(
        input, hidden, size, param_attr, bias_attr, activation, gate_activation, origin_mode)


def _map(fn, *structs):
    from paddle.utils import layers_utils as _nest
    return _nest.map_structure(fn, *structs)


def _flatten(struct):
    from paddle.utils import layers_utils as _nest
    return _nest.flatten(struct)


@legacy("paddle.fluid.layers.RNNCell", "paddle.fluid.layers.rnn.RNNCell",
        replacement="paddle.nn.RNNCellBase")
class RNNCell(object):
    """1.8's cell protocol: a subclass defines ``call(inputs, states)`` -> ``(outputs,
    new_states)`` and, for ``get_initial_states`` without ``shape``, ``state_shape``
    (``state_dtype`` is optional: float32). A cell that lacks one raises
    :class:`CellProtocolError` (a NotImplementedError, as 1.8 raised) where it is needed."""

    def __call__(self, inputs, states, **kwargs):
        return _cell_step(self)(inputs, states, **kwargs)

    def get_initial_states(self, batch_ref, shape=None, dtype="float32", init_value=0,
                           batch_dim_idx=0):
        """Zeros (``init_value``) of every state shape, the batch size read from
        ``batch_ref``'s dimension ``batch_dim_idx`` (1.8: fill_constant_batch_size_like)."""
        from compat.fluid.layers.tensor import fill_constant_batch_size_like
        batch_ref = _flatten(batch_ref)[0]
        if shape is None:
            if not hasattr(type(self), "state_shape"):
                raise CellProtocolError("%s defines no state_shape: pass shape= to "
                                        "get_initial_states or define it in the cell"
                                        % type(self).__name__)
            shapes = self.state_shape
        else:
            shapes = shape
        if dtype is None:
            dtype = getattr(self, "state_dtype", "float32")
        dtypes = _flatten(dtype) if isinstance(dtype, (list, tuple)) else [dtype]

        def is_shape(v):
            return isinstance(v, (list, tuple)) and all(isinstance(d, int) for d in v)

        made = []

        def build(v):
            if is_shape(v):
                full = list(v) if v and v[0] == -1 else [-1] + list(v)
                d = dtypes[len(made)] if len(dtypes) > 1 else dtypes[0]
                made.append(fill_constant_batch_size_like(batch_ref, full, d, init_value,
                                                          input_dim_idx=batch_dim_idx))
                return made[-1]
            if isinstance(v, int):
                return build([v])
            return type(v)(build(e) for e in v)
        return build(shapes)


class CellProtocolError(NotImplementedError):
    """A user cell lacks a method or property of 1.8's RNNCell protocol."""


def _cell_step(cell):
    """The cell's ``call`` method (1.8's protocol), or CellProtocolError naming the cell."""
    step = getattr(cell, "call", None)
    if step is None:
        raise CellProtocolError("%s defines no call(inputs, states): an RNNCell subclass "
                                "must implement it" % type(cell).__name__)
    return step


def _suffixed(attr, suffix):
    from compat.fluid.layers._helper import to_attr
    attr = to_attr(attr)
    if attr is not None and attr is not False and attr.name is not None:
        import copy
        attr = copy.deepcopy(attr)
        attr.name += suffix
    return attr


@legacy("paddle.fluid.layers.GRUCell", "paddle.fluid.layers.rnn.GRUCell",
        replacement="paddle.nn.GRUCell (another formula: the reset gate after the hidden matmul)")
class GRUCell(RNNCell):
    """1.8's GRU cell (contrib BasicGRUUnit): ``r, u = sigmoid([x, h] @ W_g + b_g)``,
    ``c = tanh([x, r * h] @ W_c + b_c)``, ``h' = u * h + (1 - u) * c``; weights created at
    the first call ([input + hidden, 2 * hidden] and [input + hidden, hidden], a named
    param_attr gets ``_gate`` / ``_candidate``), biases zero unless bias_attr says."""

    def __init__(self, hidden_size, param_attr=None, bias_attr=None, gate_activation=None,
                 activation=None, dtype="float32", name="GRUCell"):
        self.hidden_size = hidden_size
        self._param_attr, self._bias_attr = param_attr, bias_attr
        self._gate_activation = gate_activation or F.sigmoid
        self._activation = activation or paddle.tanh
        self._dtype = dtype
        self._prefix = None
        self._name = name
        self._built = False

    def _build(self, inputs):
        self._fluid_build(int(inputs.shape[-1]))

    def _fluid_build(self, size):
        """The parameters, from the input size (``rnn`` creates them before its loop)."""
        if self._built:
            return
        from compat.fluid import unique_name
        from compat.fluid.layers._helper import create_parameter
        size = int(size)
        h = self.hidden_size
        prefix = unique_name.generate(self._name + "/BasicGRUUnit")
        self._gate_weight = create_parameter(prefix, "w_0", [size + h, 2 * h], self._dtype,
                                             _suffixed(self._param_attr, "_gate"))
        self._candidate_weight = create_parameter(prefix, "w_1", [size + h, h], self._dtype,
                                                  _suffixed(self._param_attr, "_candidate"))
        self._gate_bias = create_parameter(prefix, "b_0", [2 * h], self._dtype,
                                           _suffixed(self._bias_attr, "_gate"), is_bias=True)
        self._candidate_bias = create_parameter(prefix, "b_1", [h], self._dtype,
                                                _suffixed(self._bias_attr, "_candidate"), is_bias=True)
        self._built = True

    def call(self, inputs, states):
        if not self._built:
            self._build(inputs)
        gate = paddle.matmul(paddle.concat([inputs, states], 1), self._gate_weight)
        gate = self._gate_activation(gate + self._gate_bias)
        r, u = paddle.split(gate, 2, axis=1)
        cand = paddle.matmul(paddle.concat([inputs, r * states], 1), self._candidate_weight)
        c = self._activation(cand + self._candidate_bias)
        new_hidden = u * states + (1 - u) * c
        return new_hidden, new_hidden

    @property
    def state_shape(self):
        return [self.hidden_size]


@legacy("paddle.fluid.layers.LSTMCell", "paddle.fluid.layers.rnn.LSTMCell",
        replacement="paddle.nn.LSTMCell (its own weights, no forget_bias)")
class LSTMCell(RNNCell):
    """1.8's LSTM cell (contrib BasicLSTMUnit): ``i, j, f, o = split([x, h] @ W + b, 4)``,
    ``c' = c * sigmoid(f + forget_bias) + sigmoid(i) * tanh(j)``,
    ``h' = tanh(c') * sigmoid(o)`` (1.8 used sigmoid / tanh whatever the activations
    said); the weight [input + hidden, 4 * hidden] is created at the first call."""

    def __init__(self, hidden_size, param_attr=None, bias_attr=None, gate_activation=None,
                 activation=None, forget_bias=1.0, dtype="float32", name="LSTMCell"):
        self.hidden_size = hidden_size
        self._param_attr, self._bias_attr = param_attr, bias_attr
        self._forget_bias = forget_bias
        self._dtype = dtype
        self._name = name
        self._built = False

    def _fluid_build(self, size):
        """The parameters, from the input size (``rnn`` creates them before its loop)."""
        if self._built:
            return
        from compat.fluid import unique_name
        from compat.fluid.layers._helper import create_parameter
        prefix = unique_name.generate(self._name + "/BasicLSTMUnit")
        size = int(size)
        self._weight = create_parameter(prefix, "w_0", [size + self.hidden_size, 4 * self.hidden_size],
                                        self._dtype, self._param_attr)
        self._bias = create_parameter(prefix, "b_0", [4 * self.hidden_size], self._dtype,
                                      self._bias_attr, is_bias=True)
        self._built = True

    def call(self, inputs, states):
        pre_hidden, pre_cell = states
        self._fluid_build(inputs.shape[-1])
        gates = paddle.matmul(paddle.concat([inputs, pre_hidden], 1), self._weight) + self._bias
        i, j, f, o = paddle.split(gates, 4, axis=-1)
        forget = paddle.full([1], self._forget_bias, gates.dtype)
        new_cell = pre_cell * F.sigmoid(f + forget) + F.sigmoid(i) * paddle.tanh(j)
        new_hidden = paddle.tanh(new_cell) * F.sigmoid(o)
        return new_hidden, [new_hidden, new_cell]

    @property
    def state_shape(self):
        return [[self.hidden_size], [self.hidden_size]]


@legacy("paddle.fluid.layers.rnn", "paddle.fluid.layers.rnn.rnn",
        replacement="paddle.nn.RNN(cell, is_reverse, time_major)(inputs, initial_states, sequence_length)")
def rnn(cell, inputs, initial_states=None, sequence_length=None, time_major=False,
        is_reverse=False, **kwargs):
    """1.8's ``rnn``: the cell's ``call`` applied step by step (1.8 built a StaticRNN; here
    the steps are unrolled, which needs the time dimension known when the program is
    built). With ``sequence_length`` the states stop changing after each sequence's end
    (``new * m - old * (m - 1)``, 1.8's formula) while the outputs are the cell's own;
    returns ``(outputs, final_states)``, the outputs batch-major unless ``time_major``."""
    build = getattr(cell, "_fluid_build", None)
    if build is not None and not paddle.in_dynamic_mode():
        # 1.8's cells: their parameters first, then today's while loop over any number of
        # time steps (a parameter created inside the loop would not belong to the program)
        build(int(_flatten(inputs)[0].shape[-1]))
        return paddle.nn.RNN(cell, is_reverse=is_reverse, time_major=time_major)(
            inputs, initial_states, sequence_length, **kwargs)
    if initial_states is None:
        initial_states = cell.get_initial_states(batch_ref=inputs,
                                                 batch_dim_idx=1 if time_major else 0)

    def switch_grad(x):
        x.stop_gradient = False
        return x
    initial_states = _map(switch_grad, initial_states)

    def transpose(x):
        return paddle.transpose(x, [1, 0] + list(range(2, len(x.shape))))
    if not time_major:
        inputs = _map(transpose, inputs)
    steps = int(_flatten(inputs)[0].shape[0])
    if steps < 0:
        from compat._runtime import manual_error
        raise manual_error("paddle.fluid.layers.rnn", "the number of time steps must be known "
                           "when the program is built (a data shape with a fixed time dimension)")
    mask = None
    if sequence_length is not None:
        dtype = _flatten(initial_states)[0].dtype
        mask = paddle.transpose(F.sequence_mask(sequence_length, maxlen=steps, dtype=dtype), [1, 0])
    if is_reverse:
        inputs = _map(lambda x: paddle.flip(x, axis=[0]), inputs)
        mask = paddle.flip(mask, axis=[0]) if mask is not None else None
    states = initial_states
    outputs = []
    for t in range(steps):
        step_inputs = _map(lambda x: x[t], inputs)
        out, new_states = _cell_step(cell)(step_inputs, _map(lambda x: x, states), **kwargs)
        if mask is not None:
            m = mask[t]

            def keep(old, new):
                mm = paddle.reshape(m, [-1] + [1] * (len(new.shape) - 1))
                return new * mm - old * (mm - 1)
            new_states = _map(keep, states, new_states)
        states = new_states
        outputs.append(out)
    flat = [paddle.stack([_flatten(o)[i] for o in outputs], axis=0)
            for i in range(len(_flatten(outputs[0])))]
    from paddle.utils import layers_utils as _nest
    final_outputs = _nest.pack_sequence_as(outputs[0], flat)
    if is_reverse:
        final_outputs = _map(lambda x: paddle.flip(x, axis=[0]), final_outputs)
    if not time_major:
        final_outputs = _map(transpose, final_outputs)
    return final_outputs, states


_lazy.attach(globals())
