"""``paddle.fluid.dygraph.parallel`` (1.8): data parallel in dygraph.

1.x: ``strategy = prepare_context(); model = DataParallel(model, strategy)``, then
``loss = model.scale_loss(loss); loss.backward(); model.apply_collective_grads()``.
Today's ``paddle.DataParallel`` averages gradients inside ``backward``, which is what
``scale_loss`` (divide by the number of trainers) plus ``apply_collective_grads`` (sum)
did; so here ``scale_loss`` returns the loss and ``apply_collective_grads`` does nothing.
With one trainer the model runs as is.
"""
from __future__ import annotations

import paddle

from compat import _lazy
from compat._runtime import legacy


@legacy("paddle.fluid.dygraph.ParallelEnv", "paddle.fluid.dygraph.parallel.ParallelEnv",
        replacement="paddle.distributed.ParallelEnv")
class ParallelEnv(paddle.distributed.ParallelEnv):
    def __init__(self):
        super().__init__()

    @property
    def local_rank(self):
        return self.rank

    @property
    def nranks(self):
        return self.world_size

    @property
    def dev_id(self):
        """1.8 read FLAGS_selected_gpus (default "0") on any build; today's device_id
        is unset on a CPU-only build (AttributeError)."""
        try:
            return self.device_id
        except AttributeError:
            import os
            return int(os.getenv("FLAGS_selected_gpus", "0").split(",")[0])


class ParallelStrategy(object):
    def __init__(self):
        env = paddle.distributed.ParallelEnv()
        self.nranks = env.world_size
        self.local_rank = env.rank
        self.trainer_endpoints = env.trainer_endpoints
        self.current_endpoint = env.current_endpoint


_initialized = [False]


@legacy("paddle.fluid.dygraph.prepare_context", "paddle.fluid.dygraph.parallel.prepare_context",
        replacement="paddle.distributed.init_parallel_env")
def prepare_context(strategy=None):
    if strategy is None:
        strategy = ParallelStrategy()
    if strategy.nranks > 1 and not _initialized[0]:
        paddle.distributed.init_parallel_env()
        _initialized[0] = True
    return strategy


@legacy("paddle.fluid.dygraph.DataParallel", "paddle.fluid.dygraph.parallel.DataParallel",
        replacement="paddle.DataParallel")
class DataParallel(paddle.nn.Layer):
    def __init__(self, layers, strategy):
        super().__init__()
        self._strategy = strategy if strategy is not None else ParallelStrategy()
        nranks = paddle.distributed.get_world_size()
        if nranks > 1:
            if not _initialized[0]:
                paddle.distributed.init_parallel_env()
                _initialized[0] = True
            self._layers = paddle.DataParallel(layers)
        else:
            self._layers = layers

    def forward(self, *inputs, **kwargs):
        return self._layers(*inputs, **kwargs)

    def scale_loss(self, loss):
        return loss

    def apply_collective_grads(self):
        return None

    def state_dict(self, *args, **kwargs):
        inner = self._layers._layers if isinstance(self._layers, paddle.DataParallel) else self._layers
        return inner.state_dict(*args, **kwargs)

    def set_dict(self, stat_dict, include_sublayers=True, use_structured_name=True):
        inner = self._layers._layers if isinstance(self._layers, paddle.DataParallel) else self._layers
        return inner.set_state_dict(stat_dict, use_structured_name=use_structured_name)

    load_dict = set_dict
    set_state_dict = set_dict


_lazy.attach(globals())
