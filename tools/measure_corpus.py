"""Measure ``check`` and ``fix`` on a corpus of real Paddle 1.x code.

Usage::

    .venv/bin/python tools/measure_corpus.py CORPUS_DIR [--json OUT.json] [--markdown OUT.md]
                                              [--cli] [--keep DIR] [--live]

The corpus is never modified: it is copied to a temporary directory (or ``--keep DIR``)
and every rewrite happens there. The engine measured is a snapshot of ``upgrader/`` and
``rules/`` taken at the start (``--live``: the work tree as it is while the run goes on). Each ``.py`` file goes through the same code path as the
CLI (``upgrader.runner.upgrade_python`` with default settings: noqa, select/ignore,
final-newline handling, the "rewrite must still parse" guard), then the rewritten text
is written with ``upgrader.files.write_source`` and fixed a second time. ``--cli`` also
runs the console script (``check --format json``, ``fix``, ``fix`` again) on a second
copy and compares its totals with the in-process figures.

Definitions (what the figures count)
------------------------------------
file
    every ``*.py`` file under CORPUS_DIR (recursively), as ``upgrader.files.discover``
    finds it (default excludes apply).
lines
    physical lines (``str.splitlines``) of those files.
parse failure
    a file that the engine cannot parse as Python 3 (typically Python 2 code: ``print x``,
    ``except E, e``); reported with path:line and the tool's message, and excluded from
    every percentage below.
legacy call site
    one finding of ``check`` whose code is ``PU001`` (legacy name with no rule) or in the
    ``PU1xx`` (data-driven API rules), ``PU2xx`` (structural rules) or ``PU3xx``
    (devices) families. The engine reports one such finding per occurrence of a legacy
    name used as a call or as a value (``fluid.layers.fc(...)``, ``class M(fluid.dygraph.
    Layer)``, ``opt = fluid.optimizer.Adam``), so this is "each place in the code where a
    legacy API is used". Imports of legacy modules (``PU002``) and star imports
    (``PU003``) are counted separately, ``PU9xx`` notes are not counted.
rewritten automatically
    a legacy call site reported by ``fix`` (default settings, i.e. without
    ``--unsafe-fixes``) whose rewrite was applied. ``unsafe`` sites are reported and left
    alone by default; the figure "with --unsafe-fixes" counts them as rewritten too.
manual
    a legacy call site whose fix kind is ``manual``: left as it was, with a
    ``# TODO(paddle-upgrade): CODE message`` comment above its statement. The script
    checks that every site that is not rewritten carries that comment in the output
    ("missing note" must be 0).
output parse failure
    a rewritten file that Python 3 (``ast.parse``) rejects, or that the runner refused to
    write because the rewrite would not parse. Must be 0.
non-idempotent file
    a rewritten file that a second ``fix`` changes again. Must be 0. The same two checks
    (outputs parse, second fix changes nothing) are made for ``--unsafe-fixes`` too.
crash
    any other exception from the tool on a file (internal error), reported with the
    exception. Must be 0.
undefined name
    a name that the rewritten file reads but binds nowhere (no import, assignment, def,
    parameter) while the original did bind it or did not read it: e.g. an import removed
    although a use was left for manual follow-up. A scope-blind AST comparison of the
    file before and after; files with a star import are skipped. Must be 0.

The engine and the rule database are hashed before and after the run; when they change
during the run (only possible with ``--live``) the report starts with a warning.

Check-mode and fix-mode findings are both collected; the classification above uses the
fix-mode findings (they carry whether each rewrite was applied), totals and PU001 use the
check-mode findings, and files where the two disagree are listed.
"""
from __future__ import annotations

import argparse
import ast
import builtins
import collections
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import traceback
from pathlib import Path
from typing import Dict, List, Optional

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from upgrader import config as cfg  # noqa: E402
from upgrader import runner  # noqa: E402
from upgrader.engine import TODO_PREFIX  # noqa: E402
from upgrader.files import FileError, discover, read_source, write_source  # noqa: E402

SITE = re.compile(r"^PU(001|[123]\d\d)$")


def is_site(code: str) -> bool:
    return bool(SITE.match(code))


def has_note(f: dict, lines: List[str]) -> bool:
    """Whether a ``# TODO(paddle-upgrade): CODE ...`` comment naming the site's API stands
    on or above the site's line in the rewritten text (``f`` is a finding on that text)."""
    tail = f["legacy"].rsplit(".", 1)[-1]
    for ln in lines[:max(f["line"], 1)]:
        i = ln.find(TODO_PREFIX.strip())
        if i >= 0 and f["code"] in ln[i:] and tail in ln[i:]:
            return True
    return False


def group_of(rel: str) -> str:
    return rel.split("/", 1)[0] if "/" in rel else "."


def fingerprint() -> str:
    """Hash of the engine and the rule database: a run is only consistent if it does not
    change while the corpus is measured."""
    h = hashlib.sha256()
    for q in sorted(list((ROOT / "upgrader").rglob("*.py")) + list((ROOT / "rules").glob("*.toml"))):
        h.update(str(q.relative_to(ROOT)).encode())
        h.update(q.read_bytes())
    return h.hexdigest()[:16]


def free_names(code: str) -> Optional[Dict[str, int]]:
    """Names read somewhere in ``code`` but bound nowhere in it (nor builtins): a crude,
    scope-blind check, used only to compare a file before and after the rewrite. None when
    the file has a star import (names cannot be known)."""
    tree = ast.parse(code)
    bound, loads = set(), {}
    for n in ast.walk(tree):
        if isinstance(n, (ast.Import, ast.ImportFrom)):
            for a in n.names:
                if a.name == "*":
                    return None
                bound.add((a.asname or a.name).split(".")[0])
        elif isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            bound.add(n.name)
        elif isinstance(n, ast.arg):
            bound.add(n.arg)
        elif isinstance(n, ast.Name):
            if isinstance(n.ctx, (ast.Store, ast.Del)):
                bound.add(n.id)
            else:
                loads.setdefault(n.id, n.lineno)
        elif isinstance(n, ast.ExceptHandler) and n.name:
            bound.add(n.name)
        elif isinstance(n, (ast.Global, ast.Nonlocal)):
            bound.update(n.names)
    known = set(dir(builtins)) | {"__file__", "__name__", "__doc__", "__spec__", "__path__"}
    return {k: v for k, v in loads.items() if k not in bound and k not in known}


def measure_file(path: Path, rel: str, settings: cfg.Settings, unsafe: cfg.Settings) -> dict:
    out: dict = {"path": rel, "lines": 0, "parse_error": None, "crash": None,
                 "check": [], "fix": [], "fix_unsafe_applied": 0, "changed": False,
                 "output_parse_error": None, "refused": None, "second_fix_diff": None,
                 "missing_notes": [], "write_error": None, "remaining": 0,
                 "new_undefined": {}}
    try:
        sf = read_source(path)
    except FileError as exc:
        out["crash"] = f"cannot read: {exc.message}"
        return out
    text = sf.text
    out["lines"] = len(text.splitlines())
    spath = str(path)
    # --- check
    try:
        oc = runner.upgrade_python(text, settings, spath, False)
    except runner._Parse as exc:
        out["parse_error"] = {"line": exc.line, "column": exc.column, "message": exc.message}
        return out
    except Exception as exc:
        out["crash"] = f"check: {type(exc).__name__}: {exc}\n{traceback.format_exc()}"
        return out
    out["check"] = [dict(f) for f in oc.findings]
    # --- fix (default settings)
    try:
        of = runner.upgrade_python(text, settings, spath, True)
    except runner._Refused as exc:
        out["refused"] = str(exc)
        return out
    except Exception as exc:
        out["crash"] = f"fix: {type(exc).__name__}: {exc}\n{traceback.format_exc()}"
        return out
    applied_all = bool(of.changed)
    out["fix"] = [dict(f, _applied=bool(f.get("_applied")) and applied_all)
                  for f in of.findings]
    out["changed"] = of.changed
    new_text = of.new_text
    if of.changed:
        try:
            ast.parse(new_text)
        except SyntaxError as exc:
            out["output_parse_error"] = f"line {exc.lineno}: {exc.msg}"
        else:
            try:
                before, after = free_names(text), free_names(new_text)
            except SyntaxError:
                before = after = None
            if before is not None and after is not None:
                out["new_undefined"] = {k: v for k, v in after.items() if k not in before}
        try:
            write_source(sf, new_text)
        except FileError as exc:
            out["write_error"] = exc.message
        # notes: every site left in the rewritten text carries its TODO comment
        lines = new_text.splitlines()
        for f in of.remaining:
            if is_site(f["code"]) and not has_note(f, lines):
                out["missing_notes"].append(f"{f['line']}: {f['code']} {f['legacy']}")
        out["remaining"] = sum(1 for f in of.remaining if is_site(f["code"]))
        # second fix
        try:
            o2 = runner.upgrade_python(new_text, settings, spath, True)
            if o2.changed and o2.new_text != new_text:
                out["second_fix_diff"] = runner.unified_diff(new_text, o2.new_text, rel)
        except Exception as exc:
            out["crash"] = f"second fix: {type(exc).__name__}: {exc}\n{traceback.format_exc()}"
    else:
        out["remaining"] = sum(1 for f in of.remaining if is_site(f["code"]))
        for f in of.remaining:
            if is_site(f["code"]):
                out["missing_notes"].append(f"{f['line']}: {f['code']} {f['legacy']}")
    # --- fix with --unsafe-fixes: how many sites would be rewritten
    try:
        ou = runner.upgrade_python(text, unsafe, spath, True)
        if ou.changed:
            out["fix_unsafe_applied"] = sum(1 for f in ou.findings
                                            if is_site(f["code"]) and f.get("_applied"))
            try:
                ast.parse(ou.new_text)
            except SyntaxError as exc:
                out["unsafe_output_parse_error"] = f"line {exc.lineno}: {exc.msg}"
            o2 = runner.upgrade_python(ou.new_text, unsafe, spath, True)
            if o2.changed and o2.new_text != ou.new_text:
                out["unsafe_second_fix_diff"] = runner.unified_diff(ou.new_text, o2.new_text, rel)
    except runner._Refused as exc:
        out["unsafe_output_parse_error"] = str(exc)
    except Exception as exc:
        out["crash"] = f"fix --unsafe-fixes: {type(exc).__name__}: {exc}"
    return out


LOD_WORDS = ("sequence_", "lod", "dynamic_lstm", "dynamic_gru", "dynamicrnn", "linear_chain_crf",
             "beam_search")


def reason(f: dict) -> str:
    """Why a legacy call site was not rewritten by default (for the report)."""
    code, last = f["code"], f["legacy"].lower().rsplit(".", 1)[-1]
    if code == "PU001":
        return "no rule for the name (PU001)"
    if f["fix"] == "unsafe":
        return "rewrite exists but is unsafe (applied only with --unsafe-fixes)"
    if any(w in last for w in LOD_WORDS):
        return "LoD / variable-length-sequence API (no LoD in 3.x)"
    if code == "PU106" and not f.get("legacy", "").startswith("paddle.dataset."):
        return "data pipeline: non-iterable loaders / py_reader read across functions or files (PU106)"
    return {
        "PU102": "API removed in 3.x without a drop-in counterpart (PU102)",
        "PU104": "optimizer / LR-decay / gradient-clip API removed (PU104)",
        "PU105": "save/load or inference-model format changed (PU105)",
        "PU106": "paddle.dataset reader creators (PU106)",
        "PU208": "Program.clone(for_test=True) has no PIR counterpart (PU208)",
    }.get(code, "call cannot be mapped statically (argument form, structural rule)")


def summarize(results: List[dict]) -> dict:
    ok = [r for r in results if r["parse_error"] is None and r["crash"] is None]
    s: dict = {
        "files": len(results), "lines": sum(r["lines"] for r in results),
        "parse_failures": [dict(path=r["path"], **r["parse_error"]) for r in results
                           if r["parse_error"]],
        "crashes": [{"path": r["path"], "error": r["crash"]} for r in results if r["crash"]],
        "refused": [{"path": r["path"], "error": r["refused"]} for r in results if r["refused"]],
        "measured_files": len(ok), "measured_lines": sum(r["lines"] for r in ok),
    }
    check_sites = [f for r in ok for f in r["check"] if is_site(f["code"])]
    fix_sites = [f for r in ok for f in r["fix"] if is_site(f["code"])]
    s["sites_check"] = len(check_sites)
    s["sites_fix"] = len(fix_sites)
    s["imports_PU002"] = sum(1 for r in ok for f in r["check"] if f["code"] == "PU002")
    s["star_imports_PU003"] = sum(1 for r in ok for f in r["check"] if f["code"] == "PU003")
    applied = [f for f in fix_sites if f["_applied"]]
    s["rewritten"] = len(applied)
    s["rewritten_by_kind"] = dict(collections.Counter(f["fix"] for f in applied))
    s["unsafe_not_applied"] = sum(1 for f in fix_sites if f["fix"] == "unsafe" and not f["_applied"])
    s["manual"] = sum(1 for f in fix_sites if f["fix"] == "manual")
    s["safe_not_applied"] = sum(1 for f in fix_sites if f["fix"] == "safe" and not f["_applied"])
    s["rewritten_with_unsafe"] = sum(r["fix_unsafe_applied"] for r in ok)
    s["remaining_after_fix"] = sum(r["remaining"] for r in ok)
    n = s["sites_fix"] or 1
    s["pct_rewritten"] = 100.0 * s["rewritten"] / n
    s["pct_rewritten_with_unsafe"] = 100.0 * s["rewritten_with_unsafe"] / n
    s["pct_manual"] = 100.0 * s["manual"] / n
    s["by_code_check"] = dict(sorted(collections.Counter(f["code"] for f in check_sites).items()))
    pu001 = collections.Counter(f["legacy"] for f in check_sites if f["code"] == "PU001")
    s["PU001"] = sum(pu001.values())
    s["PU001_names"] = pu001.most_common()
    manual = collections.defaultdict(collections.Counter)
    for f in fix_sites:
        if f["fix"] == "manual" or (f["fix"] == "unsafe" and not f["_applied"]):
            manual[(f["legacy"], f["code"], f["fix"])][f["message"]] += 1
    s["manual_entries"] = sorted(
        ({"legacy": k[0], "code": k[1], "fix": k[2], "count": sum(c.values()),
          "message": c.most_common(1)[0][0], "variants": len(c)} for k, c in manual.items()),
        key=lambda d: (-d["count"], d["legacy"]))
    s["not_rewritten_by_reason"] = collections.Counter(
        reason(f) for f in fix_sites if not f["_applied"]).most_common()
    s["changed_files"] = sum(1 for r in ok if r["changed"])
    s["output_parse_failures"] = [{"path": r["path"], "error": r["output_parse_error"]}
                                  for r in ok if r["output_parse_error"]]
    s["write_errors"] = [{"path": r["path"], "error": r["write_error"]}
                         for r in ok if r["write_error"]]
    s["non_idempotent"] = [{"path": r["path"], "diff": r["second_fix_diff"]}
                           for r in ok if r["second_fix_diff"]]
    s["missing_notes"] = [{"path": r["path"], "sites": r["missing_notes"]}
                          for r in ok if r["missing_notes"]]
    s["new_undefined"] = [{"path": r["path"], "names": r["new_undefined"]}
                          for r in ok if r["new_undefined"]]
    s["unsafe_output_parse_failures"] = [{"path": r["path"], "error": r["unsafe_output_parse_error"]}
                                         for r in ok if r.get("unsafe_output_parse_error")]
    s["unsafe_non_idempotent"] = [{"path": r["path"], "diff": r["unsafe_second_fix_diff"]}
                                  for r in ok if r.get("unsafe_second_fix_diff")]
    s["check_fix_mismatch"] = [
        {"path": r["path"], "check": sum(1 for f in r["check"] if is_site(f["code"])),
         "fix": sum(1 for f in r["fix"] if is_site(f["code"]))}
        for r in ok if sum(1 for f in r["check"] if is_site(f["code"]))
        != sum(1 for f in r["fix"] if is_site(f["code"]))]
    groups: Dict[str, dict] = {}
    for r in ok:
        g = groups.setdefault(group_of(r["path"]), {"files": 0, "lines": 0, "sites": 0,
                                                    "rewritten": 0, "manual": 0, "PU001": 0})
        g["files"] += 1
        g["lines"] += r["lines"]
        sites = [f for f in r["fix"] if is_site(f["code"])]
        g["sites"] += len(sites)
        g["rewritten"] += sum(1 for f in sites if f["_applied"])
        g["manual"] += sum(1 for f in sites if f["fix"] == "manual")
        g["PU001"] += sum(1 for f in r["check"] if f["code"] == "PU001")
    s["groups"] = groups
    return s


def run_cli(corpus: Path, work: Path) -> dict:
    """The console script (``upgrader.cli:main`` of the measured tree) on a second copy:
    check (json), fix, fix again."""
    exe = [sys.executable, "-c", "import sys; from upgrader.cli import main; "
           "sys.argv[0] = 'paddle-upgrade'; main()"]
    dst = work / "cli"
    shutil.copytree(corpus, dst)
    env = dict(os.environ, CI="1",
               PYTHONPATH=os.pathsep.join([str(ROOT)] + [p for p in [os.environ.get("PYTHONPATH")] if p]))
    out: dict = {}
    p = subprocess.run(exe + ["check", "--no-cache", "--jobs", "1", "--format", "json",
                              str(dst)], capture_output=True, text=True, env=env, cwd=work)
    out["check_exit"] = p.returncode
    try:
        d = json.loads(p.stdout)
        sites = [f for f in d["findings"] if is_site(f["code"])]
        out["check_sites"] = len(sites)
        out["check_PU001"] = sum(1 for f in sites if f["code"] == "PU001")
        out["check_errors"] = len(d.get("errors", []))
    except (ValueError, KeyError) as exc:
        out["check_output_error"] = f"{exc}: {p.stdout[:300]} {p.stderr[:300]}"
    p = subprocess.run(exe + ["fix", "--no-cache", "--jobs", "1", str(dst)],
                       capture_output=True, text=True, env=env, cwd=work)
    out["fix_exit"] = p.returncode
    out["fix_tail"] = (p.stdout + p.stderr).strip().splitlines()[-3:]
    before = {q: q.read_bytes() for q in dst.rglob("*.py")}
    p = subprocess.run(exe + ["fix", "--no-cache", "--jobs", "1", str(dst)],
                       capture_output=True, text=True, env=env, cwd=work)
    out["fix2_exit"] = p.returncode
    out["fix2_changed_files"] = sorted(str(q.relative_to(dst)) for q, b in before.items()
                                       if q.read_bytes() != b)
    unparsable = []
    for q in dst.rglob("*.py"):
        try:
            ast.parse(q.read_bytes())
        except SyntaxError:
            unparsable.append(str(q.relative_to(dst)))
    out["unparsable_after_fix"] = sorted(unparsable)
    return out


SNAPSHOT_ENV = "PU_MEASURE_SNAPSHOT"


def run_in_snapshot(argv: List[str], work: Path) -> int:
    """Copy upgrader/, rules/ and this script to WORK/snapshot and run the copy there, so
    that edits others make to the work tree during the run cannot mix versions."""
    snap = work / "snapshot"
    if snap.exists():
        shutil.rmtree(snap)
    for d in ("upgrader", "rules"):
        shutil.copytree(ROOT / d, snap / d, ignore=shutil.ignore_patterns("__pycache__"))
    (snap / "tools").mkdir(parents=True)
    shutil.copy2(Path(__file__).resolve(), snap / "tools" / "measure_corpus.py")
    keep = [] if "--keep" in argv else ["--keep", str(work)]
    env = dict(os.environ, **{SNAPSHOT_ENV: str(ROOT)})
    env["PYTHONPATH"] = os.pathsep.join([str(snap)] + [p for p in [os.environ.get("PYTHONPATH")] if p])
    return subprocess.run([sys.executable, str(snap / "tools" / "measure_corpus.py"), *argv, *keep],
                          env=env).returncode


def pct(a: float) -> str:
    return f"{a:.1f}%"


def markdown(s: dict, cli: Optional[dict], top: int = 30, note_chars: int = 300) -> str:
    L: List[str] = []
    L.append("| figure | value |")
    L.append("|---|---|")
    rows = [
        ("files (`*.py`)", s["files"]), ("lines", s["lines"]),
        ("files that do not parse as Python 3 (excluded)", len(s["parse_failures"])),
        ("tool crashes (internal errors)", len(s["crashes"])),
        ("measured files / lines", f"{s['measured_files']} / {s['measured_lines']}"),
        ("legacy call sites (check: PU001 + PU1xx/PU2xx/PU3xx)", s["sites_check"]),
        ("legacy call sites seen by fix", s["sites_fix"]),
        ("legacy imports (PU002, counted apart)", s["imports_PU002"]),
        ("star imports (PU003, counted apart)", s["star_imports_PU003"]),
        ("rewritten automatically by `fix`", f"{s['rewritten']} ({pct(s['pct_rewritten'])})"),
        ("… of which safe / unsafe", " / ".join(
            str(s["rewritten_by_kind"].get(k, 0)) for k in ("safe", "unsafe"))),
        ("unsafe, not applied without `--unsafe-fixes`", s["unsafe_not_applied"]),
        ("rewritten with `--unsafe-fixes`",
         f"{s['rewritten_with_unsafe']} ({pct(s['pct_rewritten_with_unsafe'])})"),
        ("manual (left with a TODO note)", f"{s['manual']} ({pct(s['pct_manual'])})"),
        ("safe but not applied (anomaly)", s["safe_not_applied"]),
        ("sites left in the rewritten code (re-check)", s["remaining_after_fix"]),
        ("… of those, without a TODO note above them", sum(len(m["sites"]) for m in s["missing_notes"])),
        ("PU001 findings (legacy names with no rule)", s["PU001"]),
        ("distinct PU001 names", len(s["PU001_names"])),
        ("files changed by `fix`", s["changed_files"]),
        ("rewritten files that do not parse / refused rewrites",
         f"{len(s['output_parse_failures'])} / {len(s['refused'])}"),
        ("files a second `fix` changes", len(s["non_idempotent"])),
        ("with `--unsafe-fixes`: outputs that do not parse / files a second fix changes",
         f"{len(s['unsafe_output_parse_failures'])} / {len(s['unsafe_non_idempotent'])}"),
        ("rewritten files reading a name they no longer define or import", len(s["new_undefined"])),
        ("files where check and fix disagree on the site count", len(s["check_fix_mismatch"])),
    ]
    for k, v in rows:
        L.append(f"| {k} | {v} |")
    if cli:
        L.append("")
        L.append("CLI cross-check (`paddle-upgrade` on a second copy): " + ", ".join(
            f"{k}={v}" for k, v in cli.items() if k != "fix_tail"))
    L.append("")
    L.append("By source:")
    L.append("")
    L.append("| source | files | lines | sites | rewritten | manual | PU001 |")
    L.append("|---|---|---|---|---|---|---|")
    for g, d in sorted(s["groups"].items()):
        p = pct(100.0 * d["rewritten"] / d["sites"]) if d["sites"] else "-"
        L.append(f"| {g} | {d['files']} | {d['lines']} | {d['sites']} | {d['rewritten']} ({p}) "
                 f"| {d['manual']} | {d['PU001']} |")
    L.append("")
    L.append("Findings by code (check): " + ", ".join(f"{k} {v}" for k, v in s["by_code_check"].items()))
    L.append("")
    L.append(f"Top {top} PU001 names (legacy API with no rule):")
    L.append("")
    L.append("| count | legacy name |")
    L.append("|---|---|")
    for name, n in s["PU001_names"][:top]:
        L.append(f"| {n} | `{name}` |")
    L.append("")
    L.append("Sites not rewritten by default, by reason:")
    L.append("")
    L.append("| sites | reason |")
    L.append("|---|---|")
    for why, n in s["not_rewritten_by_reason"]:
        L.append(f"| {n} | {why} |")
    L.append("")
    L.append(f"Top {top} sites not rewritten (manual, or unsafe not applied), by legacy name:")
    L.append("")
    L.append("| count | legacy name | code | kind | note (most common) |")
    L.append("|---|---|---|---|---|")
    for m in s["manual_entries"][:top]:
        msg = " ".join(m["message"].split())
        msg = msg if len(msg) <= note_chars else msg[:note_chars].rstrip() + " …"
        msg = msg.replace("|", "\\|")
        more = f" (+{m['variants'] - 1} other notes)" if m["variants"] > 1 else ""
        L.append(f"| {m['count']} | `{m['legacy']}` | {m['code']} | {m['fix']} | {msg}{more} |")
    for title, key in (("Parse failures (excluded)", "parse_failures"), ("Crashes", "crashes"),
                       ("Refused rewrites", "refused"),
                       ("Rewritten files that do not parse", "output_parse_failures"),
                       ("Outputs of --unsafe-fixes that do not parse", "unsafe_output_parse_failures"),
                       ("Write errors", "write_errors"),
                       ("Sites without a TODO note", "missing_notes"),
                       ("Names the rewrite left undefined", "new_undefined"),
                       ("Check/fix site-count mismatches", "check_fix_mismatch")):
        items = s[key]
        L.append("")
        L.append(f"{title}: {len(items) if items else 'none'}")
        for it in items:
            if key == "parse_failures":
                L.append(f"- `{it['path']}:{it['line']}`: {it['message']}")
            else:
                body = {k: v for k, v in it.items() if k != "path"}
                L.append(f"- `{it['path']}`: {json.dumps(body)[:400]}")
    L.append("")
    L.append(f"Non-idempotent files: {len(s['non_idempotent']) or 'none'}"
             + (f" (with --unsafe-fixes: {len(s['unsafe_non_idempotent'])})"
                if s["unsafe_non_idempotent"] else ""))
    for it in s["non_idempotent"] + s["unsafe_non_idempotent"]:
        L.append(f"- `{it['path']}`:")
        L.append("```diff")
        L.extend(it["diff"].splitlines()[:40])
        L.append("```")
    return "\n".join(L) + "\n"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("corpus", type=Path)
    ap.add_argument("--json", type=Path, help="write every figure and finding here")
    ap.add_argument("--markdown", type=Path, help="write the report as Markdown here")
    ap.add_argument("--cli", action="store_true", help="also cross-check with the console script")
    ap.add_argument("--keep", type=Path, help="work here (a new directory) instead of a temp dir")
    ap.add_argument("--top", type=int, default=30)
    ap.add_argument("--live", action="store_true",
                    help="measure the work tree as it is, not a snapshot of upgrader/ and rules/")
    args = ap.parse_args(argv)
    corpus = args.corpus.resolve()
    if not corpus.is_dir():
        ap.error(f"{corpus} is not a directory")
    work = args.keep.resolve() if args.keep else Path(tempfile.mkdtemp(prefix="pu-measure-"))
    work.mkdir(parents=True, exist_ok=True)
    if not args.live and not os.environ.get(SNAPSHOT_ENV):
        return run_in_snapshot(argv if argv is not None else sys.argv[1:], work)
    copy = work / "fixed"
    shutil.copytree(corpus, copy)
    settings = cfg.Settings(root=copy)
    unsafe = cfg.Settings(root=copy, unsafe_fixes=True)
    files, errors = discover([str(copy)], settings.exclude, settings.extend_exclude,
                             config_root=settings.root)
    files = sorted(Path(f) for f in files if str(f).endswith(".py"))
    fp_start = fingerprint()
    t0 = time.time()
    results = []
    for p in files:
        rel = p.relative_to(copy).as_posix()
        results.append(measure_file(p, rel, settings, unsafe))
    elapsed = time.time() - t0
    s = summarize(results)
    s["discover_errors"] = [e.to_dict() for e in errors]
    s["seconds"] = round(elapsed, 1)
    s["fingerprint_start"] = fp_start
    s["fingerprint_measured"] = fingerprint()
    cli = run_cli(corpus, work) if args.cli else None
    if cli is not None:
        s["cli"] = cli
        cli["fingerprint_after"] = fingerprint()
    moved = {v for k, v in s.items() if k.startswith("fingerprint")} | (
        {cli["fingerprint_after"]} if cli else set())
    if len(moved) > 1:
        s["warning"] = ("the engine or the rule database changed during the run "
                        f"({', '.join(sorted(moved))}); figures may mix versions: run again")
    md = markdown(s, cli, args.top)
    origin = os.environ.get(SNAPSHOT_ENV)
    md = (f"Engine and rules fingerprint: {s['fingerprint_measured']}"
          + (f" (snapshot of {origin} taken at the start of the run)" if origin else " (live work tree)")
          + "\n\n" + md)
    if s.get("warning"):
        md = f"WARNING: {s['warning']}\n\n" + md
    print(md)
    print(f"({len(files)} files in {elapsed:.1f}s; rewritten copy in {copy})", file=sys.stderr)
    if args.markdown:
        args.markdown.write_text(md, encoding="utf-8")
    if args.json:
        args.json.write_text(json.dumps({"summary": s, "files": results}, indent=1,
                                        default=str), encoding="utf-8")
    bad = (s["crashes"] or s["output_parse_failures"] or s["non_idempotent"] or s["refused"]
           or s["unsafe_output_parse_failures"] or s["unsafe_non_idempotent"]
           or s["PU001"] or s["missing_notes"] or s["new_undefined"] or s["pct_rewritten"] < 95.0)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
