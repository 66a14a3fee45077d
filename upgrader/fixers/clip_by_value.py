"""PU104 clip-by-value: ``fluid.clip.GradientClipByValue`` is safe in dygraph-only modules.

What it does
    Rewrites ``fluid.clip.GradientClipByValue(max, min)`` to
    ``paddle.nn.ClipGradByValue(max=..., min=...)`` as its rule says, and decides the fix
    safety per module: safe when the module has dynamic-mode code and builds no static
    graph, manual when it builds static graphs only, unsafe (``--unsafe-fixes``) when it
    has both or neither (the evidence is the one ``static-dropout`` uses).

Why is this bad?
    In dynamic mode ``paddle.nn.ClipGradByValue`` clips every gradient to [min, max]
    exactly as 1.8.5's class did (proven by the rule's example in dygraph). In Paddle 3's
    default static programs (PIR) it is not implemented: ``optimizer.minimize`` raises
    NotImplementedError (checked on 3.3.1), so the same rewrite cannot run there.

Example
    In a module with ``with fluid.dygraph.guard():`` and no static program,
    ``fluid.optimizer.SGD(0.1, parameter_list=ps, grad_clip=fluid.clip.GradientClipByValue(1.0))``
    → ``paddle.optimizer.SGD(0.1, parameters=ps, grad_clip=paddle.nn.ClipGradByValue(max=1.0))``
    is applied by a plain ``fix``.

Fix safety
    Safe in dygraph-only modules, manual in static-only modules (clip the gradients by hand:
    ``opt.apply_gradients([(p, paddle.clip(g, min, max)) for p, g in opt.backward(loss)])``,
    the entry's note), unsafe elsewhere. The decision is per file: a helper module that
    only builds the clip object, called from code in another file, is neither and stays
    unsafe.
"""
from __future__ import annotations

import copy

import libcst as cst

from upgrader.fixers import static_dropout

CODE = "PU104"
STRUCTURAL = ("clip-by-value",)


def rewrite_call(up, original: cst.Call, updated: cst.Call, entry):
    static, dynamic = static_dropout.module_modes(up)
    if dynamic and not static:
        use = copy.copy(entry)
        use.safety = "safe"
        return up.apply_entry(original, updated, use)
    if static and not dynamic:
        up.report_entry(original, entry, False, manual=(
            "this module builds static programs, where paddle.nn.ClipGradByValue is not "
            "implemented on Paddle 3 (minimize raises NotImplementedError): clip by hand, "
            "opt.apply_gradients([(p, paddle.clip(g, min=min, max=max)) for p, g in "
            "opt.backward(loss)])"))
        return updated
    return up.apply_entry(original, updated, entry)
