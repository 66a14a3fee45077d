"""compat: run unmodified Paddle 1.x programs on today's Paddle.

``import compat.fluid as fluid`` gives a module that behaves like Paddle 1.8's
``paddle.fluid``; :func:`install` makes ``import paddle.fluid`` (and every submodule
form) resolve to it, so legacy programs run with zero edits::

    python -m compat train.py --epochs 3
    paddle-upgrade run train.py --epochs 3

Importing this package is cheap: it does not import Paddle. :func:`install` does.
"""
from __future__ import annotations

import sys
import warnings

__all__ = [
    "LegacyAPIError", "DeviceUnavailableError", "SubclassMustDefine", "LegacyAPIWarning",
    "DeviceFallbackWarning",
    "install", "uninstall", "installed", "run_script", "launch_command",
]


class LegacyAPIError(RuntimeError):
    """A Paddle 1.x API with no faithful equivalent on today's Paddle.

    The message says what the API was, the rule code, and how to migrate.
    """


class SubclassMustDefine(NotImplementedError):
    """A method of a 1.x base class that user subclasses define (``MetricBase.update`` /
    ``eval``, ``LearningRateDecay.step``), called on a class that does not: 1.8.5 raised
    NotImplementedError there, and so does compat (this is a subclass of it)."""


class DeviceUnavailableError(RuntimeError):
    """A legacy program asked for a device this Paddle/machine does not have
    (only raised with ``PADDLE_COMPAT_DEVICE=strict``)."""


class LegacyAPIWarning(DeprecationWarning):
    """A Paddle 1.x name was used; shown once per name with the rule code and the
    modern replacement. Silence with ``-W ignore::compat.LegacyAPIWarning`` or
    ``PYTHONWARNINGS=ignore::DeprecationWarning``."""


class DeviceFallbackWarning(RuntimeWarning):
    """A requested device is not available and the program runs on CPU instead."""


def _install_warning_filter() -> None:
    # DeprecationWarning is hidden by default outside __main__; LegacyAPIWarning must
    # show. An explicit -W / PYTHONWARNINGS setting from the user wins over ours.
    if not sys.warnoptions:
        warnings.filterwarnings("default", category=LegacyAPIWarning)
        warnings.filterwarnings("default", category=DeviceFallbackWarning)


_install_warning_filter()


_installed = False


def installed() -> bool:
    return _installed


def install() -> None:
    """Make ``paddle.fluid`` (and ``paddle.fluid.*``) resolve to :mod:`compat.fluid`.

    Idempotent. Imports Paddle (as Paddle 1.x did: ``import paddle`` made
    ``paddle.fluid`` available) and puts it in 1.x's default static-graph mode.
    """
    global _installed
    import logging
    from compat import _finder
    _finder.install_alias_finder()
    # Paddle 3's import configures the root logger (a stderr handler, level INFO), which
    # turns a script's later logging.basicConfig(...) into a no-op; 1.8 left it alone
    root = logging.getLogger()
    handlers, level = list(root.handlers), root.level
    try:
        import warnings
        with warnings.catch_warnings():  # Paddle 3's import-time notice about ccache
            warnings.filterwarnings("ignore", message="No ccache found", category=UserWarning)
            import paddle  # noqa: F401
            import compat.fluid as fluid
    finally:
        root.handlers[:] = handlers
        root.setLevel(level)
    sys.modules.setdefault("paddle.fluid", fluid)
    paddle.fluid = fluid  # type: ignore[attr-defined]
    from compat import incubate_hapi  # 1.8's paddle.incubate.hapi (sampler, colour transforms)
    incubate_hapi.install()
    _installed = True


def uninstall() -> None:
    """Remove the ``paddle.fluid`` alias (tests use this)."""
    global _installed
    from compat import _finder
    _finder.uninstall_alias_finder()
    for name in [n for n in sys.modules if n == "paddle.fluid" or n.startswith("paddle.fluid.")]:
        del sys.modules[name]
    paddle = sys.modules.get("paddle")
    if paddle is not None and hasattr(paddle, "fluid"):
        try:
            delattr(paddle, "fluid")
        except AttributeError:
            pass
    _installed = False


def run_script(path: str, argv=None) -> int:
    """Run the legacy script *path* as ``__main__`` with the shim installed.

    ``sys.argv`` becomes ``[path, *argv]`` and ``sys.path[0]`` the script's directory,
    as for ``python path``. Returns the script's exit code (0, the ``SystemExit`` code,
    or 1 after printing the traceback of an uncaught exception).
    """
    from compat._runner import run_script as _run
    return _run(path, list(argv or []))


def launch_command(script: str, argv=None, nproc_per_node: int = 1, launch_args=()):
    """The command line that runs *script* under ``paddle.distributed.launch`` with the
    shim installed in every worker (see :mod:`compat.launch`)."""
    from compat.launch import command
    return command(script, list(argv or []), nproc_per_node, list(launch_args))
