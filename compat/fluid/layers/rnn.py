"""``paddle.fluid.layers.rnn`` (1.8): ``gru_unit`` and ``lstm_unit`` by hand, the rest
generated from the rule database."""
from __future__ import annotations

import paddle
import paddle.nn.functional as F

from compat import _lazy
from compat._runtime import legacy
from compat.fluid.layers._helper import create_parameter, layer_name

__all__ = ["gru_unit", "lstm_unit"]


def _no_grad(x):
    out = x.detach()
    out.stop_gradient = True
    return out


@legacy("paddle.fluid.layers.lstm_unit", "paddle.fluid.layers.rnn.lstm_unit",
        replacement="paddle.nn.LSTMCell (its own weights and gate layout, no forget_bias)")
def lstm_unit(x_t, hidden_t_prev, cell_t_prev, forget_bias=0.0, param_attr=None, bias_attr=None,
              name=None):
    """1.8.5's lstm_unit: an ``fc`` layer (named ``fc_<n>``, weight [D + H, 4H]) over
    ``concat([x_t, hidden_t_prev], 1)``, then the lstm_unit op on its four H-wide slices
    i, f, o, g: ``c = sigmoid(f + forget_bias) * c_prev + sigmoid(i) * tanh(g)``,
    ``h = sigmoid(o) * tanh(c)``; returns ``(h, c)``."""
    from compat.fluid.layers.nn import fc
    size = int(cell_t_prev.shape[1])
    gates = fc(paddle.concat([x_t, hidden_t_prev], axis=1), size=4 * size,
               param_attr=param_attr, bias_attr=paddle.ParamAttr() if bias_attr is None else bias_attr)
    i, f, o, g = paddle.split(gates, 4, axis=1)
    c = F.sigmoid(f + forget_bias) * cell_t_prev + F.sigmoid(i) * paddle.tanh(g)
    return F.sigmoid(o) * paddle.tanh(c), c


@legacy("paddle.fluid.layers.gru_unit", "paddle.fluid.layers.rnn.gru_unit",
        replacement="paddle.nn.GRUCell (its own input projection, weights and gates)")
def gru_unit(input, hidden, size, param_attr=None, bias_attr=None, activation="tanh",
             gate_activation="sigmoid", origin_mode=False):
    """1.8.5's gru_unit op: ``input`` already projected to ``size`` = 3*H; one [H, 3H]
    weight buffer read as [H, 2H] update/reset weights followed by [H, H] candidate
    weights; ``u, r = sigmoid(x[:, :2H] + b + h @ W_ur)``,
    ``c = tanh(x[:, 2H:] + b + (r * h) @ W_c)``; ``h' = u * (c - h) + h``
    (``origin_mode``: ``c + u * (h - c)``). 1.8.5 built the op with tanh and sigmoid
    whatever ``activation`` / ``gate_activation`` said. Returns ``(h', r * h, concat(u, r,
    c))``, the last two without gradient (the op's gradient reads only Hidden@GRAD)."""
    for name in (activation, gate_activation):
        if name not in ("identity", "sigmoid", "tanh", "relu"):
            raise KeyError(name)
    prefix = layer_name("gru_unit")
    h = size // 3
    weight = create_parameter(prefix, "w", [h, 3 * h], input.dtype, param_attr)
    bias = create_parameter(prefix, "b", [1, 3 * h], input.dtype, bias_attr, is_bias=True)
    flat = paddle.reshape(weight, [-1])
    w_ur = paddle.reshape(flat[: 2 * h * h], [h, 2 * h])
    w_c = paddle.reshape(flat[2 * h * h:], [h, h])
    x = input if bias is None else input + bias
    ur = F.sigmoid(x[:, : 2 * h] + paddle.matmul(hidden, w_ur))
    u, r = ur[:, :h], ur[:, h:]
    reset_hidden = r * hidden
    c = paddle.tanh(x[:, 2 * h:] + paddle.matmul(reset_hidden, w_c))
    if origin_mode:
        new_hidden = c + u * (hidden - c)
    else:
        new_hidden = u * (c - hidden) + hidden
    return new_hidden, _no_grad(reset_hidden), _no_grad(paddle.concat([u, r, c], axis=1))


_lazy.attach(globals())
