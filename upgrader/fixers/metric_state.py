"""PU101 metric-state: 1.8's metrics that kept their statistics in persistable variables
(``fluid.layers.auc``, ``fluid.contrib.layers.ctr_metric_bundle``) become functions fix adds
to the module that keep them, so the metrics still accumulate over runs.

What it does
    ``fluid.layers.auc(input, label, curve, num_thresholds, topk, slide_steps)`` becomes
    ``_fluid_auc(...)`` and ``fluid.contrib.layers.ctr_metric_bundle(input, label)``
    becomes ``_fluid_ctr_metric_bundle(input, label)``, with the same arguments (1.8's
    signatures); ``fix`` adds each function once, after the module's imports.

    - ``_fluid_auc`` returns 1.8's ``(auc, batch_auc, [batch_stat_pos, batch_stat_neg,
      stat_pos, stat_neg])``: in a static program the four int64 histograms are
      persistable variables (``_generated_var_N``, zero from the startup program, shapes
      ``[(1 + slide_steps) * (num_thresholds + 1) + 1]`` for the batch ones, ``[1,
      num_thresholds + 1]`` with ``slide_steps=0`` and for the global ones), every run
      adds the batch to them through today's ``auc`` kernel, and the two AUCs ([1]
      float64) are read from the updated histograms as 1.8's kernel computed them
      (trapezoids from the highest bucket down).
    - ``_fluid_ctr_metric_bundle`` returns 1.8's six float32 [1] sums ``(sqrerr, abserr,
      prob, q, pos_num, ins_num)``: sum((input - label)^2), sum(|input - label|),
      sum(input), sum(sigmoid(input)) (1.8 applied the sigmoid to the given
      probabilities), sum(label) and the number of rows, each persistable in a static
      program and added to at every run.

    Code that zeroes the statistics through the scope by name between passes keeps
    working, and a clone of the program (``paddle.static.normalize_program``) continues
    them, as 1.8's clone did. In dynamic mode each call starts from zero, as 1.8's did.

Why is this bad?
    ``paddle.static.auc`` on Paddle 3's default PIR programs starts its statistics from
    zero at every run (the "global" AUC is the current batch's), returns ``(auc,
    stat_pos, stat_neg)``, and types its AUC int64 though it holds a float64 (3.3.1: any
    arithmetic on it fails at run time); ``ctr_metric_bundle`` has no counterpart.
    ``paddle.fluid`` is gone.

Example
    ``auc_var, batch_auc, auc_states = fluid.layers.auc(input=p, label=y, slide_steps=0)``
    → ``auc_var, batch_auc, auc_states = _fluid_auc(input=p, label=y, slide_steps=0)``.

Fix safety
    Safe: the values, shapes and dtypes agree with 1.8.5 over several runs of a static
    program, with statistics zeroed between them (``auc`` with ``slide_steps`` 0, 1 and
    2), and for a call in dynamic mode (the rules' examples; program
    static_rec_auc_metrics for a training program and its clone). Manual when the module
    already uses the function's name for something else.
"""
from __future__ import annotations

import libcst as cst

CODE = "PU101"
STRUCTURAL = ("metric-state",)
NAMES = {"paddle.fluid.layers.auc": "_fluid_auc",
         "paddle.fluid.contrib.ctr_metric_bundle": "_fluid_ctr_metric_bundle"}
WHAT = "a function fix adds to the module: 1.8's persistable metric statistics"
HELPERS = {"metric-state": f"_fluid_auc / _fluid_ctr_metric_bundle ({WHAT})"}
HELPER_OF = {name: f"{fn} ({WHAT})" for name, fn in NAMES.items()}

SOURCES = {
    "_fluid_auc": '''def _fluid_auc(input, label, curve='ROC', num_thresholds=4095, topk=1, slide_steps=1):
    """Paddle 1.8's fluid.layers.auc: returns (auc, batch_auc, [batch_stat_pos,
    batch_stat_neg, stat_pos, stat_neg]). In a static program the four int64 histograms
    are persistable variables (zero from the startup program) that every run adds to, so
    auc covers all runs and batch_auc the last slide_steps runs; in dynamic mode each call
    starts from zero. Today's auc kernel updates the histograms and the AUC is read from
    them as 1.8 computed it (trapezoids from the highest bucket down): Paddle 3's static
    auc output is typed int64 though it holds a float64."""
    import paddle
    from paddle import _C_ops
    buckets = num_thresholds + 1
    batch_shape = [(1 + slide_steps) * buckets + 1] if slide_steps else [1, buckets]
    shapes = [batch_shape, batch_shape, [1, buckets], [1, buckets]]
    static = not paddle.in_dynamic_mode()
    if static:
        stats = [paddle.pir.core.create_persistable_value(
            'int64', s, paddle.utils.unique_name.generate('_generated_var'),
            initializer=paddle.nn.initializer.Constant(0)) for s in shapes]
    else:
        stats = [paddle.zeros(s, 'int64') for s in shapes]
    if label.dtype != paddle.int64:
        label = paddle.cast(label, 'int64')
    weight = paddle.full([1, 1], 1.0, 'float32')
    new = []
    for pos, neg, steps in ((stats[0], stats[1], slide_steps), (stats[2], stats[3], 0)):
        new += _C_ops.auc(input, label, pos, neg, weight, curve, num_thresholds, steps)[1:]
    if static:
        new = [paddle.assign(src, output=dst) for src, dst in zip(new, stats)]
    else:
        stats = new

    def area(pos, neg, start):
        pos, neg = [paddle.cumsum(paddle.flip(paddle.reshape(h, [-1])[start:start + buckets]
                                              .astype('float64'), [0]), 0) for h in (pos, neg)]
        zero = paddle.zeros([1], 'float64')
        pos_prev, neg_prev = paddle.concat([zero, pos[:-1]]), paddle.concat([zero, neg[:-1]])
        total = paddle.sum(paddle.abs(neg - neg_prev) * (pos + pos_prev) / 2.0, keepdim=True)
        return total / paddle.clip(pos[-1:], min=1.0) / paddle.clip(neg[-1:], min=1.0)

    return area(new[2], new[3], 0), area(new[0], new[1], slide_steps * buckets), stats
''',
    "_fluid_ctr_metric_bundle": '''def _fluid_ctr_metric_bundle(input, label):
    """Paddle 1.8's fluid.contrib.layers.ctr_metric_bundle: the float32 [1] sums (sqrerr,
    abserr, prob, q, pos_num, ins_num) of (input - label)^2, |input - label|, input,
    sigmoid(input), label and the rows. In a static program each is a persistable
    variable (zero from the startup program) that every run adds to; in dynamic mode
    each call starts from zero."""
    import paddle
    diff = input - label
    batch = [paddle.sum(paddle.abs(diff)), paddle.sum(paddle.square(diff)), paddle.sum(input),
             paddle.sum(paddle.nn.functional.sigmoid(input)), paddle.sum(label),
             paddle.cast(paddle.shape(label)[0], 'float32')]
    sums = [paddle.reshape(v, [1]) for v in batch]
    if not paddle.in_dynamic_mode():
        sums = [paddle.pir.core.create_persistable_value(
            'float32', [1], paddle.utils.unique_name.generate('_generated_var'),
            initializer=paddle.nn.initializer.Constant(0.0)) for _ in batch]
        for v, total in zip(batch, sums):
            paddle.assign(paddle.reshape(v, [1]) + total, output=total)
    abserr, sqrerr, prob, q, pos_num, ins_num = sums
    return sqrerr, abserr, prob, q, pos_num, ins_num
''',
}


def rewrite_call(up, original: cst.Call, updated: cst.Call, entry):
    from upgrader.fixers import call_added_function
    name = NAMES[entry.name]
    return call_added_function(up, original, updated, entry, name, SOURCES[name], WHAT)


def finish_module(up, module: cst.Module) -> cst.Module:
    """Add the functions the rewrites call after the module's docstring and imports."""
    from upgrader.fixers import add_used_helpers
    return add_used_helpers(up, module, SOURCES)
