"""PU201 dygraph-random-seed: a program's ``random_seed`` set in dygraph code → ``paddle.seed``.

What it does
    Inside a ``with fluid.dygraph.guard():`` block, the statement
    ``fluid.default_main_program().random_seed = seed`` becomes ``paddle.seed(seed)``.

Why is this bad?
    1.8's dygraph seeded the parameter initializers and dropout from the random_seed of the
    main program its guard had opened: with it set, every run gave the same initial
    weights and dropout masks (checked on 1.8.5: two runs printed the same Linear weights;
    the startup program's random_seed had no effect there and keeps its plain rename). Today dynamic mode reads
    only ``paddle.seed``; the plain rename sets an attribute nothing reads, and the
    upgraded program starts from different weights on every run.

Example
    ``fluid.default_main_program().random_seed = 90`` in a guard block →
    ``paddle.seed(90)``.

Fix safety
    Safe: runs are reproducible again, as they were in 1.8 (the random streams themselves
    differ between 1.8 and 3.x, so the drawn values were never the same across versions).
    Only the plain statement form with one target, lexically inside a guard block, is
    rewritten (a program's random_seed outside one reads as static-graph code, where the
    attribute keeps its meaning).
"""
from __future__ import annotations

import libcst as cst

from upgrader.args import code_of

CODE = "PU201"
# 1.8.5's dygraph read the main program's seed only: a startup program's random_seed left
# the initial weights different on every run (checked), so it keeps its plain rename
PROGRAMS = ("paddle.fluid.default_main_program", "paddle.fluid.framework.default_main_program")


def leave_statement(up, original, updated):
    if not isinstance(original, cst.SimpleStatementLine) or len(original.body) != 1:
        return updated
    s = original.body[0]
    if not (isinstance(s, cst.Assign) and len(s.targets) == 1):
        return updated
    t = s.targets[0].target
    if not (isinstance(t, cst.Attribute) and t.attr.value == "random_seed"
            and isinstance(t.value, cst.Call) and not t.value.args
            and up.resolve_dotted(t.value.func) in PROGRAMS):
        return updated
    if not up.guard_depth or not up.opts.enabled(CODE) or up.suppressed_node(original, CODE):
        return updated
    seed = code_of(s.value)
    up.report(original, CODE, f"`{code_of(t)} = {seed}` in dygraph code → `paddle.seed({seed})` "
              "(1.8's dygraph seeded initializers and dropout from the guard's programs; "
              "dynamic mode reads paddle.seed)", "paddle.fluid.Program.random_seed",
              "paddle.seed", "safe", applied=True)
    if not up.opts.fix:
        return updated
    new = cst.Expr(cst.Call(func=cst.parse_expression("paddle.seed"),
                            args=[cst.Arg(value=updated.body[0].value)]))
    return updated.with_changes(body=[new])
