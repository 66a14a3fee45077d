"""``python -m compat SCRIPT [ARGS...]``: run a legacy script as ``__main__``."""
from __future__ import annotations

import os
import runpy
import sys
import traceback

USAGE = """usage: python -m compat SCRIPT [ARGS...]

Run an unmodified Paddle 1.x (paddle.fluid) script on today's Paddle.
Environment: PADDLE_COMPAT_DEVICE=auto|strict (what to do when the script asks for a
device that is not there: fall back to CPU with one warning, or raise).
"""


def _exit_code(code) -> int:
    if code is None:
        return 0
    if isinstance(code, bool):
        return int(code)
    if isinstance(code, int):
        return code
    sys.stderr.write("%s\n" % (code,))
    return 1


def _user_traceback(exc: BaseException, script: str) -> None:
    """Print the traceback starting at the script's first frame (no runner frames)."""
    tb = exc.__traceback__
    start = tb
    while tb is not None:
        if os.path.abspath(tb.tb_frame.f_code.co_filename) == script:
            start = tb
            break
        tb = tb.tb_next
    traceback.print_exception(type(exc), exc, start)


def _children_get_the_shim(here: str) -> None:
    """Python processes the script starts (multiprocessing spawn children, subprocess runs)
    install compat on their first ``import paddle`` (compat/_autoload/sitecustomize.py)."""
    autoload = os.path.join(here, "compat", "_autoload")
    parts = [autoload, here] + [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep)
                                if p and p not in (autoload, here)]
    os.environ["PYTHONPATH"] = os.pathsep.join(parts)
    os.environ["PADDLE_COMPAT_CHILD"] = "1"


def _warn_shadowed_project_module(script_dir: str, ours: str) -> None:
    """A project module named ``compat`` next to the script cannot be imported under the
    shim (``import compat`` gives the shim, loaded first): say so before the script runs,
    instead of a puzzling AttributeError later."""
    for cand in (os.path.join(script_dir, "compat.py"),
                 os.path.join(script_dir, "compat", "__init__.py")):
        if os.path.exists(cand) and os.path.realpath(os.path.dirname(cand)) != os.path.realpath(ours) \
                and os.path.realpath(cand) != os.path.realpath(os.path.join(ours, "__init__.py")):
            sys.stderr.write(
                "python -m compat: warning: %s is shadowed: while the shim runs, `import compat` "
                "gives paddle-upgrade's compat package, not this module. Rename it (and its "
                "imports), or upgrade the code with `paddle-upgrade fix` and run it without the "
                "shim.\n" % cand)
            return


def run_script(path: str, argv) -> int:
    script = os.path.abspath(path)
    if not os.path.exists(script):
        sys.stderr.write("python -m compat: can't open file %r: No such file or directory\n" % path)
        return 2
    import compat
    here = os.path.dirname(os.path.dirname(os.path.abspath(compat.__file__)))
    sys.argv = [path] + list(argv)
    # Paddle, the shim and the rule database are loaded before the script's directory
    # leads the import path: a project module named like one of ours (upgrader.py,
    # compat.py, dl.py ...) must not replace it, nor ours the project's later
    if sys.path:
        sys.path[0] = here
    else:
        sys.path.insert(0, here)
    compat.install()
    from compat import _runtime
    _runtime.book()
    _children_get_the_shim(here)
    for name in [n for n in sys.modules if n == "upgrader" or n.startswith("upgrader.")]:
        del sys.modules[name]  # loaded once; the script may have an `upgrader` of its own
    sys.path[0] = os.path.dirname(script)
    _warn_shadowed_project_module(sys.path[0], os.path.dirname(os.path.abspath(compat.__file__)))
    if here not in sys.path:  # keep compat/upgrader importable from a source checkout
        sys.path.append(here)
    try:
        runpy.run_path(script, run_name="__main__")
    except SystemExit as exc:
        return _exit_code(exc.code)
    except KeyboardInterrupt:
        _user_traceback(sys.exc_info()[1], script)
        return 130
    except BaseException as exc:  # noqa: B902 - report like the interpreter does
        _user_traceback(exc, script)
        return 1
    finally:
        try:
            sys.stdout.flush()
        except Exception:  # pragma: no cover
            pass
    return 0


def main(argv=None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv and argv[0] == "--":
        argv = argv[1:]
    if not argv or argv[0] in ("-h", "--help"):
        sys.stdout.write(USAGE)
        return 0 if argv else 2
    return run_script(argv[0], argv[1:])
