"""``paddle.fluid.backward`` (1.8): ``append_backward``, ``gradients``."""
from __future__ import annotations

import paddle

from compat import _lazy
from compat._runtime import legacy


@legacy("paddle.fluid.backward.append_backward", "paddle.fluid.append_backward",
        replacement="paddle.static.append_backward")
def append_backward(loss, parameter_list=None, no_grad_set=None, callbacks=None, checkpoints=None):
    return paddle.static.append_backward(loss, parameter_list=parameter_list,
                                         no_grad_set=no_grad_set, callbacks=callbacks)


@legacy("paddle.fluid.backward.gradients", "paddle.fluid.gradients",
        replacement="paddle.static.gradients")
def gradients(targets, inputs, target_gradients=None, no_grad_set=None):
    return paddle.static.gradients(targets, inputs, target_gradients=target_gradients,
                                   no_grad_set=no_grad_set)


_lazy.attach(globals())
