"""Statements the rewrite cannot touch, found with ``ast`` before the libcst walk.

The rewriting transformer rebuilds every node it visits; most statements of a legacy
module (whole functions, and most lines of the others) have nothing to do with Paddle.
A statement is left out of the walk (``Upgrader.on_visit`` returns False for it, so
libcst keeps the original node) when its ``ast`` subtree holds none of:

- a name bound by a ``paddle`` import or a top-level alias of one (``fluid``, ``L``
  ...), or assigned anywhere in the module from a call through such a name
  (``exe = fluid.Executor(...)``, ``opt = fluid.optimizer.Adam(...)``); a name bound to
  the ``paddle`` package itself counts only as ``paddle.<name>`` where ``<name>`` starts
  legacy names of the rule book (``fluid``, ``dataset``, ``batch`` ...);
- an attribute named like a method a structural rule looks at (``minimize``, ``run``,
  ``clone``, ``backward``, ``scale_loss``, ``epoch`` ... :data:`TRIGGERS`), whatever its
  receiver;
- an import of a ``paddle`` module (function-level imports), or a string mentioning
  ``paddle``/``fluid`` (dynamic imports).

Statement hooks still run on a skipped statement (libcst calls ``on_leave``), so
deletions before it hand their blank lines on. Every structural rule reaches its nodes
through one of these, which ``tests/test_untouched.py`` checks by comparing the engine's
output and findings with and without skipping on the fixtures, the programs, generated
programs and the benchmark modules.
"""
from __future__ import annotations

import ast
import os
from typing import Dict, List, Optional, Set, Tuple

import libcst as cst

#: method names the call and statement hooks of upgrader/fixers look at
TRIGGERS = frozenset({
    "clone", "run", "minimize", "set_dict", "current_step_lr", "with_data_parallel",
    "backward", "clear_gradients", "clear_gradient", "clear_grad", "all_parameters",
    "block", "current_block", "to_string", "scale_loss", "apply_collective_grads",
    "prepare_context", "enable", "get_output", "get_func", "get_code",
    "save_inference_model", "epoch", "step", "state_dict", "sublayers", "named_sublayers",
    "load_dict", "var", "vars", "input_arg_names", "output_arg_names",
})

#: set PADDLE_UPGRADE_NO_SKIP=1 to walk every statement (the reference behaviour)
ENABLED = os.environ.get("PADDLE_UPGRADE_NO_SKIP") != "1"


class Names:
    """What makes a statement interesting: ``bound`` names (legacy modules and names, and
    what is assigned from calls through them) anywhere, and names bound to the ``paddle``
    package itself only as ``paddle.<legacy top-level name>`` (``paddle.fluid``,
    ``paddle.dataset`` ...: modern ``paddle.nn.Linear`` is no legacy use)."""

    def __init__(self, bound: Set[str], packages: Set[str], tops: Set[str], skip: bool = True,
                 plain: Set[str] = frozenset(), quiet: Optional[Dict[int, List[Tuple[str, str]]]] = None,
                 anchors: Optional[Dict[int, Tuple[int, int, int]]] = None):
        self.bound = bound
        self.packages = packages
        self.tops = tops
        self.skip = skip  # False: decide nothing (PADDLE_UPGRADE_NO_SKIP), only pair
        self.plain = plain  # package names a quiet statement may load
        # what the pairing fills in (untouched_statements: quiet, anchors)
        self.quiet: Dict[int, List[Tuple[str, str]]] = {} if quiet is None else quiet
        self.anchors: Dict[int, Tuple[int, int, int]] = {} if anchors is None else anchors


_AST = ast.AST


def walk(node: ast.AST):
    """Every node under ``node`` (itself included), as ``ast.walk`` gives them but depth
    first and without its per-field generators: for the walks here, whose answers do not
    depend on the order (a flag, a set, assignments sorted by position)."""
    todo = [node]
    pop, push, extend = todo.pop, todo.append, todo.extend
    while todo:
        n = pop()
        yield n
        for name in n._fields:
            v = getattr(n, name, None)
            if type(v) is list:
                extend([x for x in v if isinstance(x, _AST)])
            elif isinstance(v, _AST):
                push(v)


def _interesting(tree: ast.AST, names: "Names") -> bool:
    bound, packages, tops = names.bound, names.packages, names.tops
    for node in walk(tree):
        t = type(node)
        if t is ast.Name:
            if node.id in bound:  # type: ignore[attr-defined]
                return True
        elif t is ast.Attribute:
            if node.attr in TRIGGERS:  # type: ignore[attr-defined]
                return True
            v = node.value  # type: ignore[attr-defined]
            if type(v) is ast.Name and v.id in packages and node.attr in tops:  # type: ignore[attr-defined]
                return True
        elif t is ast.Constant:
            v = node.value  # type: ignore[attr-defined]
            if isinstance(v, str) and ("paddle" in v or "fluid" in v):
                return True
        elif t is ast.Import or t is ast.ImportFrom:
            return True  # imports inside functions and classes: let the engine see them
        elif t is ast.Global or t is ast.Nonlocal:
            return True
    return False


def _assigned_from_calls(tree: ast.Module, names: Set[str]) -> Set[str]:
    """Names assigned (anywhere) from a call through one of ``names``, and plain names
    assigned one of ``names`` (or of those) or an attribute of one: ``t =
    fluid.dygraph.to_variable`` in a ``with`` block is a module-level alias once the guard
    is removed."""
    out: Set[str] = set()
    aliases = []
    for node in walk(tree):
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Call):
            f = node.value.func
            while isinstance(f, ast.Attribute):
                f = f.value
            if isinstance(f, ast.Name) and f.id in names:
                for t in node.targets:
                    for n in walk(t):
                        if isinstance(n, ast.Name):
                            out.add(n.id)
        elif isinstance(node, ast.Assign) and isinstance(node.value, (ast.Name, ast.Attribute)) \
                and all(isinstance(t, ast.Name) for t in node.targets):
            f = node.value
            while isinstance(f, ast.Attribute):
                f = f.value
            if isinstance(f, ast.Name):
                aliases.append((f.id, [t.id for t in node.targets]))
    known = set(names)
    grown = True
    while grown:
        grown = False
        for root, targets in aliases:
            if root in known:
                for t in targets:
                    if t not in known:
                        known.add(t)
                        out.add(t)
                        grown = True
    return out


_PARSED: Dict[str, ast.Module] = {}


def parse(code: str) -> ast.Module:
    """``ast.parse(code)``, remembered for the last few sources: the runner checks the
    syntax of a file and of its rewrite, which the engine's passes parse too. The trees
    are shared: read them, never change them."""
    tree = _PARSED.get(code)
    if tree is None:
        tree = ast.parse(code)
        if len(_PARSED) >= 4:
            _PARSED.pop(next(iter(_PARSED)))
        _PARSED[code] = tree
    return tree


_BINDERS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)


def _rebound(tree: ast.Module, names: Set[str]) -> Set[str]:
    """Those of ``names`` that something in the module binds other than an import (an
    assignment or ``for``/``with`` target, ``del``, a parameter, a ``def``/``class``, an
    ``except ... as``, a match capture)."""
    out: Set[str] = set()
    for node in walk(tree):
        t = type(node)
        if t is ast.Name:
            if node.id in names and type(node.ctx) is not ast.Load:  # type: ignore[attr-defined]
                out.add(node.id)  # type: ignore[attr-defined]
        elif t is ast.arg:
            if node.arg in names:  # type: ignore[attr-defined]
                out.add(node.arg)  # type: ignore[attr-defined]
        elif t in _BINDERS or t is ast.ExceptHandler or t.__name__ in ("MatchAs", "MatchStar", "MatchMapping"):
            for attr in ("name", "rest"):
                v = getattr(node, attr, None)
                if isinstance(v, str) and v in names:
                    out.add(v)
    return out


def untouched_statements(module: cst.Module, code: str, bindings: Dict[str, str],
                         tops: Set[str], anchors: Optional[Dict[int, Tuple[int, int, int]]] = None,
                         quiet: Optional[Dict[int, List[Tuple[str, str]]]] = None,
                         plain_packages: Optional[Set[str]] = None) -> Set[int]:
    """ids of the statements of ``module`` the engine need not walk: top-level ones and,
    inside the bodies of the statements it walks (functions, classes, loops, ``if``,
    ``with``, ``try``), nested ones.

    ``anchors`` (when given) receives, for each statement that is walked, the line of its
    first token as ``ast`` reports it (``def``/``class`` line for definitions) and where
    it ends (line, UTF-8 column): the engine places statement-local positions with them
    (``engine.Upgrader.pos``), checking each placement against the source text.

    ``quiet`` (when given) receives the skipped statements that the other whole-module
    walks (the static-mode survey, the used-names walk of the import cleanup) may skip
    too: no name bound to the ``paddle`` package (nor any name ``paddle``) in them, except
    the ``plain_packages`` (names that only module-level ``import paddle [as P]`` binds,
    which the cleanup never removes) when nothing in the module rebinds them, and then not
    as the receiver of ``enable_static``. Each maps to what the survey would have recorded
    of its assignments, in source order (:func:`_quiet`)."""
    try:
        tree = parse(code)
    except (SyntaxError, ValueError, MemoryError, RecursionError):
        return set()
    packages = {local for local, dotted in bindings.items() if dotted == "paddle"}
    bound = {local for local in bindings if local not in packages}
    bound |= _assigned_from_calls(tree, set(bindings))
    plain = set(plain_packages or ()) & packages
    if plain:
        plain -= _rebound(tree, plain)
    names = Names(bound, packages, tops, ENABLED, plain, quiet, anchors)
    out: Set[int] = set()
    if not _block(module.body, tree.body, names, out):
        names.quiet.clear()
        return set()  # the two parsers disagree somewhere: walk everything
    return out


def _quiet(group: List[ast.stmt], names: "Names") -> Optional[List[Tuple[str, str]]]:
    """For a skipped statement (its ``ast`` statements): None when a name bound to the
    ``paddle`` package (or named ``paddle``) occurs in it, else its assignments as the
    static-mode survey records them (``save_load_dygraph.assignment_origins``): nothing in
    a skipped statement resolves to an import, so a call of a plain name gives
    ``local:<name>`` and anything else ``""``."""
    packages, plain = names.packages, names.plain
    assigns = []
    for a in group:
        for node in walk(a):
            t = type(node)
            if t is ast.Name:
                n = node.id  # type: ignore[attr-defined]
                if (n == "paddle" or n in packages) and n not in plain:
                    return None
            elif t is ast.Attribute:
                if node.attr == "enable_static":  # type: ignore[attr-defined]
                    return None  # the survey notes the program switching itself
            elif t is ast.Assign:
                assigns.append(node)
    out: List[Tuple[str, str]] = []

    def resolve(f) -> Optional[str]:  # Upgrader.resolve_dotted: only plain packages resolve here
        parts = []
        while isinstance(f, ast.Attribute):
            parts.append(f.attr)
            f = f.value
        if not isinstance(f, ast.Name) or f.id not in plain:
            return None
        return ".".join(["paddle"] + parts[::-1])

    for node in sorted(assigns, key=lambda n: (n.lineno, n.col_offset)):
        if len(node.targets) != 1:
            continue
        t, v = node.targets[0], node.value
        if isinstance(t, (ast.Tuple, ast.List)) and isinstance(v, (ast.Tuple, ast.List)) \
                and len(t.elts) == len(v.elts):
            for te, ve in zip(t.elts, v.elts):
                te = te.value if isinstance(te, ast.Starred) else te
                ve = ve.value if isinstance(ve, ast.Starred) else ve
                if isinstance(te, ast.Name):
                    out.append((te.id, (resolve(ve.func) if isinstance(ve, ast.Call) else None) or ""))
        elif isinstance(t, ast.Name):
            if isinstance(v, ast.Call):
                d = resolve(v.func)
                if d is None and isinstance(v.func, ast.Name):
                    d = "local:" + v.func.id
                elif d is None and isinstance(v.func, ast.Attribute) and v.func.attr == "state_dict" \
                        and isinstance(v.func.value, ast.Name) and not v.args and not v.keywords:
                    d = "state_dict:" + v.func.value.id
                elif d is None and isinstance(v.func, ast.Attribute) \
                        and isinstance(v.func.value, ast.Name) and not v.keywords \
                        and ((v.func.attr == "global_block" and not v.args)
                             or (v.func.attr == "block" and len(v.args) == 1
                                 and isinstance(v.args[0], ast.Constant)
                                 and type(v.args[0].value) is int and v.args[0].value == 0)):
                    d = "block:" + v.func.value.id  # `blk = main.global_block()`
                out.append((t.id, d or ""))
            else:
                out.append((t.id, ""))
    return out


def _block(cst_body, ast_body: List[ast.stmt], names: Names, out: Set[int]) -> bool:
    """Pair the statements of a libcst body with the ``ast`` ones (a simple statement line
    holds one ``ast`` statement per small statement) and decide each; False when the two
    do not line up."""
    i = 0
    for stmt in cst_body:
        n = len(stmt.body) if isinstance(stmt, cst.SimpleStatementLine) else 1
        group = ast_body[i:i + n]
        i += n
        if len(group) != n:
            return False
        if names.skip and not any(_interesting(a, names) for a in group):
            out.add(id(stmt))
            q = _quiet(group, names)
            if q is not None:
                names.quiet[id(stmt)] = q
            continue
        last = group[-1]
        names.anchors[id(stmt)] = (group[0].lineno, last.end_lineno or 0, last.end_col_offset or 0)
        if n == 1 and not isinstance(stmt, cst.SimpleStatementLine):
            if not _inner(stmt, group[0], names, out):
                return False
    return i == len(ast_body)


def _suite(body, ast_body, names, out) -> bool:
    if isinstance(body, cst.IndentedBlock):
        return _block(body.body, ast_body, names, out)
    return True  # `if x: a; b` on one line: nothing to skip inside


def _inner(stmt, a: ast.stmt, names: Names, out: Set[int]) -> bool:
    """Recurse into the bodies of a compound statement that is walked."""
    if isinstance(stmt, (cst.FunctionDef, cst.ClassDef)) and \
            isinstance(a, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return _suite(stmt.body, a.body, names, out)
    if isinstance(stmt, (cst.For, cst.While)) and isinstance(a, (ast.For, ast.AsyncFor, ast.While)):
        ok = _suite(stmt.body, a.body, names, out)
        if stmt.orelse is not None:
            ok = ok and _suite(stmt.orelse.body, a.orelse, names, out)
        return ok
    if isinstance(stmt, cst.With) and isinstance(a, (ast.With, ast.AsyncWith)):
        return _suite(stmt.body, a.body, names, out)
    if isinstance(stmt, cst.If) and isinstance(a, ast.If):
        ok = _suite(stmt.body, a.body, names, out)
        orelse = stmt.orelse
        if isinstance(orelse, cst.Else):
            ok = ok and _suite(orelse.body, a.orelse, names, out)
        elif isinstance(orelse, cst.If):  # elif: the ast has it as the only orelse statement
            ok = ok and len(a.orelse) == 1 and _inner(orelse, a.orelse[0], names, out)
        return ok
    if isinstance(stmt, cst.Try) and isinstance(a, ast.Try):
        ok = _suite(stmt.body, a.body, names, out) and len(stmt.handlers) == len(a.handlers)
        for h, ah in zip(stmt.handlers, a.handlers):
            ok = ok and _suite(h.body, ah.body, names, out)
        if stmt.orelse is not None:
            ok = ok and _suite(stmt.orelse.body, a.orelse, names, out)
        if stmt.finalbody is not None:
            ok = ok and _suite(stmt.finalbody.body, a.finalbody, names, out)
        return ok
    return True  # anything else (match, try*, ...) is walked whole
