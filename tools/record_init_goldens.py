"""Record the default-initialisation golden: run fixtures/init_defaults/legacy_init.py on
real Paddle 1.8.5 and write its INIT lines to fixtures/goldens/init_defaults.json.

    .venv-legacy/bin/python tools/record_init_goldens.py            # record
    .venv-legacy/bin/python tools/record_init_goldens.py --verify   # compare a new 1.8.5
        run with the golden by distribution (tests/test_default_init.py's rule), exit 1 if
        they differ
"""
import json
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PROGRAM = os.path.join(ROOT, "fixtures", "init_defaults", "legacy_init.py")
GOLDEN = os.path.join(ROOT, "fixtures", "goldens", "init_defaults.json")


def parse(stdout):
    """{case: {parameter: stats}} from the INIT lines of a run."""
    out = {}
    for line in stdout.splitlines():
        if line.startswith("INIT "):
            _, case, name, rest = line.split(" ", 3)
            out.setdefault(case, {})[name] = json.loads(rest)
    return out


def run(python, program, env=None):
    proc = subprocess.run([python, program], capture_output=True, text=True,
                          env=env, cwd=os.path.dirname(program))
    if proc.returncode != 0:
        raise SystemExit("%s failed:\n%s" % (program, proc.stderr[-3000:]))
    return parse(proc.stdout)


def main(argv):
    env = dict(os.environ)
    env.pop("PYTHONPATH", None)
    got = run(sys.executable, PROGRAM, env)
    import paddle
    if "--verify" in argv:
        sys.path.insert(0, os.path.join(ROOT, "tests"))
        from init_compare import differences
        with open(GOLDEN) as f:
            golden = json.load(f)["cases"]
        bad = differences(golden, got)
        for line in bad:
            print(line)
        return 1 if bad else 0
    with open(GOLDEN, "w") as f:
        json.dump({"recorded_with": {"paddle": paddle.__version__,
                                     "python": "%d.%d" % sys.version_info[:2]},
                   "cases": got}, f, indent=1, sort_keys=True)
        f.write("\n")
    print("wrote %s (%d cases)" % (GOLDEN, len(got)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
