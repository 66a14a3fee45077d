"""Two of libcst's code-generation context managers as plain classes (same calls, same
order, same output): every expression's ``_parenthesize`` and the base code generator's
``record_syntactic_position`` are ``@contextmanager`` generators, set up and driven for
each expression node that code generation writes (the rewritten module, statement
positions, the code quoted in messages): about 4% of the engine's instructions.

Installed only over the exact functions they replace (their bytecode is checked: another
libcst version keeps its own). ``PADDLE_UPGRADE_NO_CST_FAST=1`` leaves libcst as it is
(the reference behaviour, tests/test_cstfast.py).
"""
from __future__ import annotations

import hashlib
import os

from libcst._nodes import expression as _expression
from libcst._nodes import internal as _internal

_Parenthesized = _expression._BaseParenthesizedNode
_CodegenState = _internal.CodegenState

#: the libcst 1.x generators these replace (bytecode and names, this interpreter's)
_KNOWN = {
    "record_syntactic_position": {"7c18f46b5a40cbe7734a1ee3ca6b3d9efaa996dc"},
    "_parenthesize": {"5ac391892917e793c62a5de718b0416214abf830"},
}


def _digest(f) -> str:
    code = getattr(f, "__wrapped__", f).__code__
    return hashlib.sha1(code.co_code + repr(code.co_names).encode()).hexdigest()


class _NoPosition:
    """``CodegenState.record_syntactic_position``: records nothing."""

    __slots__ = ()

    def __enter__(self) -> None:
        return None

    def __exit__(self, typ, val, tb) -> bool:
        return False


_NO_POSITION = _NoPosition()


def _record_syntactic_position(self, node, *, start_node=None, end_node=None):
    return _NO_POSITION


class _Parens:
    """``_BaseParenthesizedNode._parenthesize``: the left parentheses, the node's
    syntactic position around its body, the right parentheses (not after an error, which
    the generator did not swallow either)."""

    __slots__ = ("node", "state", "inner")

    def __init__(self, node, state) -> None:
        self.node = node
        self.state = state

    def __enter__(self) -> None:
        state = self.state
        for lpar in self.node.lpar:
            lpar._codegen(state)
        self.inner = state.record_syntactic_position(self.node)
        self.inner.__enter__()

    def __exit__(self, typ, val, tb) -> bool:
        suppressed = self.inner.__exit__(typ, val, tb)
        if typ is not None and not suppressed:
            return False
        state = self.state
        for rpar in self.node.rpar:
            rpar._codegen(state)
        return typ is not None


def _parenthesize(self, state):
    return _Parens(self, state)


_ORIGINAL = {"record_syntactic_position": _CodegenState.record_syntactic_position,
             "_parenthesize": _Parenthesized._parenthesize}


def install() -> bool:
    """Put the classes in place when libcst has the expected generators; whether it did."""
    if os.environ.get("PADDLE_UPGRADE_NO_CST_FAST") == "1":
        return False
    if any(_digest(_ORIGINAL[name]) not in digests for name, digests in _KNOWN.items()):
        return False
    _CodegenState.record_syntactic_position = _record_syntactic_position  # type: ignore[method-assign]
    _Parenthesized._parenthesize = _parenthesize  # type: ignore[method-assign]
    return True


def uninstall() -> None:
    """libcst's own generators back (tests)."""
    _CodegenState.record_syntactic_position = _ORIGINAL["record_syntactic_position"]  # type: ignore[method-assign]
    _Parenthesized._parenthesize = _ORIGINAL["_parenthesize"]  # type: ignore[method-assign]


INSTALLED = install()
