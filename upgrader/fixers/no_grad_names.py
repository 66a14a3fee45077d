"""PU207 no-grad-set-names: a set of ``<var>.name``s built for ``minimize(no_grad_set=...)``
holds the variables themselves.

What it does
    In a static-graph module, a name every binding of which is an empty ``set()`` / ``[]``
    or a display of ``<var>.name``s, grown only by ``<it>.add(<var>.name)`` /
    ``<it>.append(<var>.name)`` statements and used only as the ``no_grad_set`` of
    ``.minimize(...)`` calls, loses its ``.name``s where it is built.

Why is this bad?
    1.8's ``minimize`` took the names of the variables to keep out of the backward pass
    (models/PaddleCV deeplabv3+'s ``no_grad_set.add(label_nignore.name)``). Paddle 3 builds
    static graphs in PIR: a value produced by an operator has no name
    (``ValueError: Currently, we can only get name of Value from DataOp...``, raised where
    ``.name`` is read), and ``minimize`` takes the values themselves.

Example
    ``no_grad_set = set()``; ``no_grad_set.add(mask.name)``;
    ``opt.minimize(loss, no_grad_set=no_grad_set)`` → ``no_grad_set.add(mask)``.

Fix safety
    Safe: 1.8 resolved each name to the same variable, and 3.3.1's ``minimize`` with those
    values computes the same update (checked: a gradient stopped at an intermediate value).
    A set given names as strings, or also used otherwise (printed, tested with ``in``,
    passed elsewhere), is reported as manual by the minimize check (PU207).
"""
from __future__ import annotations

import ast
from typing import Set

import libcst as cst

from upgrader import untouched

CODE = "PU207"
LEGACY = "paddle.fluid.optimizer.Optimizer.minimize"
TARGET = "paddle.optimizer.Optimizer.minimize"


def _dot_name(e) -> bool:
    """``<var>.name`` (ast) where ``<var>`` is a name, attribute or subscript."""
    return isinstance(e, ast.Attribute) and e.attr == "name" and isinstance(
        e.value, (ast.Name, ast.Attribute, ast.Subscript))


def _display(v) -> bool:
    """``set()``, ``[]``, ``{a.name, ...}``, ``[a.name, ...]``, ``set([a.name, ...])``."""
    if isinstance(v, ast.Call) and isinstance(v.func, ast.Name) and v.func.id in ("set", "list") \
            and len(v.args) <= 1 and not v.keywords:
        if not v.args:
            return True
        v = v.args[0]
    return isinstance(v, (ast.List, ast.Tuple, ast.Set)) and all(_dot_name(e) for e in v.elts)


def _no_grad_arg(call: ast.Call):
    """The ``no_grad_set`` argument of ``<x>.minimize(...)`` (keyword or 4th positional)."""
    if not (isinstance(call.func, ast.Attribute) and call.func.attr == "minimize"):
        return None
    for k in call.keywords:
        if k.arg == "no_grad_set":
            return k.value
    if len(call.args) >= 4 and not any(isinstance(a, ast.Starred) for a in call.args[:4]):
        return call.args[3]
    return None


def no_grad_only_sets(up) -> Set[str]:
    """Names of collections of ``.name``s used only as ``minimize``'s ``no_grad_set`` (see
    the module docstring), with at least one ``.name`` in them (cached per module)."""
    cached = getattr(up, "_no_grad_only_sets", None)
    if cached is not None:
        return cached
    out: Set[str] = set()
    up._no_grad_only_sets = out
    if "no_grad_set" not in up.source or ".name" not in up.source:
        return out
    try:
        tree = untouched.parse(up.source)
    except SyntaxError:
        return out
    good, bad, used, named = set(), set(), set(), set()
    fine = set()  # ids of Name nodes whose use is accounted for
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign):
            for t in node.targets:
                if isinstance(t, ast.Name):
                    fine.add(id(t))
                    ok = len(node.targets) == 1 and _display(node.value)
                    (good if ok else bad).add(t.id)
                    if ok and any(_dot_name(e) for e in ast.walk(node.value)):
                        named.add(t.id)
        elif isinstance(node, ast.Expr) and isinstance(node.value, ast.Call):
            c = node.value
            f = c.func
            if isinstance(f, ast.Attribute) and isinstance(f.value, ast.Name) \
                    and f.attr in ("add", "append") and len(c.args) == 1 and not c.keywords \
                    and _dot_name(c.args[0]):
                fine.add(id(f.value))
                named.add(f.value.id)
        elif isinstance(node, ast.Call):
            arg = _no_grad_arg(node)
            if isinstance(arg, ast.Name):
                fine.add(id(arg))
                used.add(arg.id)
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and id(node) not in fine:
            bad.add(node.id)
        elif isinstance(node, (ast.Global, ast.Nonlocal)):
            bad.update(node.names)
        elif isinstance(node, ast.arg):
            bad.add(node.arg)
    out.update((good & used & named) - bad)
    return out


def _strip(v):
    """``<var>.name`` → ``<var>`` in an element or in a display's elements."""
    if isinstance(v, cst.Attribute) and v.attr.value == "name":
        return v.value
    if isinstance(v, cst.Call) and len(v.args) == 1:
        return v.with_changes(args=[v.args[0].with_changes(value=_strip(v.args[0].value))])
    if isinstance(v, (cst.List, cst.Tuple, cst.Set)):
        return v.with_changes(elements=[e.with_changes(value=_strip(e.value)) for e in v.elements])
    return v


class _Strip(cst.CSTTransformer):
    def __init__(self, names):
        self.names = names
        self.hits = 0

    def leave_Assign(self, original, updated):
        if len(updated.targets) == 1 and isinstance(updated.targets[0].target, cst.Name) \
                and updated.targets[0].target.value in self.names:
            new = _strip(updated.value)
            if not new.deep_equals(updated.value):
                self.hits += 1
                return updated.with_changes(value=new)
        return updated

    def leave_Expr(self, original, updated):
        c = updated.value
        if isinstance(c, cst.Call) and isinstance(c.func, cst.Attribute) \
                and isinstance(c.func.value, cst.Name) and c.func.value.value in self.names \
                and c.func.attr.value in ("add", "append") and len(c.args) == 1:
            self.hits += 1
            return updated.with_changes(value=c.with_changes(
                args=[c.args[0].with_changes(value=_strip(c.args[0].value))]))
        return updated


def leave_statement(up, original, updated):
    """Strip the ``.name``s of no-grad-only sets where they are built (see the module
    docstring). A compound statement the walk skipped is searched whole."""
    if not up.opts.enabled(CODE):
        return updated
    if not isinstance(updated, cst.SimpleStatementLine) and id(original) not in up.untouched:
        return updated
    names = no_grad_only_sets(up)
    if not names:
        return updated
    from upgrader.fixers.static_mode import static_program
    if not static_program(up) or up.suppressed_node(original, CODE):
        return updated
    strip = _Strip(names)
    new = updated.visit(strip)
    if not strip.hits:
        return updated
    up.report(original, CODE, "a `.name` put in a set used as `minimize(no_grad_set=...)` → the "
              "variable itself: today's minimize takes the values (an operator's PIR value has "
              "no name); 1.8 resolved the name to the same variable", LEGACY, TARGET, "safe",
              applied=True)
    return new
