"""Parse, run and compare the results that the bundled legacy programs report.

Every program in ``fixtures/programs/`` prints its observable results as lines::

    RESULT <name> {"shape": [...], "dtype": "float32", "values": [...]}

This module turns such output into ``{name: {"shape", "dtype", "values"}}``, runs
a program under a given interpreter and parses it (:func:`run_program`), and
compares two result dicts with a relative/absolute tolerance (:func:`compare`).

It has no dependencies beyond the standard library and must stay importable from
Python 3.7 (the legacy Paddle 1.8.5 environment) as well as 3.11.
"""
from __future__ import print_function

import json
import math
import os
import shutil
import subprocess
import sys
import tempfile

RTOL = 1e-5
ATOL = 1e-6
RESULT_PREFIX = "RESULT "

__all__ = [
    "RTOL", "ATOL", "ProgramError", "ProgramRun", "parse_results", "execute_program",
    "run_program", "compare", "format_differences", "load_golden",
]


class ProgramError(RuntimeError):
    """A program exited with a non-zero status, timed out or printed malformed results."""

    def __init__(self, message, returncode=None, stdout="", stderr=""):
        super(ProgramError, self).__init__(message)
        self.returncode = returncode
        self.stdout = stdout
        self.stderr = stderr

    def __str__(self):
        text = super(ProgramError, self).__str__()
        tail = _tail(self.stderr) or _tail(self.stdout)
        if tail:
            text += "\n--- output tail ---\n" + tail
        return text


class ProgramRun(object):
    """Outcome of one program execution: parsed results plus the raw streams."""

    def __init__(self, path, results, returncode, stdout, stderr, seconds):
        self.path = path
        self.results = results
        self.returncode = returncode
        self.stdout = stdout
        self.stderr = stderr
        self.seconds = seconds

    def __repr__(self):
        return "ProgramRun(%r, %d results, rc=%r, %.1fs)" % (
            self.path, len(self.results), self.returncode, self.seconds)


def _tail(text, lines=25):
    text = (text or "").rstrip()
    return "\n".join(text.splitlines()[-lines:])


def parse_results(stdout):
    """Return ``{name: {"shape", "dtype", "values"}}`` from the RESULT lines of *stdout*.

    Raises ``ValueError`` on a malformed RESULT line or a name reported twice.
    """
    results = {}
    for lineno, line in enumerate(stdout.splitlines(), 1):
        if not line.startswith(RESULT_PREFIX):
            continue
        parts = line.split(" ", 2)
        if len(parts) != 3:
            raise ValueError("line %d: malformed RESULT line: %r" % (lineno, line))
        name, payload = parts[1], parts[2]
        try:
            record = json.loads(payload)
        except ValueError as exc:
            raise ValueError("line %d: result %r is not JSON: %s" % (lineno, name, exc))
        if not isinstance(record, dict) or set(record) != {"shape", "dtype", "values"}:
            raise ValueError("line %d: result %r needs exactly shape, dtype, values" % (lineno, name))
        if name in results:
            raise ValueError("line %d: result %r reported twice" % (lineno, name))
        expected = 1
        for dim in record["shape"]:
            expected *= dim
        if len(record["values"]) != expected:
            raise ValueError("line %d: result %r has %d values for shape %r"
                             % (lineno, name, len(record["values"]), record["shape"]))
        results[name] = record
    return results


def _environment(env):
    merged = dict(os.environ)
    for key, value in (env or {}).items():
        if value is None:
            merged.pop(key, None)
        else:
            merged[key] = str(value)
    return merged


def execute_program(python, path, env=None, timeout=300, cwd=None, args=(), interpreter_args=()):
    """Run ``python *interpreter_args path *args``; return a :class:`ProgramRun`.

    Never raises on the exit status. ``interpreter_args=("-m", "compat")`` runs the
    program through the compat runtime.

    *env* entries are added to (value ``None``: removed from) the current environment.
    The program runs in *cwd*, or in a fresh temporary directory removed afterwards.
    A timeout raises :class:`ProgramError`; malformed RESULT lines raise ``ValueError``.
    """
    import time
    path = os.path.abspath(path)
    workdir = cwd or tempfile.mkdtemp(prefix="program-run-")
    started = time.time()
    try:
        proc = subprocess.Popen(
            [python] + list(interpreter_args) + [path] + list(args), cwd=workdir, env=_environment(env),
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, universal_newlines=True)
        try:
            stdout, stderr = proc.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            proc.kill()
            stdout, stderr = proc.communicate()
            raise ProgramError("%s: timed out after %ss" % (path, timeout),
                               None, stdout, stderr)
    finally:
        if cwd is None:
            shutil.rmtree(workdir, ignore_errors=True)
    return ProgramRun(path, parse_results(stdout), proc.returncode, stdout, stderr,
                      time.time() - started)


def run_program(python, path, env=None, timeout=300, cwd=None, args=(), interpreter_args=()):
    """Run a program and return its parsed results ``{name: {"shape","dtype","values"}}``.

    Raises :class:`ProgramError` (with the output tail) when the program fails or
    reports nothing. See :func:`execute_program` for the arguments.
    """
    run = execute_program(python, path, env=env, timeout=timeout, cwd=cwd, args=args,
                          interpreter_args=interpreter_args)
    if run.returncode != 0:
        raise ProgramError("%s: exited with status %s" % (path, run.returncode),
                           run.returncode, run.stdout, run.stderr)
    if not run.results:
        raise ProgramError("%s: reported no RESULT lines" % path,
                           run.returncode, run.stdout, run.stderr)
    return run.results


def _is_nan(value):
    return isinstance(value, float) and math.isnan(value)


def _close(expected, actual, rtol, atol):
    numbers = (int, float)
    if (isinstance(expected, bool) or isinstance(actual, bool)
            or not isinstance(expected, numbers) or not isinstance(actual, numbers)):
        return expected == actual
    if _is_nan(expected) or _is_nan(actual):
        return _is_nan(expected) and _is_nan(actual)
    if isinstance(expected, float) and math.isinf(expected):
        return expected == actual
    return abs(actual - expected) <= atol + rtol * abs(expected)


def _squeezed(shape):
    return [dim for dim in shape if dim != 1]


def _compare_one(name, exp, act, rtol, atol, check_dtype, loose_shape, max_items):
    diffs = []
    if loose_shape:
        same_shape = _squeezed(exp["shape"]) == _squeezed(act["shape"])
    else:
        same_shape = list(exp["shape"]) == list(act["shape"])
    if not same_shape:
        return ["%s: shape %s != expected %s" % (name, act["shape"], exp["shape"])]
    if check_dtype and exp["dtype"] != act["dtype"]:
        diffs.append("%s: dtype %s != expected %s" % (name, act["dtype"], exp["dtype"]))
    bad = []
    for index, (e, a) in enumerate(zip(exp["values"], act["values"])):
        if not _close(e, a, rtol, atol):
            bad.append((index, e, a))
    if bad:
        worst = 0.0
        for _, e, a in bad:
            try:
                worst = max(worst, abs(a - e) / max(abs(e), 1e-300))
            except TypeError:
                worst = float("inf")
        diffs.append("%s: %d of %d values differ (max rel diff %.3g, rtol %g, atol %g)"
                     % (name, len(bad), len(exp["values"]), worst, rtol, atol))
        for index, e, a in bad[:max_items]:
            diffs.append("    [%s] expected %r got %r" % (_unravel(index, exp["shape"]), e, a))
        if len(bad) > max_items:
            diffs.append("    ... %d more" % (len(bad) - max_items))
    return diffs


def _unravel(index, shape):
    if not shape:
        return ""
    coords = []
    for dim in reversed(shape):
        coords.append(index % dim if dim else 0)
        index //= dim if dim else 1
    return ", ".join(str(c) for c in reversed(coords))


def compare(expected, actual, rtol=RTOL, atol=ATOL, check_dtype=True, allow_extra=True,
            loose_shape=False, max_items=5):
    """Compare two result dicts; return a list of human-readable differences (empty = equal).

    Values match when ``|actual - expected| <= atol + rtol * |expected|`` (NaN matches
    NaN, booleans and infinities must be equal). Names missing from *actual* are
    differences; names only in *actual* are differences unless *allow_extra*.
    *loose_shape* ignores size-1 dimensions (1.x returned shape [1] where 2.x+ returns
    a 0-d tensor, e.g. ``layers.mean``); *check_dtype=False* ignores dtype names.
    """
    diffs = []
    for name in sorted(expected):
        if name not in actual:
            diffs.append("%s: missing" % name)
            continue
        diffs.extend(_compare_one(name, expected[name], actual[name], rtol, atol,
                                  check_dtype, loose_shape, max_items))
    if not allow_extra:
        for name in sorted(set(actual) - set(expected)):
            diffs.append("%s: unexpected result" % name)
    return diffs


def format_differences(diffs, title=None):
    lines = [title] if title else []
    lines.extend(diffs)
    return "\n".join(lines)


def load_golden(path):
    """Return the ``results`` dict of a golden file written by record_program_goldens.py."""
    with open(path) as handle:
        return json.load(handle)["results"]


if __name__ == "__main__":  # python tools/program_result.py PYTHON PROGRAM [GOLDEN]
    if len(sys.argv) not in (3, 4):
        sys.exit("usage: program_result.py PYTHON PROGRAM [GOLDEN]")
    got = run_program(sys.argv[1], sys.argv[2])
    if len(sys.argv) == 3:
        print(json.dumps(got, indent=1, sort_keys=True))
    else:
        problems = compare(load_golden(sys.argv[3]), got)
        print(format_differences(problems) if problems else "ok: %d results match" % len(got))
        sys.exit(1 if problems else 0)
