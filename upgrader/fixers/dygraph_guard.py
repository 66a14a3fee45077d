"""PU201 dygraph-guard-block: unwrap ``with fluid.dygraph.guard(...):``.

What it does
    Replaces ``with fluid.dygraph.guard():`` by its body, dedented. A place argument
    becomes ``paddle.set_device(<place>)`` before the body. In a file that also runs static
    graphs, the body runs between ``paddle.disable_static()`` and a ``finally:
    paddle.enable_static()`` so each part keeps the mode it had in 1.x, even on error.

Why is this bad?
    ``fluid.dygraph.guard`` is gone with ``paddle.fluid``; dynamic mode is the default
    since Paddle 2.0, so the block is no longer needed.

Example
    ``with fluid.dygraph.guard(fluid.CPUPlace()):`` / ``    y = net(x)`` becomes
    ``paddle.set_device(paddle.CPUPlace())`` / ``y = net(x)``.

Fix safety
    Safe. Comments on the ``with`` line are kept above the first statement of the body.
    ``with guard() as g`` keeps ``g = None`` (1.8's guard yields nothing, checked on
    1.8.5); a target that is not a plain name and ``async with`` are left for a manual
    rewrite. In a multi-item ``with`` the guard is dropped when it is the first item (the
    others keep their ``with`` around the body: ``with guard(), no_grad():`` →
    ``with paddle.no_grad():``); a guard after other items is manual (1.8 entered those in
    static mode, where ``no_grad()`` had no effect; checked on 1.8.5). A block that calls a static-graph-only layer
    (``layers.fc``, ``layers.data``, ``layers.Print``: 1.8 ran them in dygraph mode too,
    their 3.x targets raise in dynamic mode) is kept, with those calls, for a person
    (otherwise a second fix would rewrite them out of the block). 1.8's guard also opened
    a fresh ``unique_name`` namespace with its own record of parameter names: where the
    block may run more than once (in a function or a loop, or the module has several
    guard blocks) and the module names a parameter (``ParamAttr(name=...)``) or restores
    a state dict (``load_dygraph``, ``set_dict``: optimizer states are keyed by parameter
    names), the body stays in ``with paddle.utils.unique_name.guard():`` (3.3.1 raised
    ValueError 'parameter name [w] have be been used' when a second call built the named
    layer again, and 'Optimizer set error, linear_1.w_0_moment1_0 should in state dict'
    when a second guard resumed from the first's checkpoint; checked against 1.8.5). The
    guard also began with a new tracer in train mode, whatever a ``Layer.eval()`` in an
    earlier block had left, and ``fluid.layers.dropout`` followed that mode: where the
    block may run more than once and the module calls ``.eval()``, the body starts with
    ``_fluid_guard_train_mode()``, a function fix adds that puts Paddle 3's one tracer back
    in train mode (program dygraph_guard_modes: a second run trained without dropout
    otherwise).
"""
from __future__ import annotations

import re
from typing import List

import libcst as cst

from upgrader.fixers import add_used_helpers, helper_state, need_helper
from upgrader.names import FastVisitor

CODE = "PU201"
GUARDS = ("paddle.fluid.dygraph.guard", "paddle.fluid.dygraph.base.guard")


def _is_guard_item(up, it: cst.WithItem) -> bool:
    return isinstance(it.item, cst.Call) and up.resolve_dotted(it.item.func) in GUARDS


def _guard_call(up, node: cst.With):
    if len(node.items) != 1:
        # `with guard(place), no_grad():` is the guard's block around a `with no_grad():`;
        # a guard after other items is not (1.8 entered those in static mode first: a
        # no_grad() there had no effect, checked on 1.8.5)
        guards = [it for it in node.items if _is_guard_item(up, it)]
        if guards and guards[0] is node.items[0] and len(guards) == 1 \
                and node.items[0].asname is None:
            up.guard_items.add(id(node.items[0].item))
            return node.items[0].item
        for it in guards:
            _multi_items(up).add(id(it.item))
        return None
    item = node.items[0].item
    if isinstance(item, cst.Call):
        dotted = up.resolve_dotted(item.func)
        if dotted in GUARDS:
            up.guard_items.add(id(item))
            return item
    return None


def is_guard(up, node: cst.With) -> bool:
    return _guard_call(up, node) is not None


def rewrite(up, original: cst.With, updated: cst.With):
    # the guard call itself is not rewritten as a call
    asname = original.items[0].asname
    bound = None
    if asname is not None and isinstance(asname.name, cst.Name):
        bound = asname.name.value
    # at module level `as g` rebinds an imported g (in a function g is a local)
    asname_clash = bound is not None and bound in up.imports.bindings and not up.scope.stack
    if asname_clash or (asname is not None and bound is None) or original.asynchronous is not None:
        what = ("bound to a name an import also binds" if asname_clash else
                "bound to a target that is not a plain name (or `async with`)")
        up.report(original, CODE, f"`fluid.dygraph.guard()` {what}: remove the block by hand "
                  "(dynamic mode is the default, and `as` bound None)", "paddle.fluid.dygraph.guard",
                  "", "manual")
        return updated
    if not up.opts.enabled(CODE) or up.suppressed_node(original, CODE):
        return updated
    up.report(original, CODE, "`with fluid.dygraph.guard()` → its body (dynamic mode is the "
              "default since Paddle 2.0)", "paddle.fluid.dygraph.guard", "", "safe", applied=True)
    if not up.opts.fix:
        return updated
    body = updated.body
    if len(updated.items) > 1:
        # the other items keep their `with` around the body
        rest = list(updated.items[1:])
        rest[-1] = rest[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)
        body = cst.IndentedBlock(body=[updated.with_changes(
            items=rest, leading_lines=[],
            body=body if isinstance(body, cst.IndentedBlock) else cst.IndentedBlock(
                body=[cst.SimpleStatementLine(body=list(body.body))]))])
    if isinstance(body, cst.IndentedBlock):
        stmts: List[cst.BaseStatement] = list(body.body)
        header_comment = body.header.comment
    else:
        stmts = [cst.SimpleStatementLine(body=list(body.body))]
        header_comment = None
    new_call = updated.items[0].item
    prefix: List[cst.BaseStatement] = []
    place_args = [a for a in new_call.args if a.keyword is None or a.keyword.value == "place"] \
        if isinstance(new_call, cst.Call) else []
    if place_args:
        expr = cst.Call(func=cst.parse_expression("paddle.set_device"),
                        args=[cst.Arg(value=place_args[0].value)])
        prefix.append(cst.SimpleStatementLine(body=[cst.Expr(expr)]))
    if bound is not None:
        # 1.8's guard() is a generator context manager that yields nothing: `as g` bound None
        prefix.append(cst.parse_statement("%s = None\n" % bound))
    if _again(up) and _TRAIN_MODE_AGAIN.search(up.source) \
            and helper_state(up, TRAIN_MODE, TRAIN_MODE_SOURCE) != "conflict":
        # 1.8's guard began with a new tracer in train mode, whatever an earlier block's
        # Layer.eval() had set: fluid.layers.dropout (_fluid_dropout) follows that mode
        need_helper(up, TRAIN_MODE)
        prefix.append(cst.parse_statement(f"{TRAIN_MODE}()\n"))
    if _fresh_names(up):
        # 1.8's guard also opened a unique_name namespace with its own record of parameter
        # names: keep it where the block may run twice and names its parameters
        stmts = [cst.With(items=[cst.WithItem(item=cst.parse_expression(
            "paddle.utils.unique_name.guard()"))], body=cst.IndentedBlock(body=stmts))]
    mixed = up.facts.static_outside_guard
    if mixed:
        # a static program: dynamic mode for this block only, restored even on error
        body_stmts = prefix + stmts
        prefix = [cst.parse_statement("paddle.disable_static()\n")]
        stmts = [cst.Try(body=cst.IndentedBlock(body=body_stmts),
                         finalbody=cst.Finally(body=cst.IndentedBlock(
                             body=[cst.parse_statement("paddle.enable_static()\n")])))]
    stmts = prefix + stmts
    lead = list(original.leading_lines)
    if header_comment is not None:
        lead.append(cst.EmptyLine(comment=header_comment))
    first = stmts[0]
    stmts[0] = first.with_changes(leading_lines=lead + list(first.leading_lines))
    return cst.FlattenSentinel(stmts)


STRUCTURAL = ("dygraph-guard",)
_BY_NAME = ("load_dygraph", ".set_dict(", ".set_state_dict(", ".load_dict(")
PARAM_ATTRS = ("paddle.fluid.ParamAttr", "paddle.fluid.param_attr.ParamAttr",
               "paddle.fluid.WeightNormParamAttr", "paddle.fluid.param_attr.WeightNormParamAttr")


def _fresh_names(up) -> bool:
    """The guard block being rewritten may run more than once (in a function or a loop, or
    the module has several guard blocks) and the module gives a parameter its name
    (``ParamAttr(name=...)``) or restores a state dict (``load_dygraph``, ``set_dict``):
    1.8's guard() gave each run a fresh ``unique_name`` namespace and parameter-name
    record, so building the same named parameter again was fine and a second run's
    parameters had the first run's names; without it, 3.3.1 raises ValueError ('parameter
    name [w] have be been used'), and an optimizer state saved in one run does not load
    in the next ('Optimizer set error, linear_1.w_0_moment1_0 should in state dict')."""
    return _again(up) and _module_scan(up)[1]


def _again(up) -> bool:
    """The guard block being rewritten may run more than once: it sits in a function or a
    loop, or the module has several guard blocks."""
    return any(isinstance(st, (cst.FunctionDef, cst.For, cst.While))
               for st, _ in up.stmt_stack[:-1]) or _module_scan(up)[0] > 1


#: a Layer.eval() call: the only way 1.8 code switched the tracer to eval mode
_TRAIN_MODE_AGAIN = re.compile(r"\.eval\(\s*\)")
TRAIN_MODE = "_fluid_guard_train_mode"
TRAIN_MODE_SOURCE = f'''def {TRAIN_MODE}():
    """Paddle 1.8's fluid.dygraph.guard() began each block with a new tracer in train mode,
    whatever a Layer.eval() in an earlier block had set. fluid.layers.dropout followed that
    mode (see _fluid_dropout); Paddle 3 keeps it in its one tracer, which this puts back in
    train mode where the block began (Layer.train() does the same, with its own layers)."""
    import paddle
    paddle.base.framework._dygraph_tracer().train_mode()
'''


def finish_module(up, module: cst.Module) -> cst.Module:
    """Add the train-mode function the unwrapped guard blocks call."""
    return add_used_helpers(up, module, {TRAIN_MODE: TRAIN_MODE_SOURCE})


def _module_scan(up):
    """(number of guard blocks, whether a ParamAttr is given a name) of the module."""
    cached = getattr(up, "_guard_scan", None)
    if cached is not None:
        return cached
    found = [0, False]

    class V(FastVisitor):
        def visit_With(self, node: cst.With):
            if node.items and _is_guard_item(up, node.items[0]):
                found[0] += 1

        def visit_Call(self, node: cst.Call):
            if not found[1] and up.resolve_dotted(node.func) in PARAM_ATTRS and any(
                    (a.keyword is None and i == 0 and a.star == "") or
                    (a.keyword is not None and a.keyword.value == "name") for i, a in enumerate(node.args)):
                v = node.args[0].value if node.args[0].keyword is None else next(
                    a.value for a in node.args if a.keyword is not None and a.keyword.value == "name")
                if not (isinstance(v, cst.Name) and v.value == "None"):
                    found[1] = True

    if "ParamAttr" in up.source:
        up.module.visit(V())
    else:
        found[0] = up.source.count("guard(")
    # a state restored by parameter name (an optimizer's set_dict after load_dygraph: its
    # keys are 'linear_0.w_0_moment1_0', named in 1.8's per-guard namespace)
    found[1] = found[1] or any(s in up.source for s in _BY_NAME)
    up._guard_scan = tuple(found)
    return up._guard_scan


def _multi_items(up) -> set:
    """ids of guard() calls that are one item of a multi-item ``with`` header."""
    found = getattr(up, "_guard_multi_items", None)
    if found is None:
        found = up._guard_multi_items = set()
    return found


def rewrite_call(up, original: cst.Call, updated: cst.Call, entry):
    """``guard()`` outside a ``with`` header cannot be unwrapped automatically."""
    if id(original) in up.guard_items:
        return updated
    if id(original) in _multi_items(up):
        up.report_entry(original, entry, False,
                        manual="`guard()` is not the first item of its `with` statement (or "
                               "is bound with `as` there): 1.8 entered the items before it in "
                               "static mode, where a no_grad() had no effect; rewrite the block "
                               "by hand (dynamic mode is the default)")
        return updated
    up.report_entry(original, entry, False,
                    manual="`guard()` used outside a `with` statement; remove it by hand "
                           "(dynamic mode is the default)")
    return updated
