"""``paddle.fluid.layers.utils`` (1.8): the nested-structure helpers are pure Python and
are 1.8.5's own code (Paddle 3 has no public counterpart); other names are generated from
the rule database."""
from __future__ import annotations

import collections.abc

from compat import _lazy
from compat._runtime import legacy

_HELPERS = "a small recursive helper (1.8's code: compat/fluid/layers/utils.py)"


@legacy("paddle.fluid.layers.utils.is_sequence", replacement=_HELPERS)
def is_sequence(seq):
    """Whether ``seq`` is an entry or nested structure (a dict, or a sequence that is not
    a string)."""
    if isinstance(seq, dict):
        return True
    return isinstance(seq, collections.abc.Sequence) and not isinstance(seq, str)


def _sorted(dict_):
    try:
        return sorted(dict_.keys())
    except TypeError:
        raise TypeError("nest only supports dicts with sortable keys.")


def _yield_value(iterable):
    if isinstance(iterable, dict):
        # sorted keys: 1.8 ignored the order of an OrderedDict on purpose
        for key in _sorted(iterable):
            yield iterable[key]
    else:
        for value in iterable:
            yield value


def _yield_flat_nest(nest):
    for n in _yield_value(nest):
        if is_sequence(n):
            for ni in _yield_flat_nest(n):
                yield ni
        else:
            yield n


@legacy("paddle.fluid.layers.utils.flatten", replacement=_HELPERS)
def flatten(nest):
    """All entries of the nested structure in one list (dict values by sorted key)."""
    if is_sequence(nest):
        return list(_yield_flat_nest(nest))
    return [nest]


def _sequence_like(instance, args):
    if isinstance(instance, dict):
        result = dict(zip(_sorted(instance), args))
        return type(instance)((key, result[key]) for key in instance.keys())
    if isinstance(instance, tuple) and hasattr(instance, "_fields") and \
            isinstance(instance._fields, collections.abc.Sequence) and \
            all(isinstance(f, str) for f in instance._fields):
        return type(instance)(*args)  # a namedtuple
    return type(instance)(args)


def _packed_nest_with_indices(structure, flat, index):
    packed = []
    for s in _yield_value(structure):
        if is_sequence(s):
            new_index, child = _packed_nest_with_indices(s, flat, index)
            packed.append(_sequence_like(s, child))
            index = new_index
        else:
            packed.append(flat[index])
            index += 1
    return index, packed


@legacy("paddle.fluid.layers.utils.pack_sequence_as", replacement=_HELPERS)
def pack_sequence_as(structure, flat_sequence):
    """Pack a flattened sequence into the given structure."""
    if not is_sequence(flat_sequence):
        raise TypeError("flat_sequence must be a sequence")
    if not is_sequence(structure):
        if len(flat_sequence) != 1:
            raise ValueError("Structure is a scalar but len(flat_sequence) == %d > 1"
                             % len(flat_sequence))
        return flat_sequence[0]
    flat_structure = flatten(structure)
    if len(flat_structure) != len(flat_sequence):
        raise ValueError(
            "Could not pack sequence. Structure had %d elements, but flat_sequence "
            "had %d elements.  Structure: %s, flat_sequence: %s."
            % (len(flat_structure), len(flat_sequence), structure, flat_sequence))
    _, packed = _packed_nest_with_indices(structure, flat_sequence, 0)
    return _sequence_like(structure, packed)


@legacy("paddle.fluid.layers.utils.map_structure", replacement=_HELPERS)
def map_structure(func, *structure):
    """``func`` applied to each entry of the structures, packed like the first one."""
    flat_structure = [flatten(s) for s in structure]
    entries = zip(*flat_structure)
    return pack_sequence_as(structure[0], [func(*x) for x in entries])


def _recursive_assert_same_structure(nest1, nest2, check_types):
    is_sequence_nest1 = is_sequence(nest1)
    if is_sequence_nest1 != is_sequence(nest2):
        raise ValueError("The two structures don't have the same nested structure.\n\n"
                         "First structure: %s\n\nSecond structure: %s." % (nest1, nest2))
    if not is_sequence_nest1:
        return
    if check_types:
        if type(nest1) != type(nest2):
            raise TypeError(
                "The two structures don't have the same sequence type. First structure "
                "has type %s, while second structure has type %s." % (type(nest1), type(nest2)))
        if isinstance(nest1, dict):
            keys1, keys2 = set(nest1.keys()), set(nest2.keys())
            if keys1 != keys2:
                raise ValueError(
                    "The two dictionaries don't have the same set of keys. First structure "
                    "has keys {}, while second structure has keys {}.".format(keys1, keys2))
    for n1, n2 in zip(list(_yield_value(nest1)), list(_yield_value(nest2))):
        _recursive_assert_same_structure(n1, n2, check_types)


@legacy("paddle.fluid.layers.utils.assert_same_structure", replacement=_HELPERS)
def assert_same_structure(nest1, nest2, check_types=True):
    """Raise unless the two nested structures have the same structure."""
    len_nest1 = len(flatten(nest1)) if is_sequence(nest1) else 1
    len_nest2 = len(flatten(nest2)) if is_sequence(nest2) else 1
    if len_nest1 != len_nest2:
        raise ValueError("The two structures don't have the same number of elements.\n\n"
                         "First structure (%i elements): %s\n\nSecond structure (%i "
                         "elements): %s" % (len_nest1, nest1, len_nest2, nest2))
    _recursive_assert_same_structure(nest1, nest2, check_types)


_lazy.attach(globals())
