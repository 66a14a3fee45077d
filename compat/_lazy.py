"""Lazy module attributes: names a compat module does not define by hand are generated
from the rule database on first access (PEP 562 module ``__getattr__``) and cached in
the module, so a later access costs nothing.
"""
from __future__ import annotations

import importlib
import sys
import types

from compat import _runtime

#: Paddle 1.8.5 ``paddle.fluid`` modules (so ``fluid.layers.detection`` and
#: ``import paddle.fluid.layers.rnn`` resolve even without a hand-written file).
LEGACY_MODULES = frozenset("""
paddle.fluid paddle.fluid.layers paddle.fluid.layers.nn paddle.fluid.layers.tensor
paddle.fluid.layers.loss paddle.fluid.layers.ops paddle.fluid.layers.control_flow
paddle.fluid.layers.learning_rate_scheduler paddle.fluid.layers.io paddle.fluid.layers.detection
paddle.fluid.layers.metric_op paddle.fluid.layers.sequence_lod paddle.fluid.layers.math_op_patch
paddle.fluid.layers.utils paddle.fluid.layers.rnn paddle.fluid.layers.device
paddle.fluid.layers.distributions paddle.fluid.layers.collective
paddle.fluid.dygraph paddle.fluid.dygraph.nn paddle.fluid.dygraph.base paddle.fluid.dygraph.jit
paddle.fluid.dygraph.parallel paddle.fluid.dygraph.learning_rate_scheduler
paddle.fluid.dygraph.checkpoint paddle.fluid.dygraph.layers paddle.fluid.dygraph.container
paddle.fluid.dygraph.tracer paddle.fluid.dygraph.backward_strategy paddle.fluid.dygraph.io
paddle.fluid.dygraph.static_runner paddle.fluid.dygraph.dygraph_to_static
paddle.fluid.optimizer paddle.fluid.initializer paddle.fluid.regularizer paddle.fluid.param_attr
paddle.fluid.io paddle.fluid.core paddle.fluid.framework paddle.fluid.executor
paddle.fluid.unique_name paddle.fluid.clip paddle.fluid.metrics paddle.fluid.compiler
paddle.fluid.data_feeder paddle.fluid.reader paddle.fluid.backward paddle.fluid.nets
paddle.fluid.average paddle.fluid.evaluator paddle.fluid.profiler paddle.fluid.input
paddle.fluid.data paddle.fluid.lod_tensor paddle.fluid.dataset paddle.fluid.transpiler
paddle.fluid.parallel_executor paddle.fluid.install_check paddle.fluid.dygraph_utils
paddle.fluid.contrib paddle.fluid.contrib.mixed_precision
paddle.fluid.contrib.mixed_precision.decorator paddle.fluid.contrib.mixed_precision.fp16_lists
paddle.fluid.contrib.mixed_precision.fp16_utils
paddle.fluid.incubate paddle.fluid.incubate.fleet paddle.fluid.incubate.fleet.base
paddle.fluid.incubate.fleet.base.role_maker paddle.fluid.incubate.fleet.base.fleet_base
paddle.fluid.incubate.fleet.collective paddle.fluid.incubate.fleet.utils
""".split())


def legacy_name(compat_name: str) -> str:
    """``compat.fluid.layers`` -> ``paddle.fluid.layers``."""
    return "paddle" + compat_name[len("compat"):]


def compat_name(legacy: str) -> str:
    return "compat" + legacy[len("paddle"):]


def is_legacy_module(legacy: str) -> bool:
    if legacy in LEGACY_MODULES:
        return True
    try:
        return legacy in _runtime.book().modules
    except Exception:  # pragma: no cover
        return False


def lookup(modname: str, name: str):
    """The object ``paddle.fluid.<...>.<name>`` for the compat module *modname*."""
    legacy = legacy_name(modname) + "." + name
    if legacy in _runtime.registry:
        return _runtime.registry[legacy]
    e = _runtime.entry(legacy)
    if e is not None and e.kind != "module":
        from compat import _wrap
        return _wrap.build(e)
    if is_legacy_module(legacy) or e is not None:
        return importlib.import_module(modname + "." + name)
    raise AttributeError("module %r has no attribute %r (compat: %s is not in the rule "
                         "database [PU001])" % (legacy_name(modname), name, legacy))


def attach(globs: dict) -> None:
    """Give the module whose globals are *globs* a rule-driven ``__getattr__``."""
    modname = globs["__name__"]

    def __getattr__(name):
        if name.startswith("__") and name.endswith("__"):
            raise AttributeError(name)
        obj = lookup(modname, name)
        globs[name] = obj
        return obj

    def __dir__():
        names = set(globs)
        prefix = legacy_name(modname) + "."
        book = _runtime.book()
        for n in list(book.entries) + list(book.by_alias):
            if n.startswith(prefix) and "." not in n[len(prefix):]:
                names.add(n[len(prefix):])
        return sorted(names)

    globs["__getattr__"] = __getattr__
    globs["__dir__"] = __dir__


def synthetic_module(modname: str) -> types.ModuleType:
    """A module with no hand-written file: everything comes from the rule database."""
    mod = types.ModuleType(modname, "Paddle 1.x %s (compat, generated from the rule "
                                    "database)" % legacy_name(modname))
    mod.__path__ = []  # a package: 1.x submodules may follow
    mod.__package__ = modname
    attach(mod.__dict__)
    sys.modules[modname] = mod
    return mod
