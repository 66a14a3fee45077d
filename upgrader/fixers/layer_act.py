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
    Safe. The calls are wrapped when the layer is stored as ``self.<name>`` and only called
    as ``self.<name>(...)`` in the same class (members such as ``self.<name>.weight`` are
    fine; a call ``self.<name>(...)`` in another class that sets its own ``self.<name>`` and
    is not related to the layer's class by inheritance runs that class's layer, so it does
    not count). A layer that escapes that pattern gets PU101 act-by-name's forward hook
    instead, ``self.fc = _fluid_layer_act(paddle.nn.Linear(4, 8), 'relu')``, which goes
    with the layer object wherever it runs: a layer built inside ``Sequential``, a list,
    ``LayerList`` or a local variable; one used otherwise in the module (the layer taken as
    a value, called from outside or from a subclass, ``getattr(self, '<name>')``); one
    whose ``self.<name>`` the class also sets to another value (``if use_act: self.fc =
    Linear(.., act='relu') else: self.fc = Linear(..)``, a method that swaps the layer) or
    that is assigned outside the class's methods (``self.fc = ...`` in a subclass, ``net.fc
    = ...``): the replacement has no hook, as it had no act in 1.8 (checked on 1.8.5,
    values and gradients, program dygraph_act_layer_containers). The hook has act-by-name's
    conditions (see act_by_name.py): a module that calls ``.forward(...)`` directly, has
    dynamic-to-static code or uses the names ``_fluid_act`` / ``_fluid_layer_act`` for
    something else keeps such a layer manual. A non-literal ``act`` and a literal name with
    no call-site template but a branch in ``_fluid_act`` (``'soft_relu'``, ``'brelu'``,
    ``'stanh'``, ...) get the hook wherever the layer is built.
"""
from __future__ import annotations

from typing import Dict

import libcst as cst

from upgrader.args import Manual, act_wrapper, bind, code_of, fill, literal, map_call
from upgrader.fixers import act_by_name
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
    assigned: Dict[str, list] = {}  # attr -> every value the class's methods give self.<attr>

    class V(FastVisitor):
        def visit_ClassDef(self, node):
            return node is cls

        def visit_AnnAssign(self, node: cst.AnnAssign):
            t = node.target
            if node.value is not None and isinstance(t, cst.Attribute) and \
                    isinstance(t.value, cst.Name) and t.value.value == "self":
                assigned.setdefault(t.attr.value, []).append(node.value)

        def visit_Assign(self, node: cst.Assign):
            for at in node.targets:
                t = at.target
                if isinstance(t, cst.Attribute) and isinstance(t.value, cst.Name) and t.value.value == "self":
                    assigned.setdefault(t.attr.value, []).append(node.value)
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
                    up.layer_act_owner[id(node.value)] = (id(cls), t.attr.value)

    cls.visit(V())
    if acts:
        escaped = _escaping_uses(up, cls, set(acts))
        for name, w in acts.items():
            # `if use_act: self.fc = Linear(.., act='relu') else: self.fc = Linear(..)`, or
            # a method that sets another layer: the calls may run a layer without this act
            for v in assigned.get(name, ()):
                if not (isinstance(v, cst.Name) and v.value == "None") and \
                        up.layer_act_calls.get(id(v)) != w:
                    escaped.setdefault(name, Manual(
                        f"`self.{name}` is also given another value in the class "
                        f"(`self.{name} = {_short(up, v)}`), so its calls do not always run "
                        "this layer: drop act and apply the activation to this layer's output "
                        "where it runs"))
                    break
        for name, why in escaped.items():
            del acts[name]
            for key, w in list(up.layer_act_calls.items()):
                if up.layer_act_owner.get(key) == (id(cls), name):
                    del up.layer_act_calls[key]
                    up.layer_act_escapes[key] = why
    return acts


# a layer's own members: self.fc.weight, self.fc.parameters() ... keep act where it is
# wrapped; forward / __call__ run the layer without the wrap
_RUNS_LAYER = ("forward", "__call__")
_NAME_FUNCS = ("getattr", "setattr", "hasattr", "delattr")


def _escaping_uses(up, cls: cst.ClassDef, names) -> Dict[str, object]:
    """Uses of ``<x>.<name>`` for the act layers ``names`` of ``cls`` that the wrap of the
    calls ``self.<name>(...)`` in ``cls`` does not cover: the layer itself taken as a value
    (``f = self.fc``, ``apply(self.fc, x)``, ``net.fc(x)`` outside the class, ``self.fc(x)``
    in another class such as a subclass, ``self.fc.forward(x)``) or looked up by name
    (``getattr(self, 'fc')``). 1.8 applied act inside the layer, so each of these ran it;
    the rewritten layer has none. Name-based (any object's ``.fc`` counts), except ``self.<name>(...)`` in a class that sets
    its own ``self.<name>`` and is not related to ``cls`` by inheritance (``_family``)."""
    covered = set()
    replaced = set()  # <x>.<name> = ... outside cls's methods (and unrelated classes' own)
    escaped: Dict[str, object] = {}
    module = up.module

    class Marks(FastVisitor):
        def __init__(self):
            super().__init__()
            self.classes = []

        def visit_ClassDef(self, node):
            self.classes.append(node)

        def leave_ClassDef(self, node):
            self.classes.pop()

        def visit_Call(self, node: cst.Call):
            f = node.func
            if isinstance(f, cst.Attribute) and f.attr.value in names and isinstance(f.value, cst.Name) \
                    and f.value.value == "self" and self.classes and (
                        self.classes[-1] is cls or _own_layer(self.classes[-1], f.attr.value)):
                covered.add(id(f))
            if isinstance(f, cst.Name) and f.value in _NAME_FUNCS:
                for a in node.args:
                    v = a.value
                    if isinstance(v, cst.SimpleString) and v.evaluated_value in names:
                        escaped.setdefault(v.evaluated_value, "`%s(..., %s)`" % (f.value, v.value))

        def visit_Attribute(self, node: cst.Attribute):
            inner = node.value
            if isinstance(inner, cst.Attribute) and inner.attr.value in names \
                    and node.attr.value not in _RUNS_LAYER:
                covered.add(id(inner))

        def _own_target(self, t) -> bool:
            # self.<name> = ... in the class (checked by survey_class) or in an unrelated
            # class with its own self.<name>; elsewhere (a subclass, `net.fc = ...`) it
            # replaces the layer the wrapped calls run
            return t.attr.value not in names or (
                isinstance(t.value, cst.Name) and t.value.value == "self" and self.classes
                and (self.classes[-1] is cls or _own_layer(self.classes[-1], t.attr.value)))

        def visit_AssignTarget(self, node: cst.AssignTarget):
            if isinstance(node.target, cst.Attribute):
                (covered if self._own_target(node.target) else replaced).add(id(node.target))

        def visit_AnnAssign(self, node: cst.AnnAssign):
            if isinstance(node.target, cst.Attribute):
                (covered if self._own_target(node.target) else replaced).add(id(node.target))

    class Uses(FastVisitor):
        def visit_Attribute(self, node: cst.Attribute):
            name = node.attr.value
            if name in names and id(node) not in covered and name not in escaped:
                escaped[name] = Manual(
                    f"`{module.code_for_node(node)}` is assigned outside the class's own "
                    "methods (a subclass, another object), so the calls `self.<name>(...)` "
                    "may run another layer: drop act and apply the activation to this "
                    "layer's output where it runs") if id(node) in replaced else \
                    "`%s`" % module.code_for_node(node)

    family = _family(module, cls)

    def _own_layer(other: cst.ClassDef, name: str) -> bool:
        # self.<name>(...) in a class unrelated to cls by inheritance that sets its own
        # self.<name>: that call runs the other class's layer, never this one
        return id(other) not in family and name in _self_assigned(other)

    module.visit(Marks())
    module.visit(Uses())
    return escaped


def _base_names(node: cst.ClassDef):
    out = []
    for a in node.bases:
        v = a.value
        while isinstance(v, cst.Attribute):
            v = v.attr
        out.append(v.value if isinstance(v, cst.Name) else None)
    return out


def _family(module: cst.Module, cls: cst.ClassDef):
    """ids of the classes of the module whose instances may hold cls's layers or run code
    that cls's instances run: cls, its ancestors and descendants (by base-class name), and
    the ancestors of those descendants (multiple inheritance mixes methods). A base that is
    not a plain name, a class name defined twice or a class with keywords/star bases is
    treated as related to everything (every class is in the family)."""
    classes = []

    class All(FastVisitor):
        def visit_ClassDef(self, node):
            classes.append(node)

    module.visit(All())
    by_name: Dict[str, list] = {}
    for c in classes:
        by_name.setdefault(c.name.value, []).append(c)
    if any(len(v) > 1 for v in by_name.values()) or any(
            None in _base_names(c) or c.keywords or any(a.star for a in c.bases) for c in classes):
        return {id(c) for c in classes}

    def ancestors(c, seen=None):
        seen = set() if seen is None else seen
        for b in _base_names(c):
            for p in by_name.get(b, ()):
                if id(p) not in seen:
                    seen.add(id(p))
                    ancestors(p, seen)
        return seen

    anc = {id(c): ancestors(c) for c in classes}
    family = {id(cls)} | anc[id(cls)]
    for c in classes:
        if id(cls) in anc[id(c)]:
            family |= {id(c)} | anc[id(c)]
    return family


def _self_assigned(cls: cst.ClassDef):
    """Attribute names set as ``self.<name> = ...`` in the class's own methods."""
    names = set()

    class V(FastVisitor):
        def visit_ClassDef(self, node):
            return node is cls

        def visit_AssignTarget(self, node: cst.AssignTarget):
            t = node.target
            if isinstance(t, cst.Attribute) and isinstance(t.value, cst.Name) and t.value.value == "self":
                names.add(t.attr.value)

    cls.visit(V())
    return names


def rewrite_call(up, original: cst.Call, updated: cst.Call, entry):
    src = _act_src(up, original, entry)
    if isinstance(src, Manual):
        up.report_entry(original, entry, False, manual=src.reason)
        return updated
    if src is None or src.strip() == "None":
        return up.apply_entry(original, updated, _without_act(entry))
    if id(original) not in up.layer_act_calls and (
            literal(src)[0] != "ok" and act_by_name.template(src) is not None
            or isinstance(act_wrapper(src), Manual) and act_by_name.literal_act(src)):
        # act=<name>, or a literal name the call-site wrap has no template for
        # (act='soft_relu'): a forward hook of the layer applies it (act_by_name.py)
        why = act_by_name.layer_manual(up, src)
        if why is not None or not up.can_apply(entry, original):
            up.report_entry(original, entry, False, manual=why)
            return updated
        result = up.apply_entry(original, updated, _without_act(entry))
        if result is updated:
            return updated
        act_by_name.use_layer(up, None)
        return fill(act_by_name.LAYER_HELPER + "({call}, " + src.strip() + ")", {"call": result})
    if id(original) not in up.layer_act_calls:
        unmapped = map_call(_without_act(entry), original, cst.Name("_"))
        if isinstance(unmapped, Manual):  # another argument (output_size=...) is manual:
            # survey_class left the layer out for that, not for how it is stored
            up.report_entry(original, entry, False, manual=unmapped.reason)
            return updated
        w = act_wrapper(src)
        escape = up.layer_act_escapes.get(id(original))
        hook_why = None
        if not isinstance(w, Manual) and act_by_name.literal_act(src) is not None:
            # a layer kept in Sequential / a list, passed on, or used as `self.<name>` other
            # than by calls: the forward hook goes with the layer object wherever it runs
            hook_why = act_by_name.layer_manual(up, src)
            if hook_why is None and up.can_apply(entry, original):
                result = up.apply_entry(original, updated, _without_act(entry))
                if result is not updated:
                    act_by_name.use_layer(up, None)
                    return fill(act_by_name.LAYER_HELPER + "({call}, " + src.strip() + ")",
                                {"call": result})
        why = w.reason if isinstance(w, Manual) else escape.reason if isinstance(
            escape, Manual) else (
            f"the layer is used other than by calls `self.<name>(...)` in its class: {escape}; "
            "1.8 applied act there too, so wrapping only those calls would drop it: "
            f"drop act={src} and apply the activation to the layer's output wherever it runs"
            if escape else
            "the layer is not stored as `self.<name>`, so its calls cannot be wrapped; "
            f"drop act={src} and apply the activation to the layer's output")
        if hook_why is not None:  # the hook's own conditions fail (act_by_name.layer_manual)
            why = f"{why}; a forward hook cannot apply it either: {hook_why}"
        up.report_entry(original, entry, False, manual=why)
        return updated
    up.report(original, CODE, f"act={src} of `{entry.short}` is applied to the layer's output "
              "in the calls `self.<name>(...)`", entry.name, entry.target, "safe", applied=True)
    return up.apply_entry(original, updated, entry, entry_override=_without_act(entry))


def _short(up, node) -> str:
    text = up.module.code_for_node(node)
    return text if len(text) <= 60 else text[:57] + "..."


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
