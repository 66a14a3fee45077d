"""``paddle.fluid.compiler`` (1.8): ``CompiledProgram``, ``BuildStrategy``,
``ExecutionStrategy``.

Today's Paddle has no multi-device ``with_data_parallel``: data parallelism is one
process per device (``paddle.distributed.launch``). A compiled program therefore runs
as its plain program in this process; ``with_data_parallel`` keeps its 1.x signature.
"""
from __future__ import annotations

import paddle

from compat import _lazy
from compat._runtime import ensure_static, legacy

__all__ = ["CompiledProgram", "BuildStrategy", "ExecutionStrategy", "ParallelExecutor"]

class _GradientScaleStrategy(object):
    """1.8's ``BuildStrategy.GradientScaleStrategy`` values (gone in 3.x)."""
    CoeffNumDevice = 0
    One = 1
    Customized = 2


@legacy("paddle.fluid.BuildStrategy", "paddle.fluid.compiler.BuildStrategy",
        "paddle.fluid.core.ParallelExecutor.BuildStrategy")
class BuildStrategy(paddle.static.BuildStrategy):
    """Today's ``BuildStrategy`` plus the 1.8 attributes 3.3.1 removed
    (``enable_sequential_execution``, ``remove_unnecessary_lock``, ``is_distribution``,
    ``gradient_scale_strategy``; setting them raised AttributeError): kept with their 1.8.5
    defaults and ignored, as the compiled program runs as its plain program on one
    device."""

    GradientScaleStrategy = _GradientScaleStrategy

    def __init__(self):
        super().__init__()
        self.enable_sequential_execution = False
        self.remove_unnecessary_lock = True
        self.is_distribution = False
        self.gradient_scale_strategy = _GradientScaleStrategy.CoeffNumDevice


@legacy("paddle.fluid.ExecutionStrategy", "paddle.fluid.compiler.ExecutionStrategy")
class ExecutionStrategy(object):
    """1.x executor tuning knobs; accepted and kept, today's executor chooses itself."""

    def __init__(self):
        self.num_threads = 0
        self.num_iteration_per_drop_scope = 100
        self.num_iteration_per_run = 1
        self.use_thread_barrier = False
        self.allow_op_delay = False


@legacy("paddle.fluid.CompiledProgram", "paddle.fluid.compiler.CompiledProgram")
class CompiledProgram(object):
    """``CompiledProgram(program_or_graph, build_strategy=None)``: runs as the plain
    program (single process); ``with_data_parallel`` returns ``self``."""

    def __init__(self, program_or_graph, build_strategy=None):
        ensure_static()
        self._program = program_or_graph
        self._build_strategy = build_strategy
        self._exec_strategy = None
        self._places = None
        self._loss_name = None

    def with_data_parallel(self, loss_name=None, build_strategy=None, exec_strategy=None,
                           share_vars_from=None, places=None):
        self._loss_name = loss_name
        if build_strategy is not None:
            self._build_strategy = build_strategy
        self._exec_strategy = exec_strategy
        self._places = places
        return self

    def with_inference_optimize(self, config):
        return self

    def __getattr__(self, name):
        if name.startswith("_"):
            raise AttributeError(name)
        return getattr(self._program, name)


_lazy.attach(globals())


@legacy("paddle.fluid.memory_optimize", "paddle.fluid.transpiler.memory_optimize",
        "paddle.fluid.transpiler.memory_optimization_transpiler.memory_optimize",
        replacement="(nothing: delete the call)")
def memory_optimize(input_program, skip_opt_set=None, print_log=False, level=0, skip_grads=True):
    """A no-op already in 1.8.5 (deprecated since 1.6: it only logged a warning)."""
    return None


@legacy("paddle.fluid.release_memory", "paddle.fluid.transpiler.release_memory",
        "paddle.fluid.transpiler.memory_optimization_transpiler.release_memory",
        replacement="(nothing: delete the call)")
def release_memory(input_program, skip_opt_set=None):
    """A no-op already in 1.8.5 (deprecated since 1.6: it only logged a warning)."""
    return None


@legacy("paddle.fluid.ParallelExecutor", "paddle.fluid.parallel_executor.ParallelExecutor")
class ParallelExecutor(object):
    """1.8's ``ParallelExecutor`` was a ``CompiledProgram(main_program).with_data_parallel``
    run by an ``Executor`` in ``scope`` (the global scope by default): here it runs the plain
    program in this process, as ``CompiledProgram`` does (one process per device today)."""

    def __init__(self, use_cuda, loss_name=None, main_program=None, share_vars_from=None,
                 exec_strategy=None, build_strategy=None, num_trainers=1, trainer_id=0,
                 scope=None):
        ensure_static()
        from compat import device
        from compat._runtime import quiet
        from compat.fluid import executor
        if share_vars_from is not None and not isinstance(share_vars_from, ParallelExecutor):
            raise TypeError("The share_vars_from should be ParallelExecutor.")
        with quiet():   # the 1.x names used here are the caller's ParallelExecutor
            self._places = device.cuda_places() if use_cuda else device.cpu_places()
            self._scope = scope if scope is not None else paddle.static.global_scope()
            self._program = main_program if main_program is not None \
                else paddle.static.default_main_program()
            self._exe = executor.Executor(device.CUDAPlace(0) if use_cuda else device.CPUPlace())

    def run(self, fetch_list, feed=None, feed_dict=None, return_numpy=True):
        return self._exe.run(program=self._program, scope=self._scope,
                             feed=feed if feed is not None else feed_dict,
                             fetch_list=fetch_list, return_numpy=return_numpy)

    @property
    def device_count(self):
        return len(self._places)

    def drop_local_exe_scopes(self):
        """Local execution scopes belonged to the multi-device executor: nothing to drop."""
