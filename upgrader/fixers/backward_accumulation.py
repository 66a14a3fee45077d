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
    the clearing are not detected (1.8 kept the last, today both are summed): a static
    check cannot tell whether they reach the same parameters (three models each with its
    own loss, one clearing loop at the end, is common and correct), nor which branch of an
    ``if`` runs.
"""
from __future__ import annotations

from typing import Dict, List

import libcst as cst

CODE = "PU215"
CLEARS = ("clear_gradients", "clear_gradient", "clear_grad")


class Tracker:
    """Collects, during the static-mode survey walk (``static_mode.survey``, one walk of
    the module before the rewrite), the backward calls and the gradient clearings, by
    innermost loop."""

    def __init__(self) -> None:
        self.loops: List[dict] = []  # innermost last: {"clears": bool, "calls": [...]}
        self.outside: List[cst.Call] = []  # in a function, outside any loop
        self.in_loops: List[tuple] = []  # (call, loop) once the loop is closed
        self.module_clears = False

    def enter_loop(self) -> None:
        self.loops.append({"clears": False, "calls": []})

    def leave_loop(self) -> None:
        loop = self.loops.pop()
        for call in loop["calls"]:
            self.in_loops.append((call, loop))
        if loop["clears"] and self.loops:
            self.loops[-1]["clears"] = True  # an inner loop's clearing runs in the outer one too

    def call(self, node: cst.Call, in_function: bool) -> None:
        f = node.func
        if not isinstance(f, cst.Attribute):
            return
        if f.attr.value in CLEARS:
            self.module_clears = True
            if self.loops:
                self.loops[-1]["clears"] = True
        elif f.attr.value == "backward":
            if self.loops:
                self.loops[-1]["calls"].append(node)
            elif in_function:
                self.outside.append(node)  # a function: it may be called once per step

    def plan(self, assignments) -> Dict[int, bool]:
        """id(backward Call) -> True when its gradients are never cleared."""
        strategies = {n for n, o in assignments.items() if o and o.endswith("BackwardStrategy")}
        plan: Dict[int, bool] = {}
        for call, loop in self.in_loops:
            if _is_backward(call, strategies):
                plan[id(call)] = not loop["clears"]
        for call in self.outside:
            if _is_backward(call, strategies):
                plan[id(call)] = not self.module_clears
        return plan


def _is_backward(node: cst.Call, strategies) -> bool:
    """A tensor's ``backward()`` (no argument, or a BackwardStrategy), not an
    optimizer's ``backward(loss)``."""
    if not node.args:
        return True
    if len(node.args) != 1:
        return False
    a = node.args[0]
    if a.keyword is not None:
        return a.keyword.value == "backward_strategy"
    return isinstance(a.value, cst.Name) and a.value.value in strategies


def _plan(up) -> Dict[int, bool]:
    """The plan the survey walk made (``static_mode.survey``, run by ``Upgrader``)."""
    return up._backward_plan


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
