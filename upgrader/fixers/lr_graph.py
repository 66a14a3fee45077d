"""PU104 lr-graph: 1.8's learning-rate schedules built as graph ops keep their graph form.

What it does
    ``fluid.layers.learning_rate_scheduler._decay_step_counter(begin)`` becomes
    ``_fluid_decay_step_counter(begin)``, a function fix adds to the module: 1.8's global
    step of a static program, a persistable int64 counter ``@LR_DECAY_COUNTER@`` (begin - 1
    from the startup program, created the first time a program asks) that every run of
    the program increments, read as float32 [1]. A static decay
    (``fluid.layers.polynomial_decay``, ``piecewise_decay``, ``exponential_decay``,
    ``natural_exp_decay``, ``inverse_time_decay``, ``cosine_decay``, ``noam_decay``)
    whose value the program uses as a graph value (assigned into a variable in a
    ``Switch`` case, used in arithmetic) and never gives to an optimizer becomes
    ``_fluid_<decay>_value(...)`` with the same arguments: 1.8.5's formula as ops on that
    counter (lr-static-step decides which decays are graph values).

Why is this bad?
    The function is private and gone in Paddle 3, and today's decays are schedulers
    (Python objects an optimizer steps), not values of the graph: the warmup helpers of
    1.8's NLP code (ERNIE, BERT: ``linear_warmup_decay``) and PaddleCV build their rate
    from the counter and a decay inside ``Switch`` blocks and hand the result to the
    optimizer as a variable (optimizer-lr-variable).

Example
    ``global_step = fluid.layers.learning_rate_scheduler._decay_step_counter()`` →
    ``global_step = _fluid_decay_step_counter()``; in a ``Switch`` default case
    ``decayed_lr = fluid.layers.learning_rate_scheduler.polynomial_decay(learning_rate=lr,
    decay_steps=n, end_learning_rate=0.0, power=1.0, cycle=False)`` →
    ``decayed_lr = _fluid_polynomial_decay_value(learning_rate=lr, decay_steps=n, ...)``.

Fix safety
    Safe in static programs: program static_nlp_ernie_warmup (ERNIE's linear_warmup_decay:
    the counter, a Switch assigning a warmup rate or a polynomial_decay into a global
    variable, Adam reading it) and the rule examples agree with 1.8.5. Dynamic mode has
    no counter (1.8.5's raised there too: the functions raise).
"""
from __future__ import annotations

import libcst as cst

CODE = "PU104"
STRUCTURAL = ("lr-graph",)
COUNTER = "_fluid_decay_step_counter"
WHAT = "a function fix adds to the module: 1.8's global step counter of the program"
HELPER_OF = {"paddle.fluid.layers.learning_rate_scheduler._decay_step_counter": f"{COUNTER} ({WHAT})"}

_STEP = "    step = _fluid_decay_step_counter()\n"
SOURCES = {
    COUNTER: f'''def {COUNTER}(begin=0):
    """Paddle 1.8's learning_rate_scheduler._decay_step_counter: the global step of the
    current static program as float32 [1], a persistable int64 counter @LR_DECAY_COUNTER@
    (begin - 1 from the startup program) that every run of the program increments before
    it is read; later calls in the program read the same count."""
    import paddle
    if paddle.in_dynamic_mode():
        raise RuntimeError('the global step counter belongs to static programs')
    program = paddle.static.default_main_program()
    step = getattr(program, '_fluid_decay_step', None)
    if step is None:
        counter = paddle.pir.core.create_persistable_value(
            'int64', [1], '@LR_DECAY_COUNTER@',
            initializer=paddle.nn.initializer.Constant(begin - 1))
        step = counter + 1
        paddle.assign(step, output=counter)
        program._fluid_decay_step = step
    return paddle.cast(step, 'float32')
''',
    "_fluid_exponential_decay_value": '''def _fluid_exponential_decay_value(learning_rate, decay_steps, decay_rate, staircase=False):
    """Paddle 1.8's static exponential_decay as a graph value:
    learning_rate * decay_rate ** (step / decay_steps) (floored with staircase)."""
    import paddle
''' + _STEP + '''    div = step / decay_steps
    if staircase:
        div = paddle.floor(div)
    return learning_rate * (decay_rate ** div)
''',
    "_fluid_natural_exp_decay_value": '''def _fluid_natural_exp_decay_value(learning_rate, decay_steps, decay_rate, staircase=False):
    """Paddle 1.8's static natural_exp_decay as a graph value:
    learning_rate * exp(-decay_rate * step / decay_steps) (floored with staircase)."""
    import paddle
''' + _STEP + '''    div = step / decay_steps
    if staircase:
        div = paddle.floor(div)
    return learning_rate * paddle.exp(-1 * decay_rate * div)
''',
    "_fluid_inverse_time_decay_value": '''def _fluid_inverse_time_decay_value(learning_rate, decay_steps, decay_rate, staircase=False):
    """Paddle 1.8's static inverse_time_decay as a graph value:
    learning_rate / (1 + decay_rate * step / decay_steps) (floored with staircase)."""
    import paddle
''' + _STEP + '''    div = step / decay_steps
    if staircase:
        div = paddle.floor(div)
    return learning_rate / (1 + decay_rate * div)
''',
    "_fluid_polynomial_decay_value": '''def _fluid_polynomial_decay_value(learning_rate, decay_steps, end_learning_rate=0.0001,
                                  power=1.0, cycle=False):
    """Paddle 1.8's static polynomial_decay as a graph value: (learning_rate - end) *
    (1 - step / decay_steps) ** power + end, step capped at decay_steps; with cycle
    decay_steps times ceil(step / decay_steps) (1 at step 0)."""
    import paddle
''' + _STEP + '''    if cycle:
        div = paddle.ceil(step / decay_steps)
        div = paddle.where(step == 0.0, paddle.ones_like(div), div)
        decay_steps = decay_steps * div
    else:
        step = paddle.minimum(step, paddle.full([1], float(decay_steps), 'float32'))
    return (learning_rate - end_learning_rate) * \\
        ((1 - step / decay_steps) ** power) + end_learning_rate
''',
    "_fluid_piecewise_decay_value": '''def _fluid_piecewise_decay_value(boundaries, values):
    """Paddle 1.8's static piecewise_decay as a graph value: values[i] for the first
    boundary the step is below, else the last value (float32 [1])."""
    import paddle
    if len(values) - len(boundaries) != 1:
        raise ValueError('len(values) - len(boundaries) should be 1')
''' + _STEP + '''    out = paddle.full([1], float(values[-1]), 'float32')
    for boundary, value in reversed(list(zip(boundaries, values))):
        out = paddle.where(step < float(boundary), paddle.full([1], float(value), 'float32'), out)
    return out
''',
    "_fluid_cosine_decay_value": '''def _fluid_cosine_decay_value(learning_rate, step_each_epoch, epochs):
    """Paddle 1.8's static cosine_decay as a graph value:
    learning_rate * 0.5 * (cos(floor(step / step_each_epoch) * pi / epochs) + 1)."""
    import math
    import paddle
''' + _STEP + '''    epoch = paddle.floor(step / step_each_epoch)
    return learning_rate * 0.5 * (paddle.cos(epoch * math.pi / epochs) + 1)
''',
    "_fluid_noam_decay_value": '''def _fluid_noam_decay_value(d_model, warmup_steps, learning_rate=1.0):
    """Paddle 1.8's static noam_decay as a graph value (its counter starts at 1):
    learning_rate * d_model ** -0.5 * min(step ** -0.5, warmup_steps ** -1.5 * step)."""
    import paddle
    step = _fluid_decay_step_counter(1)
    return learning_rate * (d_model ** -0.5) * paddle.minimum(
        step ** -0.5, (warmup_steps ** -1.5) * step)
''',
}
#: static decay (entry name) -> its graph-value function
VALUES = {f"paddle.fluid.layers.{n}": f"_fluid_{n}_value" for n in (
    "exponential_decay", "natural_exp_decay", "inverse_time_decay", "polynomial_decay",
    "piecewise_decay", "cosine_decay", "noam_decay")}


def rewrite_call(up, original: cst.Call, updated: cst.Call, entry):
    """``_decay_step_counter(begin)`` → ``_fluid_decay_step_counter(begin)``."""
    from upgrader.fixers import call_added_function
    return call_added_function(up, original, updated, entry, COUNTER, SOURCES[COUNTER], WHAT)


def graph_value(up, original: cst.Call, updated: cst.Call, entry):
    """A static decay used as a graph value → ``_fluid_<decay>_value(...)`` (called by
    lr-static-step for the decays it finds used that way)."""
    from upgrader.fixers import call_added_function, need_helper
    name = VALUES[entry.name]
    out = call_added_function(up, original, updated, entry, name, SOURCES[name],
                              "a function fix adds to the module: 1.8's formula as graph "
                              "ops on the program's step counter")
    if out is not updated:
        need_helper(up, COUNTER)
    return out


def finish_module(up, module: cst.Module) -> cst.Module:
    """Add the counter and the decay formulas the rewrites call."""
    from upgrader.fixers import add_used_helpers
    return add_used_helpers(up, module, SOURCES)
