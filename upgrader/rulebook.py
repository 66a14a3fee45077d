"""Load and validate the rule database (``rules/*.toml``).

The rule files are data shipped inside the wheel at ``upgrader/rules``; in a source
checkout they live in ``rules/`` at the project root. Every consumer (rewriter, lint,
``explain``, docs, compat, proof harness) goes through :func:`load`.
"""
from __future__ import annotations

import ast
import hashlib
import json
import os
import pickle
import sys
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any, Dict, List, Optional, Tuple

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on 3.8-3.10 only
    try:
        import tomli as tomllib  # type: ignore
    except ImportError:  # pragma: no cover
        tomllib = None  # type: ignore

MISSING = object()  # a parameter without a default

KINDS = {"function", "class", "constant", "module"}
SAFETIES = {"safe", "unsafe", "manual"}
MODES = {"any", "static", "dygraph"}
ARG_KEYS = {"rename", "drop", "drop_if_default", "manual_if_set", "transform", "values",
            "act", "wrap", "unless", "default", "wrap_if_default", "manual_values",
            "unsafe_if_set", "positional_only", "unsafe_below", "unsafe_above", "call_arg",
            "manual_if_unset", "wrap_also_for", "transform_when"}
ENTRY_KEYS = {"aliases", "kind", "signature", "target", "safety", "mode", "code", "note",
              "args", "extra", "wrap", "rename_only", "structural", "example",
              "doc_example", "numeric_tolerance", "why", "returns", "decorator",
              "target_static_only", "index_as_slice"}


class RuleError(ValueError):
    """An invalid rule entry; the message names the file and the entry."""


@dataclass(frozen=True)
class Param:
    name: str
    default: Any = MISSING  # source text of the default, or MISSING
    kind: str = "positional"  # positional | var_positional | keyword_only | var_keyword

    @property
    def has_default(self) -> bool:
        return self.default is not MISSING


@dataclass
class ArgSpec:
    rename: Optional[str] = None
    drop: bool = False
    drop_if_default: bool = False
    manual_if_set: Optional[str] = None
    transform: Optional[str] = None
    values: Optional[Dict[str, str]] = None
    act: bool = False
    wrap: Optional[str] = None
    unless: Optional[str] = None
    default: Optional[str] = None
    wrap_if_default: Optional[str] = None
    # wrap_if_default also applies to these literal values and to any non-literal value
    wrap_also_for: Optional[List[str]] = None
    manual_values: Optional[Dict[str, str]] = None
    unsafe_if_set: Optional[str] = None
    positional_only: Optional[str] = None
    unsafe_below: Optional[Dict[str, Any]] = None  # {bound, why}
    unsafe_above: Optional[Dict[str, Any]] = None  # {bound, why}
    call_arg: Optional[str] = None  # keyword of the call the entry wrap makes (layer(x, kw=...))
    manual_if_unset: Optional[str] = None  # why the call is manual without this argument
    # the transform applies only when this other legacy argument is passed with a value
    # other than its legacy default (fc's input flattened for num_flatten_dims != 1)
    transform_when: Optional[str] = None


@dataclass
class Entry:
    name: str
    file: str
    kind: str = "function"
    signature: Optional[str] = None
    params: Optional[List[Param]] = None
    target: str = ""
    safety: str = "safe"
    mode: str = "any"
    code: str = "PU101"
    note: str = ""
    why: str = ""
    aliases: List[str] = field(default_factory=list)
    args: Dict[str, ArgSpec] = field(default_factory=dict)
    extra: Dict[str, str] = field(default_factory=dict)
    wrap: Optional[str] = None
    rename_only: bool = False
    structural: Optional[str] = None  # a fixer's name; its module's DELETES says if the call goes
    example: Optional[Dict[str, Any]] = None
    doc_example: Optional[Dict[str, str]] = None
    numeric_tolerance: Optional[Dict[str, Any]] = None
    returns: Optional[str] = None
    decorator: Optional[str] = None  # replacement when used as a bare decorator
    # the target raises in dynamic mode (static graphs only) where the legacy call also ran
    # in dygraph mode: such a call inside a dygraph.guard() block is manual
    target_static_only: bool = False
    # an integer index of the result, <call>[i], becomes [i:i+1] (1.8 kept shape [1])
    index_as_slice: bool = False

    @property
    def short(self) -> str:
        """``fluid.layers.fc`` for ``paddle.fluid.layers.fc``."""
        return self.name[len("paddle."):] if self.name.startswith("paddle.fluid") else self.name

    @property
    def automatic(self) -> bool:
        return self.safety in ("safe", "unsafe") and bool(self.target)

    def param(self, name: str) -> Optional[Param]:
        for p in self.params or ():
            if p.name == name:
                return p
        return None


def parse_signature(sig: str) -> List[Param]:
    """Parse ``"(a, b=1, *args, c=None, **kw)"`` into Params (defaults kept as source)."""
    tree = ast.parse(f"def _f{sig}: pass")
    fn = tree.body[0]
    assert isinstance(fn, ast.FunctionDef)
    a = fn.args
    out: List[Param] = []
    positional = list(getattr(a, "posonlyargs", [])) + list(a.args)
    defaults = [MISSING] * (len(positional) - len(a.defaults)) + [
        ast.unparse(d) for d in a.defaults]
    for arg, d in zip(positional, defaults):
        out.append(Param(arg.arg, d))
    if a.vararg:
        out.append(Param(a.vararg.arg, MISSING, "var_positional"))
    for arg, d in zip(a.kwonlyargs, a.kw_defaults):
        out.append(Param(arg.arg, MISSING if d is None else ast.unparse(d), "keyword_only"))
    if a.kwarg:
        out.append(Param(a.kwarg.arg, MISSING, "var_keyword"))
    return out


def rules_dir() -> Path:
    """``$PADDLE_UPGRADE_RULES_DIR`` if set (tests swap in a modified rule book), else the
    rules shipped in the wheel, else ``rules/`` of a source checkout."""
    import os
    env = os.environ.get("PADDLE_UPGRADE_RULES_DIR")
    if env:
        return Path(env)
    here = Path(__file__).resolve().parent
    installed = here / "rules"
    if installed.is_dir() and any(installed.glob("*.toml")):
        return installed
    return here.parent / "rules"


def _err(file: str, name: str, msg: str) -> RuleError:
    return RuleError(f"{file}: [{name}]: {msg}")


def _arg_spec(file: str, name: str, pname: str, raw: Any) -> ArgSpec:
    if isinstance(raw, str):
        return ArgSpec(rename=raw)
    if not isinstance(raw, dict):
        raise _err(file, name, f"args.{pname} must be a string or a table")
    unknown = set(raw) - ARG_KEYS
    if unknown:
        raise _err(file, name, f"args.{pname}: unknown key(s) {sorted(unknown)}")
    spec = ArgSpec(**raw)
    for key in ("unsafe_below", "unsafe_above"):
        ub = getattr(spec, key)
        if ub is not None and (not isinstance(ub, dict) or set(ub) != {"bound", "why"}
                               or not isinstance(ub["bound"], (int, float))):
            raise _err(file, name, f"args.{pname}.{key} must be {{ bound = <number>, why = \"...\" }}")
    if spec.wrap_also_for is not None and (
            spec.wrap_if_default is None or not isinstance(spec.wrap_also_for, list)
            or not all(isinstance(v, str) for v in spec.wrap_also_for)):
        raise _err(file, name, f"args.{pname}.wrap_also_for must be a list of literal source "
                   "texts, next to wrap_if_default")
    if spec.transform_when is not None and (spec.transform is None or not isinstance(spec.transform_when, str)):
        raise _err(file, name, f"args.{pname}.transform_when must name a legacy argument, next to transform")
    for key in ("wrap", "wrap_if_default"):
        t = getattr(spec, key)
        if t is not None and "{call}" not in t:
            raise _err(file, name, f"args.{pname}.{key} must contain {{call}}")
    return spec


def _entry(file: str, name: str, raw: Dict[str, Any]) -> Entry:
    if not name.startswith("paddle."):
        raise _err(file, name, "entry key must be a dotted name starting with 'paddle.'")
    unknown = set(raw) - ENTRY_KEYS
    if unknown:
        raise _err(file, name, f"unknown key(s) {sorted(unknown)}")
    e = Entry(name=name, file=file)
    for key in ("kind", "signature", "target", "safety", "mode", "note", "why", "wrap",
                "rename_only", "structural", "example", "doc_example",
                "numeric_tolerance", "returns", "decorator", "target_static_only", "index_as_slice"):
        if key in raw:
            setattr(e, key, raw[key])
    e.aliases = list(raw.get("aliases", []))
    e.extra = dict(raw.get("extra", {}))
    if e.kind not in KINDS:
        raise _err(file, name, f"kind must be one of {sorted(KINDS)}, not {e.kind!r}")
    if e.safety not in SAFETIES:
        raise _err(file, name, f"safety must be one of {sorted(SAFETIES)}, not {e.safety!r}")
    if e.mode not in MODES:
        raise _err(file, name, f"mode must be one of {sorted(MODES)}, not {e.mode!r}")
    e.code = raw.get("code", "PU102" if e.safety == "manual" else "PU101")
    if not (isinstance(e.code, str) and len(e.code) == 5 and e.code.startswith("PU")
            and e.code[2:].isdigit()):
        raise _err(file, name, f"code must look like PU123, not {e.code!r}")
    if e.safety != "manual" and not e.target:
        raise _err(file, name, "an automatic (safe/unsafe) entry needs a target")
    if e.safety == "manual" and not e.note:
        raise _err(file, name, "a manual entry needs a note saying how to migrate")
    if e.signature is not None:
        try:
            e.params = parse_signature(e.signature)
        except SyntaxError as exc:
            raise _err(file, name, f"bad signature {e.signature!r}: {exc.msg}") from None
    args = raw.get("args", {})
    if not isinstance(args, dict):
        raise _err(file, name, "args must be a table")
    for pname, spec in args.items():
        if e.params is not None and e.param(pname) is None:
            raise _err(file, name, f"args.{pname}: not a parameter of the legacy signature {e.signature}")
        e.args[pname] = _arg_spec(file, name, pname, spec)
    if e.args and e.params is None:
        raise _err(file, name, "args need a legacy signature")
    if any(s.call_arg for s in e.args.values()) and not (
            e.wrap and e.wrap.startswith("{call}(") and e.wrap.endswith(")")):
        raise _err(file, name, "call_arg needs an entry wrap that calls the result: "
                               "wrap = \"{call}(...)\"")
    return e


@dataclass
class RuleBook:
    entries: Dict[str, Entry]
    by_alias: Dict[str, Entry]
    digest: str

    def lookup(self, dotted: str) -> Optional[Entry]:
        return self.entries.get(dotted) or self.by_alias.get(dotted)

    def __iter__(self):
        return iter(self.entries.values())

    def __len__(self) -> int:
        return len(self.entries)

    def search(self, query: str) -> List[Entry]:
        q = query.lower()
        return [e for e in self.entries.values()
                if q in e.name.lower() or q in e.target.lower() or q == e.code.lower()
                or any(q in a.lower() for a in e.aliases) or q in e.note.lower()]

    @property
    def modules(self) -> set:
        """Every dotted prefix of a legacy name: these are modules, not findings."""
        out = set()
        for n in list(self.entries) + list(self.by_alias):
            parts = n.split(".")
            for i in range(2, len(parts)):
                out.add(".".join(parts[:i]))
        return out


class _Pickler(pickle.Pickler):
    def persistent_id(self, obj):
        return "MISSING" if obj is MISSING else None


class _Unpickler(pickle.Unpickler):
    def persistent_load(self, pid):
        if pid == "MISSING":
            return MISSING
        raise pickle.UnpicklingError(f"unknown persistent id {pid!r}")


#: PADDLE_UPGRADE_NO_RULE_CACHE=1: parse the TOML files every time (the reference)
_NO_RULE_CACHE = os.environ.get("PADDLE_UPGRADE_NO_RULE_CACHE") == "1"


def _cache_file(paths: List[Path], blobs: List[bytes]) -> Optional[Path]:
    """Where the parsed rule book of these exact files is kept: ``__pycache__`` beside
    them, named by a hash of every file's name and bytes, this module's source and the
    Python version (a changed rule, loader or interpreter is a different file)."""
    if _NO_RULE_CACHE or not paths:
        return None
    h = hashlib.sha256(Path(__file__).read_bytes())
    h.update(sys.version.encode())
    for path, data in zip(paths, blobs):
        h.update(b"\0" + path.name.encode() + b"\0" + data)
    return paths[0].parent / "__pycache__" / f"rulebook-{h.hexdigest()[:24]}.pickle"


def load_files(paths: List[Path]) -> RuleBook:
    """The rule book of these files. Parsing and checking ~800 TOML entries takes a fifth
    of a second, a third of a short run's start-up; the result is kept as a pickle beside
    the files (like Python's own ``__pycache__``) and read back when nothing changed.
    A cache that cannot be written or read is ignored."""
    paths = sorted(paths)
    blobs = [p.read_bytes() for p in paths]
    cache = _cache_file(paths, blobs)
    if cache is not None:
        try:
            with open(cache, "rb") as f:
                book = _Unpickler(f).load()
            if isinstance(book, RuleBook):
                return book
        except Exception:
            pass
    book = _load_files(paths, blobs)
    if cache is not None:
        try:
            cache.parent.mkdir(exist_ok=True)
            tmp = cache.with_name(f"{cache.name}.{os.getpid()}.tmp")
            with open(tmp, "wb") as f:
                _Pickler(f, protocol=pickle.HIGHEST_PROTOCOL).dump(book)
            os.replace(tmp, cache)
        except Exception:
            pass
    return book


def _load_files(paths: List[Path], blobs: List[bytes]) -> RuleBook:
    if tomllib is None:  # pragma: no cover
        raise RuleError("reading the rule database needs Python 3.11+ or the 'tomli' package")
    entries: Dict[str, Entry] = {}
    by_alias: Dict[str, Entry] = {}
    h = hashlib.sha256()
    for path, data in zip(paths, blobs):
        h.update(path.name.encode() + b"\0" + data)
        try:
            doc = tomllib.loads(data.decode("utf-8"))
        except Exception as exc:
            raise RuleError(f"{path.name}: not valid TOML: {exc}") from None
        for name, raw in doc.items():
            if not isinstance(raw, dict):
                raise _err(path.name, name, "entry must be a table")
            if name in entries:
                raise _err(path.name, name, f"defined twice (also in {entries[name].file})")
            e = _entry(path.name, name, raw)
            entries[name] = e
    for e in entries.values():
        for a in e.aliases:
            if a in entries or a in by_alias:
                raise _err(e.file, e.name, f"alias {a} is already an entry or alias")
            by_alias[a] = e
    return RuleBook(entries, by_alias, h.hexdigest()[:16])


@lru_cache(maxsize=None)
def load(directory: Optional[str] = None) -> RuleBook:
    d = Path(directory) if directory else rules_dir()
    return load_files(list(d.glob("*.toml")))


@lru_cache(maxsize=1)
def target_api() -> Dict[str, Any]:
    """The snapshot of the target Paddle API (``rules/paddle_api.json``), or {}."""
    p = rules_dir() / "paddle_api.json"
    if not p.exists():
        return {}
    return json.loads(p.read_text(encoding="utf-8"))


def target_params(target: str) -> Optional[List[Tuple[str, str]]]:
    """``[(name, kind), ...]`` of a target callable from the snapshot, if known."""
    info = target_api().get("apis", {}).get(target)
    if not info or info.get("params") is None:
        return None
    return [(p["name"], p["kind"]) for p in info["params"]]


# ``act='<name>'`` in 1.8 appends the activation op with its 1.8 default attributes; the
# modern call that reproduces it. Shared by the rewriter (args.py) and compat.
ACT_TARGETS: Dict[str, str] = {
    "relu": "paddle.nn.functional.relu({call})",
    "sigmoid": "paddle.nn.functional.sigmoid({call})",
    "tanh": "paddle.tanh({call})",
    "softmax": "paddle.nn.functional.softmax({call})",
    "relu6": "paddle.nn.functional.relu6({call})",
    "leaky_relu": "paddle.nn.functional.leaky_relu({call}, negative_slope=0.02)",
    "elu": "paddle.nn.functional.elu({call})",
    "gelu": "paddle.nn.functional.gelu({call})",
    "softplus": "paddle.nn.functional.softplus({call})",
    "softsign": "paddle.nn.functional.softsign({call})",
    "swish": "paddle.nn.functional.swish({call})",
    "hard_sigmoid": "paddle.nn.functional.hardsigmoid({call}, slope=0.2, offset=0.5)",
    "hard_swish": "paddle.nn.functional.hardswish({call})",
    "logsigmoid": "paddle.nn.functional.log_sigmoid({call})",
    "exp": "paddle.exp({call})",
    "square": "paddle.square({call})",
    "sqrt": "paddle.sqrt({call})",
    "abs": "paddle.abs({call})",
    "log": "paddle.log({call})",
}
