"""1.x learning-rate decay, static functions and dygraph classes, with 1.x stepping.

Paddle 1.x advanced a decay by itself:

- static (``fluid.layers.exponential_decay`` ...): an auto-incremented global step,
  0 on the first ``Executor.run`` (1 for ``noam_decay``), +1 per run of the program
  whose optimizer uses it;
- dygraph (``fluid.dygraph.ExponentialDecay`` ...): ``step_num`` starts at ``begin`` and
  advances by ``step`` at every ``optimizer.minimize``; ``StepDecay``,
  ``MultiStepDecay``, ``LambdaDecay`` and ``ReduceLROnPlateau`` only move on
  ``epoch()`` / ``step(loss)``.

Today's schedulers (``paddle.optimizer.lr.*``) only move on an explicit
``scheduler.step()``. The classes here are ``LRScheduler`` subclasses (so today's
optimizers and executor read them) that keep the 1.x formulas and the 1.x stepping:
the compat ``Executor`` steps a static decay after each run of its program, the compat
optimizers step a dygraph decay at each ``minimize``.
"""
from __future__ import annotations

import math

import paddle

from compat import _lazy
from compat._added import added
from compat._runtime import legacy, quiet

__all__ = ["exponential_decay", "natural_exp_decay", "inverse_time_decay",
           "polynomial_decay", "piecewise_decay", "noam_decay", "cosine_decay",
           "linear_lr_warmup", "LegacyDecay", "LearningRateDecay", "PiecewiseDecay",
           "NaturalExpDecay", "ExponentialDecay", "InverseTimeDecay", "PolynomialDecay",
           "CosineDecay", "NoamDecay", "LinearLrWarmup", "ReduceLROnPlateau", "StepDecay",
           "MultiStepDecay", "LambdaDecay", "graph_value"]


def _f(x):
    """float32 rounding, as 1.x computed learning rates in float32 tensors."""
    import numpy as np
    return float(np.float32(x))


#: 1.x ``fluid.dygraph.LearningRateDecay``, the base users subclass: the class ``fix`` adds
#: for it (upgrader/fixers/lr_decay_base.py), an LRScheduler with 1.x's step()/step_num
#: protocol that advances each time an optimizer takes its rate.
LearningRateDecay = added("lr_decay_base", "_FluidLearningRateDecay")


def _fluid(name):
    """1.x's dygraph decay ``name`` as the class ``fix`` adds for it
    (upgrader/fixers/lr_decay_classes.py): its formula (``step()``, an epoch decay's
    ``get_lr()``, ``ReduceLROnPlateau.step(loss)``), attributes and state, which compat's
    decays inherit."""
    return added("lr_decay_classes", name)


class LegacyDecay(LearningRateDecay):
    """Base of compat's 1.x built-in decays (instances of ``LearningRateDecay`` as in 1.x),
    put in front of the class ``fix`` adds for each (``_fluid``), whose ``__init__`` and
    formula they use: the compat optimizers and executor step them explicitly
    (``consume``, ``advance``) and read the rate they keep (``last_lr``)."""

    def _legacy_init(self):
        """After the 1.x ``__init__``: compat's own state and the first rate."""
        self.__dict__.setdefault("verbose", False)
        self.last_epoch = 0
        self._var_name = None
        self._static = not paddle.in_dynamic_mode()
        self._used = None
        self._ready()

    def _ready(self):
        if type(self).step is LearningRateDecay.step:
            # the bare base class: 1.8.5 builds it and fails only when the rate is asked for
            self.base_lr = self.last_lr = 0.0
            return
        if type(self).__module__ != __name__:
            # a user's subclass sets the attributes its step() reads after calling
            # LearningRateDecay.__init__ (1.8.5 read step() only when the rate was used):
            # the first rate is computed when it is first asked for (__getattr__)
            self.__dict__["_lazy_rate"] = True
            return
        self.base_lr = self.last_lr = self._rate()

    def __getattr__(self, name):
        if name in ("base_lr", "last_lr") and self.__dict__.pop("_lazy_rate", False):
            self.base_lr = self.last_lr = self._rate()
            return self.__dict__[name]
        raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")

    def _rate(self):
        """The rate at the current state, a float (1.x ``step()``'s value)."""
        return float(self.step())

    # 1.x protocol ---------------------------------------------------------------
    def create_lr_var(self, lr):
        """1.x made a [1] float tensor of the rate, which subclasses' step() combined with
        layers ops (``layers.elementwise_min(a, b)`` in transformer warmups); a static
        decay computes its rates in Python."""
        if paddle.in_dynamic_mode():
            return paddle.full([1], float(lr), self.dtype)
        return float(lr)

    def state_keys(self):
        self._state_keys()

    def set_dict(self, state_dict):
        super().set_dict(state_dict)
        self.last_lr = self._rate()

    set_state_dict = set_dict

    # today's protocol -------------------------------------------------------------
    def __call__(self):
        if self.__dict__.get("_counted"):
            # the executor asks the last minimized optimizer's decay of a program for its
            # rate before each run: every static decay reads the counter of its program
            scope = paddle.static.global_scope()
            for decay in _COUNTED:
                if decay is not self:
                    decay._refresh(scope)
            self._sync(scope)
        return self.last_lr

    def _sync(self, scope):
        """A static decay's rate at the next run: 1.x's step is the program's counter
        '@LR_DECAY_COUNTER@' after the increment that run begins with."""
        var = scope.find_var(COUNTER)
        if var is not None and var.get_tensor()._is_initialized():
            import numpy as np
            self.step_num = int(np.array(var.get_tensor()).reshape(-1)[0]) + self.step_size
            self.last_lr = self._rate()
        return self.last_lr

    def _refresh(self, scope):
        """The variable today's optimizer reads this decay's rate from, set for the next
        run (the executor sets only the one of the program's last minimized optimizer)."""
        name = self._var_name
        var = scope.find_var(name) if name else None
        if var is not None and var.get_tensor()._is_initialized():
            import numpy as np
            tensor = var.get_tensor()
            value = np.array(tensor)
            tensor.set(np.full(value.shape, self._sync(scope), value.dtype), paddle.CPUPlace())

    # stepping -----------------------------------------------------------------------
    def consume(self):
        """An optimizer step used the current rate (1.x ``LearningRateDecay.__call__``)."""
        lr = self._rate()
        self._used = lr
        self.last_lr = lr
        self.step_num += self.step_size
        return lr

    def advance(self):
        """A run of the static program that uses this decay finished (a decay that reads
        its program's step counter follows the counter instead)."""
        if self.__dict__.get("_counted"):
            return
        self.step_num += self.step_size
        self.last_lr = self._rate()

    def current(self):
        """The rate of the last step, else :meth:`peek`."""
        return self._used if self._used is not None else self.peek()

    def peek(self):
        """``current_step_lr()`` of an optimizer that has not stepped yet: 1.x's
        ``step()``, a float as it is, a variable's value (a numpy float32)."""
        lr = self.step()
        if isinstance(lr, (float, int)):
            return lr
        import numpy as np
        return np.float32(float(lr))


@legacy("paddle.fluid.dygraph.PiecewiseDecay", "paddle.fluid.dygraph.learning_rate_scheduler.PiecewiseDecay",
        replacement="paddle.optimizer.lr.PiecewiseDecay + scheduler.step() per iteration")
class PiecewiseDecay(LegacyDecay, _fluid("_FluidPiecewiseDecay")):
    def __init__(self, boundaries, values, begin, step=1, dtype="float32"):
        super().__init__(boundaries, values, begin, step, dtype)
        self._legacy_init()


@legacy("paddle.fluid.dygraph.NaturalExpDecay", "paddle.fluid.dygraph.learning_rate_scheduler.NaturalExpDecay",
        replacement="paddle.optimizer.lr.NaturalExpDecay + scheduler.step() per iteration")
class NaturalExpDecay(LegacyDecay, _fluid("_FluidNaturalExpDecay")):
    def __init__(self, learning_rate, decay_steps, decay_rate, staircase=False, begin=0,
                 step=1, dtype="float32"):
        super().__init__(learning_rate, decay_steps, decay_rate, staircase, begin, step, dtype)
        self._legacy_init()


@legacy("paddle.fluid.dygraph.ExponentialDecay", "paddle.fluid.dygraph.learning_rate_scheduler.ExponentialDecay",
        replacement="paddle.optimizer.lr.ExponentialDecay + scheduler.step() per iteration")
class ExponentialDecay(LegacyDecay, _fluid("_FluidExponentialDecay")):
    def __init__(self, learning_rate, decay_steps, decay_rate, staircase=False, begin=0,
                 step=1, dtype="float32"):
        super().__init__(learning_rate, decay_steps, decay_rate, staircase, begin, step, dtype)
        self._legacy_init()


@legacy("paddle.fluid.dygraph.InverseTimeDecay", "paddle.fluid.dygraph.learning_rate_scheduler.InverseTimeDecay",
        replacement="paddle.optimizer.lr.InverseTimeDecay + scheduler.step() per iteration")
class InverseTimeDecay(LegacyDecay, _fluid("_FluidInverseTimeDecay")):
    def __init__(self, learning_rate, decay_steps, decay_rate, staircase=False, begin=0,
                 step=1, dtype="float32"):
        super().__init__(learning_rate, decay_steps, decay_rate, staircase, begin, step, dtype)
        self._legacy_init()


@legacy("paddle.fluid.dygraph.PolynomialDecay", "paddle.fluid.dygraph.learning_rate_scheduler.PolynomialDecay",
        replacement="paddle.optimizer.lr.PolynomialDecay + scheduler.step() per iteration")
class PolynomialDecay(LegacyDecay, _fluid("_FluidPolynomialDecay")):
    def __init__(self, learning_rate, decay_steps, end_learning_rate=0.0001, power=1.0,
                 cycle=False, begin=0, step=1, dtype="float32"):
        super().__init__(learning_rate, decay_steps, end_learning_rate, power, cycle, begin,
                         step, dtype)
        self._legacy_init()


@legacy("paddle.fluid.dygraph.CosineDecay", "paddle.fluid.dygraph.learning_rate_scheduler.CosineDecay",
        replacement="paddle.optimizer.lr.CosineAnnealingDecay (stepped per epoch)")
class CosineDecay(LegacyDecay, _fluid("_FluidCosineDecay")):
    def __init__(self, learning_rate, step_each_epoch, epochs, begin=0, step=1, dtype="float32"):
        super().__init__(learning_rate, step_each_epoch, epochs, begin, step, dtype)
        self._legacy_init()


@legacy("paddle.fluid.dygraph.NoamDecay", "paddle.fluid.dygraph.learning_rate_scheduler.NoamDecay",
        replacement="paddle.optimizer.lr.NoamDecay + scheduler.step() per iteration")
class NoamDecay(LegacyDecay, _fluid("_FluidNoamDecay")):
    def __init__(self, d_model, warmup_steps, begin=1, step=1, dtype="float32", learning_rate=1.0):
        super().__init__(d_model, warmup_steps, begin, step, dtype, learning_rate)
        self._legacy_init()

    def step(self):
        if self.step_num == 0 and self.__dict__.get("_static"):
            # 1.x's static graph at step 0 (a counter another decay started at 0): there
            # 0 ** -0.5 is inf and the min takes warmup_steps ** -1.5 * 0; the dygraph
            # class raises ZeroDivisionError, as 1.x's did
            return self.create_lr_var(0.0)
        return super().step()


@legacy("paddle.fluid.dygraph.LinearLrWarmup", "paddle.fluid.dygraph.learning_rate_scheduler.LinearLrWarmup",
        replacement="paddle.optimizer.lr.LinearWarmup + scheduler.step() per iteration")
class LinearLrWarmup(LegacyDecay, _fluid("_FluidLinearLrWarmup")):
    """1.8 dygraph: ``(end_lr - start_lr) / warmup_steps * step_num`` during warm-up (1.8
    does not add ``start_lr`` here), then the wrapped rate; a wrapped decay advances at
    every step, warm-up included."""

    def __init__(self, learning_rate, warmup_steps, start_lr, end_lr, begin=1, step=1,
                 dtype="float32"):
        super().__init__(learning_rate, warmup_steps, start_lr, end_lr, begin, step, dtype)
        self._legacy_init()

    def _ready(self):
        # the first rate, without calling (advancing) a wrapped decay
        base = self.learning_rate
        if isinstance(base, LegacyDecay):
            base = base._rate()
        elif isinstance(base, LearningRateDecay):
            base = base.step()
        if self.step_num < self.warmup_steps:
            base = self.lr_ratio_before_warmup * self.step_num
        self.base_lr = self.last_lr = float(base)

    def consume(self):
        inner = self.learning_rate
        if isinstance(inner, LegacyDecay):
            # 1.x called it at every step: it advances, and its __call__ then answers
            # with the rate it just used (a user's decay advances when step() calls it)
            inner.consume()
        return super().consume()

    def peek(self):
        if isinstance(self.learning_rate, LegacyDecay):
            self.learning_rate.consume()  # 1.x's current_step_lr() ran step(), calling it
        return super().peek()


class _StaticWarmup(LegacyDecay):
    """``fluid.layers.linear_lr_warmup`` in a static program (shares the global step)."""

    def __init__(self, learning_rate, warmup_steps, start_lr, end_lr):
        self.learning_rate = learning_rate
        self.warmup_steps = warmup_steps
        self.start_lr, self.end_lr = float(start_lr), float(end_lr)
        super().__init__(0, 1, "float32")
        self._legacy_init()

    def step(self):
        n = self.step_num
        if n < self.warmup_steps:
            return _f(self.start_lr + (self.end_lr - self.start_lr) * _f(n / float(self.warmup_steps)))
        base = self.learning_rate
        if isinstance(base, LegacyDecay):
            base.step_num = n
            return float(base.step())
        return _f(base)


@legacy("paddle.fluid.dygraph.ReduceLROnPlateau", "paddle.fluid.dygraph.learning_rate_scheduler.ReduceLROnPlateau",
        replacement="paddle.optimizer.lr.ReduceOnPlateau")
class ReduceLROnPlateau(LegacyDecay, _fluid("_FluidReduceLROnPlateau")):
    def __init__(self, learning_rate, mode="min", decay_rate=0.1, patience=10, verbose=False,
                 threshold=1e-4, threshold_mode="rel", cooldown=0, min_lr=0, eps=1e-8,
                 dtype="float32"):
        super().__init__(learning_rate, mode, decay_rate, patience, verbose, threshold,
                         threshold_mode, cooldown, min_lr, eps, dtype)
        self._legacy_init()

    def _rate(self):
        return float(self.learning_rate)

    def consume(self):
        lr = self._rate()  # an optimizer's use of the rate does not move it
        self._used = lr
        self.last_lr = lr
        return lr

    def step(self, loss=None):
        if loss is None:  # read as a rate (1.x __call__)
            return self._rate()
        super().step(loss)
        self.last_lr = self._rate()


class _EpochDecay(LegacyDecay):
    """1.x ``_LearningRateEpochDecay``: moves on ``epoch()``, not per step; in front of the
    class ``fix`` adds for the decay (its ``get_lr()`` formula and ``epoch()``)."""

    def _rate(self):
        return float(self.learning_rate)

    def _ready(self):
        self.last_lr = self._rate()

    def epoch(self, epoch=None):
        super().epoch(epoch)
        self.last_lr = self._rate()

    def step(self):
        return self._rate()

    def consume(self):
        lr = self._rate()  # an optimizer's use of the rate does not move it
        self._used = lr
        self.last_lr = lr
        return lr

    def peek(self):
        import numpy as np
        return np.float32(self._rate())  # 1.x: the rate's variable (numpy()[0])


@legacy("paddle.fluid.dygraph.StepDecay", "paddle.fluid.dygraph.learning_rate_scheduler.StepDecay",
        replacement="paddle.optimizer.lr.StepDecay")
class StepDecay(_EpochDecay, _fluid("_FluidStepDecay")):
    def __init__(self, learning_rate, step_size, decay_rate=0.1):
        super().__init__(learning_rate, step_size, decay_rate)
        self._legacy_init()


@legacy("paddle.fluid.dygraph.MultiStepDecay", "paddle.fluid.dygraph.learning_rate_scheduler.MultiStepDecay",
        replacement="paddle.optimizer.lr.MultiStepDecay")
class MultiStepDecay(_EpochDecay, _fluid("_FluidMultiStepDecay")):
    def __init__(self, learning_rate, milestones, decay_rate=0.1):
        super().__init__(learning_rate, milestones, decay_rate)
        self._legacy_init()


@legacy("paddle.fluid.dygraph.LambdaDecay", "paddle.fluid.dygraph.learning_rate_scheduler.LambdaDecay",
        replacement="paddle.optimizer.lr.LambdaDecay")
class LambdaDecay(_EpochDecay, _fluid("_FluidLambdaDecay")):
    def __init__(self, learning_rate, lr_lambda):
        super().__init__(learning_rate, lr_lambda)
        self._legacy_init()


# -- static functions (``fluid.layers.*_decay``) -------------------------------------

def _new(cls, *args, **kwargs):
    with quiet():
        return cls(*args, **kwargs)


def _static_or(obj):
    obj._static = not paddle.in_dynamic_mode()
    if obj._static:
        # 1.x built the decay's step counter into the current main program: every run of
        # the program (and of a clone made before minimize) advanced it, and the programs
        # run in one scope shared it (a variable of the scope); the decay reads it
        program = paddle.static.default_main_program()
        made = getattr(program, "_compat_decays", None)
        if made is None:
            made = program._compat_decays = []
        made.append(obj)
        before = {op.id() for op in program.global_block().ops}
        _counter(program, obj.step_num)
        # built under 1.x's learning-rate role: clone(for_test=True) after minimize
        # pruned them (_pir._clone)
        lr_ops = program.__dict__.setdefault("_compat_lr_ops", set())
        lr_ops.update(op.id() for op in program.global_block().ops if op.id() not in before)
        obj._counted = True
        _COUNTED.append(obj)
    return obj


COUNTER = "@LR_DECAY_COUNTER@"
_COUNTED = []         # the static decays, which read their program's counter
_DECAY_COUNTERS = {}  # id(program) -> (program, its incremented counter, the counter's name)


def _counter(program, begin):
    """The program's step counter (created set to begin - 1 and incremented at every run
    the first time) and its incremented value."""
    hit = _DECAY_COUNTERS.get(id(program))
    if hit is None or hit[0] is not program:
        counter = paddle.create_parameter(
            [1], "int64", attr=paddle.ParamAttr(name=COUNTER, trainable=False),
            default_initializer=paddle.nn.initializer.Constant(begin - 1))
        counter.stop_gradient = True
        from compat.fluid import _pir
        _pir.mark_not_parameter(counter, program)  # a persistable variable in 1.x
        hit = _DECAY_COUNTERS[id(program)] = (program, paddle.increment(counter, 1), counter.name)
    return hit


@legacy("paddle.fluid.layers.learning_rate_scheduler._decay_step_counter",
        replacement="paddle.increment of a non-trainable int64 parameter, cast to float32")
def _decay_step_counter(begin=0):
    """1.x's global step of a static program, as float32 [1]: a persistable int64 counter
    '@LR_DECAY_COUNTER@' set to begin - 1 by the startup program and incremented once at
    every run, shared by every call in the program (custom learning-rate schedules built
    from it, e.g. linear warmups). Built as ``autoincreased_step_counter``'s rewrite (a
    non-trainable parameter keeps the in-place increment across runs of a PIR program);
    later calls in the same program return the same count."""
    if paddle.in_dynamic_mode():
        from compat._runtime import manual_error
        raise manual_error("paddle.fluid.layers.learning_rate_scheduler._decay_step_counter",
                           "the global step counter belongs to static programs: count the "
                           "steps in Python in dygraph mode")
    hit = _counter(paddle.static.default_main_program(), begin)
    return paddle.cast(hit[1], "float32")


@legacy("paddle.fluid.layers.exponential_decay", "paddle.fluid.layers.learning_rate_scheduler.exponential_decay",
        replacement="paddle.optimizer.lr.ExponentialDecay + scheduler.step() per iteration")
def exponential_decay(learning_rate, decay_steps, decay_rate, staircase=False):
    return _static_or(_new(ExponentialDecay, learning_rate, decay_steps, decay_rate, staircase))


@legacy("paddle.fluid.layers.natural_exp_decay", "paddle.fluid.layers.learning_rate_scheduler.natural_exp_decay",
        replacement="paddle.optimizer.lr.NaturalExpDecay + scheduler.step() per iteration")
def natural_exp_decay(learning_rate, decay_steps, decay_rate, staircase=False):
    return _static_or(_new(NaturalExpDecay, learning_rate, decay_steps, decay_rate, staircase))


@legacy("paddle.fluid.layers.inverse_time_decay", "paddle.fluid.layers.learning_rate_scheduler.inverse_time_decay",
        replacement="paddle.optimizer.lr.InverseTimeDecay + scheduler.step() per iteration")
def inverse_time_decay(learning_rate, decay_steps, decay_rate, staircase=False):
    return _static_or(_new(InverseTimeDecay, learning_rate, decay_steps, decay_rate, staircase))


@legacy("paddle.fluid.layers.polynomial_decay", "paddle.fluid.layers.learning_rate_scheduler.polynomial_decay",
        replacement="paddle.optimizer.lr.PolynomialDecay + scheduler.step() per iteration")
def polynomial_decay(learning_rate, decay_steps, end_learning_rate=0.0001, power=1.0, cycle=False):
    if not paddle.in_dynamic_mode() and _graph_value_wanted():
        return _graph_polynomial_decay(learning_rate, decay_steps, end_learning_rate, power, cycle)
    return _static_or(_new(PolynomialDecay, learning_rate, decay_steps, end_learning_rate,
                                                      power, cycle))


def _graph_value_wanted() -> bool:
    """Inside a ``Switch`` case/default block of a program whose ``_decay_step_counter``
    exists (ERNIE/BERT's linear_warmup_decay: ``with switch.default(): decayed_lr =
    polynomial_decay(...); assign(decayed_lr, lr)``) the decay feeds graph ops, as the
    variable 1.x returned; elsewhere it is the optimizer's rate (a stepped scheduler)."""
    from compat.fluid.layers.control_flow import in_case_block
    hit = _DECAY_COUNTERS.get(id(paddle.static.default_main_program()))
    return in_case_block() and hit is not None and hit[0] is paddle.static.default_main_program()


def _graph_polynomial_decay(learning_rate, decay_steps, end_learning_rate, power, cycle):
    """1.8.5's static polynomial_decay as graph ops on the program's global step (float32
    [1]): (lr - end) * (1 - step / decay_steps) ** power + end, step capped at decay_steps;
    with ``cycle`` decay_steps times ceil(step / decay_steps) (1 at step 0)."""
    step = _decay_step_counter()
    steps = paddle.full([1], float(decay_steps), "float32")
    if cycle:
        div = paddle.ceil(step / float(decay_steps))
        div = paddle.where(step == 0.0, paddle.ones_like(div), div)
        steps = steps * div
    else:
        step = paddle.minimum(step, steps)
    return (learning_rate - end_learning_rate) * ((1.0 - step / steps) ** power) + end_learning_rate


def graph_value(decay):
    """A static decay used as a value of the graph (PaddleCV's ``lr_warmup(learning_rate,
    ...)``: ``assign(learning_rate, lr)`` inside a ``Switch`` block, where 1.x's decay was
    the float32 [1] variable its ops computed from the program's global step): the same
    formula built as graph ops on the program's ``_decay_step_counter()``, which 1.8's
    static decays read too (one counter per program, 0 at the first run). Decays with
    another start (``noam_decay``: 1) or that are not static raise."""
    if isinstance(decay, PolynomialDecay):
        return _graph_polynomial_decay(decay.learning_rate, decay.decay_steps,
                                       decay.end_learning_rate, decay.power, decay.cycle)
    if isinstance(decay, _StaticWarmup):
        step = _decay_step_counter()
        base = decay.learning_rate
        if isinstance(base, LegacyDecay):
            base = graph_value(base)
        elif not isinstance(base, paddle.pir.Value):
            base = paddle.full([1], float(base), "float32")
        warm = decay.start_lr + (decay.end_lr - decay.start_lr) * (step / float(decay.warmup_steps))
        return paddle.where(step < float(decay.warmup_steps), warm, base)
    kinds = (PiecewiseDecay, ExponentialDecay, NaturalExpDecay, InverseTimeDecay, CosineDecay)
    if not isinstance(decay, kinds) or type(decay).__module__ != __name__ or not decay._static:
        from compat._runtime import manual_error
        raise manual_error("paddle.fluid.layers." + _SNAKE.get(type(decay).__name__, type(decay).__name__),
                           "this decay is used as a value of the graph (assign, arithmetic); "
                           "build the rate from the step counter by hand")
    step = _decay_step_counter()
    if isinstance(decay, PiecewiseDecay):
        out = paddle.full([1], float(decay.values[-1]), "float32")
        for b, v in reversed(list(zip(decay.boundaries, decay.values))):
            out = paddle.where(step < float(b), paddle.full([1], float(v), "float32"), out)
        return out
    if isinstance(decay, CosineDecay):
        epoch = paddle.floor(step / float(decay.step_each_epoch))
        return decay.learning_rate * 0.5 * (paddle.cos(epoch * (math.pi / decay.epochs)) + 1)
    div = step / float(decay.decay_steps)
    if decay.staircase:
        div = paddle.floor(div)
    if isinstance(decay, ExponentialDecay):
        return decay.learning_rate * paddle.pow(paddle.full([1], float(decay.decay_rate), "float32"), div)
    if isinstance(decay, NaturalExpDecay):
        return decay.learning_rate * paddle.exp(-1 * decay.decay_rate * div)
    return decay.learning_rate / (1 + decay.decay_rate * div)


_SNAKE = {"PiecewiseDecay": "piecewise_decay", "ExponentialDecay": "exponential_decay",
          "NaturalExpDecay": "natural_exp_decay", "InverseTimeDecay": "inverse_time_decay",
          "CosineDecay": "cosine_decay", "NoamDecay": "noam_decay",
          "PolynomialDecay": "polynomial_decay", "_StaticWarmup": "linear_lr_warmup"}


@legacy("paddle.fluid.layers.piecewise_decay", "paddle.fluid.layers.learning_rate_scheduler.piecewise_decay",
        replacement="paddle.optimizer.lr.PiecewiseDecay + scheduler.step() per iteration")
def piecewise_decay(boundaries, values):
    if len(values) - len(boundaries) != 1:
        raise ValueError("len(values) - len(boundaries) should be 1")
    return _static_or(_new(PiecewiseDecay, boundaries, values, 0))


@legacy("paddle.fluid.layers.noam_decay", "paddle.fluid.layers.learning_rate_scheduler.noam_decay",
        replacement="paddle.optimizer.lr.NoamDecay + scheduler.step() per iteration")
def noam_decay(d_model, warmup_steps, learning_rate=1.0):
    return _static_or(_new(NoamDecay, d_model, warmup_steps, learning_rate=learning_rate))


@legacy("paddle.fluid.layers.cosine_decay", "paddle.fluid.layers.learning_rate_scheduler.cosine_decay",
        replacement="paddle.optimizer.lr.CosineAnnealingDecay (stepped per epoch)")
def cosine_decay(learning_rate, step_each_epoch, epochs):
    return _static_or(_new(CosineDecay, learning_rate, step_each_epoch, epochs))


@legacy("paddle.fluid.layers.linear_lr_warmup", "paddle.fluid.layers.learning_rate_scheduler.linear_lr_warmup",
        replacement="paddle.optimizer.lr.LinearWarmup + scheduler.step() per iteration")
def linear_lr_warmup(learning_rate, warmup_steps, start_lr, end_lr):
    if paddle.in_dynamic_mode():
        return _new(LinearLrWarmup, learning_rate, warmup_steps, start_lr, end_lr)
    return _static_or(_StaticWarmup(learning_rate, warmup_steps, start_lr, end_lr))


# -- hooks for the executor and the optimizers -----------------------------------------

def after_run(program) -> None:
    sched = getattr(program, "lr_scheduler", None)
    if isinstance(sched, LegacyDecay) and sched._static:
        sched.advance()
    # a clone made before minimize (1.8.5's clone(for_test=True) pruned nothing then) kept
    # the step-counter increment of the decays built before it: each of its runs advanced
    # them too (checked on 1.8.5: the counter went 2, 5, 8 with two evaluation runs per step)
    for decay in getattr(program, "_compat_advance", ()):
        if decay is not sched and decay._static:
            decay.advance()


def after_eof(program, scope=None) -> None:
    """A run of *program* that met the end of its non-iterable DataLoader: 1.x had run the
    step-counter increments prepended to the program before the read op raised
    EOFException, so the decays advance and the ``_decay_step_counter`` counters of the
    program (this program's, or those of the program it was cloned from) count the run."""
    after_run(program)
    p = program
    while p is not None:
        hit = _DECAY_COUNTERS.get(id(p))
        if hit is not None and hit[0] is p:
            var = (scope or paddle.static.global_scope()).find_var(hit[2])
            if var is not None:
                import numpy as np
                tensor = var.get_tensor()
                tensor.set(np.array(tensor) + 1, paddle.CPUPlace())
            break
        p = getattr(p, "_compat_source", None)


def lr_value_for(decay, program):
    """The variable holding *decay*'s rate in *program* (``fetch_list=[lr]``)."""
    p = program
    while p is not None:
        if getattr(p, "lr_scheduler", None) is decay:
            from compat.fluid import _pir
            return _pir.translate(p.lr_var, program)
        p = getattr(p, "_compat_source", None)
    raise ValueError("fetch_list: this learning-rate decay is not used by an optimizer of "
                     "the program being run")


_lazy.attach(globals())
