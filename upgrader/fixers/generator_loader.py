"""PU106 generator-loader: ``fluid.io.DataLoader.from_generator`` becomes a small class fix
adds to the module.

What it does
    ``loader = fluid.io.DataLoader.from_generator(feed_list=[x, y], capacity=8)`` becomes
    ``loader = _FluidGeneratorLoader(feed_list=[x, y], capacity=8)`` (the same arguments),
    and ``fix`` adds once, after the module's imports, a class of that name with 1.8's
    iterable protocol::

        class _FluidGeneratorLoader(object):
            def set_sample_generator(self, reader, batch_size, drop_last=True, places=None): ...
            def set_sample_list_generator(self, reader, places=None): ...
            def set_batch_generator(self, reader, places=None): ...
            def __call__(self): ...   # for data in loader(): ...

    The training loop (``for data in loader(): exe.run(prog, feed=data, ...)`` or, in
    dygraph, ``for img, label in loader(): ...``) runs unchanged.

Why is this bad?
    ``paddle.io.DataLoader`` has no ``from_generator`` in 3.x, and the nearest replacement
    (an ``IterableDataset`` under ``paddle.io.DataLoader``) batches differently: its collate
    splits a list field into one array per element, it neither casts nor reshapes for the
    feed variables, and its ``drop_last`` default is the opposite of
    ``set_sample_generator``'s. The class reproduces what 1.8 yielded: in dygraph a list
    of tensors, one per field, each ``np.asarray`` of the field's values (so Python floats
    give float64, as in 1.8) with ``stop_gradient=True``; in a static program a list holding
    one feed dict ``{name: array}`` (``return_list=True``: one list of arrays), each field
    cast to its feed variable's dtype and reshaped to its shape when the ranks differ (1.8's
    DataFeeder conversion: the class uses ``_FluidDataFeeder``, which fix adds too).
    ``set_sample_generator`` batches with ``paddle.batch`` and its ``drop_last``
    (default True, as 1.8).

Example
    ``loader = fluid.io.DataLoader.from_generator(capacity=10)`` /
    ``loader.set_sample_list_generator(paddle.batch(reader, 16), places=place)`` →
    ``loader = _FluidGeneratorLoader(capacity=10)`` / the same call.

Fix safety
    Safe for the iterable mode (``iterable`` left out or ``True``), checked on 3.3.1 against
    1.8.5 (batch structure, values, dtypes, shapes, ``stop_gradient``, a short last batch,
    trained results; static and dygraph). capacity, double buffering and use_multiprocess
    only tuned 1.8's background reading and have no effect on what is read. A loader with
    ``iterable=False`` (``start()`` / ``reset()`` with ``fluid.core.EOFException``, driven
    by feed-less ``exe.run``) or a non-literal ``iterable`` is reported for a manual
    rewrite, as is a module that uses the class names for something else. With several
    places (a data-parallel CompiledProgram) 1.8 split each batch into one feed per place;
    the class raises ValueError there instead of feeding them whole.
"""
from __future__ import annotations

import libcst as cst

CODE = "PU106"
STRUCTURAL = ("generator-loader",)
HELPER = "_FluidGeneratorLoader"
#: what docs/rules.md and explain show instead of the entry's target
HELPERS = {"generator-loader": f"{HELPER} (a class fix adds to the module)"}

HELPER_SOURCE = '''class _FluidGeneratorLoader(object):
    """Paddle 1.8's fluid.io.DataLoader.from_generator in iterable mode: `for data in
    loader():` yields, in dynamic mode, a list of tensors (one per field); in a static
    program a list holding one feed dict {name: array} (return_list=True: one list of
    arrays), fields converted to the feed variables as 1.8's DataFeeder did."""

    def __init__(self, feed_list=None, capacity=None, use_double_buffer=True, iterable=True,
                 return_list=False, use_multiprocess=False, drop_last=True):
        if not capacity:
            raise ValueError('Please give value to capacity.')
        self._dynamic = paddle.in_dynamic_mode()
        if not self._dynamic and not feed_list:
            raise ValueError('Feed list must be given under static mode.')
        self._feed_list = list(feed_list or [])
        self._return_list = return_list or self._dynamic
        self._reader = None

    def set_sample_generator(self, reader, batch_size, drop_last=True, places=None):
        return self.set_sample_list_generator(paddle.batch(reader, batch_size, drop_last), places)

    def set_sample_list_generator(self, reader, places=None):
        import numpy

        def batches():
            for samples in reader():
                if self._dynamic:
                    yield [numpy.asarray(list(field)) for field in zip(*samples)]
                else:
                    feed = _FluidDataFeeder(self._feed_list).feed(samples)
                    yield [feed[v.name] for v in self._feed_list]
        return self.set_batch_generator(batches, places)

    def set_batch_generator(self, reader, places=None):
        if places is None and not self._dynamic:
            raise ValueError('Places cannot be None when DataLoader is iterable')
        if isinstance(places, (list, tuple)) and len(places) != 1:
            raise ValueError('DataLoader over %d places: Paddle 1.8 split each batch into '
                             'one feed per place; feed one place' % len(places))
        self._reader = reader
        return self

    def __call__(self):
        return iter(self)

    def __iter__(self):
        import numpy
        for batch in self._reader():
            arrays = [numpy.asarray(a) for a in batch]
            if self._dynamic:
                yield [paddle.to_tensor(a) for a in arrays]
            elif self._return_list:
                yield [arrays]
            else:
                yield [dict(zip([v.name for v in self._feed_list], arrays))]
'''


def _states(up):
    """helper_state of this class and of _FluidDataFeeder, which it uses."""
    from upgrader.fixers import helper_state
    from upgrader.fixers.data_feeder import HELPER as FEEDER, HELPER_SOURCE as FEEDER_SOURCE
    return helper_state(up, HELPER, HELPER_SOURCE), helper_state(up, FEEDER, FEEDER_SOURCE)


def rewrite_call(up, original: cst.Call, updated: cst.Call, entry):
    from upgrader.fixers import bound_or_report
    bound = bound_or_report(up, original, updated, entry)
    if bound is None:
        return updated
    why = None
    iterable = bound.values.get("iterable")
    if iterable is not None:
        value = iterable.value
        if not (isinstance(value, cst.Name) and value.value == "True"):
            why = (f"iterable={up.module.code_for_node(value)}: only the iterable mode "
                   "(`for data in loader():`) has a rewrite")
    if why is None and "conflict" in _states(up):
        why = f"the module already uses the name {HELPER} or _FluidDataFeeder for something else"
    if why is not None:
        up.report_entry(original, entry, False, manual=(
            f"{why}; 1.8's non-iterable loader (start()/reset(), fluid.core.EOFException, "
            "exe.run without feed) has no counterpart: iterate the batches in a for loop and "
            "pass each as exe.run's feed"))
        return updated
    up.generator_loader_used = True
    up.feeder_helper_used = True
    up.report(original, CODE, f"`{entry.short}` → `{HELPER}` (a class fix adds to the module "
              "that reproduces 1.8's iterable loader: batches, dtypes and shapes as 1.8 "
              "yielded them)", entry.name, entry.target, "safe", applied=True)
    return updated.with_changes(func=cst.Name(HELPER))


def finish_module(up, module: cst.Module) -> cst.Module:
    """Add the class after the module's leading docstring and imports, once."""
    if not getattr(up, "generator_loader_used", False) or _states(up)[0] != "insert":
        return module
    from upgrader.fixers import insert_after_head
    return insert_after_head(module, [HELPER_SOURCE])
