"""Record (or verify) the files Paddle 1.8.5 saves, and what 1.8.5 loads back from them.

Runs ``fixtures/legacy_artifacts/save_artifacts.py`` under the legacy interpreter
(default ``.venv-legacy/bin/python``: Python 3.7 + paddlepaddle 1.8.5) in a fresh
directory; every file it writes becomes ``fixtures/legacy_artifacts/saved/...`` and the
RESULT lines it prints (predictions on a fixed input, losses of resumed training) become
``fixtures/legacy_artifacts/goldens/save_artifacts.json``. Then every loader program
``fixtures/legacy_artifacts/loaders/<name>.py`` runs on 1.8.5 in a copy of ``saved/``;
its RESULT lines become ``goldens/<name>.json``::

    python tools/record_legacy_artifacts.py            # (re)record artifacts and goldens
    python tools/record_legacy_artifacts.py --verify   # re-save and re-load on 1.8.5: the files
                                                       # must be identical, the results equal

Files compare byte for byte first. Serialized programs that differ then compare as
ProgramDescs without the ``op_callstack`` attribute (1.8.5 writes the absolute source
paths of each op there, so a checkout elsewhere writes other bytes for the same program);
parameter files compare as arrays (names, shapes and dtypes exact, values within
rtol 1e-5: another CPU may round the last bit of a trained float32 differently).

Artifacts and goldens are only ever written by this script, never by hand. Runs on
Python 3.7+.
"""
from __future__ import print_function

import argparse
import filecmp
import json
import os
import shutil
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)

import program_result  # noqa: E402

BASE = os.path.join(ROOT, "fixtures", "legacy_artifacts")
SAVER = os.path.join(BASE, "save_artifacts.py")
SAVED = os.path.join(BASE, "saved")
LOADERS = os.path.join(BASE, "loaders")
GOLDENS = os.path.join(BASE, "goldens")
DEFAULT_PYTHON = os.path.join(ROOT, ".venv-legacy", "bin", "python")
EXPECTED_VERSION = "1.8.5"
RUN_ENV = {"GLOG_minloglevel": "2", "PYTHONHASHSEED": "0", "PYTHONDONTWRITEBYTECODE": "1"}


def loader_names():
    return sorted(n[:-3] for n in os.listdir(LOADERS) if n.endswith(".py") and not n.startswith("_"))


def golden_path(name):
    return os.path.join(GOLDENS, name + ".json")


def relative_files(directory):
    """Every file under *directory*, as sorted relative paths."""
    found = []
    for root, _dirs, files in os.walk(directory):
        for f in files:
            found.append(os.path.relpath(os.path.join(root, f), directory))
    return sorted(found)


def copy_saved(source, target):
    """Copy the saved artifact directories into *target* (which exists)."""
    for entry in sorted(os.listdir(source)):
        shutil.copytree(os.path.join(source, entry), os.path.join(target, entry))


def write_golden(name, program, results, engine):
    if not os.path.isdir(GOLDENS):
        os.makedirs(GOLDENS)
    lines = ['  %s: %s' % (json.dumps(key), json.dumps(results[key], sort_keys=True))
             for key in sorted(results)]
    text = ('{\n "engine": %s,\n "program": %s,\n "results": {\n%s\n }\n}\n'
            % (json.dumps(engine), json.dumps(program), ",\n".join(lines)))
    json.loads(text)  # never write a golden that does not parse
    tmp = golden_path(name) + ".tmp"
    with open(tmp, "w") as handle:
        handle.write(text)
    os.replace(tmp, golden_path(name))


def check_golden(name, results):
    """Differences between *results* and the stored golden of *name* (list of lines)."""
    if not os.path.exists(golden_path(name)):
        return ["no golden %s" % os.path.relpath(golden_path(name), ROOT)]
    return program_result.compare(program_result.load_golden(golden_path(name)), results,
                                  allow_extra=False)


def save(python, timeout):
    """Run the saver in a fresh directory; return (directory, results)."""
    workdir = tempfile.mkdtemp(prefix="legacy-artifacts-")
    results = program_result.run_program(python, SAVER, env=RUN_ENV, timeout=timeout, cwd=workdir)
    return workdir, results


def compare_trees(expected, actual):
    """Lines describing how directory *actual* differs from *expected* (byte level)."""
    problems = []
    want, got = relative_files(expected), relative_files(actual)
    for path in sorted(set(want) - set(got)):
        problems.append("missing file %s" % path)
    for path in sorted(set(got) - set(want)):
        problems.append("unexpected file %s" % path)
    for path in sorted(set(want) & set(got)):
        a, b = os.path.join(expected, path), os.path.join(actual, path)
        if filecmp.cmp(a, b, shallow=False):
            continue
        if is_program_file(path):
            if same_program(a, b):
                continue
            problems.append("%s differs from the committed file" % path)
            continue
        difference = tensor_difference(a, b)
        if difference is None:
            continue
        problems.append("%s differs from the committed file%s" % (path, difference))
    return problems


# Saved parameters are compared as numbers: the same program on another CPU (other
# vector kernels in 1.8.5's math library) can round the last bit of a float32 differently.
TENSOR_RTOL, TENSOR_ATOL = 1e-5, 1e-7


def _saved_arrays(path):
    """The arrays of a saved 1.x file: a pickled state dict (.pdparams/.pdopt) or LoDTensors."""
    if path.endswith((".pdparams", ".pdopt")):
        import pickle
        with open(path, "rb") as handle:
            state = pickle.load(handle, encoding="latin1")
        return [(key, state[key]) for key in sorted(state)]
    sys.path.insert(0, os.path.join(BASE, "convert"))
    try:
        import legacy_tensors
    finally:
        sys.path.pop(0)
    return list(enumerate(legacy_tensors.read_tensors(path)))


def tensor_difference(expected, actual):
    """None when both files hold the same arrays (same names, shapes, dtypes; values within
    TENSOR_RTOL/TENSOR_ATOL), else a short description of the first difference."""
    import numpy as np
    try:
        want, got = _saved_arrays(expected), _saved_arrays(actual)
    except Exception as exc:  # not a format we can read: the byte comparison stands
        return " (bytes; not readable as tensors: %s)" % exc
    if [k for k, _ in want] != [k for k, _ in got]:
        return ": holds %s, expected %s" % ([k for k, _ in got], [k for k, _ in want])
    for (key, w), (_, g) in zip(want, got):
        w, g = np.asarray(w), np.asarray(g)
        if w.shape != g.shape or w.dtype != g.dtype:
            return ": %s is %s %s, expected %s %s" % (key, g.dtype, g.shape, w.dtype, w.shape)
        if w.dtype.kind in "fc":
            if not np.allclose(g, w, rtol=TENSOR_RTOL, atol=TENSOR_ATOL):
                return ": %s max abs difference %g" % (key, float(np.max(np.abs(g - w))))
        elif not np.array_equal(g, w):
            return ": %s values differ" % (key,)
    return None


PROGRAM_FILES = ("__model__", "model")


def is_program_file(path):
    """A serialized 1.x ProgramDesc (inference models, fluid.save's .pdmodel)."""
    return os.path.basename(path) in PROGRAM_FILES or path.endswith(".pdmodel")


def _program_without_callstack(path):
    """The ProgramDesc in *path* with every op's ``op_callstack`` attribute removed.

    1.8.5 records the Python stack of each op (absolute paths of the saver and of the
    paddle package), so the same program saved from another checkout differs in those
    strings only; everything else must be identical.
    """
    from paddle.fluid.proto import framework_pb2
    desc = framework_pb2.ProgramDesc()
    with open(path, "rb") as handle:
        desc.ParseFromString(handle.read())
    for block in desc.blocks:
        for op in block.ops:
            keep = [attr for attr in op.attrs if attr.name != "op_callstack"]
            del op.attrs[:]
            op.attrs.extend(keep)
    return desc


def same_program(expected, actual):
    try:
        return _program_without_callstack(expected) == _program_without_callstack(actual)
    except Exception:  # not a program, or no 1.8.5 here: the byte comparison stands
        return False


def run_loader(python, name, timeout):
    workdir = tempfile.mkdtemp(prefix="legacy-loader-")
    try:
        copy_saved(SAVED, workdir)
        return program_result.run_program(python, os.path.join(LOADERS, name + ".py"),
                                          env=RUN_ENV, timeout=timeout, cwd=workdir)
    finally:
        shutil.rmtree(workdir, ignore_errors=True)


def engine_version(python):
    import subprocess
    out = subprocess.check_output(
        [python, "-c", "import paddle; print(paddle.__version__)"],
        env=program_result._environment(RUN_ENV), universal_newlines=True,
        stderr=subprocess.DEVNULL)
    return out.strip().splitlines()[-1]


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--verify", action="store_true",
                        help="re-run on 1.8.5 and compare with the committed files and goldens")
    parser.add_argument("--python", default=DEFAULT_PYTHON,
                        help="legacy interpreter (default: .venv-legacy/bin/python)")
    parser.add_argument("--timeout", type=float, default=300.0, help="seconds per program")
    args = parser.parse_args(argv)

    if not os.path.exists(args.python):
        print("legacy interpreter not found: %s (run `make legacy-venv`)" % args.python,
              file=sys.stderr)
        return 2
    version = engine_version(args.python)
    if version != EXPECTED_VERSION:
        print("%s has paddle %s, expected %s" % (args.python, version, EXPECTED_VERSION),
              file=sys.stderr)
        return 2
    engine = "paddlepaddle " + version
    failures = 0
    started = time.time()

    workdir, results = save(args.python, args.timeout)
    try:
        if args.verify:
            problems = compare_trees(SAVED, workdir) + check_golden("save_artifacts", results)
        else:
            if os.path.isdir(SAVED):
                shutil.rmtree(SAVED)
            os.makedirs(SAVED)
            copy_saved(workdir, SAVED)
            write_golden("save_artifacts", "save_artifacts.py", results, engine)
            problems = []
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    print("%-28s %-4s %d files, %d results" % ("save_artifacts", "FAIL" if problems else "ok",
                                               len(relative_files(SAVED)), len(results)))
    for line in problems:
        print("    " + line)
    failures += bool(problems)

    names = loader_names()
    for name in names:
        try:
            loaded = run_loader(args.python, name, args.timeout)
        except (program_result.ProgramError, ValueError) as exc:
            print("%-28s FAIL %s" % (name, str(exc).splitlines()[0]))
            failures += 1
            continue
        if args.verify:
            problems = check_golden(name, loaded)
        else:
            write_golden(name, "loaders/%s.py" % name, loaded, engine)
            problems = []
        print("%-28s %-4s %d results" % (name, "FAIL" if problems else "ok", len(loaded)))
        for line in problems:
            print("    " + line)
        failures += bool(problems)
    if not args.verify:
        known = set(names) | {"save_artifacts"}
        for f in sorted(os.listdir(GOLDENS)):
            if f.endswith(".json") and f[:-5] not in known:
                os.remove(os.path.join(GOLDENS, f))
                print("removed goldens/%s (its loader is gone)" % f)
    print("%d loader(s), %d failed, %.1fs total (%s)"
          % (len(names), failures, time.time() - started, engine))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
