"""``paddle.fluid.layers.math_op_patch`` (1.8).

1.x's operators on Variables (static ``Variable`` and dygraph ``VarBase``) cast the right
operand to the left operand's dtype (a Python number became a constant of that dtype, a
float truncated to an integer) and ran the elementwise op in that dtype. For integer
tensors that made ``/`` an integer division truncating toward zero (``int64 [7, -7] / 2``
gave ``[3, -3]``), ``//`` truncating too and ``%`` the remainder of that division (sign
of the dividend); today ``/`` gives the float32 quotient and ``//``/``%`` floor. The
division operators of ``paddle.Tensor`` (dygraph) and ``paddle.pir.Value`` (static
programs) follow 1.x for integer left operands; ``fluid.layers.elementwise_div``,
``elementwise_floordiv`` and ``elementwise_mod`` on integers likewise (nn.py). Paddle's
own modules keep today's operators. A right operand tensor of another dtype is cast to
the left one's for these operators (1.x; a static program today refuses float / int).
Indexing (``__getitem__``) gives shape [1] where today's result is 0-D (``v[0]`` of a 1-D
tensor, ``fluid.layers.shape(x)[0]``): 1.x had no 0-D tensors (checked on 1.8.5 in both
modes). In dygraph an index holding a stepped slice keeps its integer-indexed axes
(``v[0, ::2]``: 1.8.5's VarBase indexing did not remove them then).
A static ``Variable`` had no ``__bool__`` and was always true (ERNIE's
``out = out + prev_out if prev_out else out`` with ``prev_out`` None or a Variable); a
PIR ``Value`` raises TypeError in a truth test today, so for legacy callers it is true
again (checked on 1.8.5). Everything else comes from the rule database.
"""
from __future__ import annotations

import numbers
import sys

import paddle

from compat import _lazy

INT_DTYPES = (paddle.int64, paddle.int32, paddle.int16, paddle.int8, paddle.uint8)


def _is_tensor(v):
    return isinstance(v, (paddle.Tensor, paddle.pir.Value))


def is_int(v) -> bool:
    return _is_tensor(v) and v.dtype in INT_DTYPES


def trunc_div(x, y):
    """Integer division rounding toward zero (1.x's elementwise_div on integers)."""
    q = paddle.floor_divide(x, y)
    r = paddle.subtract(x, paddle.multiply(q, y))
    zx = paddle.zeros([1], x.dtype)
    inexact = paddle.not_equal(r, paddle.zeros([1], r.dtype))
    signs = paddle.logical_xor(paddle.less_than(x, zx), paddle.less_than(y, paddle.zeros([1], y.dtype)))
    return paddle.add(q, paddle.cast(paddle.logical_and(inexact, signs), q.dtype))


def trunc_mod(x, y):
    """Remainder of the truncating division (sign of the dividend), 1.x's integer %."""
    return paddle.subtract(x, paddle.multiply(trunc_div(x, y), y))


def _as_lhs(self, other, reverse):
    """1.x: the other operand in the left operand's dtype (numbers become constants)."""
    if _is_tensor(other):
        return other if other.dtype == self.dtype else paddle.cast(other, self.dtype)
    value = int(other)  # fill_constant of an integer dtype truncates
    if reverse:
        return paddle.full_like(self, value)
    return paddle.full([1], value, self.dtype)


def _patched(orig, fn, reverse=False):
    def op(self, other):
        if not _is_tensor(self) or sys._getframe(1).f_globals.get("__name__", "").startswith("paddle."):
            return orig(self, other)
        if is_int(self) and (_is_tensor(other) or isinstance(other, numbers.Real)):
            other = _as_lhs(self, other, reverse)
            return fn(other, self) if reverse else fn(self, other)
        if _is_tensor(other) and other.dtype != self.dtype:  # float / int tensor
            other = paddle.cast(other, self.dtype)
        return orig(self, other)
    op.__name__ = getattr(orig, "__name__", "op")
    op.__doc__ = getattr(orig, "__doc__", None)
    return op


def _is_index_int(v) -> bool:
    return isinstance(v, numbers.Integral) and not isinstance(v, bool)


def _stepped_index(index):
    """1.8.5's dygraph indexing with a stepped slice (a step other than 1, ``::-1`` too)
    kept the axes indexed by integers, of size 1: ``v[0, ::2]`` of a [2, 3, 4] VarBase
    was [1, 2, 4], ``v[:, -1, ::-1]`` [N, 1, ...] (checked on 1.8.5); without a stepped
    slice they were removed as today. Such an index gets its integers as slices here."""
    if not isinstance(index, tuple) or not all(isinstance(i, slice) or _is_index_int(i) for i in index):
        return index
    if not any(isinstance(i, slice) and i.step is not None and i.step != 1 for i in index) \
            or not any(_is_index_int(i) for i in index):
        return index
    return tuple(i if isinstance(i, slice) else slice(int(i), int(i) + 1 or None) for i in index)


def _getitem_patched(orig):
    def getitem(self, index):
        if sys._getframe(1).f_globals.get("__name__", "").startswith("paddle."):
            return orig(self, index)
        if isinstance(self, paddle.Tensor):
            index = _stepped_index(index)
        out = orig(self, index)
        if _is_tensor(out) and len(out.shape) == 0 and len(self.shape) > 0:
            return paddle.reshape(out, [1])  # 1.x had no 0-D tensors: v[0] gave shape [1]
        return out
    getitem.__name__ = "__getitem__"
    getitem.__doc__ = getattr(orig, "__doc__", None)
    return getitem


def _bool_patched(orig):
    def to_bool(self):
        if sys._getframe(1).f_globals.get("__name__", "").startswith("paddle."):
            return orig(self)
        return True  # 1.x Variable: no __bool__, every object is true
    to_bool.__name__ = "__bool__"
    to_bool.__doc__ = getattr(orig, "__doc__", None)
    return to_bool


_OPS = (("__truediv__", trunc_div, False), ("__div__", trunc_div, False),
        ("__rtruediv__", trunc_div, True), ("__rdiv__", trunc_div, True),
        ("__floordiv__", trunc_div, False), ("__mod__", trunc_mod, False))

_installed = []


def install() -> None:
    if _installed:
        return
    _installed.append(True)
    for cls in (paddle.Tensor, paddle.pir.Value):
        for name, fn, reverse in _OPS:
            orig = getattr(cls, name, None)
            if orig is not None:
                setattr(cls, name, _patched(orig, fn, reverse))
        setattr(cls, "__getitem__", _getitem_patched(cls.__getitem__))
    paddle.pir.Value.__bool__ = _bool_patched(paddle.pir.Value.__bool__)


install()

_lazy.attach(globals())
