"""PU101 fc-flatten: ``layers.fc`` given a list of inputs together with a
``num_flatten_dims`` other than 1 is manual.

What it does
    The rule of ``fluid.layers.fc`` folds the leading ``num_flatten_dims`` dims of the input
    into one around ``paddle.static.nn.fc`` and restores them after it (``paddle.flatten``
    of ``x``, ``paddle.unflatten`` by ``paddle.shape(x)[:k]``). That needs one tensor: a
    call whose ``input`` is a list or tuple literal (1.8's fc summed one ``mul`` per input)
    is reported for a manual rewrite instead of folding the list.

Why is this bad?
    ``paddle.flatten([a, b], ...)`` and ``paddle.shape([a, b])`` of the fold would raise
    while the program is built. On 3.3.1 a PIR ``paddle.static.nn.fc`` cannot take the
    inputs unfolded either when more than one leading dim is unknown (it reshapes each from
    its static shape).

Example
    ``fluid.layers.fc(input=[a, b], size=2, num_flatten_dims=2)`` is reported; write one
    fc per input on ``paddle.flatten(x, 0, 1)`` and add them (``bias_attr=False`` on all
    but one), then ``paddle.unflatten`` the sum back.

Fix safety
    Manual for that form only; a single input (a name, attribute or expression) is folded
    by the rule, and ``num_flatten_dims=1`` (or left out) is the plain rewrite.
"""
from __future__ import annotations

from typing import Optional

import libcst as cst

from upgrader.args import Manual, bind, code_of, same_value

CODE = "PU101"
MANUAL_WHEN = ("paddle.fluid.layers.fc",)


def manual_reason(up, original: cst.Call, entry) -> Optional[str]:
    """Why this fc call cannot be folded, or None."""
    b = bind(entry, original)
    if isinstance(b, Manual):
        return None
    k = b.values.get("num_flatten_dims")
    if k is None or same_value(code_of(k.value), "1"):
        return None
    x = b.values.get("input")
    if x is not None and isinstance(x.value, (cst.List, cst.Tuple)):
        return (f"input={code_of(x.value)} is a list and num_flatten_dims={code_of(k.value)}: "
                "the rewrite folds the leading dims of one input around paddle.static.nn.fc; "
                "write one fc per input on paddle.flatten(x, 0, k - 1), add them and "
                "paddle.unflatten(..., 0, paddle.shape(x)[:k]) the sum")
    return None
