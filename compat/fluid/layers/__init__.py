"""``paddle.fluid.layers`` (1.8).

Hand-written 1.x implementations live in the submodules named like 1.8's
(``nn``, ``tensor``, ``loss``, ``io``, ``learning_rate_scheduler`` ...); every other
1.x name is generated from the rule database on first use.
"""
from compat import _lazy
from compat.fluid.layers import (collective, control_flow, detection, device,  # noqa: F401
                                 distributions, io, learning_rate_scheduler, loss,
                                 math_op_patch, metric_op, nn, ops, rnn, sequence_lod, tensor,
                                 utils)
from compat.fluid.layers.io import data  # noqa: F401
from compat.fluid.layers.learning_rate_scheduler import (cosine_decay, exponential_decay,  # noqa: F401
                                                         inverse_time_decay, linear_lr_warmup,
                                                         natural_exp_decay, noam_decay,
                                                         piecewise_decay, polynomial_decay)
from compat.fluid.layers.loss import softmax_with_cross_entropy  # noqa: F401
from compat.fluid.layers.nn import *  # noqa: F401,F403
# 1.8's layers/__init__ imported rnn.py's names over it: fluid.layers.rnn is the function
from compat.fluid.layers.rnn import GRUCell, LSTMCell, RNNCell, gru_unit, rnn  # noqa: F401
from compat.fluid.layers.tensor import (argsort, fill_constant_batch_size_like, has_inf,  # noqa: F401
                                        has_nan, isfinite)

_lazy.attach(globals())
