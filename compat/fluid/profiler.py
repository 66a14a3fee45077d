"""``paddle.fluid.profiler`` (1.8) on ``paddle.profiler.Profiler``: the calls run
``_FluidProfiler``, the class ``fix`` adds to upgraded modules (upgrader/fixers/profiler_calls.py).

1.8's profiler recorded the operators run between start and stop, printed a summary table
sorted by ``sorted_key`` and wrote the profile to ``profile_path``. Here the same calls
drive one ``paddle.profiler.Profiler`` (CPU, plus GPU for 'GPU'/'All' on a CUDA build): the
summary is printed at the stop and the trace is exported to ``profile_path`` as JSON
(today's format; 1.8 wrote its own protobuf). The program's results do not depend on it.
``cuda_profiler`` (nvprof) stays a manual rule.
"""
from __future__ import annotations

from compat import _lazy
from compat._added import added
from compat._runtime import legacy

__all__ = ["profiler", "start_profiler", "stop_profiler", "reset_profiler"]


def _profiler():
    return added("profiler_calls", "_FluidProfiler")


@legacy("paddle.fluid.profiler.start_profiler",
        replacement="paddle.profiler.Profiler(targets=[...]).start()")
def start_profiler(state, tracer_option="Default"):
    return _profiler().start_profiler(state, tracer_option)


@legacy("paddle.fluid.profiler.stop_profiler",
        replacement="prof.stop(); prof.summary(sorted_by=...); prof.export(path)")
def stop_profiler(sorted_key=None, profile_path="/tmp/profile"):
    return _profiler().stop_profiler(sorted_key, profile_path)


@legacy("paddle.fluid.profiler.reset_profiler",
        replacement="a paddle.profiler.Profiler scheduler that skips the first steps")
def reset_profiler():
    """1.8 dropped what had been recorded so far: the running profiler is replaced."""
    return _profiler().reset_profiler()


@legacy("paddle.fluid.profiler.profiler",
        replacement="with paddle.profiler.Profiler(targets=[...]) as prof: ...; prof.summary()")
def profiler(state, sorted_key=None, profile_path="/tmp/profile", tracer_option="Default"):
    return _profiler().profiler(state, sorted_key, profile_path, tracer_option)


_lazy.attach(globals())
