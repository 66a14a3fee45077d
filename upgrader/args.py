"""Call-argument mapping: bind a call by the exact 1.8 signature, then apply a rule's
argument specs (rename / drop / transform / values / act / wrap / defaults / extra).

Everything here works on libcst nodes and returns either a new call expression or a
``Manual`` explaining why the call cannot be rewritten automatically.
"""
from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from typing import Dict, List, Optional, Tuple, Union

import libcst as cst

from upgrader.rulebook import ACT_TARGETS, Entry, target_params

#: the module function that applies a run-time act name (fixers/act_by_name.py)
ACT_HELPER = "_fluid_act"
ACT_HELPER_NOTE = "act-by-name"
ACT_LAYER_HELPER = "_fluid_layer_act"  # a layer class's act=<name>: a forward hook
ACT_LAYER_NOTE = "act-by-name-layer"


@dataclass
class Manual:
    reason: str
    #: the legacy parameter whose value the rewrite would evaluate more than once (the
    #: engine may move it to a fresh name before the statement: hoist.py)
    repeated: Optional[str] = None


@dataclass
class Bound:
    """Arguments of a call bound to legacy parameter names (in legacy order)."""
    values: Dict[str, cst.Arg]
    positional: List[str]  # parameter names that were passed positionally, in order


def code_of(node: cst.CSTNode) -> str:
    return cst.Module(body=[]).code_for_node(node)


def literal(src: str):
    """The Python value of a literal source text, or a sentinel when not a literal."""
    try:
        return ("ok", ast.literal_eval(src.strip()))
    except Exception:
        return ("expr", src.strip())


def _wrap_also(src: str, spec) -> bool:
    """``wrap_also_for``: the value is one of the listed literals, or not a literal (its
    value is unknown here, e.g. reduce_sum(x, dim=d) that may name every axis)."""
    return literal(src)[0] != "ok" or any(same_value(src, v) for v in spec.wrap_also_for)


def same_value(a: str, b: str) -> bool:
    la, lb = literal(a), literal(b)
    if la[0] == "ok" and lb[0] == "ok":
        va, vb = la[1], lb[1]
        return type(va) is type(vb) and va == vb or (
            isinstance(va, (int, float)) and isinstance(vb, (int, float))
            and not isinstance(va, bool) and not isinstance(vb, bool) and va == vb)
    return la[1] == lb[1]


def _unpacked_hint(entry: Entry, star: str) -> str:
    """What a hand rewrite of a ``**kwargs`` call must change in the dict: the 1.8 keywords
    this entry renames or drops (``parameter_list`` -> ``parameters`` ...)."""
    if star != "**" or not entry.target or entry.structural:
        return ""
    renamed = [f"{k} -> {v.rename}" + (" (its value changes too)" if v.transform or v.values else "")
               for k, v in entry.args.items() if v.rename and v.rename != k]
    dropped = [k for k, v in entry.args.items() if v.drop]
    parts = []
    if renamed:
        parts.append("renamed " + ", ".join(renamed))
    if dropped:
        parts.append("no longer taken: " + ", ".join(dropped))
    if not parts:
        return ""
    return f" (1.8 keywords that changed for `{entry.target}`: {'; '.join(parts)})"


def bind(entry: Entry, call: cst.Call, partial: bool = False) -> Union[Bound, Manual]:
    """The call's arguments by 1.8 parameter name, or Manual. ``partial``: required
    parameters may be missing (they come in a ``**`` argument the caller set aside)."""
    params = entry.params or []
    positional_params = [p for p in params if p.kind == "positional"]
    var_pos = next((p for p in params if p.kind == "var_positional"), None)
    var_kw = next((p for p in params if p.kind == "var_keyword"), None)
    names = {p.name for p in params if p.kind in ("positional", "keyword_only")}
    values: Dict[str, cst.Arg] = {}
    positional: List[str] = []
    i = 0
    for arg in call.args:
        if arg.star:
            return Manual(f"called with {arg.star}-unpacking; arguments cannot be matched "
                          "to the 1.8 signature statically" + _unpacked_hint(entry, arg.star))
        if arg.keyword is None:
            if i >= len(positional_params):
                if var_pos is not None:
                    return Manual("variadic positional arguments are not mapped automatically")
                return Manual(f"too many positional arguments for the 1.8 signature {entry.signature}")
            pname = positional_params[i].name
            values[pname] = arg
            positional.append(pname)
            i += 1
        else:
            k = arg.keyword.value
            if k not in names:
                if var_kw is not None:
                    return Manual(f"keyword {k!r} goes to **{var_kw.name}; not mapped automatically")
                return Manual(f"unexpected keyword {k!r} for the 1.8 signature {entry.signature}")
            if k in values:
                return Manual(f"argument {k!r} given twice")
            values[k] = arg
    for p in params:
        if p.kind in ("positional", "keyword_only") and not p.has_default \
                and p.name not in values and not partial:
            return Manual(f"required argument {p.name!r} missing")
    return Bound(values, positional)


class _Substitute(cst.CSTTransformer):
    def __init__(self, subs: Dict[str, cst.BaseExpression]):
        self.subs = subs

    def leave_Name(self, original, updated):
        return self.subs.get(updated.value, updated)


def fill(template: str, subs: Dict[str, cst.BaseExpression]) -> cst.BaseExpression:
    """Parse a template with ``{call}``/``{}``/``{name}`` holes, keeping the nodes given."""
    text = template
    mapping: Dict[str, cst.BaseExpression] = {}
    for key, node in subs.items():
        ph = f"__pu_{key or 'value'}__"
        text = text.replace("{" + key + "}", ph)
        mapping[ph] = node
    expr = cst.parse_expression(text)
    if isinstance(expr, cst.BaseExpression):
        expr = expr.visit(_Substitute(mapping))
        if "[" in template or " or " in template or " and " in template or " if " in template:
            expr = expr.visit(_FoldIndex())
    # parenthesize substituted compound expressions where needed
    return expr  # type: ignore[return-value]


def _paren(node: cst.BaseExpression) -> cst.BaseExpression:
    if isinstance(node, (cst.Name, cst.Attribute, cst.Call, cst.Subscript, cst.Integer,
                         cst.Float, cst.SimpleString, cst.List, cst.Tuple, cst.Dict)) or node.lpar:
        return node
    return node.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])


def act_wrapper(act_src: str) -> Union[str, Manual, None]:
    """Template wrapping a call for ``act=...``; None when act is None."""
    kind, val = literal(act_src)
    if kind != "ok":
        return Manual(f"act={act_src} is not a literal; apply the activation explicitly")
    if val is None:
        return None
    if not isinstance(val, str) or val not in ACT_TARGETS:
        return Manual(f"act={act_src} has no known modern activation; apply it explicitly")
    return ACT_TARGETS[val]


def map_call(entry: Entry, call: cst.Call, target: cst.BaseExpression, partial: bool = False
             ) -> Union[Tuple[cst.BaseExpression, List[str]], Manual]:
    """Rewrite ``call`` by the entry. Returns (new expression, notes) or Manual.
    ``partial``: the call's ``**`` argument was set aside (kwargs_unpacking)."""
    bound = bind(entry, call, partial)
    if isinstance(bound, Manual):
        return bound
    out: List[Tuple[str, cst.BaseExpression, Optional[cst.Arg]]] = []  # (new kw, value, original arg)
    wraps: List[Tuple[str, Dict[str, cst.BaseExpression]]] = []
    notes: List[str] = []
    named = _named_values(entry, bound)
    if isinstance(named, Manual):
        return named
    passed = list(bound.values)  # source order: keywords stay where the user put them
    commas: Dict[int, cst.Comma] = {}  # out index -> separator of a dropped argument after it
    dropped_at: Dict[str, int] = {}  # dropped legacy argument -> where it stood in the output
    call_args: List[Tuple[str, cst.BaseExpression]] = []  # keywords of the wrap's call
    for pname in passed:
        arg = bound.values[pname]
        before = len(out)
        try:
            res = _map_one(entry, pname, arg, out, wraps, named, call_args, bound)
        finally:
            if len(out) == before:
                dropped_at[pname] = before
            if len(out) == before and out and isinstance(arg.comma, cst.Comma):
                # a dropped argument's separator (maybe a line break) follows the previous one
                commas[len(out) - 1] = arg.comma
        if isinstance(res, Manual):
            return res
    for pname, spec in entry.args.items():
        if spec.manual_if_unset and _unset(entry, pname, bound):
            return Manual(f"{pname} is not given: {spec.manual_if_unset}")
        if pname not in bound.values and spec.default is not None:
            out.append((spec.rename or pname, fill(spec.default, named), None))
        if spec.wrap_if_default is not None:
            param = entry.param(pname)
            arg = bound.values.get(pname)
            if arg is None or (param is not None and param.has_default
                               and same_value(code_of(arg.value), param.default)) or (
                    spec.wrap_also_for is not None and _wrap_also(code_of(arg.value), spec)):
                wraps.append((spec.wrap_if_default, {}))
    shift = 0
    for k, v in entry.extra.items():
        # an extra built from a dropped argument takes that argument's place
        at = [dropped_at[h] for h in _HOLE.findall(v) if h in dropped_at]
        if at:
            idx = min(at) + shift
            out.insert(idx, (k, fill(v, named), None))
            commas = {(i + 1 if i >= idx else i): c for i, c in commas.items()}
            shift += 1
        else:
            out.append((k, fill(v, named), None))
    args = _emit_args(entry, bound, out, call, commas)
    if isinstance(args, Manual):
        return args
    new: cst.BaseExpression = call.with_changes(func=target, args=args)
    if entry.wrap:  # completes the call itself (e.g. build a layer, then call it)
        new = fill(entry.wrap, {**named, "call": new})
        if call_args:  # arguments of that call: layer(input, output_size=...)
            assert isinstance(new, cst.Call)
            head = [a.with_changes(comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" ")))
                    for a in new.args]
            new = new.with_changes(args=head + [keyword_arg(k, v) for k, v in call_args])
    for template, subs in wraps:  # then what the arguments add (act, alpha, ...)
        new = fill(template, {**named, "call": new, **subs})
        if template.startswith(ACT_HELPER + "("):
            notes.append(ACT_HELPER_NOTE)
        if template.startswith(ACT_LAYER_HELPER + "("):
            notes.append(ACT_LAYER_NOTE)
    return new, notes


#: `name=value` without spaces, the style of the emitted keyword arguments
TIGHT_EQUAL = cst.AssignEqual(whitespace_before=cst.SimpleWhitespace(""),
                              whitespace_after=cst.SimpleWhitespace(""))


def keyword_arg(name: str, value: cst.BaseExpression, comma=cst.MaybeSentinel.DEFAULT) -> cst.Arg:
    """``name=value`` (the spacing of the rewritten calls)."""
    return cst.Arg(keyword=cst.Name(name), value=value, equal=TIGHT_EQUAL, comma=comma)


def _emit_args(entry: Entry, bound: Bound, out, call: cst.Call, commas=None):
    commas = commas or {}
    tparams = target_params(entry.target)
    positional_ok: List[str] = []
    if tparams is not None:
        tpos = [n for n, k in tparams if k in ("POSITIONAL_ONLY", "POSITIONAL_OR_KEYWORD")]
        tnames = {n for n, _ in tparams}
        has_kwargs = any(k == "VAR_KEYWORD" for _, k in tparams)
        for kw, _, _ in out:
            if kw not in tnames and not has_kwargs:
                return Manual(f"the target {entry.target} has no parameter {kw!r}")
        # keep a leading run of positional arguments positional where the slot matches
        for idx, (kw, _, orig) in enumerate(out):
            if orig is None or orig.keyword is not None:
                break
            spec = entry.args.get(kw)
            if (idx < len(tpos) and tpos[idx] == kw) or (spec is not None and spec.positional_only):
                positional_ok.append(kw)
            else:
                break
    else:
        # unknown target signature (e.g. a pybind class): positional arguments stay
        # positional while the output's leading arguments are the legacy leading ones
        for idx, (kw, _, orig) in enumerate(out):
            if orig is None or orig.keyword is not None or idx >= len(bound.positional):
                break
            if orig is not bound.values[bound.positional[idx]]:
                break  # an earlier positional argument was dropped: slots shifted
            positional_ok.append(kw)
    out = _drop_default_duplicates(entry, bound, out)
    seen = set()
    args: List[cst.Arg] = []
    for kw, value, orig in out:
        if kw in seen:
            return Manual(f"two legacy arguments map to {kw!r}")
        seen.add(kw)
        if kw in positional_ok:
            a = orig.with_changes(value=value) if orig is not None else cst.Arg(value=value)
        else:
            base = orig if orig is not None else cst.Arg(value=value)
            a = base.with_changes(value=value, keyword=cst.Name(kw), equal=TIGHT_EQUAL)
        args.append(a)
    # commas: keep each original separator; the last keeps the call's trailing style
    last_comma = call.args[-1].comma if call.args else cst.MaybeSentinel.DEFAULT
    fixed: List[cst.Arg] = []
    for i, a in enumerate(args):
        if i == len(args) - 1:
            fixed.append(a.with_changes(comma=last_comma))
        elif i in commas:
            fixed.append(a.with_changes(comma=commas[i]))
        elif a.comma is cst.MaybeSentinel.DEFAULT:
            fixed.append(a.with_changes(comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))))
        else:
            fixed.append(a)
    return fixed


def _unset(entry: Entry, pname: str, bound: Bound) -> bool:
    """The argument is absent or given its legacy default."""
    arg = bound.values.get(pname)
    if arg is None:
        return True
    param = entry.param(pname)
    return param is not None and param.has_default and same_value(code_of(arg.value), param.default)


def _drop_default_duplicates(entry: Entry, bound: Bound, out):
    """Where two legacy arguments map to one keyword (layer_norm's scale and param_attr both
    to weight_attr), an argument given its legacy default says nothing: drop it."""
    kws = [kw for kw, _, _ in out]
    if len(set(kws)) == len(kws):
        return out
    by_arg = {id(a): n for n, a in bound.values.items()}
    keep = []
    for kw, value, orig in out:
        if kws.count(kw) > 1 and orig is not None:
            param = entry.param(by_arg.get(id(orig), ""))
            if param is not None and param.has_default and same_value(code_of(orig.value), param.default):
                kws.remove(kw)
                continue
        keep.append((kw, value, orig))
    return keep


def _transform_applies(entry: Entry, spec, bound: Optional[Bound]) -> bool:
    """An argument's ``transform`` applies: always, or with ``transform_when`` only when
    that other argument is passed with a value other than its legacy default."""
    if not spec.transform:
        return False
    if spec.transform_when is None or bound is None:
        return True
    return not _unset(entry, spec.transform_when, bound)


def _map_one(entry: Entry, pname: str, arg: cst.Arg, out, wraps, named=None, call_args=None,
             bound=None):
    """Map one bound argument; appends to ``out``/``wraps``/``call_args`` or returns Manual."""
    value = arg.value
    src = code_of(value)
    spec = entry.args.get(pname)
    newname = pname
    if spec is not None:
        param = entry.param(pname)
        default = param.default if param and param.has_default else None
        if spec.call_arg:  # moved to the call the entry wrap makes
            if not (default is not None and same_value(src, default)):
                call_args.append((spec.call_arg, value))
            return None
        if spec.manual_if_set:
            if default is not None and same_value(src, default):
                return None
            return Manual(f"{pname}={src}: {spec.manual_if_set}")
        if spec.positional_only and arg.keyword is not None:
            return Manual(f"{pname}={src} by keyword: {spec.positional_only}")
        if spec.manual_values:
            hit = _literal_key(spec.manual_values, src)
            if hit is _NOT_LITERAL and pname == "act" and entry.kind == "class":
                # a layer class given act=<name>: applied to its output by a forward hook
                from upgrader.fixers import act_by_name
                if act_by_name.template(src) is not None:
                    wraps.append((ACT_LAYER_HELPER + "({call}, " + src.strip() + ")", {}))
                    return None
            if hit is _NOT_LITERAL:
                return Manual(f"{pname}={src} is not a literal, and the rewrite is manual for "
                              f"{', '.join(spec.manual_values)}")
            if hit is not None and pname == "act" and entry.kind == "class":
                # act='leaky_relu' that the modern layer cannot apply itself: the same hook
                from upgrader.fixers import act_by_name
                if act_by_name.literal_act(src) is not None:
                    wraps.append((ACT_LAYER_HELPER + "({call}, " + src.strip() + ")", {}))
                    return None
            if hit is not None:
                return Manual(f"{pname}={src}: {spec.manual_values[hit]}")
        if spec.drop:
            return None
        if spec.drop_if_default:
            if default is not None and same_value(src, default):
                return None
            if literal(src)[0] != "ok":
                return Manual(f"{pname}={src} is not a literal, so it may differ from the 1.8 "
                              f"default {default}; the modern API has no '{pname}' (drop it "
                              f"where it is {default})")
            return Manual(f"{pname}={src} differs from the 1.8 default {default}; "
                          f"the modern API has no '{pname}'")
        if spec.act:
            w = act_wrapper(src)
            if isinstance(w, Manual) and literal(src)[0] != "ok":
                # a name known only at run time: the module function that applies it
                from upgrader.fixers import act_by_name
                w = act_by_name.template(src) or w
            if isinstance(w, Manual):
                return w
            if w is not None:
                wraps.append((w, {}))
            return None
        if spec.wrap:
            if spec.unless is not None and same_value(src, spec.unless):
                return None
            if spec.unless in ("True", "False") and literal(src)[0] != "ok":
                # a flag that changes what the call returns (a tuple or not) must be known
                # when rewriting
                return Manual(f"{pname}={src} is not a literal: whether the result is wrapped "
                              "depends on its value")
            wraps.append((spec.wrap, {**(named or {}), "": _paren(value)}))
            return None
        if (spec.default is not None and default is not None and same_value(src, default)
                and not (spec.values or spec.transform) and not same_value(src, spec.default)):
            # the legacy default written out is the same call as leaving it out (clamp's
            # min=None meant 0.0 in 1.8.5): emit what `default` emits
            out.append((spec.rename or pname, fill(spec.default, named or {}), arg))
            return None
        if spec.values is not None:
            hit = _literal_key(spec.values, src)
            if hit is _NOT_LITERAL and _identity(spec.values) and _plain_reference(value):
                # every value keeps its spelling (conv2d's data_format 'NCHW' / 'NHWC'): a
                # name or attribute (PaddleCV's data_format=self.data_format) is passed on,
                # and the templates that read it (in_channels=...) test it at run time
                hit = None
            if hit is _NOT_LITERAL:
                if "{%s}" % pname in " ".join(_templates(entry)):  # e.g. kldiv_loss's wrap
                    return Manual(f"{pname}={src} is not a literal: the rewrite depends on its "
                                  "value (see the note)")
                return Manual(f"{pname}={src} is not a literal; map its value by hand "
                              f"({', '.join(f'{k} -> {v}' for k, v in spec.values.items())})")
            if hit is not None:
                value = cst.parse_expression(spec.values[hit])
        if _transform_applies(entry, spec, bound):
            if spec.transform.count("{}") > 1 and not _simple(value):
                return Manual(f"`{code_of(value)}` would be evaluated more than once in the "
                              "rewrite; assign it to a variable first")
            value = fill(spec.transform, {**(named or {}), "": _paren(value)})
        newname = spec.rename or pname
    out.append((newname, value, arg))


def _identity(table: Dict[str, str]) -> bool:
    """A ``values`` table that maps every literal to itself."""
    return bool(table) and all(k == v for k, v in table.items())


def _plain_reference(value) -> bool:
    """A name or an attribute chain on a name (evaluated again by a template at no cost)."""
    while isinstance(value, cst.Attribute):
        value = value.value
    return isinstance(value, cst.Name)


_NOT_LITERAL = object()


def _literal_key(table: Dict[str, str], src: str):
    """The key of ``table`` (literal source texts) equal to the literal ``src``, None when
    none is, ``_NOT_LITERAL`` when ``src`` is not a literal."""
    if literal(src)[0] != "ok":
        return _NOT_LITERAL
    return next((k for k in table if same_value(k, src)), None)


_HOLE = re.compile(r"\{([A-Za-z_][A-Za-z0-9_]*)\}")


def _templates(entry: Entry, bound: Optional[Bound] = None) -> List[str]:
    """Every template of the entry (the engine may pass an adjusted copy); given the
    call's arguments, without the argument wraps that do not apply (argument absent or
    equal to its ``unless``)."""
    out = list(entry.extra.values()) + ([entry.wrap] if entry.wrap else [])
    for pname, spec in entry.args.items():
        wrap = spec.wrap
        if wrap and bound is not None:
            arg = bound.values.get(pname)
            if arg is None or (spec.unless is not None and same_value(code_of(arg.value), spec.unless)):
                wrap = None
        transform = spec.transform if bound is None or _transform_applies(entry, spec, bound) else None
        out += [t for t in (transform, wrap, spec.default, spec.wrap_if_default) if t]
    return out


def _simple(node: cst.BaseExpression) -> bool:
    """Safe to evaluate more than once: a name, attribute chain or literal (lists too)."""
    if isinstance(node, (cst.Name, cst.Integer, cst.Float, cst.SimpleString)):
        return True
    if isinstance(node, cst.Attribute):
        return _simple(node.value)
    if isinstance(node, (cst.List, cst.Tuple)):
        return all(isinstance(e, cst.Element) and _simple(e.value) for e in node.elements)
    if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, cst.Minus):
        return isinstance(node.expression, (cst.Integer, cst.Float))
    return _rank_expr(node)


def _rank_expr(node: cst.BaseExpression) -> bool:
    """``len(<name or attribute chain>)`` plus or minus integers (``len(x.shape) - 1``, a
    rank computed in place): builds nothing and gives the same int each time."""
    if isinstance(node, cst.BinaryOperation) and isinstance(node.operator, (cst.Add, cst.Subtract)):
        sides = (node.left, node.right)
        return any(_rank_expr(s) for s in sides) and \
            all(isinstance(s, cst.Integer) or _rank_expr(s) for s in sides)
    return isinstance(node, cst.Call) and isinstance(node.func, cst.Name) \
        and node.func.value == "len" and len(node.args) == 1 and node.args[0].keyword is None \
        and not node.args[0].star and _simple(node.args[0].value)


def _literal_test(node: cst.BaseExpression):
    """A literal, or ``literal == literal`` / ``literal != literal`` (a template testing a
    filled hole, e.g. ``{reduction} == 'batchmean'``), as ``literal`` answers."""
    if isinstance(node, cst.Comparison) and len(node.comparisons) == 1:
        op = node.comparisons[0].operator
        if isinstance(op, (cst.Equal, cst.NotEqual)):
            left = code_of(node.left)
            right = code_of(node.comparisons[0].comparator)
            if literal(left)[0] == "ok" and literal(right)[0] == "ok":
                eq = same_value(left, right)
                return ("ok", eq if isinstance(op, cst.Equal) else not eq)
        return ("expr", code_of(node))
    return literal(code_of(node))


class _FoldIndex(cst.CSTTransformer):
    """``[a, b][0]`` → ``a``, ``2 or 1`` → ``2`` and ``(a if False else b)`` → ``(b)``: what
    a template leaves behind when a hole is filled with a literal."""

    def leave_IfExp(self, original, updated):
        kind, value = _literal_test(updated.test)
        if kind != "ok":
            return updated
        branch = updated.body if value else updated.orelse
        if branch.lpar or isinstance(branch, (cst.Name, cst.Attribute, cst.Call, cst.Subscript,
                                               cst.Integer, cst.Float, cst.SimpleString)):
            return branch
        return branch.with_changes(lpar=updated.lpar, rpar=updated.rpar)

    def leave_BooleanOperation(self, original, updated):
        kind, value = literal(code_of(updated.left))
        if kind != "ok" or updated.lpar:
            return updated
        if isinstance(updated.operator, cst.Or):
            return updated.left if value else updated.right
        if isinstance(updated.operator, cst.And):
            return updated.right if value else updated.left
        return updated

    def leave_Subscript(self, original, updated):
        value = updated.value
        if isinstance(value, (cst.List, cst.Tuple)) and len(updated.slice) == 1:
            idx = updated.slice[0].slice
            if isinstance(idx, cst.Index) and isinstance(idx.value, cst.Integer):
                i = int(idx.value.value)
                if 0 <= i < len(value.elements) and all(
                        isinstance(e, cst.Element) for e in value.elements):
                    el = value.elements[i].value
                    if isinstance(el, (cst.BinaryOperation, cst.BooleanOperation,
                                       cst.NamedExpr, cst.Yield)):
                        return el  # keeps its own parentheses (`(n := 10)` needs them)
                    return el.with_changes(lpar=[], rpar=[])
        return updated


def _named_values(entry: Entry, bound: Bound):
    """Values for ``{param}`` holes that templates use to refer to other legacy arguments."""
    uses: Dict[str, int] = {}
    for t in _templates(entry, bound):
        for name in _HOLE.findall(t):
            if name != "call":
                uses[name] = uses.get(name, 0) + 1
    named: Dict[str, cst.BaseExpression] = {}
    for name, n in uses.items():
        p = entry.param(name)
        if p is None:
            continue
        arg = bound.values.get(name)
        if arg is not None:
            value = arg.value
        elif p.has_default:
            value = cst.parse_expression(p.default)
        else:
            continue
        spec = entry.args.get(name)
        kept = not (spec is not None and (spec.drop or spec.drop_if_default or spec.act))
        if n + (1 if kept and arg is not None else 0) > 1 and not _simple(value) \
                and not (not kept and _indexed_once(entry, name, value)):
            return Manual(f"`{name}` would be evaluated more than once in the rewrite; "
                          f"assign `{code_of(value)}` to a variable first",
                          repeated=name if arg is not None else None)
        named[name] = _paren(value)
    return named


def _indexed_once(entry: Entry, name: str, value: cst.BaseExpression) -> bool:
    """``size=[vocab + 1, dim]`` used only as ``{size}[0]`` and ``{size}[1]``: after folding
    each element appears once, so the elements need not be simple."""
    if not isinstance(value, (cst.List, cst.Tuple)) or not all(
            isinstance(e, cst.Element) for e in value.elements):
        return False  # `[*dims, 3][0]` cannot be folded: the list would be built twice
    text = " ".join(_templates(entry))
    plain = len(re.findall(r"\{%s\}(?!\[\d+\])" % re.escape(name), text))
    idx = re.findall(r"\{%s\}\[(\d+)\]" % re.escape(name), text)
    return plain == 0 and len(idx) == len(set(idx)) and all(int(i) < len(value.elements) for i in idx)
