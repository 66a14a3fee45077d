"""``paddle.fluid.incubate.fleet`` (1.8)."""
from compat import _lazy

_lazy.attach(globals())
