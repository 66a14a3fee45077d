"""PU205 pool2d-class: ``Pool2D`` / ``layers.pool2d`` / ``layers.pool3d`` become the pooling
class or function chosen by the *value* of ``pool_type``.

What it does
    ``Pool2D(pool_size=2, pool_type='max')`` becomes
    ``paddle.nn.MaxPool2D(kernel_size=2, stride=1, padding=0)``; ``pool_type='avg'`` gives
    ``AvgPool2D`` (with ``exclusive``), ``global_pooling=True`` gives
    ``AdaptiveMaxPool2D(output_size=1)`` / ``AdaptiveAvgPool2D(output_size=1)``. The
    functional ``layers.pool2d`` maps the same way to ``paddle.nn.functional.max_pool2d``,
    ``avg_pool2d``, ``adaptive_max_pool2d``, ``adaptive_avg_pool2d``, and ``layers.pool3d``
    to their ``3d`` counterparts (``avg_pool3d``, ``adaptive_avg_pool3d(x, output_size=1)``,
    ...).

Why is this bad?
    1.x pooled with ``pool_stride=1`` by default; the modern classes default ``stride`` to
    the kernel size. A plain rename turns a 4×4 → 3×3 pooling into 4×4 → 2×2. The stride
    is therefore always written out.

Example
    ``fluid.dygraph.Pool2D(2, 'avg')`` → ``paddle.nn.AvgPool2D(kernel_size=2, stride=1, padding=0)``.

Fix safety
    Safe when ``pool_type`` and ``global_pooling`` are literals, or names / attributes
    (``pool_type=pool_type`` passed through a helper layer, as the 1.8 MNIST example's
    ``SimpleImgConvPool``): the call then becomes a conditional expression,
    ``(MaxPool2D(...) if pool_type == 'max' else AvgPool2D(...))``, each branch mapped as
    for its literal, so the value at run time picks the class as 1.8 did (1.8 raised for a
    pool_type other than 'max'/'avg', where the conditional takes the average branch).
    Any other expression is left for a manual rewrite. Average pooling with
    ``exclusive=False`` where a window may reach past the padding (``ceil_mode``, an
    asymmetric or ``'SAME'`` padding) becomes ``_fluid_avg_pool`` / ``_FluidAvgPool2D``,
    code fix adds (PU101 avg-pool-helper): 1.8 divided such windows by the full kernel
    size, today's ``avg_pool2d`` by their clipped size. ``use_cudnn`` has no effect on
    results and is dropped.
"""
from __future__ import annotations

import libcst as cst

from upgrader.fixers import avg_pool, static_mode

from upgrader.args import Manual, bind, code_of, keyword_arg, literal

CODE = "PU205"
STRUCTURAL = ("pool2d-class",)
#: what explain shows for an argument the plain mapping would leave manual
ARGS_TAKEN = {name: {"pool_type": "the class or function of that value (a name or attribute: "
                                  "a conditional on it)",
                     "global_pooling": "the adaptive pooling of output size 1",
                     "exclusive": "passed to the average pooling"}
              for name in ("paddle.fluid.layers.pool2d", "paddle.fluid.layers.pool3d",
                           "paddle.fluid.dygraph.Pool2D")}

CLASSES = {("max", False): "paddle.nn.MaxPool2D", ("avg", False): "paddle.nn.AvgPool2D",
           ("max", True): "paddle.nn.AdaptiveMaxPool2D", ("avg", True): "paddle.nn.AdaptiveAvgPool2D"}
FUNCTIONS = {("max", False): "paddle.nn.functional.max_pool2d",
             ("avg", False): "paddle.nn.functional.avg_pool2d",
             ("max", True): "paddle.nn.functional.adaptive_max_pool2d",
             ("avg", True): "paddle.nn.functional.adaptive_avg_pool2d"}


def _value(bound, entry, name):
    arg = bound.values.get(name)
    if arg is not None:
        return arg.value, code_of(arg.value)
    p = entry.param(name)
    if p is None or not p.has_default:
        return None, None
    return cst.parse_expression(p.default), p.default


def _plain(node) -> bool:
    """A name or an attribute chain of names: reading it has no effect and gives the same
    value wherever the rewrite puts it."""
    while isinstance(node, cst.Attribute):
        node = node.value
    return isinstance(node, cst.Name)


def _with_value(call: cst.Call, arg: cst.Arg, value: cst.BaseExpression) -> cst.Call:
    return call.with_changes(args=[a.with_changes(value=value) if a is arg else a
                                   for a in call.args])


def plan(entry, call: cst.Call):
    """``(target, kwargs)``; or ``("if", test, plan_if_true, plan_if_false)`` when
    ``pool_type`` / ``global_pooling`` is a name or attribute (the models' SimpleImgConvPool
    passes them through): each branch is planned with the literal it stands for."""
    bound = bind(entry, call)
    if isinstance(bound, Manual):
        return bound
    for name, choices in (("pool_type", ("'max'", "'avg'")), ("global_pooling", ("True", "False"))):
        arg = bound.values.get(name)
        if arg is None or not _plain(arg.value) or literal(code_of(arg.value))[0] == "ok":
            continue
        branches = [plan(entry, _with_value(call, arg, cst.parse_expression(c))) for c in choices]
        for b in branches:
            if isinstance(b, Manual):
                return Manual(f"{name}={code_of(arg.value)} is not a literal, and with "
                              f"{name}={choices[branches.index(b)]}: {b.reason}")
        test = arg.value if name == "global_pooling" else cst.Comparison(
            left=arg.value, comparisons=[cst.ComparisonTarget(
                operator=cst.Equal(), comparator=cst.SimpleString("'max'"))])
        return ("if", test, branches[0], branches[1])
    functional = entry.kind == "function"
    dims = "3D" if entry.name.endswith("pool3d") else "2D"
    _, ptype = _value(bound, entry, "pool_type")
    _, glob = _value(bound, entry, "global_pooling")
    kt, t = literal(ptype)
    kg, g = literal(glob)
    if kt != "ok" or t not in ("max", "avg"):
        return Manual(f"pool_type={ptype} is not the literal 'max' or 'avg'; choose "
                      f"MaxPool{dims}/AvgPool{dims} by hand (stride defaults to 1 in 1.x)")
    if kg != "ok" or not isinstance(g, bool):
        return Manual(f"global_pooling={glob} is not a literal; choose Adaptive*Pool{dims}(1) by hand")
    target = (FUNCTIONS if functional else CLASSES)[(t, g)]
    if dims == "3D":
        target = target.replace("2d", "3d").replace("2D", "3D")
    kwargs = []
    if functional:
        kwargs.append((None, bound.values["input"].value))
    if g:
        kwargs.append(("output_size", cst.Integer("1")))
    else:
        size, size_src = _value(bound, entry, "pool_size")
        if literal(size_src) == ("ok", -1):
            return Manual("pool_size=-1 is only valid with global_pooling=True")
        if t == "avg" and not avg_pool.exact_today(
                _value(bound, entry, "ceil_mode")[1], _value(bound, entry, "exclusive")[1],
                _value(bound, entry, "pool_padding")[1], 3 if dims == "3D" else 2):
            # 1.8 divided by the full kernel size where today's avg_pool divides by less
            target = avg_pool.FUNCTION if functional else avg_pool.LAYER
        kwargs.append(("kernel_size", size))
        kwargs.append(("stride", _value(bound, entry, "pool_stride")[0]))
        kwargs.append(("padding", _value(bound, entry, "pool_padding")[0]))
        if "ceil_mode" in bound.values:
            kwargs.append(("ceil_mode", bound.values["ceil_mode"].value))
        if t == "avg" and "exclusive" in bound.values:
            kwargs.append(("exclusive", bound.values["exclusive"].value))
    if "data_format" in bound.values:
        kwargs.append(("data_format", bound.values["data_format"].value))
    if functional and "name" in bound.values and target != avg_pool.FUNCTION:
        kwargs.append(("name", bound.values["name"].value))
    return target, kwargs


def rewrite_call(up, original: cst.Call, updated: cst.Call, entry):
    if not up.can_apply(entry, original):
        up.report_entry(original, entry, False)
        return updated
    p = plan(entry, updated)
    if isinstance(p, Manual):
        up.report_entry(original, entry, False, manual=p.reason)
        return updated
    helpers = [t for t in _targets(p) if t in avg_pool.SOURCES]
    if helpers and avg_pool.conflict(up, original, entry):
        return updated
    for t in helpers:
        avg_pool.need(up, t)
    static_mode.note_applied(up, entry)
    new = _build(updated, p)
    if p[0] == "if":
        targets = " / ".join(sorted(set(_targets(p))))
        up.report(original, entry.code, f"`{entry.short}` → `{targets}` chosen at run time by "
                  "the value of pool_type / global_pooling (a conditional expression; 1.x "
                  "stride default 1 kept explicit)", entry.name, _targets(p)[0], "safe",
                  applied=True)
        return new.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])
    what = (" (a function fix adds to the module: 1.8's average over the full kernel size)"
            if p[0] == avg_pool.FUNCTION else " (a layer fix adds to the module: 1.8's average "
            "over the full kernel size)" if p[0] == avg_pool.LAYER else "")
    up.report(original, entry.code, f"`{entry.short}` → `{p[0]}`{what} (1.x stride default 1 kept "
              "explicit)", entry.name, p[0], "safe", applied=True)
    return new


def _targets(p):
    return _targets(p[2]) + _targets(p[3]) if p[0] == "if" else [p[0]]


def _build(updated: cst.Call, p):
    if p[0] == "if":
        body, orelse = (_build(updated, b) for b in p[2:])
        if isinstance(body, cst.IfExp):  # nested: parenthesized, or Python regroups them
            body = body.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])
        if isinstance(orelse, cst.IfExp):
            orelse = orelse.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])
        return cst.IfExp(test=p[1], body=body, orelse=orelse)
    target, kwargs = p
    args = [cst.Arg(value=v) if k is None else keyword_arg(k, v) for k, v in kwargs]
    return updated.with_changes(func=cst.parse_expression(target), args=args)
