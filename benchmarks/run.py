"""Speed at scale, side by side with the anchors; writes benchmarks/results.json.

    make bench                                  # corpus + anchors venv + this script
    .venv/bin/python benchmarks/run.py [--fix-corpus 100k] [--check-corpus 1M]
                                       [--jobs 2] [--repeats 3] [--skip-anchor]
                                       [--skip-compat] [--quick]

Measured in one run:

1. ``paddle-upgrade fix`` lines/s vs ``paddle_upgrade_tool`` (PyPI
   ``paddle-upgrade-tool``, bowler/fissix, in ``benchmarks/.venv-anchors``) on the same
   files: a fresh copy of the corpus for each tool, both with ``--jobs``/``-p`` workers.
2. ``paddle-upgrade check`` wall time on the 1M-line tree vs ``ruff check`` (default
   rules, ``--isolated --no-cache``) on the same tree; both cold (no cache).
3. ``paddle-upgrade check`` on the unchanged tree with a warm cache.
4. Peak RSS of every ``paddle-upgrade`` run: the largest single process (``wait4``
   ru_maxrss) and the whole process tree (parent + workers, sampled from /proc).
5. compat per-call overhead (``benchmarks/compat_bench.py``).

Wall times are the minimum over ``--repeats`` runs (the machine may be shared); CPU
time (user+sys of the process tree) is reported next to them. Corpus copies live in a
temporary directory outside any git work tree (ruff would skip gitignored paths).
"""
from __future__ import annotations

import argparse
import ast
import json
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Dict, List, Optional

ROOT = Path(__file__).resolve().parent.parent
BENCH = ROOT / "benchmarks"
CORPUS = BENCH / "corpus"
VENV = ROOT / ".venv" / "bin"
ANCHORS = BENCH / ".venv-anchors" / "bin"
RESULTS = BENCH / "results.json"

TARGETS = {
    "fix_speedup": (">=", 20.0, "fix lines/s vs paddle_upgrade_tool", "x"),
    "check_vs_ruff": ("<=", 2.0, "check wall time vs ruff (1M lines)", "x"),
    "warm_check_s": ("<=", 0.5, "warm-cache check wall time (1M lines)", "s"),
    "peak_rss_mb": ("<=", 300.0, "peak RSS (process tree)", "MB"),
    "compat_eager_overhead": ("<=", 0.10, "compat overhead, eager relu / elementwise_add (worst)", "%"),
    "compat_eager_overhead_median": ("<=", 0.10, "compat overhead, eager ops (median of 7)", "%"),
    "compat_eager_overhead_max": ("<=", 0.25, "compat overhead, eager ops (worst of 7)", "%"),
    "compat_step_overhead": ("<=", 0.03, "compat overhead, training step", "%"),
}


# --------------------------------------------------------------------------- measuring

def _children_of() -> Dict[int, List[int]]:
    kids: Dict[int, List[int]] = {}
    for d in os.listdir("/proc"):
        if not d.isdigit():
            continue
        try:
            with open(f"/proc/{d}/stat", "rb") as fh:
                stat = fh.read()
        except OSError:
            continue
        ppid = int(stat[stat.rindex(b")") + 2:].split()[1])
        kids.setdefault(ppid, []).append(int(d))
    return kids


def _tree_rss_kb(root: int) -> int:
    kids = _children_of()
    total, stack = 0, [root]
    page_kb = os.sysconf("SC_PAGE_SIZE") // 1024
    while stack:
        pid = stack.pop()
        stack += kids.get(pid, [])
        try:
            with open(f"/proc/{pid}/statm") as fh:
                total += int(fh.read().split()[1]) * page_kb
        except (OSError, IndexError, ValueError):
            pass
    return total


def measure(cmd: List[str], cwd: Optional[Path] = None, env: Optional[dict] = None,
            sample_rss: bool = False, stdout=subprocess.DEVNULL) -> dict:
    """Run ``cmd``; wall time, user+sys CPU of the tree, largest process RSS, and the
    peak RSS of the whole tree (sampled every 20 ms) when ``sample_rss``."""
    t0 = time.perf_counter()
    p = subprocess.Popen(cmd, cwd=cwd, env=env, stdout=stdout, stderr=subprocess.PIPE)
    peak = [0]
    done = threading.Event()

    def sampler():
        while not done.is_set():
            peak[0] = max(peak[0], _tree_rss_kb(p.pid))
            done.wait(0.02)
    th = threading.Thread(target=sampler, daemon=True) if sample_rss else None
    if th:
        th.start()
    err = p.stderr.read()
    _, status, ru = os.wait4(p.pid, 0)
    wall = time.perf_counter() - t0
    done.set()
    if th:
        th.join()
    p.returncode = os.waitstatus_to_exitcode(status)
    return {"wall_s": wall, "cpu_s": ru.ru_utime + ru.ru_stime,
            "max_process_rss_mb": ru.ru_maxrss / 1024,
            "tree_peak_rss_mb": peak[0] / 1024 if sample_rss else None,
            "rc": p.returncode, "stderr_tail": err.decode("utf-8", "replace")[-2000:]}


def best(runs: List[dict]) -> dict:
    b = dict(min(runs, key=lambda r: r["wall_s"]))
    b["cpu_s"] = min(r["cpu_s"] for r in runs)
    b["runs_wall_s"] = [round(r["wall_s"], 3) for r in runs]
    if any(r.get("tree_peak_rss_mb") for r in runs):
        b["tree_peak_rss_mb"] = max(r["tree_peak_rss_mb"] or 0 for r in runs)
    b["max_process_rss_mb"] = max(r["max_process_rss_mb"] for r in runs)
    return b


def copy_tree(src: Path, dst: Path) -> Path:
    if dst.exists():
        shutil.rmtree(dst)
    shutil.copytree(src, dst, ignore=shutil.ignore_patterns(".paddle_upgrade_cache"))
    return dst


def py_files(root: Path) -> List[Path]:
    return sorted(p for p in root.rglob("*.py") if ".paddle_upgrade_cache" not in p.parts)


def changed_files(orig: Path, new: Path) -> List[str]:
    out = []
    for p in py_files(orig):
        rel = p.relative_to(orig)
        q = new / rel
        if q.read_bytes() != p.read_bytes():
            out.append(str(rel))
    return out


def unparseable(root: Path, rels: List[str]) -> List[str]:
    bad = []
    for rel in rels:
        try:
            ast.parse((root / rel).read_text(encoding="utf-8"))
        except (SyntaxError, ValueError):
            bad.append(rel)
    return bad


def manifest(size: str) -> dict:
    return json.loads((CORPUS / size / "MANIFEST.json").read_text())


# ------------------------------------------------------------------------------ parts

TOOL_ENV: Dict[str, str] = {}


def snapshot_tool(work: Path) -> dict:
    """Run a frozen copy of ``upgrader/`` and ``rules/``: the cache fingerprints the tool's
    sources and rules, and a tree being edited while the benchmark runs would turn warm
    runs cold (and mix versions across measurements)."""
    d = work / "tool"
    skip = shutil.ignore_patterns("__pycache__", "*.pyc")
    shutil.copytree(ROOT / "upgrader", d / "upgrader", ignore=skip)
    shutil.copytree(ROOT / "rules", d / "rules", ignore=skip)
    subprocess.run([str(VENV / "python"), "-m", "compileall", "-q", str(d / "upgrader")],
                   check=True)
    env = {k: v for k, v in os.environ.items() if k != "PADDLE_UPGRADE_RULES_DIR"}
    env["PYTHONPATH"] = str(d)
    TOOL_ENV.clear()
    TOOL_ENV.update(env)
    git = lambda *a: subprocess.run(["git", "-C", str(ROOT), *a], capture_output=True,
                                    text=True).stdout.strip()
    return {"git_head": git("rev-parse", "--short", "HEAD"),
            "uncommitted_files": len(git("status", "--porcelain", "--", "upgrader", "rules")
                                     .splitlines())}


def ours(*args: str) -> List[str]:
    return [str(VENV / "python"), "-m", "upgrader.cli", *args]


def bench_fix(size: str, work: Path, jobs: int, repeats: int, anchor: bool) -> dict:
    src = CORPUS / size
    lines = manifest(size)["lines"]
    res: dict = {"corpus": size, "lines": lines, "jobs": jobs}
    runs = []
    for _ in range(repeats):
        d = copy_tree(src, work / "fix-ours")
        runs.append(measure(ours("fix", "--no-cache", "--no-progress", "-q", "-j", str(jobs),
                                 str(d)), cwd=work, env=TOOL_ENV, sample_rss=True))
    r = best(runs)
    changed = changed_files(src, d)
    r.update(lines_per_s=lines / r["wall_s"], cpu_lines_per_s=lines / r["cpu_s"],
             files_changed=len(changed), unparseable_outputs=unparseable(d, changed))
    res["ours"] = r
    if anchor:
        tool = ANCHORS / "paddle_upgrade_tool"
        if not tool.exists():
            res["anchor"] = {"error": f"{tool} missing (make bench-anchors)"}
            return res
        aruns = []
        for _ in range(repeats):
            d = copy_tree(src, work / "fix-anchor")
            bak = work / "anchor-backup"
            shutil.rmtree(bak, ignore_errors=True)
            aruns.append(measure([str(tool), "-i", str(d), "-w", "--no-confirm", "-p", str(jobs),
                                  "-b", str(bak), "--no-log-file", "--log-level", "ERROR"],
                                 cwd=work))
        a = best(aruns)
        changed = changed_files(src, d)
        a.update(lines_per_s=lines / a["wall_s"], cpu_lines_per_s=lines / a["cpu_s"],
                 files_changed=len(changed), unparseable_outputs=unparseable(d, changed))
        res["anchor"] = a
        res["speedup"] = r["lines_per_s"] / a["lines_per_s"]
        res["cpu_speedup"] = r["cpu_lines_per_s"] / a["cpu_lines_per_s"]
        # the legacy files alone: what each tool does per legacy line
    return res


def bench_check(size: str, work: Path, jobs: int, repeats: int) -> dict:
    d = copy_tree(CORPUS / size, work / "check")
    lines = manifest(size)["lines"]
    res: dict = {"corpus": size, "lines": lines, "jobs": jobs}
    cold = [measure(ours("check", "--no-cache", "--no-progress", "-q", "-j", str(jobs), str(d)),
                    cwd=work, env=TOOL_ENV, sample_rss=True) for _ in range(repeats)]
    res["ours_cold"] = best(cold)
    ruff = ANCHORS / "ruff"
    if ruff.exists():
        rr = [measure([str(ruff), "check", "--isolated", "--no-cache", "--exit-zero", "-q",
                       str(d)], cwd=work) for _ in range(repeats)]
        res["ruff"] = best(rr)
        res["ruff"]["version"] = subprocess.run([str(ruff), "--version"], capture_output=True,
                                                text=True).stdout.strip()
        res["vs_ruff"] = res["ours_cold"]["wall_s"] / res["ruff"]["wall_s"]
    else:
        res["ruff"] = {"error": f"{ruff} missing (make bench-anchors)"}
    # warm cache: one run fills it, then measure
    fill = measure(ours("check", "--no-progress", "-q", "-j", str(jobs), str(d)), cwd=work,
                   env=TOOL_ENV)
    res["cache_fill"] = {"wall_s": fill["wall_s"], "cpu_s": fill["cpu_s"]}
    warm = [measure(ours("check", "--no-progress", "-q", "-j", str(jobs), str(d)), cwd=work,
                    env=TOOL_ENV, sample_rss=True) for _ in range(max(repeats, 3))]
    res["ours_warm"] = best(warm)
    # the same warm run in one process (no worker pool)
    warm1 = [measure(ours("check", "--no-progress", "-q", "-j", "1", str(d)), cwd=work,
                     env=TOOL_ENV) for _ in range(max(repeats, 3))]
    res["ours_warm_jobs1"] = best(warm1)
    # baseline: interpreter + CLI start-up alone
    res["startup"] = best([measure(ours("--version"), env=TOOL_ENV) for _ in range(3)])
    for k in ("ours_cold", "ours_warm", "ours_warm_jobs1"):
        res[k]["exit_code_ok"] = res[k]["rc"] in (0, 1)
    return res


def bench_compat(quick: bool) -> dict:
    cmd = [str(VENV / "python"), str(BENCH / "compat_bench.py")] + (["--quick"] if quick else [])
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode != 0:
        return {"error": p.stderr[-3000:]}
    d = json.loads(p.stdout.strip().splitlines()[-1])
    d["train_step"].pop("upgraded_source", None)
    return d


# ----------------------------------------------------------------------------- report

def evaluate(results: dict) -> List[dict]:
    measured: Dict[str, Optional[float]] = {}
    fix, chk, compat = results.get("fix", {}), results.get("check", {}), results.get("compat", {})
    measured["fix_speedup"] = fix.get("speedup")
    measured["check_vs_ruff"] = chk.get("vs_ruff")
    measured["warm_check_s"] = chk.get("ours_warm", {}).get("wall_s")
    rss = [r.get("tree_peak_rss_mb") for r in (fix.get("ours", {}), chk.get("ours_cold", {}),
                                               chk.get("ours_warm", {})) if r.get("tree_peak_rss_mb")]
    measured["peak_rss_mb"] = max(rss) if rss else None
    eager = compat.get("eager", {})
    measured["compat_eager_overhead"] = max((v["overhead"] for k, v in eager.items()
                                             if k in ("relu", "elementwise_add")), default=None)
    every = sorted(v["overhead"] for v in eager.values())
    measured["compat_eager_overhead_median"] = every[len(every) // 2] if every else None
    measured["compat_eager_overhead_max"] = every[-1] if every else None
    measured["compat_step_overhead"] = compat.get("train_step", {}).get("overhead")
    rows = []
    for key, (op, target, label, unit) in TARGETS.items():
        m = measured.get(key)
        met = None if m is None else (m >= target if op == ">=" else m <= target)
        rows.append({"key": key, "label": label, "measured": m, "target": target, "op": op,
                     "unit": unit, "met": met})
    return rows


def fmt(v: Optional[float], unit: str) -> str:
    if v is None:
        return "n/a"
    if unit == "%":
        return f"{v * 100:+.1f}%"
    if unit == "x":
        return f"{v:.2f}x"
    if unit == "s":
        return f"{v:.2f} s"
    return f"{v:.0f} {unit}"


def table(results: dict) -> str:
    out = []
    fix, chk = results.get("fix", {}), results.get("check", {})
    if fix.get("ours"):
        o = fix["ours"]
        out.append(f"fix   {fix['corpus']} lines ({fix['lines']}), jobs={fix['jobs']}")
        out.append(f"  paddle-upgrade      {o['wall_s']:8.2f} s wall {o['cpu_s']:8.2f} s cpu "
                   f"{o['lines_per_s']:10.0f} lines/s  ({o['files_changed']} files changed)")
        a = fix.get("anchor", {})
        if "wall_s" in a:
            out.append(f"  paddle_upgrade_tool {a['wall_s']:8.2f} s wall {a['cpu_s']:8.2f} s cpu "
                       f"{a['lines_per_s']:10.0f} lines/s  ({a['files_changed']} files changed)")
            out.append(f"  speed-up            {fix['speedup']:.2f}x wall, "
                       f"{fix['cpu_speedup']:.2f}x cpu")
    if chk.get("ours_cold"):
        out.append(f"check {chk['corpus']} lines ({chk['lines']}), jobs={chk['jobs']}")
        o = chk["ours_cold"]
        out.append(f"  paddle-upgrade cold {o['wall_s']:8.2f} s wall {o['cpu_s']:8.2f} s cpu")
        r = chk.get("ruff", {})
        if "wall_s" in r:
            out.append(f"  ruff check          {r['wall_s']:8.2f} s wall {r['cpu_s']:8.2f} s cpu "
                       f"({r.get('version', '')})")
        w = chk["ours_warm"]
        out.append(f"  paddle-upgrade warm {w['wall_s']:8.2f} s wall {w['cpu_s']:8.2f} s cpu "
                   f"(-j1: {chk['ours_warm_jobs1']['wall_s']:.2f} s; CLI start-up "
                   f"{chk['startup']['wall_s']:.2f} s)")
    c = results.get("compat", {})
    if "eager" in c:
        for k, v in c["eager"].items():
            out.append(f"compat {k:16s} {v['compat_us']:7.2f} us vs {v['native_us']:7.2f} us native "
                       f"({v['overhead'] * 100:+.1f}%)")
        t = c["train_step"]
        out.append(f"compat training step    {t['compat_ms']:7.3f} ms vs {t['native_ms']:7.3f} ms "
                   f"upgraded ({t['overhead'] * 100:+.1f}%)")
    elif c.get("error"):
        out.append("compat: error: " + c["error"].strip().splitlines()[-1])
    out.append("")
    out.append(f"{'target':45s} {'measured':>12s} {'goal':>12s}  met")
    for row in results["targets"]:
        goal = f"{row['op']} {fmt(row['target'], row['unit']).lstrip('+')}"
        met = {True: "yes", False: "NO", None: "-"}[row["met"]]
        out.append(f"{row['label']:45s} {fmt(row['measured'], row['unit']):>12s} {goal:>12s}  {met}")
    return "\n".join(out)


def machine() -> dict:
    def version(cmd):
        try:
            return subprocess.run(cmd, capture_output=True, text=True, timeout=60).stdout.strip()
        except OSError:
            return None
    return {"cpus": os.cpu_count(), "platform": platform.platform(),
            "python": sys.version.split()[0], "loadavg_start": os.getloadavg(),
            "paddle_upgrade": version([str(VENV / "paddle-upgrade"), "--version"]),
            "anchor_python": version([str(ANCHORS / "python"), "--version"]),
            "paddle_upgrade_tool": version([str(ANCHORS / "python"), "-m", "pip", "show",
                                            "paddle-upgrade-tool"]).split("\n")[1]
            if (ANCHORS / "python").exists() else None}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description="paddle-upgrade benchmarks")
    ap.add_argument("--fix-corpus", default="100k")
    ap.add_argument("--check-corpus", default="1M")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--skip-anchor", action="store_true")
    ap.add_argument("--skip-compat", action="store_true")
    ap.add_argument("--quick", action="store_true", help="1 repeat, 100k everywhere")
    ap.add_argument("--output", type=Path, default=RESULTS)
    a = ap.parse_args(argv)
    if a.quick:
        a.repeats, a.check_corpus = 1, "100k"
    for size in {a.fix_corpus, a.check_corpus}:
        if not (CORPUS / size / "MANIFEST.json").exists():
            subprocess.run([sys.executable, str(BENCH / "make_corpus.py"), "--sizes", size],
                           check=True)
    results: dict = {"machine": machine(),
                     "corpus": {s: manifest(s) for s in sorted({a.fix_corpus, a.check_corpus})}}
    with tempfile.TemporaryDirectory(prefix="paddle-upgrade-bench-") as tmp:
        work = Path(tmp)
        results["machine"]["tool"] = snapshot_tool(work)
        print(f"fix on {a.fix_corpus} ...", file=sys.stderr)
        results["fix"] = bench_fix(a.fix_corpus, work, a.jobs, a.repeats, not a.skip_anchor)
        print(f"check on {a.check_corpus} ...", file=sys.stderr)
        results["check"] = bench_check(a.check_corpus, work, a.jobs, a.repeats)
    if not a.skip_compat:
        print("compat ...", file=sys.stderr)
        results["compat"] = bench_compat(a.quick)
    results["machine"]["loadavg_end"] = os.getloadavg()
    results["targets"] = evaluate(results)
    text = table(results)
    print(text)
    a.output.write_text(json.dumps(results, indent=2, default=str) + "\n")
    print(f"\nwrote {a.output.relative_to(ROOT) if a.output.is_relative_to(ROOT) else a.output}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
