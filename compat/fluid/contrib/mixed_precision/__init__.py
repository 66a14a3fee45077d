"""``paddle.fluid.contrib.mixed_precision`` (1.8): static AMP.

``decorate`` maps to ``paddle.static.amp.decorate`` (same defaults as 1.8) when a GPU
is used. Float16 kernels are GPU-only, as in 1.x; on a CPU the program trains in
float32 (one warning says so) and the loss-scaling API keeps working.
"""
from __future__ import annotations

import warnings

import paddle

from compat import DeviceFallbackWarning, _lazy, device
from compat._runtime import legacy

__all__ = ["decorate", "AutoMixedPrecisionLists"]


@legacy("paddle.fluid.contrib.mixed_precision.AutoMixedPrecisionLists",
        "paddle.fluid.contrib.mixed_precision.fp16_lists.AutoMixedPrecisionLists",
        replacement="paddle.static.amp.AutoMixedPrecisionLists")
class AutoMixedPrecisionLists(paddle.static.amp.AutoMixedPrecisionLists):
    def __init__(self, custom_white_list=None, custom_black_list=None, custom_black_varnames=None):
        super().__init__(custom_white_list=custom_white_list, custom_black_list=custom_black_list,
                         custom_black_varnames=custom_black_varnames)


class _Float32Training(object):
    """What ``decorate`` gives without a GPU: the optimizer as is, 1.x accessors kept."""

    def __init__(self, optimizer, init_loss_scaling, use_dynamic_loss_scaling):
        self._optimizer = optimizer
        self._loss_scaling = float(init_loss_scaling)
        self._use_dynamic_loss_scaling = use_dynamic_loss_scaling
        self._scaled_loss = None

    def get_loss_scaling(self):
        return self._loss_scaling

    def get_scaled_loss(self):
        return self._scaled_loss

    def backward(self, loss, startup_program=None, parameter_list=None, no_grad_set=None,
                 callbacks=None):
        self._scaled_loss = loss
        return self._optimizer.backward(loss, startup_program, parameter_list, no_grad_set, callbacks)

    def apply_gradients(self, params_grads):
        return self._optimizer.apply_gradients(params_grads)

    def minimize(self, loss, startup_program=None, parameter_list=None, no_grad_set=None):
        self._scaled_loss = loss
        return self._optimizer.minimize(loss, startup_program, parameter_list, no_grad_set)

    def __getattr__(self, name):
        if name.startswith("_"):
            raise AttributeError(name)
        return getattr(self._optimizer, name)


@legacy("paddle.fluid.contrib.mixed_precision.decorate",
        "paddle.fluid.contrib.mixed_precision.decorator.decorate",
        replacement="paddle.static.amp.decorate")
def decorate(optimizer, amp_lists=None, init_loss_scaling=2 ** 15, incr_every_n_steps=1000,
             decr_every_n_nan_or_inf=2, incr_ratio=2.0, decr_ratio=0.8,
             use_dynamic_loss_scaling=True):
    if device.get_cuda_device_count() == 0 or not paddle.get_device().startswith("gpu"):
        warnings.warn("fluid.contrib.mixed_precision.decorate: float16 training needs a GPU; "
                      "running in float32 on %s" % paddle.get_device(), DeviceFallbackWarning,
                      stacklevel=3)
        return _Float32Training(optimizer, init_loss_scaling, use_dynamic_loss_scaling)
    return paddle.static.amp.decorate(
        optimizer, amp_lists=amp_lists, init_loss_scaling=init_loss_scaling,
        incr_every_n_steps=incr_every_n_steps, decr_every_n_nan_or_inf=decr_every_n_nan_or_inf,
        incr_ratio=incr_ratio, decr_ratio=decr_ratio,
        use_dynamic_loss_scaling=use_dynamic_loss_scaling)


_lazy.attach(globals())
