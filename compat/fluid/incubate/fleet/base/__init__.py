"""``paddle.fluid.incubate.fleet.base`` (1.8)."""
from compat import _lazy

_lazy.attach(globals())
