"""PU102 metric-eval: ``fluid.metrics.Auc``, read with ``eval()``, becomes a subclass of
``paddle.metric.Auc`` that keeps 1.8's constructor and ``eval()``.

What it does
    ``fluid.metrics.Auc(name, curve='ROC', num_thresholds=4095)`` becomes
    ``_FluidAuc(...)`` with the same arguments, and ``fix`` adds the class once, after the
    module's imports: ``paddle.metric.Auc`` with ``name`` first and ``eval()`` returning
    ``accumulate()``.

Why is this bad?
    ``paddle.metric.Auc`` computes the same bucketed AUC on numpy inputs
    (``update(preds, labels)`` with ``preds`` of shape [N, 2], column 1 the positive
    probability, bucket ``int(p * num_thresholds)``, trapezoids from the top bucket down)
    but takes ``name`` last and has no ``eval()``: every 1.8 use reads the result with
    ``m.eval()``, which a rewrite of the constructor alone would turn into an
    AttributeError, because the method call is on a name the rule cannot follow.

Example
    ``auc = fluid.metrics.Auc(name="auc", num_thresholds=2 ** 12)`` →
    ``auc = _FluidAuc(name="auc", num_thresholds=2 ** 12)``; ``auc.update(p, l)`` and
    ``auc.eval()`` stay as written.

Fix safety
    Safe: the rule's example (several updates, the default and a small threshold count,
    ``reset()`` between updates) gives 1.8.5's values. Manual when the module already uses the class's name
    for something else.
"""
from __future__ import annotations

import libcst as cst

CODE = "PU102"
STRUCTURAL = ("metric-eval",)
NAMES = {"paddle.fluid.metrics.Auc": "_FluidAuc"}
WHAT = "a paddle.metric.Auc subclass fix adds to the module: 1.8's constructor and eval()"
HELPERS = {"metric-eval": f"_FluidAuc ({WHAT})"}
HELPER_OF = {name: f"{cls} ({WHAT})" for name, cls in NAMES.items()}

SOURCES = {"_FluidAuc": '''class _FluidAuc(paddle.metric.Auc):
    """Paddle 1.8's fluid.metrics.Auc: paddle.metric.Auc's bucketed AUC (update(preds,
    labels) with numpy preds of shape [N, 2]) with 1.8's argument order (name first) and
    eval(), 1.8's name for accumulate()."""

    def __init__(self, name, curve='ROC', num_thresholds=4095):
        super().__init__(curve=curve, num_thresholds=num_thresholds, name=name)

    def eval(self):
        return self.accumulate()

    def reset(self):
        """As in 1.8.5, a no-op: its MetricBase.reset cleared only public attributes, and
        the bucket counts are private, so the AUC kept accumulating."""
'''}


def rewrite_call(up, original: cst.Call, updated: cst.Call, entry):
    """The call with the class as its callee (1.8's signature, so the arguments stay)."""
    from upgrader.args import Manual, bind
    from upgrader.fixers import helper_conflict, use_helper
    if not up.can_apply(entry, original):
        up.report_entry(original, entry, False)
        return updated
    cls = NAMES[entry.name]
    if helper_conflict(up, original, entry, cls, SOURCES[cls]):
        return updated
    bound = bind(entry, updated)
    if isinstance(bound, Manual):
        up.report_entry(original, entry, False, manual=bound.reason)
        return updated
    up.needed_imports.add("paddle")
    use_helper(up, original, entry, cls, WHAT)
    return updated.with_changes(func=cst.Name(cls))


def finish_module(up, module: cst.Module) -> cst.Module:
    """Add the class the rewrites call after the module's docstring and imports."""
    from upgrader.fixers import add_used_helpers
    return add_used_helpers(up, module, SOURCES)
