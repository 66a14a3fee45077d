"""Structural rules: one module per change, its docstring the rule's documentation
(What it does / Why is this bad? / Example / Fix safety).

A module that rewrites calls of entries marked ``structural = "<name>"`` defines
``STRUCTURAL = "<name>"`` and ``rewrite_call(upgrader, original, updated, entry)``; a module
that rewrites whole simple statements (delete, replace) defines
``leave_statement(upgrader, original, updated)``, called for every simple and compound
statement (return ``updated`` when not concerned; keep it cheap). A module whose structural
entries are also used as values (not called: ``isinstance(v, fluid.Variable)``) may define
``rewrite_reference(upgrader, node, entry)``: return a replacement expression (having
reported the finding), ``node`` itself (reported, left as it is) or None (not concerned:
the engine's plain handling of references applies); one whose entry is a class users
subclass may define ``rewrite_attribute(upgrader, node, entry)`` for ``Class.__init__``
(a dunder attribute of the class: the replacement, having reported it, or ``node``). A
module whose rewrite deletes the call statement of some of its structural entries lists
those names in ``DELETES``
(``explain`` and docs/rules.md then say "(call removed)" instead of the entry's target);
one that decides per call whether a safe rule's rewrite changes results lists the legacy
names in ``UNSAFE_WHEN`` and defines ``unsafe_reason(upgrader, call, entry)`` (one that
decides per call that a rule has no faithful rewrite: ``MANUAL_WHEN`` and
``manual_reason(upgrader, call, entry)``; one that finds an argument its rule marks
unsafe harmless in a call: ``SAFE_ARGS_WHEN`` and ``safe_arg(upgrader, call, entry,
name)``); one whose
rewrite calls code it adds to the module describes it in ``HELPERS`` (shown
instead of the target; ``HELPER_OF`` maps a legacy name to its own description, when
one fixer adds several; ``ARGS_TAKEN`` maps a legacy name to {argument: what the fixer
does with a value the rule's plain mapping leaves manual}, shown by ``explain``) and adds
it in ``finish_module(upgrader, module)``, which runs
after the imports are settled (:func:`insert_after_head` places it; the common case:
:func:`helper_conflict` before the rewrite, :func:`use_helper` / :func:`need_helper` for
it, :func:`add_used_helpers` in ``finish_module``).
All are registered here on import, so there is no hand-written list to forget.
"""
from __future__ import annotations

import ast
import importlib
import pkgutil
import re
from typing import Callable, Dict, List, Optional, Set

import libcst as cst

def bound_or_report(up, original, updated, entry, applicable: bool = True,
                    keep_kwargs: bool = False):
    """The legacy call's arguments bound by the entry's 1.8 signature, or None after
    reporting why the call stays: the rule cannot apply here (disabled, suppressed, unsafe
    without --unsafe-fixes, or not ``applicable``), or its arguments do not bind. With
    ``keep_kwargs`` (the caller keeps the arguments as written, for code that takes 1.8's
    signature) a ``**kwargs`` argument is set aside and the others bind partially. The
    common start of a structural ``rewrite_call``."""
    from upgrader.args import Manual, bind
    if not applicable or not up.can_apply(entry, original):
        up.report_entry(original, entry, False)
        return None
    plain = [a for a in updated.args if a.star != "**"] if keep_kwargs else updated.args
    if len(plain) == len(updated.args):
        bound = bind(entry, updated)
    else:
        bound = bind(entry, updated.with_changes(args=plain), partial=True)
    if isinstance(bound, Manual):
        up.report_entry(original, entry, False, manual=bound.reason)
        return None
    return bound


def _is_marker(stmt) -> bool:
    """A notebook's cell marker (notebook.py)."""
    return isinstance(stmt, cst.SimpleStatementLine) and len(stmt.body) == 1 and isinstance(
        stmt.body[0], cst.Expr) and isinstance(stmt.body[0].value, cst.Name) and \
        stmt.body[0].value.value.startswith("__paddle_upgrade_cell_")


def is_head(stmt, i: int) -> bool:
    """An import, the module docstring (``i``: the statement's index), or a notebook's cell
    marker."""
    if not isinstance(stmt, cst.SimpleStatementLine):
        return False
    return all(isinstance(s, (cst.Import, cst.ImportFrom)) or (
        i == 0 and isinstance(s, cst.Expr) and isinstance(s.value, (cst.SimpleString, cst.ConcatenatedString))) or (
        isinstance(s, cst.Expr) and isinstance(s.value, cst.Name)
        and s.value.value.startswith("__paddle_upgrade_cell_"))
        for s in stmt.body)


def insert_after_head(module: cst.Module, sources: List[str]) -> cst.Module:
    """``module`` with the statements of ``sources`` (code a rewrite calls: HELPERS) after
    its leading docstring and imports, before any statement that runs code (a notebook:
    at the top of the first cell that holds other code), two blank lines around them."""
    if not sources:
        return module
    body = list(module.body)
    idx = 0
    for i, s in enumerate(body):
        if is_head(s, i):
            idx = i + 1
        else:
            break
    blank = cst.EmptyLine()
    added = [cst.parse_statement(src).with_changes(leading_lines=[blank, blank]) for src in sources]
    if idx > 0 and _is_marker(body[idx - 1]):
        added[0] = added[0].with_changes(leading_lines=[])
    if idx < len(body):
        nxt = body[idx]
        lead = list(nxt.leading_lines)
        empties = 0
        for line in lead:
            if line.comment is None:
                empties += 1
            else:
                break
        if empties < 2:
            body[idx] = nxt.with_changes(leading_lines=[blank] * (2 - empties) + lead)
    body[idx:idx] = added
    return module.with_changes(body=body)


def helper_state(up, name: str, source: str) -> str:
    """Whether code a fixer adds under ``name`` (its text ``source``) can go in: 'insert'
    (no code of the module spells the name; comments do not count, the TODO of an unsafe
    rewrite may name it), 'reuse' (the module defines this very function or class at
    module level: a second fix) or 'conflict' (the name means something else there)."""
    cache = up.__dict__.setdefault("_helper_states", {})
    if name not in cache:
        result = "insert"
        if name in up.source and name in re.sub(r"#[^\n]*", "", up.source):
            defs = [s for s in up.module.body if isinstance(s, (cst.FunctionDef, cst.ClassDef))
                    and s.name.value == name]
            same = len(defs) == 1 and up.module.code_for_node(
                defs[0].with_changes(leading_lines=())) == source
            result = "reuse" if same else "conflict"
        cache[name] = result
    return cache[name]


def own_statement_lists(scope):
    """The statement lists of ``scope``'s own code (not of nested functions or classes)."""
    stack = [scope]
    while stack:
        node = stack.pop()
        for field in ("body", "orelse", "finalbody"):
            block = getattr(node, field, None)
            if isinstance(block, list) and block and isinstance(block[0], ast.stmt):
                yield block
                stack.extend(s for s in block if not isinstance(
                    s, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)))
        for handler in getattr(node, "handlers", []) or []:
            yield handler.body
            stack.extend(handler.body)


def callee_short_name(func) -> "str | None":
    """The last name of an ``ast`` callee (``fluid.layers.accuracy`` -> ``accuracy``), for
    pre-scans that look for calls by their short name."""
    if isinstance(func, ast.Attribute):
        return func.attr
    if isinstance(func, ast.Name):
        return func.id
    return None


def imported_name(up, node) -> "str | None":
    """The full legacy name a (dotted) expression spells through the module's imports
    (``fluid.dygraph.X`` -> ``paddle.fluid.dygraph.X``), or None. No scope check: for
    scans of the module ahead of the traversal (``up.resolve_dotted`` checks the scope at
    the node being visited)."""
    from upgrader.names import dotted_of
    d = dotted_of(node)
    if d is None:
        return None
    head, _, rest = d.partition(".")
    base = up.imports.resolve_name(head)
    if base is None:
        return None
    return f"{base}.{rest}" if rest else base


def imported_entry(up, node):
    """The rule entry :func:`imported_name` names, or None."""
    full = imported_name(up, node)
    return up.rules.lookup(full) if full else None


def helper_conflict(up, original, entry, name: str, source: str) -> bool:
    """Whether the module already uses ``name`` for something else than the code a fixer
    would add under it; the call is then reported manual (the entry's note) and stays."""
    if helper_state(up, name, source) != "conflict":
        return False
    up.report_entry(original, entry, False, manual=(
        f"the module already uses the name {name} for something else; {entry.note}"))
    return True


def need_helper(up, name: str) -> None:
    """Remember that the rewritten module calls the code a fixer adds under ``name``
    (:func:`add_used_helpers`)."""
    up.__dict__.setdefault("_helpers_used", set()).add(name)


def use_helper(up, original, entry, name: str, what: str, shown: str = "") -> None:
    """Report the call rewritten to code fix adds to the module under ``name`` (``what``
    it is, e.g. "a function fix adds to the module: ..."; ``shown``: the callee written,
    ``name`` by default) and remember that the module needs it (:func:`need_helper`)."""
    need_helper(up, name)
    up.report(original, entry.code,
              f"`{entry.short}` → `{shown or name}` ({what})", entry.name, entry.target,
              entry.safety, applied=True)


def call_added_function(up, original, updated, entry, name: str, source: str, what: str,
                        manual_reason: Optional[Callable] = None, method: str = ""):
    """The call of a legacy function or class that becomes a call, with the same arguments,
    of code fix adds to the module under ``name`` (its text ``source``, which takes 1.8's
    signature; ``what`` it is, for the report); a ``**kwargs`` argument passes through.
    Reported manual and left as it is when the module uses the name otherwise, the
    arguments do not bind to the entry's 1.8 signature, or ``manual_reason(bound)`` (the
    bound arguments) gives a reason. With ``method``, the call becomes ``name.method(...)``
    (a class fix adds whose methods take the 1.8 functions' signatures)."""
    bound = bound_or_report(up, original, updated, entry, keep_kwargs=True)
    if bound is None:
        return updated
    why = manual_reason(bound) if manual_reason is not None else None
    if why:
        up.report_entry(original, entry, False, manual=why)
        return updated
    if helper_conflict(up, original, entry, name, source):
        return updated
    up.needed_imports.add("paddle")
    use_helper(up, original, entry, name, what, shown=f"{name}.{method}" if method else "")
    if method:
        return updated.with_changes(func=cst.Attribute(cst.Name(name), cst.Name(method)))
    return updated.with_changes(func=cst.Name(name))


def call_helper(up, original, updated, entry, name: str, what: str):
    """``updated`` with its arguments mapped by the entry's rules (as for its target) onto
    ``name``, code fix adds to the module that subclasses or wraps a ``paddle`` API, reported
    as that rewrite (:func:`use_helper`); when the arguments do not map, the call is
    reported manual and stays."""
    from upgrader.args import Manual, map_call
    mapped = map_call(entry, updated, cst.Name(name))
    if isinstance(mapped, Manual):
        up.report_entry(original, entry, False, manual=mapped.reason)
        return updated
    up.needed_imports.add("paddle")
    use_helper(up, original, entry, name, what)
    return mapped[0]


def add_used_helpers(up, module: cst.Module, sources: Dict[str, str]) -> cst.Module:
    """``module`` with the code of ``sources`` (name -> source, in that order) that the
    rewrites used (:func:`need_helper`) and the module does not define yet, after its
    docstring and imports."""
    used = up.__dict__.get("_helpers_used", ())
    wanted = [src for name, src in sources.items()
              if name in used and helper_state(up, name, src) == "insert"]
    return insert_after_head(module, wanted)


CALL_FIXERS: Dict[str, Callable] = {}
REFERENCE_FIXERS: Dict[str, Callable] = {}
# structural name -> rewrite_attribute(upgrader, node, entry): ``Class.__init__`` (a dunder
# attribute of the entry's class, e.g. in a subclass) -> its replacement (having reported it)
ATTRIBUTE_FIXERS: Dict[str, Callable] = {}
STATEMENT_FIXERS: List[Callable] = []
DELETING: Set[str] = set()  # structural names whose rewrite deletes the call statement
HELPERS: Dict[str, str] = {}  # structural name -> the code fix adds to the module instead
HELPERS_BY_NAME: Dict[str, str] = {}  # legacy name -> the same, for one entry (HELPER_OF)
ARGS_TAKEN: Dict[str, Dict[str, str]] = {}  # legacy name -> {argument: what a fixer does with a value the plain mapping cannot take}
FINISHERS: List[Callable] = []  # finish_module(upgrader, module) -> module, after the imports
# legacy name -> unsafe_reason(upgrader, call, entry): why this call of a safe rule changes
# results in this module (a module lists the names in UNSAFE_WHEN), or None
UNSAFE_CHECKS: Dict[str, Callable] = {}
# legacy name -> safe_arg(upgrader, call, entry, argument name): True when an argument
# that makes the rule unsafe in general changes nothing in this module (SAFE_ARGS_WHEN)
SAFE_ARGS: Dict[str, Callable] = {}
# legacy name -> manual_reason(upgrader, call, entry): why this call of a rule has no
# faithful rewrite in this module (a module lists the names in MANUAL_WHEN), or None
MANUAL_CHECKS: Dict[str, Callable] = {}
# legacy name -> after_apply(upgrader, original call, rewritten call, entry) -> the call's final
# form, after the entry's own mapping (a module lists the names in AFTER_APPLY_WHEN)
AFTER_APPLY: Dict[str, Callable] = {}
MODULES = {}


def _after_each(first: Optional[Callable], then: Callable) -> Callable:
    """Two fixers' after_apply for one name, in module order (the second sees the first's
    result)."""
    if first is None:
        return then
    return lambda up, original, node, entry: then(up, original, first(up, original, node, entry), entry)


for _info in pkgutil.iter_modules(__path__):  # type: ignore[name-defined]
    _mod = importlib.import_module(f"{__name__}.{_info.name}")
    MODULES[_info.name] = _mod
    for _name in getattr(_mod, "STRUCTURAL", ()):
        CALL_FIXERS[_name] = _mod.rewrite_call
        if hasattr(_mod, "rewrite_reference"):
            REFERENCE_FIXERS[_name] = _mod.rewrite_reference
        if hasattr(_mod, "rewrite_attribute"):
            ATTRIBUTE_FIXERS[_name] = _mod.rewrite_attribute
    DELETING.update(getattr(_mod, "DELETES", ()))
    HELPERS.update(getattr(_mod, "HELPERS", {}))
    HELPERS_BY_NAME.update(getattr(_mod, "HELPER_OF", {}))
    for _name, _args in getattr(_mod, "ARGS_TAKEN", {}).items():
        ARGS_TAKEN.setdefault(_name, {}).update(_args)
    for _name in getattr(_mod, "UNSAFE_WHEN", ()):
        UNSAFE_CHECKS[_name] = _mod.unsafe_reason
    for _name in getattr(_mod, "SAFE_ARGS_WHEN", ()):
        SAFE_ARGS[_name] = _mod.safe_arg
    for _name in getattr(_mod, "MANUAL_WHEN", ()):
        MANUAL_CHECKS[_name] = _mod.manual_reason
    for _name in getattr(_mod, "AFTER_APPLY_WHEN", ()):
        AFTER_APPLY[_name] = _after_each(AFTER_APPLY.get(_name), _mod.after_apply)
    if hasattr(_mod, "finish_module"):
        FINISHERS.append(_mod.finish_module)
    if hasattr(_mod, "leave_statement"):
        STATEMENT_FIXERS.append(_mod.leave_statement)

from upgrader.fixers import dygraph_guard, fetch_by_name, imports, optimizer_methods, layer_act, program_clone, small_forms, static_mode  # noqa: E402,F401
from upgrader.fixers import backward_accumulation, layers_data, program_methods, static_dropout  # noqa: E402,F401
from upgrader.fixers import switch_block  # noqa: E402,F401
