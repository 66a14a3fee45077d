"""Run the engine over files and trees: ``fix``, ``fix --diff`` and ``check``.

Per file: read (encoding, BOM, digest) → text prefilter (no legacy marker: skipped
without parsing) → cache → engine → ``# noqa`` → select/ignore → in fix mode the
rewritten code is checked again (it must parse; what is left are the manual follow-ups)
and written atomically. An error in one file never stops the others. ``jobs > 1`` runs
files in worker processes; Ctrl-C stops cleanly: files already written stay written and
are reported, no file is left half-written.
"""
from __future__ import annotations

import difflib
import io
import os
import re
import unicodedata
import signal
import subprocess
import sys
import threading
import time
import tokenize
import traceback
from concurrent.futures import ProcessPoolExecutor, as_completed
from concurrent.futures.process import BrokenProcessPool
from contextlib import contextmanager
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Dict, Iterable, List, Optional, Sequence, Tuple

from upgrader import config as cfg
from upgrader.cache import Cache, StatCache, tool_fingerprint
from upgrader.files import (MAX_FILE_BYTES, FileError, SourceFile, discover, file_kind,
                            read_source, write_source)
from upgrader.noqa import apply_noqa
from upgrader.notebook import NotebookError

MODES = ("fix", "diff", "check")
PY2_HINT = "Python 2 syntax? this tool needs Python 3 code; run 2to3 first"
# Python 2 statements, searched in the whole file ...
_PY2_STMT = re.compile(r"^[ \t]*(print[ \t]+[^\s(=.,;)\[]|exec[ \t]+[\"'\w]"
                       r"|except[ \t]+[\w.]+[ \t]*,[ \t]*\w+[ \t]*:|raise[ \t]+[\w.]+[ \t]*,)",
                       re.MULTILINE)
# ... and weaker signs, only on the line the parser stopped at.
_PY2_LINE = re.compile(r"`[^`\n]+`|<>|\bur[\"']|\b0[0-7]+\b|\b\d+[lL]\b|^[ \t]*print[ \t]*$")


@dataclass
class FileResult:
    path: str
    kind: str = "python"
    findings: List[dict] = field(default_factory=list)   # in the file as it was read
    remaining: List[dict] = field(default_factory=list)  # after the rewrite (fix/diff)
    errors: List[dict] = field(default_factory=list)
    changed: bool = False
    written: bool = False
    diff: str = ""
    fixed: int = 0              # findings whose rewrite was applied
    skipped: Optional[str] = None
    cached: bool = False

    def error(self, message: str, line: Optional[int] = None, column: Optional[int] = None,
              cell: Optional[int] = None) -> None:
        d = {"path": self.path, "line": line, "column": column, "message": message}
        if cell is not None:
            d["cell"] = cell
        self.errors.append(d)


@dataclass
class RunReport:
    mode: str
    files: List[FileResult] = field(default_factory=list)
    errors: List[dict] = field(default_factory=list)     # not tied to one file's content
    warnings: List[str] = field(default_factory=list)
    interrupted: bool = False
    unsafe_fixes: bool = False
    discovered: int = 0  # files found; more than len(files) when interrupted

    @property
    def findings(self) -> List[dict]:
        """What is reported: every finding in check mode, what remains after fix/diff."""
        key = "findings" if self.mode == "check" else "remaining"
        return [f for r in self.files for f in getattr(r, key)]

    @property
    def all_errors(self) -> List[dict]:
        return self.errors + [e for r in self.files for e in r.errors]

    @property
    def written(self) -> List[str]:
        return [r.path for r in self.files if r.written]

    @property
    def changed(self) -> List[str]:
        return [r.path for r in self.files if r.changed]

    @property
    def fixed(self) -> int:
        return sum(r.fixed for r in self.files)

    @property
    def exit_code(self) -> int:
        if self.all_errors or self.interrupted:
            return 2
        return 1 if self.findings else 0

    def summary(self) -> dict:
        findings = self.findings
        by_code: Dict[str, int] = {}
        by_fix = {"safe": 0, "unsafe": 0, "manual": 0}
        for f in findings:
            by_code[f["code"]] = by_code.get(f["code"], 0) + 1
            by_fix[f.get("fix", "manual")] = by_fix.get(f.get("fix", "manual"), 0) + 1
        return {
            "mode": self.mode,
            "files": len(self.files),
            "files_with_findings": len({f["path"] for f in findings}),
            "findings": len(findings),
            "fixable": by_fix["safe"] + (by_fix["unsafe"] if self.unsafe_fixes else 0),
            "by_fix": by_fix,
            "by_code": dict(sorted(by_code.items())),
            "errors": len(self.all_errors),
            "changed": len(self.changed),
            "written": len(self.written),
            "fixed": self.fixed,
            "interrupted": self.interrupted,
            "not_processed": max(0, self.discovered - len(self.files)),
        }


@dataclass
class Options:
    """Everything a worker needs to process one file (picklable)."""
    mode: str = "check"
    settings: cfg.Settings = field(default_factory=cfg.Settings)
    use_cache: bool = True
    cache_root: Optional[Path] = None
    backup_dir: Optional[Path] = None
    max_bytes: int = MAX_FILE_BYTES
    prefilter: bool = True


# ------------------------------------------------------------------------ prefilter

@lru_cache(maxsize=1)
def legacy_markers() -> Tuple[str, ...]:
    """Words whose absence proves a file has no legacy usage: ``fluid`` plus the
    top-level names of rule-book entries outside ``paddle.fluid`` (``paddle.batch``,
    ``paddle.reader``, ``paddle.dataset`` ...)."""
    words = {"fluid"}
    try:
        from upgrader import rulebook
        book = rulebook.load()
        names = list(book.entries) + list(book.by_alias)
    except Exception:
        names = []
    for n in names:
        parts = n.split(".")
        if len(parts) >= 2 and parts[0] == "paddle" and parts[1] != "fluid":
            words.add(parts[1])
    for legacy_top in ("batch", "reader", "dataset"):
        words.add(legacy_top)
    return tuple(sorted(words))


# between two tokens of a dotted name or an import: spaces, line breaks, ``\`` line
# continuations and comments (inside parentheses)
_GAP = r"(?:[\s\\]|#[^\n]*)*"
# (patterns start with a literal, not ``\b``: the regex engine then skips ahead with a
# fast substring search; a word boundary missed in front only keeps a file)
_FROM_PADDLE = re.compile(r"from" + _GAP + r"paddle" + _GAP + r"import\b")
_PADDLE_ALIAS = re.compile(r"paddle" + _GAP + r"as\s+(\w+)")


@lru_cache(maxsize=8)
def _word_patterns(others: Tuple[str, ...]):
    words = "|".join(map(re.escape, others))
    return (re.compile(r"\b(?:%s)\b" % words),
            re.compile(r"paddle" + _GAP + r"\." + _GAP + r"(?:%s)\b" % words), words)


def _from_paddle_names(text: str, start: int) -> str:
    """The names part of a ``from paddle import ...`` statement starting at ``start``
    (the whole rest of the text when it cannot be told cheaply)."""
    rest = text[start:]
    stripped = rest.lstrip(" \t\\\r\n")
    if stripped.startswith("("):
        end = stripped.find(")")
        return stripped if end < 0 or "#" in stripped[:end] else stripped[:end]
    out = []
    for line in rest.split("\n"):
        out.append(line)
        if not line.rstrip("\r").endswith("\\"):
            break
    return "\n".join(out)


#: TODOs of follow-ups that code with no legacy name left can still need (PU215:
#: gradients never cleared; PU216: methods a PIR program lacks; PU211: fetch by a string
#: name): `check` of upgraded code
#: must still see them
FOLLOWUP_MARKERS = ("TODO(paddle-upgrade): PU215", "TODO(paddle-upgrade): PU216",
                    "TODO(paddle-upgrade): PU207", "TODO(paddle-upgrade): PU208",
                    "TODO(paddle-upgrade): PU218", "TODO(paddle-upgrade): PU211")


def is_candidate(data, markers: Sequence[str] = (), noqa: bool = False) -> bool:
    """Whether ``data`` (bytes or str) may use legacy API: it mentions ``fluid``
    (however imported: ``paddle.fluid``, ``from paddle import fluid``,
    ``import_module("paddle.fluid")``), or it reaches one of the legacy top-level names
    outside fluid (``paddle.batch``, ``paddle.dataset`` ...) the only ways the engine
    resolves them: spelled ``paddle.<name>`` (also in ``import paddle.dataset.mnist`` and
    ``from paddle.reader import ...``), ``from paddle import <name>``, or
    ``import paddle as P`` + ``P.<name>``; dynamic imports are always kept. Modern code
    that merely uses ``batch``/``utils``/``dataset`` as words is skipped."""
    text = data.decode("latin-1") if isinstance(data, (bytes, bytearray)) else data
    if "fluid" in text:
        return True
    if any(m in text for m in FOLLOWUP_MARKERS) or _TODO in text:
        return True  # upgraded code with a follow-up left by fix (_todo_findings)
    if not text.isascii():
        # Python NFKC-normalises identifiers: `import paddle.ｆluid` imports paddle.fluid
        uni = data.decode("utf-8", "ignore") if isinstance(data, (bytes, bytearray)) else data
        norm = unicodedata.normalize("NFKC", uni)
        if norm != uni:
            return is_candidate(norm, markers, noqa)
    if noqa and re.search(r"noqa\s*:[^\n]*PU", text, re.IGNORECASE):
        return True
    if "paddle" not in text:
        return False
    others = tuple(m for m in (markers or legacy_markers()) if m != "fluid")
    if not any(w in text for w in others):
        return False
    word, dotted, words = _word_patterns(others)
    if word.search(text) is None:
        return False
    if dotted.search(text) or "import_module" in text or "__import__" in text:
        return True
    if "import" not in text:
        return False
    for m in _FROM_PADDLE.finditer(text):
        if word.search(_from_paddle_names(text, m.end())):
            return True
    for alias in set(_PADDLE_ALIAS.findall(text)):
        if re.search(re.escape(alias) + _GAP + r"\." + _GAP + r"(?:%s)\b" % words, text):
            return True
    return False


# --------------------------------------------------------------------- one program

def _engine():
    from upgrader import engine
    return engine


#: stack of the thread the engine runs in: libcst's native parser recurses once per level
#: of expression nesting and overflows the default 8 MiB stack (a segmentation fault that
#: kills the whole run) on a few thousand nested brackets or a long ``a + a + ...`` chain.
#: Only the pages a deep file touches are committed.
ENGINE_STACK_BYTES = 512 * 1024 * 1024
#: files shorter than this cannot nest deeply enough to need the large stack
_DEEP_NESTING_CHARS = 2000


def _engine_call(code: str, *, fix: bool, unsafe_fixes: bool, select, ignore):
    return _on_large_stack(code, lambda: _engine().upgrade_source(
        code, fix=fix, unsafe_fixes=unsafe_fixes, select=select, ignore=ignore))


def _on_large_stack(code: str, fn):
    """``fn()`` (which parses ``code``), in a thread with :data:`ENGINE_STACK_BYTES` of
    stack when ``code`` is long enough to nest deeply; its result or its exception (a too
    deeply nested file then fails with ``RecursionError``, which is reported for that
    file, instead of crashing the process)."""
    if len(code) < _DEEP_NESTING_CHARS:
        return fn()
    box: dict = {}

    def target():
        try:
            box["result"] = fn()
        except BaseException as exc:  # re-raised in the caller's thread
            box["error"] = exc

    with _STACK_LOCK:
        try:
            old = threading.stack_size(ENGINE_STACK_BYTES)
        except (ValueError, RuntimeError):  # pragma: no cover - platform without it
            return fn()
        try:
            t = threading.Thread(target=target, name="paddle-upgrade-engine", daemon=True)
            t.start()
        finally:
            threading.stack_size(old)
    t.join()
    if "error" in box:
        raise box["error"]
    return box["result"]


_STACK_LOCK = threading.Lock()


def _engine_args(settings: cfg.Settings, path: str) -> dict:
    select = None
    if settings.select is not None:
        select = settings.select + settings.extend_select
        if "ALL" in select:
            select = None
    ignore = settings.ignore + settings.ignores_for(path)
    return {"unsafe_fixes": settings.unsafe_fixes, "select": select, "ignore": ignore or None}


def _finding_dicts(findings, settings: cfg.Settings, path: str) -> List[dict]:
    out = []
    for f in findings:
        d = f.to_dict() if hasattr(f, "to_dict") else dict(f)
        d["path"] = path
        if getattr(f, "applied", False):
            d["_applied"] = True
        if settings.selects(d["code"], path):
            out.append(d)
    return out


def python2_hint(text: str, line: Optional[int] = None) -> bool:
    """Whether the code looks like Python 2 (``print x``, ``except E, e:``, ...)."""
    lines = text.splitlines()
    if line and 1 <= line <= len(lines) and (_PY2_STMT.search(lines[line - 1])
                                              or _PY2_LINE.search(lines[line - 1])):
        return True
    return _PY2_STMT.search(text) is not None


class _Refused(Exception):
    """The rewrite is not safe to write; the message says why."""


class _Parse(Exception):
    def __init__(self, message: str, line: Optional[int], column: Optional[int]):
        super().__init__(message)
        self.message, self.line, self.column = message, line, column


def _parse_error(exc, text: str) -> _Parse:
    line = getattr(exc, "line", None)
    column = getattr(exc, "column", None)
    column = column + 1 if isinstance(column, int) else None  # engine columns are 0-based here
    msg = f"cannot parse: {getattr(exc, 'message', None) or exc}"
    if python2_hint(text, line):
        msg += f" ({PY2_HINT})"
    return _Parse(msg, line, column)


@dataclass
class Outcome:
    findings: List[dict]
    remaining: List[dict]
    new_text: str
    changed: bool
    errors: List[dict] = field(default_factory=list)
    cells: Dict[int, Tuple[str, str]] = field(default_factory=dict)  # notebook diffs

    def to_json(self) -> dict:
        return {"findings": self.findings, "remaining": self.remaining,
                "new_text": self.new_text if self.changed else None, "changed": self.changed,
                "errors": self.errors,
                "cells": {str(k): list(v) for k, v in self.cells.items()}}

    @classmethod
    def from_json(cls, d: dict, text: str) -> "Outcome":
        return cls(d["findings"], d["remaining"], d["new_text"] if d["changed"] else text,
                   d["changed"], d.get("errors", []),
                   {int(k): (v[0], v[1]) for k, v in d.get("cells", {}).items()})


def _check(code: str, settings: cfg.Settings, path: str, fix: bool):
    """Engine + noqa + selection on one program; returns (result, kept findings)."""
    try:
        res = _engine_call(code, fix=fix, **_engine_args(settings, path))
    except Exception as exc:
        if type(exc).__name__ == "ParseError":
            raise _parse_error(exc, code) from None
        raise
    found = _finding_dicts(res.findings, settings, path)
    found += [d for d in _todo_findings(code, found, path) if settings.selects(d["code"], path)]
    kept, _ = apply_noqa(found, code, report_unused=settings.report_unused_noqa)
    for f in kept:
        if f.get("path") is None:  # unused-noqa findings are made without the path
            f["path"] = path
    kept = [f for f in kept if settings.selects(f["code"], path)]
    return res, kept


#: follow-ups the engine fully re-checks in modern code (PU215: gradients never cleared),
#: so that one done by hand is gone while its TODO line stays
_RECHECKED = frozenset({"PU215"})
_TODO_COMMENT = re.compile(r"^(\s*)#\s*TODO\(paddle-upgrade\):\s*(PU\d{3})\b\s*(.*?)\s*$")
_EXPLAIN_TAIL = re.compile(r"\s*\(paddle-upgrade explain [^)]*\)\s*$")


def _todo_findings(code: str, found: List[dict], path: str) -> List[dict]:
    """The ``# TODO(paddle-upgrade): PUxxx`` follow-ups a fix wrote that no finding of the
    engine stands for: once fix has rewritten the code around it, what made a call manual
    (a legacy optimizer, a legacy block, ...) is modern code the engine cannot recognise,
    yet the follow-up is still open. Each is reported where its statement starts (so the
    fix summary, the exit codes and ``check`` of upgraded code count it). Each engine
    finding, in line order, accounts for the nearest unmatched TODO of its code above it."""
    if _TODO not in code:
        return []
    lines = code.splitlines()
    todos = []  # [line, code, text, indent]
    for i, text in enumerate(lines, 1):
        m = _TODO_COMMENT.match(text)
        if m and m.group(2) not in _RECHECKED:
            todos.append([i, m.group(2), _EXPLAIN_TAIL.sub("", m.group(3)), len(m.group(1))])
    if not todos:
        return []
    unmatched = list(range(len(todos)))
    for f in sorted(found, key=lambda d: d["line"]):
        best = None
        for k in unmatched:
            t = todos[k]
            if t[1] == f["code"] and t[0] < f["line"] and (best is None or t[0] > todos[best][0]):
                best = k
        if best is not None:
            unmatched.remove(best)
    out = []
    for k in unmatched:
        line, c, text, indent = todos[k]
        stmt = line + 1
        while stmt <= len(lines) and (not lines[stmt - 1].strip()
                                      or lines[stmt - 1].lstrip().startswith("#")):
            stmt += 1
        if stmt > len(lines):
            stmt = line
        target = lines[stmt - 1] if stmt <= len(lines) else ""
        col = len(target) - len(target.lstrip()) + 1
        out.append({"path": path, "line": stmt, "column": col, "end_line": stmt,
                    "end_column": len(target) + 1, "code": c, "rule": _rule_name(c),
                    "message": f"follow-up left by paddle-upgrade fix: {text}",
                    "legacy": "", "replacement": "", "fix": "manual"})
    return out


def _rule_name(code: str) -> str:
    from upgrader.engine import RULE_NAMES
    return RULE_NAMES.get(code, "legacy-api")


def upgrade_python(text: str, settings: cfg.Settings, path: str, fix: bool) -> Outcome:
    """One ``.py`` file's text through the engine (``_Parse`` if it does not parse)."""
    with _engine().collector_paused():
        return _upgrade_python(text, settings, path, fix)


def _upgrade_python(text: str, settings: cfg.Settings, path: str, fix: bool) -> Outcome:
    res, findings = _check(text, settings, path, fix)
    if not (fix and res.changed):
        return Outcome(findings, findings, text, False)
    new_code = _keep_final_newline(text, res.code)
    if new_code == text:
        return Outcome(findings, findings, text, False)
    _same_syntax(text, new_code)
    if not _left_to_check(new_code, settings.report_unused_noqa) and _parses(new_code):
        # nothing legacy is left (the legacy names that stay are in comments and
        # docstrings only): what a check of the written file reports, without running the
        # engine on it again
        return Outcome(findings, [], new_code, True)
    try:
        _, remaining = _check(new_code, settings, path, False)
    except _Parse as exc:
        raise _Refused(f"the rewrite produced code that does not parse ({exc.message}, "
                       f"line {exc.line}); file left unchanged") from None
    return Outcome(findings, remaining, new_code, True)


_TODO = "TODO(paddle-upgrade)"
_NOQA_PU = re.compile(r"noqa\s*:[^\n]*PU", re.IGNORECASE)
_DOC_LINE = {tokenize.STRING}
_NOT_CODE = {tokenize.COMMENT, tokenize.NL, tokenize.INDENT, tokenize.DEDENT}


def _code_text(code: str) -> Optional[str]:
    """The tokens of ``code`` without its comments and its string-only statements
    (docstrings), one logical line per line, tokens joined by a space; None when it does
    not tokenize."""
    lines: List[str] = []
    toks: List[str] = []
    only_strings = True
    try:
        for tok in tokenize.generate_tokens(io.StringIO(code).readline):
            t = tok.type
            if t in _NOT_CODE:
                continue
            if t == tokenize.NEWLINE or t == tokenize.ENDMARKER:
                if toks and not only_strings:
                    lines.append(" ".join(toks))
                toks, only_strings = [], True
                continue
            toks.append(tok.string)
            if t not in _DOC_LINE:
                only_strings = False
    except (tokenize.TokenError, SyntaxError, ValueError):
        return None
    if toks and not only_strings:
        lines.append(" ".join(toks))
    return "\n".join(lines)


def _left_to_check(code: str, noqa: bool) -> bool:
    """Whether a check of rewritten ``code`` can report anything: the text prefilter
    keeps it, and it does so for the code itself, not only for the words of comments and
    docstrings (the engine reads neither; a ``noqa`` directive or a TODO the rewrite left
    keeps the file: the structural rules that wrote it see modern code too)."""
    markers = legacy_markers()
    if not is_candidate(code, markers, noqa=noqa):
        return False
    if _TODO in code or (noqa and _NOQA_PU.search(code)):
        return True
    stripped = _code_text(code)
    return stripped is None or is_candidate(stripped, markers)


def _parses(code: str) -> bool:
    """libcst parses the code (the engine would, on a second pass)."""
    try:
        _on_large_stack(code, lambda: _engine().parse_module(code))
        return True
    except Exception:
        return False


def _keep_final_newline(old: str, new: str) -> str:
    """libcst drops a final lone ``\r`` (old Mac line end); put the file's ending back."""
    for nl in ("\r\n", "\r", "\n"):
        if old.endswith(nl):
            if new and not new.endswith(("\n", "\r")):
                return new + nl
            break
    return new


def _same_syntax(old: str, new: str) -> None:
    """The interpreter must still accept the rewritten code if it accepted the original."""
    from upgrader.untouched import parse
    try:
        parse(old)
    except (SyntaxError, ValueError):
        return
    try:
        parse(new)
    except (SyntaxError, ValueError) as exc:
        raise _Refused(f"the rewrite produced code that does not parse "
                       f"({getattr(exc, 'msg', exc)}, line {getattr(exc, 'lineno', '?')}); "
                       "file left unchanged") from None


def upgrade_notebook(text: str, settings: cfg.Settings, path: str, fix: bool) -> Outcome:
    """All code cells of a notebook as one program; positions become cell/line."""
    from upgrader.notebook import Notebook, cell_of_line
    nb = Notebook(text)
    if not nb.is_python:
        return Outcome([], [], text, False)
    errors: List[dict] = []
    excluded: set = set()
    for _ in range(len(nb.cells) + 1):
        prog = nb.program(exclude=excluded)
        try:
            res, found = _check(prog.code, settings, path, fix)
            break
        except _Parse as exc:
            cell = cell_of_line(prog, exc.line)
            if cell is None or cell in excluded:
                raise
            o = prog.origin(exc.line)
            excluded.add(cell)
            errors.append({"path": path, "line": o.line, "column": exc.column,
                           "cell": cell + 1, "message": exc.message})
    else:  # pragma: no cover - every cell excluded
        return Outcome([], [], text, False, errors)
    findings = [nb.map_finding(prog, f) for f in found]
    if not (fix and res.changed):
        return Outcome(findings, findings, text, False, errors)
    try:
        sources = nb.split(prog, res.code)
    except NotebookError as exc:
        errors.append({"path": path, "line": None, "column": None,
                       "message": f"{exc}; notebook left unchanged"})
        return Outcome(findings, findings, text, False, errors)
    new_text = nb.with_sources(sources)
    if new_text == text:
        return Outcome(findings, findings, text, False, errors)
    nb2 = Notebook(new_text)
    prog2 = nb2.program(exclude=excluded)
    _same_syntax(prog.code, prog2.code)
    try:
        _, left = _check(prog2.code, settings, path, False)
    except _Parse as exc:
        raise _Refused(f"the rewrite produced code that does not parse ({exc.message}); "
                       "notebook left unchanged") from None
    remaining = [nb2.map_finding(prog2, f) for f in left]
    old_by_index = {c.index: c.source for c in nb.cells}
    cells = {i: (old_by_index[i], s) for i, s in sources.items() if s != old_by_index[i]}
    return Outcome(findings, remaining, new_text, True, errors, cells)


# ------------------------------------------------------------------------------ diff

def unified_diff(old: str, new: str, path: str, label: str = "") -> str:
    a, b = old.splitlines(keepends=True), new.splitlines(keepends=True)
    out = []
    for line in difflib.unified_diff(a, b, f"a/{path}{label}", f"b/{path}{label}"):
        if not line.endswith(("\n", "\r")):
            line += "\n\\ No newline at end of file\n"
        out.append(line)
    return "".join(out)


# ------------------------------------------------------------------------ one file

_in_worker = False
_stop_requested = False  # Ctrl-C arrived while a file was being written (serial mode)


@contextmanager
def _defer_sigint():
    """Hold Ctrl-C while a file is being committed, so that the report knows it was
    written; the run stops after this file."""
    if _in_worker or threading.current_thread() is not threading.main_thread():
        yield
        return

    def handler(signum, frame):
        global _stop_requested
        _stop_requested = True

    try:
        old = signal.signal(signal.SIGINT, handler)
    except ValueError:  # pragma: no cover - not the main thread
        yield
        return
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, old)


def _strip_private(findings: List[dict]) -> List[dict]:
    return [{k: v for k, v in f.items() if not k.startswith("_")} for f in findings]


def scan_shell_file(text: str, settings: cfg.Settings, path: str) -> Outcome:
    """Shell scripts are only checked: legacy launch options are manual follow-ups."""
    from upgrader.shell import scan_shell
    found = [dict(f, path=path) for f in scan_shell(text) if settings.selects(f["code"], path)]
    return Outcome(found, list(found), text, False)


def process_file(path: str, opts: Options, sf: Optional[SourceFile] = None) -> FileResult:
    """Check, diff or fix one file; every problem lands in ``FileResult.errors``."""
    fr = FileResult(path=path, kind=file_kind(Path(path)))
    try:
        if sf is None:
            sf = read_source(path, max_bytes=opts.max_bytes)
    except FileError as exc:
        fr.error(exc.message, exc.line, exc.column)
        return fr
    fix = opts.mode != "check"
    settings = opts.settings
    cache = Cache(opts.cache_root or settings.root, enabled=opts.use_cache)
    key = cache.key(sf.raw, fr.kind, "fix" if fix else "check", settings.fingerprint(path), path)
    outcome = None
    hit = cache.get(key)
    if hit is not None:
        try:
            outcome = Outcome.from_json(hit, sf.text)
            fr.cached = True
        except (KeyError, TypeError, ValueError):
            outcome = None
    if outcome is None:
        try:
            if fr.kind == "shell":
                outcome = scan_shell_file(sf.text, settings, path)
            else:
                run = upgrade_notebook if fr.kind == "notebook" else upgrade_python
                outcome = run(sf.text, settings, path, fix)
        except _Parse as exc:
            fr.error(exc.message, exc.line, exc.column)
            cache.put(key, Outcome([], [], sf.text, False, list(fr.errors)).to_json())
            return fr
        except NotebookError as exc:
            fr.error(f"{exc}; notebook left unchanged")
            return fr
        except Exception as exc:  # a bug must not stop the other files
            if isinstance(exc, _Refused):
                msg = str(exc)
            elif isinstance(exc, RecursionError):
                msg = ("code nested too deeply to process (a very long chain of operators "
                       "or deeply nested brackets); file left unchanged")
            else:
                msg = f"internal error ({type(exc).__name__}: {exc}); file left unchanged"
            if os.environ.get("PADDLE_UPGRADE_DEBUG"):
                msg += "\n" + traceback.format_exc()
            fr.error(msg)
            return fr
        cache.put(key, outcome.to_json())
    fr.findings = _strip_private(outcome.findings)
    fr.remaining = _strip_private(outcome.remaining)
    fr.errors.extend(outcome.errors)
    fr.fixed = sum(1 for f in outcome.findings if f.get("_applied")) if outcome.changed else 0
    if not fix or not outcome.changed:
        return fr
    fr.changed = True
    if fr.kind == "notebook" and outcome.cells:
        fr.diff = "".join(unified_diff(old, new, path, f" (cell {i + 1})")
                          for i, (old, new) in sorted(outcome.cells.items()))
    else:
        fr.diff = unified_diff(sf.text, outcome.new_text, path)
    if opts.mode == "fix":
        try:
            with _defer_sigint():
                write_source(sf, outcome.new_text, backup_dir=opts.backup_dir)
                fr.written = True
        except FileError as exc:
            fr.error(exc.message, exc.line, exc.column)
            fr.remaining = fr.findings  # nothing was rewritten
            fr.fixed = 0
    return fr


# ------------------------------------------------------------------------ the run

def _worker_init() -> None:
    global _in_worker
    _in_worker = True
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent decides when to stop
    if sys.platform.startswith("linux"):
        try:  # die with the parent (PR_SET_PDEATHSIG): no orphan keeps writing
            import ctypes
            ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGTERM)
        except Exception:
            pass


def _worker(path: str, opts: Options) -> FileResult:
    return process_file(path, opts)


def git_dirty(paths: Sequence) -> List[str]:
    """Files under ``paths`` with uncommitted changes, if they are in a git work tree."""
    dirty: List[str] = []
    tops: Dict[str, List[str]] = {}
    for p in paths:
        a = os.path.abspath(p)
        d = a if os.path.isdir(a) else os.path.dirname(a)
        try:
            top = subprocess.run(["git", "-C", d, "rev-parse", "--show-toplevel"],
                                 capture_output=True, text=True, timeout=20)
        except (OSError, subprocess.SubprocessError):
            return []
        if top.returncode != 0:
            continue
        tops.setdefault(top.stdout.strip(), []).append(a)
    for top, targets in tops.items():
        try:
            st = subprocess.run(["git", "-C", top, "status", "--porcelain", "-z",
                                 "--untracked-files=no", "--", *targets],
                                capture_output=True, text=True, timeout=60)
        except (OSError, subprocess.SubprocessError):
            continue
        for rec in st.stdout.split("\0"):
            if len(rec) > 3:
                dirty.append(os.path.join(top, rec[3:]))
    return dirty


def _progress(total: int, enabled: bool):
    if not enabled or total < 2 or not sys.stderr.isatty() or os.environ.get("CI"):
        return None
    try:
        from rich.console import Console
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn
    except ImportError:  # pragma: no cover
        return None
    return Progress(TextColumn("paddle-upgrade"), BarColumn(), MofNCompleteColumn(),
                    console=Console(stderr=True), transient=True)


def run(paths: Iterable, *, mode: str = "check", settings: Optional[cfg.Settings] = None,
        jobs: Optional[int] = None, use_cache: bool = True, backup_dir=None,
        require_clean: bool = False, progress: bool = False, prefilter: bool = True,
        max_bytes: int = MAX_FILE_BYTES) -> RunReport:
    """Check (``mode="check"``), preview (``"diff"``) or rewrite (``"fix"``) files and trees."""
    if mode not in MODES:
        raise ValueError(f"mode must be one of {MODES}, not {mode!r}")
    paths = [str(p) for p in paths]
    settings = settings if settings is not None else cfg.resolve(paths)
    report = RunReport(mode=mode, unsafe_fixes=settings.unsafe_fixes)
    files, errors = discover(paths, settings.exclude, settings.extend_exclude,
                             config_root=settings.root)
    report.errors.extend(e.to_dict() for e in errors)
    report.discovered = len(files)
    if mode == "fix" and (require_clean or not os.environ.get("PRE_COMMIT")):
        # under pre-commit the staged files are "uncommitted" by definition
        dirty = git_dirty(paths) if files else []
        if dirty and require_clean:
            report.errors.append({"path": dirty[0], "line": None, "column": None, "message": (
                f"{len(dirty)} file(s) under the target have uncommitted changes; commit or "
                "stash them first (or drop --require-clean)")})
            return report
        if dirty:
            report.warnings.append(
                f"{len(dirty)} file(s) under the target have uncommitted changes in git; "
                "the rewrite will be mixed with them (commit first to review it with git diff)")
    opts = Options(mode=mode, settings=settings, use_cache=use_cache, cache_root=settings.root,
                   backup_dir=Path(backup_dir).resolve() if backup_dir else None,
                   max_bytes=max_bytes, prefilter=prefilter)
    markers: Optional[Tuple[str, ...]] = None  # loaded only if a file must be read
    noqa_flag = settings.report_unused_noqa
    stats = StatCache(settings.root, f"{tool_fingerprint()}\0noqa={bool(noqa_flag)}",
                      enabled=use_cache and prefilter)
    now_ns = time.time_ns()
    results: Dict[int, FileResult] = {}
    tasks: List[Tuple[int, str]] = []
    for i, p in enumerate(files):
        path = str(p)
        if prefilter:
            kind = file_kind(p)
            try:
                st = os.stat(path)
                size = st.st_size
                if size > max_bytes:
                    raise FileError(p, None, f"file too large ({size // 1024} KiB > "
                                    f"{max_bytes // 1024} KiB); skipped")
                key = os.path.abspath(path) if stats.enabled else path
                candidate = stats.get(key, st) if stats.enabled else None
                if candidate is None:
                    with open(path, "rb") as fh:
                        raw = fh.read()
                    if kind == "shell":
                        candidate = b"paddle.distributed" in raw
                    else:
                        if markers is None:
                            markers = legacy_markers()
                        candidate = is_candidate(raw, markers, noqa=noqa_flag)
                    stats.put(key, st, candidate, now_ns)
            except (FileError, OSError) as exc:
                fr = FileResult(path=path, kind=kind)
                fr.error(exc.message if isinstance(exc, FileError)
                         else f"cannot read: {exc.strerror or exc}")
                results[i] = fr
                continue
            if not candidate:
                results[i] = FileResult(path=path, kind=kind, skipped="no legacy marker")
                continue
        tasks.append((i, path))
    stats.save(Cache(settings.root, enabled=use_cache))
    jobs = jobs if jobs and jobs > 0 else (os.cpu_count() or 1)
    jobs = min(jobs, len(tasks)) if tasks else 1
    bar = _progress(len(tasks), progress)
    try:
        if bar:
            bar.start()
            task_id = bar.add_task("files", total=len(tasks))
        step = (lambda: bar.advance(task_id)) if bar else (lambda: None)
        if jobs > 1 and use_cache:
            # results already in the cache are read here: no worker pool for a warm run
            tasks, stopped = _cached_first(tasks, opts, results, step)
            jobs = min(jobs, len(tasks)) if tasks else 1
            if stopped:
                report.interrupted, tasks = True, []
        if not tasks:
            pass
        elif jobs <= 1:
            report.interrupted = _run_serial(tasks, opts, results, step)
        else:
            report.interrupted = _run_pool(tasks, opts, results, jobs, step)
    finally:
        if bar:
            bar.stop()
    report.files = [results[i] for i in sorted(results)]
    return report


def _cached_first(tasks, opts: Options, results: Dict[int, FileResult], step) -> list:
    """Process the files whose result is in the cache (cheap) in this process; return the
    others. A file that cannot be read is left to the normal path (which reports it)."""
    settings = opts.settings
    cache = Cache(opts.cache_root or settings.root, enabled=opts.use_cache)
    mode = "check" if opts.mode == "check" else "fix"
    rest = []
    _stop_requested = False
    try:
        for n, (i, path) in enumerate(tasks):
            try:
                sf = read_source(path, max_bytes=opts.max_bytes)
            except FileError:
                rest.append((i, path))
                continue
            kind = file_kind(Path(path))
            key = cache.key(sf.raw, kind, mode, settings.fingerprint(path), path)
            if not cache._path(key).is_file():
                rest.append((i, path))
                continue
            results[i] = process_file(path, opts, sf)
            step()
            if _stop_requested:
                return rest + list(tasks[n + 1:]), True
    except KeyboardInterrupt:
        return rest, True
    finally:
        _stop_requested = False
    return rest, False


def _run_serial(tasks, opts: Options, results: Dict[int, FileResult], step) -> bool:
    """One file after another. The first Ctrl-C lets the current file finish (and be
    reported), a second one abandons it (its write is atomic either way)."""
    global _stop_requested
    _stop_requested = False
    presses = []

    def handler(signum, frame):
        global _stop_requested
        _stop_requested = True
        presses.append(1)
        if len(presses) > 1:
            raise KeyboardInterrupt

    installed, old = False, None
    if threading.current_thread() is threading.main_thread():
        try:
            old, installed = signal.signal(signal.SIGINT, handler), True
        except ValueError:  # pragma: no cover
            pass
    try:
        for i, path in tasks:
            if _stop_requested:
                break
            try:
                results[i] = process_file(path, opts)
            except KeyboardInterrupt:
                return True
            step()
        return _stop_requested
    finally:
        _stop_requested = False
        if installed:
            signal.signal(signal.SIGINT, old)


def _size_desc(task: Tuple[int, str]) -> Tuple[int, int]:
    try:
        return -os.path.getsize(task[1]), task[0]
    except OSError:
        return 0, task[0]


def _run_pool(tasks, opts: Options, results: Dict[int, FileResult], jobs: int, step) -> bool:
    import multiprocessing
    try:  # forked workers inherit the imported engine and the loaded rule book
        _engine()
        from upgrader import rulebook
        rulebook.load()
        legacy_markers()
    except Exception:  # pragma: no cover - each worker reports its own problem
        pass
    ctx = multiprocessing.get_context("fork") if "fork" in multiprocessing.get_all_start_methods() \
        else None
    ex = ProcessPoolExecutor(max_workers=jobs, mp_context=ctx, initializer=_worker_init)
    futures = {}
    interrupted = False
    try:
        # largest files first: the workers end together instead of one waiting on the
        # last big file (results are kept by index, the report order does not change)
        futures = {ex.submit(_worker, path, opts): i for i, path in sorted(tasks, key=_size_desc)}
        for fut in as_completed(futures):
            i = futures[fut]
            try:
                results[i] = fut.result()
            except BrokenProcessPool:
                break
            except Exception as exc:  # pragma: no cover - process_file catches its own
                fr = FileResult(path=dict(tasks)[i])
                fr.error(f"internal error ({type(exc).__name__}: {exc}); file left unchanged")
                results[i] = fr
            step()
    except KeyboardInterrupt:
        interrupted = True
        for fut in futures:
            fut.cancel()
        try:
            ex.shutdown(wait=True, cancel_futures=True)  # running files finish atomically
        except KeyboardInterrupt:  # pragma: no cover - second Ctrl-C
            pass
        for fut, i in futures.items():
            if i not in results and fut.done() and not fut.cancelled() and fut.exception() is None:
                results[i] = fut.result()
        return interrupted
    finally:
        ex.shutdown(wait=True, cancel_futures=True)
    # a crashed worker (out of memory, ...): finish the rest here, one by one
    rest = [(i, p) for i, p in tasks if i not in results]
    if rest:
        return _run_serial(rest, opts, results, step)
    return interrupted
