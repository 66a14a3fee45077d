"""PU215 backward-gradient-accumulation: ``loss.backward()`` with no gradient clearing.

What it does
    In a file that uses legacy Paddle, reports a tensor ``.backward()`` call (no
    arguments, or a ``BackwardStrategy``) when nothing clears the gradients
    (``clear_gradients()``, ``clear_gradient()``, ``clear_grad()``) in the innermost loop
    that contains the call, or, for a call in a function outside any loop, anywhere in
    the file (module-level code outside loops runs once: one backward gives the same
    gradients in both versions). The
    code is left as it is, with a ``# TODO(paddle-upgrade)`` note in fix mode.

Why is this bad?
    Paddle 1.8's dygraph ``backward()`` *replaced* the gradient of every parameter and
    leaf tensor it reached (checked on 1.8.5: two ``backward()`` calls on the same graph
    leave the gradient of one). Today's ``backward()`` *adds* to the stored gradient until
    ``clear_grad()``. A 1.8 training loop that never cleared the gradients trained
    correctly; upgraded, it silently trains on the sum of all past gradients.

Example
    ``for x in batches: loss = net(x); loss.backward(); opt.minimize(loss)`` — clear the
    gradients each step: ``opt.clear_grad()`` (or ``net.clear_gradients()``) after
    ``minimize``. The compat runtime keeps 1.8's replacement semantics.

Fix safety
    Manual: which gradients to clear, and where, is the program's decision. Loops that
    clear the gradients are not reported; two ``backward()`` calls in one iteration before
    the clearing are not detected (1.8 kept the last, today both are summed).
"""
from __future__ import annotations

from typing import Dict, List

import libcst as cst

CODE = "PU215"
CLEARS = ("clear_gradients", "clear_gradient", "clear_grad")
LOOPS = (cst.For, cst.While)


def _plan(up) -> Dict[int, bool]:
    """id(backward Call) -> True when its gradients are never cleared (see module doc)."""
    cached = getattr(up, "_backward_plan", None)
    if cached is not None:
        return cached
    strategies = set()
    from upgrader.fixers.save_load_dygraph import _assignments
    for name, origin in _assignments(up).items():
        if origin and origin.endswith("BackwardStrategy"):
            strategies.add(name)
    loops: List[dict] = []  # innermost last: {"clears": bool, "calls": [...]}
    outside: List[cst.Call] = []
    plan: Dict[int, bool] = {}
    module_clears = [False]

    def is_backward(node: cst.Call) -> bool:
        f = node.func
        if not (isinstance(f, cst.Attribute) and f.attr.value == "backward"):
            return False
        if not node.args:
            return True
        if len(node.args) != 1:
            return False
        a = node.args[0]
        if a.keyword is not None:
            return a.keyword.value == "backward_strategy"
        return isinstance(a.value, cst.Name) and a.value.value in strategies

    depth = [0]  # function nesting: module-level code outside loops runs once

    class V(cst.CSTVisitor):
        def visit_FunctionDef(self, node):
            depth[0] += 1

        def leave_FunctionDef(self, node):
            depth[0] -= 1

        def visit_For(self, node):
            loops.append({"clears": False, "calls": []})

        def leave_For(self, node):
            self._close()

        visit_While = visit_For

        def leave_While(self, node):
            self._close()

        def _close(self):
            loop = loops.pop()
            for call in loop["calls"]:
                plan[id(call)] = not loop["clears"]
            if loop["clears"] and loops:
                loops[-1]["clears"] = True  # an inner loop's clearing runs in the outer one too

        def visit_Call(self, node):
            f = node.func
            if isinstance(f, cst.Attribute) and f.attr.value in CLEARS:
                module_clears[0] = True
                if loops:
                    loops[-1]["clears"] = True
            elif is_backward(node):
                if loops:
                    loops[-1]["calls"].append(node)
                elif depth[0]:
                    outside.append(node)  # a function: it may be called once per step

    up.module.visit(V())
    for call in outside:
        plan[id(call)] = not module_clears[0]
    up._backward_plan = plan
    return plan


def check_call(up, original: cst.Call, updated: cst.Call):
    f = original.func
    if not (isinstance(f, cst.Attribute) and f.attr.value == "backward"):
        return updated
    if not up.opts.enabled(CODE) or not _plan(up).get(id(original)):
        return updated
    up.report(original, CODE, "1.8's dygraph `backward()` replaced the gradients, today's adds "
              "to them until `clear_grad()`, and nothing clears them here: call "
              "`optimizer.clear_grad()` (or `model.clear_gradients()`) after each step",
              "paddle.fluid.dygraph.Variable.backward", "paddle.Tensor.backward", "manual")
    return updated
