"""Inline suppression: ``# noqa`` and ``# noqa: PU102,PU201``.

A directive applies to findings on its own line and, for a statement spread over several
lines, to findings anywhere in the statement when it sits on the statement's first or
last line (``foo(\\n  x)  # noqa``). Only comments count: ``"# noqa"`` inside a string
does not. A code list names codes or prefixes (``PU1``); codes of other tools
(``# noqa: E501``) suppress nothing here.
"""
from __future__ import annotations

import ast
import io
import re
import tokenize
from dataclasses import dataclass, field
from typing import Dict, Iterable, List, Optional, Set, Tuple

UNUSED_NOQA_CODE = "PU900"
UNUSED_NOQA_RULE = "unused-noqa"

_NOQA = re.compile(r"#\s*noqa(?![\w-])(?:\s*:\s*(?P<codes>[A-Za-z]+[0-9]*(?:\s*,?\s*[A-Za-z]+[0-9]+)*))?",
                   re.IGNORECASE)
_CODE = re.compile(r"[A-Za-z]+[0-9]*")


@dataclass
class Directive:
    line: int
    column: int                      # 1-based column of the '#'
    codes: Optional[Tuple[str, ...]]  # None: blanket ``# noqa``
    used: Set[str] = field(default_factory=set)

    def covers(self, code: str) -> bool:
        if self.codes is None:
            return True
        return any(code.startswith(c) for c in self.codes)


def _comments(text: str) -> Iterable[Tuple[int, int, str]]:
    try:
        for tok in tokenize.generate_tokens(io.StringIO(text).readline):
            if tok.type == tokenize.COMMENT:
                yield tok.start[0], tok.start[1] + 1, tok.string
    except (tokenize.TokenError, SyntaxError, IndentationError):
        # Unparseable code: fall back to a line scan (may see "# noqa" inside strings).
        for i, line in enumerate(text.splitlines(), 1):
            pos = line.find("#")
            if pos >= 0:
                yield i, pos + 1, line[pos:]


def parse_directives(text: str) -> Dict[int, Directive]:
    """``{line: Directive}`` for every noqa comment in ``text``."""
    out: Dict[int, Directive] = {}
    if "noqa" not in text.lower():
        return out
    for line, col, comment in _comments(text):
        m = _NOQA.search(comment)
        if not m:
            continue
        codes = None
        if m.group("codes"):
            codes = tuple(c.upper() for c in _CODE.findall(m.group("codes")))
        out[line] = Directive(line, col + m.start(), codes)
    return out


def statement_spans(text: str) -> Dict[int, Tuple[int, int]]:
    """``{line: (first, last)}``: the lines of the statement (or compound-statement
    header) each line belongs to; lines of one-line statements are omitted."""
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError):
        return {}
    spans: Dict[int, Tuple[int, int]] = {}
    simple: List[Tuple[int, int]] = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.stmt):
            continue
        body = getattr(node, "body", None)
        end = getattr(node, "end_lineno", None) or node.lineno
        if isinstance(body, list) and body and isinstance(body[0], ast.AST):
            head_end = max(node.lineno, body[0].lineno - 1)
            for ln in range(node.lineno, head_end + 1):
                spans.setdefault(ln, (node.lineno, head_end))
        elif end > node.lineno:
            simple.append((node.lineno, end))
    for first, last in simple:
        for ln in range(first, last + 1):
            spans[ln] = (first, last)
    return {ln: s for ln, s in spans.items() if s[0] != s[1]}


def find_directive(line: int, code: str, directives: Dict[int, Directive],
                   spans: Dict[int, Tuple[int, int]]) -> Optional[Directive]:
    candidates = [line]
    if line in spans:
        candidates += [spans[line][0], spans[line][1]]
    for ln in candidates:
        d = directives.get(ln)
        if d is not None and d.covers(code):
            return d
    return None


def apply_noqa(findings: List[dict], text: str, *, report_unused: bool = False
               ) -> Tuple[List[dict], List[dict]]:
    """Split finding dicts into ``(kept, suppressed)``; with ``report_unused``, ``kept``
    also gets a ``PU900`` finding for each code of a ``# noqa: PU...`` list that
    suppressed nothing (blanket ``# noqa`` may serve other tools and is never reported)."""
    directives = parse_directives(text)
    if not directives:
        return list(findings), []
    spans = statement_spans(text)
    kept, suppressed = [], []
    for f in findings:
        d = find_directive(f["line"], f["code"], directives, spans)
        if d is None:
            kept.append(f)
        else:
            suppressed.append(f)
            d.used.add(f["code"])
    if report_unused:
        for d in sorted(directives.values(), key=lambda d: d.line):
            for code in d.codes or ():
                if not code.startswith("PU"):
                    continue
                if any(u.startswith(code) for u in d.used):
                    continue
                kept.append({
                    "line": d.line, "column": d.column, "end_line": d.line,
                    "end_column": d.column, "code": UNUSED_NOQA_CODE, "rule": UNUSED_NOQA_RULE,
                    "message": f"unused `noqa` directive: no {code} finding here",
                    "legacy": "", "replacement": "", "fix": "manual", "path": None})
    return kept, suppressed
