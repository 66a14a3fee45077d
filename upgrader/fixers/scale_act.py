"""PU101 scale-act: ``layers.scale(..., act=...)`` keeps 1.8.5's activation where the
module's mode says what 1.8.5 did with it.

What it does
    In a module that builds static graphs only, ``fluid.layers.scale(x, 2.0, act='relu')``
    becomes ``paddle.nn.functional.relu(paddle.scale(x, scale=2.0))``; in a module that runs
    in dynamic mode only the ``act`` argument is dropped. A module with both (or neither)
    keeps the call for a manual rewrite, as before.

Why is this bad?
    ``paddle.scale`` applies ``act`` in both modes, but 1.8.5's ``scale`` applied it in static
    graphs only: its dygraph branch returned the scaled tensor without the activation
    (checked on 1.8.5). Which of the two a call ran in is a property of the module
    (static_dropout's mode survey: static-graph API, or dygraph guard/Layer/to_variable).
    Dynamic-to-static code (``@declarative``, ProgramTranslator, ``jit``) ran in a static
    program, so a dygraph module that has any stays manual.

Example
    ``fluid.layers.scale(h, scale=0.5, act='tanh')`` in a static program →
    ``paddle.nn.functional.tanh(paddle.scale(h, scale=0.5))``.

Fix safety
    Safe in a single-mode module (the activation is applied with the same rules as the
    other layers' ``act``; an activation name that is not a literal stays manual); manual
    otherwise, and in a dynamic-mode module with dynamic-to-static code.
"""
from __future__ import annotations

import copy
import re

import libcst as cst

from upgrader.fixers.static_dropout import module_modes

CODE = "PU101"
STRUCTURAL = ("scale-act",)

_TO_STATIC = re.compile(r"declarative|to_static|ProgramTranslator|\bjit\b")


def rewrite_call(up, original: cst.Call, updated: cst.Call, entry):
    spec = entry.args.get("act")
    static, dynamic = module_modes(up)
    if spec is None or static == dynamic or (dynamic and _TO_STATIC.search(up.source)):
        # dynamic-to-static code (1.8's @declarative / ProgramTranslator) ran its calls in a
        # static program, where 1.8.5 applied act: the mode survey counts it as dynamic
        return up.apply_entry(original, updated, entry)
    moded = copy.copy(spec)
    moded.manual_if_set = None
    if static:
        moded.act = True   # 1.8.5 static graphs applied the activation
    else:
        moded.drop = True  # 1.8.5 dygraph ignored it
    e = copy.copy(entry)
    e.args = {**entry.args, "act": moded}
    return up.apply_entry(original, updated, e)
