"""PU101 ctc-edit-distance: ``fluid.layers.ctc_greedy_decoder`` in its padded form and
``fluid.layers.edit_distance`` on padded batches with lengths become functions fix adds to
the module, built from ``paddle`` ops, so that they run in dynamic mode and inside static
(PIR) programs.

What it does
    ``fluid.layers.ctc_greedy_decoder(input, blank, input_length=lengths)`` becomes
    ``_fluid_ctc_greedy_decoder(input, blank, input_length=lengths)`` and
    ``fluid.layers.edit_distance(hyps, refs, ..., input_length=a, label_length=b)``
    becomes ``_fluid_edit_distance(hyps, refs, ..., input_length=a, label_length=b)``:
    the same arguments (1.8's signatures), the functions added once after the module's
    imports.

    - ``_fluid_ctc_greedy_decoder``: the best class of each step (``paddle.argmax``, the
      first of tied maxima, as 1.8's ``topk(k=1)``); of the steps before the row's length,
      those whose class is not the blank and differs from the previous step's class (a
      blank step counts as a previous step: ``a, blank, a`` gives ``a, a``) are packed to
      the left (``paddle.put_along_axis``), the rest of the row is ``padding_value``.
      Returns ``(output [batch, T] int64, output_length [batch, 1] int64)``, as 1.8's
      ``ctc_align`` op did.
    - ``_fluid_edit_distance``: the Levenshtein distance of each row's first
      ``input_length`` tokens to its first ``label_length`` tokens, divided by the label
      length when ``normalized``; returns ``(distance float32 [batch, 1], sequence_num
      int64 [1])``. The dynamic program runs one input step at a time over the whole
      batch (a Python loop in dynamic mode, ``paddle.static.nn.while_loop`` in static
      programs, so the input's width may be unknown); within a row the running minimum
      ``paddle.cummin`` resolves the insertions. Integer arithmetic: the distances are
      exact.

Why is this bad?
    Paddle 3 has no public function for either. ``paddle.nn.functional.loss.edit_distance``
    (not exported) returns ``(sequence_num, distance)``, the reverse of 1.8's order, and
    raises TypeError in PIR programs (checked on 3.3.1); ``paddle.static.py_func`` raises
    TypeError there too.

Example
    ``out, out_len = fluid.layers.ctc_greedy_decoder(probs, blank=4, input_length=lens)`` →
    ``out, out_len = _fluid_ctc_greedy_decoder(probs, blank=4, input_length=lens)``.

Fix safety
    Safe: values, shapes and dtypes agree with 1.8.5 in both modes (the rules' examples:
    ties, all-blank rows, zero lengths, normalized or not, empty hypotheses). Manual
    when the call has no lengths (1.8's LoD form: today's tensors carry no LoD), when
    ``edit_distance`` gets ``ignored_tokens`` (1.8 erased them with ``sequence_erase``,
    which needed LoD sequences: 1.8.5 raised for padded inputs), or when the module
    already uses the function's name. 1.8.5 raised for a label of length 0 with
    ``normalized=True``; the function divides by 0 there (inf, or nan for two empty
    sequences).
"""
from __future__ import annotations

import libcst as cst

CODE = "PU101"
STRUCTURAL = ("ctc-edit-distance",)
NAMES = {"paddle.fluid.layers.ctc_greedy_decoder": "_fluid_ctc_greedy_decoder",
         "paddle.fluid.layers.edit_distance": "_fluid_edit_distance"}
WHAT = {"_fluid_ctc_greedy_decoder": "a function fix adds to the module: 1.8's padded CTC "
                                     "greedy decoding with paddle ops",
        "_fluid_edit_distance": "a function fix adds to the module: 1.8's padded edit "
                                "distance with paddle ops"}
#: what docs/rules.md and explain show instead of the entry's target
HELPERS = {"ctc-edit-distance": "_fluid_ctc_greedy_decoder / _fluid_edit_distance (functions "
                                "fix adds to the module: 1.8's padded forms with paddle ops)"}
HELPER_OF = {name: f"{fn} ({WHAT[fn]})" for name, fn in NAMES.items()}

SOURCES = {
    "_fluid_ctc_greedy_decoder": '''def _fluid_ctc_greedy_decoder(input, blank, input_length=None, padding_value=0, name=None):
    """Paddle 1.8's fluid.layers.ctc_greedy_decoder in its padded form (input [batch, T,
    classes], input_length [batch, 1] int64): per row, the best class of each step (the
    first of tied maxima); of the steps before the row's length, those whose class is not
    the blank and differs from the previous step's (a blank step included) are packed to
    the left, the rest of the row is padding_value. Returns (output [batch, T] int64,
    output_length [batch, 1] int64)."""
    import paddle
    if input_length is None:
        raise ValueError('ctc_greedy_decoder without input_length decoded LoD sequences, which '
                         'Paddle 3 does not have: pass the padded input and its lengths')
    ids = paddle.argmax(input, axis=-1)
    length = paddle.reshape(paddle.cast(input_length, 'int64'), [-1, 1])
    prev = paddle.concat([paddle.full_like(ids[:, :1], -1), ids[:, :-1]], axis=1)
    step = paddle.cumsum(paddle.ones_like(ids), axis=1) - 1
    keep = paddle.logical_and(paddle.logical_and(ids != blank, ids != prev), step < length)
    kept = paddle.cast(keep, 'int64')
    # the kept steps go to their rank among the kept ones, the others to a spare column T
    spare = step[:, -1:] + 1
    position = spare + (paddle.cumsum(kept, axis=1) - 1 - spare) * kept
    out = paddle.full_like(paddle.concat([ids, ids[:, :1]], axis=1), padding_value)
    out = paddle.put_along_axis(out, position, ids, axis=1, reduce='assign')
    return out[:, :-1], paddle.sum(kept, axis=1, keepdim=True)
''',
    "_fluid_edit_distance": '''def _fluid_edit_distance(input, label, normalized=True, ignored_tokens=None, input_length=None,
                         label_length=None):
    """Paddle 1.8's fluid.layers.edit_distance on padded batches (input [batch, H] and
    label [batch, R] int64, input_length and label_length [batch] int64): the Levenshtein
    distance of each row's first input_length tokens to its first label_length tokens
    (insertions, deletions and substitutions cost 1), divided by the label length when
    normalized (1.8 raised for an empty label there); returns (distance float32 [batch, 1],
    sequence_num int64 [1], the batch size). The dynamic program's rows come one input
    step at a time, all rows of the batch at once; within a row, cur[j] = min(up[j],
    cur[j - 1] + 1) is a running minimum of up[k] + j - k (cummin). Row i is kept where
    i is the input's length; the answer is its column label_length."""
    import paddle
    if ignored_tokens:
        raise ValueError('edit_distance: ignored_tokens erased tokens from LoD sequences '
                         '(Paddle 1.8 raised for padded inputs with lengths)')
    if input_length is None or label_length is None:
        raise ValueError('edit_distance without input_length and label_length compared LoD '
                         'sequences, which Paddle 3 does not have: pass padded batches and '
                         'their lengths')
    hyp_len = paddle.reshape(paddle.cast(input_length, 'int64'), [-1, 1])
    ref_len = paddle.reshape(paddle.cast(label_length, 'int64'), [-1, 1])
    # the column numbers 0 .. R of the dynamic program's rows, [batch, R + 1]
    cols = paddle.concat([label[:, :1], label], axis=1)
    cols = paddle.cumsum(paddle.ones_like(cols), axis=1) - 1

    def next_row(i, prev, found):
        token = paddle.gather(input, i - 1, axis=1)
        cost = paddle.cast(token != label, 'int64')
        best = paddle.minimum(prev[:, :-1] + cost, prev[:, 1:] + 1)
        cur = paddle.concat([paddle.zeros_like(hyp_len) + i, best], axis=1)
        cur = paddle.cummin(cur - cols, axis=1)[0] + cols
        return i + 1, cur, found + (cur - found) * paddle.cast(hyp_len == i, 'int64')

    i = paddle.ones([1], 'int64')
    if paddle.in_dynamic_mode():
        prev = found = cols
        for _ in range(input.shape[1]):
            i, prev, found = next_row(i, prev, found)
    else:
        steps = paddle.cast(paddle.shape(input)[1:2], 'int64')
        _, _, found = paddle.static.nn.while_loop(
            lambda i, prev, found: i <= steps, next_row, [i, cols, cols])
    distance = paddle.cast(paddle.take_along_axis(found, ref_len, axis=1), 'float32')
    if normalized:
        distance = distance / paddle.cast(ref_len, 'float32')
    return distance, paddle.sum(paddle.ones_like(hyp_len), axis=0)
''',
}


def _absent(bound, name: str) -> bool:
    """The argument is not passed, or passed as the literal None."""
    from upgrader.args import code_of, literal
    arg = bound.values.get(name)
    return arg is None or literal(code_of(arg.value)) == ("ok", None)


def _why_manual(entry, bound) -> str:
    from upgrader.args import code_of, literal
    if entry.name == "paddle.fluid.layers.ctc_greedy_decoder":
        if _absent(bound, "input_length"):
            return ("without input_length 1.8 decoded LoD sequences into a LoDTensor, which "
                    "today's tensors do not have: pass the padded [batch, T, classes] input "
                    "with its lengths [batch, 1] (the padded form, rewritten automatically)")
        return ""
    if _absent(bound, "input_length") or _absent(bound, "label_length"):
        return ("without input_length and label_length 1.8 compared LoD sequences, which "
                "today's tensors do not have: pass padded batches with their lengths [batch] "
                "(the padded form, rewritten automatically)")
    tokens = bound.values.get("ignored_tokens")
    if tokens is not None:
        kind, value = literal(code_of(tokens.value))
        if not (kind == "ok" and not value):
            return ("ignored_tokens: 1.8 erased them with sequence_erase, which needed LoD "
                    "sequences (1.8.5 raised for padded inputs with lengths); remove the tokens "
                    "from the padded rows and shorten their lengths by hand")
    return ""


def rewrite_call(up, original: cst.Call, updated: cst.Call, entry):
    from upgrader.fixers import call_added_function
    name = NAMES[entry.name]
    return call_added_function(up, original, updated, entry, name, SOURCES[name], WHAT[name],
                               manual_reason=lambda bound: _why_manual(entry, bound))


def finish_module(up, module: cst.Module) -> cst.Module:
    """Add the functions the rewrites call after the module's docstring and imports."""
    from upgrader.fixers import add_used_helpers
    return add_used_helpers(up, module, SOURCES)
