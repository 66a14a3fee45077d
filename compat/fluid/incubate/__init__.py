"""``paddle.fluid.incubate`` (1.8)."""
from compat import _lazy

_lazy.attach(globals())
