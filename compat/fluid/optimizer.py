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

import paddle
import paddle.optimizer as O

from compat import _lazy
from compat._runtime import legacy, manual_error
from compat.fluid import _pir
from compat.fluid.layers.learning_rate_scheduler import LegacyDecay

__all__ = ["SGD", "Momentum", "Adagrad", "Adam", "Adamax", "Dpsgd", "DecayedAdagrad", "Ftrl",
           "SGDOptimizer", "MomentumOptimizer", "AdagradOptimizer", "AdamOptimizer",
           "AdamaxOptimizer", "DpsgdOptimizer", "DecayedAdagradOptimizer",
           "RMSPropOptimizer", "FtrlOptimizer", "Adadelta", "AdadeltaOptimizer",
           "ModelAverage", "LarsMomentum", "LarsMomentumOptimizer", "LambOptimizer",
           "ExponentialMovingAverage", "PipelineOptimizer", "LookaheadOptimizer",
           "RecomputeOptimizer", "DGCMomentumOptimizer"]


def _lr(learning_rate):
    if isinstance(learning_rate, int) and not isinstance(learning_rate, bool):
        return float(learning_rate)
    if isinstance(learning_rate, (paddle.Tensor, paddle.pir.Value)):
        raise manual_error("paddle.fluid.optimizer.Optimizer",
                           "a Variable learning rate is not supported; pass a float or a "
                           "fluid.layers.*_decay / fluid.dygraph.*Decay schedule")
    return learning_rate


def _params(parameter_list):
    return None if parameter_list is None else list(parameter_list)


class _Legacy(object):
    """1.x optimizer protocol on top of a ``paddle.optimizer`` class."""

    def _legacy_setup(self, learning_rate, grad_clip):
        self._legacy_lr = learning_rate if isinstance(learning_rate, LegacyDecay) else None
        self._legacy_clip = grad_clip

    def minimize(self, loss, startup_program=None, parameter_list=None, no_grad_set=None):
        from compat.fluid import clip as _clip
        if paddle.in_dynamic_mode():
            if self._legacy_lr is not None:
                self._legacy_lr.consume()
            return super().minimize(loss, startup_program=startup_program,
                                    parameters=_params(parameter_list), no_grad_set=no_grad_set)
        program = _pir.program_of(loss) if isinstance(loss, paddle.pir.Value) else None
        if program is None:
            program = paddle.static.default_main_program()
        if isinstance(program, paddle.pir.Program):
            _pir.mark_forward(program)
        self._grad_clip = _clip.clip_for(program, self._legacy_clip)
        try:
            return super().minimize(loss, startup_program=startup_program,
                                    parameters=_params(parameter_list), no_grad_set=no_grad_set)
        finally:
            self._grad_clip = self._legacy_clip

    def backward(self, loss, startup_program=None, parameter_list=None, no_grad_set=None,
                 callbacks=None, parameters=None):
        if parameters is None:
            parameters = _params(parameter_list)
        return super().backward(loss, startup_program=startup_program, parameters=parameters,
                                no_grad_set=no_grad_set, callbacks=callbacks)

    def current_step_lr(self):
        if self._legacy_lr is not None:
            return self._legacy_lr.current()
        return float(self.get_lr())

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


@_opt("AdamOptimizer", "Adam", replacement="paddle.optimizer.Adam")
class AdamOptimizer(_Legacy, O.Adam):
    def __init__(self, learning_rate=0.001, beta1=0.9, beta2=0.999, epsilon=1e-08,
                 parameter_list=None, regularization=None, grad_clip=None, name=None,
                 lazy_mode=False):
        O.Adam.__init__(self, learning_rate=_lr(learning_rate), beta1=beta1, beta2=beta2,
                        epsilon=epsilon, parameters=_params(parameter_list),
                        weight_decay=regularization, grad_clip=grad_clip, lazy_mode=lazy_mode,
                        name=name)
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


@_opt("AdadeltaOptimizer", "Adadelta", replacement="paddle.optimizer.Adadelta")
class AdadeltaOptimizer(_Legacy, O.Adadelta):
    """1.x's adadelta op had no learning-rate input: the update is not scaled by
    ``learning_rate`` (today's Adadelta multiplies by it), so 1.0 is passed."""

    def __init__(self, learning_rate, epsilon=1e-06, rho=0.95, parameter_list=None,
                 regularization=None, grad_clip=None, name=None):
        O.Adadelta.__init__(self, learning_rate=1.0, epsilon=epsilon, rho=rho,
                            parameters=_params(parameter_list), weight_decay=regularization,
                            grad_clip=grad_clip, name=name)
        self._legacy_setup(None, grad_clip)
        self._legacy_nominal_lr = learning_rate

    def current_step_lr(self):
        lr = self._legacy_nominal_lr
        return lr.current() if isinstance(lr, LegacyDecay) else float(lr)


@_opt("LambOptimizer", replacement="paddle.optimizer.Lamb")
class LambOptimizer(_Legacy, O.Lamb):
    def __init__(self, learning_rate=0.001, lamb_weight_decay=0.01, beta1=0.9, beta2=0.999,
                 epsilon=1e-06, parameter_list=None, regularization=None, grad_clip=None,
                 exclude_from_weight_decay_fn=None, name=None):
        O.Lamb.__init__(self, learning_rate=_lr(learning_rate), lamb_weight_decay=lamb_weight_decay,
                        beta1=beta1, beta2=beta2, epsilon=epsilon,
                        parameters=_params(parameter_list), grad_clip=grad_clip,
                        exclude_from_weight_decay_fn=exclude_from_weight_decay_fn, name=name)
        if regularization is not None:
            self.regularization = regularization
        self._legacy_setup(learning_rate, grad_clip)


class _DecayedAdagrad(O.Optimizer):
    """``moment = decay * moment + (1 - decay) * g^2``;
    ``param -= lr * g / (sqrt(moment) + epsilon)`` (1.x decayed_adagrad op)."""

    type = "decayed_adagrad"
    _moment_acc_str = "moment"

    def __init__(self, learning_rate, decay, epsilon, parameters, weight_decay, grad_clip, name):
        super().__init__(learning_rate=learning_rate, parameters=parameters,
                         weight_decay=weight_decay, grad_clip=grad_clip, name=name)
        self._decay = decay
        self._epsilon = epsilon

    def _create_accumulators(self, block, parameters):
        if isinstance(parameters, dict):
            parameters = parameters.get("params")
        for p in parameters:
            if p.name in self._already_create_accumulator:
                continue
            self._add_accumulator(self._moment_acc_str, p)
            self._already_create_accumulator.add(p.name)

    def _append_optimize_op(self, block, param_and_grad):
        p, g = param_and_grad
        moment = self._get_accumulator_master(self._moment_acc_str, p)
        lr = self._create_param_lr(param_and_grad)
        new_m = moment * self._decay + (g * g) * (1.0 - self._decay)
        new_p = p - lr * g / (paddle.sqrt(new_m) + self._epsilon)
        paddle.assign(new_m, moment)
        paddle.assign(new_p, p)
        return None


@_opt("DecayedAdagradOptimizer", "DecayedAdagrad", replacement="(no equivalent in paddle.optimizer)")
class DecayedAdagradOptimizer(_Legacy, _DecayedAdagrad):
    def __init__(self, learning_rate, decay=0.95, epsilon=1e-06, parameter_list=None,
                 regularization=None, grad_clip=None, name=None):
        _DecayedAdagrad.__init__(self, _lr(learning_rate), decay, epsilon, _params(parameter_list),
                                 regularization, grad_clip, name)
        self._legacy_setup(learning_rate, grad_clip)


def _manual_optimizer(name, why):
    full = "paddle.fluid.optimizer." + name

    @legacy(full)
    class _Manual(object):
        def __init__(self, *args, **kwargs):
            raise manual_error(full, why)
    _Manual.__name__ = _Manual.__qualname__ = name
    return _Manual


FtrlOptimizer = _manual_optimizer("FtrlOptimizer", "today's Paddle has no FTRL optimizer")
Ftrl = FtrlOptimizer
DpsgdOptimizer = _manual_optimizer("DpsgdOptimizer", "today's Paddle has no DP-SGD optimizer")
Dpsgd = DpsgdOptimizer
DGCMomentumOptimizer = _manual_optimizer(
    "DGCMomentumOptimizer", "DGC is configured through paddle.distributed.fleet.DistributedStrategy.dgc")
PipelineOptimizer = _manual_optimizer(
    "PipelineOptimizer", "pipeline parallelism is configured through "
    "paddle.distributed.fleet.DistributedStrategy.pipeline")
RecomputeOptimizer = _manual_optimizer(
    "RecomputeOptimizer", "use paddle.distributed.fleet.utils.recompute or "
    "DistributedStrategy.recompute")


@_opt("LarsMomentumOptimizer", "LarsMomentum", replacement="paddle.incubate.optimizer.LarsMomentumOptimizer")
class LarsMomentumOptimizer(_Legacy, paddle.incubate.optimizer.LarsMomentumOptimizer):
    def __init__(self, learning_rate, momentum, lars_coeff=0.001, lars_weight_decay=0.0005,
                 parameter_list=None, regularization=None, grad_clip=None, name=None,
                 exclude_from_weight_decay=None, epsilon=0):
        paddle.incubate.optimizer.LarsMomentumOptimizer.__init__(
            self, learning_rate=_lr(learning_rate), momentum=momentum, lars_coeff=lars_coeff,
            lars_weight_decay=lars_weight_decay, parameter_list=_params(parameter_list),
            regularization=regularization, grad_clip=grad_clip, name=name,
            exclude_from_weight_decay=exclude_from_weight_decay, epsilon=epsilon)
        self._legacy_setup(learning_rate, grad_clip)


LarsMomentum = LarsMomentumOptimizer


@_opt("ModelAverage", replacement="paddle.incubate.ModelAverage")
class ModelAverage(paddle.incubate.ModelAverage):
    def __init__(self, average_window_rate, min_average_window=10000,
                 max_average_window=10000, regularization=None, name=None):
        super().__init__(average_window_rate, min_average_window=min_average_window,
                         max_average_window=max_average_window, name=name)


@_opt("ExponentialMovingAverage", replacement="paddle.static.ExponentialMovingAverage")
class ExponentialMovingAverage(paddle.static.ExponentialMovingAverage):
    def __init__(self, decay=0.999, thres_steps=None, name=None):
        super().__init__(decay=decay, thres_steps=thres_steps, name=name)


@_opt("LookaheadOptimizer", replacement="paddle.incubate.LookAhead")
class LookaheadOptimizer(object):
    def __init__(self, inner_optimizer, alpha=0.5, k=5):
        self._inner = inner_optimizer
        self._impl = paddle.incubate.LookAhead(inner_optimizer, alpha=alpha, k=k)

    def minimize(self, loss, startup_program=None):
        return self._impl.minimize(loss, startup_program=startup_program)

    def __getattr__(self, name):
        if name.startswith("_"):
            raise AttributeError(name)
        return getattr(self._impl, name)


SGD = SGDOptimizer
Momentum = MomentumOptimizer
Adagrad = AdagradOptimizer
Adam = AdamOptimizer
Adamax = AdamaxOptimizer
DecayedAdagrad = DecayedAdagradOptimizer
Adadelta = AdadeltaOptimizer
RMSProp = RMSPropOptimizer

_lazy.attach(globals())
