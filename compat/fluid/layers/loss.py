"""``paddle.fluid.layers.loss`` (1.8)."""
from __future__ import annotations

import paddle
import paddle.nn.functional as F

from compat import _lazy
from compat._runtime import legacy, manual_error


@legacy("paddle.fluid.layers.softmax_with_cross_entropy",
        "paddle.fluid.layers.loss.softmax_with_cross_entropy",
        replacement="paddle.nn.functional.cross_entropy(..., reduction='none')")
def softmax_with_cross_entropy(logits, label, soft_label=False, ignore_index=-100,
                               numeric_stable_mode=True, return_softmax=False, axis=-1):
    """Per-sample loss (``axis`` dim of size 1); ``return_softmax`` adds the softmax.

    1.x's op computed the softmax as a side output with no gradient to ``logits``: a loss
    using it only gets no gradient for ``logits``, and ``logits``' gradient is
    ``softmax - label`` whatever else is computed from the softmax. The softmax returned
    here is detached the same way (in dygraph it keeps ``stop_gradient=False`` as in 1.x).
    """
    loss = F.cross_entropy(logits, label, soft_label=soft_label, ignore_index=ignore_index,
                           reduction="none", axis=axis)
    # a negative ignore_index (the default -100): 1.x's kernel subtracted 1 outside the
    # row for such labels (undefined), nothing to reproduce; the term costs a few ops
    if not soft_label and ignore_index >= 0 and \
            not (paddle.in_dynamic_mode() and logits.stop_gradient):
        loss = loss + _ignored_rows_gradient(logits, label, ignore_index, axis)
    if return_softmax:
        softmax = F.softmax(logits, axis=axis).detach()
        if paddle.in_dynamic_mode():
            softmax.stop_gradient = False
        return loss, softmax
    return loss


@legacy("paddle.fluid.layers.sigmoid_cross_entropy_with_logits",
        "paddle.fluid.layers.loss.sigmoid_cross_entropy_with_logits",
        replacement="paddle.nn.functional.binary_cross_entropy_with_logits(..., reduction='none')")
def sigmoid_cross_entropy_with_logits(x, label, ignore_index=-100, name=None, normalize=False):
    """Element-wise loss; elements whose label is ``ignore_index`` get loss and gradient 0,
    ``normalize`` divides by the number of the other elements (0/0 = nan when all are
    ignored, as 1.x). ``pos_weight`` of ones: Paddle 3.3.1's kernel without it gives the
    gradient ``sigmoid(x) - label - 1`` at a logit exactly 0."""
    keep = paddle.cast(label != ignore_index, x.dtype)
    loss = F.binary_cross_entropy_with_logits(x, label * keep, reduction="none",
                                              pos_weight=paddle.ones([1], x.dtype)) * keep
    if normalize:
        loss = loss / paddle.sum(keep)
    return loss


@legacy("paddle.fluid.layers.smooth_l1", "paddle.fluid.layers.nn.smooth_l1",
        replacement="paddle.nn.functional.smooth_l1_loss (summed per sample by hand)")
def smooth_l1(x, y, inside_weight=None, outside_weight=None, sigma=None):
    """The function fix adds (upgrader/fixers/smooth_l1_weights.py): 1.x's smooth_l1_loss
    op, ``d = inside_weight * (x - y)``, element loss ``0.5 * sigma^2 * d^2`` where ``|d| <
    1 / sigma^2`` else ``|d| - 0.5 / sigma^2``, times ``outside_weight``, summed over every
    axis but the first: shape ``[N, 1]``; the weights count only when both are given and
    get no gradient."""
    from compat._added import added
    return added("smooth_l1_weights", "_fluid_smooth_l1")(x, y, inside_weight, outside_weight, sigma)


@legacy("paddle.fluid.layers.rank_loss", "paddle.fluid.layers.loss.rank_loss",
        replacement="paddle.log(1 + paddle.exp(left - right)) - label * (left - right)")
def rank_loss(label, left, right, name=None):
    """The function fix adds (upgrader/fixers/formula_helpers.py): one implementation."""
    from compat._added import added
    return added("formula_helpers", "_fluid_rank_loss")(label, left, right)


@legacy("paddle.fluid.layers.bpr_loss", "paddle.fluid.layers.loss.bpr_loss",
        replacement="paddle.nn.functional.log_sigmoid of the score differences")
def bpr_loss(input, label, name=None):
    """The function fix adds (upgrader/fixers/formula_helpers.py): per row of the last axis,
    the mean over the classes j other than the label of ``log(1 + exp(input[j] -
    input[label]))`` (an overflowing exp counts as 1e20, as 1.8's kernel), shape [..., 1]."""
    from compat._added import added
    return added("formula_helpers", "_fluid_bpr_loss")(input, label)


@legacy("paddle.fluid.layers.edit_distance", "paddle.fluid.layers.loss.edit_distance",
        replacement="the Levenshtein dynamic program with paddle ops on padded batches")
def edit_distance(input, label, normalized=True, ignored_tokens=None, input_length=None,
                  label_length=None):
    """Padded batches with ``input_length``/``label_length`` (the form today's tensors
    have): the function fix adds (upgrader/fixers/ctc_edit_distance.py), ``(distance
    [batch, 1] float32, sequence_num [1] int64)`` in both modes."""
    if ignored_tokens:
        raise manual_error("paddle.fluid.layers.edit_distance",
                           "ignored_tokens erased tokens from LoD sequences (sequence_erase); "
                           "remove them from the padded batch and its lengths first")
    if input_length is None or label_length is None:
        raise manual_error("paddle.fluid.layers.edit_distance",
                           "without input_length/label_length the sequences came from LoD, "
                           "which today's tensors do not have: pass padded batches with lengths")
    from compat._added import added
    return added("ctc_edit_distance", "_fluid_edit_distance")(
        input, label, normalized, None, input_length, label_length)


@legacy("paddle.fluid.layers.teacher_student_sigmoid_loss",
        "paddle.fluid.layers.loss.teacher_student_sigmoid_loss",
        replacement="the formula of the 1.8 documentation with paddle ops")
def teacher_student_sigmoid_loss(input, label, soft_max_up_bound=15.0,
                                 soft_max_lower_bound=-15.0):
    """label -2 / -1: click z = 0 / 1 without teacher; label in [0, 1) / [1, 2]: z = 0 / 1
    and teacher value z' = label / label - 1. Loss ``max(x, 0) - x z + log(1 + exp(-|x|))``
    (+ the same with z' when there is a teacher); the bounds do not change the loss, only
    the gradient, 0 outside ``(soft_max_lower_bound, soft_max_up_bound)`` (1.8.5's op)."""
    from compat.fluid.layers.ops import _with_gradient
    dt = input.dtype
    click = paddle.logical_or(paddle.logical_and(label >= -1, label < 0), label >= 1).astype(dt)
    teacher = (label >= 0).astype(dt)
    soft = (label - (label >= 1).astype(dt)) * teacher

    def term(z):
        return paddle.nn.functional.relu(input) - input * z + paddle.log(1.0 + paddle.exp(-paddle.abs(input)))

    out = term(click) + teacher * term(soft)
    sig = paddle.nn.functional.sigmoid(input)
    inside = paddle.logical_and(input > soft_max_lower_bound, input < soft_max_up_bound).astype(dt)
    return _with_gradient(out, input, ((sig - click) + teacher * (sig - soft)) * inside)


def _ignored_rows_gradient(logits, label, ignore_index, axis):
    """0 in value; its gradient is 1.x's for the rows whose label is ``ignore_index``.

    1.x's loss of such a row was 0 but its gradient to ``logits`` was still ``softmax -
    onehot(label)`` (only ``softmax`` for a label at or above ``classes``);
    ``F.cross_entropy`` gives those rows no gradient. ``term - term.detach()`` is exactly 0
    and carries the gradient of ``logsumexp(logits) - logits[label]`` on the masked rows.
    """
    ax = axis % len(logits.shape)
    if len(label.shape) != len(logits.shape):
        label = paddle.unsqueeze(label, ax)
    classes = logits.shape[ax]
    inside = label >= 0
    if classes is not None and classes > 0:
        inside = paddle.logical_and(inside, label < classes)
    picked = paddle.take_along_axis(logits, paddle.where(inside, label, paddle.zeros_like(label)),
                                    axis=ax)
    picked = picked * paddle.cast(inside, logits.dtype)
    term = paddle.logsumexp(logits, axis=ax, keepdim=True) - picked
    ignored = paddle.cast(label == ignore_index, logits.dtype)
    return (term - term.detach()) * ignored


_lazy.attach(globals())
