"""``paddle.fluid.dygraph.io`` (2.0's name for the class ``jit.load`` returns).

Under PIR, today's ``paddle.jit.load`` returns a ``PirTranslatedLayer`` (not public), which
is not a ``paddle.jit.TranslatedLayer``; ``TranslatedLayer`` here answers ``isinstance``
for both, as the upgrader's ``_fluid_is_translated_layer`` check does
(upgrader/fixers/type_checks.py).
"""
from __future__ import annotations

import paddle

from compat import _lazy
from compat._runtime import legacy


def _pir_translated(obj) -> bool:
    return any(c.__name__ == "PirTranslatedLayer" and c.__module__.startswith("paddle.")
               for c in type(obj).__mro__)


class _TranslatedLayerMeta(type):
    def __instancecheck__(cls, obj):
        return isinstance(obj, paddle.jit.TranslatedLayer) or _pir_translated(obj)

    def __subclasscheck__(cls, sub):
        return issubclass(sub, paddle.jit.TranslatedLayer) or any(
            c.__name__ == "PirTranslatedLayer" and c.__module__.startswith("paddle.")
            for c in sub.__mro__)


@legacy("paddle.fluid.dygraph.io.TranslatedLayer", "paddle.fluid.dygraph.TranslatedLayer",
        replacement="paddle.jit.TranslatedLayer")
class TranslatedLayer(metaclass=_TranslatedLayerMeta):
    """``fluid.dygraph.TranslatedLayer``: built by ``jit.load``, never directly."""

    def __new__(cls, *args, **kwargs):
        return paddle.jit.TranslatedLayer(*args, **kwargs)


_lazy.attach(globals())
