"""PU101 build-strategy: the ``BuildStrategy`` attributes Paddle 3 removed are no longer set.

What it does
    ``bs = fluid.BuildStrategy()`` becomes ``bs = paddle.static.BuildStrategy()`` (the
    entry's rename), and the statements of the same function (or module code) that set
    ``bs.enable_sequential_execution``, ``bs.remove_unnecessary_lock`` or
    ``bs.is_distribution`` are deleted (``pass`` when one was the only statement of its
    block). ``bs.gradient_scale_strategy = ...`` is reported for a manual rewrite.

Why is this bad?
    3.3.1's ``paddle.static.BuildStrategy`` has no such attributes: assigning one raises
    ``AttributeError: 'paddle.base.libpaddle.BuildStrategy' object has no attribute
    'enable_sequential_execution'`` (checked on 3.3.1; 1.8.5 had all four). They tuned
    how 1.8's ParallelExecutor scheduled operators (sequential order, locks) and marked
    distributed programs; the upgraded program runs its plain program (PU209 compiled
    program).

Example
    ``bs = fluid.BuildStrategy()`` / ``bs.enable_sequential_execution = True`` /
    ``bs.fuse_all_reduce_ops = False`` becomes ``bs = paddle.static.BuildStrategy()`` /
    ``bs.fuse_all_reduce_ops = False``.

Fix safety
    Safe: the three flags changed the order operators ran in and how, not what they
    computed (program static_infra_compiled_strategy: the losses of 1.8.5 with them set).
    Only an assignment statement of its own whose value calls nothing, to a name the
    function (module) binds once, by the constructor's statement; another assignment of
    those attributes is reported for a manual rewrite. ``gradient_scale_strategy`` is
    always manual: on one device ``CoeffNumDevice`` and ``One`` both scaled the loss
    gradient by 1 (delete the line), ``Customized`` left the loss gradient to the program.
"""
from __future__ import annotations

from typing import Dict, List, Tuple

import libcst as cst

from upgrader import removal
from upgrader.fixers.exec_strategy import _calls_nothing, _scope_node, _statement_of

CODE = "PU101"
STRUCTURAL = ("build-strategy",)

REMOVED = ("enable_sequential_execution", "remove_unnecessary_lock", "is_distribution")
GRADIENT_SCALE = "gradient_scale_strategy"
_SCOPES = (cst.FunctionDef, cst.Lambda, cst.ClassDef)


def _plan(up) -> Dict[int, Tuple[str, str, str]]:
    """id(statement line) -> (fix, message, legacy name): what the statement hook reports
    there (so that a TODO goes on that very statement) and whether it deletes it."""
    d = getattr(up, "_build_strategy_plan", None)
    if d is None:
        d = up._build_strategy_plan = {}
    return d


def _survey(scope: cst.CSTNode, name: str):
    """(times ``name`` is bound in the scope's own code, the statements
    ``name.<attr> = value`` there with their attribute and value)."""
    binds = [0]
    sets: List[tuple] = []

    class V(cst.CSTVisitor):
        def __init__(self):
            super().__init__()
            self.top = True

        def on_visit(self, node):
            if isinstance(node, _SCOPES) and node is not scope:
                return False
            if isinstance(node, (cst.AssignTarget, cst.AugAssign, cst.AnnAssign, cst.For,
                                 cst.WithItem, cst.CompFor, cst.NamedExpr)):
                target = getattr(node, "target", None) or getattr(node, "asname", None)
                if isinstance(target, cst.AsName):
                    target = target.name
                for n in _names(target):
                    if n == name:
                        binds[0] += 1
            if isinstance(node, (cst.Global, cst.Nonlocal)) and any(
                    n.name.value == name for n in node.names):
                binds[0] += 2
            if isinstance(node, cst.Param) and node.name.value == name:
                binds[0] += 2
            if isinstance(node, cst.SimpleStatementLine):
                for small in node.body:
                    if isinstance(small, cst.Assign) and len(small.targets) == 1:
                        t = small.targets[0].target
                        if isinstance(t, cst.Attribute) and isinstance(t.value, cst.Name) and \
                                t.value.value == name and \
                                t.attr.value in REMOVED + (GRADIENT_SCALE,):
                            sets.append((node, small, t.attr.value, len(node.body) == 1))
            return True

    scope.visit(V())
    return binds[0], sets


def _names(target) -> List[str]:
    if isinstance(target, cst.Name):
        return [target.value]
    if isinstance(target, (cst.Tuple, cst.List)):
        out = []
        for e in target.elements:
            out.extend(_names(e.value))
        return out
    if isinstance(target, cst.StarredElement):
        return _names(target.value)
    return []


def rewrite_call(up, original: cst.Call, updated: cst.Call, entry):
    result = up.apply_entry(original, updated, entry)
    if result is updated or original.args or not up.can_apply(entry, original):
        return result
    stmt = _statement_of(up, original)
    if stmt is None:
        return result
    name = stmt.body[0].targets[0].target.value
    scope = _scope_node(up, stmt)
    binds, sets = _survey(scope, name)
    for line, small, attr, alone in sets:
        legacy = f"{entry.name}.{attr}"
        if attr == GRADIENT_SCALE:
            _plan(up)[id(line)] = ("manual", f"`{name}.{attr}` is gone in 3.x (setting it raises "
                                   "AttributeError): on one device CoeffNumDevice and One both "
                                   "scaled the loss gradient by 1 (delete the line); Customized left "
                                   "the loss gradient to the program (compute it yourself)", legacy)
            continue
        if binds != 1 or not alone or not _calls_nothing(small.value):
            why = ("the name is bound more than once in its scope" if binds != 1 else
                   "it shares its line with other statements" if not alone else
                   "its value calls a function (deleting the statement would skip it)")
            _plan(up)[id(line)] = ("manual", f"`{name}.{attr}` is gone in 3.x (setting it raises "
                                   "AttributeError) and only tuned 1.8's ParallelExecutor: delete "
                                   f"the assignment ({why})", legacy)
            continue
        _plan(up)[id(line)] = ("safe", f"`{name}.{attr} = ...` deleted: the attribute is gone in "
                               "3.x (AttributeError) and only tuned 1.8's ParallelExecutor", legacy)
    return result


def leave_statement(up, original, updated):
    d = getattr(up, "_build_strategy_plan", None)
    if not d:
        return updated
    planned = d.get(id(original))
    if planned is not None:
        fix, message, legacy = planned
        if fix == "safe":
            up.report(original, CODE, message, legacy, "", "safe", applied=True)
            if up.opts.fix:
                return removal.remove(up, original, updated)
        else:
            up.report(original, CODE, message, legacy, "", "manual")
    return removal.carry_in(up, original, updated)
