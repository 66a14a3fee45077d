"""1.x ``fluid.optimizer.ExponentialMovingAverage`` on Paddle 3's static (PIR) programs.

``paddle.static.ExponentialMovingAverage`` fails there (3.3.1: TypeError in its
constructor), so this is 1.8.5's class (``fluid/optimizer.py``) rebuilt on today's ops:

* the constructor takes the parameters of the default main program (1.x's
  ``all_parameters()``: batch-norm statistics included) and gives each a persistable
  shadow ``<name>_ema_<n>`` initialized to 0;
* ``update()`` appends, to the current main program, an increment of the persistable
  ``@EMA_STEP_COUNTER@`` and ``ema = ema * decay + param * (1 - decay)`` per parameter, in
  float32 as 1.8 did;
* ``apply(executor)`` / ``restore(executor)`` did nothing but assignments in 1.8 (its
  ``apply_program`` and ``restore_program``), so they are done on the scope's tensors:
  the parameter is saved, the shadow divided by ``1 - decay ** t`` when ``t > 0`` (and,
  as in 1.8, written back into the shadow itself), and copied into the parameter;
  ``restore`` puts the saved values back.

``thres_steps`` (a decay scheduled by a step variable) is not rebuilt: it raises
``compat.LegacyAPIError`` with the rule's migration.
"""
from __future__ import annotations

import contextlib

import numpy as np
import paddle

from compat._runtime import legacy, manual_error

_COUNTER = "@EMA_STEP_COUNTER@"


@legacy("paddle.fluid.optimizer.ExponentialMovingAverage",
        replacement="(no PIR counterpart: see `paddle-upgrade explain "
                    "fluid.optimizer.ExponentialMovingAverage`)")
class ExponentialMovingAverage(object):
    def __init__(self, decay=0.999, thres_steps=None, name=None):
        if paddle.in_dynamic_mode():
            raise Exception("In dygraph, don't support ExponentialMovingAverage.")
        if thres_steps is not None:
            raise manual_error("paddle.fluid.optimizer.ExponentialMovingAverage",
                               "thres_steps (a decay scheduled by a step variable) is not "
                               "supported by compat")
        from compat.fluid.layers.tensor import create_global_var
        self._decay = float(decay)
        self._name = name if name is not None else ""
        program = paddle.static.default_main_program()
        self._params = [p for p in program.global_block().all_parameters()
                        if getattr(p, "do_model_average", None) is not False]
        self._emas = []
        for p in self._params:
            ema = create_global_var(shape=list(p.shape), value=0.0, dtype=_dtype(p),
                                    persistable=True,
                                    name=paddle.utils.unique_name.generate(
                                        self._name + p.name + "_ema"))
            self._emas.append((p, ema))
        self._counter = None
        self._saved = {}

    def update(self):
        """Append the shadow updates (and the step counter's increment) to the current main
        program, after the optimizer's ops as 1.8 did."""
        from compat.fluid.layers.tensor import create_global_var
        counter = create_global_var(shape=[1], value=0, dtype="int64", persistable=True,
                                    name=_COUNTER)
        paddle.increment(counter, 1.0)
        self._counter = counter
        decay = paddle.full([1], self._decay, dtype="float32")
        for p, ema in self._emas:
            d = decay if _dtype(p) == "float32" else paddle.cast(decay, p.dtype)
            paddle.assign(ema * d + p * (1.0 - d), output=ema)

    @contextlib.contextmanager
    def apply(self, executor, need_restore=True):
        """Evaluate with the bias-corrected shadows in the parameters (1.8's apply_program);
        restore the parameters on exit unless ``need_restore`` is False."""
        scope = paddle.static.global_scope()
        place = getattr(executor, "place", None) or paddle.CPUPlace()
        var = scope.find_var(_COUNTER)
        t = int(np.array(var.get_tensor()).reshape(-1)[0]) if var is not None else 0
        decay_pow = np.power(np.float32(self._decay), np.float32(t), dtype=np.float32)
        self._saved = {}
        for p, ema in self._emas:
            p_tensor = scope.find_var(p.name).get_tensor()
            e_tensor = scope.find_var(ema.name).get_tensor()
            self._saved[p.name] = np.array(p_tensor).copy()
            value = np.array(e_tensor)
            if t > 0:
                value = (value / (np.float32(1.0) - decay_pow)).astype(value.dtype)
                e_tensor.set(value, place)
            p_tensor.set(value, place)
        try:
            yield
        finally:
            if need_restore:
                self.restore(executor)

    def restore(self, executor):
        """Put back the parameters saved by the last ``apply`` (1.8's restore_program)."""
        scope = paddle.static.global_scope()
        place = getattr(executor, "place", None) or paddle.CPUPlace()
        for name, value in self._saved.items():
            scope.find_var(name).get_tensor().set(value, place)


def _dtype(value) -> str:
    return {paddle.float32: "float32", paddle.float64: "float64",
            paddle.float16: "float16"}.get(value.dtype, "float32")
