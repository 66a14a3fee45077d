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
    clear the gradients are not reported, except a ``backward()`` that runs in every
    iteration of a loop that clears only under an ``if`` (gradient accumulation,
    ``if i % k == k - 1: opt.minimize(loss); model.clear_gradients()``: 1.8 stepped with
    the last backward's gradients, today with their sum); two ``backward()`` calls in one iteration before
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
ACCUMULATES = "accumulates"


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
        # ifs: depth of `if` statements inside this loop; cond_clears: a clearing under one;
        # every: backward calls at if-depth 0 (they run in every iteration)
        self.loops.append({"clears": False, "calls": [], "ifs": 0, "cond_clears": False,
                           "every": set()})

    def leave_loop(self) -> None:
        loop = self.loops.pop()
        for call in loop["calls"]:
            self.in_loops.append((call, loop))
        if self.loops and (loop["clears"] or loop["cond_clears"]):
            # an inner loop's clearing runs in the outer one too
            self.loops[-1]["clears" if loop["clears"] and not self.loops[-1]["ifs"]
                          else "cond_clears"] = True

    def enter_if(self) -> None:
        if self.loops:
            self.loops[-1]["ifs"] += 1

    def leave_if(self) -> None:
        if self.loops:
            self.loops[-1]["ifs"] -= 1

    def call(self, node: cst.Call, in_function: bool) -> None:
        f = node.func
        if not isinstance(f, cst.Attribute):
            return
        if f.attr.value in CLEARS:
            self.module_clears = True
            if self.loops:
                self.loops[-1]["cond_clears" if self.loops[-1]["ifs"] else "clears"] = True
        elif f.attr.value == "backward":
            if self.loops:
                self.loops[-1]["calls"].append(node)
                if not self.loops[-1]["ifs"]:
                    self.loops[-1]["every"].add(id(node))
            elif in_function:
                self.outside.append(node)  # a function: it may be called once per step

    def plan(self, assignments) -> Dict[int, object]:
        """id(backward Call) -> True when its gradients are never cleared, ACCUMULATES
        when it runs in every iteration of a loop that clears them only under an ``if``
        (gradient accumulation: ``if step % k == 0: opt.minimize(loss); clear``)."""
        strategies = {n for n, o in assignments.items() if o and o.endswith("BackwardStrategy")}
        plan: Dict[int, object] = {}
        for call, loop in self.in_loops:
            if _is_backward(call, strategies):
                if loop["clears"]:
                    plan[id(call)] = False
                elif loop["cond_clears"]:
                    plan[id(call)] = ACCUMULATES if id(call) in loop["every"] else False
                else:
                    plan[id(call)] = True
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
    planned = _plan(up).get(id(original)) if up.opts.enabled(CODE) else None
    if not planned:
        return updated
    if planned == ACCUMULATES:
        up.report(original, CODE, "gradient accumulation: this `backward()` runs in every "
                  "iteration and the gradients are cleared only under a condition; 1.8's "
                  "dygraph `backward()` replaced them (the step used the last backward's "
                  "gradients only, checked on 1.8.5), today's adds to them until "
                  "`clear_grad()` (the step uses their sum): keep the sum (what the loop "
                  "was meant to do, retune the learning rate) or clear before each "
                  "backward to keep 1.8's training",
                  "paddle.fluid.dygraph.Variable.backward", "paddle.Tensor.backward", "manual")
        return updated
    up.report(original, CODE, "1.8's dygraph `backward()` replaced the gradients, today's adds "
              "to them until `clear_grad()`, and nothing clears them here: call "
              "`optimizer.clear_grad()` (or `model.clear_gradients()`) after each step",
              "paddle.fluid.dygraph.Variable.backward", "paddle.Tensor.backward", "manual")
    return updated
