"""PU104 clip-by-value: ``fluid.clip.GradientClipByValue`` clips in static (PIR) programs too,
through a small subclass fix adds to the module.

What it does
    In a module with dynamic-mode code and no static graph,
    ``fluid.clip.GradientClipByValue(max, min)`` becomes
    ``paddle.nn.ClipGradByValue(max=..., min=...)`` as the rule says. Anywhere else (a
    module that builds static programs, or one that only builds the clip object for code
    elsewhere) it becomes ``_FluidClipGradByValue(max=..., min=...)``, and ``fix`` adds the
    class once, after the module's imports::

        class _FluidClipGradByValue(paddle.nn.ClipGradByValue):
            def __call__(self, params_grads):
                if paddle.in_dynamic_mode():
                    return super().__call__(params_grads)
                return [(p, g if getattr(p, 'need_clip', True) is False
                         else paddle.clip(g, min=self.min, max=self.max))
                        for p, g in params_grads if g is not None]

Why is this bad?
    In dynamic mode ``paddle.nn.ClipGradByValue`` clips every gradient to [min, max]
    exactly as 1.8.5's class did. In Paddle 3's default static programs (PIR) it is not
    implemented: ``optimizer.minimize`` raises NotImplementedError (checked on 3.3.1),
    so the plain rename cannot run there. The subclass computes the same clip with
    ``paddle.clip`` on each gradient while the optimizer builds the program, and leaves
    dynamic mode to the parent class.

Example
    ``fluid.optimizer.SGD(0.1, grad_clip=fluid.clip.GradientClipByValue(1.0, -1.0))`` in a
    static program → ``paddle.optimizer.SGD(0.1, grad_clip=_FluidClipGradByValue(max=1.0,
    min=-1.0))``.

Fix safety
    Safe: the rule's example (clipped on both sides, SGD step) agrees with 1.8.5 in
    dygraph and in static programs (1.8.5's ``ParamAttr`` had no ``need_clip``; a
    parameter given ``need_clip=False`` today keeps its gradient, as in the parent
    class). Manual when the module already uses the class's name
    for something else. In dygraph, a sparse gradient (``Embedding(is_sparse=True)``)
    makes 3.3.1's clip fail at the optimizer step (an error, not a different result; the
    entry's note).
"""
from __future__ import annotations

import libcst as cst

from upgrader.fixers import static_dropout

CODE = "PU104"
STRUCTURAL = ("clip-by-value",)
NAME = "_FluidClipGradByValue"
#: what docs/rules.md and explain show instead of the entry's target
HELPERS = {"clip-by-value": f"paddle.nn.ClipGradByValue in dygraph-only modules, else {NAME} "
                            "(a subclass fix adds to the module that also clips in static "
                            "programs)"}
SOURCE = f'''class {NAME}(paddle.nn.ClipGradByValue):
    """Paddle 1.8's fluid.clip.GradientClipByValue: paddle.nn.ClipGradByValue, which also
    clips in static (PIR) programs, where today's class raises NotImplementedError."""

    def __call__(self, params_grads):
        if paddle.in_dynamic_mode():
            return super().__call__(params_grads)
        return [(p, g if getattr(p, 'need_clip', True) is False
                 else paddle.clip(g, min=self.min, max=self.max))
                for p, g in params_grads if g is not None]
'''


def rewrite_call(up, original: cst.Call, updated: cst.Call, entry):
    from upgrader.fixers import bound_or_report, call_helper, helper_conflict
    static, dynamic = static_dropout.module_modes(up)
    if dynamic and not static:  # today's class clips in dynamic mode
        return up.apply_entry(original, updated, entry)
    if helper_conflict(up, original, entry, NAME, SOURCE) \
            or bound_or_report(up, original, updated, entry) is None:
        return updated
    return call_helper(up, original, updated, entry, NAME, "a subclass of "
                       "paddle.nn.ClipGradByValue fix adds to the module: it also clips in "
                       "static (PIR) programs")


def finish_module(up, module: cst.Module) -> cst.Module:
    """Add the class the rewrites call after the module's docstring and imports."""
    from upgrader.fixers import add_used_helpers
    return add_used_helpers(up, module, {NAME: SOURCE})
