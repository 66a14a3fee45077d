"""Import hooks.

- The alias finder (``compat.install()``) maps ``paddle.fluid`` and ``paddle.fluid.*``
  to ``compat.fluid`` and ``compat.fluid.*``: the *same module objects*, so
  ``import paddle.fluid as fluid``, ``from paddle.fluid import layers``,
  ``import paddle.fluid.layers as L`` and ``from paddle.fluid.dygraph.nn import Linear``
  all see the shim.
- The fallback finder (always active once ``compat.fluid`` is imported) supplies
  ``compat.fluid.*`` modules that have no hand-written file: a 1.x module known to the
  rule database becomes a generated module; an internal 1.x module that survives as
  ``paddle.base.*`` (``layer_helper``, ``data_feeder`` helpers ...) is aliased to it.
"""
from __future__ import annotations

import importlib
import importlib.abc
import importlib.machinery
import importlib.util
import sys
import warnings

from compat import LegacyAPIWarning, _lazy


class _ExistingModuleLoader(importlib.abc.Loader):
    """Loads a module that is already (or can be) imported under another name."""

    def __init__(self, make):
        self._make = make
        self._spec = None

    def create_module(self, spec):
        mod = self._make()
        self._spec = getattr(mod, "__spec__", None)
        return mod

    def exec_module(self, module):
        # the import system stamped our spec on the module: keep its own identity
        if self._spec is not None:
            try:
                module.__spec__ = self._spec
            except AttributeError:  # pragma: no cover
                pass


class AliasFinder(importlib.abc.MetaPathFinder):
    """``paddle.fluid[.x]`` -> ``compat.fluid[.x]``."""

    def find_spec(self, fullname, path=None, target=None):
        if fullname != "paddle.fluid" and not fullname.startswith("paddle.fluid."):
            return None
        cname = _lazy.compat_name(fullname)
        try:
            importlib.import_module(cname)
        except ImportError as exc:
            if getattr(exc, "name", None) in (cname, fullname):
                return None
            raise

        def make():
            return sys.modules[cname]
        mod = sys.modules[cname]
        return importlib.util.spec_from_loader(
            fullname, _ExistingModuleLoader(make), is_package=hasattr(mod, "__path__"))


class FallbackFinder(importlib.abc.MetaPathFinder):
    """``compat.fluid.<1.x module without a file>``: generated or ``paddle.base`` alias."""

    def find_spec(self, fullname, path=None, target=None):
        if not fullname.startswith("compat.fluid."):
            return None
        legacy = _lazy.legacy_name(fullname)
        if _lazy.is_legacy_module(legacy):
            return importlib.util.spec_from_loader(
                fullname, _ExistingModuleLoader(lambda: _lazy.synthetic_module(fullname)),
                is_package=True)
        internal = "paddle.base" + fullname[len("compat.fluid"):]
        try:
            found = importlib.util.find_spec(internal)
        except (ImportError, ValueError):
            found = None
        if found is None:
            return None

        def make():
            warnings.warn("%s is a Paddle 1.x internal module [PU001]; compat maps it to %s, "
                          "which is internal to today's Paddle and may change"
                          % (legacy, internal), LegacyAPIWarning, stacklevel=2)
            return importlib.import_module(internal)
        return importlib.util.spec_from_loader(fullname, _ExistingModuleLoader(make),
                                               is_package=found.submodule_search_locations is not None)


_alias = AliasFinder()
_fallback = FallbackFinder()


def install_alias_finder() -> None:
    if _alias not in sys.meta_path:
        sys.meta_path.insert(0, _alias)
    install_fallback_finder()


def uninstall_alias_finder() -> None:
    while _alias in sys.meta_path:
        sys.meta_path.remove(_alias)


def install_fallback_finder() -> None:
    if _fallback not in sys.meta_path:
        sys.meta_path.append(_fallback)
