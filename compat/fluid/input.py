"""``paddle.fluid.input`` (1.8): ``fluid.embedding`` and ``fluid.one_hot`` (the v2 ops that
APPEND the new dimension, unlike ``fluid.layers.embedding/one_hot``)."""
from __future__ import annotations

import paddle.nn.functional as F

from compat import _lazy
from compat._runtime import legacy
from compat.fluid.layers import nn as _nn


@legacy("paddle.fluid.embedding", "paddle.fluid.input.embedding",
        replacement="paddle.nn.Embedding / paddle.static.nn.embedding")
def embedding(input, size, is_sparse=False, is_distributed=False, padding_idx=None,
              param_attr=None, dtype="float32"):
    return _nn.embedding_v2(input, size, is_sparse, is_distributed, padding_idx, param_attr, dtype)


@legacy("paddle.fluid.one_hot", "paddle.fluid.input.one_hot",
        replacement="paddle.nn.functional.one_hot")
def one_hot(input, depth, allow_out_of_range=False):
    return F.one_hot(input, depth)


_lazy.attach(globals())
