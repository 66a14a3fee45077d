"""PU218 layer-include-sublayers: ``Layer`` methods whose ``include_sublayers`` slot is gone.

What it does
    In a file that uses the legacy API, a call of ``sublayers``, ``named_sublayers``,
    ``set_dict`` or ``load_dict`` that passes 1.8's ``include_sublayers`` (by position or
    by keyword) loses that argument when it is the literal ``True`` (1.8's default, which
    is what 3.x always does), and the arguments after it become keywords:
    ``m.named_sublayers('m', True, True)`` → ``m.named_sublayers('m', include_self=True)``,
    ``m.set_dict(sd, True, False)`` → ``m.set_state_dict(sd, use_structured_name=False)``
    (today's name of the same Layer method; a one-argument ``set_dict`` is renamed alike).
    ``m.sublayers(include_sublayers=False)`` (the literal ``False``, ``m`` a name or an
    attribute of one) becomes ``[]``, which is what 1.8.5 returned (the 1.8 transformer
    numbered its layer norms with ``len(self.sublayers(include_sublayers=False))``). Any
    other value is reported for a manual rewrite.

Why is this bad?
    1.8.5's ``Layer.sublayers(include_sublayers=True)``,
    ``named_sublayers(prefix='', include_sublayers=True, include_self=False, ...)`` and
    ``set_dict/load_dict(state_dict, include_sublayers=True, use_structured_name=True)``
    lost that parameter in 2.0. Today ``sublayers(include_self=False)`` and
    ``named_sublayers(prefix='', include_self=False, ...)`` take another flag in the same
    slot, so ``m.sublayers(False)`` silently returns every sublayer (1.8.5 returned ``[]``:
    with ``include_sublayers=False`` it yielded nothing) and ``m.sublayers(True)`` adds
    ``m`` itself; ``set_dict(sd, False)`` turns off structured names instead; the keyword
    ``include_sublayers=`` raises TypeError (checked on 3.3.1).

Example
    ``for l in model.sublayers(include_sublayers=True):`` →
    ``for l in model.sublayers():``.

Fix safety
    Safe for the literal ``True``: the call then means what 1.8's default meant, and the
    remaining arguments keep their values by keyword; and for ``sublayers(False)`` on a
    name or attribute: ``[]`` is 1.8.5's result, and the receiver has no call to lose.
    Other ``include_sublayers=False`` calls (or a value that is not a literal) have no
    single counterpart: 1.8 returned no sublayers (``named_sublayers``; ``sublayers`` of
    a computed receiver) or loaded only the layer's own parameters
    (``set_dict``/``load_dict``), which the note explains; it is left manual. The receiver
    is not typed: any call of these method names with more arguments than 3.x's slot
    semantics allow is looked at, in files that use ``paddle.fluid``.
"""
from __future__ import annotations

from typing import List, Optional

import libcst as cst

from upgrader.args import code_of, keyword_arg, literal

CODE = "PU218"
# method -> (1.8 positional parameters after self, index of include_sublayers)
METHODS = {
    "sublayers": (("include_sublayers",), 0),
    "named_sublayers": (("prefix", "include_sublayers", "include_self", "layers_set"), 1),
    "set_dict": (("stat_dict", "include_sublayers", "use_structured_name"), 1),
    "load_dict": (("stat_dict", "include_sublayers", "use_structured_name"), 1),
}
FALSE = {
    "sublayers": "1.8 returned [] for include_sublayers=False (it yielded no sublayer); "
                 "today's slot is include_self",
    "named_sublayers": "1.8 yielded no sublayer for include_sublayers=False (only the layer "
                       "itself with include_self=True); today's slot is include_self",
    "set_dict": "1.8 loaded only the layer's own parameters for include_sublayers=False; "
                "today's slot is use_structured_name: filter the state dict to the "
                "layer's own parameter names and call set_state_dict",
    "load_dict": "1.8 loaded only the layer's own parameters for include_sublayers=False; "
                 "today's slot is use_structured_name: filter the state dict to the "
                 "layer's own parameter names and call set_state_dict",
}


def _legacy_file(up) -> bool:
    cached = getattr(up, "_uses_fluid", None)
    if cached is None:
        # also an upgraded file whose TODO says a call here is still to be migrated
        cached = up._uses_fluid = "fluid" in up.source or f"TODO(paddle-upgrade): {CODE}" in up.source
    return cached


def _plain_receiver(node) -> bool:
    """A name or attribute chain of names (``self``, ``self.encoder``): dropping the call
    drops no evaluation that could have an effect."""
    while isinstance(node, cst.Attribute):
        node = node.value
    return isinstance(node, cst.Name)


def check_call(up, original: cst.Call, updated: cst.Call):
    f = original.func
    if not (isinstance(f, cst.Attribute) and f.attr.value in METHODS):
        return updated
    name = f.attr.value
    params, slot = METHODS[name]
    args = list(updated.args)
    if any(a.star for a in args):
        return updated
    positional = [a for a in args if a.keyword is None]
    hit: Optional[int] = None
    if len(positional) > slot:
        hit = args.index(positional[slot])
    else:
        hit = next((i for i, a in enumerate(args)
                    if a.keyword is not None and a.keyword.value == "include_sublayers"), None)
    if hit is None or len(positional) > len(params) or not up.opts.enabled(CODE) \
            or not _legacy_file(up) or up.suppressed_node(original, CODE):
        return updated
    value = code_of(args[hit].value)
    legacy = f"paddle.fluid.dygraph.Layer.{name}"
    ok, lit = literal(value)
    if name == "sublayers" and ok == "ok" and lit is False and _plain_receiver(f.value):
        up.report(original, CODE, "`Layer.sublayers(include_sublayers=False)` → `[]` (1.8 "
                  "returned [] for it: no sublayer; today's slot is include_self)",
                  legacy, "", "safe", applied=True)
        return cst.List(elements=[], lbracket=cst.LeftSquareBracket(),
                        rbracket=cst.RightSquareBracket())
    if ok != "ok" or lit is not True:
        why = FALSE[name] if ok == "ok" and lit is False else (
            f"include_sublayers={value} is not a literal: 3.x has no include_sublayers "
            f"({FALSE[name]})")
        up.report(original, CODE, f"`Layer.{name}(include_sublayers={value})`: {why}",
                  legacy, "", "manual")
        return updated
    new: List[cst.Arg] = []
    for i, a in enumerate(args):
        if i == hit:
            continue
        if a.keyword is None and i > hit:
            a = keyword_arg(params[positional.index(a)], a.value, a.comma)
        new.append(a)
    if new:
        new[-1] = new[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)
    # set_dict is spelled set_state_dict, as optimizer_methods spells a one-argument
    # set_dict (the same Layer method today), so a second fix finds nothing to rename
    modern = "set_state_dict" if name == "set_dict" else name
    up.report(original, CODE, f"`Layer.{name}(..., include_sublayers=True)` → "
              f"`Layer.{modern}(...)` (3.x has no include_sublayers; True was 1.8's default)",
              legacy, f"paddle.nn.Layer.{modern}", "safe", applied=True)
    if modern != name and isinstance(updated.func, cst.Attribute):
        return updated.with_changes(args=new, func=updated.func.with_changes(attr=cst.Name(modern)))
    return updated.with_changes(args=new)
