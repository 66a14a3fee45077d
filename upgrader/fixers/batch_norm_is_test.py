"""PU101 batch-norm-is-test: ``is_test`` of ``fluid.dygraph.BatchNorm`` dropped in a
module that runs only dynamic-mode code.

What it does
    In a module whose code is dynamic mode only (a ``dygraph.Layer`` subclass, ``dygraph.guard``,
    ``to_variable``, ...: no static-graph API, the mode survey of PU103) and that has no
    dynamic-to-static code (``declarative``, ``to_static``, ``ProgramTranslator``, ``jit``),
    ``fluid.dygraph.BatchNorm(c, is_test=True)`` (or ``is_test=<name>``) becomes
    ``paddle.nn.BatchNorm(c)``: the argument is dropped. Elsewhere the rule's mapping
    applies as before: ``is_test=True`` and a non-literal ``is_test`` stay manual,
    ``is_test=False`` is kept.

Why is this bad?
    1.8's dygraph ``BatchNorm.forward`` passed ``is_test=not self.training`` to the op and
    never read its own ``is_test``: a layer built with ``is_test=True`` normalised with the
    batch statistics and updated its moving averages until ``layer.eval()``, exactly like
    one built with ``is_test=False`` (checked on 1.8.5: outputs, input gradients, moving
    mean, eval outputs identical). ``paddle.nn.BatchNorm(is_test=True)`` starts in eval
    mode (``self.training = not is_test``), so passing it on changes the first training
    steps. Only 1.8's static-graph branch (a dygraph layer called while building a static
    program, or a ``@declarative`` forward) used ``is_test``.

Example
    ``self.bn = fluid.dygraph.BatchNorm(8, is_test=True)`` in a module of ``dygraph.Layer``
    classes → ``self.bn = paddle.nn.BatchNorm(8)``.

Fix safety
    Safe in the modules it applies to: the layer then starts in training mode and follows
    ``train()`` / ``eval()`` as in 1.8. The decision is per file: a module of layer classes
    that another file calls while building a static program looks dynamic-only here.
"""
from __future__ import annotations

import copy

from upgrader.args import bind, literal
from upgrader.rulebook import ArgSpec

CODE = "PU101"
STRUCTURAL = ("batch-norm-is-test",)


def rewrite_call(up, original, updated, entry):
    if _drops_is_test(up, updated, entry):
        use = copy.copy(entry)
        use.args = dict(entry.args)
        use.args["is_test"] = ArgSpec(drop=True)
        return up.apply_entry(original, updated, entry, entry_override=use)
    return up.apply_entry(original, updated, entry)


def _drops_is_test(up, call, entry) -> bool:
    bound = bind(entry, call)
    arg = getattr(bound, "values", {}).get("is_test")
    if arg is None:
        return False
    from upgrader.args import code_of
    kind, val = literal(code_of(arg.value))
    if kind == "ok" and val is False:
        return False  # the mapping keeps it (paddle.nn.BatchNorm's default)
    from upgrader.fixers.static_dropout import _TO_STATIC_SOURCE, dygraph_only
    return dygraph_only(up) and not _TO_STATIC_SOURCE.search(up.source)
