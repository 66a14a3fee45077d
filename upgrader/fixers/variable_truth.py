"""PU219 variable-truth-test: a static-graph Variable (or None) tested for truth.

What it does
    In a module that builds static graphs (and has no dynamic-mode code), the truth test
    of a name that the tested code adds to something (the residual connection and the
    attention bias of the 1.x transformer, ERNIE and BERT models):
    ``out = out + prev_out if prev_out else out`` →
    ``out = out + prev_out if prev_out is not None else out``, and
    ``if attn_bias: product += attn_bias`` → ``if attn_bias is not None: ...``.
    Only a bare name is rewritten, and only when the branch taken on a true test uses it
    as an operand of ``+`` or ``-`` (``a + n``, ``n - a``, ``a += n``, ``a -= n``).

Why is this bad?
    1.8's static ``Variable`` had no ``__bool__``: every Variable was true, so
    ``if prev_out`` meant "a Variable was passed, not None". A PIR ``Value`` (Paddle 3's
    static graphs) raises TypeError in a truth test ("bool(Tensor) is not supported in
    static graph mode"; checked on 1.8.5 and 3.3.1): the upgraded program fails while it
    builds the network although every API in it was rewritten.

Example
    ``out = out + prev_out if prev_out else out`` →
    ``out = out + prev_out if prev_out is not None else out``.

Fix safety
    Safe: the name is None or a Variable in such code, for which ``is not None`` is
    1.8's answer. It differs only for another false value, and the rewrite limits that to
    additive uses: a false number (0, 0.0, False) added or subtracted changes nothing, and
    a false container or string cannot be added to a Variable. Dygraph code is left alone:
    1.8's ``VarBase`` did have a value-based truth test (one element), as today's
    ``Tensor`` has.
"""
from __future__ import annotations

import ast

import libcst as cst

CODE = "PU219"
LEGACY = "paddle.fluid.Variable"
MESSAGE = ("`{form}{name}` → `{form}{name} is not None`: a 1.8 static Variable was always true (no "
           "__bool__), a PIR Value raises TypeError in a truth test; the name is None or a "
           "Variable here (added to another operand)")


def _additive_names(node: ast.AST) -> set:
    """Names used as a direct operand of + / - (BinOp or AugAssign) under ``node``."""
    out = set()
    for n in ast.walk(node):
        if isinstance(n, ast.BinOp) and isinstance(n.op, (ast.Add, ast.Sub)):
            out.update(o.id for o in (n.left, n.right) if isinstance(o, ast.Name))
        elif isinstance(n, ast.AugAssign) and isinstance(n.op, (ast.Add, ast.Sub)) \
                and isinstance(n.value, ast.Name):
            out.add(n.value.id)
    return out


def _candidates(up) -> set:
    """Names the module truth-tests in the forms this rule rewrites (an ``ast`` pass, once
    per module); empty outside static-graph modules."""
    cached = getattr(up, "_truth_names", None)
    if cached is not None:
        return cached
    cached = up._truth_names = set()
    if not up.opts.enabled(CODE) or "fluid" not in up.source:
        return cached
    try:
        tree = ast.parse(up.source)
    except SyntaxError:
        return cached
    for n in ast.walk(tree):
        if isinstance(n, ast.IfExp) and isinstance(n.test, ast.Name) \
                and n.test.id in _additive_names(n.body):
            cached.add(n.test.id)
        elif isinstance(n, ast.If) and isinstance(n.test, ast.Name) \
                and n.test.id in set().union(*(_additive_names(s) for s in n.body)):
            cached.add(n.test.id)
    if cached:
        from upgrader.fixers.static_dropout import static_only
        if not static_only(up):
            cached.clear()
    return cached


def _cst_additive(node: cst.CSTNode, name: str) -> bool:
    found = []

    class _Find(cst.CSTVisitor):
        def visit_BinaryOperation(self, n):
            if isinstance(n.operator, (cst.Add, cst.Subtract)) and any(
                    isinstance(o, cst.Name) and o.value == name for o in (n.left, n.right)):
                found.append(n)

        def visit_AugAssign(self, n):
            if isinstance(n.operator, (cst.AddAssign, cst.SubtractAssign)) \
                    and isinstance(n.value, cst.Name) and n.value.value == name:
                found.append(n)

    node.visit(_Find())
    return bool(found)


def _is_not_none(test: cst.Name) -> cst.Comparison:
    return cst.Comparison(left=test, comparisons=[cst.ComparisonTarget(
        operator=cst.IsNot(), comparator=cst.Name("None"))])


class _IfExps(cst.CSTTransformer):
    def __init__(self, names):
        self.names = names
        self.hits = []

    def leave_IfExp(self, original, updated):
        t = updated.test
        if isinstance(t, cst.Name) and t.value in self.names and _cst_additive(updated.body, t.value):
            self.hits.append(t.value)
            return updated.with_changes(test=_is_not_none(t))
        return updated


def leave_statement(up, original, updated):
    names = _candidates(up)
    if not names:
        return updated
    if isinstance(updated, cst.If):
        t = updated.test
        if isinstance(t, cst.Name) and t.value in names and _cst_additive(updated.body, t.value) \
                and not up.suppressed_node(original, CODE):
            up.report(original, CODE, MESSAGE.format(form="if ", name=t.value), LEGACY, "", "safe",
                      applied=True)
            return updated.with_changes(test=_is_not_none(t))
        return updated
    if not isinstance(updated, cst.SimpleStatementLine):
        return updated
    finder = _IfExps(names)
    new = updated.visit(finder)
    if not finder.hits or up.suppressed_node(original, CODE):
        return updated
    for name in finder.hits:
        up.report(original, CODE, MESSAGE.format(form="... if ", name=name), LEGACY, "", "safe",
                  applied=True)
    return new
