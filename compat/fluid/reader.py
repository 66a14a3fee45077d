"""``paddle.fluid.reader`` (1.8): ``DataLoader.from_generator`` and ``PyReader``.

Today's ``paddle.io.DataLoader`` has no ``from_generator``. The loader here keeps the
1.x protocol:

- ``set_sample_generator(reader, batch_size, drop_last=True, places=None)``,
  ``set_sample_list_generator(reader, places=None)``, ``set_batch_generator(reader, places=None)``;
- iterable (``for data in loader():``): static mode yields a list with one feed dict per
  place (``exe.run(prog, feed=data)``), dygraph yields a list of tensors, one per slot;
- non-iterable (``iterable=False``): ``loader.start()``, then ``exe.run(prog)`` without a
  feed takes the next batch; at the end it raises ``fluid.core.EOFException``; then
  ``loader.reset()``.
"""
from __future__ import annotations

import numpy as np
import paddle

from compat import _lazy
from compat._runtime import legacy
from compat.fluid import _pir
from compat.fluid.data_feeder import convert_slot, var_info

__all__ = ["DataLoader", "PyReader", "default_collate_fn"]

_pending = {}  # id(program) -> loader started in non-iterable mode


def pending_feed(program):
    """Next batch of a started non-iterable loader bound to *program* (or None)."""
    if not _pending:
        return None
    p = program
    while p is not None:
        loader = _pending.get(id(p))
        if loader is not None:
            if p is not program:
                return loader._next_feed_for(program)
            return loader._next_feed_for(program)
        p = getattr(p, "_compat_source", None)
    return None


def _batch(reader, batch_size, drop_last):
    def batched():
        buf = []
        for sample in reader():
            buf.append(sample)
            if len(buf) == batch_size:
                yield buf
                buf = []
        if buf and not drop_last:
            yield buf
    return batched


class GeneratorLoader(object):
    def __init__(self, feed_list=None, capacity=None, use_double_buffer=True, iterable=True,
                 return_list=False, use_multiprocess=False, drop_last=True):
        self._feed_list = list(feed_list or [])
        self._capacity = capacity
        self._iterable = iterable
        self._dygraph = paddle.in_dynamic_mode()
        self._return_list = True if self._dygraph else return_list
        self._drop_last = drop_last
        self._batch_reader = None
        self._places = None
        self._iter = None
        self._infos = [var_info(v) for v in self._feed_list] if not self._dygraph else []
        self._program = None
        if not self._dygraph and self._feed_list:
            v = self._feed_list[0]
            self._program = (_pir.program_of(v) if isinstance(v, paddle.pir.Value)
                             else paddle.static.default_main_program())

    # -- sources ------------------------------------------------------------------------
    def set_sample_generator(self, reader, batch_size, drop_last=True, places=None):
        return self.set_sample_list_generator(_batch(reader, batch_size, drop_last), places)

    def set_sample_list_generator(self, reader, places=None):
        infos = self._infos

        def batches():
            for samples in reader():
                slots = list(zip(*samples))
                if infos:
                    yield [convert_slot(list(s), d, sh) for s, (_, d, sh) in zip(slots, infos)]
                else:
                    yield [np.array(list(s)) for s in slots]
        return self.set_batch_generator(batches, places)

    def set_batch_generator(self, reader, places=None):
        self._batch_reader = reader
        self._places = places
        return self

    # -- iterable -------------------------------------------------------------------------
    def _format(self, batch):
        if isinstance(batch, dict):
            return [batch] if not self._dygraph else list(batch.values())
        arrays = list(batch) if isinstance(batch, (list, tuple)) else [batch]
        if self._dygraph:
            return [a if isinstance(a, paddle.Tensor) else paddle.to_tensor(np.asarray(a))
                    for a in arrays]
        if self._return_list:
            return [arrays]  # 1.8: one list of arrays per place
        names = [i[0] for i in self._infos]
        feed = {}
        for (name, dtype, _), a in zip(self._infos, arrays):
            a = np.asarray(a.numpy() if isinstance(a, paddle.Tensor) else a)
            feed[name] = a.astype(dtype) if a.dtype != np.dtype(dtype) else a
        if len(names) != len(arrays):
            raise ValueError("The number of slots generated (%d) does not match the "
                             "feed_list (%d)" % (len(arrays), len(names)))
        return [feed]

    def __call__(self):
        return self.__iter__()

    def __iter__(self):
        if self._batch_reader is None:
            raise ValueError("the data source is not set: call set_sample_generator, "
                             "set_sample_list_generator or set_batch_generator first")
        if not self._iterable:
            raise RuntimeError("a non-iterable DataLoader is driven by start()/reset() and "
                               "Executor.run without feed")
        for batch in self._batch_reader():
            yield self._format(batch)

    def __next__(self):
        if self._iter is None:
            self._iter = iter(self)
        return next(self._iter)

    # -- non-iterable -----------------------------------------------------------------------
    def start(self):
        if self._iterable:
            raise RuntimeError("start() is only for a non-iterable DataLoader (iterable=False)")
        self._iter = iter(self._batch_reader())
        _pending[id(self._program or paddle.static.default_main_program())] = self

    def reset(self):
        self._iter = None
        for k in [k for k, v in _pending.items() if v is self]:
            del _pending[k]

    def _next_feed_for(self, program):
        if self._iter is None:
            raise RuntimeError("DataLoader: call start() before running the program")
        try:
            batch = next(self._iter)
        except StopIteration:
            self._iter = None
            raise paddle.base.core.EOFException("There is no next data.")
        saved = self._dygraph, self._return_list
        self._dygraph = self._return_list = False
        try:
            return self._format(batch)[0]
        finally:
            self._dygraph, self._return_list = saved


@legacy("paddle.fluid.io.DataLoader", "paddle.fluid.reader.DataLoader", replacement="paddle.io.DataLoader")
class DataLoader(object):
    """``fluid.io.DataLoader``: ``from_generator`` (1.x protocol, above) and the
    ``Dataset``-based constructor (today's ``paddle.io.DataLoader``)."""

    def __new__(cls, dataset, feed_list=None, places=None, return_list=False, batch_sampler=None,
                batch_size=1, shuffle=False, drop_last=False, collate_fn=None, num_workers=0,
                use_buffer_reader=True, use_shared_memory=True, timeout=0, worker_init_fn=None):
        return paddle.io.DataLoader(dataset, feed_list=feed_list, places=places,
                                    return_list=return_list, batch_sampler=batch_sampler,
                                    batch_size=batch_size, shuffle=shuffle, drop_last=drop_last,
                                    collate_fn=collate_fn, num_workers=num_workers,
                                    use_buffer_reader=use_buffer_reader,
                                    use_shared_memory=use_shared_memory, timeout=timeout,
                                    worker_init_fn=worker_init_fn)

    def __init__(self, dataset, feed_list=None, places=None, return_list=False,
                 batch_sampler=None, batch_size=1, shuffle=False, drop_last=False,
                 collate_fn=None, num_workers=0, use_buffer_reader=True, use_shared_memory=True,
                 timeout=0, worker_init_fn=None):
        pass  # documents the 1.x signature; __new__ returns paddle.io.DataLoader

    @staticmethod
    def from_generator(feed_list=None, capacity=None, use_double_buffer=True, iterable=True,
                       return_list=False, use_multiprocess=False, drop_last=True):
        return GeneratorLoader(feed_list, capacity, use_double_buffer, iterable, return_list,
                               use_multiprocess, drop_last)

    @staticmethod
    def from_dataset(dataset, places, drop_last=True):
        from compat._runtime import manual_error
        raise manual_error("paddle.fluid.io.DataLoader", "from_dataset (fluid.dataset "
                           "InMemoryDataset/QueueDataset) has no counterpart; use "
                           "paddle.io.Dataset with paddle.io.DataLoader")


@legacy("paddle.fluid.io.PyReader", "paddle.fluid.reader.PyReader", replacement="paddle.io.DataLoader")
class PyReader(GeneratorLoader):
    """1.x ``PyReader``: the same protocol with ``decorate_*`` names."""

    def __init__(self, feed_list=None, capacity=None, use_double_buffer=True, iterable=True,
                 return_list=False):
        super().__init__(feed_list, capacity, use_double_buffer, iterable, return_list)

    def decorate_sample_generator(self, sample_generator, batch_size, drop_last=True, places=None):
        return self.set_sample_generator(sample_generator, batch_size, drop_last, places)

    def decorate_sample_list_generator(self, reader, places=None):
        return self.set_sample_list_generator(reader, places)

    def decorate_batch_generator(self, reader, places=None):
        return self.set_batch_generator(reader, places)


def default_collate_fn(batch):
    from paddle.io.dataloader.collate import default_collate_fn as fn
    return fn(batch)


_lazy.attach(globals())
