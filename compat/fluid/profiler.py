"""``paddle.fluid.profiler`` (1.8) on ``paddle.profiler.Profiler``.

1.8's profiler recorded the operators run between start and stop, printed a summary table
sorted by ``sorted_key`` and wrote the profile to ``profile_path``. Here the same calls
drive one ``paddle.profiler.Profiler`` (CPU, plus GPU for 'GPU'/'All' on a CUDA build): the
summary is printed at the stop and the trace is exported to ``profile_path`` as JSON
(today's format; 1.8 wrote its own protobuf). The program's results do not depend on it.
``cuda_profiler`` (nvprof) stays a manual rule.
"""
from __future__ import annotations

import contextlib

import paddle

from compat import _lazy
from compat._runtime import legacy

__all__ = ["profiler", "start_profiler", "stop_profiler", "reset_profiler"]

_STATE = {"prof": None, "targets": None}
_SORTED = {"calls": "CPUTotal", "total": "CPUTotal", "max": "CPUMax", "min": "CPUMin",
           "ave": "CPUAvg"}


def _targets(state):
    if state not in ("CPU", "GPU", "All"):
        raise ValueError("The state must be 'CPU' or 'GPU' or 'All'.")
    targets = [paddle.profiler.ProfilerTarget.CPU]
    if state != "CPU" and paddle.is_compiled_with_cuda():
        targets.append(paddle.profiler.ProfilerTarget.GPU)
    return targets


def _start(targets):
    prof = paddle.profiler.Profiler(targets=targets)
    prof.start()
    _STATE["prof"], _STATE["targets"] = prof, targets


@legacy("paddle.fluid.profiler.start_profiler",
        replacement="paddle.profiler.Profiler(targets=[...]).start()")
def start_profiler(state, tracer_option="Default"):
    if tracer_option not in ("Default", "OpDetail", "AllOpDetail"):
        raise ValueError("tracer option must be 'Default', 'OpDetail', 'AllOpDetail'.")
    targets = _targets(state)
    if _STATE["prof"] is not None:  # 1.8: a second start while profiling did nothing
        return
    _start(targets)


@legacy("paddle.fluid.profiler.stop_profiler",
        replacement="prof.stop(); prof.summary(sorted_by=...); prof.export(path)")
def stop_profiler(sorted_key=None, profile_path="/tmp/profile"):
    prof = _STATE["prof"]
    if prof is None:
        return
    if sorted_key not in (None, "calls", "total", "max", "min", "ave"):
        raise ValueError("The sorted_key must be None or in 'calls', 'total', "
                         "'max', 'min' and 'ave'")
    _STATE["prof"] = None
    prof.stop()
    key = _SORTED.get(sorted_key)
    prof.summary(**({"sorted_by": getattr(paddle.profiler.SortedKeys, key)} if key else {}))
    try:
        prof.export(profile_path, format="json")
    except Exception:  # pragma: no cover - an unwritable path: 1.8 only logged it too
        pass


@legacy("paddle.fluid.profiler.reset_profiler",
        replacement="a paddle.profiler.Profiler scheduler that skips the first steps")
def reset_profiler():
    """1.8 dropped what had been recorded so far: the running profiler is replaced."""
    prof = _STATE["prof"]
    if prof is None:
        return
    prof.stop()
    _STATE["prof"] = prof = None  # today's profiler is a singleton: release it first
    _start(_STATE["targets"])


@legacy("paddle.fluid.profiler.profiler",
        replacement="with paddle.profiler.Profiler(targets=[...]) as prof: ...; prof.summary()")
@contextlib.contextmanager
def profiler(state, sorted_key=None, profile_path="/tmp/profile", tracer_option="Default"):
    start_profiler(state, tracer_option)
    try:
        yield
    finally:
        stop_profiler(sorted_key, profile_path)


_lazy.attach(globals())
