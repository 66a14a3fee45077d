"""PU101 image-resize: ``resize_nearest`` / ``image_resize`` / ``resize_bilinear`` /
``resize_trilinear`` become ``_fluid_image_resize``, a function fix adds, where today's
``interpolate`` would pick other source pixels or another output size than 1.8.

What it does
    A call whose result today's ``paddle.nn.functional.interpolate`` reproduces keeps the
    rule's rewrite (``interpolate(x, size=..., scale_factor=..., mode=...)``): a bilinear
    or trilinear resize given ``out_shape`` or a literal whole-number ``scale``, a nearest
    resize with a literal ``align_corners=False`` and such a size, or with 1.8's default
    ``align_corners=True`` and a literal ``scale=2`` (FPN / U-Net / YOLOv3 upsampling;
    ``image_resize(resample='NEAREST')`` always takes the function). Every other call becomes ``_fluid_image_resize(x, out_shape=..., scale=...,
    resample='NEAREST', actual_shape=..., align_corners=..., data_format=...)`` (the
    arguments as passed, by keyword; ``image_resize`` keeps its own arguments). The
    function computes 1.8's output size (``out_shape``; else ``int(in * scale)`` in
    float32; ``actual_shape`` overrides both unless ``out_shape`` holds tensors), then for
    nearest gathers the source rows and columns 1.8.5's kernel read, ``int(i * (in - 1) /
    (out - 1) + 0.5)`` with ``align_corners`` and ``int(i * in / out)`` without (float32
    ratio and product, as the kernel), with ``paddle.index_select`` (its gradient adds up in
    the chosen source pixels, as 1.8's did); for bilinear / trilinear it calls
    ``interpolate`` at that size (positions from ``in / out``, as 1.8). Tensors for
    ``out_shape`` / ``scale`` / ``actual_shape`` and sizes known only when the program runs
    work in static programs.

Why is this bad?
    Today's nearest mode has no ``align_corners=True`` (1.8's default): it reads
    ``floor(i * in / out)`` and rejects the flag. Given a ``scale``, today's
    ``interpolate`` places sources by ``1 / scale`` where 1.8 used ``in / out``, and
    computes ``int(in * scale)`` in double precision where 1.8 used float32 (100 * 0.29 is
    29 in 1.8, 28 today). Checked on 1.8.5 and 3.3.1 (696 2-D and 56 3-D cases: out_shape
    7x11, 3x4, 9x13, 10x14, 1x2, 5x7, 2x16 and scales 2, 2.0, 3.0, 1.5, 1.7, 0.5, 0.7, 2.5
    from 5x7, 4x4, 1x3, 6x9, NCHW / NHWC, both align_corners, both align_modes): nearest
    with align_corners=True differs except for 2x upsampling (and an unchanged size),
    nearest without it for scales 1.7 and 0.7, bilinear without it for scales 1.5, 1.7,
    0.5, 0.7, 2.5 (trilinear for 1.5, 1.7, 0.7, the scales tried); bilinear, trilinear
    (either align_corners) and nearest without align_corners agree given out_shape or a
    whole-number scale.

Example
    ``fluid.layers.resize_nearest(x, out_shape=[7, 7])`` →
    ``_fluid_image_resize(x, out_shape=[7, 7], resample='NEAREST')``;
    ``fluid.layers.resize_nearest(x, scale=2.0)`` →
    ``paddle.nn.functional.interpolate(x, scale_factor=2.0, mode='nearest')``.

Fix safety
    Safe: the function's values and gradients equal 1.8.5's in all the cases above
    (bilinear within float rounding, as the plain rewrite) and in static programs with
    known and unknown input sizes, out_shape holding a tensor, a scale tensor and
    actual_shape (scratch checks); the rules' examples prove it in both modes. Manual when
    the module already uses the name for something else.
"""
from __future__ import annotations

import libcst as cst

from upgrader.args import Manual, bind, code_of, keyword_arg, literal

CODE = "PU101"
STRUCTURAL = ("image-resize",)
#: what explain shows for an argument the plain mapping would leave manual
ARGS_TAKEN = {name: {"actual_shape": "_fluid_image_resize(..., actual_shape=...) (1.8's "
                                     "output size from it)"}
              for name in ("paddle.fluid.layers.resize_nearest", "paddle.fluid.layers.resize_bilinear",
                           "paddle.fluid.layers.resize_trilinear", "paddle.fluid.layers.image_resize")}
NAME = "_fluid_image_resize"
WHAT = "a function fix adds to the module: 1.8's output size and source pixels"
#: the method each legacy function resizes with (image_resize: its ``resample``)
METHODS = {"paddle.fluid.layers.resize_nearest": "NEAREST",
           "paddle.fluid.layers.resize_bilinear": "BILINEAR",
           "paddle.fluid.layers.resize_trilinear": "TRILINEAR",
           "paddle.fluid.layers.image_resize": None}

#: the function's parameters after ``input`` (1.8's image_resize)
_ORDER = ("out_shape", "scale", "name", "resample", "actual_shape", "align_corners", "align_mode",
          "data_format")

#: parameters whose default is None: an explicit None is left out
_NONE_DEFAULT = ("out_shape", "scale", "name", "actual_shape")

SOURCES = {NAME: '''def _fluid_image_resize(input, out_shape=None, scale=None, name=None, resample='BILINEAR',
                        actual_shape=None, align_corners=True, align_mode=1,
                        data_format=None):
    """Paddle 1.8's fluid.layers.image_resize (and resize_nearest / resize_bilinear /
    resize_trilinear). The output size: out_shape; else int(in * scale) in float32;
    actual_shape (a tensor) overrides both unless out_shape holds tensors. Sources are
    placed by in / out (today's interpolate uses 1 / scale when given a scale). Nearest
    takes source index int(i * (in - 1) / (out - 1) + 0.5) with align_corners (1.8's
    default; today's nearest mode has no such option) or int(i * in / out) without, in
    float32 as 1.8's kernel, and gathers those pixels (their gradients add up as 1.8's);
    bilinear and trilinear are today's interpolate at that size."""
    import numpy
    import paddle
    nd = len(input.shape) - 2
    data_format = data_format or ('NCHW' if nd == 2 else 'NCDHW')
    axes = list(range(1, nd + 1)) if data_format in ('NHWC', 'NDHWC') else list(range(2, nd + 2))

    def known(v):
        return not paddle.is_tensor(v) and v is not None and v >= 0

    def dim(axis):
        n = input.shape[axis]
        return int(n) if known(n) else paddle.shape(input)[axis]

    def f32(v):
        if paddle.is_tensor(v):
            return paddle.cast(v.reshape([]), 'float32')
        return paddle.full([], v, 'float32')

    listed = isinstance(out_shape, (list, tuple))
    if out_shape is not None and (actual_shape is None or listed and any(
            paddle.is_tensor(v) for v in out_shape)):
        size = [out_shape[i] for i in range(nd)]
    elif actual_shape is not None:
        size = [actual_shape[i] for i in range(nd)]
    elif scale is None:
        raise ValueError('One of out_shape and scale must not be None.')
    else:
        size = []
        for axis in axes:
            n = dim(axis)
            if known(n) and not paddle.is_tensor(scale):
                size.append(int(numpy.float32(n) * numpy.float32(scale)))
            else:
                size.append(paddle.cast(f32(n) * f32(scale), 'int32'))
    size = [v.reshape([]) if paddle.is_tensor(v) else int(v) for v in size]
    mode = resample.lower()
    if mode != 'nearest':
        return paddle.nn.functional.interpolate(
            input, size=size, mode=mode, align_corners=align_corners, align_mode=align_mode,
            data_format=data_format)
    out = input
    for axis, m in zip(axes, size):
        n = dim(axis)
        if known(n) and known(m):
            ratio = numpy.float32(0.0)
            if m > 1 and align_corners:
                ratio = numpy.float32(n - 1) / numpy.float32(m - 1)
            elif m > 1:
                ratio = numpy.float32(n) / numpy.float32(m)
            pos = ratio * numpy.arange(m, dtype='float32')
            index = paddle.assign(numpy.floor(pos.astype('float64') + 0.5 if align_corners
                                              else pos).astype('int64'))
        else:
            nf, mf = f32(n), f32(m)
            one = paddle.ones([], 'float32')
            ratio = (nf - one) / paddle.maximum(mf - one, one) if align_corners else nf / mf
            ratio = paddle.where(mf > one, ratio, paddle.zeros_like(ratio))
            count = m if known(m) else paddle.cast(mf, 'int64')
            pos = ratio * paddle.arange(count, dtype='float32')
            if align_corners:
                pos = paddle.cast(pos, 'float64') + 0.5
            index = paddle.cast(paddle.floor(pos), 'int64')
        out = paddle.index_select(out, index, axis=axis)
    return out
'''}


def _src(bound, entry, name):
    arg = bound.values.get(name)
    if arg is not None:
        return code_of(arg.value)
    p = entry.param(name)
    return p.default if p is not None and p.has_default else None


def _whole(src) -> bool:
    """A literal positive whole number (``2``, ``2.0``): int(in * scale) is exact in any
    precision and 1 / scale is in / out."""
    kind, v = literal(src)
    return kind == "ok" and isinstance(v, (int, float)) and not isinstance(v, bool) \
        and v > 0 and float(v).is_integer()


def plain_is_exact(entry, bound) -> bool:
    """Whether today's interpolate, as the rule maps the call, gives 1.8's result."""
    method = METHODS[entry.name]
    if method is None:
        kind, value = literal(_src(bound, entry, "resample"))
        if kind != "ok" or not isinstance(value, str) or value.upper() == "NEAREST":
            return False  # image_resize's nearest: always the function
        method = value.upper()
    if literal(_src(bound, entry, "actual_shape") or "None") != ("ok", None):
        return False
    shape = literal(_src(bound, entry, "out_shape") or "None") != ("ok", None)
    scale_src = _src(bound, entry, "scale") or "None"
    scale = literal(scale_src) != ("ok", None)
    if shape == scale or (scale and not _whole(scale_src)):
        return False  # both (1.8 took out_shape), neither, or a scale today reads otherwise
    if method != "NEAREST":
        return True
    align = literal(_src(bound, entry, "align_corners"))
    if align == ("ok", False):
        return True
    return align == ("ok", True) and scale and literal(scale_src)[1] == 2


def rewrite_call(up, original: cst.Call, updated: cst.Call, entry):
    from upgrader.fixers import bound_or_report, helper_conflict, use_helper
    bound = bind(entry, updated)
    if isinstance(bound, Manual) or plain_is_exact(entry, bound):
        return up.apply_entry(original, updated, entry)
    if bound_or_report(up, original, updated, entry) is None \
            or helper_conflict(up, original, entry, NAME, SOURCES[NAME]):
        return updated
    up.needed_imports.add("paddle")
    use_helper(up, original, entry, NAME, WHAT)
    if METHODS[entry.name] is None:  # image_resize: the same signature
        return updated.with_changes(func=cst.Name(NAME))
    args = [cst.Arg(value=bound.values["input"].value)]
    for name in _ORDER:
        if name == "resample":
            args.append(keyword_arg(name, cst.SimpleString(repr(METHODS[entry.name]))))
        elif name in bound.values and not (name in _NONE_DEFAULT and literal(
                code_of(bound.values[name].value)) == ("ok", None)):
            args.append(keyword_arg(name, bound.values[name].value))
    return updated.with_changes(func=cst.Name(NAME), args=args)


def finish_module(up, module: cst.Module) -> cst.Module:
    """Add the function the rewrites call after the module's docstring and imports."""
    from upgrader.fixers import add_used_helpers
    return add_used_helpers(up, module, SOURCES)
