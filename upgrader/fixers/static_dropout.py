"""PU103 static-dropout: ``fluid.layers.dropout`` keeps 1.8's train/eval behaviour.

What it does
    In a module that builds static graphs only, rewrites
    ``fluid.layers.dropout(x, p, is_test, seed, name, dropout_implementation)`` to
    ``paddle.nn.functional.dropout(x, p=..., training=not is_test,
    mode='downscale_in_infer')`` as its rule says. Anywhere else the call becomes
    ``_fluid_dropout(...)`` with the same arguments, a function fix adds to the module. A
    module is static-only when it uses static-graph API (``fluid.Program``,
    ``layers.fc``/``layers.data``, ``Executor``, ... or, once upgraded, ``paddle.static.*``
    / ``paddle.enable_static``) and nothing of dynamic mode: no ``dygraph.guard``, no
    ``enable_dygraph``, no ``to_variable``, no ``in_dygraph_mode`` branch, no subclass of
    ``dygraph.Layer`` (or of a ``paddle.nn`` layer), no class with a ``forward`` method,
    no dygraph layer class (``fluid.dygraph.Linear`` ...), no dynamic-to-static API
    (``declarative``, ``ProgramTranslator``, ``paddle.jit``), in either spelling.

Why is this bad?
    In a static graph 1.8.5's dropout is exactly today's ``F.dropout`` with
    ``training=not is_test`` and ``mode='downscale_in_infer'`` (checked on both engines:
    train ``x * mask``, infer ``x * (1 - p)``; ``upscale_in_train`` keeps its name). In
    dynamic mode 1.8.5 ignored ``is_test`` and followed the global train/eval mode, which
    ``Layer.train()`` / ``Layer.eval()`` on any layer set (a new ``dygraph.guard`` starts
    in train mode); ``F.dropout`` follows only ``training``. Paddle 3 still keeps that
    global mode in the tracer, and ``Layer.train()/eval()`` still set it, so
    ``_fluid_dropout`` reads it in dynamic mode and ``is_test`` in a static program (a
    dynamic-to-static forward included), as 1.8.5 did (rule example, both modes).

Example
    In a module with ``main = fluid.Program()`` and no dygraph code,
    ``fluid.layers.dropout(h, dropout_prob=0.5, is_test=False)`` →
    ``paddle.nn.functional.dropout(h, p=0.5, training=not (False), mode='downscale_in_infer')``;
    in a ``forward`` of a ``dygraph.Layer``,
    ``fluid.layers.dropout(h, 0.5, is_test=not self.training)`` →
    ``_fluid_dropout(h, 0.5, is_test=not self.training)``.

Fix safety
    Safe. A ``seed`` other than ``None`` keeps the plain rule, which reports it (today's
    dropout has no per-call seed). The decision is per file: a library module of static
    helpers called from dynamic-mode code in another file looks static-only here, and
    gets the plain rewrite, whose ``training=not is_test`` is what the caller passed.
    A test program made with ``clone(for_test=True)`` switched 1.8's dropout to
    inference; Paddle 3's PIR programs have no such clone, which is reported on its own
    (PU208): the evaluation graph built instead must pass ``is_test=True`` /
    ``training=False``.
"""
from __future__ import annotations

import re

import libcst as cst

from upgrader.names import FastVisitor, dotted_of

CODE = "PU103"
STRUCTURAL = ("static-dropout",)

# today's names that only dynamic-mode code uses (and what the dygraph rules produce)
_DYNAMIC = {"paddle.disable_static", "paddle.to_tensor", "paddle.in_dynamic_mode",
            "paddle.no_grad", "paddle.grad", "paddle.DataParallel", "paddle.nn.Layer",
            "paddle.distributed.init_parallel_env", "paddle.save", "paddle.load",
            "paddle.fluid.dygraph.guard", "paddle.fluid.dygraph.base.guard"}


NAME = "_fluid_dropout"
WHAT = "a function fix adds to the module: 1.8's dropout, which followed the global train/eval mode in dynamic mode"
HELPER_OF = {"paddle.fluid.layers.dropout": "paddle.nn.functional.dropout in static-only modules, "
                                            f"else {NAME} ({WHAT})"}
SOURCE = '''def _fluid_dropout(x, dropout_prob, is_test=False, seed=None, name=None,
                   dropout_implementation='downgrade_in_infer'):
    """Paddle 1.8's fluid.layers.dropout: in dynamic mode it ignored is_test and followed
    the global train/eval mode, which Layer.train() / Layer.eval() on any layer set (Paddle
    3 keeps that mode in the tracer) and no_grad() turned off; in a static program it
    followed is_test. 1.8's default 'downgrade_in_infer' (train: x * mask, infer:
    x * (1 - p)) is today's 'downscale_in_infer'."""
    import paddle
    if paddle.in_dynamic_mode():
        training = (paddle.base.framework._dygraph_tracer()._train_mode
                    and paddle.is_grad_enabled())
    else:
        training = not is_test
    mode = dropout_implementation
    if mode == 'downgrade_in_infer':
        mode = 'downscale_in_infer'
    return paddle.nn.functional.dropout(x, p=dropout_prob, training=training, mode=mode)
'''


def rewrite_call(up, original: cst.Call, updated: cst.Call, entry):
    """Static-only modules: the plain rewrite (exact there). Elsewhere ``_fluid_dropout``,
    unless a seed is given (today's dropout has none: the plain rule reports it)."""
    from upgrader.args import Manual, bind
    from upgrader.fixers import call_added_function
    if static_only(up):
        return up.apply_entry(original, updated, entry)
    bound = bind(entry, updated)
    seed = None if isinstance(bound, Manual) else bound.values.get("seed")
    if isinstance(bound, Manual) or (seed is not None and not (
            isinstance(seed.value, cst.Name) and seed.value.value == "None")):
        return up.apply_entry(original, updated, entry)
    return call_added_function(up, original, updated, entry, NAME, SOURCE, WHAT)


def finish_module(up, module: cst.Module) -> cst.Module:
    """Add the function the rewrites call after the module's docstring and imports."""
    from upgrader.fixers import add_used_helpers
    return add_used_helpers(up, module, {NAME: SOURCE})


# dynamic-to-static code in either spelling (batch_norm_is_test reads it too)
_TO_STATIC_SOURCE = re.compile(r"declarative|to_static|ProgramTranslator|\bjit\b")


def static_only(up) -> bool:
    """The module builds static graphs and has no dynamic-mode code (cached per run)."""
    static, dynamic = module_modes(up)
    return static and not dynamic


def dygraph_only(up) -> bool:
    """The module has dynamic-mode code and builds no static graph (cached per run)."""
    static, dynamic = module_modes(up)
    return dynamic and not static


def module_modes(up):
    """(static-graph evidence, dynamic-mode evidence) of the module, cached per run."""
    cached = getattr(up, "_module_modes", None)
    if cached is None:
        cached = up._module_modes = _survey(up)
    return cached


def _dynamic_names(book) -> frozenset:
    """Targets of the dygraph-mode entries and of the ``fluid.dygraph`` layer classes."""
    got = _CACHE.get(book.digest)
    if got is None:
        got = _CACHE[book.digest] = frozenset(_DYNAMIC) | frozenset(
            e.target for e in book if e.target and (
                e.mode == "dygraph" or (e.kind == "class" and e.name.startswith("paddle.fluid.dygraph.")
                                        and e.target.startswith("paddle.nn."))))
    return got


_CACHE: dict = {}
# dynamic-to-static code (1.8's declarative / ProgramTranslator / TracedLayer, 3.x's paddle.jit)
# is dynamic-mode code: its dropout followed the tracer's mode too
_TO_STATIC = (".jit.", "declarative", "ProgramTranslator", "TracedLayer")


class _Decided(Exception):
    """Both kinds of evidence are found: the rest of the module cannot change the answer."""


#: False: the survey walks the whole module even once the answer is known (the reference
#: behaviour, tests/test_module_scans.py)
_STOP_WHEN_DECIDED = True


#: `<program>().random_seed` seeded 1.8's dygraph as well as static graphs (dygraph/ptb_lm,
#: transformer, ... set both programs' seeds in their guard), and fix renames the startup
#: program's to paddle.static.default_startup_program() in dygraph code: not static evidence
_SEEDED_PROGRAMS = frozenset(
    f"paddle.{ns}.default_{kind}_program"
    for ns in ("fluid", "fluid.framework", "static") for kind in ("main", "startup"))


def _is_seed_of_default_program(node, resolve) -> bool:
    return (node.attr.value == "random_seed" and isinstance(node.value, cst.Call)
            and not node.value.args and resolve(node.value.func) in _SEEDED_PROGRAMS)


#: control flow that runs in both modes (a Python loop / branch in dygraph): no evidence
#: of either, although it lives in paddle.static.nn
_BOTH_MODES = frozenset({"paddle.static.nn.cond", "paddle.static.nn.while_loop",
                         "paddle.static.nn.case", "paddle.static.nn.switch_case"})


def _survey(up):
    """(static-graph evidence, dynamic-mode evidence), in legacy and in today's spelling,
    so that a second `fix` of the output decides the same way. The walk stops once both
    are found (most legacy modules mix the two modes)."""
    found = {"static": False, "dynamic": False}

    def mark(kind):
        found[kind] = True
        if found["static"] and found["dynamic"] and _STOP_WHEN_DECIDED:
            raise _Decided

    imports = up.imports
    dynamic_names = _dynamic_names(up.rules)

    def resolve(node):
        d = dotted_of(node)
        if d is None:
            return None
        head, _, rest = d.partition(".")
        base = imports.resolve_name(head)
        if base is None:
            return None
        return f"{base}.{rest}" if rest else base

    def classify(dotted):
        if not dotted or dotted in _BOTH_MODES:
            return
        e = up.entry_for(dotted)
        if e is not None and e.target in _BOTH_MODES:
            return
        if e is not None:
            if e.mode == "dygraph" or (e.mode != "static" and e.target in dynamic_names) or (
                    e.target.startswith("paddle.jit") or any(k in e.name for k in _TO_STATIC)):
                mark("dynamic")
            elif e.safety != "manual" and e.target and up.can_apply(e) and (
                    e.mode == "static" or e.target.startswith("paddle.static")):
                mark("static")
            return
        if dotted in dynamic_names or dotted.startswith("paddle.jit."):
            mark("dynamic")  # dynamic mode, or dynamic-to-static code
        elif dotted == "paddle.enable_static" or (
                dotted.startswith("paddle.static.") and dotted != "paddle.static.InputSpec"):
            mark("static")

    class V(FastVisitor):
        def visit_Import(self, node):
            return False

        def visit_ImportFrom(self, node):
            return False

        def visit_ClassDef(self, node):
            for base in node.bases:
                d = resolve(base.value)
                if d is not None and (d.startswith("paddle.fluid.dygraph")
                                      or d.startswith("paddle.nn.")):
                    mark("dynamic")
            for stmt in node.body.body if isinstance(node.body, cst.IndentedBlock) else ():
                if isinstance(stmt, cst.FunctionDef) and stmt.name.value == "forward":
                    mark("dynamic")

        def visit_Attribute(self, node):
            if _is_seed_of_default_program(node, resolve):
                return False  # the seeding idiom of both modes: no evidence either way
            if dotted_of(node) is None:
                return True  # `fluid.default_main_program().global_block()`: look inside
            classify(resolve(node))
            return False

        def visit_Name(self, node):
            classify(resolve(node))

    try:
        up.module.visit(V())
    except _Decided:
        pass
    return found["static"], found["dynamic"]
