"""PU002 legacy-import: imports are scheduled and cleaned once, at the end.

What it does
    Removes ``paddle.fluid`` imports that no code uses any more after the rewrite (and
    named imports of the deprecated ``paddle.dataset`` modules, ``import
    paddle.dataset.conll05 as conll05``, once their reader calls are rewritten), and
    adds ``import paddle`` (once, where the first legacy import was) when the rewritten
    code needs it. Imports still used by code left for a manual rewrite stay.
    A top-level alias of a legacy module or name (``layers = fluid.layers``,
    ``fc = fluid.layers.fc``), bound nowhere else in the module, resolves like an import:
    its uses are rewritten and the alias goes when nothing uses it any more. A legacy
    module used as a value otherwise (``register(fluid.layers)``, an alias bound twice)
    is reported for a manual rewrite. A top-level ``def``/``class`` (or ``name =
    lambda``/``name = call(...)``) after a legacy import of the same name is the module's
    own: the calls below it and in functions are left alone and the import goes (it stays,
    reported for a manual rewrite, when a top-level statement used it before).

Why is this bad?
    ``import paddle.fluid`` fails on Paddle 2.6+: a leftover legacy import alone kills
    the program.

Example
    ``import paddle.fluid as fluid`` + ``fluid.layers.relu(x)`` becomes
    ``import paddle`` + ``paddle.nn.functional.relu(x)``.

Fix safety
    Safe. One house style: the rewritten code spells full ``paddle.*`` paths and relies
    on a single ``import paddle``.
"""
from __future__ import annotations

from typing import Dict, List, Optional, Set, Tuple

import libcst as cst

from upgrader.names import (BindingsCollector, ScopeTracker, _param_names, collect_imports,
                            dotted_of, is_legacy)

CODE = "PU002"


def _used_names(module: cst.Module, skip: Optional[Set[int]] = None,
                quiet: Optional[Dict[int, object]] = None) -> Set[str]:
    """Names used as values, not shadowed by a local binding of an enclosing function
    (or lambda). One walk: the functions' local bindings are collected on the way and the
    shadowing of each use is decided at the end, when they are complete (the same sets
    ``local_bindings`` computes when a function is entered). Statements whose id is in
    ``skip`` (module-level ``L = fluid.layers`` aliases) are not looked at, nor the
    statements of ``quiet`` (untouched.py: statements of the module as parsed that name no
    legacy binding, no alias and nothing called ``paddle``, so none of the names this
    walk's callers ask about)."""
    uses: List[Tuple[str, tuple]] = []
    quiet = quiet or {}

    class V(BindingsCollector):
        def __init__(self):
            super().__init__()
            self.stack: tuple = ()  # the scopes' binding sets, innermost last
            self.skip_decorators: Set[int] = set()
            self.def_names: Set[int] = set()

        def visit_ClassDef(self, node):
            self.def_names.add(id(node.name))
            return super().visit_ClassDef(node)

        def visit_Assign(self, node):
            return not (skip and id(node) in skip)

        def on_visit(self, node):
            return id(node) not in quiet and super().on_visit(node)

        def on_leave(self, original_node):
            if id(original_node) not in quiet:
                super().on_leave(original_node)

        def visit_FunctionDef(self, node):
            super().visit_FunctionDef(node)
            self.def_names.add(id(node.name))  # `def flatten` is not a use of `flatten`
            # decorators run in the enclosing scope: walk them before entering the function
            outer = self.stack
            for d in node.decorators:
                d.visit(self)
            self.skip_decorators.update(id(d) for d in node.decorators)
            self.stack = outer + (self.bindings[id(node)][1],)

        def leave_FunctionDef(self, node):
            self.stack = self.stack[:-1]
            super().leave_FunctionDef(node)

        def visit_Decorator(self, node):
            return id(node) not in self.skip_decorators  # already walked (above)

        def visit_Lambda(self, node):
            super().visit_Lambda(node)
            self.stack = self.stack + (_param_names(node),)

        def leave_Lambda(self, node):
            self.stack = self.stack[:-1]
            super().leave_Lambda(node)

        def visit_Param(self, node):
            if node.default is not None:
                node.default.visit(self)
            return False

        def visit_Name(self, node):
            if id(node) not in self.def_names:
                uses.append((node.value, self.stack))

        def visit_WithItem(self, node):
            # `with guard() as g` left for a manual rewrite keeps an import that binds g
            # (a second fix must see the same clash)
            if node.asname is not None and isinstance(node.asname.name, cst.Name):
                uses.append((node.asname.name.value, self.stack))
            return super().visit_WithItem(node)

        def visit_Attribute(self, node):
            d = dotted_of(node)
            if d and d.startswith("paddle.fluid"):
                uses.append(("paddle.fluid", ()))
            node.value.visit(self)  # `.attr` is not a use of a name
            return False

        def visit_Arg(self, node):
            node.value.visit(self)  # `keyword=` is not a use of a name
            return False

    module.visit(V())
    used: Set[str] = set()
    for name, stack in uses:
        if name not in used and not any(name in s for s in stack):
            used.add(name)
    return used


def _used_names_reference(module: cst.Module) -> Set[str]:
    """:func:`_used_names` as two walks (``local_bindings`` when a function is entered);
    kept as the reference the one-walk version is tested against."""
    used: Set[str] = set()
    scope = ScopeTracker()

    walked: Set[int] = set()

    class V(cst.CSTVisitor):
        def visit_FunctionDef(self, node):
            for d in node.decorators:  # the enclosing scope's
                d.visit(self)
                walked.add(id(d))
            walked.add(id(node.name))  # a definition's own name is not a use
            scope.push(node)

        def visit_ClassDef(self, node):
            walked.add(id(node.name))

        def leave_FunctionDef(self, node):
            scope.pop()

        def visit_Decorator(self, node):
            return id(node) not in walked

        def visit_Lambda(self, node):
            scope.push(node)

        def leave_Lambda(self, node):
            scope.pop()

        def visit_Param(self, node):
            if node.default is not None:
                node.default.visit(self)
            return False

        def visit_Import(self, node):
            return False

        def visit_ImportFrom(self, node):
            return False

        def visit_Name(self, node):
            if id(node) not in walked and not scope.shadowed(node.value):
                used.add(node.value)

        def visit_WithItem(self, node):
            if node.asname is not None and isinstance(node.asname.name, cst.Name) \
                    and not scope.shadowed(node.asname.name.value):
                used.add(node.asname.name.value)

        def visit_Attribute(self, node):
            d = dotted_of(node)
            if d and d.startswith("paddle.fluid"):
                used.add("paddle.fluid")
            node.value.visit(self)  # `.attr` is not a use of a name
            return False

        def visit_Arg(self, node):
            node.value.visit(self)  # `keyword=` is not a use of a name
            return False

    module.visit(V())
    return used


def _binds_paddle(module: cst.Module) -> bool:
    """A top-level ``import paddle`` (or ``import paddle.x``) that no module-level code
    before it uses ``paddle``: one further down, after code that now uses ``paddle``,
    would come too late."""
    earlier = []
    for stmt in module.body:
        if isinstance(stmt, cst.SimpleStatementLine) and _imports_paddle(stmt):
            return not any(_runs_paddle(s) for s in earlier)
        earlier.append(stmt)
    return False


def _imports_paddle(stmt: cst.SimpleStatementLine) -> bool:
    for x in stmt.body:
        if isinstance(x, cst.Import):
            for a in x.names:
                full = dotted_of(a.name) or ""
                if a.asname is None:
                    if full.split(".")[0] == "paddle" and not is_legacy(full):
                        return True
                elif full == "paddle" and a.asname.name.value == "paddle":  # type: ignore[union-attr]
                    return True
    return False


def _runs_paddle(stmt) -> bool:
    """Whether ``stmt`` reads the name ``paddle`` when it runs (function bodies and
    lambdas run later)."""
    found = []

    class V(cst.CSTVisitor):
        def visit_FunctionDef(self, node):
            for d in node.decorators:
                d.visit(self)
            return False

        def visit_Lambda(self, node):
            return False

        def visit_Import(self, node):
            return False  # `import paddle.fluid as fluid` names the package, reads nothing

        def visit_ImportFrom(self, node):
            return False

        def visit_Name(self, node):
            if node.value == "paddle":
                found.append(node)

    stmt.visit(V())
    return bool(found)


def _binds_module(module: cst.Module, name: str) -> bool:
    """A top-level ``import name`` (or ``import name as name``) exists."""
    for stmt in module.body:
        if isinstance(stmt, cst.SimpleStatementLine):
            for s in stmt.body:
                if isinstance(s, cst.Import):
                    for a in s.names:
                        local = a.asname.name.value if a.asname else dotted_of(a.name).split(".")[0]
                        if local == name:
                            return True
    return False


def _is_dataset_module(dotted: Optional[str]) -> bool:
    """``paddle.dataset`` or one of its modules, bound to a name of its own (``import
    paddle.dataset.mnist as mnist``, ``from paddle.dataset import mnist``): deprecated
    since 2.0; its readers are rewritten (fixers/dataset_readers.py)."""
    return bool(dotted) and (dotted == "paddle.dataset" or dotted.startswith("paddle.dataset."))


def clean(up, module: cst.Module, force_paddle: bool = False) -> cst.Module:
    imap = collect_imports(module)
    aliases = [b for b in imap.all_bindings if getattr(b, "alias_assignment", False)]
    remove = set()
    quiet = getattr(up, "quiet", None)
    used = _used_names(module, quiet=quiet)
    if aliases:
        # an alias is unused when nothing but its own statement names it; the names its
        # value uses (`fluid`) stay used only through the aliases that are kept
        outside = _used_names(module, skip={id(b.node) for b in aliases}, quiet=quiet)
        dropped = {id(b.node) for b in aliases if is_legacy(b.dotted) and b.local not in outside}
        remove |= dropped
        used = _used_names(module, skip=dropped, quiet=quiet) if dropped else used
    for b in imap.all_bindings:
        if getattr(b, "alias_assignment", False):
            continue
        legacy_module = getattr(b, "imports_module", None)
        if legacy_module is not None:  # `import paddle.fluid` binds `paddle`
            if is_legacy(legacy_module) and "paddle.fluid" not in used:
                remove.add(id(b.node))
        elif (is_legacy(b.dotted) or _is_dataset_module(b.dotted)) and (
                b.local not in used or getattr(b, "redefined", False)):
            remove.add(id(b.node))
    def key(b):
        return (b.local, b.dotted, getattr(b, "imports_module", None))
    originals = {}
    for b in up.imports.all_bindings:
        originals.setdefault(key(b), b)
    for b in imap.all_bindings:
        if getattr(b, "redefined", None) is False and id(b.node) not in remove:
            where = originals.get(key(b), b)
            up.report_at(up.import_pos.get(id(where.statement), (0, 0, 0, 0)), CODE,
                         f"`{b.local}` ({b.dotted}) is used at the top level before the module "
                         f"defines its own `{b.local}`: those uses stay the legacy API (rewrite "
                         "them by hand), the later ones are the module's own",
                         b.dotted, "", "manual")
            continue
        if id(b.node) in remove:
            where = originals.get(key(b), b)
            if getattr(b, "alias_assignment", False):
                up.report_at(up.pos(where.statement), CODE,
                             f"legacy alias `{b.local} = {b.dotted}`: every use was rewritten",
                             b.dotted, "paddle", "safe", applied=True)
                continue
            up.report_at(up.import_pos.get(id(where.statement), (0, 0, 0, 0)), CODE, f"legacy import of `{getattr(b, 'imports_module', b.dotted)}`",
                      getattr(b, "imports_module", b.dotted), "paddle", "safe", applied=True)
    if not up.opts.fix:
        return module
    needs_paddle = ("paddle" in used or force_paddle) and not _binds_paddle(module)
    extra = sorted(m for m in up.needed_imports if not _binds_module(module, m))
    if not remove and not needs_paddle and not extra:
        return module
    t = _Remover(remove, needs_paddle, _holders(module.body, remove))
    module = module.visit(t)
    if needs_paddle and not _binds_paddle(module):
        module = _add_import(module, "paddle")
    for name in extra:
        if not _binds_module(module, name):  # "paddle" may have just been added
            module = _add_import(module, name)
    return module


def _holds(small, remove: Set[int]) -> bool:
    if id(small) in remove:  # `L = fluid.layers`
        return True
    names = getattr(small, "names", None) if isinstance(small, (cst.Import, cst.ImportFrom)) else None
    return isinstance(names, (list, tuple)) and any(id(a) in remove for a in names)


def _holders(body, remove: Set[int], out: Optional[Set[int]] = None) -> Set[int]:
    """ids of the statements that hold (or are) a statement with a node to remove: the
    only ones the remover must rebuild. Walks statements only, never expressions."""
    out = set() if out is None else out
    for stmt in body:
        if isinstance(stmt, cst.SimpleStatementLine):
            if any(_holds(s, remove) for s in stmt.body):
                out.add(id(stmt))
            continue
        if not isinstance(stmt, cst.BaseCompoundStatement):
            continue
        inner: Set[int] = set()
        blocks = [stmt.body, getattr(stmt, "orelse", None), getattr(stmt, "finalbody", None)]
        blocks += [h.body for h in getattr(stmt, "handlers", ()) or ()]
        blocks += [c.body for c in getattr(stmt, "cases", ()) or ()]
        for b in blocks:
            if isinstance(b, (cst.Else, cst.Finally)):
                b = b.body
            if isinstance(b, cst.If):  # elif
                _holders([b], remove, inner)
            elif isinstance(b, cst.IndentedBlock):
                _holders(b.body, remove, inner)
            elif isinstance(b, cst.SimpleStatementSuite) and any(_holds(s, remove) for s in b.body):
                inner.add(id(b))
        if inner:
            out |= inner
            out.add(id(stmt))
    return out


class _Remover(cst.CSTTransformer):
    """Removes the import names (and module aliases) in ``remove``, dropping emptied
    lines; only the statements in ``holders`` (:func:`_holders`) are walked."""

    def __init__(self, remove: Set[int], needs_paddle: bool, holders: Optional[Set[int]] = None):
        self.remove = remove
        self.holders = holders
        self.needs_paddle = needs_paddle
        # id -> the placeholder itself: holding it keeps its id from being reused by a node
        # built later in the walk (an emptied line is dropped, its placeholder freed, and a
        # rebuilt docstring could land at the same address and be dropped as "emptied")
        self.placeholders: Dict[int, cst.Pass] = {}
        self.first_removed_index: Optional[int] = None
        self.depth = 0
        self.index = -1

    def visit_Module(self, node):
        return True

    def on_visit(self, node):
        if isinstance(node, cst.BaseExpression):
            return False  # imports are statements: never descend into expressions
        if isinstance(node, (cst.SimpleStatementLine, cst.BaseCompoundStatement)):
            if self.depth == 0:
                self.index += 1
            self.depth += 1
            if self.holders is not None and id(node) not in self.holders:
                return False  # nothing to remove in it
        return super().on_visit(node)

    def on_leave(self, original, updated):
        if isinstance(original, (cst.SimpleStatementLine, cst.BaseCompoundStatement)):
            self.depth -= 1
        return super().on_leave(original, updated)

    def _filter(self, original, updated):
        names = [u for o, u in zip(original.names, updated.names) if id(o) not in self.remove]
        if len(names) == len(updated.names):
            return updated
        if not names:
            placeholder = cst.Pass()
            self.placeholders[id(placeholder)] = placeholder
            return placeholder
        names[-1] = names[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)
        return updated.with_changes(names=names)

    def leave_Import(self, original, updated):
        return self._filter(original, updated)

    def leave_Assign(self, original, updated):
        """``layers = fluid.layers`` whose every use was rewritten."""
        if id(original) not in self.remove:
            return updated
        placeholder = cst.Pass()
        self.placeholders[id(placeholder)] = placeholder
        return placeholder

    def leave_ImportFrom(self, original, updated):
        if isinstance(updated.names, cst.ImportStar):
            return updated
        return self._filter(original, updated)

    def _compact(self, body, top: bool):
        """Drop emptied import lines, keeping their comments on the next statement."""
        out, carry = [], []
        for s in body:
            emptied = False
            if isinstance(s, cst.SimpleStatementLine) and any(id(x) in self.placeholders for x in s.body):
                kept = [x for x in s.body if id(x) not in self.placeholders]
                if kept:
                    kept[-1] = kept[-1].with_changes(semicolon=cst.MaybeSentinel.DEFAULT)
                    s = s.with_changes(body=kept)
                else:
                    emptied = True
            if emptied and top and self.first_removed_index is None and self.needs_paddle:
                self.first_removed_index = len(out)
                out.append(cst.parse_statement("import paddle\n").with_changes(
                    leading_lines=carry + list(s.leading_lines)))
                carry = []
                continue
            if emptied:
                carry.extend(l for l in s.leading_lines if l.comment is not None)
                continue
            if carry:
                s = s.with_changes(leading_lines=carry + list(s.leading_lines))
                carry = []
            out.append(s)
        return out, carry

    def leave_IndentedBlock(self, original, updated):
        body, carry = self._compact(updated.body, False)
        if not body:
            body = [cst.SimpleStatementLine(body=[cst.Pass()], leading_lines=carry)]
        return updated.with_changes(body=body)

    def leave_Module(self, original, updated):
        body, carry = self._compact(updated.body, True)
        footer = carry + list(updated.footer)
        return updated.with_changes(body=body, footer=footer)


def _add_import(module: cst.Module, name: str) -> cst.Module:
    """Add ``import name`` after the leading imports (no legacy import was replaced)."""
    body: List = list(module.body)
    stmt = cst.parse_statement(f"import {name}\n")
    if True:
        at = 0
        for i, s in enumerate(body):
            if isinstance(s, cst.SimpleStatementLine) and all(
                    isinstance(x, (cst.Import, cst.ImportFrom)) for x in s.body):
                at = i + 1
            elif i == 0 and isinstance(s, cst.SimpleStatementLine) and isinstance(s.body[0], cst.Expr) \
                    and isinstance(s.body[0].value, (cst.SimpleString, cst.ConcatenatedString)):
                at = 1
            else:
                break
        # keep `from __future__` first
    if at == 0 and body:  # first statement: take over its leading comments
        stmt = stmt.with_changes(leading_lines=body[0].leading_lines)
        body[0] = body[0].with_changes(leading_lines=[])
    body.insert(at, stmt)
    return module.with_changes(body=body)
