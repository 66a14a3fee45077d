"""PU101 unique-first-order: ``fluid.layers.unique`` / ``unique_with_counts`` become small
functions fix adds to the module, which keep 1.8's order of first occurrence.

What it does
    ``fluid.layers.unique(x, dtype)`` becomes ``_fluid_unique(x, dtype)`` and
    ``fluid.layers.unique_with_counts(x, dtype)`` becomes
    ``_fluid_unique_with_counts(x, dtype)`` (same arguments, same 1.8 signature
    ``(x, dtype='int32')``); ``fix`` adds the function once, after the module's imports.
    Each is built from ``paddle.unique`` (the first index and the count of each value),
    ``argsort``, ``gather`` and ``cumsum``, so it runs in dynamic mode and in static
    (PIR) programs.

Why is this bad?
    1.8's ``unique`` returned the distinct values in the order of their first occurrence
    in ``x`` (``[5, 2, 5, 7]`` gave ``[5, 2, 7]`` and index ``[0, 1, 0, 2]``);
    ``paddle.unique`` sorts them (``[2, 5, 7]``, index ``[1, 0, 1, 2]``), also with
    ``sorted=False``. A plain rename would reorder every output, and the index would point
    into the reordered values. In a PIR program 3.3.1 also declares ``paddle.unique``'s
    values and inverse outputs float32 whatever their real dtype, so an op that reads them
    fails to build; the functions read only its first indices and counts, and rebuild the
    inverse from a stable sort.

Example
    ``uniq, _, count = L.unique_with_counts(dst, dtype="int32")`` →
    ``uniq, _, count = _fluid_unique_with_counts(dst, dtype="int32")``.

Fix safety
    Safe: values, index and count, with their dtypes (the values keep ``x``'s dtype, index
    and count take ``dtype``), agree with 1.8.5 in both modes (the rules' examples). 1.8
    accepted only 1-D input, as these functions assume. Manual when the module already
    uses the function's name for something else.
"""
from __future__ import annotations

import libcst as cst

CODE = "PU101"
STRUCTURAL = ("unique-first-order",)
NAMES = {"paddle.fluid.layers.unique": "_fluid_unique",
         "paddle.fluid.layers.unique_with_counts": "_fluid_unique_with_counts"}
#: what docs/rules.md and explain show instead of the entry's target
HELPERS = {"unique-first-order": "_fluid_unique / _fluid_unique_with_counts (functions fix "
                                 "adds to the module: 1.8's order of first occurrence)"}

_ORDER = '''    import paddle
    flat = paddle.flatten(x)
    _, first, counts = paddle.unique(flat, return_index=True, return_counts=True)
    perm = paddle.argsort(first)
    rank = paddle.argsort(perm)
    order = paddle.argsort(flat, stable=True)
    ordered = paddle.gather(flat, order)
    new = paddle.cast(ordered[1:] != ordered[:-1], 'int64')
    group = paddle.cumsum(paddle.concat([paddle.zeros([1], 'int64'), new]))
    inverse = paddle.scatter(paddle.zeros_like(group), order, group)
    out = paddle.gather(flat, paddle.sort(first))
    index = paddle.cast(paddle.gather(rank, inverse), dtype)
'''
SOURCES = {
    "_fluid_unique": '''def _fluid_unique(x, dtype='int32'):
    """Paddle 1.8's fluid.layers.unique: (out, index), the distinct values of the 1-D x in
    order of first occurrence and, for each element of x, the position of its value in
    out (paddle.unique sorts the values)."""
''' + _ORDER + '''    return out, index
''',
    "_fluid_unique_with_counts": '''def _fluid_unique_with_counts(x, dtype='int32'):
    """Paddle 1.8's fluid.layers.unique_with_counts: (out, index, count), the distinct
    values of the 1-D x in order of first occurrence, the position of each element's value
    in out, and how often each value occurs (paddle.unique sorts the values)."""
    if dtype not in ('int32', 'int64'):
        raise TypeError('Op unique_with_counts, index dtype must be int32 or int64')
''' + _ORDER + '''    count = paddle.cast(paddle.gather(counts, perm), dtype)
    return out, index, count
''',
}


def rewrite_call(up, original: cst.Call, updated: cst.Call, entry):
    from upgrader.fixers import call_added_function
    name = NAMES[entry.name]
    return call_added_function(up, original, updated, entry, name, SOURCES[name],
                               "a function fix adds to the module: 1.8's order of first "
                               "occurrence")


def finish_module(up, module: cst.Module) -> cst.Module:
    """Add the functions the rewrites call after the module's docstring and imports."""
    from upgrader.fixers import add_used_helpers
    return add_used_helpers(up, module, SOURCES)
