"""PU101 index-as-slice: an integer index of a legacy result keeps 1.8's shape ``[1]``.

What it does
    For the entries marked ``index_as_slice = true`` in the rule data
    (``fluid.layers.shape``), an integer literal index of the call's result becomes the
    slice of length one: ``fluid.layers.shape(x)[0]`` →
    ``paddle.cast(paddle.shape(x), 'int32')[0:1]``, ``[-1]`` → ``[-1:]``, ``[-2]`` →
    ``[-2:-1]``.

Why is this bad?
    1.8 had no 0-D tensors: indexing a 1-D tensor with an integer gave shape ``[1]`` (checked
    on 1.8.5 in both modes). Today it gives a 0-D tensor, and code built on the old shape
    breaks: ``fluid.layers.concat([shape(x)[0], shape(x)[2]])`` raises "The axis is
    expected to be in range of [0, 0)" on 3.3.1, a fetched batch size is ``array(2)``
    where ``value[0]`` fails.

    The same holds for a result kept in a name: ``s = fluid.layers.shape(x)`` followed by
    ``s[0]`` in the same function (or at module level) becomes ``s[0:1]`` when that
    assignment is the name's only binding in its scope and no ``global``/``nonlocal``
    statement of the module names it.

Example
    ``bs = fluid.layers.shape(x)[0]`` → ``bs = paddle.cast(paddle.shape(x), 'int32')[0:1]``;
    ``s = fluid.layers.shape(x); n = s[0]`` → ``s = paddle.cast(paddle.shape(x),
    'int32'); n = s[0:1]``.

Fix safety
    Safe: the same element, in 1.8's shape ``[1]``. Only a literal index is rewritten, of
    the call itself or of a name whose only binding in the scope is the call (the name
    then always holds the 1-D shape); a subscript that is assigned to or deleted, one in
    a nested function or lambda, or one before the assignment is left alone (indexing in
    general gives 0-D today, see the notes).
"""
from __future__ import annotations

from typing import Optional

import libcst as cst

from upgrader.args import code_of
from upgrader.names import local_binding_counts, module_binding_counts

CODE = "PU101"


def _int(node) -> Optional[int]:
    if isinstance(node, cst.Integer):
        return int(node.evaluated_value)
    if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, cst.Minus) \
            and isinstance(node.expression, cst.Integer):
        return -int(node.expression.evaluated_value)
    return None


def _state(up) -> dict:
    state = up.__dict__.get("_index_as_slice")
    if state is None:
        state = up._index_as_slice = {"declared": None, "names": {}, "counts": {}, "stores": set()}
    return state


def _declared(up) -> set:
    """Names some ``global`` / ``nonlocal`` statement of the module declares (read once,
    when a kept shape is first met)."""
    state = _state(up)
    if state["declared"] is None:
        declared = state["declared"] = set()

        class V(cst.CSTVisitor):
            def visit_Global(self, node):
                declared.update(n.name.value for n in node.names)

            visit_Nonlocal = visit_Global

        up.module.visit(V())
    return state["declared"]


def _scope(up):
    """(key, binding counts) of the scope being walked: a ``def`` or the module (a lambda:
    None)."""
    fn = up.scope.function()
    if fn is None and up.scope.stack:
        return None, None
    if fn is not None and not isinstance(fn, cst.FunctionDef):
        return None, None
    key = id(fn) if fn is not None else 0
    counts = _state(up)["counts"]
    if key not in counts:
        counts[key] = local_binding_counts(fn) if fn is not None else module_binding_counts(up.module)
    return key, counts[key]


def leave_assign(up, original: cst.Assign, updated: cst.Assign) -> None:
    """Remember ``name = <index_as_slice call>`` (rewritten) as the name's value."""
    if len(original.targets) != 1 or not isinstance(original.targets[0].target, cst.Name) \
            or not isinstance(original.value, cst.Call):
        return
    name = original.targets[0].target.value
    entry = up.entry_for(up.resolve_dotted(original.value.func))
    if entry is None or not entry.index_as_slice or code_of(updated.value) == code_of(original.value):
        return
    key, counts = _scope(up)
    if key is None or counts.get(name) != 1 or name in _declared(up):
        return
    _state(up)["names"][(key, name)] = entry


def mark_store(up, target) -> None:
    """A subscript assigned to or deleted is no read of the value."""
    if isinstance(target, cst.Subscript) and isinstance(target.value, cst.Name):
        _state(up)["stores"].add(id(target))
    elif isinstance(target, (cst.Tuple, cst.List)):
        for e in target.elements:
            mark_store(up, e.value)
    elif isinstance(target, cst.StarredElement):
        mark_store(up, target.value)


def leave_subscript(up, original: cst.Subscript, updated: cst.Subscript):
    call = original.value
    if not isinstance(call, (cst.Call, cst.Name)) or len(updated.slice) != 1:
        return updated
    index = updated.slice[0].slice
    if not isinstance(index, cst.Index):
        return updated
    i = _int(index.value)
    if i is None:
        return updated
    if isinstance(call, cst.Name):
        state = up.__dict__.get("_index_as_slice")
        if state is None or not state["names"] or id(original) in state["stores"]:
            return updated
        key, _ = _scope(up)
        entry = state["names"].get((key, call.value))
        if entry is None:
            return updated
    else:
        entry = up.entry_for(up.resolve_dotted(call.func))
        if entry is None or not entry.index_as_slice:
            return updated
        if code_of(updated.value) == code_of(call):
            return updated  # the call itself was not rewritten (manual, disabled, suppressed)
    lower = cst.Integer(str(i)) if i >= 0 else cst.UnaryOperation(cst.Minus(), cst.Integer(str(-i)))
    upper = None if i == -1 else (cst.Integer(str(i + 1)) if i >= 0 else
                                  cst.UnaryOperation(cst.Minus(), cst.Integer(str(-i - 1))))
    new = cst.Slice(lower=lower, upper=upper)
    text = f"[{i}:{'' if upper is None else i + 1}]"
    if isinstance(call, cst.Call):
        what = f"`{entry.short}(...)[{i}]` → `{text}`"
    else:
        what = f"`{call.value}[{i}]` → `{call.value}{text}` (`{call.value}` is `{entry.short}(...)`)"
    up.report(original, CODE, f"{what}: 1.8's integer index kept shape [1], today's gives a "
              "0-D tensor", entry.name, entry.target, "safe", applied=True)
    return updated.with_changes(slice=[updated.slice[0].with_changes(slice=new)])
