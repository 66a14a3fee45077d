"""PU101 loss-shape: ``fluid.dygraph.MSELoss`` / ``L1Loss`` / ``NLLLoss`` / ``BCELoss`` become
small subclasses of today's loss layers, which fix adds to the module, that give a
``'mean'`` or ``'sum'`` loss 1.8's shape ``[1]``.

What it does
    ``fluid.dygraph.MSELoss(reduction='sum')`` becomes ``_FluidMSELoss(reduction='sum')``
    (``L1Loss`` → ``_FluidL1Loss``, ``NLLLoss`` → ``_FluidNLLLoss``, ``BCELoss`` →
    ``_FluidBCELoss``), with the arguments mapped to the ``paddle.nn`` class (``NLLLoss``'s
    order changed: keywords), and ``fix`` adds the class once, after the module's imports::

        class _FluidMSELoss(paddle.nn.MSELoss):
            def forward(self, *args, **kwargs):
                out = super().forward(*args, **kwargs)
                return out.reshape([1]) if out.ndim == 0 else out

    A literal ``reduction='none'`` needs no shape change: the call becomes the
    ``paddle.nn`` class itself.

Why is this bad?
    1.8.5 shipped these layers as previews of 2.0's ``paddle.nn`` losses, and like every
    1.x reduction their ``'mean'`` and ``'sum'`` results had shape ``[1]``; today's classes
    return a 0-D tensor. ``loss.numpy()[0]``, ``concat`` of losses and ``fetch``-style
    indexing then fail or change shape. The class is built in one place and called in
    another, so the call's result cannot be wrapped where the layer is built.

Example
    ``self.loss_fn = fluid.dygraph.MSELoss()`` → ``self.loss_fn = _FluidMSELoss()``.

Fix safety
    Safe: each class is the ``paddle.nn`` loss (``isinstance`` checks, the state dict and
    ``forward``'s arguments are unchanged) and only a 0-D result is reshaped; the rules'
    examples ('none' and the reductions) agree with 1.8.5 in values, shapes and dtypes.
    Manual when the module already uses the class's name for something else.
"""
from __future__ import annotations

import libcst as cst

CODE = "PU101"
#: legacy loss class -> the helper class fix adds
NAMES = {"paddle.fluid.dygraph.MSELoss": "_FluidMSELoss",
         "paddle.fluid.dygraph.L1Loss": "_FluidL1Loss",
         "paddle.fluid.dygraph.NLLLoss": "_FluidNLLLoss",
         "paddle.fluid.dygraph.BCELoss": "_FluidBCELoss"}
STRUCTURAL = tuple(f"loss-shape-{n.rsplit('.', 1)[1][:-4].lower()}" for n in NAMES)
#: what docs/rules.md and explain show instead of the entry's target
HELPERS = {s: f"{name} (a subclass of paddle.nn.{legacy.rsplit('.', 1)[1]} fix adds to the "
              "module: 'mean'/'sum' losses of shape [1] as in 1.8)"
           for s, (legacy, name) in zip(STRUCTURAL, NAMES.items())}

SOURCES = {name: f'''class {name}(paddle.nn.{legacy.rsplit('.', 1)[1]}):
    """Paddle 1.8's fluid.dygraph.{legacy.rsplit('.', 1)[1]}: a 'mean' or 'sum' loss has shape [1]
    (paddle.nn.{legacy.rsplit('.', 1)[1]} returns a 0-D tensor)."""

    def forward(self, *args, **kwargs):
        out = super().forward(*args, **kwargs)
        return out.reshape([1]) if out.ndim == 0 else out
''' for legacy, name in NAMES.items()}


def _literal_none(bound) -> bool:
    """Whether the call passes the literal ``reduction='none'`` (no shape change needed)."""
    arg = bound.values.get("reduction")
    return arg is not None and isinstance(arg.value, cst.SimpleString) and \
        arg.value.evaluated_value == "none"


def rewrite_call(up, original: cst.Call, updated: cst.Call, entry):
    from upgrader.args import Manual, map_call
    from upgrader.fixers import bound_or_report, call_helper, helper_conflict
    name = NAMES[entry.name]
    bound = bound_or_report(up, original, updated, entry)
    if bound is None:
        return updated
    if _literal_none(bound):
        mapped = map_call(entry, updated, cst.parse_expression(entry.target))
        if isinstance(mapped, Manual):
            up.report_entry(original, entry, False, manual=mapped.reason)
            return updated
        up.report_entry(original, entry, True)
        return mapped[0]
    if helper_conflict(up, original, entry, name, SOURCES[name]):
        return updated
    return call_helper(up, original, updated, entry, name, f"a subclass of {entry.target} fix "
                       "adds to the module: 'mean'/'sum' losses keep 1.8's shape [1]")


def finish_module(up, module: cst.Module) -> cst.Module:
    """Add the classes the rewrites call after the module's docstring and imports."""
    from upgrader.fixers import add_used_helpers
    return add_used_helpers(up, module, SOURCES)
