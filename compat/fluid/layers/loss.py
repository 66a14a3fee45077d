"""``paddle.fluid.layers.loss`` (1.8)."""
from __future__ import annotations

import paddle
import paddle.nn.functional as F

from compat import _lazy
from compat._runtime import legacy


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
    if not soft_label and not (paddle.in_dynamic_mode() and logits.stop_gradient):
        loss = loss + _ignored_rows_gradient(logits, label, ignore_index, axis)
    if return_softmax:
        softmax = F.softmax(logits, axis=axis).detach()
        if paddle.in_dynamic_mode():
            softmax.stop_gradient = False
        return loss, softmax
    return loss


def _ignored_rows_gradient(logits, label, ignore_index, axis):
    """0 in value; its gradient is 1.x's for the rows whose label is ``ignore_index``.

    1.x's loss of such a row was 0 but its gradient to ``logits`` was still ``softmax -
    onehot(label)`` (only ``softmax`` for a label outside ``[0, classes)``);
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
