"""PU103 static-dropout: ``fluid.layers.dropout`` in a static-graph-only module is a safe rewrite.

What it does
    Rewrites ``fluid.layers.dropout(x, p, is_test, seed, name, dropout_implementation)``
    to ``paddle.nn.functional.dropout(x, p=..., training=not is_test,
    mode='downscale_in_infer')`` as its rule says, and decides the fix safety per module:
    safe when the module builds static graphs only, unsafe (``--unsafe-fixes``) otherwise.
    A module is static-only when it uses static-graph API (``fluid.Program``,
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
    dynamic mode 1.8.5 ignored ``is_test`` and followed the tracer's train/eval mode, which
    ``F.dropout`` does not, so the same rewrite is unsafe there. Marking every dropout
    unsafe left the static programs, where nothing changes, for a manual review.

Example
    In a module with ``main = fluid.Program()`` and no dygraph code,
    ``fluid.layers.dropout(h, dropout_prob=0.5, is_test=False)`` →
    ``paddle.nn.functional.dropout(h, p=0.5, training=not (False), mode='downscale_in_infer')``
    is applied by a plain ``fix``.

Fix safety
    Safe in static-only modules, unsafe elsewhere (the entry's note). Applied with
    ``--unsafe-fixes`` directly in a ``def forward(self, ...)``, the call gets
    ``training=self.training`` whatever ``is_test`` said (1.8.5's dygraph dropout ignored
    it; not in a decorated forward or a module with dynamic-to-static code, whose 1.8
    static graph followed is_test): the layer's own ``train()``/``eval()`` mode, which
    ``model.eval()`` sets on every
    sublayer; 1.8 followed the last ``train()``/``eval()`` call on any layer, so a forward
    run after another layer's mode switch still differs (why it stays unsafe). The decision is per
    file: a library module of static helpers called from dynamic-mode code in another file
    looks static-only here. A test program made with ``clone(for_test=True)`` switched
    1.8's dropout to inference; Paddle 3's PIR programs have no such clone, which is
    reported on its own (PU208): the evaluation graph built instead must pass
    ``is_test=True`` / ``training=False``.
"""
from __future__ import annotations

import copy
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


def rewrite_call(up, original: cst.Call, updated: cst.Call, entry):
    if entry.safety == "unsafe" and static_only(up):
        safe = copy.copy(entry)
        safe.safety = "safe"
        return up.apply_entry(original, updated, safe)
    out = up.apply_entry(original, updated, entry)
    if out is not updated and _in_forward(up):
        out = _follow_layer_mode(out)
    return out


def _in_forward(up) -> bool:
    """Directly in the body of an undecorated ``def forward(self, ...)`` that does not rebind
    self, in a module with no dynamic-to-static code (1.8's ``@declarative`` forward built a
    static graph, whose dropout did follow is_test)."""
    from upgrader.names import local_binding_counts
    fn = up.scope.function()
    if not isinstance(fn, cst.FunctionDef) or fn.name.value != "forward" or fn.decorators \
            or _TO_STATIC_SOURCE.search(up.source):
        return False
    params = fn.params.params
    return bool(params) and params[0].name.value == "self" and \
        local_binding_counts(fn).get("self", 0) == 1


# dynamic-to-static code in either spelling (as act_by_name's layer hook checks it)
_TO_STATIC_SOURCE = re.compile(r"declarative|to_static|ProgramTranslator|\bjit\b")


def _follow_layer_mode(call):
    """``training=self.training`` in the rewritten call: 1.8's dygraph dropout ignored
    ``is_test`` and followed the train/eval mode that ``Layer.train()/eval()`` set."""
    if not (isinstance(call, cst.Call) and dotted_of(call.func) == "paddle.nn.functional.dropout"):
        return call
    value = cst.parse_expression("self.training")
    args = list(call.args)
    for i, a in enumerate(args):
        if a.keyword is not None and a.keyword.value == "training":
            args[i] = a.with_changes(value=value)
            return call.with_changes(args=args)
    if any(a.star for a in args) or sum(1 for a in args if a.keyword is None) > 3:
        return call
    last = args[-1]
    args[-1] = last.with_changes(comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" ")))
    args.append(cst.Arg(keyword=cst.Name("training"), value=value,
                        equal=cst.AssignEqual(whitespace_before=cst.SimpleWhitespace(""),
                                              whitespace_after=cst.SimpleWhitespace(""))))
    return call.with_changes(args=args)


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
