"""Files on disk: discovery, reading with the file's own encoding, atomic writes.

Never lose user code: a file is read once (bytes, encoding, BOM, mode, digest), the
rewritten text is encoded back with the same encoding and BOM (libcst keeps the newline
style), written to a temporary file in the same directory, fsync'ed and moved over the
original with ``os.replace``; a file whose bytes changed since it was read is not
overwritten.
"""
from __future__ import annotations

import codecs
import fnmatch
import hashlib
import io
import os
import re
import stat
import tempfile
import tokenize
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Iterable, List, Optional, Sequence, Tuple

PYTHON_SUFFIXES = (".py", ".pyi", ".pyw")
NOTEBOOK_SUFFIX = ".ipynb"
SHELL_SUFFIX = ".sh"  # launch scripts: legacy `paddle.distributed.launch` options are reported
SUFFIXES = PYTHON_SUFFIXES[:1] + (NOTEBOOK_SUFFIX, SHELL_SUFFIX)

# Directories (and a few files) nobody wants rewritten: virtualenvs, VCS metadata, caches,
# build output. Patterns are fnmatch globs on a path component or a relative path.
DEFAULT_EXCLUDES: Tuple[str, ...] = (
    ".bzr", ".direnv", ".eggs", ".git", ".hg", ".ipynb_checkpoints", ".mypy_cache",
    ".nox", ".paddle_upgrade_cache", ".pants.d", ".pytest_cache", ".pytype", ".ruff_cache",
    ".svn", ".tox", ".venv", ".venv-*", "venv", "__pycache__", "__pypackages__", "_build",
    "buck-out", "build", "dist", "node_modules", "site-packages", "*.egg-info",
)

MAX_FILE_BYTES = 20 * 1024 * 1024  # larger "source" files are generated data, not code
TEMP_SUFFIX = ".paddle-upgrade.tmp"
UTF8_BOM = codecs.BOM_UTF8


class FileError(Exception):
    """A problem with one file; it never stops the others."""

    def __init__(self, path, line: Optional[int], message: str, column: Optional[int] = None):
        super().__init__(message)
        self.path = str(path)
        self.line = line
        self.column = column
        self.message = message

    def __str__(self) -> str:
        where = self.path if self.line is None else f"{self.path}:{self.line}"
        return f"{where}: {self.message}"

    def to_dict(self) -> dict:
        return {"path": self.path, "line": self.line, "column": self.column,
                "message": self.message}


@dataclass
class SourceFile:
    """One file as read: enough to write it back byte-faithfully or refuse to."""

    path: Path          # as reported to the user (relative if given relative)
    real_path: Path     # symlinks resolved: where the bytes live and are written
    raw: bytes
    text: str           # decoded, BOM removed, newlines untouched
    encoding: str       # a Python codec name ("utf-8", "gbk", "iso-8859-1", ...)
    bom: bool
    digest: str         # sha256 of raw
    mode: int           # permission bits of the file
    kind: str = "python"  # "python" | "notebook"

    def encode(self, text: str) -> bytes:
        try:
            data = text.encode(self.encoding)
        except UnicodeEncodeError as exc:
            line = text[:exc.start].count("\n") + 1
            raise FileError(self.path, line, f"the rewritten code cannot be encoded as "
                            f"{self.encoding}: {exc.reason}; file left unchanged") from None
        return (UTF8_BOM + data) if self.bom else data


# --------------------------------------------------------------------------- discovery

def _as_posix(p: Path) -> str:
    return PurePosixPath(*p.parts).as_posix() if p.parts else "."


def _matches(rel: str, name: str, patterns: Sequence[str]) -> bool:
    """``rel`` is a posix path relative to a root, ``name`` its last component."""
    for pat in patterns:
        pat = pat.rstrip("/")
        if not pat:
            continue
        if "/" not in pat:
            if fnmatch.fnmatchcase(name, pat):
                return True
            continue
        pat = pat[2:] if pat.startswith("./") else pat
        if fnmatch.fnmatchcase(rel, pat) or fnmatch.fnmatchcase(rel, pat + "/*"):
            return True
        if not pat.startswith(("/", "*")) and fnmatch.fnmatchcase(rel, "*/" + pat):
            return True
    return False


def is_excluded(path: Path, patterns: Sequence[str], roots: Sequence[Path] = ()) -> bool:
    """Whether ``path`` (a file or directory) matches an exclude pattern, judged by its
    name and by its path relative to the cwd and to each of ``roots``."""
    if not patterns:
        return False
    name = path.name
    rels = []
    for base in [Path.cwd(), *roots]:
        try:
            rels.append(_as_posix(Path(os.path.abspath(path)).relative_to(os.path.abspath(base))))
        except ValueError:
            continue
    if not rels:
        rels.append(_as_posix(path))
    return any(_matches(rel, name, patterns) for rel in rels) or _matches(name, name, patterns)


def _has_python_shebang(path: Path) -> bool:
    try:
        with open(path, "rb") as fh:
            first = fh.readline(200)
    except OSError:
        return False
    return first.startswith(b"#!") and b"python" in first


def file_kind(path: Path) -> str:
    if path.suffix == SHELL_SUFFIX:
        return "shell"
    return "notebook" if path.suffix == NOTEBOOK_SUFFIX else "python"


def _inside(real: str, real_roots: Sequence[str]) -> bool:
    return any(real == r or real.startswith(r.rstrip(os.sep) + os.sep) for r in real_roots)


class _Excluder:
    """:func:`is_excluded` for many paths at once: the patterns without a ``/`` (all the
    default ones) become one precompiled regex on the name; patterns with a ``/`` are
    matched on the paths relative to the cwd and the roots, computed with string
    operations only when there are such patterns."""

    def __init__(self, patterns: Sequence[str], bases: Sequence[str]):
        names, paths = [], []
        for pat in patterns:
            p = pat.rstrip("/")
            if p:
                (paths if "/" in p else names).append(p)
        self.name_re = re.compile("|".join(fnmatch.translate(p) for p in names)).match \
            if names else None
        self.path_patterns = tuple(paths)
        self.prefixes = []
        for b in bases:
            b = os.path.abspath(b)
            self.prefixes.append((b, b if b.endswith(os.sep) else b + os.sep))

    def __call__(self, path: str, abspath: str, name: str) -> bool:
        if self.name_re is not None and self.name_re(name):
            return True
        if not self.path_patterns:
            return False
        rels = []
        for base, prefix in self.prefixes:
            if abspath == base:
                rels.append(".")
            elif abspath.startswith(prefix):
                rels.append(abspath[len(prefix):].replace(os.sep, "/"))
        if not rels:
            rels.append(_as_posix(Path(path)))
        pats = self.path_patterns
        return any(_matches(rel, name, pats) for rel in rels) or _matches(name, name, pats)


def _walk(root: str, excluded: "_Excluder", errors: List[FileError]):
    """``(relative parts, entry)`` for every file with a known suffix under ``root``,
    like ``os.walk`` without following symlinked directories, excluded directories pruned."""
    abs_root = os.path.abspath(root)
    stack = [((), root, abs_root)]
    while stack:
        parts, d, abs_d = stack.pop()
        try:
            it = os.scandir(d)
        except OSError as e:
            errors.append(FileError(e.filename or root, None, f"cannot list directory: {e.strerror}"))
            continue
        with it:
            entries = []
            try:
                for entry in it:
                    entries.append(entry)
            except OSError as e:
                errors.append(FileError(e.filename or root, None, f"cannot list directory: {e.strerror}"))
                continue
        for entry in entries:
            name = entry.name
            try:
                is_dir = entry.is_dir()
            except OSError:
                is_dir = False
            if is_dir:
                if excluded(entry.path, abs_d + os.sep + name, name):
                    continue
                try:
                    if entry.is_symlink():
                        continue  # symlinked directories are not walked
                except OSError:
                    continue
                stack.append((parts + (name,), entry.path, abs_d + os.sep + name))
            elif name.endswith(SUFFIXES) and not excluded(entry.path, abs_d + os.sep + name, name):
                yield parts + (name,), entry


def discover(paths: Iterable, exclude: Optional[Sequence[str]] = None,
             extend_exclude: Sequence[str] = (), *, config_root: Optional[Path] = None
             ) -> Tuple[List[Path], List[FileError]]:
    """Expand files and directory trees to the ``.py`` and ``.ipynb`` files to process.

    ``exclude`` replaces :data:`DEFAULT_EXCLUDES` when given; ``extend_exclude`` adds to
    it. Directories are walked without following symlinked directories; a symlinked file
    is kept only when its target lies inside one of the given roots. A file reached twice
    (given twice, or through a symlink) is processed once. Files named explicitly are
    always processed unless a user pattern (``exclude`` given or ``extend_exclude``)
    matches them. Returns ``(files, errors)``, files in a stable order.
    """
    dir_patterns = tuple(DEFAULT_EXCLUDES if exclude is None else exclude) + tuple(extend_exclude)
    user_patterns = (tuple(exclude) if exclude is not None else ()) + tuple(extend_exclude)
    extra_roots = [str(config_root)] if config_root else []
    files: List[Path] = []
    errors: List[FileError] = []
    seen = set()
    paths = [Path(p) for p in paths]
    real_roots = [os.path.realpath(p) for p in paths if os.path.exists(p)]
    cwd = os.getcwd()

    def add(p: Path, real: Optional[str] = None) -> None:
        real = real or os.path.realpath(p)
        if real in seen:
            return
        seen.add(real)
        files.append(p)

    for root in paths:
        if not os.path.lexists(root):
            errors.append(FileError(root, None, "no such file or directory"))
            continue
        if root.is_file():
            if user_patterns and _Excluder(user_patterns, [cwd, *extra_roots])(
                    str(root), os.path.abspath(root), root.name):
                continue
            if root.suffix in PYTHON_SUFFIXES or root.suffix in (NOTEBOOK_SUFFIX, SHELL_SUFFIX) or (
                    not root.suffix and _has_python_shebang(root)):
                add(root)
            else:
                errors.append(FileError(root, None, "not a Python file (.py) or notebook "
                                        "(.ipynb); skipped"))
            continue
        if not root.is_dir():
            errors.append(FileError(root, None, "not a regular file or directory; skipped"))
            continue
        excluded = _Excluder(dir_patterns, [cwd, str(root), *extra_roots])
        top = str(root)
        real_top = os.path.realpath(root)
        found = []
        for parts, entry in _walk(top, excluded, errors):
            real = None
            try:
                link = entry.is_symlink()
            except OSError:
                link = False
            if link:
                real = os.path.realpath(entry.path)
                if not os.path.isfile(real) or not _inside(real, real_roots):
                    continue
            else:  # no symlink below the root was followed: the real path is known
                real = os.path.join(real_top, *parts)
            found.append((parts, entry.path, real))
        found.sort(key=lambda t: t[0])
        for parts, p, real in found:
            add(Path(p), real)
    return files, errors


# ------------------------------------------------------------------------------ reading

_COOKIE = re.compile(rb"^[ \t\f]*#.*?coding[:=][ \t]*([-\w.]+)")


def _decode_error(path, raw: bytes, encoding: str, exc: UnicodeDecodeError) -> FileError:
    line = raw[:exc.start].count(b"\n") + 1
    col = exc.start - (raw.rfind(b"\n", 0, exc.start) + 1) + 1
    hint = (" (add a coding cookie such as '# -*- coding: gbk -*-' on the first line, "
            "or convert the file to UTF-8)") if encoding.replace("_", "-") in ("utf-8", "utf8") else ""
    return FileError(path, line, f"cannot decode byte 0x{raw[exc.start]:02x} as {encoding}{hint}",
                     column=col)


def decode_python(path, raw: bytes) -> Tuple[str, str, bool]:
    """Decode Python source like the interpreter does (BOM, PEP 263 cookie, else UTF-8).
    Returns ``(text, codec, bom)``; the text keeps its newlines and has no BOM."""
    bom = raw.startswith(UTF8_BOM)
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(raw).readline)
    except SyntaxError as exc:
        line_no = next((i + 1 for i, line in enumerate(raw.splitlines()[:2])
                        if _COOKIE.match(line)), 1)
        raise FileError(path, line_no, f"bad encoding declaration: {exc}") from None
    if encoding == "utf-8-sig":
        encoding = "utf-8"
    body = raw[len(UTF8_BOM):] if bom else raw
    try:
        text = body.decode(encoding)
    except UnicodeDecodeError as exc:
        off = len(UTF8_BOM) if bom else 0
        exc.start += off
        raise _decode_error(path, raw, encoding, exc) from None
    except LookupError:  # pragma: no cover - detect_encoding validates the codec
        raise FileError(path, 1, f"unknown encoding {encoding!r}") from None
    return text, codecs.lookup(encoding).name, bom


def read_source(path, *, max_bytes: int = MAX_FILE_BYTES) -> SourceFile:
    """Read one ``.py`` or ``.ipynb`` file; :class:`FileError` if it is not usable text."""
    path = Path(path)
    real = Path(os.path.realpath(path))
    try:
        st = os.stat(real)
        if not stat.S_ISREG(st.st_mode):
            raise FileError(path, None, "not a regular file; skipped")
        if st.st_size > max_bytes:
            raise FileError(path, None, f"file too large ({st.st_size // 1024} KiB > "
                            f"{max_bytes // 1024} KiB); skipped")
        with open(real, "rb") as fh:
            raw = fh.read()
    except FileError:
        raise
    except OSError as exc:
        raise FileError(path, None, f"cannot read: {exc.strerror or exc}") from None
    if b"\0" in raw[:65536]:
        raise FileError(path, None, "binary file (contains NUL bytes); skipped")
    kind = file_kind(path)
    if kind == "notebook":
        bom = raw.startswith(UTF8_BOM)
        try:
            text = raw[len(UTF8_BOM) if bom else 0:].decode("utf-8")
        except UnicodeDecodeError as exc:
            if bom:
                exc.start += len(UTF8_BOM)
            raise _decode_error(path, raw, "utf-8", exc) from None
        encoding = "utf-8"
    else:
        text, encoding, bom = decode_python(path, raw)
    return SourceFile(path=path, real_path=real, raw=raw, text=text, encoding=encoding,
                      bom=bom, digest=hashlib.sha256(raw).hexdigest(),
                      mode=stat.S_IMODE(st.st_mode), kind=kind)


# ------------------------------------------------------------------------------ writing

def _fsync_dir(directory: str) -> None:
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def _current_digest(real: Path) -> Optional[str]:
    try:
        with open(real, "rb") as fh:
            return hashlib.sha256(fh.read()).hexdigest()
    except OSError:
        return None


def atomic_write_bytes(target: Path, data: bytes, mode: Optional[int] = None,
                       expect_digest: Optional[str] = None, report_as=None) -> None:
    """Write ``data`` to ``target`` atomically (temp file in the same directory, fsync,
    ``os.replace``). With ``expect_digest``, refuse when the file's current bytes differ."""
    report_as = report_as if report_as is not None else target
    directory = os.path.dirname(os.path.abspath(target))
    try:
        fd, tmp = tempfile.mkstemp(dir=directory, prefix="." + os.path.basename(target) + ".",
                                   suffix=TEMP_SUFFIX)
    except OSError as exc:
        raise FileError(report_as, None, f"cannot write (directory {directory}): "
                        f"{exc.strerror or exc}; file left unchanged") from None
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        if mode is not None:
            os.chmod(tmp, mode)
        try:
            st = os.stat(target)
            if (st.st_uid, st.st_gid) != (os.getuid(), os.getgid()):
                os.chown(tmp, st.st_uid, st.st_gid)
        except (OSError, AttributeError):
            pass
        if expect_digest is not None and _current_digest(target) != expect_digest:
            raise FileError(report_as, None, "file changed on disk while it was being "
                            "upgraded; not overwritten (run again)")
        os.replace(tmp, target)
        tmp = None
        _fsync_dir(directory)
    except OSError as exc:
        raise FileError(report_as, None, f"cannot write: {exc.strerror or exc}; "
                        "file left unchanged") from None
    finally:
        if tmp is not None:
            try:
                os.unlink(tmp)
            except OSError:
                pass


def check_writable(sf: SourceFile) -> None:
    """Read-only files are reported, never replaced behind the owner's back."""
    try:
        st = os.stat(sf.real_path)
    except OSError as exc:
        raise FileError(sf.path, None, f"cannot write: {exc.strerror}") from None
    if not st.st_mode & (stat.S_IWUSR | stat.S_IWGRP | stat.S_IWOTH) or (
            os.geteuid() != 0 and not os.access(sf.real_path, os.W_OK)):
        raise FileError(sf.path, None, "file is read-only; not rewritten "
                        "(make it writable or use `fix --diff`)")


def backup_path(sf: SourceFile, backup_dir: Path) -> Path:
    p = Path(os.path.abspath(sf.path))
    try:
        rel = p.relative_to(Path.cwd())
    except ValueError:
        rel = p.relative_to(p.anchor)
    return Path(backup_dir) / rel


def write_source(sf: SourceFile, new_text: str, *, backup_dir: Optional[Path] = None) -> None:
    """Write ``new_text`` over ``sf`` with its original encoding, BOM and mode.

    Raises :class:`FileError` (and leaves the file as it is) when the text cannot be
    encoded, the file is read-only, or its bytes changed since :func:`read_source`.
    """
    data = sf.encode(new_text)
    check_writable(sf)
    if _current_digest(sf.real_path) != sf.digest:
        raise FileError(sf.path, None, "file changed on disk since it was read; "
                        "not overwritten (run again)")
    if backup_dir is not None:
        dest = backup_path(sf, backup_dir)
        try:
            dest.parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise FileError(sf.path, None, f"cannot create backup directory {dest.parent}: "
                            f"{exc.strerror}; file left unchanged") from None
        atomic_write_bytes(dest, sf.raw, sf.mode, report_as=sf.path)
    atomic_write_bytes(sf.real_path, data, sf.mode, expect_digest=sf.digest, report_as=sf.path)


__all__ = ["DEFAULT_EXCLUDES", "FileError", "SourceFile", "discover", "read_source",
           "write_source", "decode_python", "atomic_write_bytes", "is_excluded", "file_kind"]
