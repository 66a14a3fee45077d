"""``paddle.fluid.layers.loss`` (1.8)."""
from __future__ import annotations

import paddle.nn.functional as F

from compat import _lazy
from compat._runtime import legacy


@legacy("paddle.fluid.layers.softmax_with_cross_entropy",
        "paddle.fluid.layers.loss.softmax_with_cross_entropy",
        replacement="paddle.nn.functional.cross_entropy(..., reduction='none')")
def softmax_with_cross_entropy(logits, label, soft_label=False, ignore_index=-100,
                               numeric_stable_mode=True, return_softmax=False, axis=-1):
    """Per-sample loss (``axis`` dim of size 1); ``return_softmax`` adds the softmax."""
    loss = F.cross_entropy(logits, label, soft_label=soft_label, ignore_index=ignore_index,
                           reduction="none", axis=axis)
    if return_softmax:
        return loss, F.softmax(logits, axis=axis)
    return loss


_lazy.attach(globals())
