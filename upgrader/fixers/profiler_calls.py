"""PU101 profiler: ``fluid.profiler.profiler`` / ``start_profiler`` / ``stop_profiler`` /
``reset_profiler`` become methods of ``_FluidProfiler``, a class fix adds to the module
that drives one ``paddle.profiler.Profiler`` with 1.8's calls.

What it does
    ``with fluid.profiler.profiler('CPU', 'total', path):`` becomes
    ``with _FluidProfiler.profiler('CPU', 'total', path):``; ``start_profiler(state)``,
    ``stop_profiler(sorted_key, profile_path)`` and ``reset_profiler()`` become
    ``_FluidProfiler.start_profiler(...)`` and so on: the same arguments (1.8's
    signatures), the class added once after the module's imports. It keeps 1.8's
    behaviour around the profiler: a start while profiling does nothing, a stop without a
    start does nothing, the state ('CPU', 'GPU', 'All'), the tracer option and the sorted
    key are checked with 1.8's ValueErrors, the context manager starts on entry and stops
    when the block ends (as 1.8's, not when the block raises), a reset drops what has been
    recorded so far. At the stop it prints today's summary table (sorted by CPU total time
    for 'total' and 'calls', by max / min / average for 'max' / 'min' / 'ave') and writes
    the trace to ``profile_path``.

Why is this bad?
    ``paddle.fluid.profiler`` is gone; today's profiler is the object-based
    ``paddle.profiler.Profiler`` (start/stop/summary/export), so the import fails before the
    training runs, even when the profiling is switched off by a flag.

Example
    ``with profiler.profiler('CPU', 'total', '/tmp/profile'): train_one_pass()`` →
    ``with _FluidProfiler.profiler('CPU', 'total', '/tmp/profile'): train_one_pass()``.

Fix safety
    Safe: the program computes the same (the profiler only observes; checked on 1.8.5 in
    both modes) and a file is written at ``profile_path`` as before. What changes is the
    profiler's own output: the summary table printed at the stop is today's (operators
    are PIR / phi kernels, 1.8's 'calls' order has no key today and sorts by total time),
    and the file is today's Chrome-tracing JSON (open it in chrome://tracing or Perfetto),
    not 1.8's protobuf, which only 1.8's tools/timeline.py converted, to the same JSON
    view. 'GPU' / 'All' add the GPU to the targets on a CUDA build. ``cuda_profiler``
    (nvprof) stays manual. Manual when the module already uses the name.
"""
from __future__ import annotations

import libcst as cst

CODE = "PU101"
STRUCTURAL = ("profiler",)
NAME = "_FluidProfiler"
METHODS = {
    "paddle.fluid.profiler.profiler": "profiler",
    "paddle.fluid.profiler.start_profiler": "start_profiler",
    "paddle.fluid.profiler.stop_profiler": "stop_profiler",
    "paddle.fluid.profiler.reset_profiler": "reset_profiler",
}
WHAT = "a class fix adds to the module: 1.8's profiler calls on one paddle.profiler.Profiler"
HELPERS = {"profiler": f"{NAME} ({WHAT})"}
HELPER_OF = {name: f"{NAME}.{method} ({WHAT})" for name, method in METHODS.items()}

SOURCE = '''class _FluidProfiler:
    """Paddle 1.8's fluid.profiler calls on one paddle.profiler.Profiler: start_profiler
    (state 'CPU' / 'GPU' / 'All'; a start while profiling does nothing), stop_profiler
    (prints the summary sorted by sorted_key, writes the trace to profile_path as
    Chrome-tracing JSON; nothing when not profiling), reset_profiler (drops what was
    recorded so far) and the profiler(...) context manager (start on entry, stop at the
    end of the block)."""
    _prof = None
    _targets = None
    _SORTED = {'calls': 'CPUTotal', 'total': 'CPUTotal', 'max': 'CPUMax', 'min': 'CPUMin',
               'ave': 'CPUAvg'}

    @classmethod
    def _begin(cls, targets):
        import paddle
        cls._prof = paddle.profiler.Profiler(targets=targets)
        cls._targets = targets
        cls._prof.start()

    @classmethod
    def start_profiler(cls, state, tracer_option='Default'):
        import paddle
        if cls._prof is not None:
            return
        if state not in ('CPU', 'GPU', 'All'):
            raise ValueError("The state must be 'CPU' or 'GPU' or 'All'.")
        if tracer_option not in ('Default', 'OpDetail', 'AllOpDetail'):
            raise ValueError("tracer option must be 'Default', 'OpDetail', 'AllOpDetail'.")
        targets = [paddle.profiler.ProfilerTarget.CPU]
        if state != 'CPU' and paddle.is_compiled_with_cuda():
            targets.append(paddle.profiler.ProfilerTarget.GPU)
        cls._begin(targets)

    @classmethod
    def stop_profiler(cls, sorted_key=None, profile_path='/tmp/profile'):
        import paddle
        prof = cls._prof
        if prof is None:
            return
        if sorted_key not in (None, 'default', 'calls', 'total', 'max', 'min', 'ave'):
            raise ValueError("The sorted_key must be None or in 'calls', 'total', "
                             "'max', 'min' and 'ave'")
        cls._prof = None  # today's profiler is one per process: released before the next
        prof.stop()
        key = cls._SORTED.get(sorted_key)
        if key is None:
            prof.summary()
        else:
            prof.summary(sorted_by=getattr(paddle.profiler.SortedKeys, key))
        prof.export(profile_path, format='json')

    @classmethod
    def reset_profiler(cls):
        prof = cls._prof
        if prof is None:
            return
        cls._prof = None
        prof.stop()
        del prof
        cls._begin(cls._targets)

    @classmethod
    def profiler(cls, state, sorted_key=None, profile_path='/tmp/profile',
                 tracer_option='Default'):
        import contextlib

        @contextlib.contextmanager
        def profiling():
            cls.start_profiler(state, tracer_option)
            yield
            cls.stop_profiler(sorted_key, profile_path)
        return profiling()
'''
SOURCES = {NAME: SOURCE}


def rewrite_call(up, original: cst.Call, updated: cst.Call, entry):
    from upgrader.fixers import call_added_function
    return call_added_function(up, original, updated, entry, NAME, SOURCE, WHAT,
                               method=METHODS[entry.name])


def finish_module(up, module: cst.Module) -> cst.Module:
    """Add the class the rewrites call after the module's docstring and imports."""
    from upgrader.fixers import add_used_helpers
    return add_used_helpers(up, module, SOURCES)
