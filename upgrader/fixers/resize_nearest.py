"""PU103 resize-nearest: ``fluid.layers.resize_nearest`` is unsafe only where 1.8's
``align_corners=True`` picks other source pixels than today's nearest interpolation.

What it does
    ``fluid.layers.resize_nearest(x, out_shape=..., scale=...)`` becomes
    ``paddle.nn.functional.interpolate(x, size=..., scale_factor=..., mode='nearest')`` as
    its rule says (``align_corners`` dropped). The rewrite is safe when the call passes a
    literal ``align_corners=False``, or keeps 1.8's default ``align_corners=True`` with a
    literal ``scale=2`` / ``2.0`` and no ``out_shape`` (FPN / U-Net / YOLOv3 upsampling);
    every other call is unsafe (``--unsafe-fixes``).

Why is this bad?
    1.8.5's nearest resize with ``align_corners=True`` read source index
    ``int(i * (in - 1) / (out - 1) + 0.5)``; ``interpolate(mode='nearest')`` reads
    ``floor(i * in / out)`` and rejects ``align_corners=True``. The two agree for an exact
    2x upsampling (``i // 2`` both) and whenever 1.8 was given ``align_corners=False``
    (checked on 1.8.5 and 3.3.1: scale 2, 2.0, 1.5; out_shape 7x11, 3x4, 9x13 and 10x14
    from 5x7), and differ otherwise (scale 3.0 with the default align_corners).

Example
    ``fluid.layers.resize_nearest(x, scale=2.0)`` and
    ``fluid.layers.resize_nearest(x, out_shape=[7, 11], align_corners=False)`` are
    rewritten by a plain ``fix``; ``fluid.layers.resize_nearest(x, scale=3.0)`` needs
    ``--unsafe-fixes``.

Fix safety
    Safe for the two forms above (same source pixels, so the same values and gradients),
    unsafe otherwise; the rule note gives the index_select recipe for 1.8's
    ``align_corners=True`` indices.
"""
from __future__ import annotations

import ast
from typing import Optional

from upgrader.args import code_of

CODE = "PU103"
UNSAFE_WHEN = ("paddle.fluid.layers.resize_nearest",)
# resize_nearest(input, out_shape=None, scale=None, name=None, actual_shape=None,
#                align_corners=True, data_format='NCHW')
_POSITIONS = {"out_shape": 1, "scale": 2, "align_corners": 5}


def _arg(call: ast.Call, name: str):
    for k in call.keywords:
        if k.arg == name:
            return k.value
    i = _POSITIONS[name]
    return call.args[i] if len(call.args) > i else None


def unsafe_reason(up, original, entry) -> Optional[str]:
    """Why this call's rewrite may pick other pixels than 1.8.5 did, or None."""
    try:
        call = ast.parse(code_of(original).strip(), mode="eval").body
    except SyntaxError:
        return None
    if not isinstance(call, ast.Call):
        return None
    if any(isinstance(a, ast.Starred) for a in call.args) or any(k.arg is None for k in call.keywords):
        return "arguments unpacked: " + entry.note
    align = _arg(call, "align_corners")
    if isinstance(align, ast.Constant) and align.value is False:
        return None
    if align is None or (isinstance(align, ast.Constant) and align.value is True):
        scale, shape = _arg(call, "scale"), _arg(call, "out_shape")
        if (shape is None or isinstance(shape, ast.Constant) and shape.value is None) and \
                isinstance(scale, ast.Constant) and scale.value in (2, 2.0) and \
                not isinstance(scale.value, bool):
            return None
    return entry.note
