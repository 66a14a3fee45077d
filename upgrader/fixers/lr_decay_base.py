"""PU104 lr-decay-base: user subclasses of 1.8's dygraph ``LearningRateDecay`` keep 1.8's
protocol through ``_FluidLearningRateDecay``, a class fix adds to the module.

What it does
    ``class MyDecay(fluid.dygraph.learning_rate_scheduler.LearningRateDecay):`` (also
    ``from paddle.fluid.dygraph.learning_rate_scheduler import LearningRateDecay``) becomes
    ``class MyDecay(_FluidLearningRateDecay):``, and ``LearningRateDecay.__init__(self,
    ...)`` (or another attribute of the base class) ``_FluidLearningRateDecay.__init__``.
    The class, added once after the module's imports, is a
    ``paddle.optimizer.lr.LRScheduler`` (today's optimizers take it as ``learning_rate``)
    with 1.8.5's ``LearningRateDecay`` protocol, so the subclass's ``__init__`` (``super()
    .__init__(begin, step)``) and ``step()`` (the rate at ``self.step_num``: a float, or a
    tensor built from ``self.create_lr_var(value)`` with layers ops) run unchanged:

    - ``__init__(begin=0, step=1, dtype='float32')`` sets ``step_num``, ``step_size`` and
      ``dtype`` (and nothing else: the subclass's own attributes are left alone);
    - calling the decay (what the optimizer does each time it takes the rate: once per
      ``minimize()``) evaluates ``step()``, turns a float into ``create_lr_var(lr)`` and
      advances ``step_num`` by ``step_size``, as 1.8's ``__call__``;
    - ``create_lr_var(lr)`` is a ``[1]`` tensor of ``dtype`` (1.8's
      ``create_global_var``);
    - an optimizer's ``get_lr()`` (1.8's ``current_step_lr()``, which fix renames) does not
      advance it: it returns the rate that optimizer's last ``minimize()`` used (its
      learning-rate variable, a numpy float32), or ``step()`` before the first one (a
      float as returned, a tensor's value);
    - ``state_dict()`` / ``set_dict()`` (also ``set_state_dict``, which today's optimizer
      calls) save and restore ``step_num`` (1.8's ``_state_keys``, which a subclass may
      extend).

Why is this bad?
    1.8's ``LearningRateDecay`` is gone. Its replacement, ``paddle.optimizer.lr
    .LRScheduler``, has another protocol: ``get_lr()`` computes the rate from
    ``last_epoch``, ``step()`` advances it and only an explicit ``scheduler.step()`` does
    so; 3.x's constructor calls ``step()`` itself. A 1.8 subclass whose ``step()`` returns
    the rate would be called as 3.x's ``step()`` and never advance.

Example
    ``class Warmup(LearningRateDecay):`` / ``def step(self): return 0.1 * min(1.0,
    self.step_num / 4.0)`` → ``class Warmup(_FluidLearningRateDecay):`` (the body
    unchanged); ``fluid.optimizer.SGD(learning_rate=Warmup(), parameter_list=ps)`` →
    ``paddle.optimizer.SGD(learning_rate=Warmup(), parameters=ps)``: each
    ``minimize()`` uses the next rate, as in 1.8.

Fix safety
    Safe: the rate of every ``minimize()``, the parameters after it and
    ``current_step_lr()`` (before and after the first ``minimize()``) agree with 1.8.5 for
    float and tensor ``step()`` results, ``begin`` / ``step`` and two optimizers (the
    entry's example, program dygraph_custom_lr_decay). The class tells an optimizer's
    ``get_lr()`` from its use of the rate by the calling frame (3.3.1's ``Optimizer.get_lr``
    calls the scheduler; so does its ``minimize()``). Other uses of the name stay manual:
    ``isinstance(v, LearningRateDecay)`` was True for 1.8's built-in decays too, which fix
    turns into ``paddle.optimizer.lr`` schedulers. As in 1.8.5, an optimizer takes such a
    decay in dynamic mode only.
"""
from __future__ import annotations

from typing import Set

import libcst as cst

CODE = "PU104"
STRUCTURAL = ("lr-decay-base",)
NAME = "_FluidLearningRateDecay"
WHAT = ("a class fix adds to the module: a paddle.optimizer.lr.LRScheduler with 1.8's "
        "step()/step_num protocol, advanced each time an optimizer takes the rate")
HELPERS = {"lr-decay-base": f"{NAME} ({WHAT})"}
SOURCES = {NAME: '''class _FluidLearningRateDecay(paddle.optimizer.lr.LRScheduler):
    """Paddle 1.8's fluid.dygraph.LearningRateDecay, the base of user-defined decays.
    A subclass's step() returns the rate at self.step_num (a float, or a tensor built from
    create_lr_var values); calling the decay, as an optimizer does each time it takes the
    rate (every minimize()), evaluates step() and advances step_num by step_size. An
    optimizer's get_lr() (1.8's current_step_lr()) does not advance it: it reads the rate
    that optimizer last used, or step() before its first minimize()."""

    class SubclassMustDefine(NotImplementedError):
        """A method user decays define (step(), get_lr() of epoch decays), called on a
        class that does not: 1.8 raised NotImplementedError there (this is one)."""

    def __init__(self, begin=0, step=1, dtype='float32'):
        self.step_num = begin
        self.step_size = step
        self.dtype = dtype

    def __call__(self):
        import sys
        caller = sys._getframe(1)
        if caller.f_code.co_name == 'get_lr':
            optimizer = caller.f_locals.get('self')
            if isinstance(optimizer, paddle.optimizer.Optimizer):
                # 1.8's current_step_lr(): the optimizer's learning-rate variable once a
                # minimize() made it, else step() (a float as it is, a tensor's value)
                used = optimizer._global_learning_rate()
                lr = self.step() if used is None else used
                if isinstance(lr, (float, int)):
                    return lr
                return lr.numpy().reshape([-1])[0]
        lr = self.step()
        if isinstance(lr, float):
            lr = self.create_lr_var(lr)
        self.step_num += self.step_size
        return lr

    def create_lr_var(self, lr):
        """1.8: the rate as a [1] tensor of the decay's dtype."""
        return paddle.full([1], float(lr), dtype=self.dtype)

    def step(self):
        raise self.SubclassMustDefine(
            '%s.step() is not defined: a LearningRateDecay subclass returns the rate at '
            'self.step_num from step()' % type(self).__name__)

    def _state_keys(self):
        self.keys = ['step_num']

    def state_dict(self):
        self._state_keys()
        state_dict = {}
        for key in self.keys:
            if key not in self.__dict__:
                continue
            value = self.__dict__[key]
            if isinstance(value, paddle.Tensor):
                assert value.shape == [1], \\
                    "shape of Variable in state_dict must be [1] {}".format(value.shape)
                value = value.numpy()[0]
            state_dict[key] = value
        return state_dict

    def set_dict(self, state_dict):
        import warnings
        self._state_keys()
        for key in self.keys:
            if key in state_dict:
                self.__dict__[key] = state_dict[key]
            else:
                raise RuntimeError(
                    "Please check whether state_dict is correct for optimizer. "
                    "Can't find [ {} ] in state_dict".format(key))
        if len(state_dict) > len(self.keys):
            warnings.warn("There are some unused values in state_dict. Maybe the optimizer "
                          "have different 'LearningRateDecay' when invoking state_dict and "
                          "set_dict")

    set_state_dict = set_dict
'''}


def _bases(up) -> Set[int]:
    """ids of the base-class expressions of the module's class statements."""
    cached = up.__dict__.get("_lr_decay_bases")
    if cached is None:
        cached = set()

        class _Visitor(cst.CSTVisitor):
            def visit_ClassDef(self, node: cst.ClassDef) -> None:
                cached.update(id(a.value) for a in node.bases)

        up.module.visit(_Visitor())
        up.__dict__["_lr_decay_bases"] = cached
    return cached


def rewrite_call(up, original: cst.Call, updated: cst.Call, entry):
    """``LearningRateDecay(...)`` itself: 1.8's base class has no rate (its ``step()``
    raises NotImplementedError); reported manual."""
    up.report_entry(original, entry, False, manual=(
        "the base class called directly (1.8's step() raised NotImplementedError); "
        + entry.note))
    return updated


def _rewrite(up, node: cst.BaseExpression, entry):
    from upgrader.fixers import helper_state, use_helper
    if helper_state(up, NAME, SOURCES[NAME]) == "conflict":
        up.report_entry(node, entry, False, manual=(
            f"the module already uses the name {NAME} for something else; {entry.note}"))
        return node
    if not up.can_apply(entry, node):
        up.report_entry(node, entry, False)
        return node
    up.needed_imports.add("paddle")
    use_helper(up, node, entry, NAME, WHAT)
    return cst.Name(NAME)


def rewrite_reference(up, node: cst.BaseExpression, entry):
    """The base class of a user's decay: ``_FluidLearningRateDecay``; any other use is
    reported manual."""
    if id(node) not in _bases(up):
        up.report_entry(node, entry, False, manual=(
            "used other than as the base class of a decay (`isinstance` was True for 1.8's "
            "built-in decays too, which fix turns into paddle.optimizer.lr schedulers); "
            + entry.note))
        return node
    return _rewrite(up, node, entry)


def rewrite_attribute(up, node: cst.Attribute, entry):
    """``LearningRateDecay.__init__(self, ...)`` (a dunder attribute of the base class, in
    a subclass): the same attribute of ``_FluidLearningRateDecay``."""
    new = _rewrite(up, node.value, entry)
    return node if new is node.value else node.with_changes(value=new)


def finish_module(up, module: cst.Module) -> cst.Module:
    """Add _FluidLearningRateDecay after the module's docstring and imports."""
    from upgrader.fixers import add_used_helpers
    return add_used_helpers(up, module, SOURCES)
