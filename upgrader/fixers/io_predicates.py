"""PU101 io-predicate: ``fluid.io.is_parameter`` / ``is_persistable`` become
``_fluid_is_parameter`` / ``_fluid_is_persistable``, functions fix adds to the module.

What it does
    A call ``fluid.io.is_parameter(v)`` becomes ``_fluid_is_parameter(v)`` (the function
    the type-check fixer adds for ``isinstance(v, fluid.framework.Parameter)``, which is
    what 1.8.5's predicate computed) and ``fluid.io.is_persistable(v)`` becomes
    ``_fluid_is_persistable(v)``; the functions used as values (``predicate=
    fluid.io.is_parameter``, ``filter(fluid.io.is_persistable, program.list_vars())``)
    become those functions too.

Why is this bad?
    ``paddle.framework.is_parameter`` is ``isinstance(v, Parameter)``: a parameter of a
    Paddle 3 static (PIR) program is a plain ``paddle.pir.Value``, so it answers False
    where 1.8.5 answered True; ``paddle.static.is_persistable`` reads ``var.desc``, which
    PIR values do not have (AttributeError).

Example
    ``[v.name for v in prog.list_vars() if fluid.io.is_parameter(v)]`` →
    ``[v.name for v in prog.list_vars() if _fluid_is_parameter(v)]``.

Fix safety
    Safe: the rules' examples (static programs: data, a parameter, an fc layer's
    parameters and output, a persistable variable; dygraph parameters and tensors for
    is_parameter) agree with 1.8.5. Manual when the module already uses the function's
    name for something else.
"""
from __future__ import annotations

import libcst as cst

CODE = "PU101"
STRUCTURAL = ("io-predicate",)
NAMES = {"paddle.fluid.io.is_parameter": "_fluid_is_parameter",
         "paddle.fluid.io.is_persistable": "_fluid_is_persistable"}
WHAT = {"_fluid_is_parameter": "a function fix adds to the module: a parameter of a Paddle 3 "
                               "static (PIR) program is a plain paddle.pir.Value, told apart "
                               "by value.is_parameter",
        "_fluid_is_persistable": "a function fix adds to the module: the value's persistable "
                                 "flag (Paddle 3's static values have no var.desc)"}
HELPER_OF = {k: f"{v} ({WHAT[v]})" for k, v in NAMES.items()}
SOURCES = {"_fluid_is_persistable": '''def _fluid_is_persistable(v):
    """Paddle 1.8's fluid.io.is_persistable: whether v is persistable (parameters,
    persistable global variables, optimizer states); a Paddle 3 static (PIR) value has no
    var.desc for paddle.static.is_persistable to read."""
    return bool(v.persistable)
'''}


def _source(name: str) -> str:
    from upgrader.fixers import type_checks
    return SOURCES.get(name) or type_checks.SOURCES[name]


def rewrite_call(up, original: cst.Call, updated: cst.Call, entry):
    from upgrader.fixers import bound_or_report, helper_conflict, use_helper
    name = NAMES[entry.name]
    if helper_conflict(up, original, entry, name, _source(name)) \
            or bound_or_report(up, original, updated, entry) is None:
        return updated
    up.needed_imports.add("paddle")
    use_helper(up, original, entry, name, WHAT[name])
    return updated.with_changes(func=cst.Name(name))


def rewrite_reference(up, node: cst.BaseExpression, entry):
    """The predicate used as a value: the same function."""
    from upgrader.fixers import helper_state, use_helper
    name = NAMES[entry.name]
    if helper_state(up, name, _source(name)) == "conflict" or not up.can_apply(entry, node):
        return None  # the plain handling reports it (manual)
    up.needed_imports.add("paddle")
    use_helper(up, node, entry, name, WHAT[name])
    return cst.Name(name)


def finish_module(up, module: cst.Module) -> cst.Module:
    """Add _fluid_is_persistable (the type-check fixer adds _fluid_is_parameter)."""
    from upgrader.fixers import add_used_helpers
    return add_used_helpers(up, module, SOURCES)
