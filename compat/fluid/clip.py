"""``paddle.fluid.clip`` (1.8): gradient clipping with 1.x formulas and ``need_clip``.

1.x took ``need_clip`` as a function ``param -> bool`` (2.x moved it into ``ParamAttr``);
the clip classes here keep it, and compute exactly what 1.8 did, in dygraph and in static
(PIR) programs alike:

- ``GradientClipByValue(max, min=None)``: ``clip(g, min, max)``, ``min`` defaults to ``-max``;
- ``GradientClipByNorm(clip_norm)``: ``g * clip_norm / max(||g||, clip_norm)`` per tensor;
- ``GradientClipByGlobalNorm(clip_norm)``: every clipped gradient times
  ``clip_norm / max(global_norm, clip_norm)``.
"""
from __future__ import annotations

import paddle

from compat import _lazy
from compat._runtime import legacy

__all__ = ["ErrorClipByValue", "GradientClipByValue", "GradientClipByNorm",
           "GradientClipByGlobalNorm", "set_gradient_clip"]


def _sparse(g) -> bool:
    return paddle.in_dynamic_mode() and g.is_selected_rows()


def _merged(g):
    """A sparse (SelectedRows) gradient with its duplicate rows summed, and its values
    (1.x's clip ops merged the rows before computing norms or clipping)."""
    m = paddle.nn.clip.merge_selected_rows(g)
    return m, m._get_tensor_from_selected_rows()


class _LegacyClip(paddle.nn.clip.ClipGradBase):
    _need_clip = None

    def _clipped(self, p) -> bool:
        if getattr(p, "need_clip", True) is False:
            return False
        if self._need_clip is not None:
            return bool(self._need_clip(p))
        return True

    def __call__(self, params_grads):
        pairs = [(p, g) for p, g in params_grads if g is not None]
        if paddle.in_dynamic_mode():
            with paddle.no_grad():
                return self._clip(pairs)
        return self._clip(pairs)

    def _dygraph_clip(self, params_grads):
        return self.__call__(params_grads)

    _pir_clip = _dygraph_clip
    _static_clip = _dygraph_clip


@legacy("paddle.fluid.clip.GradientClipByValue",
        replacement="paddle.nn.ClipGradByValue")
class GradientClipByValue(_LegacyClip):
    def __init__(self, max, min=None, need_clip=None):  # noqa: A002 - 1.x names
        super().__init__()
        max = float(max)
        self.max = max
        self.min = -max if min is None else float(min)
        self._need_clip = need_clip

    def __str__(self):
        return "Gradient Clip By Value, min = %f, max=%f" % (self.min, self.max)

    def _clip(self, pairs):
        out = []
        for p, g in pairs:
            if not self._clipped(p):
                out.append((p, g))
            elif _sparse(g):
                # today's clip has no SelectedRows kernel: clip the merged rows' values
                # in place (a fresh tensor), as 1.x's clip op did
                g, values = _merged(g)
                values.clip_(self.min, self.max)
                out.append((p, g))
            else:
                out.append((p, paddle.clip(g, min=self.min, max=self.max)))
        return out


@legacy("paddle.fluid.clip.GradientClipByNorm",
        replacement="paddle.nn.ClipGradByNorm")
class GradientClipByNorm(_LegacyClip):
    def __init__(self, clip_norm, need_clip=None):
        super().__init__()
        self.clip_norm = float(clip_norm)
        self._need_clip = need_clip

    def __str__(self):
        return "Gradient Clip By Norm, clip_norm=%f" % self.clip_norm

    def _clip(self, pairs):
        out = []
        for p, g in pairs:
            if not self._clipped(p):
                out.append((p, g))
                continue
            values = g
            if _sparse(g):
                g, values = _merged(g)
            norm = paddle.sqrt(paddle.sum(paddle.square(values)))
            scale = self.clip_norm / paddle.maximum(norm, paddle.full_like(norm, self.clip_norm))
            out.append((p, paddle.multiply(g, scale) if _sparse(g) else g * scale))
        return out


@legacy("paddle.fluid.clip.GradientClipByGlobalNorm",
        replacement="paddle.nn.ClipGradByGlobalNorm")
class GradientClipByGlobalNorm(_LegacyClip):
    def __init__(self, clip_norm, group_name="default_group", need_clip=None):
        super().__init__()
        self.clip_norm = float(clip_norm)
        self.group_name = group_name
        self._need_clip = need_clip

    def __str__(self):
        return "Gradient Clip By GlobalNorm, global_norm=%f" % self.clip_norm

    def _clip(self, pairs):
        squares = [paddle.sum(paddle.square((_merged(g)[1] if _sparse(g) else g).astype("float32")))
                   for p, g in pairs if self._clipped(p)]
        if not squares:
            return pairs
        total = squares[0] if len(squares) == 1 else paddle.add_n(squares)
        global_norm = paddle.sqrt(total)
        limit = paddle.full_like(global_norm, self.clip_norm)
        scale = limit / paddle.maximum(global_norm, limit)
        return [(p, (paddle.multiply(g, scale.astype(g.dtype)) if _sparse(g)
                     else g * scale.astype(g.dtype)) if self._clipped(p) else g)
                for p, g in pairs]


@legacy("paddle.fluid.clip.ErrorClipByValue", replacement="(no equivalent; clip the variable)")
class ErrorClipByValue(object):
    def __init__(self, max, min=None):  # noqa: A002
        self.max = float(max)
        self.min = -self.max if min is None else float(min)


def _marks():
    """``_FluidGradientClipMarks``, the class ``fix`` adds for set_gradient_clip
    (upgrader/fixers/set_gradient_clip.py): its marks and its 1.8.5 clipping rule."""
    from compat._added import added
    return added("set_gradient_clip", "_FluidGradientClipMarks")


@legacy("paddle.fluid.clip.set_gradient_clip", replacement="the optimizer's grad_clip")
def set_gradient_clip(clip, param_list=None, program=None):
    """1.x: mark the parameters of *param_list* (default: every parameter *program* has
    now) with *clip*, used when the optimizer has no ``grad_clip`` of its own. As in
    1.8.5's append_gradient_clip_ops, a minimize clips only when every parameter that gets
    a gradient is marked (one parameter created after this call, or left out of
    param_list, and no gradient is clipped), all with the clip of the last of them by
    name."""
    _marks().mark(clip, param_list, program)


def clip_for(program, own_clip):
    """The clip a 1.x optimizer used: its own, else ``set_gradient_clip``'s marks."""
    if own_clip is not None or program is None:
        return own_clip
    if not getattr(program, "_fluid_gradient_clip_marks", None):
        return None
    return _marks()()


_lazy.attach(globals())
