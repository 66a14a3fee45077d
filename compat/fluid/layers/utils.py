"""``paddle.fluid.layers.utils`` (1.8): the nested-structure helpers run on Paddle 3's
own copies in ``paddle.utils.layers_utils`` (not public API, so ``fix`` leaves them
manual; the 1.8.5 snippet ``layers_utils_nest`` checks they behave alike); other names
are generated from the rule database."""
from __future__ import annotations

from paddle.utils import layers_utils as _nest

from compat import _lazy
from compat._runtime import legacy

_HELPERS = "a small recursive helper (Paddle 3 keeps its own only in paddle.utils.layers_utils)"


@legacy("paddle.fluid.layers.utils.is_sequence", replacement=_HELPERS)
def is_sequence(seq):
    return _nest.is_sequence(seq)


@legacy("paddle.fluid.layers.utils.flatten", replacement=_HELPERS)
def flatten(nest):
    return _nest.flatten(nest)


@legacy("paddle.fluid.layers.utils.pack_sequence_as", replacement=_HELPERS)
def pack_sequence_as(structure, flat_sequence):
    return _nest.pack_sequence_as(structure, flat_sequence)


@legacy("paddle.fluid.layers.utils.map_structure", replacement=_HELPERS)
def map_structure(func, *structure):
    return _nest.map_structure(func, *structure)


@legacy("paddle.fluid.layers.utils.assert_same_structure", replacement=_HELPERS)
def assert_same_structure(nest1, nest2, check_types=True):
    return _nest.assert_same_structure(nest1, nest2, check_types)


_lazy.attach(globals())
