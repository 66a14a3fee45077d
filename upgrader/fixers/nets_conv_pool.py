"""PU101 nets-conv-pool: ``fluid.nets.simple_img_conv_pool`` becomes its conv2d + pool2d.

What it does
    Expands ``fluid.nets.simple_img_conv_pool(input, num_filters, filter_size, pool_size,
    pool_stride, ...)`` into the two calls it made in 1.8.5, each then rewritten by its own
    proven rule: ``fluid.layers.conv2d(input=input, num_filters=..., filter_size=...,
    stride=conv_stride, padding=conv_padding, dilation=conv_dilation, groups=conv_groups,
    param_attr=..., bias_attr=..., act=act)`` (→ ``paddle.nn.Conv2D(...)(input)`` with the
    activation applied by an explicit call) inside ``fluid.layers.pool2d(input=<conv>,
    pool_size=..., pool_type=..., pool_stride=..., pool_padding=...,
    global_pooling=...)`` (→ ``paddle.nn.functional.max_pool2d`` / ``avg_pool2d`` /
    ``adaptive_*_pool2d``, with 1.x's stride kept explicit).

Why is this bad?
    ``fluid.nets`` is gone in 3.x. ``simple_img_conv_pool`` was nothing but those two layer
    calls (1.8.5's ``paddle/fluid/nets.py``), so the expansion computes what it computed
    and creates the same parameters (one conv weight and bias).

Example
    ``fluid.nets.simple_img_conv_pool(input=img, num_filters=20, filter_size=5,
    pool_size=2, pool_stride=2, act='relu')`` →
    ``paddle.nn.functional.max_pool2d(paddle.nn.functional.relu(paddle.nn.Conv2D(
    in_channels=img.shape[1], out_channels=20, kernel_size=5)(img)), kernel_size=2,
    stride=2, padding=0)``.

Fix safety
    Safe: each half is the rewrite of a proven safe rule, and the expansion is proven
    against 1.8.5 by the entry's example. When either half cannot be rewritten here (an
    ``input`` that is a call expression, which the conv2d rewrite would evaluate twice;
    ``data_format='NHWC'``; an avg pool with ``ceil_mode``-like differences) the call is
    left whole with a manual note naming the reason.
"""
from __future__ import annotations

import re

import libcst as cst

from upgrader.args import keyword_arg as _kw
from upgrader.fixers import bound_or_report, static_mode

CODE = "PU101"
STRUCTURAL = ("nets-conv-pool",)

# simple_img_conv_pool's parameters -> (the inner call, that call's parameter), in 1.8.5's order
_CONV = (("input", "input"), ("num_filters", "num_filters"), ("filter_size", "filter_size"),
         ("conv_stride", "stride"), ("conv_padding", "padding"), ("conv_dilation", "dilation"),
         ("conv_groups", "groups"), ("param_attr", "param_attr"), ("bias_attr", "bias_attr"),
         ("act", "act"), ("use_cudnn", "use_cudnn"))
_POOL = (("pool_size", "pool_size"), ("pool_type", "pool_type"), ("pool_stride", "pool_stride"),
         ("pool_padding", "pool_padding"), ("global_pooling", "global_pooling"),
         ("use_cudnn", "use_cudnn"))


def _inner(up, entry_name: str, args, placeholder: str):
    """One synthesized legacy call, rewritten by its own entry."""
    call = cst.Call(func=cst.parse_expression(placeholder), args=args)
    return up.rewrite_entry_call(call, call, up.entry_for(entry_name))


def rewrite_call(up, original: cst.Call, updated: cst.Call, entry):
    bound = bound_or_report(up, original, updated, entry)
    if bound is None:
        return updated
    values = bound.values
    first, todos = len(up.findings), (len(up.todo_stack[-1]) if up.todo_stack else 0)
    imports = set(up.needed_imports)
    conv = _inner(up, "paddle.fluid.layers.conv2d",
                  [_kw(inner, values[outer].value) for outer, inner in _CONV if outer in values],
                  "fluid.layers.conv2d")
    pool = _inner(up, "paddle.fluid.layers.pool2d",
                  [_kw("input", conv)] + [_kw(inner, values[outer].value)
                                          for outer, inner in _POOL if outer in values],
                  "fluid.layers.pool2d")
    inner = up.findings[first:]
    del up.findings[first:]
    if up.todo_stack:
        del up.todo_stack[-1][todos:]
    left = [f for f in inner if not f.applied]
    if left:
        up.needed_imports.intersection_update(imports)
        why = "; ".join(f"{f.legacy.rsplit('.', 1)[-1]}: "
                        f"{re.sub(r' [(]modern API: [^)]*[)]$', '', f.message.split(': ', 1)[-1])}"
                        for f in left)
        up.report_entry(original, entry, False, manual=(
            f"not expanded into its conv2d + pool2d, whose rewrite stops here at {why}. "
            f"Expand it by hand as the entry's note says"))
        return updated
    static_mode.note_applied(up, entry)
    up.report(original, entry.code,
              f"`{entry.short}` → its conv2d + pool2d (`paddle.nn.Conv2D(...)(input)` + "
              f"pooling), as 1.8 built it", entry.name, entry.target, "safe", applied=True)
    return pool
