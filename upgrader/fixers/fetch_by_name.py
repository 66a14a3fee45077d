"""PU211 fetch-by-name: ``exe.run(..., fetch_list=[loss.name])`` fetches the variable.

What it does
    In ``<executor>.run(...)`` calls of a static-graph program, ``fetch_list`` elements
    written ``<var>.name`` become ``<var>``.

Why is this bad?
    Paddle 3 builds static graphs in PIR by default; a PIR value produced by an operator
    has no name (``ValueError: Currently, we can only get name of Value from DataOp...``),
    so ``loss.name`` fails before the program runs. Fetching the value itself was equally
    valid in 1.x.

Example
    ``exe.run(main, feed=feed, fetch_list=[avg_cost.name, acc.name])`` →
    ``exe.run(main, feed=feed, fetch_list=[avg_cost, acc])``.

Fix safety
    Safe: 1.x resolved the name to the same variable. Names given as strings
    (``fetch_list=['loss']``) are reported as manual: a PIR program cannot fetch by name
    (not even data or parameters; checked on 3.3.1), the variable itself must be fetched.
"""
from __future__ import annotations

import libcst as cst

CODE = "PU211"


def check_call(up, original: cst.Call, updated: cst.Call):
    f = updated.func
    if not (isinstance(f, cst.Attribute) and f.attr.value == "run" and up.facts.static_outside_guard):
        return updated
    args = list(updated.args)
    changed = False
    strings = []
    for i, a in enumerate(args):
        if a.keyword is None or a.keyword.value != "fetch_list" or not isinstance(a.value, (cst.List, cst.Tuple)):
            continue
        elements = []
        for el in a.value.elements:
            v = el.value
            if isinstance(v, (cst.SimpleString, cst.ConcatenatedString, cst.FormattedString)):
                strings.append(v)
            if isinstance(v, cst.Attribute) and v.attr.value == "name" and isinstance(v.value, (cst.Name, cst.Attribute)):
                el = el.with_changes(value=v.value)
                changed = True
            elements.append(el)
        args[i] = a.with_changes(value=a.value.with_changes(elements=elements))
    if strings and up.opts.enabled(CODE) and not up.suppressed_node(original, CODE):
        up.report(original, CODE, "fetch_list names a variable by a string: fetch the "
                  "variable itself (a parameter: program.get_parameter_value_by_name(name)); a "
                  "PIR program cannot fetch by name, 3.3.1 raises for every string (\"doesn't "
                  "have fetch op\"), also for data and parameters",
                  "paddle.fluid.Executor.run", "paddle.static.Executor.run", "manual")
    if not changed or not up.opts.enabled(CODE) or up.suppressed_node(original, CODE):
        return updated
    up.report(original, CODE, "fetch_list by `.name` → the variable itself (PIR values have no name)",
              "paddle.fluid.Executor.run", "paddle.static.Executor.run", "safe", applied=True)
    return updated.with_changes(args=args)
