"""PU103 type-checks: ``isinstance(v, fluid.Variable)`` that still holds for PIR values.

What it does
    In the class operand of ``isinstance``/``issubclass`` (the operand itself or an element
    of a tuple operand), a legacy graph class becomes the tuple of its old-IR class and its
    PIR class: ``fluid.Variable`` (and ``fluid.framework.Variable``, ``fluid.layers.Variable``,
    ...) → ``(paddle.static.Variable, paddle.pir.Value)``, ``fluid.framework.Block`` →
    ``(paddle.framework.Block, paddle.pir.Block)``, ``fluid.framework.Operator`` →
    ``(paddle.static.Operator, paddle.pir.Operation)``. Everywhere else (annotations,
    ``V = fluid.Variable``, calls) the entry's plain rename applies as before, and stays
    unsafe.

Why is this bad?
    Paddle 3 builds PIR programs by default: the variables, blocks and operators that
    ``paddle.static`` makes are ``paddle.pir.Value``, ``paddle.pir.Block`` and
    ``paddle.pir.Operation``, which are not instances of ``paddle.static.Variable``,
    ``paddle.framework.Block`` or ``paddle.static.Operator`` (the old-IR classes the legacy
    names were renamed to). The plain rename turns a 1.x check such as
    ``if not isinstance(x, fluid.Variable): x = fluid.layers.assign(x)`` into one that is
    False for every static value.

Example
    ``isinstance(x, fluid.Variable)`` → ``isinstance(x, (paddle.static.Variable,
    paddle.pir.Value))``; ``isinstance(x, (fluid.Variable, np.ndarray))`` →
    ``isinstance(x, ((paddle.static.Variable, paddle.pir.Value), np.ndarray))``;
    ``issubclass(t, fluid.framework.Block)`` → ``issubclass(t, (paddle.framework.Block,
    paddle.pir.Block))``; ``isinstance(var, fluid.framework.Parameter)`` →
    ``_fluid_is_parameter(var)``.

Fix safety
    Safe: checked on Paddle 1.8.5 against 3.3.1 (the entries' examples: Variable and Block
    in both modes, Operator in static mode, the only one with operators). In
    dynamic mode ``paddle.static.Variable`` answers for tensors as 1.8's ``Variable`` did
    for ``VarBase`` (True for a tensor and a parameter, instance checks only:
    ``issubclass(type(tensor), ...)`` is False in both); in static mode a static value,
    parameter, block or operator answers True and a tensor or array False, as in 1.8.5.
    One corner differs: a 1.8 static ``Parameter`` checked while dygraph mode is on was not
    a ``Variable`` (1.8's metaclass asked for a ``VarBase``), a PIR parameter is a
    ``paddle.pir.Value`` in any mode. ``fluid.framework.Parameter`` has no class form: a PIR
    parameter is a plain ``paddle.pir.Value`` (``value.is_parameter`` tells it apart). So
    ``isinstance(v, fluid.framework.Parameter)`` with the class alone becomes
    ``_fluid_is_parameter(v)``, a function fix adds to the module (``isinstance(v,
    paddle.static.Parameter) or (isinstance(v, paddle.pir.Value) and v.is_parameter)``;
    the entry's example: a parameter, data and an op result in both modes, checked on
    1.8.5), and its other checks (in a tuple, ``issubclass``) keep the unsafe rename.
    ``isinstance(v, fluid.dygraph.TranslatedLayer)`` likewise becomes
    ``_fluid_is_translated_layer(v)`` (``paddle.jit.load`` returns a PirTranslatedLayer,
    not public, under PIR). A shadowed or rebound ``isinstance`` is not an ``isinstance``
    check: the plain handling applies there.
"""
from __future__ import annotations

import ast

import libcst as cst

from upgrader.fixers import static_mode

CODE = "PU103"
STRUCTURAL = ("type-check",)

#: legacy class (entry name) → what its isinstance/issubclass class operand becomes
CLASS_OPERANDS = {
    "paddle.fluid.Variable": "(paddle.static.Variable, paddle.pir.Value)",
    "paddle.fluid.framework.Block": "(paddle.framework.Block, paddle.pir.Block)",
    "paddle.fluid.framework.Operator": "(paddle.static.Operator, paddle.pir.Operation)",
}


#: legacy class (entry name) → the function fix adds for ``isinstance(v, <class>)`` (the class
#: alone as the operand), with its source: no class tells these values apart under PIR
PREDICATES = {"paddle.fluid.framework.Parameter": "_fluid_is_parameter",
              "paddle.fluid.dygraph.io.TranslatedLayer": "_fluid_is_translated_layer"}
SOURCES = {"_fluid_is_parameter": '''def _fluid_is_parameter(v):
    """Paddle 1.8's isinstance(v, fluid.framework.Parameter): in a static (PIR) program a
    parameter is a plain paddle.pir.Value that answers is_parameter."""
    return isinstance(v, paddle.static.Parameter) or (
        isinstance(v, paddle.pir.Value) and v.is_parameter)
''', "_fluid_is_translated_layer": '''def _fluid_is_translated_layer(v):
    """Paddle 2.0's isinstance(v, fluid.dygraph.TranslatedLayer): under PIR paddle.jit.load
    returns a PirTranslatedLayer (not public), which is not a paddle.jit.TranslatedLayer."""
    return isinstance(v, paddle.jit.TranslatedLayer) or any(
        c.__name__ == 'PirTranslatedLayer' and c.__module__.startswith('paddle.')
        for c in type(v).__mro__)
'''}


def check_call(up, original: cst.Call, updated: cst.Call):
    """``isinstance(v, <class>)`` with a class of ``PREDICATES`` alone as the operand →
    ``<predicate>(v)``, the function fix adds (``_fluid_is_parameter``, ...)."""
    if len(original.args) != 2 or id(original.args[1].value) not in up.instance_classes:
        return updated
    entry = up.entry_for(up.resolve_dotted(original.args[1].value))
    name = PREDICATES.get(entry.name) if entry is not None else None
    if name is None or _builtins_rebound(up):
        return updated
    from upgrader.fixers import helper_conflict, need_helper
    node = original.args[1].value
    if not up.opts.enabled(entry.code) or helper_conflict(up, node, entry, name, SOURCES[name]):
        return updated
    shown = f"{name}(...)"
    if up.suppressed_node(node, entry.code):
        _report(up, node, entry, shown, applied=False, what=_PREDICATE_WHAT[name])
        return updated
    if entry.mode == "static":
        up.facts.static_refs += 1
    static_mode.note_applied(up, entry)
    need_helper(up, name)
    up.needed_imports.add("paddle")
    _report(up, node, entry, shown, applied=True, what=_PREDICATE_WHAT[name])
    return cst.Call(func=cst.Name(name), args=[updated.args[0].with_changes(comma=cst.MaybeSentinel.DEFAULT)],
                    lpar=updated.lpar, rpar=updated.rpar)


_PREDICATE_WHAT = {
    "_fluid_is_parameter": "a function fix adds to the module: a parameter of a Paddle 3 static "
                           "(PIR) program is a plain paddle.pir.Value, told apart by "
                           "value.is_parameter",
    "_fluid_is_translated_layer": "a function fix adds to the module: under PIR paddle.jit.load "
                                  "returns a PirTranslatedLayer (not public), not a "
                                  "paddle.jit.TranslatedLayer"}


def finish_module(up, module: cst.Module) -> cst.Module:
    """Add the predicates the rewrites call after the module's docstring and imports."""
    from upgrader.fixers import add_used_helpers
    return add_used_helpers(up, module, SOURCES)


def rewrite_call(up, original: cst.Call, updated: cst.Call, entry):
    """A legacy class called (constructed): the entry's plain handling."""
    return up.apply_entry(original, updated, entry)


def rewrite_reference(up, node: cst.BaseExpression, entry):
    if entry.name in PREDICATES and id(node) in up.instance_classes and not _builtins_rebound(up):
        return node  # the isinstance call becomes the predicate (check_call)
    operand = CLASS_OPERANDS.get(entry.name)
    if operand is None or id(node) not in up.class_operands or _builtins_rebound(up):
        return None  # not an isinstance/issubclass class: the plain rename (unsafe)
    if entry.mode == "static":
        up.facts.static_refs += 1
    if not up.opts.enabled(entry.code):
        return node
    if up.suppressed_node(node, entry.code):
        _report(up, node, entry, operand, applied=False)
        return node
    static_mode.note_applied(up, entry)
    _report(up, node, entry, operand, applied=True)
    return cst.parse_expression(operand)


_CHECKS = ("isinstance", "issubclass")


def _builtins_rebound(up) -> bool:
    """Whether the module binds ``isinstance`` or ``issubclass`` anywhere (a def, an
    assignment, an import, a parameter, at any level): its calls may not be the builtins'.
    The engine records the class operands of calls whose name is not shadowed by the
    enclosing functions' parameters; this conservative module-wide look covers the rest.
    Computed once per module, only when a class operand is met."""
    cached = getattr(up, "_type_check_rebound", None)
    if cached is None:
        cached = up._type_check_rebound = _binds(up.source)
    return cached


def _binds(source: str) -> bool:
    if not any(name in source for name in _CHECKS):
        return False
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return True
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load):
            bound = (node.id,)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            bound = (node.name,)
        elif isinstance(node, ast.arg):
            bound = (node.arg,)
        elif isinstance(node, ast.alias):
            bound = (node.asname or node.name.split(".")[0],)
        elif isinstance(node, (ast.Global, ast.Nonlocal)):
            bound = tuple(node.names)
        elif isinstance(node, ast.ExceptHandler):
            bound = (node.name,)
        else:
            bound = (getattr(node, "name", None),) if type(node).__name__.startswith("Match") else ()
        if any(b in _CHECKS for b in bound):
            return True
    return False


def _report(up, node, entry, operand, applied, what="Paddle 3's static values, blocks and "
                                                      "operators are PIR objects"):
    up.report(node, entry.code,
              f"`{entry.short}` as the class of an isinstance/issubclass check → `{operand}` "
              f"({what})", entry.name, operand, "safe", applied=applied)
