"""``paddle.fluid.contrib.mixed_precision`` (1.8): static AMP.

``decorate`` maps to ``paddle.static.amp.decorate`` (same defaults as 1.8) when a GPU
is used. Float16 kernels are GPU-only, as in 1.x; on a CPU the program trains in
float32 (one warning says so) with 1.x's dynamic loss scaling (``_Float32Training``).
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
    """What ``decorate`` gives without a GPU: float32 compute with 1.x's loss scaling.

    1.8.5 had no float16 kernels on a CPU for the white-listed ops, so a 1.x program that
    trains there black-lists them and computes in float32; what ``decorate`` still did
    was the loss scaling: the loss multiplied by the scaling, the gradients unscaled and
    checked, an update skipped when they overflow, and the scaling raised after
    ``incr_every_n_steps`` finite steps in a row (on the next one) and lowered after
    ``decr_every_n_nan_or_inf`` overflowing steps (on the next one). In a static program
    this is ``paddle.static.amp.decorate`` driven by ``paddle.amp.GradScaler`` (whose
    counters act on the n-th step: n + 1 is passed); ``get_loss_scaling()`` is then the
    scaling variable, fetchable every step as in 1.x."""

    def __init__(self, optimizer, amp_lists, init_loss_scaling, incr_every_n_steps,
                 decr_every_n_nan_or_inf, incr_ratio, decr_ratio, use_dynamic_loss_scaling):
        self._optimizer = optimizer
        self._amp_lists = amp_lists
        self._init_loss_scaling = float(init_loss_scaling)
        self._incr_every_n_steps = incr_every_n_steps
        self._decr_every_n_nan_or_inf = decr_every_n_nan_or_inf
        self._incr_ratio = incr_ratio
        self._decr_ratio = decr_ratio
        self._use_dynamic_loss_scaling = use_dynamic_loss_scaling
        self._scaled_loss = None
        self._amp = None

    def get_loss_scaling(self):
        if self._amp is not None:
            return self._amp.get_loss_scaling()
        return self._init_loss_scaling

    def get_scaled_loss(self):
        return self._scaled_loss

    def backward(self, loss, startup_program=None, parameter_list=None, no_grad_set=None,
                 callbacks=None):
        self._scaled_loss = loss
        return self._optimizer.backward(loss, startup_program, parameter_list, no_grad_set, callbacks)

    def apply_gradients(self, params_grads):
        return self._optimizer.apply_gradients(params_grads)

    def minimize(self, loss, startup_program=None, parameter_list=None, no_grad_set=None):
        if paddle.in_dynamic_mode() or not isinstance(loss, paddle.pir.Value):
            self._scaled_loss = loss
            return self._optimizer.minimize(loss, startup_program, parameter_list, no_grad_set)
        from compat.fluid import _pir, clip as _clip
        inner = self._optimizer
        program = _pir.program_of(loss) or paddle.static.default_main_program()
        _pir.mark_forward(program)
        own_clip = getattr(inner, "_legacy_clip", None)
        if hasattr(inner, "_legacy_clip"):
            inner._grad_clip = _clip.clip_for(program, own_clip)
        try:
            amp = paddle.static.amp.decorate(
                inner, amp_lists=self._amp_lists, init_loss_scaling=self._init_loss_scaling,
                use_dynamic_loss_scaling=self._use_dynamic_loss_scaling)
            scaler = paddle.amp.GradScaler(
                init_loss_scaling=self._init_loss_scaling,
                incr_every_n_steps=self._incr_every_n_steps + 1,
                decr_every_n_nan_or_inf=self._decr_every_n_nan_or_inf + 1,
                incr_ratio=self._incr_ratio, decr_ratio=self._decr_ratio,
                use_dynamic_loss_scaling=self._use_dynamic_loss_scaling)
            # GradScaler.scale disables itself unless the AMP state says float16 (which
            # a forward built under paddle.amp.auto_cast leaves behind); the forward of
            # a 1.x program was built without it, in float32
            from paddle.amp.auto_cast import amp_global_state
            state = amp_global_state()
            saved = state.amp_dtype
            state.amp_dtype = "float16"
            try:
                scaled = scaler.scale(loss)
            finally:
                state.amp_dtype = saved
            if not self._use_dynamic_loss_scaling and self._init_loss_scaling != 1.0:
                # a fixed scaling: GradScaler.scale leaves the loss alone, yet the
                # gradients are unscaled by it (1.x scaled the loss by it too)
                scaled = paddle._C_ops.multiply(loss, scaler._scale)
            result = scaler.minimize(amp, scaled, startup_program=startup_program,
                                     parameter_list=parameter_list, no_grad_set=no_grad_set)
        finally:
            if hasattr(inner, "_legacy_clip"):
                inner._grad_clip = own_clip
        self._amp, self._scaled_loss = amp, scaled
        return result

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
        return _Float32Training(optimizer, amp_lists, init_loss_scaling, incr_every_n_steps,
                                decr_every_n_nan_or_inf, incr_ratio, decr_ratio,
                                use_dynamic_loss_scaling)
    return paddle.static.amp.decorate(
        optimizer, amp_lists=amp_lists, init_loss_scaling=init_loss_scaling,
        incr_every_n_steps=incr_every_n_steps, decr_every_n_nan_or_inf=decr_every_n_nan_or_inf,
        incr_ratio=incr_ratio, decr_ratio=decr_ratio,
        use_dynamic_loss_scaling=use_dynamic_loss_scaling)


_lazy.attach(globals())
