"""``paddle.fluid.layers.metric_op`` (1.8).

Hand-written: ``accuracy``, ``auc`` and ``mean_iou`` (the function ``fix`` adds: per-class
counts from the confusion matrix, ``paddle.bincount``, as the removed op computed them).
``accuracy(correct=, total=)`` fills the given variables with the number of correct and of
all samples (shape [1] int32) as 1.8 did; ``paddle.metric.accuracy`` ignores them in PIR
programs and makes them 0-D in dygraph.

1.8 kept the positive/negative histograms of ``auc`` in four
persistable int64 variables (created zero by the startup program) that each run of the
program updated: the global AUC accumulates over every ``Executor.run``, the batch AUC
covers the last ``slide_steps`` batches (a ring of histograms whose last slot counts the
batches), and it returned ``(auc, batch_auc, [batch_stat_pos, batch_stat_neg, stat_pos,
stat_neg])``. ``paddle.static.auc`` on today's PIR programs starts from zeros at every run
and returns ``(auc, stat_pos, stat_neg)``; here the same ``auc`` kernel runs on
persistable variables and writes its updated histograms back into them, and the AUCs are
read from them (today's static AUC output is typed int64 though it holds a float64). In
dygraph each call starts from zero histograms, as 1.8's did. Everything else comes from the rule
database.
"""
from __future__ import annotations

import paddle

from compat import _lazy
from compat._runtime import legacy

__all__ = ["accuracy", "auc", "mean_iou"]


@legacy("paddle.fluid.layers.accuracy", "paddle.fluid.layers.metric_op.accuracy",
        replacement="paddle.metric.accuracy")
def accuracy(input, label, k=1, correct=None, total=None):
    if correct is None and total is None:
        return paddle.atleast_1d(paddle.metric.accuracy(input, label, k=k))  # 1.x: [1]
    from paddle import _C_ops
    topk_out, topk_indices = paddle.topk(input, k=k)
    acc, num_correct, num_total = _C_ops.accuracy(topk_out, topk_indices, label)
    for src, dst in ((num_correct, correct), (num_total, total)):
        if dst is not None:
            paddle.assign(paddle.reshape(src, [1]), output=dst)
    return paddle.reshape(acc, [1])


@legacy("paddle.fluid.layers.mean_iou", "paddle.fluid.layers.nn.mean_iou",
        replacement="_fluid_mean_iou (per-class counts from paddle.bincount)")
def mean_iou(input, label, num_classes):
    """``(mean_iou [1] float32, out_wrong [num_classes] int32, out_correct [num_classes]
    int32)``: the function ``fix`` adds for it (upgrader/fixers/mean_iou.py)."""
    from compat._added import added
    return added("mean_iou", "_fluid_mean_iou")(input, label, num_classes)


def added_function(name):
    """The function ``fix`` adds to a module under ``name`` for a metric that keeps its
    statistics (upgrader/fixers/metric_state.py), so the two keep one implementation."""
    from compat._added import added
    return added("metric_state", name)


@legacy("paddle.fluid.layers.auc", "paddle.fluid.layers.metric_op.auc",
        replacement="paddle.metric.Auc (accumulated on the host)")
def auc(input, label, curve="ROC", num_thresholds=2 ** 12 - 1, topk=1, slide_steps=1):
    return added_function("_fluid_auc")(input, label, curve, num_thresholds, topk, slide_steps)


_lazy.attach(globals())
