"""PU101 nest-utils: ``fluid.layers.utils`` nest helpers become methods of ``_FluidNest``, a
class fix adds to the module holding 1.8.5's code.

What it does
    ``fluid.layers.utils.map_structure`` / ``flatten`` / ``pack_sequence_as`` /
    ``is_sequence`` / ``assert_same_structure`` / ``convert_to_list`` calls (also through
    ``from paddle.fluid.layers import utils`` or ``from paddle.fluid.layers.utils import
    map_structure``) become ``_FluidNest.map_structure(...)`` and so on, with the same
    arguments, and ``fix`` adds the class once, after the module's imports. Its static
    methods are 1.8.5's ``paddle/fluid/layers/utils.py`` functions written for today's
    Python (``collections.abc.Sequence``, ``str`` for ``six.string_types``, ``int`` for
    ``np.int``).

Why is this bad?
    The 1.8 helpers were private and ``paddle.fluid`` is gone. ``paddle.utils`` has
    functions of the same names, but they are not public (not in its ``__all__``) and
    have changed (``assert_same_structure`` gained ``skip_if``), so a program leaning on
    them may break with any release. The nest helpers are plain Python: 1.8.5's code runs
    unchanged on today's Python once its two removed names are replaced.

Example
    ``outputs = fluid.layers.utils.map_structure(lambda x: x * 2, states)`` →
    ``outputs = _FluidNest.map_structure(lambda x: x * 2, states)``.

Fix safety
    Safe: 1.8.5's code (dict values in sorted key order, namedtuples rebuilt by field,
    strings not sequences); the rules' examples (nested lists, tuples, dicts, a namedtuple,
    tensors as leaves) agree with 1.8.5. Manual when the module already uses the class's
    name for something else.
"""
from __future__ import annotations

import libcst as cst

CODE = "PU101"
STRUCTURAL = ("nest-utils",)
NAME = "_FluidNest"
#: what docs/rules.md and explain show instead of the entry's target
HELPERS = {"nest-utils": f"{NAME}.<function> (a class fix adds to the module: 1.8.5's code)"}

SOURCE = f'''class {NAME}(object):
    """Paddle 1.8's fluid.layers.utils nest helpers (1.8.5's code): dict values in sorted
    key order, namedtuples rebuilt by field, strings are not sequences."""

    @staticmethod
    def is_sequence(seq):
        import collections.abc
        if isinstance(seq, dict):
            return True
        return isinstance(seq, collections.abc.Sequence) and not isinstance(seq, str)

    @staticmethod
    def _sorted(dict_):
        try:
            return sorted(dict_)
        except TypeError:
            raise TypeError('nest only supports dicts with sortable keys.')

    @classmethod
    def _yield_value(cls, iterable):
        if isinstance(iterable, dict):
            for key in cls._sorted(iterable):
                yield iterable[key]
        else:
            for value in iterable:
                yield value

    @classmethod
    def _yield_flat_nest(cls, nest):
        for n in cls._yield_value(nest):
            if cls.is_sequence(n):
                for ni in cls._yield_flat_nest(n):
                    yield ni
            else:
                yield n

    @classmethod
    def flatten(cls, nest):
        if cls.is_sequence(nest):
            return list(cls._yield_flat_nest(nest))
        return [nest]

    @classmethod
    def _sequence_like(cls, instance, args):
        import collections.abc
        if isinstance(instance, dict):
            result = dict(zip(cls._sorted(instance), args))
            return type(instance)((key, result[key]) for key in instance)
        if (isinstance(instance, tuple) and hasattr(instance, '_fields')
                and isinstance(instance._fields, collections.abc.Sequence)
                and all(isinstance(f, str) for f in instance._fields)):
            return type(instance)(*args)
        return type(instance)(args)

    @classmethod
    def _packed_nest_with_indices(cls, structure, flat, index):
        packed = []
        for s in cls._yield_value(structure):
            if cls.is_sequence(s):
                new_index, child = cls._packed_nest_with_indices(s, flat, index)
                packed.append(cls._sequence_like(s, child))
                index = new_index
            else:
                packed.append(flat[index])
                index += 1
        return index, packed

    @classmethod
    def pack_sequence_as(cls, structure, flat_sequence):
        if not cls.is_sequence(flat_sequence):
            raise TypeError('flat_sequence must be a sequence')
        if not cls.is_sequence(structure):
            if len(flat_sequence) != 1:
                raise ValueError('Structure is a scalar but len(flat_sequence) == %d > 1'
                                 % len(flat_sequence))
            return flat_sequence[0]
        flat_structure = cls.flatten(structure)
        if len(flat_structure) != len(flat_sequence):
            raise ValueError(
                'Could not pack sequence. Structure had %d elements, but flat_sequence '
                'had %d elements.  Structure: %s, flat_sequence: %s.'
                % (len(flat_structure), len(flat_sequence), structure, flat_sequence))
        _, packed = cls._packed_nest_with_indices(structure, flat_sequence, 0)
        return cls._sequence_like(structure, packed)

    @classmethod
    def map_structure(cls, func, *structure):
        flat_structure = [cls.flatten(s) for s in structure]
        entries = zip(*flat_structure)
        return cls.pack_sequence_as(structure[0], [func(*x) for x in entries])

    @classmethod
    def assert_same_structure(cls, nest1, nest2, check_types=True):
        len_nest1 = len(cls.flatten(nest1)) if cls.is_sequence(nest1) else 1
        len_nest2 = len(cls.flatten(nest2)) if cls.is_sequence(nest2) else 1
        if len_nest1 != len_nest2:
            raise ValueError("The two structures don't have the same number of "
                             "elements.\\n\\nFirst structure (%i elements): %s\\n\\n"
                             "Second structure (%i elements): %s"
                             % (len_nest1, nest1, len_nest2, nest2))
        cls._recursive_assert_same_structure(nest1, nest2, check_types)

    @classmethod
    def _recursive_assert_same_structure(cls, nest1, nest2, check_types):
        is_sequence_nest1 = cls.is_sequence(nest1)
        if is_sequence_nest1 != cls.is_sequence(nest2):
            raise ValueError("The two structures don't have the same nested structure.\\n\\n"
                             "First structure: %s\\n\\nSecond structure: %s." % (nest1, nest2))
        if not is_sequence_nest1:
            return
        if check_types:
            if type(nest1) != type(nest2):
                raise TypeError(
                    "The two structures don't have the same sequence type. First "
                    "structure has type %s, while second structure has type %s."
                    % (type(nest1), type(nest2)))
            if isinstance(nest1, dict) and set(nest1) != set(nest2):
                raise ValueError(
                    "The two dictionaries don't have the same set of keys. First "
                    "structure has keys {{}}, while second structure has keys {{}}."
                    .format(set(nest1), set(nest2)))
        for n1, n2 in zip(list(cls._yield_value(nest1)), list(cls._yield_value(nest2))):
            cls._recursive_assert_same_structure(n1, n2, check_types)

    @staticmethod
    def convert_to_list(value, n, name, dtype=int):
        if isinstance(value, dtype):
            return [value, ] * n
        try:
            value_list = list(value)
        except TypeError:
            raise ValueError("The " + name + "'s type must be list or tuple. Received: "
                             + str(value))
        if len(value_list) != n:
            raise ValueError("The " + name + "'s length must be " + str(n)
                             + ". Received: " + str(value))
        for single_value in value_list:
            try:
                dtype(single_value)
            except (ValueError, TypeError):
                raise ValueError(
                    "The " + name + "'s type must be a list or tuple of " + str(n) + " "
                    + str(dtype) + " . Received: " + str(value) + " including element "
                    + str(single_value) + " of type " + str(type(single_value)))
        return value_list
'''


def rewrite_call(up, original: cst.Call, updated: cst.Call, entry):
    from upgrader.fixers import helper_conflict, use_helper
    if helper_conflict(up, original, entry, NAME, SOURCE):
        return updated
    if not up.can_apply(entry, original):  # the arguments stay as they are: same signature
        up.report_entry(original, entry, False)
        return updated
    method = entry.name.rsplit(".", 1)[1]
    use_helper(up, original, entry, NAME, "a class fix adds to the module: 1.8.5's code",
               shown=f"{NAME}.{method}")
    return updated.with_changes(func=cst.Attribute(value=cst.Name(NAME), attr=cst.Name(method)))


def finish_module(up, module: cst.Module) -> cst.Module:
    """Add the class the rewrites call after the module's docstring and imports."""
    from upgrader.fixers import add_used_helpers
    return add_used_helpers(up, module, {NAME: SOURCE})
