"""Shared runtime state of the shim: the rule book, warn-once, hand-written registry,
and the 1.x graph mode (static by default, dygraph inside ``dygraph.guard``).
"""
from __future__ import annotations

import functools
import threading
import warnings
from typing import Any, Callable, Dict, Optional

from compat import LegacyAPIError, LegacyAPIWarning

# -- the rule book -------------------------------------------------------------------

_book = None
_book_lock = threading.Lock()


def book():
    """The rule database (loaded once, lazily). A broken rule file does not stop a
    legacy program: the shim then works from its hand-written part only."""
    global _book
    if _book is None:
        with _book_lock:
            if _book is None:
                try:
                    from upgrader import rulebook
                    _book = rulebook.load()
                except Exception as exc:  # pragma: no cover - depends on others' files
                    warnings.warn("compat: the rule database could not be loaded (%s); only "
                                  "hand-written legacy APIs are available" % exc, RuntimeWarning)
                    from upgrader.rulebook import RuleBook
                    _book = RuleBook({}, {}, "")
    return _book


#: entries the wrappers were built from (their rule book may not be the default one)
built_from = {}


def entry(name: str):
    return built_from.get(name) or book().lookup(name)


def short(name: str) -> str:
    return name[len("paddle."):] if name.startswith("paddle.fluid") else name


# -- warn once -----------------------------------------------------------------------

_warned: set = set()


def message(name: str, replacement: Optional[str] = None) -> str:
    e = entry(name)
    code = e.code if e is not None else "PU001"
    target = replacement or (e.target if e is not None else "")
    text = "%s is a Paddle 1.x API [%s]" % (short(name), code)
    if target:
        text += "; use %s" % target
    note = (e.note if e is not None else "").strip()
    if note:
        first = note.split(". ")[0].rstrip(".")
        text += " (%s)" % first
    return text


_quiet = [0]


class quiet(object):
    """Internal use of a legacy class/function: no LegacyAPIWarning for it."""

    def __enter__(self):
        _quiet[0] += 1

    def __exit__(self, *exc):
        _quiet[0] -= 1
        return False


def warn_once(name: str, replacement: Optional[str] = None, stacklevel: int = 3) -> None:
    if name in _warned or _quiet[0]:
        return
    _warned.add(name)
    try:
        warnings.warn(message(name, replacement), LegacyAPIWarning, stacklevel=stacklevel)
    except LegacyAPIWarning:  # -W error::DeprecationWarning: let the user see it raise
        raise


def manual_error(name: str, detail: str = "", entry=None) -> LegacyAPIError:
    e = entry if entry is not None else globals()["entry"](name)
    code = e.code if e is not None else "PU102"
    text = "%s [%s] has no faithful equivalent on Paddle %s" % (short(name), code, _paddle_version())
    if detail:
        text += ": " + detail
    note = (e.note if e is not None else "").strip()
    if note:
        text += ". How to migrate: " + note
    return LegacyAPIError(text)


def _paddle_version() -> str:
    try:
        import paddle
        return paddle.__version__
    except Exception:  # pragma: no cover
        return "today"


# -- hand-written implementations ----------------------------------------------------

#: legacy dotted name -> hand-written object (function or class)
registry: Dict[str, Any] = {}


def legacy(name: str, *aliases: str, replacement: Optional[str] = None,
           warn: bool = True) -> Callable:
    """Register a hand-written 1.x implementation under its legacy dotted name(s).

    Functions get a thin wrapper that warns once per name; classes warn once on the
    first instantiation (of the class or a user subclass).
    """
    def deco(obj):
        if isinstance(obj, type):
            if warn:
                init = obj.__dict__.get("__init__")
                if init is not None:
                    @functools.wraps(init)
                    def __init__(self, *a, **k):
                        if name not in _warned:
                            warn_once(name, replacement)
                        init(self, *a, **k)
                    obj.__init__ = __init__
                else:
                    new = obj.__dict__.get("__new__")
                    if new is not None:
                        fn = new.__func__ if isinstance(new, staticmethod) else new

                        @functools.wraps(fn)
                        def __new__(cls, *a, **k):
                            if name not in _warned:
                                warn_once(name, replacement)
                            return fn(cls, *a, **k)
                        obj.__new__ = staticmethod(__new__)
            obj.__compat_legacy__ = name
            out = obj
        else:
            if warn:
                out = _fast_wrapper(obj, name, replacement)
            else:
                out = obj
        for n in (name,) + aliases:
            registry[n] = out
        return out
    return deco


def _fast_wrapper(fn, name, replacement):
    """A warn-once wrapper with *fn*'s own signature (no ``*args``/``**kwargs`` packing
    per call: the shim must stay cheap around fast eager ops)."""
    import inspect
    try:
        sig = inspect.signature(fn)
    except (TypeError, ValueError):
        sig = None
    ns = {"_fn": fn, "_name": name, "_warned": _warned, "_warn_once": warn_once,
          "_repl": replacement}
    params, call = [], []
    if sig is not None:
        star = False
        for i, p in enumerate(sig.parameters.values()):
            if p.kind == p.VAR_POSITIONAL:
                params.append("*" + p.name)
                call.append("*" + p.name)
                star = True
                continue
            if p.kind == p.VAR_KEYWORD:
                params.append("**" + p.name)
                call.append("**" + p.name)
                continue
            if p.kind == p.KEYWORD_ONLY and not star:
                params.append("*")
                star = True
            if p.default is p.empty:
                params.append(p.name)
            else:
                ns["_d%d" % i] = p.default
                params.append("%s=_d%d" % (p.name, i))
            call.append(("%s=%s" % (p.name, p.name)) if p.kind == p.KEYWORD_ONLY else p.name)
    else:
        params, call = ["*args", "**kwargs"], ["*args", "**kwargs"]
    fname = fn.__name__ if fn.__name__.isidentifier() else "legacy_call"
    src = ("def %s(%s):\n    if _name not in _warned: _warn_once(_name, _repl, 3)\n"
           "    return _fn(%s)\n" % (fname, ", ".join(params), ", ".join(call)))
    exec(compile(src, fn.__code__.co_filename if hasattr(fn, "__code__") else "<compat>", "exec"), ns)
    wrapper = functools.update_wrapper(ns[fname], fn)
    wrapper.__compat_legacy__ = name
    wrapper.__compat_impl__ = fn
    return wrapper


# -- graph mode ----------------------------------------------------------------------

class _ModeState(threading.local):
    def __init__(self):
        self.explicit_dygraph = 0   # depth of dygraph.guard / enable_dygraph


mode_state = _ModeState()


def ensure_static() -> None:
    """1.x programs are static unless they entered dygraph: switch on first use of a
    static-only API (Program, program_guard, data, Executor, ...)."""
    import paddle
    if paddle.in_dynamic_mode() and not mode_state.explicit_dygraph:
        paddle.enable_static()


def in_dygraph_mode() -> bool:
    import paddle
    return paddle.in_dynamic_mode()


def to_1x_shape(out):
    """Paddle 1.x had no 0-d tensors: reductions returned shape [1]."""
    try:
        shape = out.shape
    except AttributeError:
        return out
    if shape is not None and len(shape) == 0:
        import paddle
        return paddle.reshape(out, [1])
    return out
