"""libcst's hottest helpers, the same calls in the same order and the same output, with
less interpreter work:

* code generation: every expression's ``_parenthesize`` and the base code generator's
  ``record_syntactic_position`` are ``@contextmanager`` generators, set up and driven for
  each expression node written (the rewritten module, statement positions, the code
  quoted in messages); here they are plain context-manager classes (-4% of the engine's
  instructions);
* the walk: ``CSTNode.visit``, ``visit_required`` and ``visit_iterable`` check each
  visitor and each returned node with ``isinstance`` against abstract classes (a Python
  level ``__instancecheck__`` per call, several per node); here a returned node whose
  exact type is a known node class skips the checks it always passes, and whether a
  visitor is a read-only ``CSTVisitor`` is remembered on the visitor's class (-5%).

Installed only over the exact functions they replace (their bytecode is checked: another
libcst version keeps its own). ``PADDLE_UPGRADE_NO_CST_FAST=1`` leaves libcst as it is
(the reference behaviour, tests/test_cstfast.py).
"""
from __future__ import annotations

import hashlib
import os

import sys

from libcst._flatten_sentinel import FlattenSentinel
from libcst._nodes import base as _base
from libcst._nodes import expression as _expression
from libcst._nodes import internal as _internal
from libcst._removal_sentinel import RemovalSentinel
from libcst._visitors import CSTVisitor

_Parenthesized = _expression._BaseParenthesizedNode
_CodegenState = _internal.CodegenState

#: the libcst 1.x generators these replace (bytecode and names, this interpreter's)
_KNOWN = {
    "record_syntactic_position": {"7c18f46b5a40cbe7734a1ee3ca6b3d9efaa996dc"},
    "_parenthesize": {"5ac391892917e793c62a5de718b0416214abf830"},
    "visit": {"e206750f449e547814315bc149484b1fc4d4b3d5"},
    "visit_required": {"b5ec067abd2f4346fd16e4f5e3373dbd854721a7"},
    "visit_iterable": {"dc99fcbe157def6e849822d4966355c376321f28"},
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


_CSTNode = _base.CSTNode
_CSTValidationError = _base.CSTValidationError
#: exact types seen to be node classes (``isinstance(x, CSTNode)`` holds for them)
_NODE_TYPES: set = set()
#: set on a visitor class (in its own ``__dict__``): whether it is a ``CSTVisitor``, whose
#: leave hooks take the original node only (kept on the class, not in a table here: the
#: classes defined inside functions, and what their methods hold, stay collectable)
_FLAG = "_cstfast_read_only"


def _read_only(t, visitor) -> bool:
    flag = isinstance(visitor, CSTVisitor)
    if visitor.__class__ is t:  # a proxy's answer is its own
        try:
            setattr(t, _FLAG, flag)
        except (TypeError, AttributeError):
            pass
    return flag


def _visit(self, visitor):
    """``CSTNode.visit``."""
    should_visit_children = visitor.on_visit(self)
    if should_visit_children:
        with_updated_children = self._visit_and_replace_children(visitor)
    else:
        with_updated_children = self
    t = type(visitor)
    read_only = t.__dict__.get(_FLAG)
    if read_only is None:
        read_only = _read_only(t, visitor)
    if read_only:
        visitor.on_leave(self)
        leave_result = self
    else:
        leave_result = visitor.on_leave(self, with_updated_children)
    if type(leave_result) not in _NODE_TYPES:
        if not isinstance(leave_result, (_CSTNode, RemovalSentinel, FlattenSentinel)):
            raise _CSTValidationError(
                "Expected a node of type CSTNode or a RemovalSentinel, "
                + f"but got a return value of {type(leave_result).__name__}"
            )
        if isinstance(leave_result, _CSTNode):
            _NODE_TYPES.add(type(leave_result))
    return leave_result


def _visit_required(parent, fieldname, node, visitor):
    """``libcst._nodes.internal.visit_required``."""
    visitor.on_visit_attribute(parent, fieldname)
    result = node.visit(visitor)
    if type(result) not in _NODE_TYPES:
        if isinstance(result, RemovalSentinel):
            raise TypeError(
                f"We got a RemovalSentinel while visiting a {type(node).__name__}. This "
                + "node's parent does not allow it to be removed."
            )
        elif isinstance(result, FlattenSentinel):
            raise TypeError(
                f"We got a FlattenSentinel while visiting a {type(node).__name__}. This "
                + "node's parent does not allow for it to be it to be replaced with a "
                + "sequence."
            )
    visitor.on_leave_attribute(parent, fieldname)
    return result


def _visit_iterable(parent, fieldname, children, visitor):
    """``libcst._nodes.internal.visit_iterable``."""
    visitor.on_visit_attribute(parent, fieldname)
    for child in children:
        new_child = child.visit(visitor)
        if type(new_child) in _NODE_TYPES:
            yield new_child
        elif isinstance(new_child, FlattenSentinel):
            yield from new_child
        elif not isinstance(new_child, RemovalSentinel):
            yield new_child
    visitor.on_leave_attribute(parent, fieldname)


_ORIGINAL = {"record_syntactic_position": _CodegenState.record_syntactic_position,
             "_parenthesize": _Parenthesized._parenthesize,
             "visit": _CSTNode.visit,
             "visit_required": _internal.visit_required,
             "visit_iterable": _internal.visit_iterable}
_FAST = {"visit_required": _visit_required, "visit_iterable": _visit_iterable}


def _node_modules():
    """libcst's node modules, which import the walk helpers by name."""
    return [m for name, m in list(sys.modules.items())
            if name.startswith("libcst._nodes.") and m is not None]


def _set_helpers(table) -> None:
    """Point ``internal`` and every node module at ``table``'s walk helpers (in place of
    whichever of the two versions they hold)."""
    for name, f in table.items():
        others = {id(_ORIGINAL[name]), id(_FAST[name])}
        for m in _node_modules():
            if id(m.__dict__.get(name)) in others:
                setattr(m, name, f)


def install() -> bool:
    """Put the classes in place when libcst has the expected generators; whether it did."""
    if os.environ.get("PADDLE_UPGRADE_NO_CST_FAST") == "1":
        return False
    if any(_digest(_ORIGINAL[name]) not in digests for name, digests in _KNOWN.items()):
        return False
    _CodegenState.record_syntactic_position = _record_syntactic_position  # type: ignore[method-assign]
    _Parenthesized._parenthesize = _parenthesize  # type: ignore[method-assign]
    _CSTNode.visit = _visit  # type: ignore[method-assign]
    _set_helpers(_FAST)
    return True


def uninstall() -> None:
    """libcst's own functions back (tests)."""
    _CodegenState.record_syntactic_position = _ORIGINAL["record_syntactic_position"]  # type: ignore[method-assign]
    _Parenthesized._parenthesize = _ORIGINAL["_parenthesize"]  # type: ignore[method-assign]
    _CSTNode.visit = _ORIGINAL["visit"]  # type: ignore[method-assign]
    _set_helpers({name: _ORIGINAL[name] for name in _FAST})


INSTALLED = install()
