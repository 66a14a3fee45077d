"""PU104 python-optimizers: ``fluid.optimizer.DecayedAdagrad``, ``Adadelta``,
``LambOptimizer`` and ``Ftrl``, whose 1.8 update rules no Paddle 3 optimizer computes, become small optimizer classes fix adds to the
module, 1.8.5's update written with paddle ops.

What it does
    ``fluid.optimizer.DecayedAdagrad(learning_rate, decay, epsilon, parameter_list,
    regularization, grad_clip, name)`` (also ``DecayedAdagradOptimizer``) becomes
    ``_FluidDecayedAdagrad(...)`` and ``fluid.optimizer.Adadelta(learning_rate, epsilon,
    rho, ...)`` (also ``AdadeltaOptimizer``) becomes ``_FluidAdadelta(...)`` and
    ``fluid.optimizer.LambOptimizer(...)`` (also ``Lamb``) becomes ``_FluidLamb(...)`` and
    ``fluid.optimizer.Ftrl(...)`` (also ``FtrlOptimizer``) becomes ``_FluidFtrl(...)``, with the same
    arguments (1.8's signatures; a ``**kwargs`` argument passes 1.8's keywords through),
    and ``fix`` adds the class once, after the module's imports. Each subclasses
    ``paddle.optimizer.Optimizer`` (``parameter_list`` → ``parameters``,
    ``regularization`` → ``weight_decay``, so ``minimize``, ``step``, ``clear_grad``,
    gradient clipping and a learning-rate schedule behave as for today's optimizers),
    gives each parameter zero accumulators and computes 1.8.5's kernel, in dynamic mode
    and in static (PIR) programs:

    - DecayedAdagrad: ``moment = decay * moment + (1 - decay) * g^2``, ``param -= lr * g
      / (sqrt(moment) + epsilon)``;
    - Adadelta (1.8's op had no learning rate and stepped with the updated averages):
      ``E[g^2] = rho * E[g^2] + (1 - rho) * g^2``, ``u = sqrt((E[dx^2] + eps) / (E[g^2] +
      eps)) * g``, ``E[dx^2] = rho * E[dx^2] + (1 - rho) * u^2``, ``param -= sqrt((E[dx^2]
      + eps) / (E[g^2] + eps)) * g`` with the new ``E[dx^2]``;
    - Lamb (1.8's moments were not bias-corrected): ``m = beta1 * m + (1 - beta1) * g``,
      ``v = beta2 * v + (1 - beta2) * g^2``, ``r = m / (sqrt(v) + epsilon) +
      lamb_weight_decay * param`` (no decay where ``exclude_from_weight_decay_fn(param)``),
      ``param -= lr * (||param|| / ||r||) * r`` (ratio 1 when a norm is 0);
    - Ftrl (1.8.5's kernel, which got ``l1`` for ``l2`` as well: 1.8.5's ``l2`` had no
      effect): ``new = squared + g^2``, ``linear += g - (new^-lr_power -
      squared^-lr_power) / lr * param``, ``param = (l1 * sign(linear) - linear) /
      (new^-lr_power / lr + 2 * l2)`` where ``|linear| > l1``, else 0, ``squared = new``
      (1.8.5 rejected sparse gradients, and so does the class).

    ``1 - decay``, ``1 - rho`` and ``1 - beta`` are rounded to float32, as the kernels did.

Why is this bad?
    Paddle 3 has no DecayedAdagrad (``paddle.optimizer.RMSProp(rho=decay, momentum=0)``
    puts ``epsilon`` inside the square root, which changes the steps a lot when gradients
    are small), and ``paddle.optimizer.Adadelta`` multiplies the step by the learning rate
    and uses the previous squared-update average; ``paddle.optimizer.Lamb`` bias-corrects
    its moments (about 0.07% off after 5 steps) and takes no ``regularization``; there is
    no FTRL optimizer today.

Example
    ``opt = fluid.optimizer.DecayedAdagrad(learning_rate=0.1, decay=0.9)`` →
    ``opt = _FluidDecayedAdagrad(learning_rate=0.1, decay=0.9)``.

Fix safety
    Safe: parameters after several steps agree with 1.8.5 in both modes (the rules'
    examples, with L2 regularization, a global-norm clip and ``**kwargs``; program
    optimizers). The classes use ``paddle.optimizer.Optimizer``'s accumulator methods
    (``_add_accumulator``, ``_get_accumulator``, ``_create_param_lr``), as today's
    optimizers do. Manual when the module already uses the class's name for something
    else.
"""
from __future__ import annotations

import libcst as cst

CODE = "PU104"
STRUCTURAL = ("python-optimizers",)
NAMES = {"paddle.fluid.optimizer.DecayedAdagrad": "_FluidDecayedAdagrad",
         "paddle.fluid.optimizer.Adadelta": "_FluidAdadelta",
         "paddle.fluid.optimizer.LambOptimizer": "_FluidLamb",
         "paddle.fluid.optimizer.Ftrl": "_FluidFtrl"}
WHAT = "a paddle.optimizer.Optimizer subclass fix adds to the module: 1.8's update rule"
HELPERS = {"python-optimizers": f"_FluidDecayedAdagrad / _FluidAdadelta / _FluidLamb / "
                                f"_FluidFtrl ({WHAT})"}
HELPER_OF = {name: f"{cls} ({WHAT})" for name, cls in NAMES.items()}

# The parts the classes share, written once: 1.8's constructor arguments handed to
# paddle.optimizer.Optimizer, and one zero accumulator per name for every parameter. Each
# class's source is composed from them, so that the module gets self-contained classes.
_SUPER_INIT = """        super().__init__(learning_rate=learning_rate, parameters=parameter_list,
                         weight_decay=regularization, grad_clip=grad_clip, name=name)
        self._multi_precision = False
"""


def _accumulators(*names: str) -> str:
    """The ``_create_accumulators`` method adding a zero accumulator per name."""
    adds = "".join(f"                self._add_accumulator('{n}', p, fill_value=0.0)\n" for n in names)
    return ("    def _create_accumulators(self, block, parameters):\n"
            "        if isinstance(parameters, dict):\n"
            "            parameters = parameters['params']\n"
            "        for p in parameters:\n"
            "            if p.name not in self._already_create_accumulator:\n"
            + adds +
            "                self._already_create_accumulator.add(p.name)\n")


SOURCES = {"_FluidDecayedAdagrad": '''class _FluidDecayedAdagrad(paddle.optimizer.Optimizer):
    """Paddle 1.8's fluid.optimizer.DecayedAdagrad (gone from Paddle 3): per parameter
    moment = decay * moment + (1 - decay) * g^2 and param -= lr * g / (sqrt(moment) +
    epsilon), written with paddle ops (dynamic mode and static programs)."""
    type = 'decayed_adagrad'

    def __init__(self, learning_rate, decay=0.95, epsilon=1.0e-6, parameter_list=None,
                 regularization=None, grad_clip=None, name=None):
''' + _SUPER_INIT + '''        self._decay, self._epsilon = decay, epsilon

''' + _accumulators('moment') + '''
    def _append_optimize_op(self, block, param_and_grad):
        import numpy
        param, grad = param_and_grad
        moment = self._get_accumulator('moment', param)
        lr = self._create_param_lr(param_and_grad)
        # 1.8's kernel took 1 - decay in float32
        keep = float(numpy.float32(1.0) - numpy.float32(self._decay))
        moment_out = moment * self._decay + grad * grad * keep
        paddle.assign(moment_out, moment)
        paddle.assign(param - lr * grad / (paddle.sqrt(moment_out) + self._epsilon), param)
''',
    "_FluidLamb": '''class _FluidLamb(paddle.optimizer.Optimizer):
    """Paddle 1.8's fluid.optimizer.LambOptimizer, whose moments are not bias-corrected
    (paddle.optimizer.Lamb corrects them): m = beta1 * m + (1 - beta1) * g, v = beta2 * v +
    (1 - beta2) * g^2, r = m / (sqrt(v) + epsilon) + lamb_weight_decay * param (0 where
    exclude_from_weight_decay_fn(param) is true), param -= lr * (||param|| / ||r|| if both
    are > 0, else 1) * r; written with paddle ops (dynamic mode and static programs)."""
    type = 'lamb'

    def __init__(self, learning_rate=0.001, lamb_weight_decay=0.01, beta1=0.9, beta2=0.999,
                 epsilon=1e-06, parameter_list=None, regularization=None, grad_clip=None,
                 exclude_from_weight_decay_fn=None, name=None):
''' + _SUPER_INIT + '''        self._lamb_weight_decay, self._beta1, self._beta2 = lamb_weight_decay, beta1, beta2
        self._epsilon, self._exclude_fn = epsilon, exclude_from_weight_decay_fn

''' + _accumulators('moment1', 'moment2') + '''
    def _append_optimize_op(self, block, param_and_grad):
        import numpy
        param, grad = param_and_grad
        m1 = self._get_accumulator('moment1', param)
        m2 = self._get_accumulator('moment2', param)
        lr = self._create_param_lr(param_and_grad)
        decay = self._lamb_weight_decay
        if self._exclude_fn is not None and self._exclude_fn(param):
            decay = 0.0
        # 1.8's kernel took 1 - beta in float32
        m1_out = m1 * self._beta1 + grad * float(numpy.float32(1.0) - numpy.float32(self._beta1))
        m2_out = m2 * self._beta2 + grad * grad * float(numpy.float32(1.0) - numpy.float32(self._beta2))
        r = m1_out / (paddle.sqrt(m2_out) + self._epsilon) + param * decay
        p_norm = paddle.sqrt(paddle.sum(param * param))
        r_norm = paddle.sqrt(paddle.sum(r * r))
        ratio = paddle.where(paddle.logical_and(p_norm > 0, r_norm > 0), p_norm / r_norm,
                             paddle.ones_like(p_norm))
        paddle.assign(m1_out, m1)
        paddle.assign(m2_out, m2)
        paddle.assign(param - (lr * ratio) * r, param)
''',
    "_FluidFtrl": '''class _FluidFtrl(paddle.optimizer.Optimizer):
    """Paddle 1.8's fluid.optimizer.Ftrl (gone from Paddle 3), 1.8.5's ftrl kernel with
    paddle ops (dynamic mode and static programs): new = squared + g^2, linear += g -
    (new^-lr_power - squared^-lr_power) / lr * param, param = (l1 * sign(linear) - linear)
    / (new^-lr_power / lr + 2 * l2) where |linear| > l1, else 0; squared = new. As in
    1.8.5, the kernel got l1 for l2 too (its l2 argument had no effect)."""
    type = 'ftrl'

    def __init__(self, learning_rate, l1=0.0, l2=0.0, lr_power=-0.5, parameter_list=None,
                 regularization=None, grad_clip=None, name=None):
''' + _SUPER_INIT + '''        self._l1, self._l2, self._lr_power = l1, l2, lr_power

''' + _accumulators('squared', 'linear') + '''
    def _append_optimize_op(self, block, param_and_grad):
        param, grad = param_and_grad
        squared = self._get_accumulator('squared', param)
        linear = self._get_accumulator('linear', param)
        lr = self._create_param_lr(param_and_grad)
        l1 = self._l1 + 1e-10
        l2 = self._l1 + 1e-10  # 1.8.5 passed l1 as the kernel's l2
        new = squared + grad * grad
        if self._lr_power == -0.5:
            scale_new, scale_old = paddle.sqrt(new), paddle.sqrt(squared)
        else:
            scale_new, scale_old = paddle.pow(new, -self._lr_power), paddle.pow(squared, -self._lr_power)
        linear_out = linear + grad - (scale_new - scale_old) / lr * param
        shrunk = (l1 * paddle.sign(linear_out) - linear_out) / (scale_new / lr + 2 * l2)
        param_out = paddle.where(paddle.abs(linear_out) > l1, shrunk, paddle.zeros_like(param))
        paddle.assign(new, squared)
        paddle.assign(linear_out, linear)
        paddle.assign(param_out, param)
''',
    "_FluidAdadelta": '''class _FluidAdadelta(paddle.optimizer.Optimizer):
    """Paddle 1.8's fluid.optimizer.Adadelta: no learning rate, and the step uses the
    updated averages: E[g^2] = rho * E[g^2] + (1 - rho) * g^2, u = sqrt((E[dx^2] + eps) /
    (E[g^2] + eps)) * g, E[dx^2] = rho * E[dx^2] + (1 - rho) * u^2, param -= sqrt((E[dx^2]
    + eps) / (E[g^2] + eps)) * g; written with paddle ops (dynamic mode and static
    programs). paddle.optimizer.Adadelta scales the step by the learning rate."""
    type = 'adadelta'

    def __init__(self, learning_rate, epsilon=1.0e-6, rho=0.95, parameter_list=None,
                 regularization=None, grad_clip=None, name=None):
''' + _SUPER_INIT + '''        self._epsilon, self._rho = epsilon, rho

''' + _accumulators('avg_squared_grad', 'avg_squared_update') + '''
    def _append_optimize_op(self, block, param_and_grad):
        import numpy
        param, grad = param_and_grad
        grads = self._get_accumulator('avg_squared_grad', param)
        updates = self._get_accumulator('avg_squared_update', param)
        rho, eps = self._rho, self._epsilon
        # 1.8's kernel took 1 - rho in float32
        keep = float(numpy.float32(1.0) - numpy.float32(rho))
        grads_out = grads * rho + grad * grad * keep
        update = paddle.sqrt((updates + eps) / (grads_out + eps)) * grad
        updates_out = updates * rho + update * update * keep
        paddle.assign(grads_out, grads)
        paddle.assign(updates_out, updates)
        paddle.assign(param - paddle.sqrt((updates_out + eps) / (grads_out + eps)) * grad, param)
'''}


def rewrite_call(up, original: cst.Call, updated: cst.Call, entry):
    """The call with the class as its callee. The class takes 1.8's signature, so a
    ``**kwargs`` argument (PaddleHub's optimizer factory) passes 1.8's keywords through
    unchanged."""
    from upgrader.fixers import call_added_function
    name = NAMES[entry.name]
    return call_added_function(up, original, updated, entry, name, SOURCES[name], WHAT)


def finish_module(up, module: cst.Module) -> cst.Module:
    """Add the classes the rewrites call after the module's docstring and imports."""
    from upgrader.fixers import add_used_helpers
    return add_used_helpers(up, module, SOURCES)
