"""PU101 rnn-cells: ``fluid.layers.LSTMCell`` / ``GRUCell`` become ``_FluidLSTMCell`` /
``_FluidGRUCell`` and ``fluid.layers.rnn`` over one of them ``_fluid_rnn``: code fix adds
to the module that computes 1.8's cells with 1.8's parameters.

What it does
    ``fluid.layers.LSTMCell(hidden_size, ...)`` → ``_FluidLSTMCell(...)`` and
    ``fluid.layers.GRUCell(hidden_size, ...)`` → ``_FluidGRUCell(...)``, with the same
    arguments (1.8.5's signatures). Like 1.8.5's cells (contrib BasicLSTMUnit /
    BasicGRUUnit) they take their input size from the first input, keep 1.8's parameters
    and names (``LSTMCell/BasicLSTMUnit_0.w_0`` [input + hidden, 4 * hidden] and ``.b_0``;
    the GRU's gate and candidate weights and biases, a named ParamAttr suffixed ``_gate``
    / ``_candidate``), its gate order (LSTM i, j, f, o with forget_bias added to f at run
    time; GRU r, u) and its protocol: ``call(inputs, states)``, ``state_shape``,
    ``get_initial_states(batch_ref, shape, dtype, init_value, batch_dim_idx)``. The
    LSTM ignores gate_activation and activation, as 1.8.5's did.
    ``fluid.layers.rnn(cell, inputs, initial_states, sequence_length, time_major,
    is_reverse)`` whose cell is one of those (an inline call, or a name or ``self.<attr>``
    the module binds once, to such a call) → ``_fluid_rnn(...)``, which creates the cell's
    parameters from the input size and runs it with ``paddle.nn.RNN`` (a while loop in a
    static program: any number of time steps).

Why is this bad?
    Paddle 3's ``paddle.nn.LSTMCell(input_size, hidden_size)`` keeps separate input and
    hidden weights in another gate order, has no forget_bias and needs the input size;
    ``paddle.nn.GRUCell`` applies the reset gate after the hidden matmul: other functions
    of other parameters. ``paddle.nn.RNN`` runs a cell's body once inside a while loop, and
    a parameter created there (1.8's cells built theirs at the first call, in StaticRNN's
    step block) is not a parameter of the program on 3.3.1: it is never trained (checked).

Example
    ``cell = fluid.layers.LSTMCell(hidden_size=32)`` / ``out, states =
    fluid.layers.rnn(cell, emb, sequence_length=lengths)`` → ``cell =
    _FluidLSTMCell(hidden_size=32)`` / ``out, states = _fluid_rnn(cell, emb,
    sequence_length=lengths)``.

Fix safety
    Safe: the rules' examples (static programs: sequence lengths, reversed and time-major
    runs, given initial states, gradients) agree with 1.8.5, and so does program
    static_nlp_rnn_cells (an LSTM encoder and a GRU decoder over sequences of unknown
    length, trained with Adam). ``rnn`` over any other cell (a subclass of
    ``fluid.layers.RNNCell``, whose ``call`` may create parameters inside the loop) stays
    manual; so do the names already used for something else in the module.
"""
from __future__ import annotations

from typing import Dict, Optional

import libcst as cst

from upgrader.names import FastVisitor

CODE = "PU101"
STRUCTURAL = ("rnn-cells",)
LSTM, GRU, RNN = "_FluidLSTMCell", "_FluidGRUCell", "_fluid_rnn"
CLASSES = {"paddle.fluid.layers.LSTMCell": LSTM, "paddle.fluid.layers.rnn.LSTMCell": LSTM,
           "paddle.fluid.layers.GRUCell": GRU, "paddle.fluid.layers.rnn.GRUCell": GRU}
RNNS = ("paddle.fluid.layers.rnn", "paddle.fluid.layers.rnn.rnn")
HELPER_OF = {"paddle.fluid.layers.LSTMCell": f"{LSTM} (a class fix adds to the module: 1.8's LSTM cell)",
             "paddle.fluid.layers.GRUCell": f"{GRU} (a class fix adds to the module: 1.8's GRU cell)",
             "paddle.fluid.layers.rnn": f"{RNN} over an LSTMCell / GRUCell (a function fix "
                                        f"adds to the module: paddle.nn.RNN, parameters first)"}
WHAT = {LSTM: "a class fix adds to the module: 1.8's LSTM cell and parameters",
        GRU: "a class fix adds to the module: 1.8's GRU cell and parameters",
        RNN: "a function fix adds to the module: the cell's parameters first, then paddle.nn.RNN"}

#: parameter creation and initial states, shared by both cells
_CELL = '''
    def _parameter(self, attr, suffix, shape, is_bias):
        """1.8.5's cell parameter: named <name>/Basic...Unit_<n>.<suffix>, a named ParamAttr
        kept; Xavier weights and zero biases unless the attribute says otherwise."""
        import copy
        import paddle
        if attr is False:
            return None
        attr = copy.deepcopy(paddle.ParamAttr._to_attr(attr))
        if attr.name is None:
            attr.name = self._prefix + '.' + suffix
        return paddle.create_parameter(shape, self._dtype, attr=attr, is_bias=is_bias)

    def __call__(self, inputs, states, **kwargs):
        return self.call(inputs, states, **kwargs)

    def get_initial_states(self, batch_ref, shape=None, dtype='float32', init_value=0,
                           batch_dim_idx=0):
        """init_value in every state shape ([-1] + shape), the batch size read from
        batch_ref's dimension batch_dim_idx."""
        import paddle
        ref = paddle.utils.flatten(batch_ref)[0]
        batch = paddle.shape(ref)[batch_dim_idx]

        def build(s):
            if isinstance(s, int):
                s = [s]
            if all(isinstance(d, int) for d in s):
                dims = list(s[1:]) if s and s[0] == -1 else list(s)
                return paddle.full([batch] + dims, init_value, dtype or 'float32')
            return type(s)(build(e) for e in s)
        return build(self.state_shape if shape is None else shape)
'''

SOURCES = {
    LSTM: f'''class {LSTM}(object):
    """Paddle 1.8's fluid.layers.LSTMCell (contrib BasicLSTMUnit): weight [input + hidden,
    4 * hidden] and bias [4 * hidden], created from the first input's size;
    i, j, f, o = split([x, h] @ weight + bias, 4); c' = c * sigmoid(f + forget_bias) +
    sigmoid(i) * tanh(j); h' = tanh(c') * sigmoid(o) (gate_activation and activation are
    not used, as in 1.8.5). call(inputs, [h, c]) returns (h', [h', c'])."""

    def __init__(self, hidden_size, param_attr=None, bias_attr=None, gate_activation=None,
                 activation=None, forget_bias=1.0, dtype='float32', name='LSTMCell'):
        import paddle
        self.hidden_size = hidden_size
        self._param_attr, self._bias_attr = param_attr, bias_attr
        self._forget_bias = forget_bias
        self._dtype = dtype
        self._prefix = paddle.utils.unique_name.generate(name + '/BasicLSTMUnit')
        self._weight = None

    def _fluid_build(self, input_size):
        if self._weight is None:
            h = self.hidden_size
            self._weight = self._parameter(self._param_attr, 'w_0', [input_size + h, 4 * h], False)
            self._bias = self._parameter(self._bias_attr, 'b_0', [4 * h], True)
''' + _CELL + '''
    @property
    def state_shape(self):
        return [[self.hidden_size], [self.hidden_size]]

    def call(self, inputs, states):
        import paddle
        self._fluid_build(inputs.shape[-1])
        pre_hidden, pre_cell = states
        gates = paddle.matmul(paddle.concat([inputs, pre_hidden], 1), self._weight)
        if self._bias is not None:
            gates = gates + self._bias
        i, j, f, o = paddle.split(gates, 4, axis=-1)
        forget = paddle.full([1], self._forget_bias, gates.dtype)
        sigmoid = paddle.nn.functional.sigmoid
        new_cell = pre_cell * sigmoid(f + forget) + sigmoid(i) * paddle.tanh(j)
        new_hidden = paddle.tanh(new_cell) * sigmoid(o)
        return new_hidden, [new_hidden, new_cell]
''',
    GRU: f'''class {GRU}(object):
    """Paddle 1.8's fluid.layers.GRUCell (contrib BasicGRUUnit): gate weight [input +
    hidden, 2 * hidden], candidate weight [input + hidden, hidden] and their biases,
    created from the first input's size; r, u = split(gate_act([x, h] @ w_gate + b_gate),
    2); c = act([x, r * h] @ w_candidate + b_candidate); h' = u * h + (1 - u) * c.
    call(inputs, h) returns (h', h')."""

    def __init__(self, hidden_size, param_attr=None, bias_attr=None, gate_activation=None,
                 activation=None, dtype='float32', name='GRUCell'):
        import paddle
        self.hidden_size = hidden_size
        self._param_attr, self._bias_attr = param_attr, bias_attr
        self._gate_activation = gate_activation or paddle.nn.functional.sigmoid
        self._activation = activation or paddle.tanh
        self._dtype = dtype
        self._prefix = paddle.utils.unique_name.generate(name + '/BasicGRUUnit')
        self._gate_weight = None

    def _fluid_build(self, input_size):
        import copy
        import paddle
        if self._gate_weight is None:
            h = self.hidden_size

            def named(attr, suffix):
                attr = paddle.ParamAttr._to_attr(attr)
                if attr is False or attr.name is None:
                    return attr
                attr = copy.deepcopy(attr)
                attr.name += suffix
                return attr
            self._gate_weight = self._parameter(named(self._param_attr, '_gate'), 'w_0',
                                                [input_size + h, 2 * h], False)
            self._candidate_weight = self._parameter(named(self._param_attr, '_candidate'),
                                                     'w_1', [input_size + h, h], False)
            self._gate_bias = self._parameter(named(self._bias_attr, '_gate'), 'b_0', [2 * h], True)
            self._candidate_bias = self._parameter(named(self._bias_attr, '_candidate'), 'b_1',
                                                   [h], True)
''' + _CELL + '''
    @property
    def state_shape(self):
        return [self.hidden_size]

    def call(self, inputs, states):
        import paddle
        self._fluid_build(inputs.shape[-1])
        gate = paddle.matmul(paddle.concat([inputs, states], 1), self._gate_weight)
        if self._gate_bias is not None:
            gate = gate + self._gate_bias
        r, u = paddle.split(self._gate_activation(gate), 2, axis=1)
        candidate = paddle.matmul(paddle.concat([inputs, r * states], 1), self._candidate_weight)
        if self._candidate_bias is not None:
            candidate = candidate + self._candidate_bias
        new_hidden = u * states + (1 - u) * self._activation(candidate)
        return new_hidden, new_hidden
''',
    RNN: f'''def {RNN}(cell, inputs, initial_states=None, sequence_length=None, time_major=False,
               is_reverse=False, **kwargs):
    """Paddle 1.8's fluid.layers.rnn over a 1.8 LSTMCell / GRUCell: the cell's parameters
    are created first (from the input size: a parameter created inside the loop would not
    belong to the program), then paddle.nn.RNN applies cell.call at every time step; with
    sequence_length the states stop changing after each sequence's end. Returns
    (outputs, final_states)."""
    import paddle
    cell._fluid_build(paddle.utils.flatten(inputs)[0].shape[-1])
    return paddle.nn.RNN(cell, is_reverse=is_reverse, time_major=time_major)(
        inputs, initial_states, sequence_length, **kwargs)
''',
}


def _cell_bindings(up) -> Dict[str, Optional[str]]:
    """name (or ``.attr``) -> the cell class a module's only binding of it builds, None when
    it has another binding too (one scan of the module)."""
    got = up.__dict__.get("_rnn_cell_bindings")
    if got is not None:
        return got
    got = up._rnn_cell_bindings = {}

    def note(key, value):
        cls = CLASSES.get(up.resolve_dotted(value.func)) if isinstance(value, cst.Call) else None
        got[key] = cls if key not in got else None

    class V(FastVisitor):
        def visit_Assign(self, node: cst.Assign):
            for t in node.targets:
                tgt = t.target
                if isinstance(tgt, cst.Name):
                    note(tgt.value, node.value)
                elif isinstance(tgt, cst.Attribute):
                    note("." + tgt.attr.value, node.value)
                else:  # tuple targets and subscripts: the names inside are rebound
                    for n in _names(tgt):
                        got[n] = None

        def visit_AugAssign(self, node):
            for n in _names(node.target):
                got[n] = None

        def visit_AnnAssign(self, node):
            for n in _names(node.target):
                got[n] = None

    up.module.visit(V())
    # every other kind of binding (parameters, loop targets, imports, ...) of a name
    from upgrader import bound_names, untouched
    try:
        binds = bound_names.bindings(untouched.parse(up.source))
    except (SyntaxError, RecursionError, MemoryError, ValueError):
        return got
    for name in list(got):
        if not name.startswith(".") and len(binds.get(name, ())) != 1:
            got[name] = None
    return got


def _names(node) -> list:
    out = []
    if isinstance(node, cst.Name):
        out.append(node.value)
    elif isinstance(node, cst.Attribute):
        out.append("." + node.attr.value)
    elif isinstance(node, (cst.Tuple, cst.List)):
        for e in node.elements:
            out += _names(e.value)
    elif isinstance(node, cst.StarredElement):
        out += _names(node.value)
    return out


def _cell_class(up, value) -> Optional[str]:
    """The 1.8 cell class the rnn's cell argument certainly is, or None."""
    if isinstance(value, cst.Call):
        return CLASSES.get(up.resolve_dotted(value.func))
    if isinstance(value, cst.Name):
        return _cell_bindings(up).get(value.value)
    if isinstance(value, cst.Attribute) and isinstance(value.value, cst.Name) \
            and value.value.value == "self":
        return _cell_bindings(up).get("." + value.attr.value)
    return None


def rewrite_call(up, original: cst.Call, updated: cst.Call, entry):
    from upgrader.fixers import bound_or_report, helper_conflict, use_helper
    name = CLASSES.get(entry.name, RNN)
    if entry.name in RNNS:
        from upgrader.args import Manual, bind
        b = bind(entry, original)
        cell = None if isinstance(b, Manual) else b.values.get("cell")
        if cell is None or _cell_class(up, cell.value) is None:
            up.report_entry(original, entry, False, manual=(
                "its cell is not a fluid.layers.LSTMCell / GRUCell that the module builds "
                "once: paddle.nn.RNN runs a cell's body inside a while loop, where a "
                "parameter it creates (fluid.layers.fc in call, a cell built at its first "
                "call) does not belong to the program and never trains. Create the cell's "
                "parameters before the loop (its layers in __init__, a paddle.nn.RNNCellBase "
                "with forward(inputs, states)), then paddle.nn.RNN(cell, is_reverse=..., "
                "time_major=...)(inputs, initial_states, sequence_length)"))
            return updated
    if helper_conflict(up, original, entry, name, SOURCES[name]) \
            or bound_or_report(up, original, updated, entry) is None:
        return updated
    up.needed_imports.add("paddle")
    use_helper(up, original, entry, name, WHAT[name])
    return updated.with_changes(func=cst.Name(name))


def finish_module(up, module: cst.Module) -> cst.Module:
    """Add the classes and the function the rewrites call after the module's imports."""
    from upgrader.fixers import add_used_helpers
    return add_used_helpers(up, module, SOURCES)
