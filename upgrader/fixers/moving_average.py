"""PU104 exponential-moving-average: ``fluid.optimizer.ExponentialMovingAverage`` becomes a
small class fix adds to the module, 1.8.5's class rebuilt on Paddle 3's static (PIR) ops.

What it does
    ``fluid.optimizer.ExponentialMovingAverage(decay)`` (also ``name=``) becomes
    ``_FluidExponentialMovingAverage(decay)`` with the same arguments, and ``fix`` adds the
    class once, after the module's imports. Its use stays as in 1.8: ``ema.update()``
    after ``minimize``, ``with ema.apply(exe):`` (and ``need_restore=False`` /
    ``ema.restore(exe)``) around the evaluation runs. The class gives each parameter of
    the default main program (1.8's ``all_parameters()``, batch-norm statistics included)
    a zero-initialized persistable shadow (``paddle.create_parameter``, not trainable);
    ``update()`` appends the increment of the ``@EMA_STEP_COUNTER@`` counter and
    ``shadow = shadow * decay + param * (1 - decay)`` (float32) to the current main
    program; ``apply()`` saves the parameters, divides each shadow by
    ``1 - decay ** t`` when ``t > 0`` (writing it back into the shadow, as 1.8's
    apply program did) and copies it into the parameter; ``restore()`` puts the saved
    values back (1.8's apply and restore programs only assigned, so the class does it on
    the scope's tensors).

Why is this bad?
    ``paddle.static.ExponentialMovingAverage`` keeps the 1.8 signature but fails on
    Paddle 3's default PIR programs (3.3.1: TypeError in its constructor, which fills
    its decay variable with a legacy VarType dtype), and ``paddle.fluid`` is gone.

Example
    ``ema = fluid.optimizer.ExponentialMovingAverage(0.999)`` / ``ema.update()`` /
    ``with ema.apply(exe): ...`` → ``ema = _FluidExponentialMovingAverage(0.999)`` /
    ``ema.update()`` / ``with ema.apply(exe): ...``.

Fix safety
    Safe: 1.8.5's computation (program static_cv_mobilenet: the shadows, evaluation
    under apply() and the restored weights match 1.8.5; compat snippet
    exponential_moving_average_static covers apply before any step, need_restore=False
    and restore()). Manual with ``thres_steps`` (1.8 scheduled the decay from a step
    variable), in a module with dynamic-mode code only (1.8 raised there), or when the
    module already uses the class's name for something else.
"""
from __future__ import annotations

import libcst as cst

from upgrader.args import code_of, literal

CODE = "PU104"
STRUCTURAL = ("exponential-moving-average",)
NAME = "_FluidExponentialMovingAverage"
#: what docs/rules.md and explain show instead of the entry's target
HELPERS = {"exponential-moving-average": f"{NAME} (a class fix adds to the module)"}

SOURCE = f'''class {NAME}(object):
    """Paddle 1.8's fluid.optimizer.ExponentialMovingAverage on a Paddle 3 (PIR) static
    program: a zero-initialized shadow per parameter, update() appends the step counter's
    increment and shadow = shadow * decay + param * (1 - decay), apply() evaluates with the
    bias-corrected shadows (written back into the shadows, as 1.8 did)."""
    import contextlib as _contextlib

    def __init__(self, decay=0.999, thres_steps=None, name=None):
        if thres_steps is not None:
            raise ValueError('ExponentialMovingAverage: thres_steps is not supported here')
        self._decay = float(decay)
        self._name = name if name is not None else ''
        params = [p for p in paddle.static.default_main_program().global_block().all_parameters()[::-1]
                  if getattr(p, 'do_model_average', None) is not False]
        self._emas = [(p, paddle.create_parameter(
            list(p.shape), p.dtype, default_initializer=paddle.nn.initializer.Constant(0.0),
            attr=paddle.ParamAttr(name=paddle.utils.unique_name.generate(
                self._name + p.name + '_ema'), trainable=False))) for p in params]
        self._saved = {{}}

    def update(self):
        counter = paddle.create_parameter(
            [1], 'int64', default_initializer=paddle.nn.initializer.Constant(0),
            attr=paddle.ParamAttr(name='@EMA_STEP_COUNTER@', trainable=False))
        paddle.increment(counter, 1.0)
        decay = paddle.full([1], self._decay, dtype='float32')
        for p, ema in self._emas:
            d = paddle.cast(decay, p.dtype)
            paddle.assign(ema * d + p * (1.0 - d), output=ema)

    @_contextlib.contextmanager
    def apply(self, executor, need_restore=True):
        import numpy
        scope = paddle.static.global_scope()
        var = scope.find_var('@EMA_STEP_COUNTER@')
        t = int(numpy.array(var.get_tensor()).reshape(-1)[0]) if var is not None else 0
        decay_pow = numpy.power(numpy.float32(self._decay), numpy.float32(t), dtype=numpy.float32)
        self._saved = {{}}
        for p, ema in self._emas:
            p_tensor = scope.find_var(p.name).get_tensor()
            e_tensor = scope.find_var(ema.name).get_tensor()
            self._saved[p.name] = numpy.array(p_tensor).copy()
            value = numpy.array(e_tensor)
            if t > 0:
                value = (value / (numpy.float32(1.0) - decay_pow)).astype(value.dtype)
                e_tensor.set(value, executor.place)
            p_tensor.set(value, executor.place)
        try:
            yield
        finally:
            if need_restore:
                self.restore(executor)

    def restore(self, executor):
        scope = paddle.static.global_scope()
        for name, value in self._saved.items():
            scope.find_var(name).get_tensor().set(value, executor.place)
'''


def _state(up) -> str:
    from upgrader.fixers import helper_state
    return helper_state(up, NAME, SOURCE)


def rewrite_call(up, original: cst.Call, updated: cst.Call, entry):
    from upgrader.args import Manual, bind
    from upgrader.fixers.static_dropout import dygraph_only
    bound = None if any(a.star for a in updated.args) else bind(entry, updated)
    why = None
    if bound is None:
        why = "its arguments are unpacked (thres_steps may be among them)"
    elif isinstance(bound, Manual):
        why = bound.reason
    elif _state(up) == "conflict":
        why = f"the module already uses the name {NAME} for something else"
    elif dygraph_only(up):
        why = "dynamic-mode code: 1.8 raised there (no static program to average)"
    else:
        thres = bound.values.get("thres_steps")
        if thres is not None and literal(code_of(thres.value)) != ("ok", None):
            why = (f"thres_steps={code_of(thres.value)}: 1.8 scheduled the decay as "
                   "min(decay, (1 + t) / (10 + t)) from that step variable, which the class "
                   "does not rebuild")
    if why is not None:
        up.report_entry(original, entry, False, manual=f"{why}; {entry.note}")
        return updated
    up.__dict__["_moving_average_used"] = True
    up.report(original, CODE, f"`{entry.short}` → `{NAME}` (a class fix adds to the module: "
              "1.8.5's shadows, update(), apply() and restore() on today's static ops)",
              entry.name, entry.target, entry.safety, applied=True)
    return updated.with_changes(func=cst.Name(NAME))


def finish_module(up, module: cst.Module) -> cst.Module:
    """Add the class the rewrites call after the module's docstring and imports."""
    if not up.__dict__.get("_moving_average_used") or _state(up) != "insert":
        return module
    from upgrader.fixers import insert_after_head
    return insert_after_head(module, [SOURCE])
