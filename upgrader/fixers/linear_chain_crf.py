"""PU101 linear-chain-crf: ``fluid.layers.linear_chain_crf`` and ``fluid.layers.crf_decoding``
in their padded form (``length=`` given) become functions fix adds to the module, built
from ``paddle`` ops on 1.8's [D + 2, D] transition parameter, so that a CRF trained and
decoded with 1.8 trains and decodes the same way.

What it does
    ``fluid.layers.linear_chain_crf(input, label, param_attr, length=lens)`` becomes
    ``_fluid_linear_chain_crf(input, label, param_attr, length=lens)`` and
    ``fluid.layers.crf_decoding(input, param_attr, label, length=lens)`` becomes
    ``_fluid_crf_decoding(input, param_attr, label, length=lens)``: the same arguments
    (1.8's signatures), the functions added once after the module's imports. Input
    ``[N, T, D]`` emissions, label ``[N, T]`` or ``[N, T, 1]`` int64, length ``[N]`` or
    ``[N, 1]`` int64, as 1.8's padded ops took them.

    - ``_fluid_linear_chain_crf`` creates 1.8's transition parameter, ``[D + 2, D]`` (row
      0 the start weights, row 1 the end weights, rows 2.. the tag-to-tag weights) of the
      input's dtype, named by ``param_attr`` or ``linear_chain_crf_<n>.w_0`` (the counter
      advances at every call, as 1.8's layer helper did), Xavier uniform unless
      ``param_attr`` gives an initializer; in a static program a named parameter the
      program already has is that parameter (1.8 kept one parameter per name: the first
      initializer counts, the last call's learning rate, regularizer and trainable flag
      hold, one update from the summed gradients). It returns, per sequence, 1.8's
      "log-likelihood" output, which is the negative log-likelihood ``log Z -
      score(label)``, shape ``[N, 1]``, 0 for a sequence of length 0: a path scores
      ``start[y_0] + sum_t input[t, y_t] + sum_t trans[y_(t-1), y_t] + end[y_(len-1)]``
      over the sequence's first ``length`` steps, ``log Z`` sums ``exp(score)`` over all
      paths of that length (the forward algorithm with ``paddle.logsumexp``). Labels past
      a sequence's length are never read (any value there is fine, as in 1.8). Autograd
      gives the gradients of the emissions (0 past the length) and of the parameter.
    - ``_fluid_crf_decoding`` reads the parameter ``param_attr`` names from the static
      program (1.8 looked it up in the default main program and raised when it was not
      there, or in dygraph mode) and returns the Viterbi path ``[N, T]`` int64 of each
      sequence's first ``length`` steps, 0 past the length (ties go to the first tag, as
      1.8's kernel); with ``label``, 1 where the path equals the label and 0 elsewhere
      (also past the length).

    Both run the steps as a Python loop when the input's ``T`` is known (dygraph, or a
    static program whose input has a fixed length) and as ``paddle.static.nn.while_loop``
    in a static program where ``T`` is unknown (``-1``), gradients included.

Why is this bad?
    Paddle 3 has neither op. ``paddle.text.ViterbiDecoder`` takes a ``[D, D]`` (or
    ``[D + 2, D + 2]`` with start/stop tags) transition matrix, not 1.8's ``[D + 2, D]``
    parameter, and nothing computes the CRF loss.

Example
    ``cost = fluid.layers.linear_chain_crf(emission, target, fluid.ParamAttr(name='crfw'), length=lens)``
    → ``cost = _fluid_linear_chain_crf(emission, target, fluid.ParamAttr(name='crfw'), length=lens)``
    (the ``ParamAttr`` itself becomes ``paddle.ParamAttr`` by its own rule).

Fix safety
    Safe: values, shapes, dtypes, the gradients of the emissions and of the transition
    parameter, and the parameter after SGD steps agree with 1.8.5 (the rules' examples:
    lengths 0, 1 and full, tied scores, labels out of range past the length, a shared
    named parameter, a default-named one, float64, an input of unknown length; program
    static_nlp_lac_crf). 1.8.5 ran ``linear_chain_crf`` in dygraph only for a batch of one
    sequence (its ``if length:`` asked the tensor for a truth value) and never ran
    ``crf_decoding`` there; the functions compute every batch in dygraph, and
    ``_fluid_crf_decoding`` raises in dygraph as 1.8.5 did. 1.8.5 computed log Z in exp
    space with the transition weights exponentiated unshifted (overflow to inf/nan for a
    weight above about 88 in float32); the function's log-space result is finite there.
    Manual without ``length`` (1.8's LoD form: today's tensors carry no LoD) and when the
    module already uses the function's name.
"""
from __future__ import annotations

import libcst as cst

CODE = "PU101"
STRUCTURAL = ("linear-chain-crf",)
NAMES = {"paddle.fluid.layers.linear_chain_crf": "_fluid_linear_chain_crf",
         "paddle.fluid.layers.crf_decoding": "_fluid_crf_decoding"}
WHAT = {"_fluid_linear_chain_crf": "a function fix adds to the module: 1.8's padded CRF "
                                   "negative log-likelihood with paddle ops",
        "_fluid_crf_decoding": "a function fix adds to the module: 1.8's padded Viterbi "
                               "decoding with paddle ops"}
#: what docs/rules.md and explain show instead of the entry's target
HELPERS = {"linear-chain-crf": "_fluid_linear_chain_crf / _fluid_crf_decoding (functions fix "
                               "adds to the module: 1.8's padded CRF with paddle ops)"}
HELPER_OF = {name: f"{fn} ({WHAT[fn]})" for name, fn in NAMES.items()}

#: the parts both functions share: the lengths, step numbers and the parameter's rows
_PARTS = '''
    lens = paddle.reshape(length, [-1, 1])
    steps = paddle.cumsum(paddle.ones_like(input[:, :, 0], dtype='int64'), axis=1) - 1
    known = input.shape[1] >= 0
    start, end, w = trans[0], trans[1], trans[2:]

    def column(v, t):
        # step t of v [N, T, ...]: t an int, or a [1] tensor in a while_loop
        return v[:, t] if isinstance(t, int) else paddle.squeeze(paddle.gather(v, t, axis=1), 1)
'''

SOURCES = {
    "_fluid_linear_chain_crf": '''def _fluid_linear_chain_crf(input, label, param_attr=None, length=None):
    """Paddle 1.8's fluid.layers.linear_chain_crf in its padded form (input [N, T, D]
    emissions, label [N, T] or [N, T, 1] int64, length [N] or [N, 1] int64): per sequence
    the negative log-likelihood log Z - score(label) of its first length steps, [N, 1] (0
    for length 0). The transition parameter is [D + 2, D] (row 0 start weights, row 1 end
    weights, rows 2.. tag-to-tag weights), named by param_attr or linear_chain_crf_<n>.w_0,
    Xavier uniform unless param_attr says otherwise; in a static program a named
    parameter the program already has is that parameter (with this call's attributes). A
    path scores start[y_0] + sum_t input[t, y_t] + sum_t trans[y_(t-1), y_t] +
    end[y_(len-1)]; log Z sums exp(score) over the paths of the sequence's length
    (forward algorithm). Labels past a sequence's length are not read."""
    import copy
    import paddle
    if length is None:
        raise ValueError('linear_chain_crf without length read LoD sequences, which Paddle 3 '
                         'does not have: pass the padded [N, T, D] input and its lengths')
    prefix = paddle.utils.unique_name.generate('linear_chain_crf')
    n_tags = input.shape[2]
    attr = copy.deepcopy(paddle.ParamAttr._to_attr(param_attr))
    trans = None
    if attr.name is None:
        attr.name = paddle.utils.unique_name.generate(prefix + '.w')
    elif not paddle.in_dynamic_mode():
        # 1.8 kept one parameter per name in a program: the first initializer counts, the
        # last call's attributes (learning rate, regularizer, trainable, ...) hold
        shared = paddle.static.default_main_program().get_parameter_value_by_name(attr.name)
        if shared.initialized():
            trans = shared
            for key, value in attr._to_kwargs().items():
                if key != 'name':
                    setattr(trans, key, value)
            trans.stop_gradient = not attr.trainable
    if trans is None:
        trans = paddle.create_parameter([n_tags + 2, n_tags], input.dtype, attr=attr,
                                        default_initializer=paddle.nn.initializer.XavierUniform())
''' + _PARTS + '''
    def pick(v, index):
        # v's elements (flattened) at index, shaped as index
        flat = paddle.gather(paddle.reshape(v, [-1]), paddle.reshape(index, [-1]))
        return paddle.reshape(flat, paddle.shape(index))

    valid = steps < lens
    tags = paddle.reshape(label, paddle.shape(steps))
    tags = paddle.where(valid, tags, paddle.zeros_like(tags))
    zero = paddle.zeros_like(input[:, :, 0])
    # the labelled path's score
    emit = paddle.squeeze(paddle.take_along_axis(input, paddle.unsqueeze(tags, 2), axis=2), 2)
    score = paddle.sum(paddle.where(valid, emit, zero), axis=1, keepdim=True)
    pair = pick(w, tags[:, :-1] * n_tags + tags[:, 1:])
    score = score + paddle.sum(paddle.where(valid[:, 1:], pair, zero[:, 1:]), axis=1, keepdim=True)
    last = paddle.take_along_axis(tags, paddle.clip(lens - 1, min=0), axis=1)
    score = score + pick(start, tags[:, :1]) + pick(end, last)

    # log Z: the forward algorithm over each sequence's steps
    def forward(t, alpha):
        nxt = paddle.logsumexp(paddle.unsqueeze(alpha, 2) + w, axis=1) + column(input, t)
        return t + 1, paddle.where(lens > t, nxt, alpha)

    t, alpha = 1, start + input[:, 0]
    if known:
        while t < input.shape[1]:
            t, alpha = forward(t, alpha)
    else:
        alpha = paddle.static.nn.while_loop(lambda t, alpha: t < paddle.shape(input)[1], forward,
                                            [paddle.ones([1], 'int64'), alpha])[1]
    log_z = paddle.logsumexp(alpha + end, axis=1, keepdim=True)
    return paddle.where(lens > 0, log_z - score, paddle.zeros_like(log_z))
''',
    "_fluid_crf_decoding": '''def _fluid_crf_decoding(input, param_attr, label=None, length=None):
    """Paddle 1.8's fluid.layers.crf_decoding in its padded form (input [N, T, D]
    emissions, length [N] or [N, 1] int64), in a static program: the Viterbi path [N, T]
    int64 of each sequence's first length steps under the [D + 2, D] transition parameter
    that param_attr names (linear_chain_crf's), 0 past the length (ties go to the first
    tag); with label ([N, T] or [N, T, 1] int64), 1 where the path equals the label, else
    0 (also past the length)."""
    import paddle
    if length is None:
        raise ValueError('crf_decoding without length decoded LoD sequences, which Paddle 3 '
                         'does not have: pass the padded [N, T, D] input and its lengths')
    name = paddle.ParamAttr._to_attr(param_attr).name
    if paddle.in_dynamic_mode():
        raise ValueError('crf_decoding reads the transition parameter %s from the static '
                         'program (Paddle 1.8 raised in dygraph mode too)' % name)
    trans = paddle.static.default_main_program().get_parameter_value_by_name(name)
    if not trans.initialized():
        raise ValueError('var %s not in this block' % name)
''' + _PARTS + '''
    # Viterbi: the best score of the paths ending in each tag, and the tags they came from
    def forward(t, alpha, back):
        scores = paddle.unsqueeze(alpha, 2) + w
        here = paddle.argmax(scores, axis=1)
        nxt = paddle.max(scores, axis=1) + column(input, t)
        if isinstance(back, list):
            back = back + [here]
        else:
            at = paddle.unsqueeze(paddle.cast(steps == t, 'int64'), 2)
            back = back + at * paddle.unsqueeze(here, 1)
        return t + 1, paddle.where(lens > t, nxt, alpha), back

    def backward(t, cur, path):
        # cur: the tag at step t + 1, or the best last tag from the sequence's end on
        came = back[t + 1] if isinstance(t, int) else column(back, t + 1)
        cur = paddle.where(lens - 1 > t, paddle.take_along_axis(came, cur, axis=1), best)
        keep = paddle.where(lens - 1 > t, cur, paddle.zeros_like(cur))
        if isinstance(path, list):
            return t - 1, cur, [keep] + path
        return t - 1, cur, path + paddle.cast(steps == t, 'int64') * keep

    t, alpha = 1, start + input[:, 0]
    if known:
        back = [None]
        while t < input.shape[1]:
            t, alpha, back = forward(t, alpha, back)
    else:
        _, alpha, back = paddle.static.nn.while_loop(
            lambda t, alpha, back: t < paddle.shape(input)[1], forward,
            [paddle.ones([1], 'int64'), alpha, paddle.cast(paddle.zeros_like(input), 'int64')])
    best = paddle.argmax(alpha + end, axis=1, keepdim=True)
    # the best last tag at step length - 1, the steps before it traced back
    path = paddle.where(steps == lens - 1, paddle.expand_as(best, steps), paddle.zeros_like(steps))
    if known:
        t, cur, before = input.shape[1] - 2, best, []
        while t >= 0:
            t, cur, before = backward(t, cur, before)
        path = path + paddle.concat(before + [paddle.zeros_like(best)], axis=1)
    else:
        t = paddle.cast(paddle.shape(input)[1:2], 'int64') - 2
        path = paddle.static.nn.while_loop(lambda t, cur, path: t >= 0, backward,
                                           [t, best, path])[2]
    if label is None:
        return path
    label = paddle.reshape(label, paddle.shape(steps))
    return paddle.cast(paddle.logical_and(path == label, steps < lens), 'int64')
''',
}


def _why_manual(bound) -> str:
    from upgrader.args import code_of, literal
    arg = bound.values.get("length")
    if arg is None or literal(code_of(arg.value)) == ("ok", None):
        return ("without length 1.8 read LoD sequences, which today's tensors do not have: "
                "pass the padded [N, T, D] input with its lengths [N] (the padded form, "
                "rewritten automatically)")
    return ""


def rewrite_call(up, original: cst.Call, updated: cst.Call, entry):
    from upgrader.fixers import call_added_function
    name = NAMES[entry.name]
    return call_added_function(up, original, updated, entry, name, SOURCES[name], WHAT[name],
                               manual_reason=_why_manual)


def finish_module(up, module: cst.Module) -> cst.Module:
    """Add the functions the rewrites call after the module's docstring and imports."""
    from upgrader.fixers import add_used_helpers
    return add_used_helpers(up, module, SOURCES)
