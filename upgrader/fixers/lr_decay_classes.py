"""PU104 lr-decay-class: 1.8's dygraph learning-rate decays whose stepping fix cannot
rewrite become classes fix adds to the module, with 1.8's protocol and formulas.

What it does
    1.8's ``fluid.dygraph`` decays (``PiecewiseDecay``, ``NaturalExpDecay``,
    ``ExponentialDecay``, ``InverseTimeDecay``, ``PolynomialDecay``, ``CosineDecay``,
    ``NoamDecay``, ``StepDecay``, ``MultiStepDecay``, ``LambdaDecay``) become today's
    ``paddle.optimizer.lr`` schedulers with an explicit ``scheduler.step()`` where PU214
    traces the optimizer that takes the decay and its ``minimize()`` calls. Where it cannot
    (a decay built in a lambda handed to a helper, an optimizer returned or minimized in
    another function, a decay shared by optimizers, read back, saved, stepped by hand, or
    arguments today's class lacks: ``staircase``, ``step``), and where the optimizer's
    ``current_step_lr()`` is read (``get_lr()`` of today's schedulers gives the next rate,
    1.8 the last ``minimize()``'s), the call becomes ``_Fluid<Name>(...)`` with the same
    arguments (1.8's signature), a class fix adds to the module. So does a
    ``fluid.layers.*_decay`` call in dygraph code, for which 1.8.5 returned the dygraph
    decay (``piecewise_decay(b, v)`` → ``_FluidPiecewiseDecay(b, v, 0)``, ``noam_decay``'s
    ``learning_rate`` passed by keyword), also where an argument its formula reads is not
    a literal. ``LinearLrWarmup``
    always does (today's ``LinearWarmup`` is another formula), ``ReduceLROnPlateau`` in a
    module that reads ``current_step_lr()`` (elsewhere it is today's ``ReduceOnPlateau``).
    A reference to the class (``isinstance(s, fluid.dygraph.ReduceLROnPlateau)``) follows
    the module's calls of it.

    The classes derive from ``_FluidLearningRateDecay`` (lr-decay-base: 1.8's
    ``LearningRateDecay``, a ``paddle.optimizer.lr.LRScheduler`` advanced each time an
    optimizer takes the rate, once per ``minimize()``), added with them, and compute
    1.8.5's ``step()`` (``get_lr()`` for the epoch-based ones) in Python, rounding to
    float32 after every operation 1.8 made on a float32 variable, so that each rate is
    1.8.5's float32 value; they keep 1.8's attributes (``step_num``, ``epoch_num``,
    ``learning_rate`` ...), return types (a ``[1]`` tensor where 1.8 returned a variable,
    ``PiecewiseDecay``'s values as given) and methods: ``epoch(e)`` of the epoch-based
    ones, ``step(loss)`` of ``ReduceLROnPlateau``, ``state_dict()`` / ``set_dict()``
    (today's optimizer saves and restores them as ``LR_Scheduler``). An optimizer's
    ``get_lr()`` (1.8's ``current_step_lr()``) reads the rate of its last ``minimize()``.

Why is this bad?
    1.8's decays advanced by themselves: a step-based one on every ``minimize()`` of an
    optimizer using it (``LinearLrWarmup`` also called the decay it wraps at every step,
    warm-up included), while today's schedulers move only on an explicit
    ``scheduler.step()``, which cannot be placed where the minimize is out of sight. The
    rename alone would train with the first rate throughout.

Example
    ``opt = make_optimizer(lambda: fluid.dygraph.PiecewiseDecay([2, 4], [0.1, 0.05,
    0.01], 0))`` → ``opt = make_optimizer(lambda: _FluidPiecewiseDecay([2, 4], [0.1, 0.05,
    0.01], 0))``; every ``minimize()`` of the optimizer made from it uses the next rate, as
    in 1.8.

Fix safety
    Safe: the rate of every ``minimize()``, the parameters after it and
    ``current_step_lr()`` before and after it agree with 1.8.5 for every class (the
    entries' examples: a decay handed to a training function, ``staircase``, ``cycle``,
    ``begin``, a wrapped decay, ``epoch()``, ``step(loss)``; programs lr_decay_dygraph,
    save_load_dygraph, which also saves and restores the decay with its optimizer, and
    lr_layers_decay_dygraph_helpers: the seven layers functions in dygraph code, a resnet
    optimizer factory read back, a decay shared by two optimizers).
    Manual when the module already uses one of the names for something else. A reference
    to a class whose calls in the module are partly today's scheduler and partly the added
    class is manual (``isinstance`` would answer for one of them only).
"""
from __future__ import annotations

from typing import Dict, List, Optional

import libcst as cst

CODE = "PU104"
CLASS = "lr-decay-class"      # ReduceLROnPlateau: the class where the rate is read back
WARMUP_CLASS = "lr-decay-warmup"  # LinearLrWarmup: always the class
STRUCTURAL = (CLASS, WARMUP_CLASS)
BASE = "_FluidLearningRateDecay"
EPOCH_BASE = "_FluidLearningRateEpochDecay"

#: 1.8's dygraph decay classes -> the class fix adds for each
NAMES = {f"paddle.fluid.dygraph.{n}": f"_Fluid{n}" for n in (
    "PiecewiseDecay", "NaturalExpDecay", "ExponentialDecay", "InverseTimeDecay",
    "PolynomialDecay", "CosineDecay", "NoamDecay", "LinearLrWarmup", "ReduceLROnPlateau",
    "StepDecay", "MultiStepDecay", "LambdaDecay")}
#: 1.8.5's fluid.layers decay functions called in dygraph mode returned the dygraph class
#: (layers/learning_rate_scheduler.py: piecewise_decay -> PiecewiseDecay(boundaries, values,
#: 0), noam_decay -> NoamDecay(d_model, warmup_steps, learning_rate=...), the others with
#: their arguments in order)
LAYERS = {f"paddle.fluid.layers.{f}": f"_Fluid{c}" for f, c in (
    ("piecewise_decay", "PiecewiseDecay"), ("exponential_decay", "ExponentialDecay"),
    ("natural_exp_decay", "NaturalExpDecay"), ("inverse_time_decay", "InverseTimeDecay"),
    ("polynomial_decay", "PolynomialDecay"), ("cosine_decay", "CosineDecay"),
    ("noam_decay", "NoamDecay"))}
PLATEAU = "paddle.fluid.dygraph.ReduceLROnPlateau"
WARMUP = "paddle.fluid.dygraph.LinearLrWarmup"

WHAT = ("a class fix adds to the module: 1.8's decay, its formula and its stepping on a "
        "paddle.optimizer.lr.LRScheduler")
#: what explain and docs/rules.md show for the entry that always becomes the class
HELPERS = {WARMUP_CLASS: f"_FluidLinearLrWarmup ({WHAT})"}

_F32 = '''        import numpy as np

        def f(v):
            return float(np.float32(v))
'''

#: the constructor and the start of step() that 1.8's NaturalExpDecay, ExponentialDecay and
#: InverseTimeDecay share: step_num / decay_steps in float32, floored with staircase
_STAIRCASE_STEP = '''    def __init__(self, learning_rate, decay_steps, decay_rate, staircase=False, begin=0,
                 step=1, dtype='float32'):
        super().__init__(begin, step, dtype)
        self.learning_rate = learning_rate
        self.decay_steps = decay_steps
        self.decay_rate = decay_rate
        self.staircase = staircase

    def step(self):
        import math
''' + _F32 + '''
        div_res = f(self.step_num / self.decay_steps)
        if self.staircase:
            div_res = math.floor(div_res)'''

SOURCES: Dict[str, str] = {
    "_FluidPiecewiseDecay": '''class _FluidPiecewiseDecay(_FluidLearningRateDecay):
    """Paddle 1.8's fluid.dygraph.PiecewiseDecay: values[i] for the first boundary above
    step_num (the value as given), then values[-1] (as a [1] tensor); step_num starts at
    begin and every minimize() advances it by step."""

    def __init__(self, boundaries, values, begin, step=1, dtype='float32'):
        super().__init__(begin, step, dtype)
        self.boundaries = boundaries
        self.values = values
        self.vars = []
        for value in values:
            self.vars.append(value)

    def step(self):
        for i in range(len(self.boundaries)):
            if self.step_num < self.boundaries[i]:
                return self.vars[i]
        return self.create_lr_var(self.vars[len(self.values) - 1])
''',
    "_FluidNaturalExpDecay": '''class _FluidNaturalExpDecay(_FluidLearningRateDecay):
    """Paddle 1.8's fluid.dygraph.NaturalExpDecay: learning_rate * exp(-decay_rate *
    step_num / decay_steps) (the quotient floored with staircase), in float32."""

''' + _STAIRCASE_STEP + '''
        decayed = f(math.exp(f(f(-1 * self.decay_rate) * div_res)))
        return self.create_lr_var(f(f(self.learning_rate) * decayed))
''',
    "_FluidExponentialDecay": '''class _FluidExponentialDecay(_FluidLearningRateDecay):
    """Paddle 1.8's fluid.dygraph.ExponentialDecay: learning_rate * decay_rate **
    (step_num / decay_steps) (the quotient floored with staircase), in float32."""

''' + _STAIRCASE_STEP + '''
        decayed = f(float(np.power(np.float64(f(self.decay_rate)), np.float64(div_res))))
        return self.create_lr_var(f(f(self.learning_rate) * decayed))
''',
    "_FluidInverseTimeDecay": '''class _FluidInverseTimeDecay(_FluidLearningRateDecay):
    """Paddle 1.8's fluid.dygraph.InverseTimeDecay: learning_rate / (1 + decay_rate *
    step_num / decay_steps) (the quotient floored with staircase), in float32."""

''' + _STAIRCASE_STEP + '''
        denominator = f(f(f(self.decay_rate) * div_res) + 1)
        return self.create_lr_var(f(f(self.learning_rate) / denominator))
''',
    "_FluidPolynomialDecay": '''class _FluidPolynomialDecay(_FluidLearningRateDecay):
    """Paddle 1.8's fluid.dygraph.PolynomialDecay: (learning_rate - end_learning_rate) *
    (1 - n / decay_steps) ** power + end_learning_rate with n = min(step_num,
    decay_steps), or with cycle decay_steps times ceil(step_num / decay_steps) (1 at step
    0), in float32."""

    def __init__(self, learning_rate, decay_steps, end_learning_rate=0.0001, power=1.0,
                 cycle=False, begin=0, step=1, dtype='float32'):
        super().__init__(begin, step, dtype)
        self.learning_rate = learning_rate
        self.decay_steps = decay_steps
        self.end_learning_rate = end_learning_rate
        self.power = power
        self.cycle = cycle

    def step(self):
        import math
''' + _F32 + '''
        tmp_step_num = self.step_num
        if self.cycle:
            div_res = math.ceil(f(tmp_step_num / float(self.decay_steps)))
            if tmp_step_num == 0:
                div_res = 1.0
            tmp_decay_steps = f(f(self.decay_steps) * div_res)
            ratio = f(f(tmp_step_num) / tmp_decay_steps)
        else:
            tmp_step_num = f(tmp_step_num if tmp_step_num < self.decay_steps
                             else self.decay_steps)
            ratio = f(f(1.0 / self.decay_steps) * tmp_step_num)
        base = f(1 - ratio)
        powered = f(float(np.power(np.float64(base), np.float64(f(self.power)))))
        decayed = f(f(self.learning_rate - self.end_learning_rate) * powered)
        return self.create_lr_var(f(decayed + f(self.end_learning_rate)))
''',
    "_FluidCosineDecay": '''class _FluidCosineDecay(_FluidLearningRateDecay):
    """Paddle 1.8's fluid.dygraph.CosineDecay: learning_rate * 0.5 * (cos(floor(step_num /
    step_each_epoch) * pi / epochs) + 1), in float32."""

    def __init__(self, learning_rate, step_each_epoch, epochs, begin=0, step=1,
                 dtype='float32'):
        super().__init__(begin, step, dtype)
        self.learning_rate = learning_rate
        self.step_each_epoch = step_each_epoch
        self.epochs = epochs

    def step(self):
        import math
''' + _F32 + '''
        cur_epoch = math.floor(f(self.step_num / self.step_each_epoch))
        angle = f(f(1.0 / self.epochs) * f(f(math.pi) * cur_epoch))
        cosine = f(f(math.cos(angle)) + 1)
        return self.create_lr_var(f(f(self.learning_rate * 0.5) * cosine))
''',
    "_FluidNoamDecay": '''class _FluidNoamDecay(_FluidLearningRateDecay):
    """Paddle 1.8's fluid.dygraph.NoamDecay: learning_rate * d_model ** -0.5 *
    min(step_num ** -0.5, warmup_steps ** -1.5 * step_num), in float32 (step_num starts
    at begin=1)."""

    def __init__(self, d_model, warmup_steps, begin=1, step=1, dtype='float32',
                 learning_rate=1.0):
        super().__init__(begin, step, dtype)
        self.learning_rate = learning_rate
        self.d_model = d_model
        self.warmup_steps = warmup_steps

    def step(self):
''' + _F32 + '''
        a = f(self.step_num ** -0.5)
        b = f((self.warmup_steps ** -1.5) * self.step_num)
        return self.create_lr_var(f(f(self.learning_rate * (self.d_model ** -0.5)) * min(a, b)))
''',
    "_FluidLinearLrWarmup": '''class _FluidLinearLrWarmup(_FluidLearningRateDecay):
    """Paddle 1.8's fluid.dygraph.LinearLrWarmup: (end_lr - start_lr) / warmup_steps *
    step_num while step_num < warmup_steps (start_lr is not added), then learning_rate;
    a wrapped decay is called (advanced) at every step, warm-up included."""

    def __init__(self, learning_rate, warmup_steps, start_lr, end_lr, begin=1, step=1,
                 dtype='float32'):
        super().__init__(begin, step, dtype)
        type_check = isinstance(learning_rate, float) or isinstance(
            learning_rate, int) or isinstance(learning_rate, _FluidLearningRateDecay)
        if not type_check:
            raise TypeError(
                "the type of learning_rate should be [int, float or LearningRateDecay], "
                "the current type is {}".format(learning_rate))
        self.learning_rate = learning_rate
        self.warmup_steps = warmup_steps
        assert end_lr > start_lr, "end_lr {} must be greater than start_lr {}".format(
            end_lr, start_lr)
        self.lr_ratio_before_warmup = (float(end_lr) - float(start_lr)) / float(warmup_steps)

    def step(self):
        base_lr = self.learning_rate
        if isinstance(self.learning_rate, _FluidLearningRateDecay):
            base_lr = base_lr()
        if self.step_num < self.warmup_steps:
            return self.lr_ratio_before_warmup * self.step_num
        return base_lr
''',
    "_FluidReduceLROnPlateau": '''class _FluidReduceLROnPlateau(_FluidLearningRateDecay):
    """Paddle 1.8's fluid.dygraph.ReduceLROnPlateau: step(loss) (a one-element tensor)
    multiplies the rate by decay_rate (not below min_lr) after more than patience calls
    without a loss better than the best by threshold, then waits cooldown calls; float32
    arithmetic as 1.8's variables. An optimizer's use of the rate does not change it."""

    def __init__(self, learning_rate, mode='min', decay_rate=0.1, patience=10,
                 verbose=False, threshold=1e-4, threshold_mode='rel', cooldown=0,
                 min_lr=0, eps=1e-8, dtype='float32'):
        super().__init__(dtype=dtype)
        mode = mode.lower()
        if mode not in ['min', 'max']:
            raise ValueError('mode ' + mode + ' is unknown!')
        self.mode = mode
        if decay_rate >= 1.0:
            raise ValueError(
                'new_lr = origin_lr * decay_rate and decay_rate should be < 1.0.')
        self.decay_rate = self.create_lr_var(decay_rate)
        threshold_mode = threshold_mode.lower()
        if threshold_mode not in ['rel', 'abs']:
            raise ValueError('threshold mode ' + threshold_mode + ' is unknown!')
        self.threshold_mode = threshold_mode
        if not isinstance(learning_rate, (float, int, paddle.Tensor)):
            raise TypeError(
                "The type of 'learning_rate' in 'ReduceLROnPlateau' must be 'float, int, "
                "Variable', but received %s." % type(learning_rate))
        self.learning_rate = learning_rate
        self.verbose = verbose
        self.patience = patience
        self.threshold = threshold
        self.cooldown = cooldown
        self.min_lr = self.create_lr_var(min_lr)
        self.eps = eps
        self.cooldown_counter = 0
        self.best_loss = None
        self.num_bad_epochs = 0
        self.epoch_num = 0

    def _state_keys(self):
        self.keys = ['cooldown_counter', 'best_loss', 'num_bad_epochs', 'epoch_num',
                     'learning_rate']

    def __call__(self):
        import sys
        caller = sys._getframe(1)
        if caller.f_code.co_name == 'get_lr':
            optimizer = caller.f_locals.get('self')
            if isinstance(optimizer, paddle.optimizer.Optimizer):
                # 1.8's current_step_lr(): the rate of the optimizer's last minimize(),
                # else step() (which needs the loss: TypeError, as in 1.8)
                used = optimizer._global_learning_rate()
                lr = self.step() if used is None else used
                return lr.numpy().reshape([-1])[0]
        if not isinstance(self.learning_rate, paddle.Tensor):
            self.learning_rate = self.create_lr_var(self.learning_rate)
        return self.learning_rate

    def step(self, loss):
        import numpy as np
        if not isinstance(loss, paddle.Tensor):
            raise TypeError("The type of 'loss' in ReduceLROnPlateau.step must be "
                            "Variable, but received %s." % type(loss))
        assert int(np.prod(loss.shape)) == 1, "the loss.shape should be (1L,), but the " \\
            "current loss.shape is {}. Maybe that you should call fluid.layers.mean to " \\
            "process it first.".format(loss.shape)
        current = loss.numpy().reshape([-1])[0]

        def value(v):
            if isinstance(v, paddle.Tensor):
                return v.numpy().reshape([-1])[0]
            return np.float32(v)

        self.epoch_num += 1
        if self.cooldown_counter > 0:
            self.cooldown_counter -= 1
        else:
            if self.best_loss is None or self._is_better(current, self.best_loss):
                self.best_loss = current
                self.num_bad_epochs = 0
            else:
                self.num_bad_epochs += 1
            if self.num_bad_epochs > self.patience:
                self.cooldown_counter = self.cooldown
                self.num_bad_epochs = 0
                rate = value(self.learning_rate)
                new_lr = max(rate * value(self.decay_rate), value(self.min_lr))
                if rate - new_lr > np.float32(self.eps):
                    if self.verbose:
                        old_lr = rate if isinstance(self.learning_rate, paddle.Tensor) \\
                            else self.learning_rate
                        print('Epoch {}: reducing learning rate from {} to {}.'.format(
                            self.epoch_num, old_lr, new_lr))
                    self.learning_rate = self.create_lr_var(new_lr)

    def _is_better(self, current, best):
        import numpy as np
        # in the loss's float type: 1.8 compared variables
        kind = type(current)
        threshold = kind(np.float32(self.threshold))
        best = kind(best)
        if self.mode == 'min' and self.threshold_mode == 'rel':
            return bool(current < best - best * threshold)
        elif self.mode == 'min' and self.threshold_mode == 'abs':
            return bool(current < best - threshold)
        elif self.mode == 'max' and self.threshold_mode == 'rel':
            return bool(current > best + best * threshold)
        else:
            return bool(current > best + threshold)
''',
    EPOCH_BASE: '''class _FluidLearningRateEpochDecay(_FluidLearningRateDecay):
    """Paddle 1.8's _LearningRateEpochDecay, the base of StepDecay, MultiStepDecay and
    LambdaDecay: the rate moves only on epoch(epoch=None) (epoch_num + 1, or the epoch
    given), which sets learning_rate from get_lr(); an optimizer's use of the rate does
    not change it."""

    def __init__(self, learning_rate, dtype=None):
        if not isinstance(learning_rate, (float, int)):
            raise TypeError(
                "The type of 'learning_rate' must be 'float, int', but received %s."
                % type(learning_rate))
        if learning_rate < 0:
            raise ValueError("Invalid learning rate: {}".format(learning_rate))
        self.base_lr = float(learning_rate)
        self.epoch_num = -1
        self.dtype = dtype
        if dtype is None:
            self.dtype = "float32"
        self.learning_rate = self.create_lr_var(self.base_lr)
        self.epoch()

    def _state_keys(self):
        self.keys = ['epoch_num', 'learning_rate']

    def __call__(self):
        import sys
        if not isinstance(self.learning_rate, paddle.Tensor):
            self.learning_rate = self.create_lr_var(self.learning_rate)
        caller = sys._getframe(1)
        if caller.f_code.co_name == 'get_lr':
            optimizer = caller.f_locals.get('self')
            if isinstance(optimizer, paddle.optimizer.Optimizer):
                # 1.8's current_step_lr(): the rate of the optimizer's last minimize(),
                # else the current one
                used = optimizer._global_learning_rate()
                lr = self.learning_rate if used is None else used
                return lr.numpy().reshape([-1])[0]
        return self.learning_rate

    def epoch(self, epoch=None):
        if epoch is None:
            self.epoch_num += 1
        else:
            self.epoch_num = epoch
        self.learning_rate = self.get_lr()

    def get_lr(self):
        raise self.SubclassMustDefine(
            '%s.get_lr() is not defined: an epoch decay returns the rate at '
            'self.epoch_num from get_lr()' % type(self).__name__)
''',
    "_FluidStepDecay": '''class _FluidStepDecay(_FluidLearningRateEpochDecay):
    """Paddle 1.8's fluid.dygraph.StepDecay: learning_rate * decay_rate ** (epoch_num //
    step_size), in float32."""

    def __init__(self, learning_rate, step_size, decay_rate=0.1):
        if not isinstance(step_size, int):
            raise TypeError(
                "The type of 'step_size' must be 'int', but received %s." % type(step_size))
        if decay_rate >= 1.0:
            raise ValueError('decay_rate should be < 1.0.')
        self.step_size = step_size
        self.decay_rate = decay_rate
        super().__init__(learning_rate)

    def get_lr(self):
''' + _F32 + '''
        i = self.epoch_num // self.step_size
        decayed = f(float(np.power(np.float64(f(self.decay_rate)), np.float64(f(i)))))
        return self.create_lr_var(f(f(self.base_lr) * decayed))
''',
    "_FluidMultiStepDecay": '''class _FluidMultiStepDecay(_FluidLearningRateEpochDecay):
    """Paddle 1.8's fluid.dygraph.MultiStepDecay: learning_rate * decay_rate ** (the
    number of milestones <= epoch_num), in float32."""

    def __init__(self, learning_rate, milestones, decay_rate=0.1):
        if not isinstance(milestones, (tuple, list)):
            raise TypeError(
                "The type of 'milestones' in 'MultiStepDecay' must be 'tuple, list', but "
                "received %s." % type(milestones))
        if not all([milestones[i] < milestones[i + 1] for i in range(len(milestones) - 1)]):
            raise ValueError('The elements of milestones must be incremented')
        if decay_rate >= 1.0:
            raise ValueError('decay_rate should be < 1.0.')
        self.milestones = milestones
        self.decay_rate = decay_rate
        super().__init__(learning_rate)

    def get_lr(self):
''' + _F32 + '''
        i = len(self.milestones)
        for j in range(len(self.milestones)):
            if self.epoch_num < self.milestones[j]:
                i = j
                break
        decayed = f(float(np.power(np.float64(f(self.decay_rate)), np.float64(f(i)))))
        return self.create_lr_var(f(f(self.base_lr) * decayed))
''',
    "_FluidLambdaDecay": '''class _FluidLambdaDecay(_FluidLearningRateEpochDecay):
    """Paddle 1.8's fluid.dygraph.LambdaDecay: learning_rate * lr_lambda(epoch_num) (a
    Python float until an optimizer takes it)."""

    def __init__(self, learning_rate, lr_lambda):
        if not callable(lr_lambda):
            raise TypeError(
                "The type of 'lr_lambda' in 'LambdaDecay' must be 'function', but received "
                "%s." % type(lr_lambda))
        self.lr_lambda = lr_lambda
        super().__init__(learning_rate)

    def get_lr(self):
        return self.base_lr * self.lr_lambda(self.epoch_num)
''',
}

#: the code each class needs before it (the base classes)
DEPENDS = {name: [BASE, EPOCH_BASE] if f"({EPOCH_BASE})" in src.split("\n", 1)[0] else [BASE]
           for name, src in SOURCES.items()}
DEPENDS[EPOCH_BASE] = [BASE]
#: for compat._added: where the names a source needs come from
ADDED_FROM = {BASE: "lr_decay_base"}

_READS_LR = "current_step_lr"


def _order(names) -> List[str]:
    """``names`` with the classes they build on, bases first (SOURCES order)."""
    wanted = set(names)
    for n in names:
        wanted.update(d for d in DEPENDS.get(n, ()) if d != BASE)
    return [n for n in SOURCES if n in wanted]


def _conflict(up, name: str) -> Optional[str]:
    """The name among ``name`` and the classes it builds on that the module already uses
    for something else, or None."""
    from upgrader.fixers import helper_state
    from upgrader.fixers.lr_decay_base import SOURCES as BASE_SOURCES
    for n in [BASE] + _order([name]):
        src = BASE_SOURCES[BASE] if n == BASE else SOURCES[n]
        if helper_state(up, n, src) == "conflict":
            return n
    return None


def reads_rate(up) -> bool:
    """The module reads an optimizer's ``current_step_lr()``: 1.8 gave the rate of the last
    ``minimize()``, which the added classes keep and today's schedulers do not."""
    cached = up.__dict__.get("_lr_reads_rate")
    if cached is None:
        import re
        cached = up.__dict__["_lr_reads_rate"] = re.search(
            r"\.%s\s*\(" % _READS_LR, up.source) is not None
    return cached


def plateau_as_class(up) -> bool:
    """``ReduceLROnPlateau`` becomes ``_FluidReduceLROnPlateau`` in this module (it reads
    ``current_step_lr()``, which today's ``ReduceOnPlateau`` answers with the rate a
    ``step(loss)`` may have lowered since the last ``minimize()``)."""
    return reads_rate(up) and up.opts.enabled(CODE) and _conflict(up, NAMES[PLATEAU]) is None


def _becomes_class(up, node: cst.Call, entry, d=None) -> bool:
    """Whether this call of a decay turns into its class (as :func:`rewrite_call` or
    PU214's rewrite_call will decide)."""
    from upgrader.args import Manual, bind
    if entry.name == WARMUP:
        wanted = True
    elif entry.name == PLATEAU:
        wanted = plateau_as_class(up)
    else:
        wanted = d is not None and untraced(d)
    return (wanted and _conflict(up, _class_of(entry)) is None and up.opts.enabled(entry.code)
            and not up.suppressed_node(node, entry.code)
            and not isinstance(bind(entry, node), Manual))


def _kinds(up, entry):
    """(some object of this decay in the module is the added class, some is not): its
    calls (those a first fix rewrote included: the class, today's ``target``), for
    references."""
    cached = up.__dict__.setdefault("_lr_decay_class_kinds", {})
    if entry.name in cached:
        return cached[entry.name]
    from upgrader.fixers import imported_entry
    from upgrader.fixers import lr_stepping
    decisions = lr_stepping.plan(up).decisions
    found = [NAMES[entry.name] + "(" in up.source,
             bool(entry.target) and entry.target + "(" in up.source]

    class _Visitor(cst.CSTVisitor):
        def visit_Call(self, node: cst.Call) -> None:
            e = imported_entry(up, node.func)
            if e is not None and e.name == entry.name:
                found[0 if _becomes_class(up, node, e, decisions.get(id(node))) else 1] = True
            elif e is not None and LAYERS.get(e.name) == NAMES[entry.name]:
                # 1.8.5's layers function in dygraph mode returned this very class
                d = decisions.get(id(node))
                if d is not None and _class_of(d.entry) is not None:
                    found[0 if _becomes_class(up, node, d.entry, d) else 1] = True

    up.module.visit(_Visitor())
    cached[entry.name] = tuple(found)
    return cached[entry.name]


def _class_of(entry) -> Optional[str]:
    """The class fix adds for a dygraph decay's entry, or for a ``fluid.layers`` decay
    function's dygraph-mode entry (PU214's step-based copy, lr_stepping._in_dygraph)."""
    if entry.name in NAMES:
        return NAMES[entry.name]
    if entry.name in LAYERS and entry.structural == "lr-scheduler-step":
        return LAYERS[entry.name]
    return None


def untraced(d) -> bool:
    """A PU214 decision about a dygraph decay that the class replaces: its stepping could
    not be traced (or today's class cannot express the call)."""
    return _class_of(d.entry) is not None and d.status in ("manual", "mapping")


def _dygraph_arguments(entry, call: cst.Call) -> cst.Call:
    """A ``fluid.layers`` decay function's call as the call of the dygraph class 1.8.5 built
    from it: ``piecewise_decay`` gives ``begin`` 0, ``noam_decay``'s third argument is the
    class's ``learning_rate`` keyword."""
    args = list(call.args)
    short = entry.name.rsplit(".", 1)[-1]
    if short == "piecewise_decay":
        keyworded = any(a.keyword is not None or a.star for a in args)
        last = args[-1].with_changes(comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" ")))
        new = cst.Arg(cst.Integer("0"), keyword=cst.Name("begin") if keyworded else None,
                      equal=cst.AssignEqual(whitespace_before=cst.SimpleWhitespace(""),
                                            whitespace_after=cst.SimpleWhitespace(""))
                      if keyworded else cst.MaybeSentinel.DEFAULT)
        args = args[:-1] + [last, new]
    elif short == "noam_decay":
        positional = [i for i, a in enumerate(args) if a.keyword is None and not a.star]
        if len(positional) >= 3:
            i = positional[2]
            args[i] = args[i].with_changes(keyword=cst.Name("learning_rate"), equal=cst.AssignEqual(
                whitespace_before=cst.SimpleWhitespace(""), whitespace_after=cst.SimpleWhitespace("")))
    return call.with_changes(args=args)


def untraced_why(d) -> str:
    """Why PU214's scheduler was not used, for the report (its advice to step by hand
    left out)."""
    import re
    reason = re.sub(r": (call `|bind it|`[^`]*` became|migrate by hand|return `|\S+ the "
                    r"scheduler|then ).*$", "", d.reason).rstrip(". ")
    if d.status == "mapping":
        return f"; today's scheduler cannot take this call: {reason}"
    return f"; PU214 cannot use today's scheduler here: {reason}"


def to_class(up, original: cst.Call, updated: cst.Call, entry, why: str = ""):
    """The decay call → the same call of the class fix adds (1.8's signature), reported;
    manual when the module uses one of the names otherwise or the arguments do not bind."""
    from upgrader.fixers import bound_or_report, need_helper
    name = _class_of(entry)
    clash = _conflict(up, name)
    if clash is not None:
        up.report_entry(original, entry, False, manual=(
            f"the module already uses the name {clash} for something else; {entry.note}"))
        return updated
    if bound_or_report(up, original, updated, entry, keep_kwargs=True) is None:
        return updated
    if not up.opts.enabled(entry.code) or up.suppressed_node(original, entry.code):
        up.report_entry(original, entry, False)
        return updated
    up.needed_imports.add("paddle")
    need_helper(up, BASE)
    used = up.__dict__.setdefault("_lr_decay_classes", set())
    used.update(_order([name]))
    if entry.name in LAYERS:
        updated = _dygraph_arguments(entry, updated)
        why = (f"; in dygraph mode 1.8.5 returned the fluid.dygraph decay of the same formula"
               f"{why}")
    up.report(original, entry.code, f"`{entry.short}` → `{name}` ({WHAT}{why})", entry.name,
              name, "safe", applied=True)
    return updated.with_changes(func=cst.Name(name))


def rewrite_call(up, original: cst.Call, updated: cst.Call, entry):
    """``LinearLrWarmup`` → its class; ``ReduceLROnPlateau`` → its class in a module that
    reads ``current_step_lr()``, else today's ``ReduceOnPlateau`` (the entry's mapping)."""
    if entry.name == PLATEAU and not plateau_as_class(up):
        return up.apply_entry(original, updated, entry)
    if entry.name == PLATEAU:
        why = ("; the module reads current_step_lr(), which today's ReduceOnPlateau "
               "would answer with a rate step(loss) lowered after the last minimize()")
    else:
        why = ("; today's LinearWarmup adds start_lr during the warm-up and starts a "
               "wrapped decay after it")
    return to_class(up, original, updated, entry, why)


def rewrite_reference(up, node: cst.BaseExpression, entry):
    """A decay class used as a value (``isinstance(s, fluid.dygraph.ReduceLROnPlateau)``):
    the added class when every call of it in the module becomes that class; manual when
    only some do; otherwise (None) the engine's rename to today's class."""
    if entry.name not in NAMES:
        return None
    made, other = _kinds(up, entry)
    if made and not other:
        name = NAMES[entry.name]
        if _conflict(up, name) is not None or not up.can_apply(entry, node):
            up.report_entry(node, entry, False)
            return node
        from upgrader.fixers import need_helper
        need_helper(up, BASE)
        up.__dict__.setdefault("_lr_decay_classes", set()).update(_order([name]))
        up.report(node, entry.code, f"`{entry.short}` → `{name}` (the class its calls in this "
                  "module become)", entry.name, name, "safe", applied=True)
        return cst.Name(name)
    if made:
        up.report_entry(node, entry, False, manual=(
            "used as a value in a module where some of its calls become "
            f"{NAMES[entry.name]} (a class fix adds) and others today's scheduler: "
            "`isinstance` would answer for one kind only"))
        return node
    if entry.name == WARMUP:
        up.report_entry(node, entry, False, manual=(
            "used as a value in a module that does not build it: the class fix adds "
            "belongs to each module that does"))
        return node
    return None


def finish_module(up, module: cst.Module) -> cst.Module:
    """Add the classes used, right after ``_FluidLearningRateDecay`` (lr-decay-base adds
    it after the imports; added here when it is missing)."""
    from upgrader.fixers import helper_state, insert_after_head
    used = up.__dict__.get("_lr_decay_classes")
    if not used:
        return module
    wanted = [SOURCES[n] for n in _order(used) if helper_state(up, n, SOURCES[n]) == "insert"]
    if not wanted:
        return module
    body = list(module.body)
    names = {BASE, *SOURCES}
    at = None
    for i, s in enumerate(body):
        if isinstance(s, cst.ClassDef) and s.name.value in names:
            at = i
    if at is None:
        from upgrader.fixers.lr_decay_base import SOURCES as BASE_SOURCES
        return insert_after_head(module, [BASE_SOURCES[BASE]] + wanted)
    blank = cst.EmptyLine()
    added = [cst.parse_statement(src).with_changes(leading_lines=[blank, blank])
             for src in wanted]
    body[at + 1:at + 1] = added
    return module.with_changes(body=body)
