"""The rewrite engine, string in / string out.

Pipeline: parse → resolve legacy names by meaning (names.py) → for each legacy call bind
the arguments by the 1.8 signature and map them by the rule (args.py) or hand the call to
a structural fixer (fixers/) → structural statement rules (``dygraph.guard`` blocks) →
static-mode insertion → imports scheduled and cleaned once at the end.
"""
from __future__ import annotations

import ast
import copy
import contextlib
import gc
import os
import re
import unicodedata
from dataclasses import asdict, dataclass, field
from typing import Dict, List, Optional, Sequence, Set, Tuple

import libcst as cst
from libcst.metadata import PositionProvider
from libcst._position import CodePosition, CodeRange
from libcst.metadata.position_provider import PositionProvidingCodegenState

from upgrader import bound_names, fixers, hoist, noqa
from upgrader.args import ACT_HELPER_NOTE, ACT_LAYER_NOTE, Manual, _unpacked_hint, bind, code_of, map_call
from upgrader.names import (LEGACY_ROOTS, FastTransformer, ImportMap, ScopeTracker,
                            collect_imports, dotted_of, is_legacy)
from upgrader.rulebook import Entry, RuleBook, load
from upgrader.untouched import untouched_statements

TODO_PREFIX = "# TODO(paddle-upgrade): "

RULE_NAMES = {
    "PU001": "unknown-legacy-api",
    "PU002": "legacy-import",
    "PU003": "star-import",
    "PU101": "legacy-api",
    "PU102": "no-modern-equivalent",
    "PU103": "changed-semantics",
    "PU104": "optimizer",
    "PU105": "save-load",
    "PU106": "data-pipeline",
    "PU107": "legacy-launch",
    "PU201": "dygraph-guard-block",
    "PU202": "static-mode",
    "PU203": "layer-act",
    "PU204": "save-load-dygraph",
    "PU205": "pool2d-class",
    "PU206": "embedding-size",
    "PU207": "optimizer-minimize",
    "PU208": "program-clone-for-test",
    "PU209": "legacy-call-forms",
    "PU210": "elementwise-axis",
    "PU211": "fetch-by-name",
    "PU212": "data-parallel",
    "PU213": "program-translator",
    "PU214": "lr-scheduler-step",
    "PU215": "backward-accumulation",
    "PU216": "program-methods",
    "PU217": "static-amp-decorate",
    "PU218": "layer-include-sublayers",
    "PU219": "variable-truth-test",
    "PU220": "layer-eval-mode",
    "PU900": "unused-noqa",
    "PU301": "device-place",
    "PU302": "device-query",
}


class ParseError(Exception):
    def __init__(self, message: str, line: int = 1, column: int = 0):
        super().__init__(message)
        self.message = message
        self.line = line
        self.column = column

    def __str__(self) -> str:
        return f"line {self.line}: {self.message}"


@dataclass
class Finding:
    line: int
    column: int
    end_line: int
    end_column: int
    code: str
    rule: str
    message: str
    legacy: str
    replacement: str
    fix: str  # safe | unsafe | manual
    path: Optional[str] = None
    applied: bool = field(default=False, compare=False)

    def to_dict(self) -> dict:
        d = asdict(self)
        d.pop("applied")
        return d


@dataclass
class Result:
    code: str
    findings: List[Finding]
    changed: bool


@dataclass
class Options:
    fix: bool = True
    unsafe_fixes: bool = False
    select: Optional[Sequence[str]] = None
    ignore: Optional[Sequence[str]] = None

    def enabled(self, code: str) -> bool:
        if self.select and not any(code.startswith(s) for s in self.select):
            return False
        if self.ignore and any(code.startswith(s) for s in self.ignore):
            return False
        return True


def _marker(book: RuleBook):
    """What a file must contain to possibly use legacy API: ``fluid``, or ``paddle`` when
    the rule book has legacy names outside ``paddle.fluid`` (``paddle.dataset``...)."""
    if any(not e.name.startswith("paddle.fluid") for e in book):
        return re.compile("fluid|paddle")
    return re.compile("fluid")


_MARKERS: Dict[str, "re.Pattern"] = {}
_TOPS: Dict[str, frozenset] = {}


def _legacy_tops(book: RuleBook) -> frozenset:
    """``fluid`` and the other second components of the rule book's legacy names
    (``paddle.dataset.mnist.train`` -> ``dataset``)."""
    t = _TOPS.get(book.digest)
    if t is None:
        names = set(book.entries) | set(book.by_alias)
        t = _TOPS[book.digest] = frozenset(
            {"fluid"} | {n.split(".")[1] for n in names if n.startswith("paddle.") and n.count(".") >= 1})
    return t


def _marker_for(book: RuleBook):
    m = _MARKERS.get(book.digest)
    if m is None:
        m = _MARKERS[book.digest] = _marker(book)
    return m


def _plain_packages(imports: ImportMap) -> Set[str]:
    """Names bound only by module-level ``import paddle`` / ``import paddle as P``."""
    ok: Set[str] = set()
    bad: Set[str] = set()
    for b in imports.all_bindings:
        plain = b.dotted == "paddle" and b.module_level and isinstance(b.statement, cst.Import) \
            and getattr(b, "imports_module", "paddle") == "paddle" and not getattr(b, "alias_assignment", False)
        (ok if plain else bad).add(b.local)
    return ok - bad


def upgrade_source(code: str, *, fix: bool = True, unsafe_fixes: bool = False,
                   select: Optional[Sequence[str]] = None,
                   ignore: Optional[Sequence[str]] = None,
                   rules: Optional[RuleBook] = None) -> Result:
    """Upgrade one module's source. ``fix=False`` only reports (code unchanged)."""
    book = rules or load()
    if not _marker_for(book).search(code) and (
            code.isascii() or not _marker_for(book).search(unicodedata.normalize("NFKC", code))):
        return Result(code, [], False)
    with collector_paused():
        return _upgrade_parsed(code, book, fix, unsafe_fixes, select, ignore)


#: PADDLE_UPGRADE_VALIDATE_PARSE=1: libcst validates every node the parser builds (the
#: reference behaviour, tests/test_parse_validation.py)
_VALIDATE_PARSE = os.environ.get("PADDLE_UPGRADE_VALIDATE_PARSE") == "1"
_POST_INIT = cst.CSTNode.__post_init__


def _unvalidated(self) -> None:
    pass


def parse_module(code: str) -> cst.Module:
    """``libcst.parse_module`` without the per-node validation of the nodes it builds.
    libcst validates each node in its constructor (a quarter of parsing), a check meant
    for hand-built nodes: the parser's nodes are well formed by construction (the test
    compares trees and code with and without it on every source the tests have). Nodes
    the fixers build are still validated: this is off only while the parser runs."""
    if _VALIDATE_PARSE:
        return cst.parse_module(code)
    cst.CSTNode.__post_init__ = _unvalidated  # type: ignore[method-assign]
    try:
        return cst.parse_module(code)
    finally:
        cst.CSTNode.__post_init__ = _POST_INIT  # type: ignore[method-assign]


@contextlib.contextmanager
def collector_paused():
    """The cyclic garbage collector paused for one file's work, then one collection of
    the young generations. The walk allocates hundreds of thousands of nodes that live
    until it ends; the collector, triggered by allocation counts, would traverse them
    again and again (about a fifth of the engine's time). Everything the work made is
    young, so the young collection afterwards frees its cyclic garbage. Nested uses (the
    runner around a file, the engine inside) collect once, at the outer end."""
    if not gc.isenabled():
        yield
        return
    gc.disable()
    try:
        yield
    finally:
        gc.enable()
        gc.collect(1)


def _upgrade_parsed(code: str, book: RuleBook, fix: bool, unsafe_fixes: bool,
                    select: Optional[Sequence[str]], ignore: Optional[Sequence[str]]) -> Result:
    try:
        module = parse_module(code)
    except cst.ParserSyntaxError as exc:
        msg = exc.message
        if "expected one of" in msg or msg.startswith("parser error"):
            msg = "invalid syntax"
        line, column = exc.raw_line, exc.raw_column
        # CPython names the statement's first line and says why (a Python 2 `print`
        # spanning two lines: libcst points at the second); libcst's place is kept when
        # CPython parses the code
        try:
            compile(code, "<file>", "exec", flags=ast.PyCF_ONLY_AST, dont_inherit=True)
        except SyntaxError as py_exc:
            if py_exc.lineno:
                line, column = py_exc.lineno, max((py_exc.offset or 1) - 1, 0)
                msg = py_exc.msg or msg
        except (ValueError, OverflowError, RecursionError, MemoryError):
            pass
        raise ParseError(msg, line, column) from None
    except Exception as exc:  # libcst raises a few other errors on odd input
        raise ParseError(str(exc)) from None
    opts = Options(fix, unsafe_fixes, select, ignore)
    imports = collect_imports(module)
    if not imports.all_bindings:
        return Result(code, [], False)
    up = Upgrader(book, imports, opts, module, code)
    new_module = module.visit(up)
    new_module = finish_module(new_module, up)
    findings = sorted(up.findings, key=lambda f: (f.line, f.column, f.code))
    if not fix:
        return Result(code, findings, False)
    new_code = new_module.code
    return Result(new_code, findings, new_code != code)


_STATEMENT_TYPES: Dict[type, bool] = {}


def _is_statement(t: type) -> bool:
    """``isinstance(node, (SimpleStatementLine, BaseCompoundStatement))`` by the node's
    type, remembered (the ABC check is slow and runs twice per node)."""
    r = _STATEMENT_TYPES.get(t)
    if r is None:
        r = _STATEMENT_TYPES[t] = issubclass(t, (cst.SimpleStatementLine, cst.BaseCompoundStatement))
    return r


class _SyntacticPosition:
    """``PositionProvidingCodegenState.record_syntactic_position`` as a plain context
    manager (libcst's is a generator-based one, entered for most nodes)."""

    __slots__ = ("state", "node", "start_node", "end_node", "start")

    def __init__(self, state, node, start_node, end_node):
        self.state, self.node, self.start_node, self.end_node = state, node, start_node, end_node

    def __enter__(self) -> None:
        self.start = CodePosition(self.state.line, self.state.column)

    def __exit__(self, *exc) -> bool:
        state = self.state
        computed = state.provider._computed
        start = computed[self.start_node].start if self.start_node is not None else self.start
        end = computed[self.end_node].end if self.end_node is not None else \
            CodePosition(state.line, state.column)
        computed[self.node] = CodeRange(start, end)
        return False


class _PositionState(PositionProvidingCodegenState):
    """libcst's position-recording code generation, same results, less overhead."""

    def record_syntactic_position(self, node, *, start_node=None, end_node=None):
        return _SyntacticPosition(self, node, start_node, end_node)

    def _update_position(self, value: str) -> None:
        if "\n" in value or "\r" in value:
            super()._update_position(value)
        else:
            self.column += len(value)


def statement_positions(module: cst.Module, stmt: cst.CSTNode,
                        indents: Sequence[str]) -> Tuple[Dict[cst.CSTNode, "CodeRange"], str]:
    """Positions of the nodes of one statement, as if it began on line 1 inside blocks
    indented by ``indents``, and the code it generates there."""
    provider = PositionProvider()
    state = _PositionState(default_indent=module.default_indent,
                           default_newline=module.default_newline, provider=provider)
    state.indent_tokens.extend(indents)
    stmt._codegen(state)
    return provider._computed, "".join(state.tokens)


_NEWLINE = re.compile(r"\r\n|\r|\n")
#: compound statements whose header gets positions of its own (Upgrader.pos)
_HEADER_TYPES = (cst.With, cst.For, cst.While, cst.If, cst.FunctionDef, cst.ClassDef)
#: PADDLE_UPGRADE_FULL_POSITIONS=1: every position from the whole module's (the reference)
_FULL_POSITIONS = os.environ.get("PADDLE_UPGRADE_FULL_POSITIONS") == "1"


def _first_lines(text: str, n: int) -> str:
    """The first ``n`` lines of ``text`` with their line ends."""
    at = 0
    for _ in range(n):
        m = _NEWLINE.search(text, at)
        if m is None:
            return text
        at = m.end()
    return text[:at]


def positions(module: cst.Module) -> Dict[cst.CSTNode, "CodeRange"]:
    """``PositionProvider``'s positions of every node of ``module``, computed directly:
    one code generation pass (``MetadataWrapper`` adds an empty visit of the whole tree
    for the batchable providers it does not have)."""
    return statement_positions(module, module, ())[0]


#: expressions that need no parentheses wherever a call stood
_PRIMARY = (cst.Name, cst.Attribute, cst.Call, cst.Subscript, cst.Integer, cst.Float,
            cst.Imaginary, cst.SimpleString, cst.FormattedString, cst.List, cst.Dict, cst.Set,
            cst.ListComp, cst.SetComp, cst.DictComp, cst.Ellipsis)


class Upgrader(FastTransformer):
    """Rewrites legacy references; collects findings and the facts the final pass needs.

    Positions (``pos``) are those of ``PositionProvider`` on the module as parsed,
    computed on first use."""

    def __init__(self, rules: RuleBook, imports: ImportMap, opts: Options, module: cst.Module,
                 source: str = ""):
        super().__init__()
        self.noqa = noqa.parse_directives(source) if "noqa" in source else {}
        self.noqa_spans = noqa.statement_spans(source) if self.noqa else {}
        self.rules = rules
        self.imports = imports
        self.opts = opts
        self.module = module
        self.source = source
        self.fstring_quotes: List[str] = []  # quote character of each enclosing f-string
        self.function_decorators: Set[int] = set()  # ids of decorators of functions
        self.decorator_scopes: List[Optional[Set[str]]] = []
        self._positions: Optional[Dict[cst.CSTNode, "CodeRange"]] = None
        # statement-local positions (pos): the statements being visited with the indents
        # of their blocks, the ast line of each statement's first token, and per statement
        # its position table and line shift (None: it cannot be placed)
        self.anchors: Dict[int, Tuple[int, int, int]] = {}
        self.stmt_stack: List[Tuple[cst.CSTNode, Tuple[str, ...]]] = []
        self.indents: List[str] = []
        self._local: Dict[int, Optional[Tuple[Dict[cst.CSTNode, "CodeRange"], int]]] = {}
        self._line_starts: Optional[List[int]] = None
        self.scope = ScopeTracker()
        self.findings: List[Finding] = []
        self.handled_calls: Dict[int, Entry] = {}  # id(func node) -> entry
        self.act_getattr_modules: Set[int] = set()  # fluid.layers in getattr(fluid.layers, act)(x)
        self.grouped: Dict[int, cst.BaseExpression] = {}  # rewrites parenthesized by _grouped
        self.class_operands: Set[int] = set()  # ids of isinstance/issubclass class operands
        self.instance_classes: Set[int] = set()  # ids of isinstance class operands (no tuple)
        # ids of values kept to be called later: assigned, a parameter default, a branch of
        # a conditional expression, a dict value (`opt_cls = fluid.optimizer.Adam if ...`)
        self.kept_values: Set[int] = set()
        self.skip_nodes: Set[int] = set()  # Names that are not references
        self.ref_decisions: Dict[int, cst.BaseExpression] = {}
        self.todo_stack: List[List[str]] = []
        self.finding_marks: List[int] = []  # len(findings) when each open statement began
        # compound statements a statement fixer made around a single statement (e.g. the
        # program_guard a minimize is put under): that statement's follow-ups go on it,
        # inside the block, where a second run looks for them
        self.wrappers: Set[int] = set()
        self.needed_imports: Set[str] = set()
        self.class_stack: List[Dict[str, str]] = []  # attr -> act template
        self.guard_depth = 0
        self.guard_static_calls = 0  # static-only calls left manual inside guard blocks
        self.guard_marks: List[int] = []
        self.guard_items: Set[int] = set()
        self.compiled_programs: Set[int] = set()
        self.import_pos: Dict[int, Tuple[int, int, int, int]] = {}
        self.layer_act_calls: Dict[int, str] = {}  # id(call) -> act template
        self.layer_act_owner: Dict[int, tuple] = {}  # id(call) -> (id(class), attribute)
        self.layer_act_escapes: Dict[int, str] = {}  # id(call) -> a use the wrap misses
        # statements the walks need not enter (untouched.py): `untouched` for the rewrite,
        # `quiet` (a subset, with its assignments) for the survey and the used-names walk
        self.quiet: Dict[int, List[Tuple[str, str]]] = {}
        legacy_names = {k: b.dotted for k, b in imports.bindings.items()}
        # a name the module redefines after using its import: the statements naming it
        # keep that import alive (names.py `_module_redefinitions`)
        legacy_names.update((b.local, b.dotted) for b in imports.all_bindings
                            if getattr(b, "redefined", None) is False and b.local not in legacy_names)
        self.untouched = untouched_statements(module, source, legacy_names,
                                              _legacy_tops(rules), self.anchors, self.quiet,
                                              _plain_packages(imports))
        self.facts = fixers.static_mode.Facts()
        fixers.static_mode.survey(self, module)

    # ----------------------------------------------------------------- resolution
    def resolve_dotted(self, node: cst.BaseExpression) -> Optional[str]:
        d = dotted_of(node)
        if d is None:
            return None
        head, _, rest = d.partition(".")
        if self.scope.shadowed(head):
            return None
        base = self.imports.resolve_name(head)
        if base is None:
            return None
        return f"{base}.{rest}" if rest else base

    def entry_for(self, dotted: Optional[str]) -> Optional[Entry]:
        return self.rules.lookup(dotted) if dotted else None

    def pos(self, node: cst.CSTNode) -> Tuple[int, int, int, int]:
        """(line, column, end line, end column) of ``node`` in the module as parsed, 1-based
        columns; zeros for a node the rewrite made.

        The positions of a whole module cost a code generation of all of it; most modules
        need the positions of a few statements only. So a node inside a statement being
        visited gets its position from a code generation of the innermost such statement
        that holds it (of a compound statement's header only, when the node is there),
        shifted to the statement's line from the ``ast`` pass of untouched.py once the
        generated code is found at that line of the source; anything else falls back to
        the whole module's positions. Both give the same numbers: tests/test_untouched.py
        compares them on every reported node (``PADDLE_UPGRADE_FULL_POSITIONS=1`` makes
        every call use the whole module's)."""
        if self._positions is None:
            if not _FULL_POSITIONS:
                hit = self._statement_position(node)
                if hit is not None:
                    return hit
            self._positions = positions(self.module)
        r = self._positions.get(node)
        if r is None:  # a node made by the rewrite
            return 0, 0, 0, 0
        return r.start.line, r.start.column + 1, r.end.line, r.end.column + 1

    def _statement_position(self, node: cst.CSTNode) -> Optional[Tuple[int, int, int, int]]:
        """``pos`` from the tables of the statements being visited: one made already (an
        enclosing statement's), else the innermost statement's header table that holds
        ``node``, else the innermost whole statement's; None when none holds it."""
        stack, made = self.stmt_stack, self._local

        def tables():
            for stmt, _ in stack:
                for key in (id(stmt), -id(stmt)):
                    if made.get(key) is not None:
                        yield made[key]
            for whole in (False, True):
                for stmt, indents in reversed(stack):
                    if (-id(stmt) if whole else id(stmt)) not in made:
                        local = self._local_positions(stmt, indents, whole)
                        if local is not None:
                            yield local

        for table, shift in tables():
            r = table.get(node)
            if r is not None:
                return r.start.line + shift, r.start.column + 1, r.end.line + shift, r.end.column + 1
        return None

    def _local_positions(self, stmt: cst.CSTNode, indents: Tuple[str, ...], whole: bool):
        """(positions, line shift) of ``stmt``'s nodes, or None when it cannot be placed.
        Not ``whole``: for a compound statement with an indented body, the positions of its
        header (decorators, test, items, target ...) and of the statement itself only."""
        key = -id(stmt) if whole else id(stmt)
        done = self._local
        done[key] = None
        anchor = self.anchors.get(id(stmt))
        if anchor is None:
            return None
        header = None
        if not whole and type(stmt) in _HEADER_TYPES and isinstance(stmt.body, cst.IndentedBlock):
            header = cst.SimpleStatementLine(body=[cst.Pass()])  # stands for the body
            changes = {"body": stmt.body.with_changes(body=[header], footer=())}
            if getattr(stmt, "orelse", None) is not None:
                changes["orelse"] = None
            shown = stmt.with_changes(**changes)
        else:
            shown = stmt
            done[-id(stmt)] = None  # the whole statement's table is this one
        table, text = statement_positions(self.module, shown, indents)
        first_node = shown.name if isinstance(shown, (cst.FunctionDef, cst.ClassDef)) else shown
        r = table.get(first_node)
        if r is None:
            return None
        first = anchor[0] - r.start.line + 1  # the source line the statement's code starts on
        if header is not None:  # compare the header lines only
            cut = table[header].start.line - 1
            text = _first_lines(text, cut)
        starts = self._line_starts
        if starts is None:
            starts = self._line_starts = [0] + [m.end() for m in _NEWLINE.finditer(self.source)]
        if not 1 <= first <= len(starts):
            return None
        at = starts[first - 1]
        if self.source[at:at + len(text)] != text:
            return None
        shift = first - 1
        if header is not None:
            # the statement itself: from its header's start to where ast says it ends
            end_line, end_byte = anchor[1], anchor[2]
            if not 1 <= end_line <= len(starts):
                return None
            line_text = self.source[starts[end_line - 1]:starts[end_line] if end_line < len(starts) else None]
            end_col = len(line_text.encode("utf-8")[:end_byte].decode("utf-8", "replace"))
            table = dict(table)
            table[stmt] = CodeRange(table[shown].start, CodePosition(end_line - shift, end_col))
            del table[shown]
        done[key] = (table, shift)
        if shown is stmt:
            done[-id(stmt)] = done[key]
        return done[key]

    def get_metadata(self, key, node, default=cst.MaybeSentinel.DEFAULT):
        """``get_metadata(PositionProvider, node)`` as under ``MetadataWrapper``."""
        if key is PositionProvider:
            if self._positions is None:
                self._positions = positions(self.module)
            if node in self._positions:
                return self._positions[node]
            if default is not cst.MaybeSentinel.DEFAULT:
                return default
            raise KeyError(node)
        return super().get_metadata(key, node, default)

    # ----------------------------------------------------------------- findings
    def report(self, node: cst.CSTNode, code: str, message: str, legacy: str,
               replacement: str, fix: str, applied: bool = False, todo: Optional[str] = None) -> None:
        self.report_at(self.pos(node), code, message, legacy, replacement, fix, applied, todo)

    def report_at(self, pos, code: str, message: str, legacy: str,
                  replacement: str, fix: str, applied: bool = False,
                  todo: Optional[str] = None) -> None:
        if not self.opts.enabled(code):
            return
        line, col, eline, ecol = pos
        silent = bool(self.noqa) and self.suppressed(line, code)
        self.findings.append(Finding(line, col, eline, ecol, code, RULE_NAMES.get(code, "legacy-api"),
                                     message, legacy, replacement, fix, applied=applied))
        if (fix == "manual" or (fix == "unsafe" and not applied)) and not silent:
            if self.todo_stack:
                # point the TODO at the entry when there is one, else at the rule itself
                explain = legacy if not legacy or self.rules.lookup(legacy) else code
                self.todo_stack[-1].append(todo_text(code, todo or message, explain))

    def report_entry(self, node, entry: Entry, applied: bool, manual: Optional[str] = None):
        short = entry.short
        if manual is not None:
            msg = f"`{short}`: {manual}"
            todo = msg
            if entry.target:
                msg += f" (modern API: `{entry.target}`)"
            self.report(node, entry.code, msg, entry.name, entry.target, "manual", todo=todo)
            return
        if entry.safety == "manual":
            self.report(node, entry.code, f"`{short}` has no automatic rewrite: {entry.note}",
                        entry.name, entry.target, "manual")
            return
        if applied:
            fixers.static_mode.note_applied(self, entry)
        msg = f"`{short}` → `{entry.target}`"
        todo = None
        if entry.safety == "unsafe":
            msg += f" (unsafe: {entry.note})" if entry.note else " (unsafe)"
            if not applied:
                msg += "; apply with --unsafe-fixes"
                todo = (f"`{short}` → `{entry.target}` can change results; review, then "
                        "`paddle-upgrade fix --unsafe-fixes`.")
        self.report(node, entry.code, msg, entry.name, entry.target, entry.safety, applied, todo)

    def suppressed_node(self, node: cst.CSTNode, code: str) -> bool:
        """``suppressed`` at ``node``'s line; its position is only looked up when the
        module has ``noqa`` directives at all."""
        return bool(self.noqa) and self.suppressed(self.pos(node)[0], code)

    def suppressed(self, line: int, code: str) -> bool:
        """A ``# noqa`` covers this line (or its statement) for ``code``."""
        return bool(self.noqa) and noqa.find_directive(line, code, self.noqa, self.noqa_spans) is not None

    def can_apply(self, entry: Entry, node: Optional[cst.CSTNode] = None) -> bool:
        if not self.opts.enabled(entry.code):
            return False
        if node is not None and self.noqa and self.suppressed(self.pos(node)[0], entry.code):
            return False  # suppressed: reported (the runner hides it), never rewritten
        if entry.safety == "safe":
            return True
        return entry.safety == "unsafe" and self.opts.unsafe_fixes

    # ----------------------------------------------------------------- statements
    def on_visit(self, node: cst.CSTNode) -> bool:
        t = type(node)
        if _is_statement(t):
            self.todo_stack.append([])
            self.finding_marks.append(len(self.findings))
            self.stmt_stack.append((node, tuple(self.indents)))
            if id(node) in self.untouched:
                return False  # nothing the rules look at (untouched.py): keep it as it is
        elif t is cst.IndentedBlock:
            self.indents.append(self.module.default_indent if node.indent is None else node.indent)
        return super().on_visit(node)

    def on_leave(self, original_node, updated_node):
        if id(original_node) in self.untouched:
            result = updated_node  # its visit_ hook did not run: neither does its leave_
        else:
            result = super().on_leave(original_node, updated_node)
        t = type(original_node)
        if t is cst.IndentedBlock:
            self.indents.pop()
        elif _is_statement(t):
            for hook in fixers.STATEMENT_FIXERS:  # statement-level structural rules
                result = hook(self, original_node, result)
            self.stmt_stack.pop()
            todos = self.todo_stack.pop()
            start = self.finding_marks.pop()
            if self.opts.fix and len(self.findings) > start:
                # a follow-up an earlier fix noted here and this run has now applied
                # (e.g. an unsafe rewrite under --unsafe-fixes): its TODO goes
                done = {f"{f.code} {_explain_name(f.legacy)}" for f in self.findings[start:] if f.applied}
                stale = {l.comment.value for l in getattr(original_node, "leading_lines", ())
                         if l.comment is not None and l.comment.value.startswith(TODO_PREFIX)
                         and _todo_key(l.comment.value) in done}
                if stale:
                    result = drop_todos(result, stale)
            if todos and self.opts.fix:
                nodes = list(result.nodes) if isinstance(result, cst.FlattenSentinel) else [result]
                # the statement itself: not an assignment hoisted before it (hoist.py)
                hoisted = self.__dict__.get("hoisted", ())
                k = next((i for i, n in enumerate(nodes) if id(n) not in hoisted), 0) if nodes else 0
                # ... except a follow-up about a call that now sits in a hoisted assignment
                # (a second fix finds it there)
                for i in range(k):
                    if id(nodes[i]) in hoisted:
                        mine = _todos_about(self.module.code_for_node(nodes[i]), todos)
                        if mine:
                            nodes[i] = attach_todos(nodes[i], mine)
                            todos = [t for t in todos if t not in mine]
                if todos and nodes and id(nodes[k]) in self.wrappers:
                    first = nodes[k]
                    inner = attach_todos(first.body.body[0], todos)
                    nodes[k] = first.with_changes(body=first.body.with_changes(
                        body=[inner] + list(first.body.body[1:])))
                elif todos and nodes:
                    nodes[k] = attach_todos(nodes[k], todos)
                result = cst.FlattenSentinel(nodes) if isinstance(result, cst.FlattenSentinel) \
                    else (nodes[0] if nodes else result)
        return result

    def visit_Import(self, node) -> bool:
        self.import_pos[id(node)] = self.pos(node)
        return False

    def visit_ImportFrom(self, node: cst.ImportFrom) -> bool:
        self.import_pos[id(node)] = self.pos(node)
        if node in self.imports.star_imports:
            self.report(node, "PU003", "star import from a legacy module: names cannot be "
                        "resolved; import the module and use qualified names", "paddle.fluid", "",
                        "manual")
        return False

    def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
        self.skip_nodes.add(id(node.name))
        self.scope.push(node)
        for d in node.decorators:  # evaluated in the enclosing scope, not the function's
            self.function_decorators.add(id(d))
        return True

    def leave_FunctionDef(self, original, updated):
        self.scope.pop()
        return updated

    def visit_Lambda(self, node) -> bool:
        self.scope.push(node)
        return True

    def leave_Lambda(self, original, updated):
        self.scope.pop()
        return updated

    def visit_Param(self, node: cst.Param) -> bool:
        self.skip_nodes.add(id(node.name))
        if node.default is not None:
            self.kept_values.add(id(node.default))
        return True

    def visit_Assign(self, node: cst.Assign) -> bool:
        self.kept_values.add(id(node.value))
        return True

    def visit_IfExp(self, node: cst.IfExp) -> bool:
        self.kept_values.update((id(node.body), id(node.orelse)))
        return True

    def visit_DictElement(self, node: cst.DictElement) -> bool:
        self.kept_values.add(id(node.value))
        return True

    def visit_Global(self, node) -> bool:
        return False  # `global layers` declares a name, it does not use a value

    visit_Nonlocal = visit_Global

    def visit_Arg(self, node: cst.Arg) -> bool:
        if node.keyword is not None:
            self.skip_nodes.add(id(node.keyword))
        return True

    def visit_Decorator(self, node: cst.Decorator) -> bool:
        outer = id(node) in self.function_decorators and bool(self.scope.stack)
        self.decorator_scopes.append(self.scope.stack.pop() if outer else None)
        dec = node.decorator
        if isinstance(dec, (cst.Name, cst.Attribute)):
            entry = self.entry_for(self.resolve_dotted(dec))
            if entry is not None and entry.decorator:
                if self.can_apply(entry, dec):
                    self.ref_decisions[id(dec)] = cst.parse_expression(entry.decorator)
                    self.report(dec, entry.code, f"`@{entry.short}` → `@{entry.decorator}`",
                                entry.name, entry.decorator, entry.safety, applied=True)
                else:
                    self.report_entry(dec, entry, False)
                return False
        return True

    def leave_Decorator(self, original, updated):
        saved = self.decorator_scopes.pop()
        if saved is not None:
            self.scope.stack.append(saved)
        new = self.ref_decisions.get(id(original.decorator))
        return updated.with_changes(decorator=new) if new is not None else updated

    def visit_ClassDef(self, node: cst.ClassDef) -> bool:
        self.skip_nodes.add(id(node.name))
        self.class_stack.append(fixers.layer_act.survey_class(self, node))
        return True

    def leave_ClassDef(self, original, updated):
        self.class_stack.pop()
        return updated

    def visit_With(self, node: cst.With) -> bool:
        if fixers.dygraph_guard.is_guard(self, node):
            self.guard_depth += 1
            self.guard_marks.append(self.guard_static_calls)
        elif "Switch" in self.source:
            fixers.switch_block.visit_with(self, node)
        return True

    def leave_With(self, original: cst.With, updated: cst.With):
        if fixers.dygraph_guard.is_guard(self, original):
            self.guard_depth -= 1
            if self.guard_static_calls > self.guard_marks.pop():
                # kept, so that the calls left inside still read as dynamic-mode code (a
                # second fix must not rewrite them once the block is gone)
                self.report(original, "PU201", "`with fluid.dygraph.guard()` kept: its block calls a "
                            "static-graph-only layer (reported inside); remove the block once "
                            "those calls are migrated", "paddle.fluid.dygraph.guard", "", "manual")
                return updated
            return fixers.dygraph_guard.rewrite(self, original, updated)
        if id(original) in self.__dict__.get("_switch_withs", ()):
            return fixers.switch_block.rewrite(self, original, updated)
        return updated

    # ----------------------------------------------------------------- calls
    # ----------------------------------------------------------------- bound names
    # a plain name being bound (`g = None`, `with ... as g`, `for g in ...`) is no use of
    # the legacy object an import bound to it: never renamed
    def _binding_target(self, target) -> None:
        if isinstance(target, cst.Name):
            self.skip_nodes.add(id(target))
        elif isinstance(target, (cst.Tuple, cst.List)):
            for e in target.elements:
                self._binding_target(e.value)
        elif isinstance(target, cst.StarredElement):
            self._binding_target(target.value)

    def visit_AssignTarget(self, node: cst.AssignTarget) -> bool:
        self._binding_target(node.target)
        fixers.index_as_slice.mark_store(self, node.target)
        return True

    def visit_AnnAssign(self, node: cst.AnnAssign) -> bool:
        self._binding_target(node.target)
        fixers.index_as_slice.mark_store(self, node.target)
        return True

    def visit_AugAssign(self, node: cst.AugAssign) -> bool:
        self._binding_target(node.target)
        fixers.index_as_slice.mark_store(self, node.target)
        return True

    def visit_Del(self, node: cst.Del) -> bool:
        fixers.index_as_slice.mark_store(self, node.target)
        return True

    def visit_AsName(self, node: cst.AsName) -> bool:
        self._binding_target(node.name)
        return True

    def visit_For(self, node: cst.For) -> bool:
        self._binding_target(node.target)
        return True

    def visit_CompFor(self, node: cst.CompFor) -> bool:
        self._binding_target(node.target)
        return True

    def visit_NamedExpr(self, node: cst.NamedExpr) -> bool:
        self._binding_target(node.target)
        return True

    def visit_Call(self, node: cst.Call) -> bool:
        f = node.func
        entry = self.entry_for(self.resolve_dotted(f))
        if entry is not None:
            self.handled_calls[id(f)] = entry
        elif type(f) is cst.Call:
            m = fixers.act_by_name.getattr_module(self, node)
            if m is not None:  # getattr(fluid.layers, act)(x): rewritten as a whole
                self.act_getattr_modules.add(id(m))
        elif type(f) is cst.Name and f.value in ("isinstance", "issubclass") and len(node.args) == 2 \
                and not self.scope.shadowed(f.value) and f.value not in self.imports.bindings:
            self._class_operand(node.args[1].value)
            if f.value == "isinstance" and not node.args[0].star and not node.args[1].star \
                    and node.args[0].keyword is None and node.args[1].keyword is None:
                self.instance_classes.add(id(node.args[1].value))
        elif not (type(f) is cst.Name and f.value in _NOT_CALLING_BUILTINS):
            # a class handed to a function of the program (`train(model, fluid.optimizer.SGD)`)
            # is called there with 1.8's keywords
            self.kept_values.update(id(a.value) for a in node.args if not a.star)
        return True

    def _class_operand(self, node: cst.BaseExpression) -> None:
        """Record the class operand(s) of ``isinstance``/``issubclass`` (``class_operands``:
        reference rules may rewrite a class there differently than elsewhere)."""
        self.class_operands.add(id(node))
        if isinstance(node, cst.Tuple):
            for el in node.elements:
                if isinstance(el, cst.Element):
                    self._class_operand(el.value)

    def visit_FormattedString(self, node: cst.FormattedString) -> bool:
        self.fstring_quotes.append(node.end[0])  # ' or "
        return True

    def leave_FormattedString(self, original, updated):
        self.fstring_quotes.pop()
        return updated

    def leave_Call(self, original: cst.Call, updated: cst.Call):
        if not self.fstring_quotes:
            return self._leave_call(original, updated)
        # inside an f-string: before Python 3.12 its expressions cannot use its own quote
        # character, so a rewrite that needs one is left for a manual rewrite
        first = len(self.findings)
        imports_before = set(self.needed_imports)
        result = self._leave_call(original, updated)
        quote = self.fstring_quotes[-1]
        if result is updated or not isinstance(result, cst.CSTNode) or \
                quote not in cst.Module(body=[]).code_for_node(result):
            return result
        self.needed_imports.intersection_update(imports_before)
        mine = self.findings[first:]
        del self.findings[first:]
        for f in mine:
            if f.applied:
                self.report_at((f.line, f.column, f.end_line, f.end_column), f.code,
                               f"{f.message} — inside an f-string delimited by {quote}, which the "
                               "rewrite's own quotes would end: rewrite it by hand or move the "
                               "call out of the f-string", f.legacy, f.replacement, "manual")
            else:
                self.findings.append(f)
        return updated

    def _leave_call(self, original: cst.Call, updated: cst.Call):
        entry = self.handled_calls.get(id(original.func))
        if entry is None:
            if type(original.func) is cst.Call:
                rewritten = fixers.act_by_name.rewrite_getattr(self, original, updated)
                if rewritten is not updated:
                    return rewritten
            updated = fixers.program_clone.check_call(self, original, updated)
            updated = fixers.fetch_by_name.check_call(self, original, updated)
            updated = fixers.generator_loader.check_run(self, original, updated)
            updated = fixers.optimizer_methods.check_call(self, original, updated)
            updated = fixers.backward_accumulation.check_call(self, original, updated)
            updated = fixers.program_methods.check_call(self, original, updated)
            updated = fixers.layer_methods.check_call(self, original, updated)
            updated = fixers.type_checks.check_call(self, original, updated)
            if not isinstance(updated, cst.Call):
                return updated
            updated = fixers.small_forms.unwrap_with_data_parallel(self, original, updated)
            if not isinstance(updated, cst.Call):
                return updated
            return fixers.layer_act.wrap_self_call(self, original, updated)
        return self.rewrite_entry_call(original, updated, entry)

    def rewrite_entry_call(self, original: cst.Call, updated: cst.Call, entry: Entry):
        """Rewrite a call of ``entry``: its structural fixer, or the argument mapping (also
        for calls a fixer synthesizes, e.g. the parts of a composite it expands)."""
        if entry.structural:
            fixer = fixers.CALL_FIXERS.get(entry.structural)
            if fixer is not None:
                return fixer(self, original, updated, entry)
            self.report_entry(original, entry, False,
                              manual=f"needs the structural rewrite '{entry.structural}': {entry.note}")
            return updated
        return self.apply_entry(original, updated, entry)

    def apply_entry(self, original: cst.Call, updated: cst.Call, entry: Entry,
                    entry_override: Optional[Entry] = None) -> cst.BaseExpression:
        if entry.mode == "static":
            self.facts.static_refs += 1
        if entry.safety == "manual" or not entry.target:
            self.report_entry(original, entry, False)
            return updated
        if self.guard_depth and entry.target_static_only:
            # 1.8 also ran these layers in dygraph mode; the static-graph target raises there
            self.guard_static_calls += 1
            self.report_entry(original, entry, False, manual=(
                "called in dynamic mode (inside a dygraph.guard() block), where "
                f"`{entry.target}` raises (static graphs only); migrate this call by hand "
                "(see `paddle-upgrade explain " + entry.short + "`)"))
            return updated
        if entry.name in fixers.MANUAL_CHECKS:
            why = fixers.MANUAL_CHECKS[entry.name](self, original, entry)
            if why:  # this call has no faithful rewrite in this module
                self.report_entry(original, entry, False, manual=why)
                return updated
        excuse = fixers.SAFE_ARGS.get(entry.name)
        why = _unsafe_args(entry, updated, None if excuse is None else (
            lambda name: excuse(self, updated, entry, name)),
            lambda name: bound_names.literal_at(self, self.pos(original)[0], name)
        ) if entry.safety == "safe" else None
        if not why and entry.safety == "safe" and entry.name in fixers.UNSAFE_CHECKS:
            why = fixers.UNSAFE_CHECKS[entry.name](self, original, entry)
        unpacked = fixers.kwargs_unpacking.split(updated) if entry.params is not None else None
        kw_names = None
        if unpacked is not None:
            kw_names = fixers.kwargs_unpacking.renames(entry_override or entry)
            if kw_names is not None and not why and entry.safety == "safe":
                why = fixers.kwargs_unpacking.unsafe_reason(entry_override or entry, *unpacked)
        if why:  # an argument that makes this call's rewrite change results
            entry = copy.copy(entry)
            entry.safety, entry.note = "unsafe", why
            if entry_override is not None:
                entry_override = copy.copy(entry_override)
                entry_override.safety = "unsafe"
        if not self.can_apply(entry, original):
            self.report_entry(original, entry, False)
            return updated
        use = entry_override or entry
        target = cst.parse_expression(entry.target)
        if use.params is None:
            if use.args or use.extra:
                self.report_entry(original, entry, False, manual="rule has no legacy signature")
                return updated
            self.report_entry(original, entry, True)
            return updated.with_changes(func=target)
        if kw_names is not None:
            mapped = fixers.kwargs_unpacking.rewrite(self, *unpacked, use, target, kw_names)
        else:
            mapped = map_call(use, updated, target)
        if isinstance(mapped, Manual) and mapped.repeated:
            mapped = hoist.repeated_argument(self, original, updated, use, target, mapped)
        if not isinstance(mapped, Manual) and ACT_HELPER_NOTE in mapped[1]:
            mapped = fixers.act_by_name.use(self, mapped)
        if not isinstance(mapped, Manual) and ACT_LAYER_NOTE in mapped[1]:
            why = fixers.act_by_name.layer_manual(self, code_of(bind(use, updated).values["act"].value))
            mapped = Manual(why) if why else fixers.act_by_name.use_layer(self, mapped)
        if isinstance(mapped, Manual):
            self.report_entry(original, entry, False, manual=mapped.reason)
            return updated
        self.report_entry(original, entry, True)
        node = mapped[0]
        if entry.name in fixers.AFTER_APPLY:
            node = fixers.AFTER_APPLY[entry.name](self, original, node, entry)
        return self._grouped(node)

    # ------------------------------------------------------------ precedence
    def _grouped(self, node: cst.BaseExpression) -> cst.BaseExpression:
        """A rewrite that is no longer a primary (``paddle.matmul(x, y) * 0.5`` for
        ``matmul(x, y, alpha=0.5)``) takes the call's place inside a larger expression:
        parenthesize it, so ``a / matmul(..)`` and ``matmul(..)[0]`` keep their meaning;
        the parentheses are dropped again where the expression stands alone."""
        if node.lpar or isinstance(node, _PRIMARY):
            return node
        node = node.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])
        self.grouped[id(node)] = node
        return node

    def _ungrouped(self, node):
        if node is not None and self.grouped.get(id(node)) is node:
            return node.with_changes(lpar=[], rpar=[])
        return node

    def _ungroup_value(self, original, updated):
        """A parenthesized rewrite that stands alone as this node's value needs no
        parentheses."""
        return updated.with_changes(value=self._ungrouped(updated.value)) \
            if id(updated.value) in self.grouped else updated

    leave_AnnAssign = leave_AugAssign = leave_Return = leave_Expr = leave_Element = _ungroup_value

    def leave_Assign(self, original, updated):
        fixers.index_as_slice.leave_assign(self, original, updated)
        return self._ungroup_value(original, updated)

    def leave_Arg(self, original, updated):
        return updated.with_changes(value=self._ungrouped(updated.value)) \
            if id(updated.value) in self.grouped and not updated.star else updated

    # ----------------------------------------------------------------- references
    def _reference(self, node: cst.BaseExpression) -> bool:
        """Handle a Name/Attribute chain used as a value (not called)."""
        if id(node) in self.handled_calls or id(node) in self.act_getattr_modules:
            return False  # the call rewrites it
        if id(node) in self.imports.alias_values:
            return False  # `L = fluid.layers`: L is resolved like an import, its uses rewritten
        dotted = self.resolve_dotted(node)
        if dotted is None:
            return True
        entry = self.entry_for(dotted)
        if entry is not None and entry.structural in fixers.REFERENCE_FIXERS:
            new = fixers.REFERENCE_FIXERS[entry.structural](self, node, entry)
            if new is not None:
                if new is not node:
                    self.ref_decisions[id(node)] = new
                return False
        if entry is not None:
            if entry.mode == "static":
                self.facts.static_refs += 1
            simple = not (entry.args or entry.extra or entry.wrap or entry.structural) or \
                entry.rename_only or entry.kind in ("class", "constant", "module")
            if entry.structural in fixers.DELETING or entry.structural in fixers.HELPERS:
                simple = False  # its target only names a namespace: never a rename
            kept = entry.kind == "class" and id(node) in self.kept_values and entry.safety != "manual"
            hint = _unpacked_hint(entry, "**") if kept and not entry.rename_only else ""
            if hint:
                # the class is called later through this value with 1.8's keywords, which
                # the rename would leave behind (`opt_cls(..., parameter_list=...)`)
                self.report_entry(node, entry, False,
                                  manual="kept as a value (assigned, a default, a conditional "
                                         "or dict value, an argument) and called elsewhere with 1.8's "
                                         "arguments, which the rename does not reach" + hint +
                                         "; call the class explicitly or map those keywords by hand")
            elif entry.safety != "manual" and entry.target and simple:
                if self.can_apply(entry, node):
                    self.ref_decisions[id(node)] = cst.parse_expression(entry.target)
                    self.report_entry(node, entry, True)
                else:
                    self.report_entry(node, entry, False)
            elif entry.safety == "manual":
                self.report_entry(node, entry, False)
            else:
                self.report_entry(node, entry, False,
                                  manual="used as a value; its arguments change, so it cannot "
                                         "be renamed blindly; call it explicitly or wrap it")
            return False
        # attribute of a legacy class (`fluid.dygraph.Layer.__init__`)
        if isinstance(node, cst.Attribute):
            parent = self.entry_for(self.resolve_dotted(node.value))
            if parent is not None and node.attr.value.startswith("__"):
                if parent.structural in fixers.ATTRIBUTE_FIXERS:
                    new = fixers.ATTRIBUTE_FIXERS[parent.structural](self, node, parent)
                    if new is not node:
                        self.ref_decisions[id(node)] = new
                elif parent.kind == "class" and parent.target and self.can_apply(parent, node):
                    self.ref_decisions[id(node)] = node.with_changes(
                        value=cst.parse_expression(parent.target))
                    self.report_entry(node.value, parent, True)
                else:
                    self.report_entry(node.value, parent, False)
                return False
        owner = self._manual_owner(node) if isinstance(node, cst.Attribute) else None
        if owner is not None:
            # a member of a legacy object whose own entry is manual: that entry's note is
            # the migration (`pslib.fleet.save_one_table` under the manual `pslib.fleet`)
            member = dotted[len(owner.name) + 1:] if dotted.startswith(owner.name + ".") else dotted
            self.report(node, owner.code, f"`{owner.short}.{member}`: `{owner.short}` has no automatic "
                        f"rewrite: {owner.note}", owner.name, owner.target, "manual")
            return False
        if is_legacy(dotted) and dotted not in self.rules.modules and dotted not in LEGACY_ROOTS:
            self.report(node, "PU001", f"`{dotted}` is legacy API with no rule; migrate it "
                        "by hand (see the Paddle 1.8 → 2.0 API mapping)", dotted, "", "manual")
            return False
        if is_legacy(dotted):
            if id(node) not in self.imports.alias_values:
                # a legacy module used as a value (`register(fluid.layers)`): nothing
                # modern holds the same names
                self.report(node, "PU002", f"the legacy module `{dotted}` used as a value: its "
                            "names moved to several modern modules; use them by their own "
                            "names", dotted, "", "manual")
            # `L = fluid.layers` at the top level binds L like an import (names.py); any
            # other bare use of a module name or alias (`hasattr(L, 'roll')`, `f(fluid)`)
            # keeps the legacy import alive, so it is reported as well
            return False
        return True

    def _manual_owner(self, node: cst.Attribute) -> Optional[Entry]:
        """The nearest enclosing name of ``node`` with an entry, when that entry is a manual
        object (``constant``/``class``/``module``) whose members have no entries of their own."""
        base = node.value
        while isinstance(base, (cst.Attribute, cst.Name)):
            entry = self.entry_for(self.resolve_dotted(base))
            if entry is not None:
                return entry if entry.safety == "manual" and entry.kind in ("constant", "class", "module") else None
            if isinstance(base, cst.Name):
                return None
            base = base.value
        return None

    def visit_Attribute(self, node: cst.Attribute) -> bool:
        self.skip_nodes.add(id(node.attr))
        if node.attr.value in fixers.program_methods.ATTRIBUTES:  # <block>.vars, <op>.input_arg_names
            fixers.program_methods.check_attribute(self, node)
        return self._reference(node)

    def leave_Attribute(self, original, updated):
        return self.ref_decisions.get(id(original), updated)

    def visit_Name(self, node: cst.Name) -> bool:
        if id(node) in self.skip_nodes:
            return False
        return self._reference(node)

    def leave_Name(self, original, updated):
        return self.ref_decisions.get(id(original), updated)

    def leave_Subscript(self, original, updated):
        return fixers.index_as_slice.leave_subscript(self, original, updated)


def todo_text(code: str, message: str, explain: str) -> str:
    """A one-line TODO: the code, the first sentence of the message, where to read more
    (``explain``: a legacy name with a rule entry, or a rule code)."""
    text = " ".join(message.split())
    cut = re.search(r"(?<=[.;])\s", text[40:])
    if cut and 40 + cut.start() < len(text) - 1:
        text = text[: 40 + cut.start()].rstrip(".;")
    if len(text) > 160:
        text = text[:157].rsplit(" ", 1)[0] + " ..."
    short = _explain_name(explain)
    more = f" (paddle-upgrade explain {short})" if short else ""
    return f"{code} {text}{more}"


_TODO_KEY = re.compile(r"^# TODO\(paddle-upgrade\): (PU\d+) .*\(paddle-upgrade explain ([^)]+)\)$")


def _todo_key(comment: str) -> str:
    """Two TODOs about the same rule and API are the same follow-up, even when the
    quoted code changed because a nested call was rewritten in between. (PU001/PU003
    name no entry: their whole text is the key.)"""
    m = _TODO_KEY.match(comment)
    if not m or m.group(2) in ("PU001", "PU003"):
        return comment
    return f"{m.group(1)} {m.group(2)}"


_TODO_EXPLAIN = re.compile(r"\(paddle-upgrade explain ([^)]+)\)$")


def _todos_about(code: str, todos: List[str]) -> List[str]:
    """The TODO texts whose API (the last part of its explain name) is called in ``code``."""
    out = []
    for t in todos:
        m = _TODO_EXPLAIN.search(t)
        last = m.group(1).rsplit(".", 1)[-1] if m else ""
        if last and not last.startswith("PU") and re.search(rf"\b{re.escape(last)}\s*\(", code):
            out.append(t)
    return out


def _explain_name(legacy: str) -> str:
    return legacy[len("paddle."):] if legacy.startswith("paddle.fluid") else legacy


def drop_todos(stmt, comments: Set[str]):
    """``stmt`` without the comment lines ``comments`` (TODOs of an earlier fix that this
    run has done)."""
    if isinstance(stmt, cst.FlattenSentinel):
        return cst.FlattenSentinel([drop_todos(n, comments) for n in stmt.nodes])
    lines = getattr(stmt, "leading_lines", None)
    if not lines:
        return stmt
    kept = [l for l in lines if l.comment is None or l.comment.value not in comments]
    return stmt if len(kept) == len(lines) else stmt.with_changes(leading_lines=kept)


def attach_todos(stmt, todos: List[str]):
    if isinstance(stmt, cst.FlattenSentinel):
        nodes = list(stmt.nodes)
        if nodes:
            nodes[0] = attach_todos(nodes[0], todos)
        return cst.FlattenSentinel(nodes)
    if not hasattr(stmt, "leading_lines"):
        return stmt
    existing = {_todo_key(l.comment.value) for l in stmt.leading_lines if l.comment is not None}
    new_lines = list(stmt.leading_lines)
    for t in dict.fromkeys(todos):
        text = TODO_PREFIX + " ".join(t.split())
        if _todo_key(text) not in existing:
            existing.add(_todo_key(text))
            new_lines.append(cst.EmptyLine(comment=cst.Comment(text)))
    return stmt.with_changes(leading_lines=new_lines)


def _dedupe_header_todos(module: cst.Module) -> cst.Module:
    """Comments above the first statement belong to the module header once parsed: a TODO
    attached to the first statement by an earlier `fix` is found there, not in the
    statement's own leading lines."""
    if not module.body or not module.header:
        return module
    keys = {_todo_key(l.comment.value) for l in module.header if l.comment is not None}
    first = module.body[0]
    lines = getattr(first, "leading_lines", None)
    if not lines:
        return module
    kept = [l for l in lines if l.comment is None or _todo_key(l.comment.value) not in keys
            or not l.comment.value.startswith(TODO_PREFIX)]
    if len(kept) == len(lines):
        return module
    return module.with_changes(body=[first.with_changes(leading_lines=kept)] + list(module.body[1:]))


def finish_module(module: cst.Module, up: Upgrader) -> cst.Module:
    """Static-mode insertion, then imports: remove legacy imports that became unused,
    add `import paddle` (and whatever else the output needs) once."""
    module = _dedupe_header_todos(module)
    if up.opts.fix:  # code the rewrites call (fixers' HELPERS): the imports then serve it too
        for hook in fixers.FINISHERS:
            module = hook(up, module)
    insert = up.opts.fix and fixers.static_mode.wanted(up, module)
    module = fixers.imports.clean(up, module, force_paddle=insert)
    if insert:
        module = fixers.static_mode.insert(up, module)
    if up.opts.fix and module.body and not module.header:
        first = module.body[0]
        if first.leading_lines and all(line.comment is None for line in first.leading_lines):
            # the imports above code a fixer added were all removed: no blank lines open the file
            module = module.with_changes(body=[first.with_changes(leading_lines=[])]
                                         + list(module.body[1:]))
    return module


#: builtins whose class arguments are not called (isinstance/issubclass operands have their
#: own record, class_operands)
_NOT_CALLING_BUILTINS = frozenset({"isinstance", "issubclass", "super", "type", "hasattr", "getattr",
                                   "setattr", "id", "print", "repr", "str", "vars", "dir", "callable"})


def _unsafe_args(entry: Entry, call: cst.Call, excused=None, resolve=None) -> Optional[str]:
    """The reason an argument passed to this call makes its rewrite unsafe (an
    ``unsafe_if_set`` spec given a value other than the legacy default, an
    ``unsafe_below`` / ``unsafe_above`` spec given a non-literal or a number, or list of
    numbers, with one below / above its bound), or None. ``excused(name)``: a fixer's
    finding that this argument changes nothing here (fixers.SAFE_ARGS). ``resolve(name)``:
    the literal source a bare name passed as the argument is known to hold at the call
    (bound_names.literal_at), judged in its place."""
    specs = [(n, s) for n, s in entry.args.items()
             if s.unsafe_if_set or s.unsafe_below or s.unsafe_above]
    if not specs:
        return None
    from upgrader.args import Manual, bind, code_of, literal, same_value
    b = bind(entry, call)
    if isinstance(b, Manual):
        return None
    for name, spec in specs:
        arg = b.values.get(name)
        if arg is None:
            continue
        src = code_of(arg.value)
        if resolve is not None and isinstance(arg.value, cst.Name):
            src = resolve(arg.value.value) or src
        shown = code_of(arg.value) + (f" (= {src} here)" if src != code_of(arg.value) else "")
        bounded = spec.unsafe_below or spec.unsafe_above
        if bounded:
            kind, value = literal(src)
            items = value if kind == "ok" and isinstance(value, (list, tuple)) else [value]
            bound, below = bounded["bound"], bool(spec.unsafe_below)
            if kind != "ok" or not all(isinstance(v, (int, float)) and not isinstance(v, bool)
                                       and (v >= bound if below else v <= bound) for v in items):
                return f"{name}={shown}: {bounded['why']}"
            continue
        p = entry.param(name)
        if p is not None and p.has_default and same_value(src, p.default):
            continue
        if excused is not None and excused(name):
            continue
        return f"{name}={shown}: {spec.unsafe_if_set}"
    return None
