"""``paddle.fluid.incubate.fleet.collective`` (1.8): collective training, basics.

``fleet.init(role_maker)``, ``fleet.distributed_optimizer(optimizer, strategy)``,
``optimizer.minimize(loss)``, ``fleet.main_program`` / ``fleet.startup_program``,
``fleet.worker_index()`` / ``worker_num()`` / ``is_first_worker()`` /
``worker_endpoints()``, ``server_num()`` / ``server_index()`` /
``server_endpoints()`` (the role maker's), ``fleet.save_inference_model`` / ``save_persistables``.

With one trainer the optimizer is the plain one and the program runs as written. With
several trainers (``paddle.distributed.launch``), today's static fleet optimizers only
rewrite old-IR programs, not the PIR programs compat builds, so ``minimize`` raises
``compat.LegacyAPIError`` explaining the migration (dygraph ``DataParallel`` does run
multi-process through compat). ``DistributedStrategy.to_fleet()`` translates the 1.x
fields for such a migration (``use_amp`` -> ``amp``, ``forward_recompute``/
``recompute_checkpoints`` -> ``recompute``, ``use_local_sgd`` -> ``localsgd``).
"""
from __future__ import annotations

import paddle

from compat import _lazy
from compat._runtime import legacy
from compat.fluid.incubate.fleet.base.role_maker import PaddleCloudRoleMaker


@legacy("paddle.fluid.incubate.fleet.collective.DistributedStrategy",
        replacement="paddle.distributed.fleet.DistributedStrategy")
class DistributedStrategy(paddle.static.BuildStrategy):
    def __init__(self):
        super().__init__()
        self.use_local_sgd = False
        self.use_dist_fc = False
        self.dist_fc_config = None
        self.mode = "nccl2"
        self.collective_mode = None
        self.nccl_comm_num = 1
        self.forward_recompute = False
        self.recompute_checkpoints = []
        self.use_amp = False
        self.amp_loss_scaling = 2 ** 15
        self.exec_strategy = None

    def to_fleet(self):
        s = paddle.distributed.fleet.DistributedStrategy()
        if self.use_amp:
            s.amp = True
            s.amp_configs = {"init_loss_scaling": float(self.amp_loss_scaling)}
        if self.forward_recompute:
            s.recompute = True
            s.recompute_configs = {"checkpoints": [getattr(c, "name", c) for c in self.recompute_checkpoints]}
        if self.use_local_sgd:
            s.localsgd = True
        return s


class _Fleet(object):
    def __init__(self):
        self._role_maker = None
        self._distributed = False
        self.main_program = None
        self.startup_program = None
        self._origin_program = None

    def init(self, role_maker=None):
        self._role_maker = role_maker or PaddleCloudRoleMaker(is_collective=True)
        self._distributed = self.worker_num() > 1
        if self._distributed:
            paddle.distributed.fleet.init(is_collective=True)

    def worker_index(self):
        return self._role_maker.worker_index() if self._role_maker else 0

    def worker_num(self):
        return self._role_maker.worker_num() if self._role_maker else 1

    def is_worker(self):
        return self._role_maker.is_worker() if self._role_maker else True

    def is_server(self):
        return self._role_maker.is_server() if self._role_maker else False

    def is_first_worker(self):
        return self._role_maker.is_first_worker() if self._role_maker else True

    def worker_endpoints(self, to_string=False):
        eps = self._role_maker.get_trainer_endpoints() if self._role_maker else []
        return ",".join(eps) if to_string else eps

    def server_num(self):
        return len(self.server_endpoints())

    def server_index(self):
        return self._role_maker.server_index() if self._role_maker else 0

    def server_endpoints(self, to_string=False):
        eps = list(self._role_maker.get_pserver_endpoints()) if self._role_maker else []
        return ",".join(eps) if to_string else eps

    def barrier_worker(self):
        if self._distributed:
            paddle.distributed.barrier()

    # 1.8's collective fleet only logged "You should not call '<name>' method for collective
    # mode" for the parameter-server calls (today's fleet raises ValueError for them)
    def init_worker(self):
        pass

    def init_server(self, model_dir=None):
        pass

    def run_server(self):
        pass

    def stop_worker(self):
        pass

    def distributed_optimizer(self, optimizer, strategy=None):
        return _DistributedOptimizer(self, optimizer, strategy)

    def save_inference_model(self, executor, dirname, feeded_var_names=None, target_vars=None,
                             main_program=None, export_for_deployment=True):
        # 1.8.5 saved on every trainer (no rank check), as fluid.io.save_inference_model
        from compat.fluid import io
        io.save_inference_model.__compat_impl__(
            dirname, feeded_var_names, target_vars, executor,
            main_program=main_program or self._origin_program)

    def save_persistables(self, executor, dirname, main_program=None, filename=None):
        # 1.8.5 saved on every trainer (no rank check), as fluid.io.save_persistables
        from compat.fluid import io
        io.save_persistables.__compat_impl__(executor, dirname,
                                             main_program or self._origin_program, filename)


class _DistributedOptimizer(object):
    def __init__(self, fleet_, optimizer, strategy):
        self._fleet = fleet_
        self._optimizer = optimizer
        self._strategy = strategy or DistributedStrategy()

    def minimize(self, loss, startup_program=None, parameter_list=None, no_grad_set=None):
        f = self._fleet
        if f._distributed and not paddle.in_dynamic_mode():
            from compat._runtime import manual_error
            raise manual_error(
                "paddle.fluid.incubate.fleet.collective.fleet",
                "multi-trainer static-graph collective training: today's fleet meta "
                "optimizers rewrite old-IR programs only; train in dygraph with "
                "paddle.DataParallel (fluid.dygraph.DataParallel works through compat) or "
                "port to paddle.distributed.fleet with a dygraph model")
        if f._distributed:
            strategy = self._strategy.to_fleet() if isinstance(self._strategy, DistributedStrategy) else self._strategy
            opt = paddle.distributed.fleet.distributed_optimizer(self._optimizer, strategy)
            out = opt.minimize(loss, startup_program, parameter_list, no_grad_set)
        else:
            out = self._optimizer.minimize(loss, startup_program, parameter_list, no_grad_set)
        f._origin_program = paddle.static.default_main_program()
        f.main_program = f._origin_program
        f.startup_program = startup_program or paddle.static.default_startup_program()
        return out

    def __getattr__(self, name):
        if name.startswith("_"):
            raise AttributeError(name)
        return getattr(self._optimizer, name)


fleet = _Fleet()

_lazy.attach(globals())
