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

Example
    ``bs = fluid.layers.shape(x)[0]`` → ``bs = paddle.cast(paddle.shape(x), 'int32')[0:1]``.

Fix safety
    Safe: the same element, in 1.8's shape ``[1]``. Only a literal index of the call itself
    is rewritten (a result kept in a variable and indexed later is not: indexing in general
    gives 0-D today, see the notes).
"""
from __future__ import annotations

from typing import Optional

import libcst as cst

from upgrader.args import code_of

CODE = "PU101"


def _int(node) -> Optional[int]:
    if isinstance(node, cst.Integer):
        return int(node.evaluated_value)
    if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, cst.Minus) \
            and isinstance(node.expression, cst.Integer):
        return -int(node.expression.evaluated_value)
    return None


def leave_subscript(up, original: cst.Subscript, updated: cst.Subscript):
    call = original.value
    if not isinstance(call, cst.Call) or len(updated.slice) != 1:
        return updated
    index = updated.slice[0].slice
    if not isinstance(index, cst.Index):
        return updated
    i = _int(index.value)
    if i is None:
        return updated
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
    up.report(original, CODE, f"`{entry.short}(...)[{i}]` → `{text}`: 1.8's integer index kept "
              "shape [1], today's gives a 0-D tensor", entry.name, entry.target, "safe",
              applied=True)
    return updated.with_changes(slice=[updated.slice[0].with_changes(slice=new)])
