"""PU103 gather-overwrite: ``fluid.layers.gather`` is unsafe only where 1.8's default
``overwrite=True`` gradient applies.

What it does
    ``fluid.layers.gather(input, index, overwrite)`` becomes ``paddle.gather(x, index)`` as
    its rule says (``overwrite`` dropped). The rewrite is safe when the call passes a literal
    ``overwrite=False`` (by keyword or third positional argument: PGL's ``gather`` /
    ``graph_gather`` helpers, message passing ``gather(node_feat, src, overwrite=False)``);
    every other call is unsafe (``--unsafe-fixes``).

Why is this bad?
    The forward values never differ. The gradient with respect to ``input`` does where an
    index appears more than once: 1.8's ``overwrite=True`` (the default) kept one of the
    updates of such a row, ``overwrite=False`` summed them, and ``paddle.gather`` always
    sums (checked on 1.8.5 and 3.3.1, static and dygraph: ``gather(x, [1, 1, 3, 1])``
    weighted by 1..12 gives row 1 the gradient ``[10, 11, 12]`` with ``overwrite=True``,
    ``[15, 18, 21]`` with ``overwrite=False`` and with ``paddle.gather``).

Example
    ``fluid.layers.gather(feature, src, overwrite=False)`` is rewritten by a plain ``fix``;
    ``fluid.layers.gather(logits, node_index)`` needs ``--unsafe-fixes``.

Fix safety
    Safe with a literal ``overwrite=False`` (the same values and gradients); unsafe
    otherwise, with the rule's note (exact when the indices hold no repeated entry).
"""
from __future__ import annotations

from typing import Optional

from upgrader.args import Manual, bind, code_of, literal

CODE = "PU103"
UNSAFE_WHEN = ("paddle.fluid.layers.gather",)


def unsafe_reason(up, original, entry) -> Optional[str]:
    """Why this call's gradient may differ from 1.8.5's, or None."""
    b = bind(entry, original)
    if isinstance(b, Manual):
        return entry.note
    arg = b.values.get("overwrite")
    if arg is not None:
        kind, value = literal(code_of(arg.value))
        if kind == "ok" and value is False:
            return None
    return entry.note
