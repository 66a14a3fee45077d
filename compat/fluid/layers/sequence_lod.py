"""``paddle.fluid.layers.sequence_lod`` (1.8): generated from the rule database."""
from compat import _lazy

_lazy.attach(globals())
