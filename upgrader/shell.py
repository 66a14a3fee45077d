"""PU107 legacy-launch: Paddle 1.8 launch commands in shell scripts.

What it does
    Scans shell text (``.sh`` files, Makefile recipes, CI steps) for Paddle 1.8 launcher
    invocations and reports each legacy option with its replacement:
    ``python -m paddle.distributed.launch --selected_gpus 0,1 --cluster_node_ips ...
    --node_ip ... --started_port 6170 --use_paddlecloud --print_config ... --log_level 20``
    and ``python -m paddle.distributed.launch_ps ...`` (the 1.8 parameter-server
    launcher).

Why is this bad?
    Paddle 2.x+ rewrote the launcher. ``--selected_gpus`` still works only through a
    deprecated compatibility path (``--devices``/``--gpus`` replace it);
    ``--cluster_node_ips``, ``--node_ip``, ``--started_port``, ``--use_paddlecloud`` and
    ``--print_config`` are gone (unknown options send the launcher into its legacy mode,
    which rejects them), ``--log_level`` takes a name (``INFO``) instead of a number, and
    ``paddle.distributed.launch_ps`` no longer exists.

Example
    ``python -m paddle.distributed.launch --selected_gpus=0,1 --log_dir logs train.py`` →
    ``python -m paddle.distributed.launch --devices=0,1 --log_dir logs train.py``;
    ``--cluster_node_ips 10.0.0.1,10.0.0.2 --node_ip 10.0.0.1 --started_port 6170`` →
    ``--ips 10.0.0.1,10.0.0.2 --start_port 6170`` (the node's own address is detected;
    ``--host`` sets it); ``python -m paddle.distributed.launch_ps --worker_num 2
    --server_num 2 train.py`` → ``python -m paddle.distributed.launch --worker_num 2
    --server_num 2 train.py``.

Fix safety
    Report only (``check``): shell scripts are not rewritten. Each finding is ``manual``
    and names the replacement. Note also that the 3.x launcher writes per-rank logs to
    ``./log`` by default (1.8 printed to the terminal without ``--log_dir``).
"""
from __future__ import annotations

import re
import shlex
from typing import Dict, List, Optional, Tuple

CODE = "PU107"
RULE = "legacy-launch"

LAUNCH = "paddle.distributed.launch"
LAUNCH_PS = "paddle.distributed.launch_ps"

#: 1.8 option -> (replacement option or "", message)
OPTIONS: Dict[str, Tuple[str, str]] = {
    "--selected_gpus": ("--devices", "`--selected_gpus` is only accepted by the deprecated "
                        "compatibility launcher; use `--devices` (or `--gpus`)"),
    "--cluster_node_ips": ("--ips", "`--cluster_node_ips` is gone; use `--ips` (or `--master "
                           "IP:PORT --nnodes N` for a rendezvous)"),
    "--node_ip": ("", "`--node_ip` is gone; the launcher detects the node address "
                  "(`--host IP` sets it)"),
    "--started_port": ("--start_port", "`--started_port` is now `--start_port`"),
    "--use_paddlecloud": ("", "`--use_paddlecloud` is gone; the PaddleCloud environment is read "
                          "automatically"),
    "--print_config": ("", "`--print_config` is gone; the launcher always logs its configuration"),
    "--log_level": ("--log_level", "`--log_level` takes a level name today (`INFO`, `DEBUG`, "
                    "...), not a number"),
}

_PY = re.compile(r"(?:^|[\s;&|(`]|\$\()(?:[\w./${}-]*/)?(?:python[\d.]*|\$\{?PYTHON\w*\}?)(?=\s)")


def _logical_lines(text: str) -> List[Tuple[int, str, List[Tuple[int, int]]]]:
    """Join backslash continuations: (first line, joined text, [(offset, line)...])."""
    out = []
    lines = text.splitlines()
    i = 0
    while i < len(lines):
        start = i
        parts: List[str] = []
        offsets: List[Tuple[int, int]] = []
        pos = 0
        while True:
            line = lines[i]
            cont = line.rstrip().endswith("\\") and not line.lstrip().startswith("#")
            body = line.rstrip()[:-1] + " " if cont else line
            offsets.append((pos, i + 1))
            parts.append(body)
            pos += len(body)
            i += 1
            if not cont or i >= len(lines):
                break
        out.append((start + 1, "".join(parts), offsets))
    return out


def _where(offsets, joined: str, index: int, raw_lines) -> Tuple[int, int]:
    """(line, column) of character ``index`` of a joined logical line (1-based)."""
    line, base = offsets[0][1], 0
    for off, ln in offsets:
        if off <= index:
            line, base = ln, off
    return line, index - base + 1


def _finding(line, col, end_col, message, legacy, replacement) -> dict:
    return {"path": None, "line": line, "column": col, "end_line": line, "end_column": end_col,
            "code": CODE, "rule": RULE, "message": message, "legacy": legacy,
            "replacement": replacement, "fix": "manual"}


def _strip_comment(line: str) -> str:
    """The line without a trailing shell comment (quotes respected, roughly)."""
    quote: Optional[str] = None
    for i, ch in enumerate(line):
        if quote:
            if ch == quote:
                quote = None
        elif ch in "'\"":
            quote = ch
        elif ch == "#" and (i == 0 or line[i - 1].isspace()):
            return line[:i]
    return line


def scan_shell(text: str) -> List[dict]:
    """Findings (dicts shaped like the JSON findings of ``check``, ``path`` None) for the
    legacy Paddle launch commands in shell ``text``."""
    findings: List[dict] = []
    raw = text.splitlines()
    for first, joined, offsets in _logical_lines(text):
        code = _strip_comment(joined)
        for m in re.finditer(r"-m\s+(paddle\.distributed\.launch(?:_ps)?)\b", code):
            if not _PY.search(code[:m.start()] + " "):
                continue
            module = m.group(1)
            mod_line, mod_col = _where(offsets, joined, m.start(1), raw)
            if module == LAUNCH_PS:
                findings.append(_finding(
                    mod_line, mod_col, mod_col + len(module),
                    "`python -m paddle.distributed.launch_ps` is gone; start parameter-server "
                    "jobs with `python -m paddle.distributed.launch --server_num N --worker_num M` "
                    "(or `--servers IP:PORT,... --workers IP:PORT,...`)", LAUNCH_PS, LAUNCH))
            # the launcher's own options: up to the training script (first non-option word)
            rest = _command_end(code[m.end():])
            try:
                words = shlex.split(rest)
            except ValueError:
                words = rest.split()
            cursor = m.end()
            expect_value = False
            for w in words:
                at = code.find(w, cursor)
                if at >= 0:
                    cursor = at + len(w)
                if expect_value:
                    expect_value = False
                    continue
                if not w.startswith("-"):
                    break  # the training script: its own options are not the launcher's
                name, eq, value = w.partition("=")
                if name in OPTIONS and at >= 0:
                    replacement, message = OPTIONS[name]
                    if name == "--log_level":
                        level = value if eq else _next_word(words, w)
                        if level is None or not level.lstrip("-").isdigit():
                            expect_value = not eq
                            continue
                    line, col = _where(offsets, joined, at, raw)
                    findings.append(_finding(line, col, col + len(name), message,
                                             f"{module} {name}", replacement))
                expect_value = not eq and name not in ("--use_paddlecloud",) and \
                    _takes_value(name)
    return findings


def _command_end(text: str) -> str:
    """``text`` up to the first unquoted ``;``, ``&``, ``|``, ``(`` or ``)``."""
    quote: Optional[str] = None
    for i, ch in enumerate(text):
        if quote:
            if ch == quote:
                quote = None
        elif ch in "'\"":
            quote = ch
        elif ch in ";&|()":
            return text[:i]
    return text


def _next_word(words: List[str], w: str) -> Optional[str]:
    try:
        return words[words.index(w) + 1]
    except (ValueError, IndexError):
        return None


def _takes_value(option: str) -> bool:
    """Launcher options with a separate value word (flags without one are rare)."""
    return option not in ("--use_paddlecloud", "--elastic", "--force")
