"""``paddle.fluid.data_feeder`` (1.8): ``DataFeeder`` (samples -> feed dict)."""
from __future__ import annotations

import numpy as np
import paddle

from compat import _lazy
from compat._runtime import legacy


def var_info(var, program=None):
    """(name, numpy dtype, shape) of a feed variable (a data value or its name)."""
    if isinstance(var, str):
        from compat.fluid import _pir
        program = program or paddle.static.default_main_program()
        value = _pir.find_by_name(program, var)
        if value is None:
            raise ValueError("no variable named %r in the program" % var)
        var = value
    dtype = paddle.base.data_feeder.convert_dtype(var.dtype)
    shape = [int(s) if s is not None else -1 for s in var.shape]
    return var.name, dtype, shape


def convert_slot(values, dtype, shape):
    """1.x ``DataToLoDTensorConverter`` for lod_level 0: stack and reshape to the
    variable's shape (batch dimension included)."""
    arr = np.array(values, dtype=dtype)
    if shape and sum(1 for s in shape if s < 0) <= 1 and len(arr.shape) != len(shape):
        try:
            arr = arr.reshape(shape)
        except ValueError:
            raise ValueError("Reshape error. What is defined in data layer is {}, but receive {}"
                             .format(shape, arr.shape))
    return arr


@legacy("paddle.fluid.DataFeeder", "paddle.fluid.data_feeder.DataFeeder",
        replacement="paddle.io.DataLoader")
class DataFeeder(object):
    def __init__(self, feed_list, place, program=None):
        self.place = place
        self.program = program
        infos = [var_info(v, program) for v in feed_list]
        self.feed_names = [i[0] for i in infos]
        self.feed_dtypes = [i[1] for i in infos]
        self.feed_shapes = [i[2] for i in infos]
        self.feed_lod_level = [0] * len(infos)

    def feed(self, iterable):
        slots = [[] for _ in self.feed_names]
        for sample in iterable:
            if len(sample) != len(slots):
                raise ValueError("The number of fields in data (%d) does not match "
                                 "len(feed_list) (%d)" % (len(sample), len(slots)))
            for i, item in enumerate(sample):
                slots[i].append(item)
        return {n: convert_slot(s, d, sh) for n, s, d, sh in
                zip(self.feed_names, slots, self.feed_dtypes, self.feed_shapes)}

    def feed_parallel(self, iterable, num_places=None):
        return [self.feed(batch) for batch in iterable]

    def decorate_reader(self, reader, multi_devices, num_places=None, drop_last=True):
        def decorated():
            for batch in reader():
                yield self.feed(batch)
        return decorated


_lazy.attach(globals())
