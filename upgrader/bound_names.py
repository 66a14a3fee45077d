"""Names whose value at a call is a known literal, for the safety decisions of the engine.

A call such as ``fluid.embedding(ids, size=[V, 8], is_sparse=is_sparse)`` is unsafe in
general because ``is_sparse`` might be True. When the module binds ``is_sparse`` exactly
once, by ``is_sparse = False`` in the function that makes the call (or at module level),
the value at the call is that literal, and the argument is judged as if it were written
there. The rewrite itself still emits the name; only the safety decision reads the value.

The rule is deliberately narrow, so that a name never resolves to a value it might not
have:

- the name has exactly one binding in the whole module, of any kind (assignment, augmented
  assignment, ``for``/``with``/``except ... as`` targets, parameters, imports, ``def`` /
  ``class`` names, comprehension variables, ``del``, ``global`` / ``nonlocal``
  declarations, match captures), so no other scope can shadow or rebind it;
- that binding is a plain statement ``NAME = <literal>`` (a bool, None, number or string,
  or a list/tuple of them);
- it sits in the module body, or in the body of a function whose lines hold the call (a
  nested function reading it through its closure included); a class body does not count
  (its names are not visible in methods);
- a module-level binding does not count in a module that has a ``from ... import *``
  (which may rebind the name) or that assigns through ``globals()``.

A name rebound from another module (``mod.is_sparse = True``) is not seen; that is the
same assumption the module constants of the layers-data fixer make.
"""
from __future__ import annotations

import ast
from typing import Dict, List, Optional, Tuple

from upgrader import untouched

#: name -> (first line, last line) of the binding function's body, None for module level,
#: and the literal's source text
_Binding = Tuple[Optional[Tuple[int, int]], str]


def bindings(tree: ast.Module) -> Dict[str, List[ast.AST]]:
    """Every binding node of every name of the module (see the module doc; a ``global`` /
    ``nonlocal`` declaration counts twice: the name is rebound from another scope)."""
    out: Dict[str, List[ast.AST]] = {}

    def add(name: str, node: ast.AST, weight: int = 1) -> None:
        out.setdefault(name, []).extend([node] * weight)

    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load):
            add(node.id, node)
        elif isinstance(node, ast.arg):
            add(node.arg, node)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            add(node.name, node)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            for a in node.names:
                add((a.asname or a.name).split(".")[0], node)
        elif isinstance(node, (ast.Global, ast.Nonlocal)):
            for n in node.names:
                add(n, node, 2)  # rebound from another scope: never a constant
        elif isinstance(node, ast.ExceptHandler) and node.name:
            add(node.name, node)
        elif isinstance(node, (ast.MatchAs, ast.MatchStar)) and node.name:
            add(node.name, node)
        elif isinstance(node, ast.MatchMapping) and node.rest:
            add(node.rest, node)
    return out


def _literal_source(value: ast.AST) -> Optional[str]:
    try:
        v = ast.literal_eval(value)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return None

    def plain(x) -> bool:
        if isinstance(x, (list, tuple)):
            return all(plain(i) for i in x)
        return x is None or isinstance(x, (bool, int, float, str))

    return repr(v) if plain(v) else None


def _module_unsure(tree: ast.Module) -> bool:
    """Whether module-level names may be rebound in ways the bindings do not show."""
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and any(a.name == "*" for a in node.names):
            return True
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) \
                and node.func.id in ("globals", "vars", "exec", "eval"):
            return True
    return False


def literal_bindings(up) -> Dict[str, _Binding]:
    """The names of the module bound once to a literal (cached per run)."""
    got = up.__dict__.get("_literal_bindings")
    if got is not None:
        return got
    got = up._literal_bindings = {}
    try:
        tree = untouched.parse(up.source)
    except (SyntaxError, RecursionError, MemoryError, ValueError):
        return got
    binds = bindings(tree)
    unsure = _module_unsure(tree)

    def scan(body, scope: Optional[Tuple[int, int]]) -> None:
        for stmt in body:
            if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 \
                    and isinstance(stmt.targets[0], ast.Name):
                name = stmt.targets[0].id
                src = _literal_source(stmt.value)
                if src is not None and len(binds.get(name, ())) == 1 \
                        and not (scope is None and unsure):
                    got[name] = (scope, src)
            if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)):
                first = stmt.body[0]
                scan(stmt.body, (getattr(first, "lineno", stmt.lineno),
                                 stmt.end_lineno or stmt.lineno))
                continue
            if isinstance(stmt, ast.ClassDef):  # its methods; not the class body's names
                scan([s for s in stmt.body
                      if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef))], scope)
                continue
            inner: list = []
            for field in ("body", "orelse", "finalbody"):
                inner += [s for s in getattr(stmt, field, None) or () if isinstance(s, ast.stmt)]
            for holder in list(getattr(stmt, "handlers", None) or ()) \
                    + list(getattr(stmt, "cases", None) or ()):
                inner += holder.body  # except handlers, match cases
            scan(inner, scope)

    scan(tree.body, None)
    return got


def literal_at(up, line: int, name: str) -> Optional[str]:
    """The literal source ``name`` holds at a call on ``line`` (1-based), or None when
    that is not known for sure (see the module doc)."""
    if line <= 0:
        return None
    found = literal_bindings(up).get(name)
    if found is None:
        return None
    scope, src = found
    if scope is not None and not (scope[0] <= line <= scope[1]):
        return None
    return src
