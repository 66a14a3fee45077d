"""PU208 program-clone-for-test: ``program.clone(for_test=True)`` under PIR.

What it does
    Reports ``<program>.clone(for_test=True)`` in upgraded static-graph code for a manual
    rewrite, and leaves the call as it is.

Why is this bad?
    Since Paddle 3.0 static graphs use the new IR (PIR) by default. A PIR ``Program`` has
    no ``clone(for_test=...)``: the call raises ``TypeError``, and a plain ``clone()``
    gives a program whose values are new objects, so fetching the original variables
    from it fails. 1.x code used the clone to evaluate without dropout/batch-norm
    updates and without the backward and optimizer ops.

Example
    ``test_program = fluid.default_main_program().clone(for_test=True)`` — build the
    evaluation graph in its own ``paddle.static.Program`` (same layers, same parameter
    names via ``ParamAttr(name=...)``, run with the same scope), or move the model to
    dynamic mode and use ``model.eval()``. The compat runtime still runs the original
    unchanged (it selects the legacy IR).

Fix safety
    Manual: no rewrite on PIR computes the same thing in general.
"""
from __future__ import annotations

import libcst as cst

CODE = "PU208"


def check_call(up, original: cst.Call, updated: cst.Call):
    f = original.func
    if isinstance(f, cst.Attribute) and f.attr.value == "clone" and any(
            a.keyword is not None and a.keyword.value == "for_test" for a in original.args):
        up.report(original, CODE, "`Program.clone(for_test=True)` does not exist on PIR "
                  "(Paddle 3 static graphs): build the evaluation program separately or use "
                  "dynamic mode with model.eval()", "paddle.fluid.Program.clone",
                  "paddle.static.Program", "manual")
    return updated
