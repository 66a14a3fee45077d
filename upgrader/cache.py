"""Content-hash cache of per-file results under ``.paddle_upgrade_cache/`` at the project root.

A key is the hash of the file's bytes, the tool (version + a digest of the ``upgrader``
sources, so an edited rule module invalidates it), the rule database digest and the
options that change a result. Entries are JSON written atomically; a cache that cannot
be read or written is silently skipped: it only ever saves time.
"""
from __future__ import annotations

import hashlib
import json
import os
import tempfile
from functools import lru_cache
from pathlib import Path
from typing import Any, Dict, Optional

CACHE_DIR_NAME = ".paddle_upgrade_cache"
FORMAT = "v1"


@lru_cache(maxsize=1)
def tool_fingerprint() -> str:
    """Version, upgrader sources and rule database: anything that changes results."""
    import upgrader
    h = hashlib.sha256(upgrader.__version__.encode())
    pkg = Path(upgrader.__file__).resolve().parent
    for p in sorted(pkg.rglob("*.py")):
        try:
            h.update(str(p.relative_to(pkg)).encode() + b"\0" + p.read_bytes())
        except OSError:
            continue
    h.update(rules_digest().encode())
    return h.hexdigest()[:24]


def rules_digest() -> str:
    """``rulebook.load().digest`` from the files' bytes, without parsing them (a warm run
    then never loads the rule book)."""
    try:
        from upgrader import rulebook
        paths = sorted(rulebook.rules_dir().glob("*.toml"))
        h = hashlib.sha256()
        for path in paths:
            h.update(path.name.encode() + b"\0" + path.read_bytes())
        return h.hexdigest()[:16]
    except Exception as exc:  # an unreadable rule book is reported elsewhere
        return repr(exc)


class Cache:
    def __init__(self, root: Path, enabled: bool = True):
        self.dir = Path(root) / CACHE_DIR_NAME / FORMAT
        self.enabled = enabled
        self._ready = False

    def key(self, raw: bytes, *parts: str) -> str:
        h = hashlib.sha256(raw)
        h.update(b"\0" + tool_fingerprint().encode())
        for p in parts:
            h.update(b"\0" + str(p).encode())
        return h.hexdigest()

    def _path(self, key: str) -> Path:
        return self.dir / key[:2] / f"{key}.json"

    def get(self, key: str) -> Optional[Dict[str, Any]]:
        if not self.enabled:
            return None
        try:
            with open(self._path(key), encoding="utf-8") as fh:
                return json.load(fh)
        except (OSError, ValueError):
            return None

    def _prepare(self) -> None:
        if self._ready:
            return
        top = self.dir.parent
        top.mkdir(parents=True, exist_ok=True)
        for name, text in ((".gitignore", "# created by paddle-upgrade\n*\n"),
                           ("CACHEDIR.TAG", "Signature: 8a477f597d28d172789f06886806bc55\n"
                                            "# paddle-upgrade cache; safe to delete.\n")):
            p = top / name
            if not p.exists():
                p.write_text(text, encoding="utf-8")
        self._ready = True

    def put(self, key: str, value: Dict[str, Any]) -> None:
        if not self.enabled:
            return
        try:
            self._prepare()
            target = self._path(key)
            target.parent.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(dir=target.parent, suffix=".tmp")
            try:
                with os.fdopen(fd, "w", encoding="utf-8") as fh:
                    json.dump(value, fh, ensure_ascii=False)
                os.replace(tmp, target)
            except BaseException:
                try:
                    os.unlink(tmp)
                except OSError:
                    pass
                raise
        except (OSError, TypeError, ValueError):
            self.enabled = False  # read-only checkout etc.: run uncached


class StatCache:
    """What the text prefilter said about a file, keyed by the file's ``stat`` (size,
    mtime and ctime in ns, inode): a warm run skips reading the files it already knows
    have no legacy marker. One JSON file per ``salt`` (the tool fingerprint and the
    prefilter's options). A file changed less than :data:`RACY_NS` before it was looked
    at is not remembered: a second change within the file system's timestamp
    granularity could keep the same stat."""

    RACY_NS = 2_000_000_000

    def __init__(self, root: Path, salt: str, enabled: bool = True):
        digest = hashlib.sha256(salt.encode()).hexdigest()[:20]
        self.file = Path(root) / CACHE_DIR_NAME / FORMAT / f"stat-{digest}.json"
        self.enabled = enabled
        self.entries: Dict[str, list] = {}
        self.dirty = False
        if enabled:
            try:
                with open(self.file, encoding="utf-8") as fh:
                    data = json.load(fh)
                if isinstance(data, dict):
                    self.entries = data
            except (OSError, ValueError):
                pass

    @staticmethod
    def _sig(st: os.stat_result) -> list:
        return [st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino]

    def get(self, path: str, st: os.stat_result) -> Optional[bool]:
        e = self.entries.get(path)
        if e is None or not isinstance(e, list) or len(e) != 5 or e[:4] != self._sig(st):
            return None
        return bool(e[4])

    def put(self, path: str, st: os.stat_result, verdict: bool, now_ns: int) -> None:
        if not self.enabled:
            return
        if now_ns - max(st.st_mtime_ns, st.st_ctime_ns) < self.RACY_NS:
            self.entries.pop(path, None)
            return
        e = self._sig(st) + [bool(verdict)]
        if self.entries.get(path) != e:
            self.entries[path] = e
            self.dirty = True

    def save(self, cache: "Cache") -> None:
        if not (self.enabled and self.dirty):
            return
        try:
            cache._prepare()
            self.file.parent.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(dir=self.file.parent, suffix=".tmp")
            try:
                with os.fdopen(fd, "w", encoding="utf-8") as fh:
                    json.dump(self.entries, fh, separators=(",", ":"))
                os.replace(tmp, self.file)
            except BaseException:
                try:
                    os.unlink(tmp)
                except OSError:
                    pass
                raise
        except (OSError, TypeError, ValueError):
            self.enabled = False


def clear(root: Path) -> None:
    import shutil
    shutil.rmtree(Path(root) / CACHE_DIR_NAME, ignore_errors=True)
