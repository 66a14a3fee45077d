"""Write ``rules/paddle_api.json``: a snapshot of the target Paddle's public API.

Run with the target Paddle installed (``.venv/bin/python tools/snapshot_api.py``). Rule
validation (``tests/test_rule_targets.py``) reads the snapshot, so checking that a rule's
target exists and accepts the keywords it emits needs no Paddle.

Output (deterministic: sorted keys, no memory addresses)::

    {"paddle_version": "3.3.1",
     "apis": {"paddle.sum": {"kind": "function", "in_all": true,
                             "params": [{"name": "x", "kind": "POSITIONAL_OR_KEYWORD",
                                         "default": null}, ...],
                             "deprecated": false}, ...}}

What is walked
    The public namespaces in :data:`NAMESPACES`. For each module, the names in its
    ``__all__`` plus its other non-underscore attributes that Paddle itself defines (the
    object's ``__module__`` starts with ``paddle``, or it is a submodule of that module);
    names it merely imports from the standard library or typing are left out. Paddle's
    ``__all__`` lists are incomplete (``paddle.set_device``, ``paddle.XPUPlace``,
    ``paddle.is_compiled_with_cuda``, ``paddle.static.Scope`` are documented but not in
    them), so ``in_all`` records whether a name is listed (``true`` as well for every name
    of a module whose ``__all__`` is missing or empty, e.g. ``paddle.reader``,
    ``paddle.nn.clip``, ``paddle.dataset``). Every walked
    module is recorded too (kind ``module``). Modules in :data:`WALK_SUBMODULES` also
    have their direct submodules walked (``paddle.dataset.mnist`` ...). A name is
    recorded under every dotted path it is reachable by (``paddle.add`` and
    ``paddle.tensor``-level aliases are separate keys).

``kind``
    ``module`` (a module object), ``class`` (``inspect.isclass``), ``function`` (any
    other callable: Python functions, builtins, pybind functions, callable instances),
    ``other`` (constants, dtypes, ...).

``params``
    ``inspect.signature`` of the function, which follows ``functools.wraps``'
    ``__wrapped__`` chain (so decorated APIs report the real parameters). For a class
    the parameters of its ``__init__`` (the first, ``self``, dropped); when ``__init__``
    is the inherited ``object.__init__`` or cannot be inspected, ``inspect.signature``
    of the class itself. ``default`` is ``repr`` of the default with memory addresses
    removed, or ``null`` for a parameter without a default. ``params`` is ``null`` when
    no signature can be read (some pybind builtins).

Class members
    For every class, the public members defined in the class body itself (not inherited
    ones, not properties) are recorded as ``<class path>.<member>``: methods (plain,
    ``staticmethod``, ``classmethod``, pybind) with kind ``function`` and ``self``/``cls``
    dropped from their parameters
    (``paddle.nn.BeamSearchDecoder.tile_beam_merge_with_batch``); nested classes and enum
    values (``paddle.static.BuildStrategy.ReduceStrategy.Reduce``), two levels deep.

``deprecated``
    Paddle marks deprecated APIs with ``paddle.utils.deprecated.deprecated``. That
    decorator always rewrites the object's docstring to start with
    ``Warning:\\n    API "<module>.<name>" is deprecated ...`` (for ``level=0`` it returns
    the object itself, for ``level>=1`` a ``functools.wraps`` wrapper whose
    ``__wrapped__`` carries the same docstring). So an object is deprecated when its
    docstring, or the docstring of any object in its ``__wrapped__`` chain, contains
    that marker (regular expression :data:`DEPRECATION_MARK`). Deprecations announced
    only by a ``warnings.warn`` inside the function body are not detected.
"""
from __future__ import annotations

import importlib
import inspect
import json
import re
import sys
import types
import warnings
from pathlib import Path

NAMESPACES = [
    "paddle",
    "paddle.amp",
    "paddle.audio",
    "paddle.autograd",
    "paddle.callbacks",
    "paddle.dataset",
    "paddle.device",
    "paddle.device.cuda",
    "paddle.distributed",
    "paddle.distributed.fleet",
    "paddle.distributed.fleet.utils",
    "paddle.distribution",
    "paddle.fft",
    "paddle.framework",
    "paddle.geometric",
    "paddle.hub",
    "paddle.incubate",
    "paddle.incubate.autograd",
    "paddle.incubate.nn",
    "paddle.incubate.nn.functional",
    "paddle.incubate.optimizer",
    "paddle.inference",
    "paddle.io",
    "paddle.jit",
    "paddle.linalg",
    "paddle.metric",
    "paddle.nn",
    "paddle.nn.clip",
    "paddle.nn.functional",
    "paddle.nn.initializer",
    "paddle.nn.quant",
    "paddle.nn.utils",
    "paddle.onnx",
    "paddle.optimizer",
    "paddle.optimizer.lr",
    "paddle.profiler",
    "paddle.quantization",
    "paddle.reader",
    "paddle.regularizer",
    "paddle.signal",
    "paddle.sparse",
    "paddle.sparse.nn",
    "paddle.static",
    "paddle.static.amp",
    "paddle.static.nn",
    "paddle.sysconfig",
    "paddle.tensor",
    "paddle.text",
    "paddle.text.datasets",
    "paddle.utils",
    "paddle.utils.cpp_extension",
    "paddle.utils.download",
    "paddle.utils.unique_name",
    "paddle.vision",
    "paddle.vision.datasets",
    "paddle.vision.models",
    "paddle.vision.ops",
    "paddle.vision.transforms",
]

WALK_SUBMODULES = {"paddle.dataset"}

DEPRECATION_MARK = re.compile(r'Warning:\s*\n\s*API "[^"]*" is deprecated')
_ADDRESS = re.compile(r" at 0x[0-9a-fA-F]+")

OUT = Path(__file__).resolve().parent.parent / "rules" / "paddle_api.json"


def _is_deprecated(obj) -> bool:
    seen = set()
    while obj is not None and id(obj) not in seen:
        seen.add(id(obj))
        try:
            doc = inspect.getdoc(obj) if not isinstance(obj, type) else obj.__dict__.get("__doc__")
        except Exception:
            doc = None
        doc = doc if isinstance(doc, str) else getattr(obj, "__doc__", None)
        if isinstance(doc, str) and DEPRECATION_MARK.search(doc):
            return True
        obj = getattr(obj, "__wrapped__", None)
    return False


def _kind(obj) -> str:
    if isinstance(obj, types.ModuleType):
        return "module"
    if inspect.isclass(obj):
        return "class"
    if callable(obj):
        return "function"
    return "other"


def _default(value) -> str:
    return _ADDRESS.sub("", repr(value))


def _params(sig: inspect.Signature, drop_first: bool = False):
    out = []
    items = list(sig.parameters.values())
    if drop_first and items and items[0].kind in (
            inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD):
        items = items[1:]
    for p in items:
        out.append({
            "name": p.name,
            "kind": p.kind.name,
            "default": None if p.default is inspect.Parameter.empty else _default(p.default),
        })
    return out


def _signature(obj, kind: str):
    try:
        if kind == "class":
            init = None
            for klass in inspect.getmro(obj):
                if "__init__" in klass.__dict__:
                    init = klass.__dict__["__init__"]
                    break
            if init is not None and init is not object.__init__ and (
                    inspect.isfunction(init) or hasattr(init, "__wrapped__")):
                return _params(inspect.signature(init), drop_first=True)
            return _params(inspect.signature(obj))
        if kind == "function":
            return _params(inspect.signature(obj))
    except (TypeError, ValueError):
        return None
    return None


def _public_names(mod: types.ModuleType):
    """``(name, in_all)`` for the module's ``__all__`` plus the public names Paddle defines."""
    listed = [n for n in (getattr(mod, "__all__", None) or []) if isinstance(n, str)]
    out = {n: True for n in listed}
    for n in dir(mod):
        if n.startswith("_") or n in out:
            continue
        obj = getattr(mod, n, None)
        if isinstance(obj, types.ModuleType):
            if obj.__name__.startswith(mod.__name__ + "."):
                out[n] = not listed
            continue
        owner = getattr(obj, "__module__", None) or ""
        if isinstance(owner, str) and owner.split(".")[0] == "paddle":
            out[n] = not listed
    return sorted(out.items())


def snapshot() -> dict:
    import paddle  # noqa: F401  (imported first: some submodules need it initialised)

    apis = {}

    def record(dotted, obj, in_all=True, depth=0):
        kind = _kind(obj)
        apis[dotted] = {
            "kind": kind,
            "params": _signature(obj, kind) if kind in ("function", "class") else None,
            "deprecated": _is_deprecated(obj) if kind != "module" else False,
            "in_all": in_all,
        }
        if kind != "class" or depth >= 2:
            return
        for mname, raw in sorted(vars(obj).items()):
            if mname.startswith("_") or isinstance(raw, property):
                continue
            member = f"{dotted}.{mname}"
            if isinstance(raw, staticmethod):
                func, drop = raw.__func__, False
            elif isinstance(raw, classmethod):
                func, drop = raw.__func__, True
            elif inspect.isfunction(raw):
                func, drop = raw, True
            elif inspect.isclass(raw) or not callable(raw):
                if inspect.isclass(raw) or type(raw).__module__.split(".")[0] == "paddle" \
                        or isinstance(raw, (int, float, str, bool)):
                    record(member, raw, in_all, depth + 1)  # nested classes, enum values
                continue
            else:  # builtin methods of pybind classes
                apis[member] = {"kind": "function", "params": _signature(raw, "function"),
                                "deprecated": False, "in_all": in_all}
                continue
            try:
                params = _params(inspect.signature(func), drop_first=drop)
            except (TypeError, ValueError):
                params = None
            apis[member] = {"kind": "function", "params": params,
                            "deprecated": _is_deprecated(func), "in_all": in_all}

    todo = list(NAMESPACES)
    done = set()
    while todo:
        modname = todo.pop(0)
        if modname in done:
            continue
        done.add(modname)
        try:
            mod = importlib.import_module(modname)
        except Exception as exc:  # a namespace this Paddle build does not have
            print(f"skip {modname}: {type(exc).__name__}: {exc}", file=sys.stderr)
            continue
        record(modname, mod)
        for name, in_all in _public_names(mod):
            try:
                obj = getattr(mod, name)
            except Exception:
                continue
            dotted = f"{modname}.{name}"
            record(dotted, obj, in_all)
            if (modname in WALK_SUBMODULES and isinstance(obj, types.ModuleType)
                    and obj.__name__.startswith(modname + ".")):
                todo.append(dotted)

    return {"paddle_version": paddle.__version__, "apis": apis}


def dumps(data: dict) -> str:
    """Sorted keys, one API per line (small, diff-friendly, still plain JSON)."""
    lines = ["{", f' "paddle_version": {json.dumps(data["paddle_version"])},', ' "apis": {']
    items = sorted(data["apis"].items())
    for i, (name, info) in enumerate(items):
        sep = "," if i < len(items) - 1 else ""
        lines.append(f"  {json.dumps(name)}: {json.dumps(info, sort_keys=True)}{sep}")
    lines += [" }", "}", ""]
    return "\n".join(lines)


def main() -> int:
    warnings.simplefilter("ignore")
    data = snapshot()
    OUT.write_text(dumps(data), encoding="utf-8")
    print(f"wrote {OUT} ({len(data['apis'])} names, Paddle {data['paddle_version']})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
