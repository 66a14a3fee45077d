"""``paddle.fluid.contrib`` (1.8)."""
from compat import _lazy
from compat.fluid.contrib import mixed_precision  # noqa: F401

_lazy.attach(globals())
