"""``paddle.incubate.hapi`` of Paddle 1.8.5 on today's Paddle, from the rule database.

Paddle 3.x has no ``paddle.incubate.hapi``. ``install()`` registers the 1.8.5 package and
its submodules (``distributed``, ``vision``, ``vision.transforms``,
``vision.transforms.transforms``) as generated modules: each name is built from its rule
entry (rules/incubate_hapi.toml) by ``compat._wrap.build``, so it keeps the 1.8.5
signature (``DistributedBatchSampler(dataset, batch_size, shuffle=False, drop_last=False)``
maps to ``paddle.io.DistributedBatchSampler`` by keyword) and warns once like every
other legacy name. It makes ``import paddle`` + ``paddle.incubate.hapi.X``,
``from paddle.incubate.hapi.distributed import DistributedBatchSampler`` and
``import paddle.incubate.hapi.vision.transforms as T`` resolve.

Idempotent; it does nothing when the running Paddle still has ``paddle.incubate.hapi``.
"""
from __future__ import annotations

import sys
import types

ROOT = "paddle.incubate.hapi"
SUBMODULES = ("distributed", "vision", "vision.transforms", "vision.transforms.transforms")


def _lookup(modname: str, name: str):
    from compat import _runtime, _wrap
    dotted = modname + "." + name
    e = _runtime.entry(dotted)
    if e is None:
        raise AttributeError("module %r has no attribute %r (compat: %s is not in the rule "
                             "database [PU001])" % (modname, name, dotted))
    if e.kind == "module":
        return sys.modules[dotted] if dotted in sys.modules else _module(dotted)
    return _wrap.build(e)


def _module(modname: str) -> types.ModuleType:
    mod = types.ModuleType(modname, "Paddle 1.8.5 %s (compat, generated from the rule "
                                    "database)" % modname)
    mod.__path__ = []
    mod.__package__ = modname

    def __getattr__(name):
        if name.startswith("__") and name.endswith("__"):
            raise AttributeError(name)
        obj = _lookup(modname, name)
        mod.__dict__[name] = obj
        return obj

    def __dir__():
        from compat import _runtime
        prefix = modname + "."
        book = _runtime.book()
        names = set(mod.__dict__)
        for n in list(book.entries) + list(book.by_alias):
            if n.startswith(prefix) and "." not in n[len(prefix):]:
                names.add(n[len(prefix):])
        return sorted(names)

    mod.__getattr__ = __getattr__
    mod.__dir__ = __dir__
    sys.modules[modname] = mod
    return mod


def installed() -> bool:
    mod = sys.modules.get(ROOT)
    return mod is not None and getattr(mod, "__doc__", "").endswith("(compat, generated from "
                                                                      "the rule database)")


def install() -> None:
    """Register ``paddle.incubate.hapi`` and its submodules (when Paddle lacks them)."""
    import importlib
    import importlib.util
    import paddle.incubate as incubate
    if installed():
        return
    try:
        if importlib.util.find_spec(ROOT) is not None:
            return  # a Paddle that still ships it
    except (ImportError, ValueError):
        pass
    root = _module(ROOT)
    for sub in SUBMODULES:
        _module(ROOT + "." + sub)
    for sub in SUBMODULES:  # parent.child attributes, as an import would set them
        parent, _, child = (ROOT + "." + sub).rpartition(".")
        setattr(sys.modules[parent], child, sys.modules[ROOT + "." + sub])
    incubate.hapi = root  # type: ignore[attr-defined]
    importlib.invalidate_caches()
