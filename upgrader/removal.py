"""Deleting a whole statement from a structural fixer without losing the layout around it.

``remove(up, original)`` returns the removal sentinel for a simple statement and hands its
leading blank lines on to the next statement of the same block (comments directly above
the deleted statement describe it and go with it);
``carry_in(up, original, updated)`` (called by every statement hook) puts them there. A
statement that was the last of its block takes its leading lines with it; an emptied
block becomes ``pass`` (libcst).
"""
from __future__ import annotations

from typing import Dict, List

import libcst as cst


def _next_siblings(up) -> Dict[int, cst.CSTNode]:
    nxt = getattr(up, "_next_statement", None)
    if nxt is not None:
        return nxt
    nxt = up._next_statement = {}

    class Blocks(cst.CSTVisitor):
        def _body(self, body):
            for a, b in zip(body, body[1:]):
                nxt[id(a)] = b

        def visit_Module(self, node):
            self._body(list(node.body))

        def visit_IndentedBlock(self, node):
            self._body(list(node.body))

    up.module.visit(Blocks())
    return nxt


def _carried(up) -> Dict[int, List[cst.EmptyLine]]:
    c = getattr(up, "_carried_lines", None)
    if c is None:
        c = up._carried_lines = {}
    return c


def remove(up, original: cst.SimpleStatementLine, updated=None):
    """Delete ``original``; its leading blank lines (as ``updated`` has them: another hook
    may have carried lines in already) move to the next statement of the block."""
    own = getattr(updated, "leading_lines", None)
    lines = _carried(up).pop(id(original), []) + [
        line for line in (original.leading_lines if own is None else own) if line.comment is None]
    if lines:
        following = _next_siblings(up).get(id(original))
        if following is not None:
            _carried(up)[id(following)] = lines
    return cst.RemovalSentinel.REMOVE


def carry_in(up, original, updated):
    """Prepend the lines of deleted statements just before ``original``."""
    c = getattr(up, "_carried_lines", None)
    if not c or id(original) not in c:
        return updated
    if isinstance(updated, cst.FlattenSentinel) and updated.nodes:
        nodes = list(updated.nodes)
        nodes[0] = carry_in(up, original, nodes[0])
        return cst.FlattenSentinel(nodes)
    if not hasattr(updated, "leading_lines"):
        return updated
    return updated.with_changes(leading_lines=c.pop(id(original)) + list(updated.leading_lines))
