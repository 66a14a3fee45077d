"""Resolve names to the legacy dotted API they mean, by meaning rather than spelling.

``import paddle.fluid as F`` + ``F.layers.fc``, ``from paddle.fluid.layers import fc as
dense`` + ``dense``, ``import paddle`` + ``paddle.fluid.layers.fc`` all resolve to
``paddle.fluid.layers.fc``. A local binding that shadows an imported alias (a parameter, an
assignment, a loop variable) hides it inside that function.
"""
from __future__ import annotations

import operator
import os

import unicodedata
from dataclasses import dataclass, field
from typing import Dict, List, Optional, Set, Union

import libcst as cst

from upgrader import cstfast  # noqa: F401  (libcst's code generation, without generators)

# namespaces that no longer exist: every name below them is legacy (a name with no rule is PU001)
LEGACY_ROOTS = ("paddle.fluid", "paddle.incubate.hapi")


def ident(name: str) -> str:
    """An identifier as Python sees it (NFKC-normalised: ``ｆluid`` is ``fluid``)."""
    return name if name.isascii() else unicodedata.normalize("NFKC", name)


def dotted_of(node: cst.BaseExpression) -> Optional[str]:
    """``a.b.c`` for a Name/Attribute chain, else None."""
    parts: List[str] = []
    while isinstance(node, cst.Attribute):
        parts.append(ident(node.attr.value))
        node = node.value
    if isinstance(node, cst.Name):
        parts.append(ident(node.value))
        return ".".join(reversed(parts))
    return None


def module_name(node: Union[cst.Attribute, cst.Name]) -> str:
    return dotted_of(node) or ""


_MISSING = object()


def _own_methods(cls) -> Dict[str, object]:
    """``visit_*``/``leave_*`` methods defined outside libcst (libcst's typed base classes
    define a no-op stub for every node and attribute)."""
    out: Dict[str, object] = {}
    for klass in reversed(cls.__mro__):
        if (klass.__module__ or "").startswith("libcst"):
            continue
        for name, value in vars(klass).items():
            if name.startswith(("visit_", "leave_")) and callable(value):
                out[name] = value
    return out


def _attribute_hooks(obj, methods: Dict[str, object], prefix: str) -> Dict[str, Dict[str, object]]:
    """``{node type name: {attribute: bound method}}`` for ``<prefix>_<Type>_<attribute>``
    methods (node type names are CamelCase: a second ``_`` starts the attribute)."""
    out: Dict[str, Dict[str, object]] = {}
    for name in methods:
        if name.startswith(prefix) and name.count("_") >= 2:
            _, tname, attr = name.split("_", 2)
            if tname[:1].isupper():
                out.setdefault(tname, {})[attr] = getattr(obj, name)
    return out


def _syntax_leaves() -> frozenset:
    """Node types that hold only tokens and whitespace (and parentheses): no name, no
    expression, nothing a rule looks at below them."""
    ops = {c for base in (cst.BaseBinaryOp, cst.BaseBooleanOp, cst.BaseCompOp, cst.BaseUnaryOp,
                          cst.BaseAugOp) for c in base.__subclasses__()}
    names = ("SimpleWhitespace", "ParenthesizedWhitespace", "Newline", "TrailingWhitespace",
             "EmptyLine", "Comment", "Comma", "Dot", "Colon", "Semicolon", "AssignEqual",
             "LeftParen", "RightParen", "LeftSquareBracket", "RightSquareBracket",
             "LeftCurlyBrace", "RightCurlyBrace", "ImportStar", "Integer", "Float", "Imaginary",
             "SimpleString", "Ellipsis", "FormattedStringText", "Name")
    return frozenset(ops | {getattr(cst, n) for n in names})


#: the walks do not enter these nodes (their own visit_/leave_ hooks still run): libcst
#: would rebuild each of their whitespace children for nothing. PADDLE_UPGRADE_NO_LEAF_SKIP=1
#: enters them (the reference behaviour, tests/test_leaf_skip.py)
SYNTAX_LEAVES = frozenset() if os.environ.get("PADDLE_UPGRADE_NO_LEAF_SKIP") == "1" else _syntax_leaves()


class _FastDispatch:
    """``visit_``/``leave_`` dispatch looked up once per node type (libcst formats the
    method name and calls ``getattr`` for every node and every child attribute); the same
    semantics. Subclasses must call ``super().__init__()``."""

    def _fast_init(self) -> None:
        self._fv: Dict[type, object] = {}
        self._fl: Dict[type, object] = {}
        self._own = _own_methods(type(self))
        self._va = _attribute_hooks(self, self._own, "visit_")
        self._la = _attribute_hooks(self, self._own, "leave_")
        self._vat: Dict[type, object] = {}
        self._lat: Dict[type, object] = {}
        # libcst calls these twice per child of every node: without hooks, a C function
        # that takes the same two arguments and does nothing (`operator.is_`) instead
        if not self._va:
            self.on_visit_attribute = operator.is_  # type: ignore[assignment]
        if not self._la:
            self.on_leave_attribute = operator.is_  # type: ignore[assignment]

    def _method(self, name: str):
        return getattr(self, name) if name in self._own else None

    def on_visit(self, node: cst.CSTNode) -> bool:
        t = type(node)
        f = self._fv.get(t, _MISSING)
        if f is _MISSING:
            f = self._fv[t] = self._method(f"visit_{t.__name__}")
        if t in SYNTAX_LEAVES:
            if f is not None:
                f(node)
            return False
        if f is None:
            return True
        return f(node) is not False

    # with hooks: the hooks of a node type looked up by the type itself (these run twice
    # per child of every node)
    def on_visit_attribute(self, node: cst.CSTNode, attribute: str) -> None:
        t = type(node)
        hooks = self._vat.get(t, _MISSING)
        if hooks is _MISSING:
            hooks = self._vat[t] = self._va.get(t.__name__)
        if hooks is not None:
            f = hooks.get(attribute)
            if f is not None:
                f(node)

    def on_leave_attribute(self, original_node: cst.CSTNode, attribute: str) -> None:
        t = type(original_node)
        hooks = self._lat.get(t, _MISSING)
        if hooks is _MISSING:
            hooks = self._lat[t] = self._la.get(t.__name__)
        if hooks is not None:
            f = hooks.get(attribute)
            if f is not None:
                f(original_node)


class FastVisitor(_FastDispatch, cst.CSTVisitor):
    """``CSTVisitor`` with :class:`_FastDispatch`."""

    def __init__(self) -> None:
        super().__init__()
        self._fast_init()

    def on_leave(self, original_node: cst.CSTNode) -> None:
        t = type(original_node)
        f = self._fl.get(t, _MISSING)
        if f is _MISSING:
            f = self._fl[t] = self._method(f"leave_{t.__name__}")
        if f is not None:
            f(original_node)


class FastTransformer(_FastDispatch, cst.CSTTransformer):
    """``CSTTransformer`` with :class:`_FastDispatch`."""

    def __init__(self) -> None:
        super().__init__()
        self._fast_init()

    def on_leave(self, original_node, updated_node):
        t = type(original_node)
        f = self._fl.get(t, _MISSING)
        if f is _MISSING:
            f = self._fl[t] = self._method(f"leave_{t.__name__}")
        if f is not None:
            return f(original_node, updated_node)
        return updated_node


@dataclass
class Binding:
    """A name bound by an import statement to a dotted path."""
    local: str
    dotted: str
    node: cst.CSTNode  # the ImportAlias
    statement: cst.CSTNode  # the Import / ImportFrom
    module_level: bool


@dataclass
class ImportMap:
    bindings: Dict[str, Binding] = field(default_factory=dict)
    all_bindings: List[Binding] = field(default_factory=list)
    star_imports: List[cst.ImportFrom] = field(default_factory=list)
    alias_values: Set[int] = field(default_factory=set)  # id(target), id(value) of `L = fluid.layers`

    def resolve_name(self, name: str) -> Optional[str]:
        b = self.bindings.get(name)
        return b.dotted if b else None


def _alias_dotted(alias: cst.ImportAlias) -> str:
    return module_name(alias.name)


def _statements(body, depth: int = 0):
    """(statement, function depth) for every statement, without entering expressions:
    imports can only be statements, so this is much cheaper than a full visit."""
    for stmt in body:
        yield stmt, depth
        if isinstance(stmt, cst.BaseCompoundStatement):
            inner = depth + isinstance(stmt, cst.FunctionDef)
            blocks = [stmt.body]
            for attr in ("orelse", "finalbody"):
                b = getattr(stmt, attr, None)
                if b is not None:
                    blocks.append(b.body if isinstance(b, (cst.Else, cst.Finally)) else b)
            for h in getattr(stmt, "handlers", ()) or ():
                blocks.append(h.body)
            for case in getattr(stmt, "cases", ()) or ():
                blocks.append(case.body)
            while blocks:
                b = blocks.pop(0)
                if isinstance(b, cst.If):  # elif chain
                    yield b, inner
                    blocks.append(b.body)
                    if b.orelse is not None:
                        blocks.append(b.orelse if isinstance(b.orelse, cst.If) else b.orelse.body)
                elif isinstance(b, cst.IndentedBlock):
                    yield from _statements(b.body, inner)
                elif isinstance(b, cst.SimpleStatementSuite):
                    yield b, inner


def collect_imports(module: cst.Module) -> ImportMap:
    """Imports of ``paddle`` and anything below it, anywhere in the module."""
    out = ImportMap()
    for stmt, depth in _statements(module.body):
        if not isinstance(stmt, (cst.SimpleStatementLine, cst.SimpleStatementSuite)):
            continue
        for small in stmt.body:
            if isinstance(small, cst.Import):
                _import(out, small, depth)
            elif isinstance(small, cst.ImportFrom):
                _import_from(out, small, depth)
    if out.all_bindings:
        _module_aliases(out, module)
        _module_redefinitions(out, module)
    return out


def _module_level(body):
    """The statements of ``body`` and of the ``with``, ``try`` and ``if`` blocks in it,
    which open no scope: ``with fluid.dygraph.guard(): t = fluid.dygraph.to_variable``
    binds a module name (the rewrite removes the guard, or turns it into ``try``)."""
    for stmt in body:
        blocks = []
        if isinstance(stmt, (cst.With, cst.Try)):
            blocks = [stmt.body]
        elif isinstance(stmt, cst.If):
            blocks = [stmt.body]
            orelse = stmt.orelse
            while isinstance(orelse, cst.If):
                blocks.append(orelse.body)
                orelse = orelse.orelse
            if isinstance(orelse, cst.Else):
                blocks.append(orelse.body)
        if not blocks:
            yield stmt
        for b in blocks:
            if isinstance(b, cst.IndentedBlock):
                yield from _module_level(b.body)


def _module_aliases(out: ImportMap, module: cst.Module) -> None:
    """``layers = fluid.layers`` / ``fc = fluid.layers.fc`` at the top level of the module
    (or in a module-level ``with``/``try``/``if`` block): the name is bound like an import
    when the module binds it nowhere else (no other assignment, loop or ``with`` target,
    ``def``/``class``/import, ``global``)."""
    candidates = []
    for stmt in _module_level(module.body):
        if isinstance(stmt, cst.SimpleStatementLine) and len(stmt.body) == 1:
            a = stmt.body[0]
            if isinstance(a, cst.Assign) and len(a.targets) == 1 and \
                    isinstance(a.targets[0].target, cst.Name) and \
                    isinstance(a.value, (cst.Name, cst.Attribute)):
                d = dotted_of(a.value)
                head, _, rest = (d or "").partition(".")
                base = out.resolve_name(head)
                if base is not None and is_legacy(base):
                    dotted = f"{base}.{rest}" if rest else base
                    candidates.append((ident(a.targets[0].target.value), dotted, a))
    if not candidates:
        return
    counts = module_binding_counts(module)
    for local, dotted, assign in candidates:
        if counts.get(local, 0) != 1 or local in out.bindings:
            continue
        b = Binding(local, dotted, assign, assign, True)
        b.alias_assignment = True  # type: ignore[attr-defined]
        out.all_bindings.append(b)
        out.bindings[local] = b
        out.alias_values.add(id(assign.value))
        out.alias_values.add(id(assign.targets[0].target))  # the bound name is no use of it


def _names_in(node: cst.CSTNode) -> Set[str]:
    found: Set[str] = set()

    class V(FastVisitor):
        def visit_Name(self, n):
            found.add(ident(n.value))

    node.visit(V())
    return found


def _module_redefinitions(out: ImportMap, module: cst.Module) -> None:
    """A module-level ``def``/``class`` (or ``name = lambda ...`` / ``name = call(...)``)
    after a legacy import of the same name binds the name to the module's own function,
    class or object: ``from paddle.fluid.layers import fc`` + ``def fc(x, size): ...``
    (``class Linear(fluid.dygraph.Layer)``) makes every later ``fc(...)`` (and each call
    in a function, which runs after the module is loaded) the module's own, not the
    legacy API. The name then resolves to nothing, and its import is marked ``redefined``
    (imports.clean removes it) unless a module-level statement between the import and
    the definition used it (``y = fc(x, 3)``, ``fc = partial(fc, act='relu')``, ``class
    Linear(Linear)``): that use is left as written, with its legacy import, which the
    upgraded module then still fails on, rather than every later call silently becoming
    the modern API. A definition in an ``if``/``try``/``with`` block (a fallback that may
    not run) changes nothing."""
    pending: Dict[str, Binding] = {}  # imported names whose later uses are still legacy
    used_before: Set[str] = set()  # ... that a module-level statement used meanwhile
    top = {id(stmt) for stmt in module.body}  # not in an if/try/with: not a fallback
    for stmt in _module_level(module.body):
        if id(stmt) not in top:
            defined: Optional[str] = None
        elif isinstance(stmt, (cst.FunctionDef, cst.ClassDef)):
            defined = ident(stmt.name.value)
        elif (isinstance(stmt, cst.SimpleStatementLine) and len(stmt.body) == 1
                and isinstance(stmt.body[0], cst.Assign) and len(stmt.body[0].targets) == 1
                and isinstance(stmt.body[0].targets[0].target, cst.Name)
                and isinstance(stmt.body[0].value, (cst.Lambda, cst.Call))):
            defined = ident(stmt.body[0].targets[0].target.value)
        else:
            defined = None
        if isinstance(stmt, (cst.FunctionDef, cst.ClassDef)):
            # a definition's body runs later; its decorators, bases and defaults now
            used = set().union(*(_names_in(d) for d in stmt.decorators)) if stmt.decorators else set()
            for part in (stmt.bases if isinstance(stmt, cst.ClassDef) else [stmt.params]):
                used |= _names_in(part)
        elif defined:
            used = _names_in(stmt.body[0].value)  # type: ignore[union-attr]
        else:
            used = _names_in(stmt)
        # a use of the legacy name before its redefinition (`y = fc(x, 3)`, `fc =
        # partial(fc, ...)`, `class Linear(Linear)`) keeps the import
        used_before |= used & set(pending)
        b = pending.pop(defined, None) if defined else None
        if b is not None and out.bindings.get(defined) is b:
            del out.bindings[defined]
            b.redefined = defined not in used_before  # type: ignore[attr-defined]
        if isinstance(stmt, cst.SimpleStatementLine):
            for small in stmt.body:
                if isinstance(small, (cst.Import, cst.ImportFrom)):
                    for b2 in out.all_bindings:
                        if b2.statement is small and b2.module_level and is_legacy(b2.dotted) \
                                and out.bindings.get(b2.local) is b2:
                            pending[b2.local] = b2
                            used_before.discard(b2.local)


def module_binding_counts(module: cst.Module) -> Dict[str, int]:
    """How often each name is bound in the module's own scope (``global`` in a function
    counts as unbounded)."""
    counts: Dict[str, int] = {}

    def bind(t) -> None:
        if isinstance(t, cst.Name):
            counts[ident(t.value)] = counts.get(ident(t.value), 0) + 1
        elif isinstance(t, (cst.Tuple, cst.List)):
            for e in t.elements:
                bind(e.value)
        elif isinstance(t, cst.StarredElement):
            bind(t.value)

    class V(FastVisitor):
        def __init__(self) -> None:
            super().__init__()
            self.depth = 0

        def visit_FunctionDef(self, node):
            if self.depth == 0:
                bind(node.name)
            self.depth += 1

        def leave_FunctionDef(self, node):
            self.depth -= 1

        def visit_ClassDef(self, node):
            if self.depth == 0:
                bind(node.name)
            self.depth += 1

        def leave_ClassDef(self, node):
            self.depth -= 1

        def visit_Lambda(self, node):
            self.depth += 1

        def leave_Lambda(self, node):
            self.depth -= 1

        def visit_Global(self, node):
            for n in node.names:
                counts[ident(n.name.value)] = 99

        def visit_Assign(self, node):
            if self.depth == 0:
                for t in node.targets:
                    bind(t.target)

        def visit_AnnAssign(self, node):
            if self.depth == 0:
                bind(node.target)

        def visit_AugAssign(self, node):
            if self.depth == 0:
                bind(node.target)

        def visit_NamedExpr(self, node):
            if self.depth == 0:
                bind(node.target)

        def visit_For(self, node):
            if self.depth == 0:
                bind(node.target)

        def visit_WithItem(self, node):
            if self.depth == 0 and node.asname is not None:
                bind(node.asname.name)

        def visit_ExceptHandler(self, node):
            if self.depth == 0 and node.name is not None:
                bind(node.name.name)

        def visit_ImportAlias(self, node):
            if self.depth == 0:
                name = node.asname.name if node.asname else node.name
                while isinstance(name, cst.Attribute):
                    name = name.value
                bind(name)

        def visit_Del(self, node):
            if self.depth == 0:
                bind(node.target)

    module.visit(V())
    return counts


def _import(out: ImportMap, node: cst.Import, depth: int) -> None:
    for alias in node.names:
        full = _alias_dotted(alias)
        if not (full == "paddle" or full.startswith("paddle.")):
            continue
        if alias.asname is not None:
            local = ident(alias.asname.name.value)  # type: ignore[union-attr]
            b = Binding(local, full, alias, node, depth == 0)
        else:
            # `import paddle.fluid` binds `paddle`
            b = Binding("paddle", "paddle", alias, node, depth == 0)
            b.imports_module = full  # type: ignore[attr-defined]
        out.all_bindings.append(b)
        out.bindings.setdefault(b.local, b)
        if alias.asname is not None:
            out.bindings[b.local] = b


def _import_from(out: ImportMap, node: cst.ImportFrom, depth: int) -> None:
    if node.relative or node.module is None:
        return
    mod = module_name(node.module)
    if not (mod == "paddle" or mod.startswith("paddle.")):
        return
    if isinstance(node.names, cst.ImportStar):
        if is_legacy(mod):
            out.star_imports.append(node)
        return
    for alias in node.names:
        name = _alias_dotted(alias)
        local = ident(alias.asname.name.value) if alias.asname else name  # type: ignore[union-attr]
        b = Binding(local, f"{mod}.{name}", alias, node, depth == 0)
        out.all_bindings.append(b)
        out.bindings[local] = b


def is_legacy(dotted: Optional[str]) -> bool:
    return bool(dotted) and any(dotted == r or dotted.startswith(r + ".") for r in LEGACY_ROOTS)  # type: ignore[union-attr]


class ScopeTracker:
    """Names bound locally in the enclosing functions (they shadow imports).

    ``known`` maps ``id(function node)`` to ``(node, local_bindings(node))`` computed
    ahead (by a :class:`BindingsCollector` pass over the same tree); other functions are
    walked when they are pushed."""

    def __init__(self, known: Optional[Dict[int, tuple]] = None) -> None:
        self.stack: List[Set[str]] = []
        self.known = known
        self.owner: Dict[int, Union[cst.FunctionDef, cst.Lambda]] = {}  # id(set) -> its function

    def push(self, fn: Union[cst.FunctionDef, cst.Lambda]) -> None:
        names = None
        if self.known is not None:
            hit = self.known.get(id(fn))
            if hit is not None and hit[0] is fn:
                names = hit[1]
        if names is None:
            names = local_bindings(fn)
        self.owner[id(names)] = fn
        self.stack.append(names)

    def function(self) -> Optional[Union[cst.FunctionDef, cst.Lambda]]:
        """The innermost function whose body is being walked (None: module level)."""
        return self.owner.get(id(self.stack[-1])) if self.stack else None

    def pop(self) -> None:
        self.owner.pop(id(self.stack.pop()), None)

    def shadowed(self, name: str) -> bool:
        return any(name in s for s in self.stack)


def local_bindings(fn: Union[cst.FunctionDef, cst.Lambda]) -> Set[str]:
    return set(local_binding_counts(fn))


def local_binding_counts(fn: Union[cst.FunctionDef, cst.Lambda]) -> Dict[str, int]:
    """How often each name local to ``fn`` is bound in it (parameters count once)."""
    counts: Dict[str, int] = {}

    def add(name: str) -> None:
        counts[name] = counts.get(name, 0) + 1

    params = fn.params
    for p in list(params.params) + list(params.posonly_params) + list(params.kwonly_params):
        add(p.name.value)
    for star in (params.star_arg, params.star_kwarg):
        if isinstance(star, cst.Param):
            add(star.name.value)
    if isinstance(fn, cst.Lambda):
        return counts

    class V(cst.CSTVisitor):
        def visit_FunctionDef(self, node):  # nested functions have their own scope
            if node is not fn:
                add(node.name.value)
                return False
            return True

        def visit_ClassDef(self, node):
            add(node.name.value)
            return False

        def visit_Lambda(self, node):
            return False

        def visit_Import(self, node):
            return False  # imports inside functions are handled as bindings

        def visit_ImportFrom(self, node):
            return False

        def visit_Global(self, node):  # as BindingsCollector: later bindings count again
            for n in node.names:
                counts.pop(n.name.value, None)

        def _target(self, t):
            if isinstance(t, cst.Name):
                add(t.value)
            elif isinstance(t, (cst.Tuple, cst.List)):
                for el in t.elements:
                    self._target(el.value)
            elif isinstance(t, cst.StarredElement):
                self._target(t.value)

        def visit_AssignTarget(self, node):
            self._target(node.target)

        def visit_AnnAssign(self, node):
            self._target(node.target)

        def visit_AugAssign(self, node):
            self._target(node.target)

        def visit_For(self, node):
            self._target(node.target)

        def visit_WithItem(self, node):
            if node.asname is not None:
                self._target(node.asname.name)

        def visit_CompFor(self, node):
            self._target(node.target)

        def visit_ExceptHandler(self, node):
            if node.name is not None:
                self._target(node.name.name)

        def visit_NamedExpr(self, node):
            self._target(node.target)

    fn.body.visit(V())
    return counts


def _param_names(fn: Union[cst.FunctionDef, cst.Lambda]) -> Set[str]:
    names: Set[str] = set()
    params = fn.params
    for p in list(params.params) + list(params.posonly_params) + list(params.kwonly_params):
        names.add(p.name.value)
    for star in (params.star_arg, params.star_kwarg):
        if isinstance(star, cst.Param):
            names.add(star.name.value)
    return names


class BindingsCollector(FastVisitor):
    """:func:`local_bindings` of every ``def`` in one pass over a tree, as a side job of
    a visitor that walks the tree anyway (subclass it and call these ``visit_``/``leave_``
    methods from yours when you override them).

    Binding events (assignment targets, ``for``/``with``/``except`` names, comprehension
    and walrus targets, nested ``def``/``class`` names, ``global``) go to the innermost
    ``def`` body being walked; inside a ``def`` header, a ``class`` or a ``lambda`` they go
    nowhere, exactly as :func:`local_bindings` does not enter them. A subclass must not
    prune subtrees other than imports, or the sets are incomplete."""

    def __init__(self) -> None:
        super().__init__()
        self.bindings: Dict[int, tuple] = {}  # id(FunctionDef) -> (node, names)
        self._sinks: List[Optional[Set[str]]] = [None]

    def _bind(self, t) -> None:
        sink = self._sinks[-1]
        if sink is None:
            return
        if isinstance(t, cst.Name):
            sink.add(t.value)
        elif isinstance(t, (cst.Tuple, cst.List)):
            for el in t.elements:
                self._bind(el.value)
        elif isinstance(t, cst.StarredElement):
            self._bind(t.value)

    def visit_FunctionDef(self, node: cst.FunctionDef) -> Optional[bool]:
        sink = self._sinks[-1]
        if sink is not None:
            sink.add(node.name.value)
        self.bindings[id(node)] = (node, _param_names(node))
        self._sinks.append(None)  # decorators, parameters, annotations
        return None

    def visit_FunctionDef_body(self, node: cst.FunctionDef) -> None:
        self._sinks.append(self.bindings[id(node)][1])

    def leave_FunctionDef_body(self, node: cst.FunctionDef) -> None:
        self._sinks.pop()

    def leave_FunctionDef(self, original_node: cst.FunctionDef) -> None:
        self._sinks.pop()

    def visit_ClassDef(self, node: cst.ClassDef) -> Optional[bool]:
        sink = self._sinks[-1]
        if sink is not None:
            sink.add(node.name.value)
        self._sinks.append(None)
        return None

    def leave_ClassDef(self, original_node: cst.ClassDef) -> None:
        self._sinks.pop()

    def visit_Lambda(self, node: cst.Lambda) -> Optional[bool]:
        self._sinks.append(None)
        return None

    def leave_Lambda(self, original_node: cst.Lambda) -> None:
        self._sinks.pop()

    def visit_Import(self, node: cst.Import) -> Optional[bool]:
        return False

    def visit_ImportFrom(self, node: cst.ImportFrom) -> Optional[bool]:
        return False

    def visit_Global(self, node: cst.Global) -> Optional[bool]:
        sink = self._sinks[-1]
        if sink is not None:
            for n in node.names:
                sink.discard(n.name.value)
        return None

    def visit_AssignTarget(self, node: cst.AssignTarget) -> Optional[bool]:
        self._bind(node.target)
        return None

    def visit_AnnAssign(self, node: cst.AnnAssign) -> Optional[bool]:
        self._bind(node.target)
        return None

    def visit_AugAssign(self, node: cst.AugAssign) -> Optional[bool]:
        self._bind(node.target)
        return None

    def visit_For(self, node: cst.For) -> Optional[bool]:
        self._bind(node.target)
        return None

    def visit_WithItem(self, node: cst.WithItem) -> Optional[bool]:
        if node.asname is not None:
            self._bind(node.asname.name)
        return None

    def visit_CompFor(self, node: cst.CompFor) -> Optional[bool]:
        self._bind(node.target)
        return None

    def visit_ExceptHandler(self, node: cst.ExceptHandler) -> Optional[bool]:
        if node.name is not None:
            self._bind(node.name.name)
        return None

    def visit_NamedExpr(self, node: cst.NamedExpr) -> Optional[bool]:
        self._bind(node.target)
        return None
