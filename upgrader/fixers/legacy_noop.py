"""PU101 legacy-noop: a call of a function that 1.8 already kept only as a no-op is deleted.

What it does
    A statement that only calls an entry marked ``structural = "legacy-noop"``
    (``fluid.memory_optimize(program)``, ``fluid.release_memory(program)``, also through
    ``fluid.transpiler``) is deleted (``pass`` when it was the only statement of its
    block).

Why is this bad?
    Paddle 3 has no such functions (``AttributeError`` after the import is migrated). In
    1.8.5 they were already deprecated no-ops (since 1.6) that logged a warning and
    returned None: memory reuse became automatic (garbage collection,
    ``BuildStrategy.enable_inplace``).

Example
    ``fluid.memory_optimize(fluid.default_main_program(), print_log=False)`` is deleted.

Fix safety
    Safe: 1.8.5's functions did nothing but log (read in
    ``paddle/fluid/transpiler/memory_optimization_transpiler.py``; program
    static_infra_train_utils runs them and matches 1.8.5 after fix). Manual when the
    call's value is used, when it shares its line with other statements or is the body of
    a one-line block, or when an argument could do something when evaluated (anything but
    names, attributes, literals, displays of those, ``set(...)`` / ``list(...)`` /
    ``tuple(...)`` of them (book code's ``skip_opt_set=set([...])``) and
    ``default_main_program()``).
"""
from __future__ import annotations

import libcst as cst

from upgrader import removal
from upgrader.fixers import bound_or_report

CODE = "PU101"
STRUCTURAL = ("legacy-noop",)
DELETES = ("legacy-noop",)

_PROGRAMS = ("paddle.fluid.default_main_program", "paddle.fluid.framework.default_main_program",
             "paddle.fluid.default_startup_program",
             "paddle.fluid.framework.default_startup_program")


def _harmless(up, node) -> bool:
    if isinstance(node, (cst.Name, cst.Integer, cst.Float, cst.SimpleString,
                         cst.ConcatenatedString)):
        return True
    if isinstance(node, cst.Attribute):
        return _harmless(up, node.value)
    if isinstance(node, (cst.List, cst.Tuple, cst.Set)):
        return all(_harmless(up, e.value) for e in node.elements)
    if isinstance(node, cst.Call) and isinstance(node.func, cst.Name) and \
            node.func.value in ("set", "list", "tuple") and len(node.args) <= 1 and \
            up.imports.resolve_name(node.func.value) is None:
        return all(a.keyword is None and not a.star and _harmless(up, a.value) for a in node.args)
    if isinstance(node, cst.Call) and not node.args:
        return up.resolve_dotted(node.func) in _PROGRAMS
    return False


def _drops(up):
    d = getattr(up, "_legacy_noop_drops", None)
    if d is None:
        d = up._legacy_noop_drops = set()
    return d


def rewrite_call(up, original: cst.Call, updated: cst.Call, entry):
    bound = bound_or_report(up, original, updated, entry)
    if bound is None:
        return updated
    stmt = up.stmt_stack[-1][0] if up.stmt_stack else None
    own = (isinstance(stmt, cst.SimpleStatementLine) and len(stmt.body) == 1 and
           isinstance(stmt.body[0], cst.Expr) and stmt.body[0].value is original)
    if not own:
        up.report_entry(original, entry, False, manual=(
            "not a statement line of its own (its value used, or other statements on its "
            "line): 1.8 returned None and did nothing else; delete the call"))
        return updated
    if not all(_harmless(up, a.value) for a in original.args):
        up.report_entry(original, entry, False, manual=(
            "its arguments would be evaluated no more once the call is deleted: evaluate "
            "them in a statement of their own, then delete the call"))
        return updated
    _drops(up).add(id(stmt))
    up.report(original, entry.code, f"`{entry.short}()` deleted: already a no-op in 1.8 "
              "(deprecated since 1.6, it only logged a warning)", entry.name, "", "safe",
              applied=True)
    return updated


def leave_statement(up, original, updated):
    d = getattr(up, "_legacy_noop_drops", None)
    if d and id(original) in d and up.opts.fix:
        return removal.remove(up, original, updated)
    if d:
        return removal.carry_in(up, original, updated)
    return updated
