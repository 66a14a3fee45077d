"""Jupyter notebooks: all code cells upgraded as one program.

Imports usually sit in the first cell and uses in later ones, so the code cells are
joined into one Python program, cell ``i`` preceded by a marker statement
``__paddle_upgrade_cell_<nonce>_<i>__`` (a statement, not a comment, so that no rewrite
can drop it with a removed import), the engine runs once, and the result is split back
at the markers. Anything the engine puts before the first marker (new imports) belongs
to the first cell.

IPython syntax is masked before the engine and restored after:

* ``%time stmt`` / ``%timeit stmt`` / ``%prun stmt``: the Python payload is unwrapped so
  that legacy calls inside it are upgraded too, and the magic put back in front;
* other line magics, shell escapes (``!pip``, ``x = !ls``), help (``?obj``, ``obj?``)
  and auto-call lines become a placeholder name, restored verbatim (re-indented if the
  surrounding block moved);
* ``%%capture`` / ``%%time`` cells keep their Python body; other cell magics
  (``%%bash``, ``%%writefile``, ...) make the cell opaque: left exactly as it is.

Only the ``source`` of code cells is ever replaced, in place in the JSON text, so
markdown, outputs, metadata, key order, indentation and number formatting stay
byte-identical.
"""
from __future__ import annotations

import ast
import hashlib
import io
import json
import re
import tokenize
from dataclasses import dataclass, field
from typing import Dict, List, Optional, Sequence, Tuple

PY_CELL_MAGICS = {"capture", "time", "timeit", "prun", "memit", "debug", "pdb"}
UNWRAP_LINE_MAGICS = {"time", "timeit", "prun", "memit"}

_ASSIGN_ESCAPE = re.compile(r"^\s*[A-Za-z_][\w.]*(\s*,\s*[A-Za-z_][\w.]*)*\s*=\s*[!%]")
_HELP = re.compile(r"^\s*(\?\??[^\s?].*|[\w.\[\]()'\"*]+\?\??)\s*$")
_LINE_MAGIC = re.compile(r"^(?P<indent>\s*)%(?P<name>\w+)(?P<sep>[ \t]+)(?P<payload>\S.*?)(?P<eol>\r?\n)?$",
                         re.DOTALL)


class NotebookError(ValueError):
    """A notebook that cannot be read or whose cells cannot be restored."""


@dataclass
class Cell:
    index: int       # position among all cells of the notebook (0-based)
    source: str      # the cell's code, joined
    as_list: bool    # stored as a list of lines (nbformat default) or one string


@dataclass
class LineOrigin:
    cell: int        # notebook cell index (0-based)
    line: int        # 1-based line within the cell
    shift: int = 0   # columns removed in front of the payload (unwrapped magics)
    indent: int = 0


@dataclass
class Program:
    code: str
    origins: List[Optional[LineOrigin]]   # per program line (index = line - 1)
    cells: List[int]                      # cell indices included, in order
    nonce: str
    masks: Dict[str, str] = field(default_factory=dict)      # placeholder -> original line
    magics: Dict[str, str] = field(default_factory=dict)     # marker -> "%time " prefix
    added_newline: Dict[int, bool] = field(default_factory=dict)

    def marker(self, cell: int) -> str:
        return f"__paddle_upgrade_cell_{self.nonce}_{cell}__"

    def origin(self, line: int) -> Optional[LineOrigin]:
        if 1 <= line <= len(self.origins):
            return self.origins[line - 1]
        return None


# -------------------------------------------------------------------------- JSON spans

_WS = re.compile(r"[ \t\n\r]*")
_DECODER = json.JSONDecoder()


def _source_spans(text: str) -> List[Tuple[int, int]]:
    """``(start, end)`` of each cell's source value in the JSON text, in cell order
    (nbformat 4 ``cells[i].source``; nbformat 3 ``worksheets[w].cells[i].input``)."""
    spans: List[Tuple[int, int]] = []

    def want(path: tuple) -> str:
        """"take" this value's span, "descend" into it, or "skip" it."""
        n = len(path)
        if path[:1] == ("cells",):
            return ["descend", "descend", "source"][n - 1] if n <= 3 else "skip"
        if path[:1] == ("worksheets",):
            shape = ["descend", "descend", "descend", "descend", "input"]
            keys = [None, None, "cells", None, "input"]
            if n > 5 or any(k is not None and path[i] != k for i, k in enumerate(keys[:n])):
                return "skip"
            return shape[n - 1]
        return "skip"

    def value(idx: int, path: tuple) -> int:
        idx = _WS.match(text, idx).end()
        action = "descend" if not path else want(path)
        if action == "descend" and text[idx] in "{[":
            return container(idx, path)
        _, end = _DECODER.raw_decode(text, idx)
        if action not in ("descend", "skip"):
            if path[-1] == action:
                spans.append((idx, end))
        return end

    def container(idx: int, path: tuple) -> int:
        close = "}" if text[idx] == "{" else "]"
        idx = _WS.match(text, idx + 1).end()
        if text[idx] == close:
            return idx + 1
        i = 0
        while True:
            if close == "}":
                key, idx = _DECODER.raw_decode(text, idx)
                idx = _WS.match(text, idx).end()
                if text[idx] != ":":
                    raise NotebookError("malformed JSON")
                idx = value(idx + 1, path + (key,))
            else:
                idx = value(idx, path + (i,))
                i += 1
            idx = _WS.match(text, idx).end()
            if text[idx] == ",":
                idx = _WS.match(text, idx + 1).end()
                continue
            if text[idx] == close:
                return idx + 1
            raise NotebookError("malformed JSON")

    value(0, ())
    return spans


def _dump_like(old: str, new_value, ensure_ascii: bool) -> str:
    """JSON for ``new_value`` laid out like the ``old`` JSON text of the same field."""
    if isinstance(new_value, str) or "\n" not in old:
        return json.dumps(new_value, ensure_ascii=ensure_ascii)
    nl = "\r\n" if "\r\n" in old else "\n"
    m = re.match(r"\[\r?\n([ \t]*)", old)
    item_indent = m.group(1) if m else " "
    close_indent = re.search(r"\n([ \t]*)\]\s*$", old)
    close = close_indent.group(1) if close_indent else ""
    if not new_value:
        return "[]"
    items = [item_indent + json.dumps(v, ensure_ascii=ensure_ascii) for v in new_value]
    return "[" + nl + ("," + nl).join(items) + nl + close + "]"


# ---------------------------------------------------------------------------- masking

def _in_continuation(lines: Sequence[str]) -> bool:
    """Whether the next line continues a statement (open bracket, string, backslash)."""
    if not lines:
        return False
    if lines[-1].rstrip("\r\n").endswith("\\"):
        return True
    try:
        for _ in tokenize.generate_tokens(io.StringIO("".join(lines)).readline):
            pass
    except tokenize.TokenError:
        return True
    except (SyntaxError, IndentationError):
        return False
    return False


def _complete_line(code: str) -> bool:
    try:
        ast.parse(code.strip())
        return True
    except SyntaxError:
        return False


def _is_ipython(stripped: str, line: str) -> bool:
    return (stripped.startswith(("%", "!", "/", ",", ";")) or bool(_HELP.match(line))
            or bool(_ASSIGN_ESCAPE.match(line)))


class Notebook:
    """A parsed ``.ipynb``: its JSON text, cells and language."""

    def __init__(self, text: str):
        self.text = text
        try:
            self.data = json.loads(text)
        except ValueError as exc:
            raise NotebookError(f"not valid notebook JSON: {exc}") from None
        if not isinstance(self.data, dict):
            raise NotebookError("not a notebook: the JSON top level is not an object")
        raw_cells = self._raw_cells()
        try:
            spans = _source_spans(text)
        except (ValueError, IndexError) as exc:
            raise NotebookError(f"cannot locate cell sources: {exc}") from None
        self.cells: List[Cell] = []
        self.types: List[str] = []
        self._spans: Dict[int, Tuple[int, int]] = {}
        span_iter = iter(spans)
        key = "input" if "worksheets" in self.data else "source"
        for i, c in enumerate(raw_cells):
            ctype = c.get("cell_type", "") if isinstance(c, dict) else ""
            self.types.append(ctype)
            src = c.get(key) if isinstance(c, dict) else None
            if src is not None:
                self._spans[i] = next(span_iter)
            if ctype != "code" or src is None:
                continue
            if isinstance(src, list):
                self.cells.append(Cell(i, "".join(src), True))
            elif isinstance(src, str):
                self.cells.append(Cell(i, src, False))
        self.ensure_ascii = not any(ord(ch) > 127 for ch in text) and bool(
            re.search(r"\\u(?!00[0-7][0-9a-fA-F])[0-9a-fA-F]{4}", text))

    def _raw_cells(self) -> list:
        if "worksheets" in self.data:
            out = []
            for ws in self.data.get("worksheets") or []:
                out.extend(ws.get("cells") or [])
            return out
        cells = self.data.get("cells")
        if not isinstance(cells, list):
            raise NotebookError("not a notebook: no 'cells' list")
        return cells

    @property
    def language(self) -> str:
        md = self.data.get("metadata") or {}
        lang = ((md.get("kernelspec") or {}).get("language")
                or (md.get("language_info") or {}).get("name") or "python")
        return str(lang).lower()

    @property
    def is_python(self) -> bool:
        return self.language in ("python", "python3", "python2", "ipython", "ipython3")

    # ------------------------------------------------------------------- the program

    def program(self, exclude: Sequence[int] = ()) -> Program:
        """The code cells (minus opaque ones and ``exclude``) as one masked program."""
        nonce = hashlib.sha256(self.text.encode("utf-8", "surrogatepass")).hexdigest()[:8]
        prog = Program("", [], [], nonce)
        out: List[str] = []
        counter = [0]
        for cell in self.cells:
            if cell.index in exclude:
                continue
            masked = self._mask_cell(cell, prog, counter)
            if masked is None:
                continue
            lines, origins = masked
            prog.cells.append(cell.index)
            out.append(prog.marker(cell.index) + "\n")
            prog.origins.append(None)
            text = "".join(lines)
            added = bool(text) and not text.endswith("\n")
            prog.added_newline[cell.index] = added
            if added:
                lines[-1] += "\n"
            out.extend(lines)
            prog.origins.extend(origins)
        prog.code = "".join(out)
        return prog

    def _mask_cell(self, cell: Cell, prog: Program, counter: List[int]):
        lines = cell.source.splitlines(keepends=True)
        if lines and lines[0].lstrip().startswith("%%"):
            name = lines[0].lstrip()[2:].split(None, 1)[0] if lines[0].strip() != "%%" else ""
            if name not in PY_CELL_MAGICS:
                return None  # %%bash, %%writefile, ...: not Python
        if not any(_is_ipython(ln.lstrip(), ln) for ln in lines):
            return list(lines), [LineOrigin(cell.index, i + 1) for i in range(len(lines))]
        out: List[str] = []
        origins: List[LineOrigin] = []
        for i, line in enumerate(lines):
            stripped = line.lstrip()
            origin = LineOrigin(cell.index, i + 1)
            if not _is_ipython(stripped, line) or (i > 0 and _in_continuation(out)):
                out.append(line)
                origins.append(origin)
                continue
            indent = line[:len(line) - len(stripped)]
            eol = line[len(line.rstrip("\r\n")):]
            m = _LINE_MAGIC.match(line)
            if (m and not (i == 0 and stripped.startswith("%%")) and m.group("name") in
                    UNWRAP_LINE_MAGICS and not m.group("payload").startswith("-")
                    and _complete_line(m.group("payload"))):
                counter[0] += 1
                marker = f"__paddle_upgrade_magic_{prog.nonce}_{counter[0]}__"
                prefix = "%" + m.group("name") + m.group("sep")
                prog.magics[marker] = prefix
                out.append(f"{indent}{m.group('payload').rstrip()}  # {marker}{eol}")
                origin.shift = len(prefix)
                origin.indent = len(indent)
                origins.append(origin)
                continue
            counter[0] += 1
            name = f"__paddle_upgrade_mask_{prog.nonce}_{counter[0]}__"
            prog.masks[name] = line.rstrip("\r\n")[len(indent):]
            out.append(f"{indent}{name}{eol}")
            origins.append(origin)
        return out, origins

    # ------------------------------------------------------------------ splitting back

    def split(self, prog: Program, new_code: str) -> Dict[int, str]:
        """New source per cell index from the engine's output for ``prog``."""
        lines = new_code.splitlines(keepends=True)
        positions = {}
        for ln_no, line in enumerate(lines):
            s = line.rstrip("\r\n")
            if s.startswith("__paddle_upgrade_cell_" + prog.nonce):
                positions[s] = ln_no
        order = []
        for cell in prog.cells:
            pos = positions.get(prog.marker(cell))
            if pos is None:
                raise NotebookError(f"the rewrite lost the boundary of cell {cell + 1}")
            order.append(pos)
        if order != sorted(order):
            raise NotebookError("the rewrite moved code across cell boundaries")
        result: Dict[int, str] = {}
        for k, cell in enumerate(prog.cells):
            start = order[k] + 1
            end = order[k + 1] if k + 1 < len(order) else len(lines)
            chunk = lines[start:end]
            if k == 0:
                chunk = lines[:order[0]] + chunk
            text = self._unmask("".join(chunk), prog, cell)
            if prog.added_newline.get(cell) and text.endswith("\n"):
                text = text[:-1]
            result[cell] = text
        return result

    def _unmask(self, text: str, prog: Program, cell: int) -> str:
        if not prog.masks and not prog.magics:
            return text
        lines = text.splitlines(keepends=True)
        for i, line in enumerate(lines):
            body = line.rstrip("\r\n")
            eol = line[len(body):]
            stripped = body.lstrip()
            indent = body[:len(body) - len(stripped)]
            if stripped in prog.masks:
                lines[i] = indent + prog.masks[stripped] + eol
                continue
            if "__paddle_upgrade_magic_" + prog.nonce not in body:
                continue
            marker = re.search(r"__paddle_upgrade_magic_\w+?_\d+__", body).group(0)
            prefix = prog.magics[marker]
            body = body[:body.rfind("#")].rstrip()
            # the statement may have been spread over several lines by the rewrite
            start = i
            while start > 0 and (not _complete_line("".join(lines[start:i]) + body)
                                 or lines[start - 1].rstrip("\r\n").endswith("\\")):
                start -= 1
            if start == i:
                lines[i] = indent + prefix + body.lstrip() + eol
                continue
            joined = " ".join(l.strip().rstrip("\\") for l in lines[start:i]) + " " + body.strip()
            if "#" in joined or not _complete_line(joined):
                raise NotebookError(f"cannot restore `{prefix.strip()}` in cell {cell + 1}")
            first_indent = re.match(r"\s*", lines[start]).group(0)
            lines[start] = first_indent + prefix + joined + eol
            for j in range(start + 1, i + 1):
                lines[j] = ""
        restored = "".join(lines)
        if "__paddle_upgrade_mask_" + prog.nonce in restored:
            raise NotebookError(f"cannot restore IPython syntax in cell {cell + 1}")
        return restored

    # ----------------------------------------------------------------------- writing

    def with_sources(self, new_sources: Dict[int, str]) -> str:
        """The notebook JSON text with the given cells' sources replaced in place."""
        by_index = {c.index: c for c in self.cells}
        edits = []
        for idx, src in new_sources.items():
            cell = by_index[idx]
            if src == cell.source:
                continue
            start, end = self._spans[idx]
            old = self.text[start:end]
            value = src.splitlines(keepends=True) if cell.as_list else src
            edits.append((start, end, _dump_like(old, value, self.ensure_ascii)))
        text = self.text
        for start, end, new in sorted(edits, reverse=True):
            text = text[:start] + new + text[end:]
        return text

    def map_finding(self, prog: Program, finding: dict) -> dict:
        """Program coordinates -> ``cell`` (1-based) and line/column within the cell."""
        out = dict(finding)
        o = prog.origin(finding.get("line") or 0)
        if o is None:
            out["cell"] = None
            return out
        out["cell"] = o.cell + 1
        out["line"] = o.line
        if o.shift and (finding.get("column") or 0) > o.indent:
            out["column"] = finding["column"] + o.shift
        end = prog.origin(finding.get("end_line") or 0)
        if end is not None and end.cell == o.cell:
            out["end_line"] = end.line
            if end.shift and (finding.get("end_column") or 0) > end.indent:
                out["end_column"] = finding["end_column"] + end.shift
        else:
            out["end_line"] = o.line
        return out


def cell_of_line(prog: Program, line: Optional[int]) -> Optional[int]:
    o = prog.origin(line or 0)
    return None if o is None else o.cell
