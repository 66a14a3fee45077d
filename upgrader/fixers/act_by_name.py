"""PU101 act-by-name: ``act=<name>`` whose value is not a literal is applied through a small
module function that reproduces 1.8's activation for every name the literal rewrite knows.

What it does
    A layer function whose ``act`` argument is rewritten into an explicit activation call
    (``layers.fc``, ``batch_norm``, ``conv2d``, ``conv2d_transpose``, ``elementwise_add``,
    ...) and that is given ``act=`` a plain name or attribute (``act=act``,
    ``act=self._act``: typically a parameter of a helper ``def fc(x, size, act=None)``)
    becomes ``_fluid_act(<rewritten call>, act)``, and ``fix`` adds once, after the
    module's imports::

        def _fluid_act(x, act):
            if act is None:
                return x
            if act == 'relu':
                return paddle.nn.functional.relu(x)
            ...
            raise ValueError(...)

    A layer class given ``act=<name>`` (``Conv2D(c, c, 3, act=act)``, ``BatchNorm(c,
    act=act)``, ``Linear(4, 3, act=classifier_activation)``, also inside ``Sequential``)
    becomes ``_fluid_layer_act(<rewritten layer>, act)``, a second module function that
    registers a forward post hook applying ``_fluid_act`` to the layer's output (nothing for
    ``None``) and returns the layer itself: same parameters, state dict and sublayers.
    A literal name that the literal rewrite leaves manual for a layer class gets the same
    hook: ``BatchNorm(c, act='leaky_relu')`` (also ``'softplus'``, ``'soft_relu'``: 3.x's
    ``paddle.nn.BatchNorm`` cannot apply them itself) becomes
    ``_fluid_layer_act(paddle.nn.BatchNorm(c), 'leaky_relu')``, and ``Linear`` / ``Conv2D``
    / ... given a name that has no call-site template but a branch here (``act='soft_relu'``,
    ``'brelu'``, ``'stanh'``, ...) get it wherever they are built (``self.<name>``,
    ``Sequential``, a list).

    ``getattr(fluid.layers, act)(x)`` (the builtin getattr, one positional argument;
    ``act`` a name or attribute chain, or a literal name the function has a branch for:
    PGL's ``getattr(L, activation)(feature)``) becomes ``_fluid_act(x, act)``: 1.8 called
    the layer function of that name with its defaults, which for each of these names is the
    activation op with its default attributes (values and gradients checked on 1.8.5,
    program static_act_by_name). Another literal (``getattr(L, 'reduce_sum')``) stays, as
    a legacy module used as a value.

    The function has one branch per 1.8 activation name that a literal ``act='<name>'``
    is rewritten for, with the same modern call (1.8's default attributes:
    ``leaky_relu`` with ``negative_slope=0.02``, ``hard_sigmoid`` with ``slope=0.2``, ...),
    and one for each other 1.8 activation op a modern call reproduces with its gradient
    (``brelu``, ``stanh``, ``soft_relu``, ``thresholded_relu``, ``softshrink``, ``selu``,
    ``sin``, ``round``, ``rsqrt``, ...: ``EXTRA_ACTS``).
    It goes after the leading docstring, imports and ``import paddle`` (in a notebook: at
    the top of the first cell that holds other code), before any statement that runs code;
    a module that already has this very function (a second ``fix``) reuses it.

Why is this bad?
    1.8 applied ``act`` by name at run time: ``LayerHelper.append_activation`` appended the
    op called ``act`` with its default attributes (dygraph: ``core.ops.<act>``), or nothing
    for ``None``. Today's layers take no ``act``; the literal form is unfolded when
    rewriting, but a name passed through a helper function is known only when the program
    runs. Passing it on as ``activation=`` is no substitute: ``paddle.static.nn.fc``'s
    ``activation`` crashes on 3.3.1 for several names and lacks others.

Example
    ``def fc(x, size, act=None): return fluid.layers.fc(input=x, size=size, act=act)`` →
    ``def fc(x, size, act=None): return _fluid_act(paddle.static.nn.fc(x=x, size=size),
    act)`` with ``_fluid_act`` defined after the imports.

Fix safety
    Safe: every branch gives 1.8.5's values and gradients (checked on 1.8.5 for each
    branch, at the boundaries of the clipping ones; leaky_relu's gradient at exactly 0 is
    1.8.5's alpha and today's 1, as for its literal rewrite: see its rule), ``None`` gives the layer's output
    unchanged, and any other name (``hard_shrink``: 1.8 zeroed ``|x| == 0.5``, today's
    ``hardshrink`` keeps it) raises ``ValueError`` naming it (1.8 applied the op of that name; it
    is never silently left out or approximated). The argument is evaluated after the
    layer instead of before it, so only names and attribute chains are accepted, also
    indexed by an integer, a name or a string (``act=hidden_acts[i]`` in PaddleRec's DSSM
    tower loop, ``act=cfg['act']``): any other expression stays manual. Layer classes: 1.8 applied act at the end of the
    layer's forward, the hook at the end of every call of the layer (``layer(x)``, through
    ``Sequential``, ``getattr``, a helper): the same, except a direct ``layer.forward(x)``,
    so a module that calls ``.forward(...)`` of anything but ``super()`` keeps them manual,
    as does a module with dynamic-to-static code (``declarative``, ``to_static``,
    ``ProgramTranslator``, ``jit``). A module that already uses the name ``_fluid_act`` or
    ``_fluid_layer_act`` for something else keeps the call for a manual rewrite. The same
    conditions hold for the literal names (checked on 1.8.5: ``BatchNorm`` with
    ``leaky_relu``, ``softplus``, ``soft_relu`` and ``Linear`` / ``Conv2D`` with ``soft_relu``,
    ``brelu``, ``stanh``, values and gradients, program dygraph_act_by_name); a literal
    ``_fluid_act`` has no branch for (``'hard_shrink'``) stays manual.
"""
from __future__ import annotations

import re
from typing import Optional

import libcst as cst

from upgrader.args import ACT_HELPER as HELPER, ACT_LAYER_HELPER as LAYER_HELPER, Manual

CODE = "PU101"

_NAME = r"[A-Za-z_][A-Za-z_0-9]*"
#: a name or attribute chain, each part optionally indexed by an integer, a name or
#: attribute chain, or a plain string (``acts[i]``, ``self._acts[-1]``, ``cfg['act']``):
#: nothing the layer call could change before it is read
_DOTTED = re.compile(
    rf"{_NAME}(\.{_NAME}|\[\s*(-?\d+|{_NAME}(\.{_NAME})*|'[^'\\{{}}]*'|\"[^\"\\{{}}]*\")\s*\])*")


def template(act_src: str) -> Optional[str]:
    """The wrap template for a non-literal ``act`` source, or None when the source is not
    a plain name or attribute chain, optionally indexed by constants or names
    (``hidden_acts[i]``; evaluated after the layer, so it must not depend on the call)."""
    src = act_src.strip()
    if not _DOTTED.fullmatch(src) or src in ("None", "True", "False"):
        return None
    return HELPER + "({call}, " + src + ")"


#: 1.8 activation ops that a literal ``act`` is not rewritten for (rulebook.ACT_TARGETS) but
#: whose 1.8 defaults a modern call reproduces, values and gradients (checked on 1.8.5 by
#: program static_act_by_name). Not here: hard_shrink (1.8 zeroed |x| == threshold, today's
#: hardshrink keeps it), ops 1.8 lacked (cosh, sinh, silu, ...).
EXTRA_ACTS = {
    "brelu": "paddle.nn.functional.hardtanh({call}, min=0.0, max=24.0)",
    "stanh": "paddle.stanh({call}, scale_a=0.67, scale_b=1.7159)",
    "thresholded_relu": "paddle.nn.functional.thresholded_relu({call}, threshold=1.0)",
    "softshrink": "paddle.nn.functional.softshrink({call}, threshold=0.5)",
    "tanh_shrink": "paddle.nn.functional.tanhshrink({call})",
    "selu": "paddle.nn.functional.selu({call})",
    "soft_relu": "paddle.log1p(paddle.exp(paddle.nn.functional.hardtanh({call}, min=-40.0, max=40.0)))",
    "sin": "paddle.sin({call})",
    "cos": "paddle.cos({call})",
    "atan": "paddle.atan({call})",
    "ceil": "paddle.ceil({call})",
    "floor": "paddle.floor({call})",
    "round": "paddle.round({call})",
    "reciprocal": "paddle.reciprocal({call})",
    "rsqrt": "paddle.rsqrt({call})",
}


def helper_source() -> str:
    """The module function: one branch per name of ``rulebook.ACT_TARGETS``, then
    ``EXTRA_ACTS``."""
    from upgrader.rulebook import ACT_TARGETS
    lines = [
        f"def {HELPER}(x, act):",
        '    """Paddle 1.8\'s act=<name>: the activation of that name with 1.8\'s defaults."""',
        "    if act is None:",
        "        return x",
    ]
    acts = dict(ACT_TARGETS)
    acts.update((k, v) for k, v in EXTRA_ACTS.items() if k not in acts)
    for name, tmpl in acts.items():
        lines.append(f"    if act == {name!r}:")
        lines.append("        return " + tmpl.replace("{call}", "x"))
    lines.append("    raise ValueError('act=%r: no automatic counterpart of this 1.8 "
                 "activation' % (act,))")
    return "\n".join(lines) + "\n"


def layer_helper_source() -> str:
    """The module function for layer classes: the activation on the layer's output."""
    return "\n".join([
        f"def {LAYER_HELPER}(layer, act):",
        '    """Paddle 1.8\'s act=<name> of a layer class: applied to the layer\'s output."""',
        "    if act is not None:",
        f"        layer.register_forward_post_hook(lambda _layer, _inputs, out: {HELPER}(out, act))",
        "    return layer",
    ]) + "\n"


_TO_STATIC = re.compile(r"declarative|to_static|ProgramTranslator|\bjit\b")


def literal_act(src: str) -> Optional[str]:
    """The activation name of a string literal ``act`` that ``_fluid_act`` has a branch for
    (``'leaky_relu'``, ``'soft_relu'``, ``'brelu'``, ...), or None."""
    from upgrader.args import literal
    from upgrader.rulebook import ACT_TARGETS
    kind, val = literal(src)
    if kind == "ok" and isinstance(val, str) and (val in ACT_TARGETS or val in EXTRA_ACTS):
        return val
    return None


def layer_hookable(src: str) -> bool:
    """A layer class's ``act`` source that the forward hook can apply: a plain name or
    attribute chain, or a literal name ``_fluid_act`` knows."""
    return template(src) is not None or literal_act(src) is not None


def layer_manual(up, src: str) -> Optional[str]:
    """Why a layer class given act=<src> (a name, or a literal name the literal rewrite
    leaves manual for this layer) cannot get the forward hook, or None."""
    if not layer_hookable(src):
        return f"act={src} is not a literal; apply the activation explicitly"
    lit = literal_act(src) is not None
    what = f"act={src} is not applied by the modern layer itself" if lit else \
        f"act={src} is not a literal"
    todo = "build the layer without act and apply" if lit else "apply"
    if state(up) == "conflict" or _layer_state(up) == "conflict":
        return ((f"{what}, and" if lit else f"act={src} is a name known only at run time and")
                + f" the module already uses the name {HELPER} or {LAYER_HELPER} for something "
                f"else; {todo} the activation explicitly")
    if _TO_STATIC.search(up.source):
        return (f"{what}, and the module has dynamic-to-static code, where a forward hook of "
                f"the layer is not certain to run; {todo} the activation explicitly")
    if _forward_calls(up):
        return (f"{what}, and the module calls a layer's forward() directly, which skips the "
                f"forward hook that would apply it; {todo} the activation explicitly")
    return None


def _forward_calls(up) -> bool:
    """``x.forward(...)`` other than ``super(...).forward(...)`` anywhere in the module."""
    cached = getattr(up, "_act_forward_calls", None)
    if cached is None:
        cached = up._act_forward_calls = bool(re.search(
            r"\.\s*forward\s*\(", re.sub(r"super\([^()]*\)\s*\.\s*forward", "", up.source)))
    return cached


def state(up) -> str:
    """'insert' (the module does not use the name), 'reuse' (it already defines this very
    function at module level: a second fix) or 'conflict' (the name means something else)."""
    from upgrader.fixers import helper_state
    return helper_state(up, HELPER, helper_source())


def _layer_state(up) -> str:
    from upgrader.fixers import helper_state
    return helper_state(up, LAYER_HELPER, layer_helper_source())


def use(up, mapped):
    """A rewrite that calls the function (map_call noted it): keep it and have the
    function added, or make the call manual when the module uses the name otherwise."""
    if state(up) == "conflict":
        return Manual(f"act is a name known only at run time and the module already uses the name {HELPER} "
                      "for something else (the function fix adds to apply it); apply the activation "
                      "explicitly")
    up.act_helper_used = True
    return mapped


def use_layer(up, mapped):
    """A layer class rewrite wrapped in the layer function (map_call noted it)."""
    if state(up) == "conflict" or _layer_state(up) == "conflict":
        return Manual(f"act is a name known only at run time and the module already uses the "
                      f"name {HELPER} or {LAYER_HELPER} for something else; apply the activation "
                      "explicitly")
    up.act_helper_used = True
    up.act_layer_helper_used = True
    return mapped


#: the module binds the name getattr itself (conservative: any binding form anywhere)
_GETATTR_BOUND = re.compile(r"\b(def|class|as|import|for|global|nonlocal)\s+getattr\b"
                            r"|\bgetattr\s*(=(?!=)|:)")


def getattr_module(up, node: cst.Call) -> Optional[cst.BaseExpression]:
    """For ``getattr(<fluid.layers>, act)(x)`` (the builtin ``getattr``, two arguments; one
    positional argument to the result; ``act`` a name or attribute chain, or a literal
    name ``_fluid_act`` knows): the ``fluid.layers`` node, else None."""
    f = node.func
    if not (isinstance(f, cst.Call) and type(f.func) is cst.Name and f.func.value == "getattr"
            and len(f.args) == 2 and len(node.args) == 1):
        return None
    if any(a.star or a.keyword is not None for a in (*f.args, node.args[0])):
        return None
    if up.resolve_dotted(f.args[0].value) != "paddle.fluid.layers":
        return None
    if up.scope.shadowed("getattr") or "getattr" in up.imports.bindings:
        return None
    bound = getattr(up, "_getattr_bound", None)
    if bound is None:  # once per module
        bound = up._getattr_bound = bool(_GETATTR_BOUND.search(re.sub(r"#[^\n]*", "", up.source)))
    if bound:
        return None
    src = up.module.code_for_node(f.args[1].value)
    if template(src) is None and literal_act(src) is None:
        return None
    return f.args[0].value


def rewrite_getattr(up, original: cst.Call, updated: cst.Call) -> cst.BaseExpression:
    """``getattr(fluid.layers, act)(x)`` -> ``_fluid_act(x, act)`` (:func:`getattr_module`
    marked it when it was visited); manual when the module uses the name otherwise."""
    marked = up.act_getattr_modules
    if not marked or len(original.func.args) != 2 or id(original.func.args[0].value) not in marked:
        return updated
    node = original.func.args[0].value
    src = up.module.code_for_node(original.func.args[1].value)
    if state(up) == "conflict":
        up.report(node, CODE, f"`getattr(fluid.layers, {src})(...)`: the activation is a name "
                  f"known only at run time and the module already uses the name {HELPER} for "
                  "something else; call the activation explicitly", "paddle.fluid.layers", "",
                  "manual")
        return updated
    up.act_helper_used = True
    up.needed_imports.add("paddle")
    up.report(node, CODE, f"`getattr(fluid.layers, {src})(...)` → `{HELPER}(..., {src})` (a "
              "function fix adds to the module: 1.8's activation of that name with its "
              "defaults)", "paddle.fluid.layers", HELPER, "safe", applied=True)
    return cst.Call(func=cst.Name(HELPER), args=[
        updated.args[0].with_changes(comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))),
        cst.Arg(value=updated.func.args[1].value)])


def finish_module(up, module: cst.Module) -> cst.Module:
    """Add the functions after the module's leading docstring and imports (before any
    statement that runs code), once."""
    if not getattr(up, "act_helper_used", False) or state(up) == "conflict":
        return module
    sources = []
    if state(up) == "insert":
        sources.append(helper_source())
    if getattr(up, "act_layer_helper_used", False) and \
            _layer_state(up) == "insert":
        sources.append(layer_helper_source())
    from upgrader.fixers import insert_after_head
    return insert_after_head(module, sources)
