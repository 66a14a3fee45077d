"""``paddle.fluid.lod_tensor`` (1.8): LoD tensors.

Today's tensors carry no LoD (sequence lengths): a LoD tensor with a single sequence
level of equal lengths is an ordinary dense tensor; anything else needs padding plus
explicit lengths (``paddle.nn.functional.sequence_mask``).
"""
from __future__ import annotations

import numpy as np
import paddle

from compat import _lazy
from compat._runtime import legacy, manual_error


@legacy("paddle.fluid.create_lod_tensor", "paddle.fluid.lod_tensor.create_lod_tensor",
        replacement="paddle.to_tensor on padded data")
def create_lod_tensor(data, recursive_seq_lens, place):
    if isinstance(data, paddle.base.core.DenseTensor):
        data = np.array(data)
    if isinstance(data, list):
        flat = []
        for seq in data:
            flat.extend(seq)
        data = np.array(flat).reshape([len(flat), 1])
    data = np.asarray(data)
    lens = [list(l) for l in recursive_seq_lens]
    if len(lens) > 1 or (lens and len(set(lens[0])) > 1):
        raise manual_error("paddle.fluid.create_lod_tensor",
                           "sequences of different lengths (LoD %s) have no dense equivalent; "
                           "pad them and pass the lengths" % (recursive_seq_lens,))
    t = paddle.base.core.DenseTensor()
    t.set(data, paddle.CPUPlace())
    return t


@legacy("paddle.fluid.create_random_int_lodtensor", "paddle.fluid.lod_tensor.create_random_int_lodtensor",
        replacement="paddle.randint")
def create_random_int_lodtensor(recursive_seq_lens, base_shape, place, low, high):
    total = sum(recursive_seq_lens[-1])
    data = np.random.randint(low, high + 1, [total] + list(base_shape)).astype("int64")
    return create_lod_tensor.__compat_impl__(data, recursive_seq_lens, place)


_lazy.attach(globals())
