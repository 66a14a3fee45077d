"""PU204 save-load-dygraph: ``save_dygraph`` / ``load_dygraph`` keep their 1.x files.

What it does
    ``fluid.save_dygraph(model.state_dict(), path)`` becomes
    ``paddle.save(model.state_dict(), path + '.pdparams')`` (``'.pdopt'`` when the state
    dict comes from an optimizer), and ``params, opt = fluid.load_dygraph(path)`` becomes
    ``params, opt = (paddle.load(path + '.pdparams'), paddle.load(path + '.pdopt') if
    os.path.exists(path + '.pdopt') else None)``.

Why is this bad?
    ``paddle.save`` writes exactly the path it is given and ``paddle.load`` returns one
    object. A plain rename writes ``path`` instead of ``path.pdparams`` (checkpoints from
    1.x are not found) and unpacks the keys of the loaded dict into ``params, opt``.

Example
    See above. Files written by Paddle 1.8 ``save_dygraph`` load with ``paddle.load``.

Fix safety
    Safe when the saved state dict is ``<name>.state_dict()`` and ``<name>`` is assigned
    in the file from a legacy optimizer (→ ``.pdopt``), a legacy layer class or a class of
    the file derived from a Layer (→ ``.pdparams``), and every other binding of those
    names in the file gives the same suffix (``sd = model.state_dict()`` ... ``sd =
    opt.state_dict()``: the rewrite cannot tell which one a save sees). Anything else (a helper function's
    result, a class imported from elsewhere) goes through ``_fluid_save_dygraph(state,
    path)``, a function fix adds to the module that chooses the suffix at run time as 1.x
    did (``.pdparams`` when the dict's first value is a parameter, ``paddle.nn.Parameter``
    today, else ``.pdopt``): guessing would write an optimizer's state over the model's
    file. ``load_dygraph`` stripped a trailing ``.pdparams``/``.pdopt`` from its
    path: where the rewrite can see it (a literal, ``x + '<literal>'``,
    ``os.path.join(..., '<literal>')``) it strips it there; otherwise the path is stripped
    the same way at run time in a name assigned before the statement (``model_prefix =
    p[:-9] if p.endswith('.pdparams') else ...``), and where no assignment can go there
    (a comprehension, a lambda, an f-string) the rewrite, which reads the path as a
    prefix, is unsafe.
"""
from __future__ import annotations

from typing import Dict, Optional

import libcst as cst

from upgrader.args import code_of, fill, literal
from upgrader.fixers import bound_or_report
from upgrader.names import FastVisitor

CODE = "PU204"
STRUCTURAL = ("save-load-dygraph",)
SAVE_HELPER = "_fluid_save_dygraph"
SAVE_SOURCE = f'''def {SAVE_HELPER}(state_dict, model_path):
    """Paddle 1.8's fluid.dygraph.save_dygraph: model_path + '.pdparams' when the dict's
    first value is a parameter (a Layer's state_dict), else + '.pdopt' (an optimizer's)."""
    assert len(state_dict) > 0, 'state_dict is empty, no need to save'
    first = next(iter(state_dict.values()))
    suffix = '.pdparams' if isinstance(first, paddle.nn.Parameter) else '.pdopt'
    paddle.save(state_dict, model_path + suffix)
'''


def assignment_origins(up, node: cst.Assign, out: Dict[str, Optional[str]]) -> None:
    """Record in ``out`` what ``node`` assigns: name -> dotted callee (a legacy
    constructor, ``local:Name`` for a call of a name that resolves to nothing,
    ``state_dict:<layer>``, ``block:<program name>`` / ``block:<dotted program maker>()``
    for a program's global block, or "")."""
    t = node.targets[0].target if len(node.targets) == 1 else None
    if isinstance(t, (cst.Tuple, cst.List)) and isinstance(node.value, (cst.Tuple, cst.List)) \
            and len(t.elements) == len(node.value.elements):
        # `main, startup = fluid.Program(), fluid.Program()`
        for te, ve in zip(t.elements, node.value.elements):
            if isinstance(te.value, cst.Name):
                v = ve.value
                d = up.resolve_dotted(v.func) if isinstance(v, cst.Call) else None
                out[te.value.value] = d or ""
        return
    if isinstance(t, cst.Name):
        d = None
        if isinstance(node.value, cst.Call):
            f = node.value.func
            d = up.resolve_dotted(f)
            if d is None and isinstance(f, cst.Name):
                d = "local:" + f.value  # a class of this module?
            elif d is None and isinstance(f, cst.Attribute) and f.attr.value == "state_dict" \
                    and isinstance(f.value, cst.Name) and not node.value.args:
                d = "state_dict:" + f.value.value  # `sd = model.state_dict()`
            elif d is None and isinstance(f, cst.Attribute) and _is_block_call(node.value):
                # `blk = main.global_block()` / `blk = fluid.default_main_program().block(0)`
                inner = f.value
                if isinstance(inner, cst.Name):
                    d = "block:" + inner.value
                elif isinstance(inner, cst.Call) and not inner.args:
                    maker = up.resolve_dotted(inner.func)
                    d = "block:" + maker + "()" if maker else None
        out[t.value] = d or ""


def _is_block_call(call: cst.Call) -> bool:
    """``<x>.global_block()`` or ``<x>.block(0)``."""
    f = call.func
    if not isinstance(f, cst.Attribute):
        return False
    if f.attr.value == "global_block":
        return not call.args
    return f.attr.value == "block" and len(call.args) == 1 and call.args[0].keyword is None \
        and isinstance(call.args[0].value, cst.Integer) and call.args[0].value.value == "0"


def _assignments(up) -> Dict[str, Optional[str]]:
    """name -> dotted legacy constructor it was last assigned from (module-wide), as the
    survey walk (``static_mode.survey``, run by ``Upgrader``) recorded it."""
    return up._assign_cache


LAYER_BASES = ("paddle.fluid.dygraph.Layer", "paddle.fluid.dygraph.layers.Layer", "paddle.nn.Layer")


def _layer_classes(up) -> set:
    """Names of the classes defined in the module that derive from a Layer (1.x or today's),
    directly or through another such class of the module."""
    cached = getattr(up, "_layer_class_cache", None)
    if cached is not None:
        return cached
    bases: Dict[str, list] = {}

    class V(FastVisitor):
        def visit_ClassDef(self, node: cst.ClassDef):
            bases[node.name.value] = [a.value for a in node.bases]

    up.module.visit(V())
    found: set = set()
    changed = True
    while changed:
        changed = False
        for name, exprs in bases.items():
            if name in found:
                continue
            for e in exprs:
                if (isinstance(e, cst.Name) and e.value in found) or _is_layer_base(up, e):
                    found.add(name)
                    changed = True
                    break
    up._layer_class_cache = found
    return found


def _is_layer_base(up, expr) -> bool:
    """``fluid.dygraph.Layer`` under any of its 1.x names (``fluid.Layer`` ...) or today's
    ``paddle.nn.Layer`` (the same decision before and after a first fix)."""
    dotted = up.resolve_dotted(expr)
    if dotted is None:
        return False
    if dotted in LAYER_BASES:
        return True
    entry = up.rules.lookup(dotted)
    return entry is not None and entry.name == "paddle.fluid.dygraph.Layer"


def _is_legacy_layer(up, dotted: str) -> bool:
    entry = up.rules.lookup(dotted)
    return entry is not None and entry.kind == "class" and entry.target.startswith("paddle.nn.")


def _is_data_parallel(up, dotted: str) -> bool:
    """``fluid.dygraph.DataParallel(layer, strategy)``: its 1.8 state_dict() is the wrapped
    layer's parameters (so save_dygraph picked .pdparams), as today's."""
    entry = up.rules.lookup(dotted)
    return entry is not None and entry.name == "paddle.fluid.dygraph.DataParallel"


def _origins(up) -> Dict[str, set]:
    """name -> the origins of all its bindings in the module (``assignment_origins`` of each
    assignment, "" for a loop, ``with ... as``, annotated or augmented assignment; cached).
    ``_assignments`` keeps the last one only: ``sd = model.state_dict(); save_dygraph(sd,
    p); sd = opt.state_dict(); save_dygraph(sd, p)`` must not give both saves one suffix."""
    cached = getattr(up, "_sld_origins", None)
    if cached is not None:
        return cached
    origins: Dict[str, set] = {}

    def other(target):
        for n in _bound_names(target):
            origins.setdefault(n, set()).add("")

    class V(FastVisitor):
        def visit_Assign(self, node: cst.Assign):
            for t in node.targets:
                one: Dict[str, Optional[str]] = {}
                assignment_origins(up, cst.Assign(targets=[t], value=node.value), one)
                for n in _bound_names(t.target):
                    origins.setdefault(n, set()).add(one.get(n) or "")

        def visit_AnnAssign(self, node: cst.AnnAssign):
            other(node.target)

        def visit_AugAssign(self, node: cst.AugAssign):
            other(node.target)

        def visit_For(self, node: cst.For):
            other(node.target)

        def visit_WithItem(self, node: cst.WithItem):
            if node.asname is not None:
                other(node.asname.name)

    up.module.visit(V())
    up._sld_origins = origins
    return origins


def _bound_names(target):
    if isinstance(target, cst.Name):
        return [target.value]
    if isinstance(target, (cst.Tuple, cst.List)):
        return [n for e in target.elements for n in _bound_names(e.value)]
    if isinstance(target, cst.StarredElement):
        return _bound_names(target.value)
    return []


def _owner_suffix(up, name: str) -> Optional[str]:
    """The suffix of ``<name>.state_dict()``: every binding of ``name`` in the module must
    be an optimizer (``.pdopt``) or every one a layer (``.pdparams``)."""
    found = set()
    for origin in _origins(up).get(name) or {""}:
        if origin.startswith("paddle.fluid.optimizer."):
            found.add(".pdopt")
        elif origin.startswith("local:") and origin[len("local:"):] in _layer_classes(up):
            found.add(".pdparams")
        elif origin and not origin.startswith(("local:", "state_dict:", "block:")) \
                and (_is_legacy_layer(up, origin) or _is_data_parallel(up, origin)):
            found.add(".pdparams")
        else:
            return None
    return found.pop() if len(found) == 1 else None


def _suffix_for(up, state: cst.BaseExpression) -> Optional[str]:
    if isinstance(state, cst.Name):  # `sd = model.state_dict()` earlier in the module
        found = set()
        for origin in _origins(up).get(state.value) or {""}:
            if not origin.startswith("state_dict:"):
                return None
            found.add(_owner_suffix(up, origin[len("state_dict:"):]))
        return found.pop() if len(found) == 1 else None
    if not (isinstance(state, cst.Call) and isinstance(state.func, cst.Attribute)
            and state.func.attr.value == "state_dict" and isinstance(state.func.value, cst.Name)):
        return None
    return _owner_suffix(up, state.func.value.value)


SUFFIXES = (".pdparams", ".pdopt")


def _tail(text: str):
    """What a path ending in the literal ``text`` is as a 1.x prefix: ("strip", shorter
    text) when it ends in a suffix 1.x strips, ("keep", text) when no value in front of it
    can make it end in one, None when that depends on that value."""
    for suf in SUFFIXES:
        if text.endswith(suf):
            return "strip", text[: -len(suf)]
    if any(len(text) < len(suf) and suf.endswith(text) for suf in SUFFIXES):
        return None
    return "keep", text


def _literal_str(node) -> Optional[str]:
    if not isinstance(node, (cst.SimpleString, cst.ConcatenatedString)):
        return None
    kind, value = literal(code_of(node))
    return value if kind == "ok" and isinstance(value, str) else None


def _path_expr(up, path: cst.BaseExpression) -> Optional[cst.BaseExpression]:
    """The 1.x prefix of ``path`` when it is known where the rewrite runs: load_dygraph
    strips a trailing '.pdparams' / '.pdopt' (a literal, ``x + '<literal>'``,
    ``os.path.join(..., '<literal>')``); None when only the run can tell."""
    text = _literal_str(path)
    if text is not None:
        t = _tail(text)
        return None if t is None else (path if t[1] == text else cst.SimpleString(repr(t[1])))
    if isinstance(path, cst.BinaryOperation) and isinstance(path.operator, cst.Add):
        text = _literal_str(path.right)
        t = None if text is None else _tail(text)
        if t is None:
            return None
        if t[1] == text:
            return path
        return path.left if t[1] == "" else path.with_changes(right=cst.SimpleString(repr(t[1])))
    if isinstance(path, cst.Call) and code_of(path.func) == "os.path.join" and path.args \
            and all(a.keyword is None and not a.star for a in path.args):
        text = _literal_str(path.args[-1].value)
        t = None if text is None else _tail(text)
        if t is None or t[1] == "":
            return None
        if t[1] == text:
            return path
        args = list(path.args)
        args[-1] = args[-1].with_changes(value=cst.SimpleString(repr(t[1])))
        return path.with_changes(args=args)
    return None


def rewrite_call(up, original: cst.Call, updated: cst.Call, entry):
    bound = bound_or_report(up, original, updated, entry)
    if bound is None:
        return updated
    if entry.name.endswith("save_dygraph"):
        state = bound.values["state_dict"].value
        suffix = _suffix_for(up, state)
        if suffix is None:
            from upgrader.fixers import helper_state
            if helper_state(up, SAVE_HELPER, SAVE_SOURCE) == "conflict":
                up.report_entry(original, entry, False, manual=(
                    "cannot tell whether this is a model or an optimizer state dict, and the "
                    f"module uses the name {SAVE_HELPER} for something else: save with "
                    "paddle.save(state, path + '.pdparams') for parameters, '.pdopt' for "
                    "optimizer state"))
                return updated
            up.save_dygraph_helper_used = True
            up.report(original, entry.code, f"`{entry.short}` → `{SAVE_HELPER}(...)` (a function "
                      "fix adds to the module: like 1.8 it writes path + '.pdparams' when the "
                      "dict's first value is a parameter, else '.pdopt', with paddle.save)",
                      entry.name, "paddle.save", "safe", applied=True)
            return updated.with_changes(func=cst.Name(SAVE_HELPER))
        path = bound.values["model_path"].value
        new = fill("paddle.save({state}, {path} + " + repr(suffix) + ")",
                   {"state": state, "path": _paren(path)})
        up.report(original, entry.code, f"`{entry.short}` → `paddle.save(..., path + {suffix!r})`",
                  entry.name, "paddle.save", "safe", applied=True)
        return new
    keep = bound.values.get("keep_name_table")
    if keep is not None and literal(code_of(keep.value)) != ("ok", False):
        up.report_entry(original, entry, False, manual="keep_name_table=True has no modern equivalent")
        return updated
    value = bound.values["model_path"].value
    known = _path_expr(up, value)
    unsafe = False
    if known is not None:
        path = _paren(known)
        simple = isinstance(path, (cst.Name, cst.SimpleString, cst.Attribute))
        if not simple:  # read three times: assigned to a name before the statement
            from upgrader.hoist import hoist
            name, why = hoist(up, original, known, "model_path")
            if name is None:
                up.report_entry(original, entry, False, manual=(
                    f"the path expression would be evaluated three times and cannot be moved "
                    f"before the statement here ({why}); assign it to a variable first"))
                return updated
            path = cst.Name(name)
    else:
        # only the run can tell whether the path ends in '.pdparams' / '.pdopt', which 1.x
        # stripped: strip it the same way in a name assigned before the statement
        from upgrader.hoist import hoist
        v = _paren(value)
        name, why = "", ""
        if not isinstance(v, (cst.Name, cst.Attribute)):
            name, why = hoist(up, original, value, "model_path")
            v = cst.Name(name) if name is not None else v
        if name is not None:
            name, why = hoist(up, original, fill(
                "{v}[:-9] if {v}.endswith('.pdparams') else {v}[:-6] if {v}.endswith('.pdopt') "
                "else {v}", {"v": v}), "model_prefix")
        if name is not None:
            path = cst.Name(name)
        elif isinstance(v, (cst.Name, cst.Attribute)):
            path, unsafe = v, True
        else:
            up.report_entry(original, entry, False, manual=(
                f"the path expression would be evaluated three times and cannot be moved "
                f"before the statement here ({why}); assign it to a variable first"))
            return updated
    message = (f"`{entry.short}` → `(paddle.load(path + '.pdparams'), "
               "paddle.load(path + '.pdopt') or None)`")
    if unsafe:
        message += ("; unsafe: the path is read as a prefix, but 1.x stripped a trailing "
                    "'.pdparams' / '.pdopt' from it (a path ending in one is looked up as "
                    "path.pdparams.pdparams); the strip cannot be moved before the statement "
                    "here: assign the path to a variable first")
        up.report(original, entry.code, message, entry.name, "paddle.load", "unsafe",
                  applied=up.opts.unsafe_fixes)
        if not up.opts.unsafe_fixes:
            return updated
    else:
        up.report(original, entry.code, message, entry.name, "paddle.load", "safe", applied=True)
    up.needed_imports.add("os")
    return fill("(paddle.load({p} + '.pdparams'), paddle.load({p} + '.pdopt') "
                "if os.path.exists({p} + '.pdopt') else None)", {"p": path})


def _paren(node):
    from upgrader.args import _paren as p
    return p(node)


def finish_module(up, module: cst.Module) -> cst.Module:
    """Add _fluid_save_dygraph after the module's imports, once, when a save uses it."""
    from upgrader.fixers import helper_state, insert_after_head
    if not getattr(up, "save_dygraph_helper_used", False) or \
            helper_state(up, SAVE_HELPER, SAVE_SOURCE) != "insert":
        return module
    return insert_after_head(module, [SAVE_SOURCE])
