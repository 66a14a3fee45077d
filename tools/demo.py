"""`make demo`: the main job on a bundled legacy sample.

1. show the diff `paddle-upgrade fix --diff` proposes for a Paddle 1.8 program;
2. upgrade a copy in demo-out/ with `paddle-upgrade fix`;
3. run the upgraded copy on today's Paddle and compare its results with the ones the
   original program produced on real Paddle 1.8.5 (committed golden);
4. run the unmodified original through the compat runtime and compare again.
"""
from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tools"))

import program_result as pr  # noqa: E402

SAMPLES = ["dygraph_mnist_cnn.py"]
BIN = Path(sys.executable).parent


def banner(text: str) -> None:
    print(f"\n\033[1m== {text}\033[0m" if sys.stdout.isatty() else f"\n== {text}", flush=True)


def show(results: dict, golden: dict) -> None:
    for name in sorted(golden):
        got = results.get(name, {}).get("values", [])
        exp = golden[name]["values"]
        preview = lambda v: ", ".join(f"{x:.6g}" if isinstance(x, float) else str(x) for x in v[:4]) + (" …" if len(v) > 4 else "")
        print(f"  {name:<22} 1.8.5: [{preview(exp)}]   now: [{preview(got)}]")


def main() -> int:
    out_dir = ROOT / "demo-out"
    out_dir.mkdir(exist_ok=True)
    tool = str(BIN / "paddle-upgrade")
    failures = 0
    for sample in SAMPLES:
        src = ROOT / "fixtures" / "programs" / sample
        golden = pr.load_golden(ROOT / "fixtures" / "programs" / "goldens" / (src.stem + ".json"))
        banner(f"1. paddle-upgrade fix --diff fixtures/programs/{sample}")
        subprocess.run([tool, "fix", "--diff", "--no-cache", str(src.relative_to(ROOT))], cwd=ROOT)
        copy = out_dir / sample
        shutil.copy2(src, copy)
        banner(f"2. paddle-upgrade fix demo-out/{sample}")
        subprocess.run([tool, "fix", "--no-cache", str(copy.relative_to(ROOT))], cwd=ROOT)
        banner("3. the upgraded copy on Paddle " + _paddle_version() + " vs the original on real Paddle 1.8.5")
        res = pr.run_program(sys.executable, str(copy))
        show(res, golden)
        diffs = pr.compare(golden, res)
        print("  ->", "SAME RESULTS" if not diffs else "DIFFERENT:\n    " + "\n    ".join(diffs))
        failures += bool(diffs)
        banner(f"4. the unmodified original through compat: python -m compat fixtures/programs/{sample}")
        try:
            res2 = _run_compat(src)
            diffs2 = pr.compare(golden, res2)
            print("  ->", "SAME RESULTS" if not diffs2 else "DIFFERENT:\n    " + "\n    ".join(diffs2))
            failures += bool(diffs2)
        except pr.ProgramError as exc:
            print(f"  -> compat run failed: {exc}\n{exc.stderr[-2000:] if exc.stderr else ''}")
            failures += 1
    banner("done" if not failures else f"{failures} comparison(s) failed")
    return 1 if failures else 0


def _run_compat(src: Path) -> dict:
    import os
    import tempfile
    work = tempfile.mkdtemp(prefix="demo-compat-")
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    proc = subprocess.run([sys.executable, "-m", "compat", str(src)], cwd=work, env=env,
                          capture_output=True, text=True, timeout=600)
    shutil.rmtree(work, ignore_errors=True)
    if proc.returncode != 0:
        raise pr.ProgramError(f"{src}: exited with {proc.returncode}", proc.returncode, proc.stdout, proc.stderr)
    return pr.parse_results(proc.stdout)


def _paddle_version() -> str:
    try:
        out = subprocess.run([sys.executable, "-c", "import paddle; print(paddle.__version__)"],
                             capture_output=True, text=True, timeout=120)
        return out.stdout.strip() or "?"
    except Exception:
        return "?"


if __name__ == "__main__":
    sys.exit(main())
