"""Record (or verify) the goldens of the bundled legacy programs on real Paddle 1.8.5.

Every ``fixtures/programs/<name>.py`` is run under the legacy interpreter
(default ``.venv-legacy/bin/python``: Python 3.7 + paddlepaddle 1.8.5) in a fresh
temporary working directory; the RESULT lines it prints become
``fixtures/programs/goldens/<name>.json``::

    {"engine": "paddlepaddle 1.8.5", "program": "<name>.py", "results": {...}}

    python tools/record_program_goldens.py              # (re)record all goldens
    python tools/record_program_goldens.py --verify     # re-run, compare, exit 1 on drift
    python tools/record_program_goldens.py fit_a_line_static --verify

Goldens are only ever written by this script, never by hand. Runs on Python 3.7+.
"""
from __future__ import print_function

import argparse
import json
import os
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)

import program_result  # noqa: E402

PROGRAMS_DIR = os.path.join(ROOT, "fixtures", "programs")
GOLDENS_DIR = os.path.join(PROGRAMS_DIR, "goldens")
DEFAULT_PYTHON = os.path.join(ROOT, ".venv-legacy", "bin", "python")
EXPECTED_VERSION = "1.8.5"
# Legacy programs print the CPU_NUM banner and glog noise; keep runs quiet and alike.
RUN_ENV = {"GLOG_minloglevel": "2", "PYTHONHASHSEED": "0", "PYTHONDONTWRITEBYTECODE": "1"}


def machine_rtol(name):
    """The program's ``machine_rtol`` in fixtures/programs/expectations.toml (its results
    depend on the CPU's float path; documented there with machine_why), or None. Read
    with a pattern: this tool runs under the legacy Python, which has no TOML parser."""
    import re
    path = os.path.join(ROOT, "fixtures", "programs", "expectations.toml")
    with open(path) as f:
        text = f.read()
    m = re.search(r"^\[%s\]\n((?:(?!\[).*\n?)*)" % re.escape(name), text, re.M)
    if not m:
        return None
    v = re.search(r"^machine_rtol\s*=\s*([0-9.eE+-]+)\s*$", m.group(1), re.M)
    return float(v.group(1)) if v else None


def program_names():
    return sorted(name[:-3] for name in os.listdir(PROGRAMS_DIR)
                  if name.endswith(".py") and not name.startswith("_"))


def program_path(name):
    return os.path.join(PROGRAMS_DIR, name + ".py")


def golden_path(name):
    return os.path.join(GOLDENS_DIR, name + ".json")


def orphan_goldens():
    """Golden files whose program no longer exists."""
    if not os.path.isdir(GOLDENS_DIR):
        return []
    known = set(program_names())
    return sorted(os.path.join(GOLDENS_DIR, f) for f in os.listdir(GOLDENS_DIR)
                  if f.endswith(".json") and f[:-5] not in known)


def engine_version(python):
    out = subprocess.check_output(
        [python, "-c", "import paddle; print(paddle.__version__)"],
        env=program_result._environment(RUN_ENV), universal_newlines=True,
        stderr=subprocess.DEVNULL)
    return out.strip().splitlines()[-1]


def write_golden(name, results, engine):
    if not os.path.isdir(GOLDENS_DIR):
        os.makedirs(GOLDENS_DIR)
    # One result per line: readable diffs when a golden is re-recorded.
    lines = ['  %s: %s' % (json.dumps(key), json.dumps(results[key], sort_keys=True))
             for key in sorted(results)]
    text = ('{\n "engine": %s,\n "program": %s,\n "results": {\n%s\n }\n}\n'
            % (json.dumps(engine), json.dumps(name + ".py"), ",\n".join(lines)))
    json.loads(text)  # never write a golden that does not parse
    tmp = golden_path(name) + ".tmp"
    with open(tmp, "w") as handle:
        handle.write(text)
    os.replace(tmp, golden_path(name))


def process(name, python, verify, timeout, engine):
    """Run one program, then write or verify its golden; return (ok, message, seconds)."""
    started = time.time()
    try:
        results = program_result.run_program(python, program_path(name), env=RUN_ENV,
                                             timeout=timeout)
    except (program_result.ProgramError, ValueError) as exc:
        return False, str(exc), time.time() - started
    seconds = time.time() - started
    if not verify:
        write_golden(name, results, engine)
        return True, "%d results recorded" % len(results), seconds
    if not os.path.exists(golden_path(name)):
        return False, "no golden %s" % os.path.relpath(golden_path(name), ROOT), seconds
    tol = machine_rtol(name)
    diffs = program_result.compare(program_result.load_golden(golden_path(name)), results,
                                   allow_extra=False, **({"rtol": tol} if tol else {}))
    if diffs:
        return False, program_result.format_differences(diffs, "differs from golden:"), seconds
    return True, "%d results match" % len(results), seconds


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("names", nargs="*", help="program names (default: all)")
    parser.add_argument("--verify", action="store_true",
                        help="compare with the stored goldens instead of writing them")
    parser.add_argument("--python", default=DEFAULT_PYTHON,
                        help="legacy interpreter (default: .venv-legacy/bin/python)")
    parser.add_argument("--timeout", type=float, default=300.0, help="seconds per program")
    args = parser.parse_args(argv)

    if not os.path.exists(args.python):
        print("legacy interpreter not found: %s (run `make goldens-programs`)" % args.python,
              file=sys.stderr)
        return 2
    version = engine_version(args.python)
    if version != EXPECTED_VERSION:
        print("%s has paddle %s, expected %s" % (args.python, version, EXPECTED_VERSION),
              file=sys.stderr)
        return 2
    engine = "paddlepaddle " + version

    names = args.names or program_names()
    unknown = [n for n in names if not os.path.exists(program_path(n))]
    if unknown:
        print("unknown program(s): %s" % ", ".join(unknown), file=sys.stderr)
        return 2

    failures = 0
    total_started = time.time()
    for name in names:
        ok, message, seconds = process(name, args.python, args.verify, args.timeout, engine)
        status = "ok" if ok else "FAIL"
        print("%-32s %-4s %5.1fs  %s" % (name, status, seconds, message.splitlines()[0]))
        if not ok:
            failures += 1
            for line in message.splitlines()[1:]:
                print("    " + line)
    if not args.verify and not args.names:
        for orphan in orphan_goldens():
            os.remove(orphan)
            print("removed %s (its program is gone)" % os.path.relpath(orphan, ROOT))
    print("%d program(s), %d failed, %.1fs total (%s)"
          % (len(names), failures, time.time() - total_started, engine))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
