"""PU203 layer-act: ``act=`` of legacy layer classes applied in ``forward``.

What it does
    ``self.fc = Linear(4, 8, act='relu')`` becomes ``self.fc = paddle.nn.Linear(4, 8)``
    and every call ``self.fc(x)`` in the class becomes
    ``paddle.nn.functional.relu(self.fc(x))``.

Why is this bad?
    Modern layer classes (``paddle.nn.Linear``, ``Conv2D``, ``BatchNorm2D``, ...) have no
    ``act`` argument. Dropping it (as a plain rename does) silently removes the
    activation: the program runs and computes something else.

Example
    See above; ``act`` values map to the functional activation with 1.8's defaults
    (``leaky_relu`` keeps 1.8's slope 0.02).

Fix safety
    Safe when the layer is stored as ``self.<name>`` and only called as ``self.<name>(...)``
    in the same class. A layer with ``act`` built elsewhere (inside ``Sequential``, a list,
    a local variable, or with a non-literal ``act``) is left as it is and reported as
    manual.
"""
from __future__ import annotations

from typing import Dict

import libcst as cst

from upgrader.args import Manual, act_wrapper, bind, code_of, fill, map_call
from upgrader.names import FastVisitor
from upgrader.rulebook import ArgSpec

CODE = "PU203"
STRUCTURAL = ("layer-act",)


def _act_src(up, call: cst.Call, entry):
    bound = bind(entry, call)
    if isinstance(bound, Manual):
        return bound
    arg = bound.values.get("act")
    return None if arg is None else code_of(arg.value)


def survey_class(up, cls: cst.ClassDef) -> Dict[str, str]:
    """``self.<attr> = LegacyLayer(..., act='relu')`` in any method → {attr: template}."""
    acts: Dict[str, str] = {}

    class V(FastVisitor):
        def visit_ClassDef(self, node):
            return node is cls

        def visit_Assign(self, node: cst.Assign):
            if len(node.targets) != 1 or not isinstance(node.value, cst.Call):
                return
            t = node.targets[0].target
            if not (isinstance(t, cst.Attribute) and isinstance(t.value, cst.Name) and t.value.value == "self"):
                return
            entry = up.entry_for(up.resolve_dotted(node.value.func))
            if entry is None or entry.structural != "layer-act":
                return
            if not up.can_apply(entry) or isinstance(
                    map_call(_without_act(entry), node.value, cst.Name("_")), Manual):
                return  # the constructor stays as it is, act included
            src = _act_src(up, node.value, entry)
            if isinstance(src, str):
                w = act_wrapper(src)
                if isinstance(w, str):
                    acts[t.attr.value] = w
                    up.layer_act_calls[id(node.value)] = w

    cls.visit(V())
    return acts


def rewrite_call(up, original: cst.Call, updated: cst.Call, entry):
    src = _act_src(up, original, entry)
    if isinstance(src, Manual):
        up.report_entry(original, entry, False, manual=src.reason)
        return updated
    if src is None or src.strip() == "None":
        return up.apply_entry(original, updated, _without_act(entry))
    if id(original) not in up.layer_act_calls:
        w = act_wrapper(src)
        why = w.reason if isinstance(w, Manual) else (
            "the layer is not stored as `self.<name>`, so its calls cannot be wrapped; "
            f"drop act={src} and apply the activation to the layer's output")
        up.report_entry(original, entry, False, manual=why)
        return updated
    up.report(original, CODE, f"act={src} of `{entry.short}` is applied to the layer's output "
              "in the calls `self.<name>(...)`", entry.name, entry.target, "safe", applied=True)
    return up.apply_entry(original, updated, entry, entry_override=_without_act(entry))


def _without_act(entry):
    import copy
    e = copy.copy(entry)
    e.args = dict(entry.args)
    e.args["act"] = ArgSpec(drop=True)
    return e


def wrap_self_call(up, original: cst.Call, updated: cst.Call):
    f = original.func
    if up.class_stack and isinstance(f, cst.Attribute) and isinstance(f.value, cst.Name) \
            and f.value.value == "self" and f.attr.value in up.class_stack[-1] and up.opts.fix:
        return fill(up.class_stack[-1][f.attr.value], {"call": updated})
    return updated
