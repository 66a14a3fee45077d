"""PU208 program-clone-for-test: ``program.clone(for_test=True)`` under PIR.

What it does
    Reports ``<program>.clone(for_test=True)`` in upgraded static-graph code for a manual
    rewrite, and leaves the call as it is.

Why is this bad?
    Since Paddle 3.0 static graphs use the new IR (PIR) by default. A PIR ``Program`` has
    no ``clone(for_test=...)``: the call raises ``TypeError: clone(): incompatible function
    arguments``, and a plain ``clone()`` gives a program whose values are new objects, so
    fetching the original program's variables from it silently returns nothing. 1.x code
    used the clone to evaluate without dropout/batch-norm updates and without the backward
    and optimizer ops.

Example
    ``test_program = main.clone(for_test=True)`` taken before ``minimize`` (checked on
    3.3.1 against the 1.8.5 goldens of four bundled programs, fixtures/recipes/): move the
    layers built before the clone into a function and call it a second time, before
    ``minimize``, under ``paddle.static.program_guard(test_program, paddle.static.Program())``
    with its own ``paddle.static.data`` of the same names (the feeds stay the same), in
    inference mode (``paddle.nn.BatchNorm(..., is_test=True)`` or a layer's ``.eval()``,
    ``F.dropout(..., training=False)``). Name every parameter and batch-norm statistic
    (``ParamAttr(name=...)``, ``moving_mean_name`` / ``moving_variance_name``): generated
    names are not shared between PIR programs (a second ``static.nn.fc`` is ``fc_1`` even
    under ``unique_name.guard()``). Run the test program in the same scope, never run its
    startup program, and fetch its own values. When the evaluation fetches are fixed,
    ``paddle.static.normalize_program(main, feed_vars, fetch_vars)`` called before
    ``minimize`` gives the pruned inference-mode program in one call (run it with
    ``fetch_list=None``: it returns the fetch_vars in order). Or move the model to dynamic
    mode and use ``model.eval()``. The compat runtime runs the original unchanged.

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
                  "(Paddle 3 static graphs): build the evaluation program separately (the same layers "
                  "in inference mode, parameters named to share them) or use "
                  "paddle.static.normalize_program(program, feed_vars, fetch_vars) before minimize", "paddle.fluid.Program.clone",
                  "paddle.static.Program", "manual")
    return updated
