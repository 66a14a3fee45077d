"""PU216 program-methods: methods of a 1.x ``Program`` that a PIR program does not have.

What it does
    On a program the file builds with the legacy API (``fluid.Program()``,
    ``fluid.default_main_program()``, ``fluid.default_startup_program()``, or a name
    assigned from one of them), ``prog.all_parameters()`` becomes
    ``prog.global_block().all_parameters()`` and ``prog.block(0)`` becomes
    ``prog.global_block()``; ``current_block()`` and ``to_string(...)`` are reported for a
    manual rewrite.

Why is this bad?
    Paddle 3 builds PIR programs by default. A PIR ``Program`` has ``global_block()``,
    ``list_vars()``, ``num_blocks`` and ``random_seed``, but no ``all_parameters``,
    ``block``, ``current_block`` or ``to_string`` (checked on 3.3.1): the upgraded program
    fails with AttributeError although every name it imports was rewritten.

Example
    ``params = fluid.default_main_program().all_parameters()`` →
    ``params = paddle.static.default_main_program().global_block().all_parameters()``.

Fix safety
    Safe for ``all_parameters()`` in a file that does not call ``create_global_var``
    (whose 3.x replacement, ``create_parameter(trainable=False)``, is a parameter too and
    would be listed: unsafe there), and for ``block`` with the literal index 0. Other
    block indices, ``current_block()`` (sub-blocks of control flow are PIR regions) and
    ``to_string`` (3.x prints PIR text) are manual.
"""
from __future__ import annotations

import libcst as cst

from upgrader.args import code_of, literal

CODE = "PU216"
PROGRAM_MAKERS = ("paddle.fluid.Program", "paddle.fluid.framework.Program",
                  "paddle.fluid.default_main_program", "paddle.fluid.default_startup_program",
                  "paddle.fluid.framework.default_main_program",
                  "paddle.fluid.framework.default_startup_program",
                  # the same programs once upgraded: `check` of an upgraded file still
                  # reports what is left (its TODO brings the file to the engine)
                  "paddle.static.Program", "paddle.static.default_main_program",
                  "paddle.static.default_startup_program")
MANUAL = {
    "current_block": "a PIR program has no current_block(): outside control flow use "
                     "program.global_block(); inside a cond/while_loop body the ops go to its "
                     "region",
    "to_string": "a PIR program has no to_string(): str(program) prints the PIR text (not "
                 "1.x's ProgramDesc text)",
}


def _is_program(up, node: cst.BaseExpression) -> bool:
    if isinstance(node, cst.Call):
        return up.resolve_dotted(node.func) in PROGRAM_MAKERS
    if isinstance(node, cst.Name):
        from upgrader.fixers.save_load_dygraph import _assignments
        return _assignments(up).get(node.value) in PROGRAM_MAKERS
    return False


def _global_var_used(up) -> bool:
    cached = getattr(up, "_creates_global_var", None)
    if cached is None:
        cached = up._creates_global_var = "create_global_var" in up.source
    return cached


def check_call(up, original: cst.Call, updated: cst.Call):
    f = original.func
    if not (isinstance(f, cst.Attribute) and f.attr.value in ("all_parameters", "block", *MANUAL)):
        return updated
    if not up.opts.enabled(CODE) or not _is_program(up, f.value):
        return updated
    if up.suppressed_node(original, CODE):
        return updated
    name = f.attr.value
    legacy = f"paddle.fluid.Program.{name}"
    if name in MANUAL:
        up.report(original, CODE, MANUAL[name], legacy, "", "manual")
        return updated
    new_value = updated.func.value  # type: ignore[union-attr]
    if name == "block":
        if len(original.args) != 1 or literal(code_of(original.args[0].value)) != ("ok", 0):
            up.report(original, CODE, "a PIR program has no block(i): block(0) is "
                      "global_block(); the other blocks are regions of control-flow ops",
                      legacy, "", "manual")
            return updated
        up.report(original, CODE, "`program.block(0)` → `program.global_block()` (PIR)",
                  legacy, "paddle.static.Program.global_block", "safe", applied=True)
        return cst.Call(func=cst.Attribute(value=new_value, attr=cst.Name("global_block")))
    if original.args:
        return updated
    safety = "unsafe" if _global_var_used(up) else "safe"
    message = ("`program.all_parameters()` → `program.global_block().all_parameters()` (PIR)"
               + ("; unsafe: create_global_var's replacement is a non-trainable parameter and is "
                  "listed too (filter on `not p.stop_gradient`)" if safety == "unsafe" else ""))
    if safety == "unsafe" and not up.opts.unsafe_fixes:
        up.report(original, CODE, message, legacy, "paddle.static.Program.global_block", "unsafe")
        return updated
    up.report(original, CODE, message, legacy, "paddle.static.Program.global_block", safety,
              applied=True)
    block = cst.Call(func=cst.Attribute(value=new_value, attr=cst.Name("global_block")))
    return cst.Call(func=cst.Attribute(value=block, attr=cst.Name("all_parameters")))
