"""Run many proof programs in one interpreter: ``python driver.py BATCH.json OUT.jsonl``.

Importing Paddle costs seconds, so the programs of one engine and mode share a process.
Each program runs in a fresh namespace with its stdout captured; an exception, a timeout
or a missing result is recorded for that program and the batch goes on. Results are
appended to OUT.jsonl one line per program, in batch order, and flushed at once: if the
interpreter dies, the caller knows which program killed it and restarts after it.

Runs on the legacy Python 3.7 (Paddle 1.8.5) as well as on today's Python.
"""
import io
import json
import linecache
import os
import signal
import sys
import time
import traceback
from contextlib import redirect_stdout

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import snippets  # noqa: E402  (proof/ is not a package on the legacy side)

TIMEOUT = int(os.environ.get("PROOF_SNIPPET_TIMEOUT", "120"))


class SnippetTimeout(Exception):
    pass


def _on_alarm(signum, frame):
    raise SnippetTimeout("timed out after %d s" % TIMEOUT)


def _env():
    info = {"python": sys.version.split()[0]}
    try:
        import numpy
        info["numpy"] = numpy.__version__
    except Exception as exc:  # pragma: no cover
        info["numpy"] = "unavailable: %s" % exc
    try:
        import paddle
        info["paddle"] = paddle.__version__
    except Exception as exc:
        info["paddle"] = "unavailable: %s" % exc
    info["compat"] = "compat" in sys.modules
    return info


class ModeKeeper(object):
    """Give every program the dynamic/static mode a fresh process would start in.

    Paddle 2+ keeps the mode in a global; one program's ``paddle.enable_static()`` must
    not leak into the next one (it would hide a rewrite that forgot to insert it).
    Paddle 1.8 is static by default and ``dygraph.guard`` restores it: nothing to do.
    """

    def __init__(self):
        self.paddle = None
        self.dynamic = None
        try:
            import paddle
        except Exception:
            return
        if hasattr(paddle, "in_dynamic_mode") and hasattr(paddle, "enable_static"):
            self.paddle = paddle
            self.dynamic = paddle.in_dynamic_mode()

    def reset(self):
        p = self.paddle
        if p is None or p.in_dynamic_mode() == self.dynamic:
            return
        if self.dynamic:
            p.disable_static()
        else:
            p.enable_static()


def _trim(tb, limit=4000):
    return tb if len(tb) <= limit else "...\n" + tb[-limit:]


def run_one(sid, text):
    filename = "<proof %s>" % sid
    linecache.cache[filename] = (len(text), None, text.splitlines(True), filename)
    namespace = {"__name__": "__main__", "__file__": filename, "__builtins__": __builtins__}
    buf = io.StringIO()
    start = time.time()
    rec = {"id": sid}
    if hasattr(signal, "SIGALRM"):
        signal.signal(signal.SIGALRM, _on_alarm)
        signal.alarm(TIMEOUT)
    try:
        with redirect_stdout(buf):
            exec(compile(text, filename, "exec"), namespace)
    except BaseException as exc:  # SystemExit and KeyboardInterrupt from a program too
        if isinstance(exc, KeyboardInterrupt):
            raise
        # drop this frame: the traceback starts in the program
        rec["error"] = _trim("".join(traceback.format_exception(
            type(exc), exc, exc.__traceback__.tb_next)))
    finally:
        if hasattr(signal, "SIGALRM"):
            signal.alarm(0)
    out = buf.getvalue()
    try:
        rec["result"] = snippets.parse_output(out)
    except ValueError as exc:
        rec["result"] = None
        rec.setdefault("error", "unreadable result line: %s" % exc)
    if rec["result"] is None and "error" not in rec:
        rec["error"] = "the program printed no result line"
    rec["ok"] = "error" not in rec
    tail = [l for l in out.splitlines() if not l.startswith(snippets.RESULT_PREFIX)]
    if tail and not rec["ok"]:
        rec["stdout"] = _trim("\n".join(tail[-30:]), 2000)
    rec["seconds"] = round(time.time() - start, 3)
    return rec


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    if len(argv) != 2:
        sys.stderr.write("usage: driver.py BATCH.json OUT.jsonl\n")
        return 2
    with open(argv[0]) as f:
        batch = json.load(f)
    setup = os.environ.get("PROOF_SETUP")
    if setup:  # e.g. a harness test swapping in a rule book broken on purpose
        with open(setup) as f:
            exec(compile(f.read(), setup, "exec"), {"__name__": "__proof_setup__"})
    env = _env()
    keeper = ModeKeeper()
    with open(argv[1], "a") as out:
        out.write(json.dumps({"env": env}) + "\n")
        out.flush()
        for item in batch:
            keeper.reset()
            rec = run_one(item["id"], item["text"])
            out.write(json.dumps(rec) + "\n")
            out.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
