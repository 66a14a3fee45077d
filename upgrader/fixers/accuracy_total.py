"""PU101 accuracy-total: 1.x's ``num_seqs = layers.create_tensor(...)`` filled by
``layers.accuracy(..., total=num_seqs)`` (the batch-size counter of the ERNIE / BERT
classifiers) becomes the batch size computed after the accuracy.

What it does
    In one block::

        num_seqs = fluid.layers.create_tensor(dtype='int64')
        accuracy = fluid.layers.accuracy(input=probs, label=labels, total=num_seqs)

    becomes::

        accuracy = paddle.atleast_1d(paddle.metric.accuracy(input=probs, label=labels))
        num_seqs = paddle.cast(paddle.shape(probs)[0:1], 'int32')

    The ``create_tensor`` statement goes, the accuracy is rewritten as any other (its rule)
    and the variable is bound right after it. Only when the variable is bound once, by
    that ``create_tensor`` statement, read nowhere before the accuracy statement (nor by a
    nested function or a ``global``/``nonlocal``), given as ``total=`` (by keyword) of one
    ``fluid.layers.accuracy`` call without ``correct=`` whose statement follows in the same
    block, and ``input`` is a name or an attribute (it is read again). Any other
    ``create_tensor`` stays manual, and so does ``total=`` of any other accuracy call.

Why is this bad?
    1.8's accuracy op wrote the number of samples of the batch into the ``total``
    variable (int32, shape [1], whatever dtype ``create_tensor`` declared: checked on
    1.8.5); ``paddle.metric.accuracy`` ignores ``total`` in a static (PIR) program and
    makes it 0-D in dygraph, and ``create_tensor`` is gone.

Example
    See above; ERNIE's ``create_model`` then returns ``num_seqs`` among its fetch
    variables, and the training loop weights the accuracy by it.

Fix safety
    Safe: the value, dtype and shape of ``num_seqs`` and the accuracy agree with 1.8.5 in
    static programs and in dygraph (program static_accuracy_total).
"""
from __future__ import annotations

import ast
import copy
from typing import Dict, Optional

import libcst as cst

from upgrader import removal, untouched

CODE = "PU101"
STRUCTURAL = ("accuracy-total",)   # create_tensor reaches it through created-tensor
CREATE = "paddle.fluid.layers.create_tensor"


class _Plan:
    def __init__(self):
        self.creates: Dict[int, str] = {}        # create_tensor line -> variable
        self.totals: Dict[int, int] = {}         # accuracy call line -> its statement's line
        self.binds: Dict[int, str] = {}          # that statement's line -> the binding after it


def _plan(up) -> _Plan:
    plan = getattr(up, "_accuracy_total_plan", None)
    if plan is not None:
        return plan
    plan = up._accuracy_total_plan = _Plan()
    if "create_tensor" not in up.source or "total" not in up.source:
        return plan
    try:
        tree = untouched.parse(up.source)
    except SyntaxError:
        return plan
    scopes = [tree] + [n for n in ast.walk(tree)
                       if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]
    from upgrader.fixers import own_statement_lists
    for scope in scopes:
        for body in own_statement_lists(scope):
            for i, stmt in enumerate(body):
                name = _created(stmt)
                if name is not None:
                    _consider(plan, scope, body, i, name)
    return plan


def _created(stmt) -> Optional[str]:
    if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name) \
            and isinstance(stmt.value, ast.Call) and _attr_name(stmt.value.func) == "create_tensor":
        return stmt.targets[0].id
    return None


def _attr_name(func) -> Optional[str]:
    from upgrader.fixers import callee_short_name
    return callee_short_name(func)


def _consider(plan: _Plan, scope, body, index: int, name: str) -> None:
    create = body[index]
    stores, declared = [], False
    for node in ast.walk(scope):
        if isinstance(node, (ast.Global, ast.Nonlocal)) and name in node.names:
            declared = True
        elif isinstance(node, ast.Name) and node.id == name and not isinstance(node.ctx, ast.Load):
            stores.append(node)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)) and node is not scope:
            args = node.args
            if name in {a.arg for a in args.posonlyargs + args.args + args.kwonlyargs}:
                declared = True   # a nested function's parameter of that name: keep it simple
    if declared or len(stores) != 1 or stores[0] is not create.targets[0]:
        return
    # the accuracy statement: the first statement after the create that reads the name
    for stmt in body[index + 1:]:
        reads = [n for n in ast.walk(stmt) if isinstance(n, ast.Name) and n.id == name]
        if not reads:
            continue
        call = _accuracy_with_total(stmt, name)
        if call is None or len(reads) != 1:
            return
        inputs = [k.value for k in call.keywords if k.arg == "input"] or call.args[:1]
        if len(inputs) != 1 or not _plain(inputs[0]):
            return
        plan.creates[create.lineno] = name
        plan.totals[call.lineno] = stmt.lineno
        plan.binds[stmt.lineno] = (f"{name} = paddle.cast(paddle.shape({ast.unparse(inputs[0])})"
                                   "[0:1], 'int32')\n")
        return


def _accuracy_with_total(stmt, name: str) -> Optional[ast.Call]:
    """The ``accuracy(..., total=<name>)`` call that is ``stmt``'s value (an assignment to
    one name, or an expression statement), without ``correct=``."""
    value = stmt.value if isinstance(stmt, (ast.Assign, ast.Expr)) else None
    if isinstance(stmt, ast.Assign) and (len(stmt.targets) != 1 or not isinstance(stmt.targets[0], ast.Name)
                                         or stmt.targets[0].id == name):
        return None
    if not (isinstance(value, ast.Call) and _attr_name(value.func) == "accuracy"):
        return None
    kws = {k.arg: k.value for k in value.keywords}
    if None in kws or "correct" in kws or len(value.args) > 3 or any(
            isinstance(a, ast.Starred) for a in value.args):
        return None
    total = kws.get("total")
    if not (isinstance(total, ast.Name) and total.id == name):
        return None
    return value


def _plain(node) -> bool:
    if isinstance(node, ast.Name):
        return True
    return isinstance(node, ast.Attribute) and _plain(node.value)


def rewrite_call(up, original: cst.Call, updated: cst.Call, entry):
    plan = _plan(up)
    line = up.pos(original)[0]
    if entry.name == CREATE:
        if line in plan.creates and up.can_apply(entry, original):
            up.__dict__.setdefault("_accuracy_total_delete", set()).add(line)
            up.report(original, CODE, f"`{entry.short}` → (call removed): the variable "
                      f"`{plan.creates[line]}` is bound to the batch size after the accuracy "
                      "that filled it", entry.name, "", entry.safety, applied=True)
        else:   # reported as before the rewrite existed: no modern counterpart (PU102)
            manual = copy.copy(entry)
            manual.code = "PU102"
            up.report_entry(original, manual, False, manual=entry.note)
        return updated
    # fluid.layers.accuracy
    statement = plan.totals.get(line)
    if statement is None or not up.can_apply(entry, original):
        return up.apply_entry(original, updated, entry)
    args = [a for a in updated.args if not (a.keyword is not None and a.keyword.value == "total")]
    if args:
        args[-1] = args[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)
    up.__dict__.setdefault("_accuracy_total_bind", set()).add(statement)
    return up.apply_entry(original, updated.with_changes(args=args), entry)


def leave_statement(up, original, updated):
    """Delete the planned create_tensor statements; bind the variable after its accuracy."""
    deletes = up.__dict__.get("_accuracy_total_delete")
    binds = up.__dict__.get("_accuracy_total_bind")
    if not deletes and not binds:
        return updated
    if not isinstance(original, cst.SimpleStatementLine):
        return updated
    line = up.pos(original)[0]
    if deletes and line in deletes:
        deletes.discard(line)
        return removal.remove(up, original, updated)
    if binds and line in binds:   # its accuracy was rewritten without total=
        binds.discard(line)
        up.needed_imports.add("paddle")
        bind = cst.parse_statement(_plan(up).binds[line])
        nodes = list(updated.nodes) if isinstance(updated, cst.FlattenSentinel) else [updated]
        return cst.FlattenSentinel(nodes + [bind])
    return updated
