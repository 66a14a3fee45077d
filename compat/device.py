"""1.x places on today's Paddle, with a device policy.

``PADDLE_COMPAT_DEVICE``:

- ``auto`` (default): a place this Paddle/machine cannot serve (``CUDAPlace(0)`` on a
  CPU-only build, a GPU id that is not there, ``XPUPlace`` without XPU) becomes
  ``CPUPlace`` and ONE :class:`compat.DeviceFallbackWarning` names what was asked for;
- ``strict``: raise :class:`compat.DeviceUnavailableError` naming the place requested
  and the devices that exist.

``Executor(place)`` and ``dygraph.guard(place)`` select the device with
``paddle.set_device``; ``cuda_places()`` honours ``FLAGS_selected_gpus`` (as 1.x did)
and ``CUDA_VISIBLE_DEVICES``; ``cpu_places()`` honours ``CPU_NUM``.
"""
from __future__ import annotations

import os
import warnings
from typing import List, Optional

from compat import DeviceFallbackWarning, DeviceUnavailableError

__all__ = ["policy", "CPUPlace", "CUDAPlace", "CUDAPinnedPlace", "XPUPlace", "cuda_places",
           "cpu_places", "cuda_pinned_places", "xpu_places", "is_compiled_with_cuda",
           "is_compiled_with_xpu", "get_cuda_device_count", "available_devices",
           "device_of", "use_place", "reset_fallback_warning"]

_fallback_warned = False


def policy() -> str:
    value = os.environ.get("PADDLE_COMPAT_DEVICE", "auto").strip().lower() or "auto"
    if value not in ("auto", "strict"):
        raise ValueError("PADDLE_COMPAT_DEVICE must be 'auto' or 'strict', not %r" % value)
    return value


def reset_fallback_warning() -> None:
    """Forget that the fallback warning was shown (tests)."""
    global _fallback_warned
    _fallback_warned = False


def is_compiled_with_cuda() -> bool:
    import paddle
    return bool(paddle.is_compiled_with_cuda())


def is_compiled_with_xpu() -> bool:
    import paddle
    return bool(paddle.is_compiled_with_xpu())


def get_cuda_device_count() -> int:
    if not is_compiled_with_cuda():
        return 0
    import paddle
    try:
        return int(paddle.device.cuda.device_count())
    except Exception:  # pragma: no cover - driver problems
        return 0


def _xpu_count() -> int:
    if not is_compiled_with_xpu():
        return 0
    import paddle
    try:
        return int(paddle.device.xpu.device_count())
    except Exception:  # pragma: no cover
        return 0


def available_devices() -> List[str]:
    out = ["cpu"]
    out += ["gpu:%d" % i for i in range(get_cuda_device_count())]
    out += ["xpu:%d" % i for i in range(_xpu_count())]
    return out


def _describe_build() -> str:
    bits = []
    if not is_compiled_with_cuda():
        bits.append("this Paddle is a CPU-only build (not compiled with CUDA)")
    elif get_cuda_device_count() == 0:
        bits.append("no CUDA device is visible (CUDA_VISIBLE_DEVICES=%r)"
                    % os.environ.get("CUDA_VISIBLE_DEVICES", ""))
    return "; ".join(bits)


def unavailable(requested: str, why: str = ""):
    """Apply the policy to a place that cannot be served: raise, or warn once and
    return ``paddle.CPUPlace()``."""
    import paddle
    exists = ", ".join(available_devices())
    reason = why or _describe_build()
    if policy() == "strict":
        raise DeviceUnavailableError(
            "%s was requested but is not available%s. Devices here: %s. "
            "(PADDLE_COMPAT_DEVICE=strict; unset it to fall back to CPU.)"
            % (requested, (": " + reason) if reason else "", exists))
    global _fallback_warned
    if not _fallback_warned:
        _fallback_warned = True
        warnings.warn("%s was requested but is not available%s; running on CPU instead "
                      "(devices here: %s). Set PADDLE_COMPAT_DEVICE=strict to make this an "
                      "error." % (requested, (" (" + reason + ")") if reason else "", exists),
                      DeviceFallbackWarning, stacklevel=_user_stacklevel())
    return paddle.CPUPlace()


_COMPAT_DIR = os.path.dirname(os.path.abspath(__file__))


def _user_stacklevel() -> int:
    """The ``stacklevel`` of the first caller outside the compat package (the user's
    line), however many compat frames (wrappers, fluid.cuda_places -> device) lie between."""
    import sys
    frame, level = sys._getframe(1), 1  # the caller of this function is level 1
    while frame is not None and os.path.abspath(frame.f_code.co_filename).startswith(_COMPAT_DIR + os.sep):
        frame, level = frame.f_back, level + 1
    return level


class _PlaceMeta(type):
    """``isinstance(p, fluid.CUDAPlace)`` checks against today's place class."""

    def __instancecheck__(cls, obj):
        real = cls._real()
        return real is not None and isinstance(obj, real)


class CPUPlace(metaclass=_PlaceMeta):
    """``fluid.CPUPlace()`` -> ``paddle.CPUPlace()``."""

    @staticmethod
    def _real():
        import paddle
        return paddle.CPUPlace

    def __new__(cls):
        import paddle
        return paddle.CPUPlace()


class CUDAPlace(metaclass=_PlaceMeta):
    """``fluid.CUDAPlace(id)``: ``paddle.CUDAPlace(id)`` when that GPU exists, else the
    device policy (CPU with one warning, or :class:`DeviceUnavailableError`)."""

    @staticmethod
    def _real():
        import paddle
        return paddle.CUDAPlace

    def __new__(cls, device_id=0):
        import paddle
        device_id = int(device_id)
        count = get_cuda_device_count()
        if device_id < 0 or device_id >= count:
            return unavailable("CUDAPlace(%d)" % device_id)
        return paddle.CUDAPlace(device_id)


class CUDAPinnedPlace(metaclass=_PlaceMeta):
    @staticmethod
    def _real():
        import paddle
        return paddle.CUDAPinnedPlace

    def __new__(cls):
        import paddle
        if get_cuda_device_count() == 0:
            return unavailable("CUDAPinnedPlace()")
        return paddle.CUDAPinnedPlace()


class XPUPlace(metaclass=_PlaceMeta):
    @staticmethod
    def _real():
        import paddle
        return paddle.XPUPlace

    def __new__(cls, device_id=0):
        import paddle
        device_id = int(device_id)
        if device_id < 0 or device_id >= _xpu_count():
            return unavailable("XPUPlace(%d)" % device_id,
                               "" if is_compiled_with_xpu() else
                               "this Paddle is not compiled with XPU support")
        return paddle.XPUPlace(device_id)


def _requested_gpu_ids() -> Optional[List[int]]:
    """GPU ids a 1.x program would use: FLAGS_selected_gpus, else the visible devices."""
    env = os.environ.get("FLAGS_selected_gpus", "").strip()
    if env:
        return [int(s) for s in env.split(",") if s.strip()]
    visible = os.environ.get("CUDA_VISIBLE_DEVICES")
    if visible is not None:
        ids = [s.strip() for s in visible.split(",") if s.strip() and s.strip() != "-1"]
        return list(range(len(ids)))  # CUDA renumbers visible devices from 0
    return None


def cuda_places(device_ids=None):
    """``fluid.cuda_places(device_ids=None)``: one ``CUDAPlace`` per id; the ids default
    to ``FLAGS_selected_gpus``, else every visible GPU (``CUDA_VISIBLE_DEVICES``)."""
    import paddle
    count = get_cuda_device_count()
    if device_ids is None:
        ids = _requested_gpu_ids()
        if ids is None:
            ids = list(range(count))
    elif isinstance(device_ids, (list, tuple)):
        ids = [int(i) for i in device_ids]
    else:
        ids = [int(device_ids)]
    missing = [i for i in ids if i < 0 or i >= count]
    if count == 0 or missing or not ids:
        what = ("cuda_places(%s) -> %s" % (
            "" if device_ids is None else repr(device_ids),
            ", ".join("gpu:%d" % i for i in (missing or ids)) or "every GPU"))
        place = unavailable(what)
        return [place] * max(1, len(ids))
    return [paddle.CUDAPlace(i) for i in ids]


def cuda_pinned_places(device_count=None):
    if get_cuda_device_count() == 0:
        place = unavailable("cuda_pinned_places(%s)" % ("" if device_count is None else device_count))
        return [place] * max(1, int(device_count or 1))
    import paddle
    n = int(device_count) if device_count is not None else _cpu_num()
    return [paddle.CUDAPinnedPlace()] * n


def xpu_places(device_ids=None):
    import paddle
    count = _xpu_count()
    ids = list(range(count)) if device_ids is None else [int(i) for i in device_ids]
    if count == 0 or any(i >= count for i in ids) or not ids:
        place = unavailable("xpu_places(%s)" % ("" if device_ids is None else device_ids),
                            "" if is_compiled_with_xpu() else
                            "this Paddle is not compiled with XPU support")
        return [place] * max(1, len(ids))
    return [paddle.XPUPlace(i) for i in ids]


def _cpu_num() -> int:
    value = os.environ.get("CPU_NUM")
    if not value:
        return 1
    return max(1, int(value))


def cpu_places(device_count=None):
    """``fluid.cpu_places(device_count=None)``: ``device_count`` or ``CPU_NUM`` (default 1)
    ``CPUPlace`` objects."""
    import paddle
    n = _cpu_num() if device_count is None else int(device_count)
    return [paddle.CPUPlace() for _ in range(n)]


def device_of(place) -> str:
    """``paddle.set_device`` string for a place (``'cpu'``, ``'gpu:0'``, ``'xpu:1'``)."""
    import paddle
    if place is None:
        return paddle.get_device()
    if isinstance(place, str):
        return place
    if isinstance(place, (list, tuple)):
        return device_of(place[0]) if place else paddle.get_device()
    if isinstance(place, paddle.CUDAPlace):
        return "gpu:%d" % place.get_device_id()
    if isinstance(place, paddle.XPUPlace):
        return "xpu:%d" % place.get_device_id()
    if isinstance(place, paddle.CUDAPinnedPlace):
        return "gpu:0"
    if isinstance(place, paddle.CPUPlace):
        return "cpu"
    text = str(place).lower()
    if "cpu" in text:
        return "cpu"
    return paddle.get_device()


def use_place(place) -> None:
    """Make *place* the current device (``Executor(place)``, ``dygraph.guard(place)``)."""
    if place is None:
        return
    import paddle
    dev = device_of(place)
    if dev != paddle.get_device():
        paddle.set_device(dev)
