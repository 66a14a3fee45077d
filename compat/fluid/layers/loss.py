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
    if return_softmax:
        softmax = F.softmax(logits, axis=axis).detach()
        if paddle.in_dynamic_mode():
            softmax.stop_gradient = False
        return loss, softmax
    return loss


_lazy.attach(globals())
