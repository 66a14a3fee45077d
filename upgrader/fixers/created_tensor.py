"""PU101 created-tensor: 1.x's ``x = layers.create_tensor(dtype)`` filled by the next
statement that uses ``x``, ``layers.assign(value, x)`` (or another layer given ``x`` as
its output: ``fill_constant(..., out=x)``, ``less_than(..., cond=x)``, ...), becomes that
statement binding ``x``.

What it does
    In one block::

        out_var = fluid.layers.create_tensor(dtype='float32')
        scores = model(...)
        fluid.layers.assign(scores * 2.0, out_var)

    becomes::

        scores = model(...)
        out_var = paddle.assign(scores * 2.0)

    The ``create_tensor`` statement goes; the writer is rewritten by its own rule and
    binds the variable instead of writing into it: ``x = paddle.assign(value)`` for
    ``assign``, ``x = <the layer's call>`` for a layer whose ``out`` / ``output`` /
    ``cond`` argument was ``x`` (``x = paddle.full([2, 3], 7, 'int64')`` for
    ``fill_constant([2, 3], 'int64', 7, out=x)``; ``y = writer(..., out=x)`` becomes
    ``x = y = ...``: 1.8 returned ``x``). Only when ``x`` is bound by that statement to a
    ``create_tensor`` call without ``name`` or ``persistable=True`` and without calls in
    its arguments, not declared ``global`` / ``nonlocal``, and the first later statement
    of the same block that mentions ``x`` (nested functions included) is the writer,
    naming ``x`` once, as its output argument. The batch-size counter filled by
    ``accuracy(..., total=x)`` is rewritten by accuracy-total. Any other ``create_tensor``
    stays manual (PU102), and so does one whose writer keeps its 1.8 form (a manual
    call): the statement then stays, moved just before the writer.

Why is this bad?
    ``create_tensor`` made an empty variable that a later op wrote into; Paddle 3 has no
    such placeholder (PIR values are the results of the ops that compute them).

Example
    See above: a seq2seq decoder's output buffer filled by ``assign``.

Fix safety
    Safe: 1.8.5 gave the variable the written value's dtype and shape (also at build
    time: a ``float32`` one filled by an ``int64`` assign became ``int64``; checked), the
    value, and gradients flowing through the assign, in static programs and in dygraph
    (the rule's example; program static_nlp_greedy_decode). The variable's
    ``stop_gradient`` follows the value (1.8's created variable had False until
    ``fill_constant`` set it): it matters only for ``gradients(..., x)`` of a variable
    written with a constant.
"""
from __future__ import annotations

import ast
import copy
from typing import Dict, Optional, Tuple

import libcst as cst

from upgrader import removal, untouched

CODE = "PU101"
STRUCTURAL = ("created-tensor",)
DELETES = ("created-tensor",)   # create_tensor's statement goes
CREATE = "paddle.fluid.layers.create_tensor"
_WRAP = "paddle.assign({call}, {})"


class _Pair:
    def __init__(self, name: str, create_line: int, writer_line: int, assign: bool):
        self.name = name
        self.create_line = create_line    # the create_tensor statement
        self.writer_line = writer_line    # the statement that writes the variable
        self.assign = assign              # the writer is layers.assign (else a wrapped out=)
        self.pos = None                   # the create_tensor call's position, once reported
        self.finding = None               # its applied finding
        self.statement = None             # the create_tensor statement, once deleted


def _writers(rules) -> Dict[str, Tuple[str, int]]:
    """Short legacy name -> (output parameter, its position) for the layers whose rule
    writes that argument with paddle.assign (and layers.assign itself)."""
    found: Dict[str, set] = {}
    for e in rules:
        if not e.name.startswith("paddle.fluid.layers.") or e.params is None:
            continue
        names = [p.name for p in e.params]
        for pname, spec in (e.args or {}).items():
            if spec.wrap == _WRAP and pname in names:
                found.setdefault(e.name.rsplit(".", 1)[1], set()).add((pname, names.index(pname)))
    assign = rules.lookup("paddle.fluid.layers.assign")
    if assign is not None and assign.params is not None:
        names = [p.name for p in assign.params]
        found["assign"] = {("output", names.index("output"))}
    return {k: next(iter(v)) for k, v in found.items() if len(v) == 1}


def _plan(up) -> Dict[int, _Pair]:
    """create_tensor call line -> its pair, for the statements of the module's source."""
    plan = getattr(up, "_created_tensor_plan", None)
    if plan is not None:
        return plan
    plan = up._created_tensor_plan = {}
    up._created_tensor_writers = {}
    if "create_tensor" not in up.source:
        return plan
    try:
        tree = untouched.parse(up.source)
    except SyntaxError:
        return plan
    writers = _writers(up.rules)
    scopes = [tree] + [n for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]
    from upgrader.fixers import own_statement_lists
    for scope in scopes:
        for body in own_statement_lists(scope):
            for i, stmt in enumerate(body):
                if _created(stmt):
                    pair = _consider(scope, body, i, writers)
                    if pair is not None:
                        plan[stmt.value.lineno] = pair
                        up._created_tensor_writers[pair.writer_line] = pair
    return plan


def _attr_name(func) -> Optional[str]:
    from upgrader.fixers import callee_short_name
    return callee_short_name(func)


def _created(stmt) -> bool:
    return isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name) \
        and isinstance(stmt.value, ast.Call) and _attr_name(stmt.value.func) == "create_tensor"


def _is_const(node, value) -> bool:
    return isinstance(node, ast.Constant) and node.value is value


def _create_args_plain(call: ast.Call) -> bool:
    """dtype only (name None, persistable False), no unpacking, no calls to evaluate."""
    if len(call.args) > 3 or any(isinstance(a, ast.Starred) for a in call.args):
        return False
    given = dict(zip(("dtype", "name", "persistable"), call.args))
    for k in call.keywords:
        if k.arg is None or k.arg in given or k.arg not in ("dtype", "name", "persistable"):
            return False
        given[k.arg] = k.value
    if "dtype" not in given:
        return False
    if "name" in given and not _is_const(given["name"], None):
        return False
    if "persistable" in given and not _is_const(given["persistable"], False):
        return False
    return not any(isinstance(n, ast.Call) for v in given.values() for n in ast.walk(v))


def _mentions(node, name: str) -> list:
    return [n for n in ast.walk(node) if isinstance(n, ast.Name) and n.id == name]


def _consider(scope, body, index: int, writers) -> Optional[_Pair]:
    create = body[index]
    name = create.targets[0].id
    if not _create_args_plain(create.value):
        return None
    for node in ast.walk(scope):
        if isinstance(node, (ast.Global, ast.Nonlocal)) and name in node.names:
            return None
    for stmt in body[index + 1:]:
        mentions = _mentions(stmt, name)
        if not mentions:
            continue
        if len(mentions) != 1:
            return None
        call = stmt.value if isinstance(stmt, (ast.Expr, ast.Assign)) else None
        if isinstance(stmt, ast.Assign) and not (len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name)):
            return None
        if not isinstance(call, ast.Call):
            return None
        short = _attr_name(call.func)
        if short not in writers or any(isinstance(a, ast.Starred) for a in call.args) \
                or any(k.arg is None for k in call.keywords):
            return None
        param, position = writers[short]
        out = [k.value for k in call.keywords if k.arg == param]
        if not out and len(call.args) > position:
            out = [call.args[position]]
        if len(out) != 1 or out[0] is not mentions[0]:
            return None
        return _Pair(name, create.lineno, stmt.lineno, short == "assign")
    return None


def rewrite_call(up, original: cst.Call, updated: cst.Call, entry):
    from upgrader.fixers import accuracy_total
    line = up.pos(original)[0]
    if line in accuracy_total._plan(up).creates:   # filled by accuracy(total=...)
        return accuracy_total.rewrite_call(up, original, updated, entry)
    pair = _plan(up).get(line)
    if pair is not None and up.can_apply(entry, original):
        pair.pos = up.pos(original)
        up.report(original, CODE, f"`{entry.short}` → (call removed): `{pair.name}` is bound "
                  "by the statement that filled it", entry.name, "", entry.safety, applied=True)
        pair.finding = up.findings[-1] if up.findings else None
        up.__dict__.setdefault("_created_tensor_pending", {})[pair.create_line] = pair
        return updated
    _report_manual(up, original, entry)
    return updated


def _report_manual(up, node, entry, pos=None):
    """Reported as before the rewrite existed: no modern counterpart (PU102)."""
    manual = copy.copy(entry)
    manual.code = "PU102"
    if pos is None:
        up.report_entry(node, manual, False, manual=entry.note)
    else:
        msg = f"`{entry.short}`: {entry.note}"
        up.report_at(pos, "PU102", msg, entry.name, "", "manual", todo=msg)


def _written(updated, pair: _Pair) -> Optional[cst.BaseSmallStatement]:
    """The writer statement's ``paddle.assign(value, x)`` (as its rule rewrote it) as a
    binding of ``x``, or None when it has another form."""
    if not isinstance(updated, cst.SimpleStatementLine) or len(updated.body) != 1:
        return None
    from upgrader.names import dotted_of
    small = updated.body[0]
    if isinstance(small, cst.Expr):
        call, targets = small.value, []
    elif isinstance(small, cst.Assign) and len(small.targets) == 1:
        call, targets = small.value, list(small.targets)
    else:
        return None
    if not isinstance(call, cst.Call) or dotted_of(call.func) != "paddle.assign" or len(call.args) != 2:
        return None
    value, out = call.args
    if not (value.keyword is None or value.keyword.value == "x") or value.star or out.star or not (
            out.keyword is None or out.keyword.value == "output") \
            or not (isinstance(out.value, cst.Name) and out.value.value == pair.name):
        return None
    if pair.assign:
        bound = call.with_changes(args=[value.with_changes(comma=cst.MaybeSentinel.DEFAULT)])
    else:
        bound = value.value
    return cst.Assign(targets=[cst.AssignTarget(cst.Name(pair.name))] + targets, value=bound)


def leave_statement(up, original, updated):
    """Delete the planned create_tensor statements; bind the variable at its writer."""
    pending = up.__dict__.get("_created_tensor_pending")
    if not pending:
        return updated
    if not isinstance(original, cst.SimpleStatementLine):
        return removal.carry_in(up, original, updated)
    line = up.pos(original)[0]
    pair = pending.get(line)
    if pair is not None and pair.create_line == line and pair.statement is None:
        pair.statement = original
        if up.opts.fix:
            return removal.remove(up, original, updated)
        return updated
    pair = up.__dict__.get("_created_tensor_writers", {}).get(line)
    if pair is None or pair.statement is None or pending.get(pair.create_line) is not pair:
        return removal.carry_in(up, original, updated)
    del pending[pair.create_line]
    updated = removal.carry_in(up, original, updated)
    # the writer's statement last (a rewrite may have put assignments before it)
    nodes = list(updated.nodes) if isinstance(updated, cst.FlattenSentinel) else [updated]
    bound = _written(nodes[-1], pair) if nodes else None
    if bound is not None:
        nodes[-1] = nodes[-1].with_changes(body=[bound])
        return nodes[0] if len(nodes) == 1 else cst.FlattenSentinel(nodes)
    # the writer kept another form (a manual call): the variable is created just before it
    if pair.finding in up.findings:
        up.findings.remove(pair.finding)
    _report_manual(up, None, up.rules.lookup(CREATE), pos=pair.pos)
    if not up.opts.fix:
        return updated
    create = pair.statement.with_changes(leading_lines=[
        line for line in pair.statement.leading_lines if line.comment is not None])
    return cst.FlattenSentinel([create] + nodes)
