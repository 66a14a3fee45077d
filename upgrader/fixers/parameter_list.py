"""PU101 parameter-list-static: ``fluid.dygraph.ParameterList`` stays manual in a module that
builds static programs.

What it does
    Leaves ``fluid.dygraph.ParameterList(...)`` for a manual rewrite, with the reason, in
    a module with static-graph code (the mode survey of PU103: ``program_guard``,
    ``fluid.data``, an executor, ...). Elsewhere the rule's rename to
    ``paddle.nn.ParameterList`` applies as before.

Why is this bad?
    1.8's container accepted the parameters of a static program (a dygraph layer called
    while building one). Today's ``paddle.nn.ParameterList`` asserts that each item is a
    ``Parameter``, and the parameters of a Paddle 3 static (PIR) program are plain
    ``paddle.pir.Value``: the constructor raises AssertionError (checked on 3.3.1). In
    dynamic mode the two containers agree (the rule's example, proven on 1.8.5).

Example
    ``params = fluid.dygraph.ParameterList([w, b])`` in a module that runs a static program
    stays, with a TODO note: keep the parameters in a plain Python list there.

Fix safety
    Not a rewrite: the call is reported manual in static modules. The decision is per file:
    a module of layer classes that another file calls while building a static program
    looks dynamic-only here.
"""
from __future__ import annotations

from upgrader.fixers import static_dropout

CODE = "PU101"
MANUAL_WHEN = ("paddle.fluid.dygraph.ParameterList",)


def manual_reason(up, call, entry):
    static, _ = static_dropout.module_modes(up)
    if not static:
        return None
    return ("this module builds static programs, where paddle.nn.ParameterList raises "
            "(it asserts each item is a Parameter; a Paddle 3 static (PIR) parameter is a "
            "plain paddle.pir.Value): keep the parameters in a plain Python list")
