"""PU101 avg-pool-helper: average pooling that 1.8 divided by the full kernel size becomes
``_fluid_avg_pool``, a function fix adds, where today's ``avg_pool2d`` / ``avg_pool3d``
would divide by less.

What it does
    ``fluid.layers.pool2d`` / ``pool3d`` with ``pool_type='avg'`` and ``exclusive=False``
    (not the default), when a window may reach past the padding (``ceil_mode`` set or not a
    literal; ``pool_padding`` asymmetric — 4 / 6 numbers or the nested per-axis form —,
    ``'SAME'`` or not a literal), become ``_fluid_avg_pool(x, kernel_size=..., stride=...,
    padding=..., ceil_mode=..., exclusive=False, data_format=...)``; ``fluid.dygraph.Pool2D``
    becomes ``_FluidAvgPool2D(kernel_size=..., stride=..., padding=..., ceil_mode=...,
    exclusive=False)``, a layer whose forward is that function. The function zero-pads the
    input at both ends of each spatial axis (1.8's padding; ``'SAME'`` computed as 1.8 did,
    from the input size, also when that is only known when the program runs; ``stride - 1``
    more at the high end with ``ceil_mode``), so that every window lies inside it, and pools
    that without padding: every window is divided by the full kernel size, as 1.8.5's
    kernel did. ``exclusive=True`` (the default) is today's ``avg_pool`` as it is.

Why is this bad?
    1.8.5's non-exclusive average divided every window by ``kernel_h * kernel_w`` (the
    product of the kernel sizes), whatever part of it lay outside the input. Today's
    ``avg_pool2d(exclusive=False)`` divides by the window clipped at ``input + padding``,
    with the low-side padding standing for both sides: the last windows that ``ceil_mode``
    adds, and those past an asymmetric or ``'SAME'`` padding, get a smaller divisor (checked
    on 1.8.5 and 3.3.1 over 2808 pool2d cases, 1872 of them average pooling, and 1188
    pool3d cases, 792 average: kernels 2, 3, [3, 2], strides 1, 2, 3, mixed, paddings 0, 1,
    [1, 0], [0, 1, 1, 0], [1, 2, 0, 1], 'SAME', 'VALID' and their 3-D forms, ceil_mode on
    and off, NCHW / NHWC). Symmetric padding without ``ceil_mode`` agrees; ``exclusive=True`` and
    max pooling agree in every case, values and gradients.

Example
    ``fluid.layers.pool2d(x, 3, 'avg', 2, 1, ceil_mode=True, exclusive=False)`` →
    ``_fluid_avg_pool(x, kernel_size=3, stride=2, padding=1, ceil_mode=True,
    exclusive=False)``.

Fix safety
    Safe: values and gradients equal 1.8.5's bit for bit in all the average cases above
    (dygraph),
    and in static programs with known and unknown spatial sizes (``'SAME'``, ``[0, 1, 1,
    0]``, the nested form, ``ceil_mode``); the rules' examples prove it in both modes.
    Manual when the module already uses one of the names for something else.
"""
from __future__ import annotations

from upgrader.args import literal

CODE = "PU101"
FUNCTION = "_fluid_avg_pool"
LAYER = "_FluidAvgPool2D"

SOURCES = {
    FUNCTION: '''def _fluid_avg_pool(x, kernel_size, stride=1, padding=0, ceil_mode=False, exclusive=True,
                    data_format=None):
    """Paddle 1.8's average pooling (layers.pool2d / pool3d with pool_type='avg', dygraph
    Pool2D): with exclusive=False 1.8 divided every window by the full kernel size, also
    where the window reached past the padding (asymmetric or 'SAME' padding, ceil_mode);
    the input is zero-padded here so that every window lies inside it, then pooled without
    padding (today's avg_pool divides a window that reaches past the padding by its clipped
    size). exclusive=True (the in-bounds count) is today's avg_pool as it is."""
    import paddle
    nd = len(x.shape) - 2
    data_format = data_format or ('NCHW' if nd == 2 else 'NCDHW')
    pool = paddle.nn.functional.avg_pool2d if nd == 2 else paddle.nn.functional.avg_pool3d
    if isinstance(padding, str):
        padding = padding.upper()
    if exclusive:
        return pool(x, kernel_size, stride=stride, padding=padding, ceil_mode=ceil_mode,
                    exclusive=True, data_format=data_format)

    def each(v):
        return [int(a) for a in v] if isinstance(v, (list, tuple)) else [int(v)] * nd
    k, s = each(kernel_size), each(stride)
    last = data_format[-1] == 'C'
    axes = list(range(1, nd + 1)) if last else list(range(2, nd + 2))
    if isinstance(padding, str):
        if padding == 'VALID':
            if ceil_mode:
                raise ValueError('When padding is "VALID", ceil_mode must be False.')
            pads = [0] * (2 * nd)
        elif padding == 'SAME':
            pads = []
            for i, axis in enumerate(axes):
                n = x.shape[axis]
                if n is None or n < 0:  # size known when the program runs
                    n = paddle.shape(x)[axis]
                out = (n + s[i] - 1) // s[i]
                total = (out - 1) * s[i] + k[i] - n
                if paddle.is_tensor(total):
                    total = paddle.maximum(total, paddle.zeros_like(total))
                else:
                    total = max(total, 0)
                pads += [total // 2, total - total // 2]
        else:
            raise ValueError("padding must be 'SAME', 'VALID' or numbers, got %r" % padding)
    else:
        p = list(padding) if isinstance(padding, (list, tuple)) else [padding] * nd
        if p and isinstance(p[0], (list, tuple)):  # [[0, 0], [0, 0], [top, bottom], ...]
            p = [int(v) for pair in (p[1:-1] if last else p[2:]) for v in pair]
        pads = [int(v) for v in p for _ in (0, 1)] if len(p) == nd else [int(v) for v in p]
    if ceil_mode:  # the windows ceil_mode adds fit in stride - 1 more at the high ends
        pads = [v + (s[i // 2] - 1 if i % 2 else 0) for i, v in enumerate(pads)]
    # paddle's pad lists the last spatial axis first
    order = [v for i in reversed(range(nd)) for v in pads[2 * i:2 * i + 2]]
    if any(paddle.is_tensor(v) for v in order):
        order = paddle.stack([paddle.full([], v, 'int32') if not paddle.is_tensor(v)
                              else v.astype('int32').reshape([]) for v in order])
    x = paddle.nn.functional.pad(x, order, mode='constant', value=0.0, data_format=data_format)
    return pool(x, k, stride=s, padding=0, ceil_mode=False, exclusive=False,
                data_format=data_format)
''',
    LAYER: '''class _FluidAvgPool2D(paddle.nn.Layer):
    """Paddle 1.8's fluid.dygraph.Pool2D with pool_type='avg' as a layer: its forward is
    _fluid_avg_pool (1.8's division by the full kernel size with exclusive=False)."""

    def __init__(self, kernel_size, stride=1, padding=0, ceil_mode=False, exclusive=True):
        super().__init__()
        self._pool_args = (kernel_size, stride, padding, ceil_mode, exclusive)

    def forward(self, x):
        return _fluid_avg_pool(x, *self._pool_args)
''',
}


def exact_today(ceil_mode: str, exclusive: str, padding: str, nd: int) -> bool:
    """Whether today's avg_pool gives 1.8's average for these arguments (their source
    text, the legacy default when absent): exclusive, or no window past the padding
    (no ceil_mode and a literal symmetric padding: one number, one per axis, 'VALID')."""
    if literal(exclusive) == ("ok", True):
        return True
    if literal(ceil_mode) != ("ok", False):
        return False
    kind, value = literal(padding)
    if kind != "ok" or isinstance(value, bool):
        return False
    if isinstance(value, str):
        return value.upper() == "VALID"
    if isinstance(value, int):
        return True
    return isinstance(value, (list, tuple)) and len(value) == nd and all(
        isinstance(v, int) and not isinstance(v, bool) for v in value)


def conflict(up, original, entry) -> bool:
    """The module uses one of the names for something else (reported manual)."""
    from upgrader.fixers import helper_conflict
    return any(helper_conflict(up, original, entry, name, SOURCES[name]) for name in SOURCES)


def need(up, target: str) -> None:
    """The rewritten module calls ``target`` (and the layer calls the function)."""
    from upgrader.fixers import need_helper
    up.needed_imports.add("paddle")
    need_helper(up, FUNCTION)
    if target == LAYER:
        need_helper(up, LAYER)


def finish_module(up, module):
    """Add the function (and the layer) the rewrites call after the imports."""
    from upgrader.fixers import add_used_helpers
    return add_used_helpers(up, module, SOURCES)
