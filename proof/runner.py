"""Run proof cases on each engine and judge them against the goldens.

Engines:

- ``legacy``: the legacy program, unmodified, on real Paddle 1.8.5 (``.venv-legacy``),
  or on Paddle 2.0.2 (``.venv-legacy20``, engine ``legacy20``) for an example whose names
  first appeared in 2.0's ``paddle.fluid`` (example ``engine = "2.0"``);
- ``rewrite``: the program rewritten by ``upgrader.upgrade_source`` on today's Paddle;
- ``compat``: the legacy program, unmodified, under ``python -m compat`` on today's Paddle.

Programs of one engine and mode share one interpreter (``proof/driver.py``); a program
that kills the interpreter is blamed and the batch resumes after it. Results are cached
per program text in ``proof/.cache`` keyed by everything that can change them (the
interpreter and its Paddle, the driver, compat and the rule files for ``compat``);
``PROOF_NO_CACHE=1`` turns the cache off.
"""
from __future__ import annotations

import base64
import fcntl
import hashlib
import io
import json
import os
import pickle
import subprocess
import sys
import tempfile
import time
import tokenize
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Dict, Iterable, List, Optional, Sequence, Tuple

from proof import snippets
from proof.cases import ROOT, Case, golden_status, last_error_line, load_golden

DRIVER = ROOT / "proof" / "driver.py"
CACHE = ROOT / "proof" / ".cache"
LEGACY_PYTHON = ROOT / ".venv-legacy" / "bin" / "python"
LEGACY20_PYTHON = ROOT / ".venv-legacy20" / "bin" / "python"
#: example engine -> the interpreter that records and re-verifies its goldens
LEGACY_PYTHONS = {"1.8": LEGACY_PYTHON, "2.0": LEGACY20_PYTHON}
SNIPPET_TIMEOUT = int(os.environ.get("PROOF_SNIPPET_TIMEOUT", "120"))
JOBS = max(1, int(os.environ.get("PROOF_JOBS", "2")))


def modern_python() -> str:
    p = ROOT / ".venv" / "bin" / "python"
    return str(p) if p.exists() else sys.executable


@dataclass
class Engine:
    name: str                       # legacy | rewrite | compat
    python: str
    prefix: List[str] = field(default_factory=list)   # e.g. ["-m", "compat"]
    env: Dict[str, str] = field(default_factory=dict)
    sources: List[Path] = field(default_factory=list)  # files whose change voids the cache
    setup: str = ""                 # Python run in the interpreter before the programs
    static_setup: str = ""          # and, before static-mode programs, this

    def context(self) -> str:
        """Digest of everything besides the program text that decides a result."""
        h = hashlib.sha256()
        real = os.path.realpath(self.python)
        h.update(json.dumps([self.name, real, self.prefix, sorted(self.env.items()),
                             _installed_paddle(self.python), self.setup,
                             self.static_setup]).encode())
        for p in sorted(set([DRIVER, ROOT / "proof" / "snippets.py"] + self.sources)):
            h.update(str(p.relative_to(ROOT) if p.is_relative_to(ROOT) else p).encode())
            h.update(p.read_bytes() if p.exists() else b"-")
        return h.hexdigest()[:16]


def _installed_paddle(python: str) -> List[str]:
    """The paddle dist-info names of the interpreter's venv (cheap: no import)."""
    venv = Path(python).parent.parent
    return sorted(p.name for p in venv.glob("lib/python*/site-packages/paddle*.dist-info"))


def _tree(*dirs: Path, pattern: str = "*.py") -> List[Path]:
    out: List[Path] = []
    for d in dirs:
        if d.is_dir():
            out.extend(p for p in d.rglob(pattern) if "__pycache__" not in p.parts)
    return out


def _rule_files() -> List[Path]:
    return sorted((ROOT / "rules").glob("*.toml")) + sorted((ROOT / "rules").glob("*.json"))


def legacy_engine(python: Optional[str] = None, version: str = "1.8") -> Engine:
    """The legacy engine of ``version`` (``"1.8"``: Paddle 1.8.5, ``"2.0"``: 2.0.2)."""
    if version == "1.8":
        return Engine("legacy", str(python or LEGACY_PYTHON))
    # 2.0 starts in dynamic mode: its fluid static-mode programs began with enable_static()
    return Engine("legacy" + version.replace(".", ""), str(python or LEGACY_PYTHONS[version]),
                  static_setup="import paddle\npaddle.enable_static()\n")


def rewrite_engine() -> Engine:
    return Engine("rewrite", modern_python())


#: run before the programs under compat when the proof uses a rule book other than
#: rules/ (a harness test's broken copy): every rulebook.load() answers with it
_BOOK_SETUP = """\
import base64, pickle
import upgrader.rulebook as _rulebook
_book = pickle.loads(base64.b64decode({data!r}))
_rulebook.load = lambda directory=None: _book
try:
    import compat._runtime as _runtime
    _runtime._book = None  # loaded again, through the patched load()
except ImportError:
    pass
"""


def compat_engine(book=None) -> Engine:
    setup = ""
    if book is not None:
        data = base64.b64encode(pickle.dumps(book)).decode("ascii")
        setup = _BOOK_SETUP.format(data=data)
    return Engine("compat", modern_python(), ["-m", "compat"], {},
                  _tree(ROOT / "compat") + _tree(ROOT / "upgrader")
                  + _rule_files(), setup)


# -- running batches ----------------------------------------------------------------------

def _died(item_id: str, code: int, stderr: str) -> dict:
    tail = "\n".join(stderr.strip().splitlines()[-15:])
    return {"id": item_id, "ok": False, "result": None, "died": True,
            "error": f"the interpreter died running this program (exit code {code})\n{tail}"}


def run_batch(engine: Engine, items: Sequence[Tuple[str, str]],
              mode: str = "") -> Tuple[dict, Dict[str, dict]]:
    """Run ``(id, program text)`` items (of ``mode``) in as few interpreters as possible."""
    env_info: dict = {}
    records: Dict[str, dict] = {}
    todo = list(items)
    env = dict(os.environ, PYTHONDONTWRITEBYTECODE="1", PYTHONIOENCODING="utf-8",
               PROOF_SNIPPET_TIMEOUT=str(SNIPPET_TIMEOUT), **engine.env)
    env.pop("PYTHONPATH", None)
    with tempfile.TemporaryDirectory(prefix=f"proof-{engine.name}-") as tmp:
        tmpdir = Path(tmp)
        setup = engine.setup + (engine.static_setup if mode == "static" else "")
        if setup:
            (tmpdir / "setup.py").write_text(setup)
            env["PROOF_SETUP"] = str(tmpdir / "setup.py")
        run = 0
        while todo:
            run += 1
            batch, out, err = (tmpdir / f"batch{run}.json", tmpdir / f"out{run}.jsonl",
                               tmpdir / f"err{run}.txt")
            batch.write_text(json.dumps([{"id": i, "text": t} for i, t in todo]))
            workdir = tmpdir / f"work{run}"
            workdir.mkdir()
            with open(err, "wb") as errf:
                proc = subprocess.Popen(
                    [engine.python, *engine.prefix, str(DRIVER), str(batch), str(out)],
                    cwd=workdir, env=env, stdout=subprocess.DEVNULL, stderr=errf)
                code = _wait(proc, out)
            done = []
            if out.exists():
                for line in out.read_text(encoding="utf-8", errors="replace").splitlines():
                    try:
                        rec = json.loads(line)
                    except ValueError:
                        break  # a half-written last line
                    if "env" in rec:
                        env_info = rec["env"]
                    else:
                        records[rec["id"]] = rec
                        done.append(rec["id"])
            rest = todo[len(done):]
            if not rest:
                break
            stderr = err.read_text(encoding="utf-8", errors="replace")
            culprit = rest[0][0]
            records[culprit] = _died(culprit, code, stderr)
            if not done and run > 1 and not env_info:
                # the interpreter cannot even start: blame everything, do not loop
                for i, _ in rest[1:]:
                    records[i] = _died(i, code, stderr)
                break
            todo = rest[1:]
    return env_info, records


def _wait(proc: subprocess.Popen, out: Path) -> int:
    """Wait for the driver; kill it when no result has come for too long (a C-level hang)."""
    last_size, last_change = -1, time.time()
    while True:
        try:
            return proc.wait(timeout=0.2)
        except subprocess.TimeoutExpired:
            pass
        size = out.stat().st_size if out.exists() else 0
        if size != last_size:
            last_size, last_change = size, time.time()
        elif time.time() - last_change > SNIPPET_TIMEOUT + 60:
            proc.kill()
            proc.wait()
            return -9


class Cache:
    """Per-program results of one engine context, shared by concurrent test workers."""

    def __init__(self, engine: Engine, enabled: bool = True):
        self.enabled = enabled and os.environ.get("PROOF_NO_CACHE", "") in ("", "0")
        ctx = engine.context() if self.enabled else "off"
        self.path = CACHE / f"{engine.name}-{ctx}.jsonl"
        self.lock_path = CACHE / f"{engine.name}-{ctx}.lock"

    def __enter__(self):
        if self.enabled:
            CACHE.mkdir(parents=True, exist_ok=True)
            (CACHE / ".gitignore").write_text("*\n")
            self._lock = open(self.lock_path, "w")
            fcntl.flock(self._lock, fcntl.LOCK_EX)
        return self

    def __exit__(self, *exc):
        if self.enabled:
            fcntl.flock(self._lock, fcntl.LOCK_UN)
            self._lock.close()

    def read(self) -> Dict[str, dict]:
        if not self.enabled or not self.path.exists():
            return {}
        out = {}
        for line in self.path.read_text(encoding="utf-8").splitlines():
            try:
                row = json.loads(line)
            except ValueError:
                continue
            out[row["text"]] = row
        return out

    def add(self, rows: Iterable[dict]) -> None:
        if not self.enabled:
            return
        with open(self.path, "a", encoding="utf-8") as f:
            for row in rows:
                f.write(json.dumps(row) + "\n")


def _text_key(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _forks(text: str) -> bool:
    """The program starts worker processes (``multiprocess_reader``): it runs in an
    interpreter that has run nothing else, since forking one whose earlier programs started
    the executor's threads can leave the child waiting on a lock forever (the reader then
    times out with ``queue.Empty``, as seen on a loaded 2-core machine)."""
    return "multiprocess" in text


def run_programs(engine: Engine, items: Sequence[Tuple[str, str, str]],
                 cache: bool = True) -> Tuple[dict, Dict[str, dict]]:
    """Run ``(id, mode, text)`` items, one interpreter per mode, through the cache."""
    if not items:
        return {}, {}
    with Cache(engine, cache) as cache:
        known = cache.read()
        env_info: dict = {}
        records: Dict[str, dict] = {}
        todo: Dict[Tuple[str, bool], List[Tuple[str, str]]] = {}
        for item_id, mode, text in items:
            row = known.get(_text_key(text))
            if row is not None:
                records[item_id] = dict(row["rec"], id=item_id, cached=True)
                env_info = env_info or row.get("env", {})
            else:
                todo.setdefault((mode, _forks(text)), []).append((item_id, text))
        texts = {item_id: text for item_id, _, text in items}
        if todo:
            with ThreadPoolExecutor(max_workers=min(JOBS, len(todo))) as pool:
                futures = [pool.submit(run_batch, engine, batch, mode)
                           for (mode, _), batch in todo.items()]
                for fut in futures:
                    env, recs = fut.result()
                    env_info = env or env_info
                    records.update(recs)
                    # a dead interpreter may be transient (memory, a kill): never cached
                    cache.add({"text": _text_key(texts[i]), "rec": r, "env": env}
                              for i, r in recs.items() if not r.get("died"))
    return env_info, records


# -- the rewrite ----------------------------------------------------------------------------

def legacy_names(code: str) -> List[Tuple[int, str]]:
    """Lines of ``code`` that still use the name ``fluid`` (comments and strings aside)."""
    lines = code.splitlines()
    found: Dict[int, str] = {}
    try:
        for tok in tokenize.generate_tokens(io.StringIO(code).readline):
            if tok.type == tokenize.NAME and tok.string == "fluid":
                found.setdefault(tok.start[0], lines[tok.start[0] - 1].strip())
    except (tokenize.TokenError, IndentationError, SyntaxError) as exc:
        return [(0, f"untokenizable output: {exc}")]
    return sorted(found.items())


def rewrite(case: Case, book=None) -> dict:
    """``{"code": ...}`` or ``{"error": ...}`` for the case's program rewritten by the engine."""
    try:
        from upgrader import upgrade_source
    except Exception as exc:  # the engine itself is broken
        return {"error": f"the engine cannot be imported: {type(exc).__name__}: {exc}"}
    kwargs = {"fix": True, "unsafe_fixes": case.unsafe}
    if book is not None:
        kwargs["rules"] = book
    try:
        res = upgrade_source(case.program, **kwargs)
    except Exception as exc:
        return {"error": f"the engine raised {type(exc).__name__}: {exc}"}
    left = legacy_names(res.code)
    if left:
        manual = [f"{f.code} {f.message}" for f in res.findings
                  if getattr(f, "fix", "") == "manual"]
        where = "; ".join(f"line {n}: {src}" for n, src in left[:3])
        why = f" (manual findings: {'; '.join(manual[:3])})" if manual else ""
        return {"code": res.code, "error": f"the rewrite left legacy names: {where}{why}"}
    return {"code": res.code}


def rewrite_all(cases: Sequence[Case], book=None) -> List[dict]:
    """``rewrite`` for each case; cached (by engine sources, rules and program) for the
    default rule book, never for a book given in memory (its digest may not show edits)."""
    if book is not None:
        return [rewrite(c, book) for c in cases]
    engine = Engine("upgrade_source", sys.executable, [], {},
                    _tree(ROOT / "upgrader") + _rule_files())
    with Cache(engine) as cache:
        known = cache.read()
        out, new = [], []
        for c in cases:
            key = _text_key(f"{c.unsafe}\0{c.program}")
            row = known.get(key)
            if row is None:
                row = {"text": key, "rec": rewrite(c)}
                if "engine raised" not in row["rec"].get("error", "") \
                        and "cannot be imported" not in row["rec"].get("error", ""):
                    new.append(row)
            out.append(row["rec"])
        cache.add(new)
    return out


# -- judging --------------------------------------------------------------------------------

@dataclass
class Verdict:
    case: Case
    problems: List[str]
    golden: Optional[dict] = None
    records: Dict[str, dict] = field(default_factory=dict)
    #: a documented known difference, confirmed by this run: what the rewrite gave
    documented: List[str] = field(default_factory=list)

    @property
    def proven(self) -> bool:
        return not self.problems and not self.documented

    @property
    def difference_confirmed(self) -> bool:
        """The mode declares a known difference (``differs``) and the rewrite shows it."""
        return not self.problems and bool(self.documented)


def golden_problem(case: Case, golden: Optional[dict]) -> Optional[str]:
    if case.invalid:
        return f"invalid example: {case.invalid}"
    status = golden_status(case, golden)
    if status == "missing":
        return "no golden recorded: run make goldens-rules"
    if status == "stale":
        return "the golden is stale (example or program changed): run make goldens-rules"
    if not golden.get("ok"):
        return (f"the example fails on real {case.engine_label}, fix it: "
                f"{golden.get('error')}")
    return None


def judge(case: Case, golden: Optional[dict], records: Dict[str, dict]) -> Verdict:
    problem = golden_problem(case, golden)
    if problem:
        return Verdict(case, [problem], golden, records)
    problems = []
    rtol, atol = case.tolerance
    for engine in sorted(records):
        rec = records[engine]
        if not rec.get("ok"):
            problems.append(f"{engine}: {last_error_line(rec.get('error', ''))}")
            continue
        why = snippets.compare(golden["result"], rec["result"], rtol, atol,
                               (golden.get("recorded_with") or {}).get("paddle") or "1.8.5")
        if why:
            problems.append(f"{engine}: {why}")
    if case.difference:
        return _judge_difference(case, golden, records, problems)
    return Verdict(case, problems, golden, records)


def _judge_difference(case: Case, golden: dict, records: Dict[str, dict],
                      problems: List[str]) -> Verdict:
    """A mode with a documented known difference (an unsafe entry's ``differs``): the
    rewrite must still not reproduce 1.8.5 (else the note is out of date and the entry may
    be safe now); what compat gives is kept for the report but not judged."""
    if not case.unsafe:
        return Verdict(case, [f"declares a known difference ({case.difference}) but the "
                              "entry is not unsafe: mark it unsafe or drop `differs`"],
                       golden, records)
    shown = [p for p in problems if p.startswith("rewrite:")]
    if "rewrite" in records and not shown:
        return Verdict(case, ["the documented difference no longer shows: the rewrite "
                              f"reproduces 1.8.5 ({case.difference}); drop `differs` and "
                              "review the entry's safety"], golden, records)
    return Verdict(case, [], golden, records,
                   documented=shown or [f"rewrite: not run ({case.difference})"])


def prove(cases: Sequence[Case], *, book=None,
          engines: Sequence[str] = ("rewrite", "compat")) -> Dict[str, Verdict]:
    """Run ``cases`` on the given engines and judge each against its golden."""
    runnable = []
    goldens = {}
    verdicts: Dict[str, Verdict] = {}
    for c in cases:
        goldens[c.key] = load_golden(c)
        problem = golden_problem(c, goldens[c.key])
        if problem:
            verdicts[c.key] = Verdict(c, [problem], goldens[c.key])
        else:
            runnable.append(c)
    per_case: Dict[str, Dict[str, dict]] = {c.key: {} for c in runnable}
    if "rewrite" in engines:
        items = []
        for c, rw in zip(runnable, rewrite_all(runnable, book)):
            if "error" in rw:
                per_case[c.key]["rewrite"] = {"ok": False, "error": rw["error"],
                                              "program": rw.get("code")}
            else:
                per_case[c.key]["rewrite"] = {"program": rw["code"]}
                items.append((c.key, c.mode, rw["code"]))
        _, recs = run_programs(rewrite_engine(), items)
        for key, rec in recs.items():
            per_case[key]["rewrite"].update(rec)
    if "compat" in engines:
        _, recs = run_programs(compat_engine(book),
                               [(c.key, c.mode, c.program) for c in runnable])
        for key, rec in recs.items():
            per_case[key]["compat"] = rec
    for c in runnable:
        verdicts[c.key] = judge(c, goldens[c.key], per_case[c.key])
    return verdicts
