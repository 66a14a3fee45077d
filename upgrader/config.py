"""Settings: ``[tool.paddle-upgrade]`` in the nearest pyproject.toml, then CLI flags.

```toml
[tool.paddle-upgrade]
select = ["PU1", "PU2"]          # codes or prefixes; default: every rule
extend-select = ["PU3"]
ignore = ["PU102"]
exclude = ["third_party"]        # replaces the default excludes (.venv, build, ...)
extend-exclude = ["legacy/*"]    # adds to them
per-file-ignores = { "tests/*" = ["PU1"] }
unsafe-fixes = false
report-unused-noqa = false
```

CLI flags override: ``--select`` replaces ``select``; ``--ignore``, ``--extend-select``,
``--exclude`` add to the file's lists; ``--unsafe-fixes`` wins over the file.
"""
from __future__ import annotations

import difflib
import fnmatch
import os
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Dict, Iterable, List, Optional, Sequence

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - 3.9/3.10
    try:
        import tomli as tomllib  # type: ignore
    except ImportError:  # pragma: no cover
        tomllib = None  # type: ignore

SECTION = "paddle-upgrade"
_LIST_KEYS = ("select", "extend-select", "ignore", "extend-ignore", "exclude", "extend-exclude")
_BOOL_KEYS = ("unsafe-fixes", "report-unused-noqa")
KNOWN_KEYS = _LIST_KEYS + _BOOL_KEYS + ("per-file-ignores",)
_CODE_LIST_KEYS = ("select", "extend-select", "ignore", "extend-ignore")
_CODE = re.compile(r"^(ALL|PU[0-9]{0,3})$")


class ConfigError(ValueError):
    """Bad configuration; the message names the file and the key."""


@dataclass
class Settings:
    select: Optional[List[str]] = None  # None: every rule
    extend_select: List[str] = field(default_factory=list)
    ignore: List[str] = field(default_factory=list)
    exclude: Optional[List[str]] = None  # None: files.DEFAULT_EXCLUDES
    extend_exclude: List[str] = field(default_factory=list)
    per_file_ignores: Dict[str, List[str]] = field(default_factory=dict)
    unsafe_fixes: bool = False
    report_unused_noqa: bool = False
    config_path: Optional[Path] = None
    root: Path = field(default_factory=Path.cwd)  # project root: cache and relative globs

    def selects(self, code: str, path=None) -> bool:
        """Whether findings of ``code`` are reported (and fixed) in ``path``."""
        ignore = self.ignore + (self.ignores_for(path) if path is not None else [])
        select = None if self.select is None else self.select + self.extend_select
        return is_selected(code, select, ignore)

    def ignores_for(self, path) -> List[str]:
        """The per-file-ignores codes whose glob matches ``path``."""
        if not self.per_file_ignores:
            return []
        p = Path(os.path.abspath(path))
        try:
            rel = p.relative_to(os.path.abspath(self.root)).as_posix()
        except ValueError:
            rel = p.as_posix()
        out: List[str] = []
        for pattern, codes in self.per_file_ignores.items():
            pat = pattern[2:] if pattern.startswith("./") else pattern
            if (fnmatch.fnmatchcase(rel, pat) or fnmatch.fnmatchcase(p.name, pat)
                    or fnmatch.fnmatchcase(rel, pat.rstrip("/") + "/*")):
                out.extend(codes)
        return out

    def fingerprint(self, path=None) -> str:
        """What about these settings changes a file's result (for the cache key)."""
        select = None if self.select is None else sorted(self.select + self.extend_select)
        ignore = sorted(self.ignore + (self.ignores_for(path) if path is not None else []))
        return repr((select, ignore, self.unsafe_fixes, self.report_unused_noqa))


def _matches(code: str, patterns: Iterable[str]) -> bool:
    return any(p == "ALL" or code.startswith(p) for p in patterns)


def is_selected(code: str, select: Optional[Sequence[str]], ignore: Sequence[str]) -> bool:
    """Selected when ``select`` is unset or has a matching prefix, and no ``ignore``
    prefix matches (the engine applies the same rule to decide which rewrites to make)."""
    if select is not None and not _matches(code, select):
        return False
    return not _matches(code, ignore)


def _load_toml(path: Path) -> Dict[str, Any]:
    if tomllib is None:  # pragma: no cover
        raise ConfigError("reading pyproject.toml needs Python 3.11+ or the 'tomli' package")
    try:
        with open(path, "rb") as fh:
            return tomllib.load(fh)
    except OSError as exc:
        raise ConfigError(f"{path}: cannot read: {exc.strerror}") from None
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path}: not valid TOML: {exc}") from None


def _section(path: Path) -> Optional[Dict[str, Any]]:
    return _load_toml(path).get("tool", {}).get(SECTION)


def _start_dir(paths: Sequence) -> Path:
    dirs = []
    for p in paths or ():
        a = Path(os.path.abspath(p))
        dirs.append(a if a.is_dir() else a.parent)
    if not dirs:
        return Path.cwd()
    try:
        return Path(os.path.commonpath([str(d) for d in dirs]))
    except ValueError:  # different drives
        return dirs[0]


def find_config(paths: Sequence = ()) -> Optional[Path]:
    """The nearest pyproject.toml with a ``[tool.paddle-upgrade]`` table, upward from
    the common directory of ``paths`` (or the cwd)."""
    for d in [_start_dir(paths), *_start_dir(paths).parents]:
        candidate = d / "pyproject.toml"
        if candidate.is_file() and _section(candidate) is not None:
            return candidate
    return None


def project_root(paths: Sequence = ()) -> Path:
    """Directory of the nearest pyproject.toml, else of the enclosing git work tree,
    else the common directory of ``paths``."""
    start = _start_dir(paths)
    for d in [start, *start.parents]:
        if (d / "pyproject.toml").is_file():
            return d
    for d in [start, *start.parents]:
        if (d / ".git").exists():
            return d
    return start


def _suggest(key: str) -> str:
    close = difflib.get_close_matches(key, KNOWN_KEYS, n=1)
    return f" (did you mean '{close[0]}'?)" if close else ""


def _str_list(path: Path, key: str, value: Any) -> List[str]:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ConfigError(f"{path}: [tool.{SECTION}] {key} must be a list of strings, "
                          f"not {value!r}")
    return list(value)


def check_codes(codes: Iterable[str], where: str) -> List[str]:
    out = []
    for c in codes:
        c = c.strip().upper()
        if not _CODE.match(c):
            raise ConfigError(f"{where}: {c!r} is not a paddle-upgrade rule code or prefix "
                              "(expected PU followed by up to 3 digits, or ALL)")
        out.append(c)
    return out


def parse_section(path: Path, raw: Dict[str, Any]) -> Dict[str, Any]:
    """Validate a ``[tool.paddle-upgrade]`` table; keys come back with underscores."""
    if not isinstance(raw, dict):
        raise ConfigError(f"{path}: [tool.{SECTION}] must be a table")
    out: Dict[str, Any] = {}
    for key, value in raw.items():
        norm = key.replace("_", "-")
        if norm not in KNOWN_KEYS:
            raise ConfigError(f"{path}: unknown key '{key}' in [tool.{SECTION}]{_suggest(norm)}; "
                              f"known keys: {', '.join(KNOWN_KEYS)}")
        where = f"{path}: [tool.{SECTION}] {key}"
        if norm in _BOOL_KEYS:
            if not isinstance(value, bool):
                raise ConfigError(f"{where} must be true or false, not {value!r}")
        elif norm == "per-file-ignores":
            if not isinstance(value, dict):
                raise ConfigError(f"{where} must be a table of glob = [codes]")
            value = {g: check_codes(_str_list(path, f"{key}.{g}", v), f"{where}.{g}")
                     for g, v in value.items()}
        else:
            value = _str_list(path, key, value)
            if norm in _CODE_LIST_KEYS:
                value = check_codes(value, where)
        out[norm.replace("-", "_")] = value
    return out


def load_settings(paths: Sequence = (), *, config: Optional[Path] = None,
                  isolated: bool = False) -> Settings:
    """Settings from the nearest config (or ``config``), without CLI overrides."""
    root = project_root(paths)
    if isolated:
        return Settings(root=root)
    path = Path(config) if config else find_config(paths)
    if path is None:
        return Settings(root=root)
    data = _load_toml(path)
    raw = data.get("tool", {}).get(SECTION)
    if raw is None and path.name != "pyproject.toml":
        raw = data  # a standalone paddle-upgrade.toml holds the table at top level
    values = parse_section(path, raw or {})
    s = Settings(config_path=path, root=path.parent)
    s.select = values.get("select")
    s.extend_select = values.get("extend_select", [])
    s.ignore = values.get("ignore", []) + values.get("extend_ignore", [])
    s.exclude = values.get("exclude")
    s.extend_exclude = values.get("extend_exclude", [])
    s.per_file_ignores = values.get("per_file_ignores", {})
    s.unsafe_fixes = values.get("unsafe_fixes", False)
    s.report_unused_noqa = values.get("report_unused_noqa", False)
    return s


def resolve(paths: Sequence = (), *, select: Optional[Sequence[str]] = None,
            extend_select: Sequence[str] = (), ignore: Sequence[str] = (),
            exclude: Sequence[str] = (), extend_exclude: Sequence[str] = (),
            per_file_ignores: Optional[Dict[str, List[str]]] = None,
            unsafe_fixes: Optional[bool] = None, report_unused_noqa: Optional[bool] = None,
            config: Optional[Path] = None, isolated: bool = False) -> Settings:
    """The effective settings: the config file, then CLI overrides (``None``/empty =
    not given on the command line). Raises :class:`ConfigError`."""
    s = load_settings(paths, config=config, isolated=isolated)
    if select is not None:
        s.select = check_codes(select, "--select")
        s.extend_select = []
    s.extend_select = s.extend_select + check_codes(extend_select, "--extend-select")
    s.ignore = s.ignore + check_codes(ignore, "--ignore")
    s.extend_exclude = s.extend_exclude + list(exclude) + list(extend_exclude)
    if per_file_ignores:
        merged = dict(s.per_file_ignores)
        for g, codes in per_file_ignores.items():
            merged[g] = merged.get(g, []) + check_codes(codes, "--per-file-ignores")
        s.per_file_ignores = merged
    if unsafe_fixes is not None:
        s.unsafe_fixes = unsafe_fixes
    if report_unused_noqa is not None:
        s.report_unused_noqa = report_unused_noqa
    return s


def split_codes(value: Optional[str]) -> Optional[List[str]]:
    """``"PU101, PU2"`` -> ``["PU101", "PU2"]`` for comma-separated CLI values."""
    if value is None:
        return None
    return [c for c in re.split(r"[,\s]+", value) if c]
