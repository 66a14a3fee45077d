"""``paddle.fluid.optimizer`` (1.8) on ``paddle.optimizer``.

Each class keeps its 1.8 signature (``parameter_list``, ``regularization``, 1.x
defaults and positional order) and 1.x behaviour:

- ``minimize(loss, startup_program=None, parameter_list=None, no_grad_set=None)`` in
  dygraph and static mode; in dygraph it neither clears gradients (1.x programs call
  ``layer.clear_gradients()``) nor needs ``step()``;
- a 1.x learning-rate decay advances per ``minimize`` (dygraph) or per run (static);
- ``current_step_lr()``, ``set_dict``, ``clear_gradients``;
- a regularizer set in a parameter's ``ParamAttr`` overrides ``regularization``;
- ``fluid.clip.set_gradient_clip`` applies when the optimizer has no ``grad_clip``.
"""
from __future__ import annotations

import array
import math

import numpy as np
import paddle
import paddle.optimizer as O
from paddle import _C_ops
from paddle.base.layer_helper import LayerHelper
from paddle.optimizer import optimizer as _optimizer_module

from compat import _lazy
from compat._runtime import legacy, manual_error
from compat.fluid import _pir
from compat.fluid.backward import _by_name
from compat.fluid.layers.learning_rate_scheduler import LearningRateDecay, LegacyDecay

# Dpsgd, DGCMomentum, Pipeline, Recompute, ExponentialMovingAverage and Lookahead come
# from the rule database (no faithful counterpart: calling them raises
# compat.LegacyAPIError with the migration).
__all__ = ["SGD", "Momentum", "Adagrad", "Adam", "Adamax", "DecayedAdagrad", "SGDOptimizer",
           "MomentumOptimizer", "AdagradOptimizer", "AdamOptimizer", "AdamaxOptimizer",
           "DecayedAdagradOptimizer", "RMSPropOptimizer", "Adadelta", "AdadeltaOptimizer",
           "ModelAverage", "LarsMomentum", "LarsMomentumOptimizer", "LambOptimizer", "Ftrl",
           "FtrlOptimizer"]


def _lr(learning_rate):
    if isinstance(learning_rate, int) and not isinstance(learning_rate, bool):
        return float(learning_rate)
    if isinstance(learning_rate, paddle.pir.Value) and _pir.program_of(learning_rate) is not None:
        return 0.0  # a placeholder: _legacy_setup hands the variable itself to the optimizer
    if isinstance(learning_rate, (paddle.Tensor, paddle.pir.Value)):
        raise manual_error("paddle.fluid.optimizer.Optimizer",
                           "a Variable learning rate is not supported; pass a float or a "
                           "fluid.layers.*_decay / fluid.dygraph.*Decay schedule")
    return learning_rate


def _params(parameter_list):
    return None if parameter_list is None else list(parameter_list)


def _stepped_lr(opt, lr):
    """1.x ``current_step_lr()`` read the optimizer's float32 learning-rate variable once a
    dygraph ``minimize`` had created it (``numpy()[0]``: a numpy.float32); before, the
    float it was given."""
    return np.float32(lr) if getattr(opt, "_legacy_stepped", False) else lr


class _Legacy(object):
    """1.x optimizer protocol on top of a ``paddle.optimizer`` class."""

    def _legacy_setup(self, learning_rate, grad_clip):
        self._legacy_lr = learning_rate if isinstance(learning_rate, LegacyDecay) else None
        if isinstance(learning_rate, paddle.pir.Value):
            # 1.x static programs took a Variable learning rate (custom schedules computed
            # from the global step, e.g. linear warmups): the optimizer reads the rate of a
            # program from _learning_rate_map and, for a float rate, creates one only when
            # that program has none, so the variable is put there for its program
            program = _pir.program_of(learning_rate)
            self._learning_rate_map[program] = learning_rate
            self._legacy_lr_var = learning_rate
        self._legacy_clip = grad_clip
        self._legacy_stepped = False  # a dygraph minimize made 1.x's float32 LR variable

    def minimize(self, loss, startup_program=None, parameter_list=None, no_grad_set=None):
        from compat.fluid import clip as _clip
        if paddle.in_dynamic_mode():
            # 1.x dygraph ignored parameter_list and no_grad_set here: it updates every
            # parameter of the optimizer's own parameter_list that has a gradient.
            self._legacy_stepped = True
            if self._legacy_lr is not None:
                # the rate this optimizer's step used (its 1.x learning-rate variable),
                # which its current_step_lr() reads, whoever else shares the decay
                self._legacy_used = self._legacy_lr.consume()
            fast = getattr(self, "_dygraph_minimize", None)
            if fast is not None:
                done = fast(loss, None)
                if done is not None:
                    return done
            return super().minimize(loss, startup_program=startup_program)
        program = _pir.program_of(loss) if isinstance(loss, paddle.pir.Value) else None
        if program is None:
            program = paddle.static.default_main_program()
        if isinstance(program, paddle.pir.Program):
            _pir.adopt_foreign_operands(program)
            _pir.mark_forward(program)
        names = parameter_list
        parameter_list = _by_name(program, parameter_list)
        if names and not parameter_list:  # only names the program lacks: 1.8.5 updated none
            return [], []
        from compat.fluid.backward import first_order_only
        no_grad_set = first_order_only(program, _by_name(program, no_grad_set))
        self._grad_clip = _clip.clip_for(program, self._legacy_clip)
        try:
            # 1.x appends to the loss's program under program_guard(loss program,
            # startup_program): a minimize outside the program's guard still builds there,
            # and startup_program=None keeps the current default startup program.
            with paddle.static.program_guard(program, startup_program):
                return super().minimize(loss, startup_program=startup_program,
                                        parameters=_params(parameter_list),
                                        no_grad_set=no_grad_set)
        finally:
            self._grad_clip = self._legacy_clip
            lr_var = getattr(self, "_learning_rate_map", {}).get(program)
            if isinstance(lr_var, paddle.pir.Value) and lr_var is not getattr(
                    self, "_legacy_lr_var", None):  # 1.x: a global variable, no Parameter
                _pir.mark_not_parameter(lr_var, program)

    def backward(self, loss, startup_program=None, parameter_list=None, no_grad_set=None,
                 callbacks=None, parameters=None):
        if parameters is None:
            parameters = _params(parameter_list)
        if paddle.in_dynamic_mode():  # 1.x dygraph: the optimizer's own parameter_list
            parameters = no_grad_set = None
        elif isinstance(loss, paddle.pir.Value):
            program = _pir.program_of(loss)
            parameters = _by_name(program, parameters)
            no_grad_set = _by_name(program, no_grad_set)
        # without parameters: the program's, in 1.x's creation order (compat's
        # Block.all_parameters)
        return super().backward(loss, startup_program=startup_program, parameters=parameters,
                                no_grad_set=no_grad_set, callbacks=callbacks)

    def apply_optimize(self, loss, startup_program, params_grads):
        if paddle.in_dynamic_mode():
            return self.apply_gradients(params_grads)
        program = _pir.program_of(loss) if isinstance(loss, paddle.pir.Value) else None
        with paddle.static.program_guard(program or paddle.static.default_main_program(),
                                         startup_program):
            return self.apply_gradients(params_grads)

    def current_step_lr(self):
        if self._legacy_lr is not None:
            used = getattr(self, "_legacy_used", None)
            lr = used if used is not None else self._legacy_lr.peek()
        elif isinstance(self._learning_rate, LearningRateDecay):
            # a user's decay answers get_lr() as 1.x's current_step_lr() (its type included)
            return self.get_lr()
        else:
            lr = float(self.get_lr())
        return _stepped_lr(self, lr)

    def set_dict(self, state_dict):
        return self.set_state_dict(state_dict)

    def load(self, stat_dict):
        return self.set_state_dict(stat_dict)

    def clear_gradients(self):
        return self.clear_grad()


def _opt(name, *aliases, replacement=None):
    return legacy("paddle.fluid.optimizer." + name,
                  *(["paddle.fluid.optimizer." + a for a in aliases]), replacement=replacement)


@_opt("SGDOptimizer", "SGD", replacement="paddle.optimizer.SGD")
class SGDOptimizer(_Legacy, O.SGD):
    def __init__(self, learning_rate, parameter_list=None, regularization=None, grad_clip=None,
                 name=None):
        O.SGD.__init__(self, learning_rate=_lr(learning_rate), parameters=_params(parameter_list),
                       weight_decay=regularization, grad_clip=grad_clip, name=name)
        self._legacy_setup(learning_rate, grad_clip)


@_opt("MomentumOptimizer", "Momentum", replacement="paddle.optimizer.Momentum")
class MomentumOptimizer(_Legacy, O.Momentum):
    def __init__(self, learning_rate, momentum, parameter_list=None, use_nesterov=False,
                 regularization=None, grad_clip=None, name=None):
        O.Momentum.__init__(self, learning_rate=_lr(learning_rate), momentum=momentum,
                            parameters=_params(parameter_list), use_nesterov=use_nesterov,
                            weight_decay=regularization, grad_clip=grad_clip, name=name)
        self._legacy_setup(learning_rate, grad_clip)


@_opt("AdagradOptimizer", "Adagrad", replacement="paddle.optimizer.Adagrad")
class AdagradOptimizer(_Legacy, O.Adagrad):
    def __init__(self, learning_rate, epsilon=1e-06, parameter_list=None, regularization=None,
                 grad_clip=None, name=None, initial_accumulator_value=0.0):
        O.Adagrad.__init__(self, learning_rate=_lr(learning_rate), epsilon=epsilon,
                           parameters=_params(parameter_list), weight_decay=regularization,
                           grad_clip=grad_clip, name=name,
                           initial_accumulator_value=initial_accumulator_value)
        self._legacy_setup(learning_rate, grad_clip)


@_opt("AdamaxOptimizer", "Adamax", replacement="paddle.optimizer.Adamax")
class AdamaxOptimizer(_Legacy, O.Adamax):
    def __init__(self, learning_rate=0.001, beta1=0.9, beta2=0.999, epsilon=1e-08,
                 parameter_list=None, regularization=None, grad_clip=None, name=None):
        O.Adamax.__init__(self, learning_rate=_lr(learning_rate), beta1=beta1, beta2=beta2,
                          epsilon=epsilon, parameters=_params(parameter_list),
                          weight_decay=regularization, grad_clip=grad_clip, name=name)
        self._legacy_setup(learning_rate, grad_clip)


@_opt("RMSPropOptimizer", replacement="paddle.optimizer.RMSProp")
class RMSPropOptimizer(_Legacy, O.RMSProp):
    def __init__(self, learning_rate, rho=0.95, epsilon=1e-06, momentum=0.0, centered=False,
                 parameter_list=None, regularization=None, grad_clip=None, name=None):
        O.RMSProp.__init__(self, learning_rate=_lr(learning_rate), rho=rho, epsilon=epsilon,
                           momentum=momentum, centered=centered,
                           parameters=_params(parameter_list), weight_decay=regularization,
                           grad_clip=grad_clip, name=name)
        self._legacy_setup(learning_rate, grad_clip)


_FP32 = paddle.float32
_F32_BOX = array.array("f", [0.0])


def _r32(x):
    """``x`` rounded to float32 (as a Python float)."""
    _F32_BOX[0] = x
    return _F32_BOX[0]


def _sharded():
    """Whether a distributed wrapper (FSDP, auto data parallel) rewrites the gradients
    inside ``Optimizer._apply_optimize``."""
    try:
        from paddle.distributed.auto_parallel.auto_dp_utils import in_auto_dp_mode
        from paddle.distributed.auto_parallel.fully_shard_fusion import get_fsdp_context
    except ImportError:  # pragma: no cover
        return False
    return bool(in_auto_dp_mode()) or get_fsdp_context() is not None


def _attr32(x):
    """A 1.x float attribute as the kernels saw it (rounded to float32); tensors as given."""
    return _r32(x) if isinstance(x, (int, float)) and not isinstance(x, bool) else x


def _one_minus(x):
    """``1 - x`` rounded like the 1.x kernels (in float32)."""
    return float(np.float32(1.0) - np.float32(x))


class _PyOptimizer(O.Optimizer):
    """An optimizer whose update is written with paddle ops (dygraph and PIR alike), for
    1.x update rules today's kernels no longer compute."""

    _accumulators_spec = ()  # (name, fill_value, shape or None)

    def __init__(self, learning_rate, parameters, weight_decay, grad_clip, name):
        super().__init__(learning_rate=learning_rate, parameters=parameters,
                         weight_decay=weight_decay, grad_clip=grad_clip, name=name)
        self._multi_precision = False

    def _create_accumulators(self, block, parameters):
        if isinstance(parameters, dict):
            parameters = parameters.get("params")
        for p in parameters:
            if p.name in self._already_create_accumulator:
                continue
            for acc, fill, shape in self._accumulators_spec:
                self._add_accumulator(acc, p, fill_value=fill, shape=shape)
            self._already_create_accumulator.add(p.name)

    _lazy_mode = False  # sparse gradients: update only the rows they hold (1.x lazy_mode)

    def _append_optimize_op(self, block, param_and_grad):
        p, g = param_and_grad
        rows = None
        if paddle.in_dynamic_mode() and g.is_selected_rows():
            g, rows = _dense_grad(p, g)
        accs = {acc: self._get_accumulator(acc, p) for acc, _, _ in self._accumulators_spec}
        lr = self._create_param_lr(param_and_grad)
        self._sparse_step = rows is not None
        keep = None
        if rows is not None and self._lazy_mode:
            keep = paddle.zeros([p.shape[0], 1], dtype="bool")
            keep[paddle.to_tensor(rows, dtype="int64")] = True
        for target, value in self._update(p, g, lr, accs):
            if keep is not None and list(target.shape) == list(p.shape):
                value = paddle.where(keep, value, target)
            paddle.assign(value, target)
        return None


def _dense_grad(p, g):
    """A dygraph sparse (SelectedRows) gradient of ``p`` as the dense gradient 1.x's
    kernels used (duplicate rows summed, absent rows zero), and its row indices."""
    rows = list(g.rows())
    values = g._get_tensor_from_selected_rows()
    dense = paddle.zeros(p.shape, dtype=values.dtype)
    if rows:
        dense = paddle.index_add(dense, paddle.to_tensor(rows, dtype="int64"), 0, values)
    return dense, rows


class _DecayedAdagrad(_PyOptimizer):
    """``moment = decay * moment + (1 - decay) * g^2``;
    ``param -= lr * g / (sqrt(moment) + epsilon)`` (1.x decayed_adagrad op)."""

    type = "decayed_adagrad"
    _accumulators_spec = (("moment", 0.0, None),)

    def __init__(self, learning_rate, decay, epsilon, parameters, weight_decay, grad_clip, name):
        super().__init__(learning_rate, parameters, weight_decay, grad_clip, name)
        self._decay = decay
        self._epsilon = epsilon

    def _update(self, p, g, lr, accs):
        m = accs["moment"]
        new_m = m * self._decay + (g * g) * _one_minus(self._decay)
        return [(m, new_m), (p, p - lr * g / (paddle.sqrt(new_m) + self._epsilon))]


class _Ftrl(_PyOptimizer):
    """1.x ftrl op: ``new = squared + g^2``; ``linear += g - (new^-lr_power -
    squared^-lr_power) / lr * param``; ``param = (l1 * sign(linear) - linear) /
    (new^-lr_power / lr + 2 * l2)`` where ``|linear| > l1``, else 0 (the kernel adds 1e-10
    to l1 and l2). 1.8.5's FtrlOptimizer passed l1 as the kernel's l2 too."""

    type = "ftrl"
    _accumulators_spec = (("squared", 0.0, None), ("linear", 0.0, None))

    def __init__(self, learning_rate, l1, lr_power, parameters, weight_decay, grad_clip, name):
        super().__init__(learning_rate, parameters, weight_decay, grad_clip, name)
        self._l1, self._lr_power = l1, lr_power

    def _update(self, p, g, lr, accs):
        squared, linear = accs["squared"], accs["linear"]
        l1 = l2 = self._l1 + 1e-10
        new = squared + g * g
        if self._lr_power == -0.5:
            scale_new, scale_old = paddle.sqrt(new), paddle.sqrt(squared)
        else:
            scale_new = paddle.pow(new, -self._lr_power)
            scale_old = paddle.pow(squared, -self._lr_power)
        linear_out = linear + g - (scale_new - scale_old) / lr * p
        shrunk = (l1 * paddle.sign(linear_out) - linear_out) / (scale_new / lr + 2 * l2)
        p_out = paddle.where(paddle.abs(linear_out) > l1, shrunk, paddle.zeros_like(p))
        return [(squared, new), (linear, linear_out), (p, p_out)]


class _Adadelta(_PyOptimizer):
    """1.x adadelta op: no learning rate; the parameter step is computed with the
    *updated* squared-update average (the 1.x kernel wrote that accumulator in place
    before evaluating the step): ``E[g2] = rho E[g2] + (1-rho) g^2``;
    ``u = -sqrt((E[dx2] + eps) / (E[g2] + eps)) g``; ``E[dx2] = rho E[dx2] + (1-rho) u^2``;
    ``param += -sqrt((E[dx2] + eps) / (E[g2] + eps)) g``. The learning rate is held as
    by any optimizer (a decay advances as 1.x's did) but takes no part in the update."""

    type = "adadelta"
    _accumulators_spec = (("avg_squared_grad", 0.0, None), ("avg_squared_update", 0.0, None))

    def __init__(self, learning_rate, epsilon, rho, parameters, weight_decay, grad_clip, name):
        super().__init__(learning_rate, parameters, weight_decay, grad_clip, name)
        self._epsilon = epsilon
        self._rho = rho

    def _update(self, p, g, lr, accs):
        eg, ex = accs["avg_squared_grad"], accs["avg_squared_update"]
        rho, eps = self._rho, self._epsilon
        new_eg = eg * rho + (g * g) * _one_minus(rho)
        u = -(paddle.sqrt((ex + eps) / (new_eg + eps))) * g
        new_ex = ex * rho + (u * u) * _one_minus(rho)
        step = -(paddle.sqrt((new_ex + eps) / (new_eg + eps))) * g
        return [(eg, new_eg), (ex, new_ex), (p, p + step)]


class _Lamb(_PyOptimizer):
    """1.x lamb op (no bias correction of the moments):
    ``r = m / (sqrt(v) + eps) + wd * p``; ``p -= lr * (||p|| / ||r|| if both > 0 else 1) * r``."""

    type = "lamb"
    _accumulators_spec = (("moment1", 0.0, None), ("moment2", 0.0, None))

    def __init__(self, learning_rate, lamb_weight_decay, beta1, beta2, epsilon, parameters,
                 weight_decay, grad_clip, exclude_fn, name):
        super().__init__(learning_rate, parameters, weight_decay, grad_clip, name)
        self._wd, self._beta1, self._beta2, self._epsilon = lamb_weight_decay, beta1, beta2, epsilon
        self._exclude_fn = exclude_fn

    def _update(self, p, g, lr, accs):
        m1, m2 = accs["moment1"], accs["moment2"]
        wd = self._wd
        if self._exclude_fn is not None and self._exclude_fn(p):
            wd = 0.0
        new_m1 = m1 * self._beta1 + g * _one_minus(self._beta1)
        new_m2 = m2 * self._beta2 + (g * g) * _one_minus(self._beta2)
        r = new_m1 / (paddle.sqrt(new_m2) + self._epsilon) + p * wd
        pn = paddle.sqrt(paddle.sum(p * p))
        rn = paddle.sqrt(paddle.sum(r * r))
        ratio = paddle.where(paddle.logical_and(pn > 0, rn > 0), pn / rn, paddle.ones_like(pn))
        return [(m1, new_m1), (m2, new_m2), (p, p - (lr * ratio) * r)]


class _Adam(_PyOptimizer):
    """1.x adam op: ``lr_t = lr * sqrt(1 - beta2^t) / (1 - beta1^t)``; moments updated;
    ``p -= lr_t * m / (sqrt(v) + epsilon)``. Today's kernel adds
    ``epsilon * sqrt(1 - beta2^t)`` instead of ``epsilon``: a different step wherever
    ``sqrt(v)`` is not large against ``epsilon``."""

    type = "adam"

    def __init__(self, learning_rate, beta1, beta2, epsilon, parameters, weight_decay,
                 grad_clip, name):
        super().__init__(learning_rate, parameters, weight_decay, grad_clip, name)
        self._beta1, self._beta2, self._epsilon = beta1, beta2, epsilon
        self._accumulators_spec = (("moment1", 0.0, None), ("moment2", 0.0, None),
                                   ("beta1_pow_acc", _r32(float(beta1)), [1]),
                                   ("beta2_pow_acc", _r32(float(beta2)), [1]))
        self._fast, self._fast_lr = {}, []
        self._beta1_f, self._beta2_f = _r32(beta1), _r32(beta2)
        self._fast_ok = isinstance(beta1, (int, float)) and isinstance(beta2, (int, float)) \
            and isinstance(epsilon, (int, float))

    # -- dygraph fast path: today's fused kernel, fed so that it computes 1.8's update --
    #
    # 1.8.5's adam op and today's CPU ``merged_adam_`` evaluate the same expressions
    # (moments, then ``p - lr_t * (m / (sqrt(v) + e))``) except for two scalars:
    #   * ``lr_t``: 1.8.5 computed ``lr * (sqrt(1 - b2p) / (1 - b1p))`` with a double
    #     ``sqrt`` and division (its C ``sqrt``), today's kernel in float;
    #   * ``e``: 1.8.5 added ``epsilon``, today's kernel ``epsilon * sqrt(1 - b2p)``.
    # The kernel is given beta powers of 0 (so both factors are exactly 1, and with
    # ``use_global_beta_pow`` it leaves them alone), 1.8.5's ``lr_t`` computed here on the
    # host from the real beta powers, and ``epsilon`` itself: the update is bit-for-bit
    # 1.8.5's (tests/test_compat_adam.py checks it against the real 1.8.5 kernel). The
    # real beta-power accumulators (CPU, one float each) are read and advanced here
    # through numpy views of their memory, exactly as the 1.8.5 kernel advanced them.
    # One kernel call updates every parameter (the vectorised per-parameter ``adam_``
    # kernel fuses multiply-adds and rounds differently from 1.8.5).

    def _fast_state(self, p):
        """(param, moment1, moment2, beta1-pow view, beta2-pow view), or None where the
        fast path does not apply (cached per parameter)."""
        st = self._fast.get(id(p))
        if st is not None and st[0] is p:
            return st
        if p.dtype != _FP32 or not p.place.is_cpu_place():
            return None
        if p.name not in self._already_create_accumulator:
            if self.helper is None:
                self.helper = LayerHelper(self.__class__.__name__)
            self._create_accumulators(paddle.static.default_main_program().global_block(), [p])
        acc = self._accumulators
        b1p, b2p = acc["beta1_pow_acc"][p.name], acc["beta2_pow_acc"][p.name]
        if b1p.dtype != _FP32 or b2p.dtype != _FP32 or not b1p.place.is_cpu_place() \
                or not b2p.place.is_cpu_place():
            return None
        st = (p, acc["moment1"][p.name], acc["moment2"][p.name],
              np.from_dlpack(b1p), np.from_dlpack(b2p))
        self._fast[id(p)] = st
        return st

    def _fast_buffers(self, i):
        """(lr tensor, its numpy view, a zero beta power) for kernel call ``i``."""
        bufs = self._fast_lr
        while len(bufs) <= i:
            t = paddle.to_tensor([0.0], dtype="float32", place=paddle.CPUPlace())
            bufs.append((t, np.from_dlpack(t),
                         paddle.zeros([1], dtype="float32").cpu()))
        return bufs[i]

    def _dygraph_minimize(self, loss, parameter_list):
        """Dygraph ``minimize`` without the generic pipeline's per-step overhead, for the
        common case (no clip, no regularization, a plain parameter list): the same
        ``(param, grad)`` pairs as ``Optimizer.backward`` collects, then the fused pass.
        None where the generic pipeline must run."""
        if not self._fast_ok or self._grad_clip is not None or self.regularization is not None \
                or _optimizer_module.g_shard_bypass_dygraph_optimizer or _sharded():
            return None
        params = _params(parameter_list) or self._parameter_list
        if not params or isinstance(params[0], dict):
            return None
        for p in params:
            if getattr(p, "regularizer", None) is not None:
                return None
        if self._dtype is None:
            self._dtype = loss.dtype
        grads = paddle.base.core.eager.get_all_grads(params)
        params_grads = [(p, g) for p, g in zip(params, grads) if g is not None]
        with paddle.no_grad():
            self._create_optimization_pass(params_grads)
        return None, params_grads

    def _create_optimization_pass(self, parameters_and_grads, param_group_idx=0):
        if not (self._fast_ok and paddle.in_dynamic_mode()
                and isinstance(parameters_and_grads, list)):
            self._fast.clear()
            return super()._create_optimization_pass(parameters_and_grads, param_group_idx)
        if self.helper is None:
            self.helper = LayerHelper(self.__class__.__name__)
        self._create_global_learning_rate()
        glr = self._global_learning_rate()
        if glr.dtype != _FP32:
            self._fast.clear()
            return super()._create_optimization_pass(parameters_and_grads, param_group_idx)
        glr_value = None
        groups, slow = {}, []
        fast, fast_state = self._fast, self._fast_state
        for p, g in parameters_and_grads:
            if g is None or p.stop_gradient:
                continue
            st = fast.get(id(p))
            if st is None or st[0] is not p:
                st = fast_state(p)
            if st is None or g.is_selected_rows():
                slow.append((p, g))
                continue
            attr = p.optimize_attr
            plr = attr.get("learning_rate", 1.0) if attr else 1.0
            if plr == 1.0:
                if glr_value is None:
                    glr_value = glr.item()
                lrv = glr_value
            else:
                lrv = self._create_param_lr((p, g)).item()
            key = (lrv, float(st[3][0]), float(st[4][0]))
            grp = groups.get(key)
            if grp is None:
                grp = groups[key] = ([], [], [], [], [])
            grp[0].append(p)
            grp[1].append(g)
            grp[2].append(st[1])
            grp[3].append(st[2])
            grp[4].append(st)
        b1, b2, b1f, b2f = self._beta1, self._beta2, self._beta1_f, self._beta2_f
        eps = self._epsilon
        for i, ((lrv, b1p, b2p), (ps, gs, m1s, m2s, sts)) in enumerate(groups.items()):
            om1, om2 = _r32(1.0 - b1p), _r32(1.0 - b2p)
            if not (om1 > 0.0 and om2 > 0.0):
                slow.extend(zip(ps, gs))
                continue
            lr_t, lr_view, zero = self._fast_buffers(i)
            lr_view[0] = lrv * (math.sqrt(om2) / om1)  # rounded to float32 by the store
            n = len(ps)
            _C_ops.merged_adam_(ps, gs, [lr_t] * n, m1s, m2s, None, [zero] * n, [zero] * n,
                                None, b1, b2, eps, False, True, False)
            # float32 products (exact in double, rounded once), as 1.8.5's kernel
            n1, n2 = _r32(b1f * b1p), _r32(b2f * b2p)
            for st in sts:
                st[3][0] = n1
                st[4][0] = n2
        for pg in slow:
            self._fast.pop(id(pg[0]), None)
            self._append_optimize_op(None, pg)
        return None

    def set_state_dict(self, state_dict):
        self._fast.clear()
        return super().set_state_dict(state_dict)

    def _update(self, p, g, lr, accs):
        self._fast.pop(id(p), None)
        m1, m2 = accs["moment1"], accs["moment2"]
        # 1.x passed beta1/beta2/epsilon as float attributes: a float64 parameter's kernel
        # saw them rounded to float32 (and its beta powers started from them)
        b1, b2, eps = _attr32(self._beta1), _attr32(self._beta2), _attr32(self._epsilon)
        b1p, b2p = accs["beta1_pow_acc"], accs["beta2_pow_acc"]
        if getattr(self, "_sparse_step", False):
            # 1.x's (and today's) sparse adam kernel advances the beta powers in place
            # before it reads them: a sparse step t uses beta^(t+1) (checked on 1.8.5)
            b1p, b2p = b1p * b1, b2p * b2
            lr_t = lr * paddle.sqrt(1.0 - b2p) / (1.0 - b1p)
            new_m1 = m1 * b1 + g * _one_minus(b1)
            new_m2 = m2 * b2 + (g * g) * _one_minus(b2)
            step = lr_t * (new_m1 / (paddle.sqrt(new_m2) + eps))
            return [(m1, new_m1), (m2, new_m2), (p, p - step),
                    (accs["beta1_pow_acc"], b1p), (accs["beta2_pow_acc"], b2p)]
        lr_t = lr * paddle.sqrt(1.0 - b2p) / (1.0 - b1p)
        new_m1 = m1 * b1 + g * _one_minus(b1)
        new_m2 = m2 * b2 + (g * g) * _one_minus(b2)
        step = lr_t * (new_m1 / (paddle.sqrt(new_m2) + eps))
        return [(m1, new_m1), (m2, new_m2), (p, p - step),
                (b1p, b1p * b1), (b2p, b2p * b2)]


@_opt("AdamOptimizer", "Adam", replacement="paddle.optimizer.Adam")
class AdamOptimizer(_Legacy, _Adam):
    """1.x Adam, computed like the 1.x kernel (``_Adam``); ``lazy_mode`` only concerned
    sparse gradients."""

    def __init__(self, learning_rate=0.001, beta1=0.9, beta2=0.999, epsilon=1e-08,
                 parameter_list=None, regularization=None, grad_clip=None, name=None,
                 lazy_mode=False):
        _Adam.__init__(self, _lr(learning_rate), beta1, beta2, epsilon, _params(parameter_list),
                       regularization, grad_clip, name)
        self._lazy_mode = lazy_mode
        self._legacy_setup(learning_rate, grad_clip)


@_opt("AdadeltaOptimizer", "Adadelta", replacement="paddle.optimizer.Adadelta")
class AdadeltaOptimizer(_Legacy, _Adadelta):
    """1.x's adadelta op had no learning-rate input (today's Adadelta multiplies the step
    by it) and stepped with the updated squared-update average; see ``_Adadelta``. 1.x's
    optimizer still took the learning rate as any other: a dygraph decay advanced at every
    ``minimize`` (another optimizer sharing it saw that), ``current_step_lr()`` gave the
    rate of the last one, and a static decay was the program's learning-rate variable
    (fetchable, advanced per run)."""

    def __init__(self, learning_rate, epsilon=1e-06, rho=0.95, parameter_list=None,
                 regularization=None, grad_clip=None, name=None):
        _Adadelta.__init__(self, _lr(learning_rate), epsilon, rho, _params(parameter_list),
                           regularization, grad_clip, name)
        self._legacy_setup(learning_rate, grad_clip)


@_opt("LambOptimizer", replacement="paddle.optimizer.Lamb (note: it bias-corrects the moments)")
class LambOptimizer(_Legacy, _Lamb):
    def __init__(self, learning_rate=0.001, lamb_weight_decay=0.01, beta1=0.9, beta2=0.999,
                 epsilon=1e-06, parameter_list=None, regularization=None, grad_clip=None,
                 exclude_from_weight_decay_fn=None, name=None):
        _Lamb.__init__(self, _lr(learning_rate), lamb_weight_decay, beta1, beta2, epsilon,
                       _params(parameter_list), regularization, grad_clip,
                       exclude_from_weight_decay_fn, name)
        self._legacy_setup(learning_rate, grad_clip)


@_opt("DecayedAdagradOptimizer", "DecayedAdagrad", replacement="(no equivalent in paddle.optimizer)")
class DecayedAdagradOptimizer(_Legacy, _DecayedAdagrad):
    def __init__(self, learning_rate, decay=0.95, epsilon=1e-06, parameter_list=None,
                 regularization=None, grad_clip=None, name=None):
        _DecayedAdagrad.__init__(self, _lr(learning_rate), decay, epsilon, _params(parameter_list),
                                 regularization, grad_clip, name)
        self._legacy_setup(learning_rate, grad_clip)


@_opt("LarsMomentumOptimizer", "LarsMomentum", replacement="paddle.incubate.optimizer.LarsMomentumOptimizer")
class LarsMomentumOptimizer(_Legacy, paddle.incubate.optimizer.LarsMomentumOptimizer):
    def __init__(self, learning_rate, momentum, lars_coeff=0.001, lars_weight_decay=0.0005,
                 parameter_list=None, regularization=None, grad_clip=None, name=None):
        paddle.incubate.optimizer.LarsMomentumOptimizer.__init__(
            self, learning_rate=_lr(learning_rate), momentum=momentum, lars_coeff=lars_coeff,
            lars_weight_decay=lars_weight_decay, parameter_list=_params(parameter_list),
            regularization=regularization, grad_clip=grad_clip, name=name)
        self._legacy_setup(learning_rate, grad_clip)


LarsMomentum = LarsMomentumOptimizer


@_opt("ModelAverage", replacement="paddle.incubate.ModelAverage")
class ModelAverage(paddle.incubate.ModelAverage):
    def __init__(self, average_window_rate, min_average_window=10000,
                 max_average_window=10000, regularization=None, name=None):
        super().__init__(average_window_rate, min_average_window=min_average_window,
                         max_average_window=max_average_window, name=name)


# ExponentialMovingAverage and LookaheadOptimizer come from the rule database too (calling
# them raises compat.LegacyAPIError with the migration): paddle.static.ExponentialMovingAverage
# fails on PIR programs (TypeError in its constructor on 3.3.1) and paddle.incubate.LookAhead
# neither accepts a 1.x inner optimizer nor pulls the weights back at 1.8.5's step.


@_opt("FtrlOptimizer", "Ftrl", replacement="(no equivalent in paddle.optimizer)")
class FtrlOptimizer(_Legacy, _Ftrl):
    def __init__(self, learning_rate, l1=0.0, l2=0.0, lr_power=-0.5, parameter_list=None,
                 regularization=None, grad_clip=None, name=None):
        _Ftrl.__init__(self, _lr(learning_rate), l1, lr_power, _params(parameter_list),
                       regularization, grad_clip, name)
        self._legacy_setup(learning_rate, grad_clip)


SGD = SGDOptimizer
Momentum = MomentumOptimizer
Adagrad = AdagradOptimizer
Adam = AdamOptimizer
Adamax = AdamaxOptimizer
DecayedAdagrad = DecayedAdagradOptimizer
Adadelta = AdadeltaOptimizer
RMSProp = RMSPropOptimizer
Ftrl = FtrlOptimizer

_lazy.attach(globals())
