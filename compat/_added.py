"""Code that ``fix`` adds to upgraded modules (the ``SOURCES`` of upgrader/fixers/*.py),
executed here so that compat runs the very same implementation as upgraded code."""
from __future__ import annotations

import importlib
from typing import Callable, Dict, Tuple

_done: Dict[Tuple[str, str], Callable] = {}


def added(fixer: str, name: str) -> Callable:
    """The function or class that fixer ``upgrader.fixers.<fixer>`` adds under ``name``."""
    key = (fixer, name)
    if key not in _done:
        module = importlib.import_module("upgrader.fixers." + fixer)
        import paddle
        namespace: dict = {"paddle": paddle}  # upgraded modules import paddle
        # code the source builds on (a base class fix adds beside it: the module's
        # DEPENDS, from the fixer ADDED_FROM names, else the same one)
        for dep in getattr(module, "DEPENDS", {}).get(name, ()):
            namespace[dep] = added(getattr(module, "ADDED_FROM", {}).get(dep, fixer), dep)
        sources = getattr(module, "SOURCES", None) or {module.NAME: module.SOURCE}
        exec(compile(sources[name], module.__file__, "exec"), namespace)
        _done[key] = namespace[name]
    return _done[key]
