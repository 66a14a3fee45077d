"""Render a :class:`~upgrader.runner.RunReport`: text, json, sarif (2.1.0), github.

* text: ``path:line:col: CODE message [*]`` (``[*]``: ``fix`` rewrites it), notebooks as
  ``path:cell N:line:col: ...``; colours and a summary table on a terminal, plain lines
  when the output is not a terminal or ``NO_COLOR`` is set.
* json: ``{"findings": [...], "errors": [...], "summary": {...}}``, findings with exactly
  the contract's keys (plus ``cell`` for notebooks).
* sarif: one run, rules (with help text from ``explain``) for the codes reported.
* github: workflow commands, ``::error file=...,line=...,col=...::message``.
"""
from __future__ import annotations

import io
import json
import os
import sys
from typing import Dict, Iterable, List, Optional

FINDING_KEYS = ("path", "line", "column", "end_line", "end_column", "code", "rule",
                "message", "legacy", "replacement", "fix")
SARIF_SCHEMA = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
TOOL_URI = "https://pypi.org/project/paddle-upgrade/"
EXTRA_DOCS = {
    "PU900": {"rule": "unused-noqa", "what": "A `# noqa: PUxxx` comment that suppresses no "
              "finding.", "why": "Stale suppressions hide future findings on the line.",
              "example": "", "fix_safety": "Remove the code from the comment by hand."},
}


def public_finding(f: dict) -> dict:
    """The contract's keys in the contract's order (``cell`` kept for notebooks)."""
    out = {k: f.get(k) for k in FINDING_KEYS}
    if f.get("cell") is not None:
        out["cell"] = f["cell"]
    return out


def _sorted(findings: Iterable[dict]) -> List[dict]:
    return sorted(findings, key=lambda f: (f.get("path") or "", f.get("cell") or 0,
                                           f.get("line") or 0, f.get("column") or 0,
                                           f.get("code") or ""))


def fixable(f: dict, unsafe_fixes: bool = False) -> bool:
    return f.get("fix") == "safe" or (unsafe_fixes and f.get("fix") == "unsafe")


def location(d: dict) -> str:
    parts = [d.get("path") or "-"]
    if d.get("cell") is not None:
        parts.append(f"cell {d['cell']}")
    if d.get("line"):
        parts.append(str(d["line"]))
        if d.get("column"):
            parts.append(str(d["column"]))
    return ":".join(parts)


def finding_line(f: dict, unsafe_fixes: bool = False) -> str:
    mark = " [*]" if fixable(f, unsafe_fixes) else ""
    return f"{location(f)}: {f['code']} {f['message']}{mark}"


def error_line(e: dict) -> str:
    return f"{location(e)}: error: {e['message']}"


def use_color(stream=None) -> bool:
    if os.environ.get("NO_COLOR"):
        return False
    if os.environ.get("FORCE_COLOR"):
        return True
    stream = stream or sys.stdout
    return bool(getattr(stream, "isatty", lambda: False)()) and os.environ.get("TERM") != "dumb"


# --------------------------------------------------------------------------- text

def _counts(findings: List[dict]) -> Dict[str, dict]:
    out: Dict[str, dict] = {}
    for f in findings:
        c = out.setdefault(f["code"], {"code": f["code"], "rule": f.get("rule", ""),
                                       "count": 0, "safe": 0, "unsafe": 0, "manual": 0})
        c["count"] += 1
        c[f.get("fix", "manual")] = c.get(f.get("fix", "manual"), 0) + 1
    return dict(sorted(out.items(), key=lambda kv: (-kv[1]["count"], kv[0])))


def render_statistics(rep) -> str:
    lines = []
    for c in _counts(rep.findings).values():
        mark = "[*]" if c["safe"] == c["count"] else ("[-]" if c["safe"] else "   ")
        lines.append(f"{c['count']:>6}  {c['code']}  {mark}  {c['rule']}")
    return "\n".join(lines)


def _summary_lines(rep) -> List[str]:
    s = rep.summary()
    out: List[str] = []
    if rep.mode == "check":
        if s["findings"]:
            more = s["by_fix"]["unsafe"] if not rep.unsafe_fixes else 0
            out.append(f"Found {s['findings']} legacy API use(s) in "
                       f"{s['files_with_findings']} file(s) ({s['fixable']} fixable with "
                       f"`paddle-upgrade fix`" + (f", {more} more with --unsafe-fixes" if more else "")
                       + ").")
        else:
            out.append(f"No legacy Paddle API found ({s['files']} file(s) checked).")
    else:
        verb = "Fixed" if rep.mode == "fix" else "Would fix"
        files = s["written"] if rep.mode == "fix" else s["changed"]
        out.append(f"{verb} {s['fixed']} finding(s) in {files} file(s); "
                   f"{s['findings']} left for manual follow-up ({s['files']} file(s) checked).")
    if s["errors"]:
        out.append(f"{s['errors']} error(s): those files were not "
                   f"{'changed' if rep.mode == 'fix' else 'fully checked'}.")
    if rep.interrupted:
        written = rep.written
        out.append(f"Interrupted: {len(written)} file(s) had been written"
                   + (": " + ", ".join(written) if written else "") + "; no file is half-written"
                   + (f"; {s['not_processed']} file(s) not processed." if s["not_processed"] else "."))
    return out


def render_text(rep, *, statistics: bool = False, quiet: bool = False,
                color: Optional[bool] = None) -> str:
    color = use_color() if color is None else color
    findings = _sorted(rep.findings)
    errors = _sorted(rep.all_errors)
    if color:
        return _render_rich(rep, findings, errors, statistics, quiet)
    out: List[str] = []
    out.extend(f"warning: {w}" for w in rep.warnings)
    if rep.mode == "diff" and not quiet:
        out.extend(r.diff.rstrip("\n") for r in rep.files if r.diff)
    if not quiet:
        out.extend(finding_line(f, rep.unsafe_fixes) for f in findings)
    out.extend(error_line(e) for e in errors)
    if statistics and not quiet:
        stats = render_statistics(rep)
        if stats:
            out.append(stats)
    if not quiet:
        out.extend(_summary_lines(rep))
    elif rep.interrupted:
        out.extend(_summary_lines(rep)[-1:])
    return "\n".join(out) + ("\n" if out else "")


def _render_rich(rep, findings, errors, statistics, quiet) -> str:
    from rich import box
    from rich.console import Console
    from rich.table import Table
    from rich.text import Text
    buf = io.StringIO()
    width = int(os.environ.get("COLUMNS", "0") or 0) or 100
    console = Console(file=buf, force_terminal=True, color_system="standard", width=width,
                      highlight=False, soft_wrap=True)
    for w in rep.warnings:
        console.print(Text.assemble(("warning: ", "yellow bold"), w))
    if rep.mode == "diff" and not quiet:
        for r in rep.files:
            for line in r.diff.splitlines():
                style = ("bold" if line.startswith(("---", "+++")) else "green" if line.startswith("+")
                         else "red" if line.startswith("-") else "cyan" if line.startswith("@@") else "")
                console.print(Text(line, style=style))
    if not quiet:
        for f in findings:
            console.print(Text.assemble((location(f), "bold"), ": ", (f["code"], "red bold"),
                                        " " + f["message"],
                                        (" [*]", "cyan") if fixable(f, rep.unsafe_fixes) else ""))
    for e in errors:
        console.print(Text.assemble((location(e), "bold"), ": ", ("error", "red bold"),
                                    ": " + e["message"]))
    if not quiet and (statistics or findings):
        counts = _counts(findings)
        if counts:
            table = Table(box=box.SIMPLE_HEAD, show_edge=False, pad_edge=False)
            for col, just in (("count", "right"), ("code", "left"), ("rule", "left"),
                              ("safe", "right"), ("unsafe", "right"), ("manual", "right")):
                table.add_column(col, justify=just)
            for c in counts.values():
                table.add_row(str(c["count"]), c["code"], c["rule"], str(c["safe"]),
                              str(c["unsafe"]), str(c["manual"]))
            console.print(table)
    if not quiet or rep.interrupted:
        for line in (_summary_lines(rep) if not quiet else _summary_lines(rep)[-1:]):
            console.print(Text(line, style="bold"))
    return buf.getvalue()


# --------------------------------------------------------------------------- json

def render_json(rep) -> str:
    payload = {
        "findings": [public_finding(f) for f in _sorted(rep.findings)],
        "errors": [dict(e) for e in _sorted(rep.all_errors)],
        "summary": rep.summary(),
    }
    if rep.warnings:
        payload["summary"]["warnings"] = list(rep.warnings)
    return json.dumps(payload, indent=2, ensure_ascii=False) + "\n"


# -------------------------------------------------------------------------- sarif

def _rule_doc(code: str) -> dict:
    if code in EXTRA_DOCS:
        return {"code": code, **EXTRA_DOCS[code]}
    try:
        from upgrader import explain
        doc = explain.code_doc(code)
    except Exception:
        doc = None
    return doc or {"code": code, "rule": "legacy-api", "what": "Legacy PaddlePaddle 1.x API.",
                   "why": "`paddle.fluid` was removed in Paddle 2.6.", "example": "",
                   "fix_safety": ""}


def _sarif_rule(code: str, name: str) -> dict:
    doc = _rule_doc(code)
    what = doc.get("what") or ""
    short = what.split("\n", 1)[0].strip() or code
    sections = [("What it does", what), ("Why is this bad?", doc.get("why", "")),
                ("Example", doc.get("example", "")), ("Fix safety", doc.get("fix_safety", ""))]
    md = "\n\n".join(f"## {t}\n\n{b}" for t, b in sections if b)
    text = "\n\n".join(f"{t}\n{b}" for t, b in sections if b)
    return {
        "id": code,
        "name": doc.get("rule") or name or code,
        "shortDescription": {"text": short},
        "fullDescription": {"text": what or short},
        "help": {"text": text or short, "markdown": md or short},
        "defaultConfiguration": {"level": "note" if code.startswith("PU9") else "error"},
        "properties": {"tags": ["paddle", "migration"]},
    }


def _region(d: dict) -> dict:
    r = {"startLine": max(1, int(d.get("line") or 1))}
    if d.get("column"):
        r["startColumn"] = max(1, int(d["column"]))
    if d.get("end_line"):
        r["endLine"] = max(r["startLine"], int(d["end_line"]))
        if d.get("end_column"):
            ec = max(1, int(d["end_column"]))
            if r["endLine"] == r["startLine"] and "startColumn" in r:
                ec = max(ec, r["startColumn"])
            r["endColumn"] = ec
    return r


def _uri(path: str) -> str:
    from urllib.parse import quote
    p = path.replace(os.sep, "/")
    if os.path.isabs(path):
        return "file://" + quote(p)
    return quote(p[2:] if p.startswith("./") else p)


def sarif_log(rep) -> dict:
    from upgrader import __version__
    findings = _sorted(rep.findings)
    codes: Dict[str, str] = {}
    for f in findings:
        codes.setdefault(f["code"], f.get("rule", ""))
    rules = [_sarif_rule(c, codes[c]) for c in sorted(codes)]
    index = {r["id"]: i for i, r in enumerate(rules)}
    results = []
    for f in findings:
        msg = f["message"] if f.get("cell") is None else f"cell {f['cell']}: {f['message']}"
        props = {"fix": f.get("fix"), "legacy": f.get("legacy") or "",
                 "replacement": f.get("replacement") or ""}
        if f.get("cell") is not None:
            props["cell"] = f["cell"]
        results.append({
            "ruleId": f["code"], "ruleIndex": index[f["code"]],
            "level": "note" if f["code"].startswith("PU9") else "error",
            "message": {"text": msg},
            "locations": [{"physicalLocation": {
                "artifactLocation": {"uri": _uri(f["path"]), "uriBaseId": "%SRCROOT%"},
                "region": _region(f)}}],
            "properties": props,
        })
    notifications = []
    for e in _sorted(rep.all_errors):
        n = {"level": "error", "message": {"text": e["message"]},
             "descriptor": {"id": "file-error"}}
        if e.get("path"):
            loc = {"artifactLocation": {"uri": _uri(e["path"]), "uriBaseId": "%SRCROOT%"}}
            if e.get("line"):
                loc["region"] = _region({"line": e["line"], "column": e.get("column")})
            n["locations"] = [{"physicalLocation": loc}]
        notifications.append(n)
    invocation = {"executionSuccessful": not rep.all_errors and not rep.interrupted}
    if notifications:
        invocation["toolExecutionNotifications"] = notifications
    return {
        "$schema": SARIF_SCHEMA,
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {"name": "paddle-upgrade", "version": __version__,
                                "informationUri": TOOL_URI, "rules": rules}},
            "originalUriBaseIds": {"%SRCROOT%": {"uri": _srcroot()}},
            "columnKind": "unicodeCodePoints",
            "invocations": [invocation],
            "results": results,
        }],
    }


def _srcroot() -> str:
    from urllib.parse import quote
    p = os.getcwd().replace(os.sep, "/")
    return "file://" + quote(p if p.startswith("/") else "/" + p) + "/"


def render_sarif(rep) -> str:
    return json.dumps(sarif_log(rep), indent=2, ensure_ascii=False) + "\n"


# ------------------------------------------------------------------------- github

def _gh_data(s: str) -> str:
    return s.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _gh_prop(s: str) -> str:
    return _gh_data(s).replace(":", "%3A").replace(",", "%2C")


def render_github(rep) -> str:
    out = []
    for f in _sorted(rep.findings):
        props = [f"file={_gh_prop(f['path'])}"]
        msg = f["message"]
        if f.get("cell") is not None:
            msg = f"cell {f['cell']}, line {f['line']}: {msg}"
        else:
            props.append(f"line={f['line']}")
            if f.get("column"):
                props.append(f"col={f['column']}")
            if f.get("end_line"):
                props.append(f"endLine={f['end_line']}")
            if f.get("end_column") and f.get("end_line") == f.get("line"):
                props.append(f"endColumn={f['end_column']}")
        props.append(f"title={_gh_prop(f['code'] + ' ' + (f.get('rule') or ''))}")
        level = "notice" if f["code"].startswith("PU9") else "error"
        out.append(f"::{level} {','.join(props)}::{_gh_data(msg)}")
    for e in _sorted(rep.all_errors):
        props = [f"file={_gh_prop(e['path'])}"] if e.get("path") else []
        if e.get("line") and e.get("cell") is None:
            props.append(f"line={e['line']}")
        props.append("title=paddle-upgrade error")
        out.append(f"::error {','.join(props)}::{_gh_data(e['message'])}")
    out.extend(_summary_lines(rep))
    return "\n".join(out) + "\n"


# ------------------------------------------------------------------------- entry

def render(rep, *, fmt: str = "text", mode: Optional[str] = None, statistics: bool = False,
           quiet: bool = False, color: Optional[bool] = None) -> str:
    """The output of one run in ``fmt`` (``mode`` defaults to the report's own)."""
    if mode is not None and mode != rep.mode:
        rep.mode = mode
    if fmt == "json":
        return render_json(rep)
    if fmt == "sarif":
        return render_sarif(rep)
    if fmt == "github":
        return render_github(rep)
    if fmt != "text":
        raise ValueError(f"unknown format {fmt!r}")
    return render_text(rep, statistics=statistics, quiet=quiet, color=color)
