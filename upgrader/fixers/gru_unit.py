"""PU101 gru-unit-layer: ``fluid.dygraph.GRUUnit`` becomes ``_FluidGRUUnit``, a Layer class
fix adds to the module that computes 1.8's gru_unit op with paddle ops.

What it does
    ``fluid.dygraph.GRUUnit(size, param_attr, bias_attr, activation, gate_activation,
    origin_mode, dtype)`` becomes ``_FluidGRUUnit(...)`` with the same arguments, and
    ``fix`` adds the class once, after the module's imports. Like 1.8's layer it owns a
    ``weight`` [H, 3H] and a ``bias`` [1, 3H] (none with ``bias_attr=False``), so
    ``state_dict`` keys and saved 1.8 weights carry over, and ``forward(input, hidden)``
    returns ``(new_hidden, reset_hidden_prev, gate)``.

Why is this bad?
    No layer of Paddle 3 computes it. ``paddle.nn.GRUCell`` projects its input itself,
    keeps separate input and hidden weights and applies the reset gate after the hidden
    matmul: a different function of different weights. 1.8's op read the weight's memory
    as the update/reset weights [H, 2H] followed by the candidate weights [H, H] (not a
    split of the columns): ``u, r = gate_act(x[:, :2H] + b + h @ W_ur)``,
    ``c = act(x[:, 2H:] + b + (r * h) @ W_c)``, ``h' = u * (c - h) + h``; the reset hidden
    state and the gates carried no gradient, and the dygraph layer never passed
    ``origin_mode`` to the op (checked on 1.8.5).

Example
    ``self.gru_unit = GRUUnit(size * 3, param_attr=p, bias_attr=b)`` →
    ``self.gru_unit = _FluidGRUUnit(size * 3, param_attr=p, bias_attr=b)``.

Fix safety
    Safe: the rule's example (two steps, both activations, a gradient) agrees with 1.8.5,
    and so does program dygraph_gru_attention (the models/dygraph sentiment and OCR
    GRUs). The initial weights are drawn like 1.8's (Xavier for the weight, zeros for
    the bias) from today's random generator. Manual when the module already uses the
    class's name for something else.
"""
from __future__ import annotations

import libcst as cst

CODE = "PU101"
STRUCTURAL = ("gru-unit-layer",)
NAME = "_FluidGRUUnit"
#: what docs/rules.md and explain show instead of the entry's target
HELPERS = {"gru-unit-layer": f"{NAME} (a Layer class fix adds to the module: 1.8's gru_unit)"}

SOURCE = f'''class {NAME}(paddle.nn.Layer):
    """Paddle 1.8's fluid.dygraph.GRUUnit: one GRU step on an input already projected to
    size = 3 * H. weight [H, 3H] holds the update/reset weights [H, 2H] followed by the
    candidate weights [H, H] in memory; forward returns (new_hidden, reset_hidden_prev,
    gate), the last two without gradient."""

    def __init__(self, size, param_attr=None, bias_attr=None, activation='tanh',
                 gate_activation='sigmoid', origin_mode=False, dtype='float32'):
        super().__init__()
        acts = {{'identity': lambda v: v, 'sigmoid': paddle.nn.functional.sigmoid,
                'tanh': paddle.tanh, 'relu': paddle.nn.functional.relu}}
        self._act, self._gate_act = acts[activation], acts[gate_activation]
        h = size // 3
        self.weight = self.create_parameter(attr=param_attr, shape=[h, 3 * h], dtype=dtype)
        self.bias = self.create_parameter(attr=bias_attr, shape=[1, 3 * h], dtype=dtype,
                                          is_bias=True)

    def forward(self, input, hidden):
        h = hidden.shape[1]
        flat = paddle.reshape(self.weight, [-1])
        w_ur = paddle.reshape(flat[:2 * h * h], [h, 2 * h])
        w_c = paddle.reshape(flat[2 * h * h:], [h, h])
        x = input if self.bias is None else input + self.bias
        ur = self._gate_act(x[:, :2 * h] + paddle.matmul(hidden, w_ur))
        u, r = ur[:, :h], ur[:, h:]
        reset_hidden = r * hidden
        c = self._act(x[:, 2 * h:] + paddle.matmul(reset_hidden, w_c))
        new_hidden = u * (c - hidden) + hidden
        return new_hidden, reset_hidden.detach(), paddle.concat([u, r, c], axis=1).detach()
'''


def rewrite_call(up, original: cst.Call, updated: cst.Call, entry):
    from upgrader.fixers import bound_or_report, helper_conflict, use_helper
    if helper_conflict(up, original, entry, NAME, SOURCE) \
            or bound_or_report(up, original, updated, entry) is None:
        return updated
    up.needed_imports.add("paddle")  # the class is a paddle.nn.Layer
    use_helper(up, original, entry, NAME, "a Layer class fix adds to the module: 1.8's "
               "gru_unit op")
    return updated.with_changes(func=cst.Name(NAME))


def finish_module(up, module: cst.Module) -> cst.Module:
    """Add the class the rewrites call after the module's docstring and imports."""
    from upgrader.fixers import add_used_helpers
    return add_used_helpers(up, module, {NAME: SOURCE})
