"""Build a 1.x-compatible callable from a rule entry.

The wrapper has the entry's legacy signature (positional order and defaults), maps the
arguments exactly as the rule's ``args`` say (rename / drop / drop_if_default /
manual_if_set / transform / values / act / wrap / default), adds the entry's ``extra``
keywords, calls the target resolved from ``paddle`` with keywords only, and applies the
entry-level ``wrap``. Manual entries (and entries whose target is missing) give a stub
that raises :class:`compat.LegacyAPIError` with the migration note.

Wrappers are generated as Python source once per entry (like ``dataclasses``), so a call
costs one extra frame and a dict of keywords: no ``inspect`` and no binding per call.
"""
from __future__ import annotations

import ast
import copy
import re
import importlib
import inspect
import keyword
import sys
from typing import Any, Dict, List, Optional

from compat import LegacyAPIError
from compat import _runtime
from compat._runtime import manual_error, registry

__all__ = ["build", "resolve", "UNSET", "apply_act", "clear_cache", "same_as_meta"]


class _Unset(object):
    __slots__ = ()

    def __repr__(self):
        return "<not passed>"

    def __bool__(self):
        return False


UNSET = _Unset()

_cache: Dict[str, Any] = {}


def clear_cache() -> None:
    _cache.clear()


# -- target resolution ---------------------------------------------------------------

def resolve(dotted: str):
    """``"paddle.nn.functional.relu"`` -> the object (module imports as needed)."""
    parts = dotted.split(".")
    obj = None
    for i in range(len(parts), 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:i]))
        except ImportError:
            continue
        if i == len(parts) and i > 1:
            # a package attribute named like one of its submodules (paddle.amp.auto_cast is
            # the function paddle.amp exports, not the module it comes from): the attribute
            obj = getattr(sys.modules.get(".".join(parts[:-1])), parts[-1], obj)
        for attr in parts[i:]:
            obj = getattr(obj, attr)
        return obj
    raise ImportError(dotted)


# -- activations (the 1.x ``act=`` strings) -------------------------------------------

def _act_table():
    import paddle
    import paddle.nn.functional as F
    return {
        "relu": F.relu, "sigmoid": F.sigmoid, "tanh": F.tanh, "softmax": F.softmax,
        "relu6": F.relu6, "elu": F.elu, "gelu": F.gelu, "selu": F.selu,
        "leaky_relu": lambda x: F.leaky_relu(x, 0.02),           # 1.x op default alpha
        "hard_sigmoid": lambda x: F.hardsigmoid(x, slope=0.2, offset=0.5),
        "hard_swish": F.hardswish, "swish": F.swish, "softplus": F.softplus,
        "softsign": F.softsign, "logsigmoid": F.log_sigmoid, "tanh_shrink": F.tanhshrink,
        "softshrink": F.softshrink,
        # 1.x kept only |x| > 0.5 (today's hardshrink keeps +-0.5 too)
        "hard_shrink": lambda x: x * paddle.logical_or(x > 0.5, x < -0.5).astype(x.dtype),
        # hardtanh, not paddle.clip: 1.x's gradient is 0 at the bounds (clip passes it)
        "brelu": lambda x: F.hardtanh(x, 0.0, 24.0),
        "stanh": lambda x: 1.7159 * paddle.tanh(0.67 * x),
        "soft_relu": lambda x: paddle.log1p(paddle.exp(F.hardtanh(x, -40.0, 40.0))),
        "exp": paddle.exp, "log": paddle.log, "sqrt": paddle.sqrt, "rsqrt": paddle.rsqrt,
        "square": paddle.square, "abs": paddle.abs, "ceil": paddle.ceil,
        "floor": paddle.floor, "round": paddle.round, "cos": paddle.cos, "sin": paddle.sin,
        "reciprocal": paddle.reciprocal, "mish": F.mish,
        "thresholded_relu": lambda x: F.thresholded_relu(x, 1.0),  # 1.x op default threshold
        "erf": paddle.erf, "sign": paddle.sign, "acos": paddle.acos, "asin": paddle.asin,
        "atan": paddle.atan, "log1p": paddle.log1p,
        "pow": lambda x: x, "scale": lambda x: x,  # 1.x op defaults: factor 1, scale 1 bias 0
    }


_ACTS: Optional[dict] = None


def apply_act(x, act):
    """Apply a 1.x ``act`` string (``None`` = identity)."""
    global _ACTS
    if act is None:
        return x
    if _ACTS is None:
        _ACTS = _act_table()
    fn = _ACTS.get(act)
    if fn is None:
        raise LegacyAPIError("act=%r: unknown 1.x activation; apply the activation "
                             "explicitly with paddle.nn.functional" % (act,))
    return fn(x)


# -- helpers used by generated code --------------------------------------------------

_PLAIN = (int, float, str, type(None), tuple, list)


def _eq(value, default) -> bool:
    """``value`` equals the legacy default (no tensor comparisons, bool is not int)."""
    if value is default:
        return True
    if not isinstance(value, _PLAIN) or not isinstance(default, _PLAIN):
        return False
    if isinstance(value, bool) or isinstance(default, bool):
        return type(value) is type(default) and value == default
    try:
        return bool(value == default)
    except Exception:
        return False


def _vmap(table, value):
    try:
        return table[value]
    except (KeyError, TypeError):
        return value


def _to_1x(out):
    if getattr(out, "ndim", 1) == 0 and hasattr(out, "shape"):
        import paddle
        return paddle.reshape(out, [1])
    return out


class _Source(object):
    """A legacy default that cannot be evaluated here, shown as its source text."""

    def __init__(self, text):
        self.text = text

    def __repr__(self):
        return self.text


def _namespace():
    import numpy
    import paddle
    return {"paddle": paddle, "np": numpy, "numpy": numpy, "float32": "float32"}


def _eval(src: str, ns: dict):
    try:
        return ast.literal_eval(src)
    except Exception:
        pass
    try:
        return eval(compile(src, "<rule>", "eval"), dict(ns))  # noqa: S307 - rule data
    except Exception:
        return _Source(src)


def _legacy_signature(params, ns, with_self=False) -> inspect.Signature:
    out = []
    if with_self:
        out.append(inspect.Parameter("self", inspect.Parameter.POSITIONAL_OR_KEYWORD))
    kinds = {"positional": inspect.Parameter.POSITIONAL_OR_KEYWORD,
             "var_positional": inspect.Parameter.VAR_POSITIONAL,
             "keyword_only": inspect.Parameter.KEYWORD_ONLY,
             "var_keyword": inspect.Parameter.VAR_KEYWORD}
    for p in params:
        default = _eval(p.default, ns) if p.has_default else inspect.Parameter.empty
        out.append(inspect.Parameter(p.name, kinds[p.kind], default=default))
    return inspect.Signature(out)


_HOLE = re.compile(r"\{([A-Za-z_][A-Za-z0-9_]*)\}")


def _safe(name: str) -> str:
    return name + "_" if keyword.iskeyword(name) else name


# -- code generation -----------------------------------------------------------------

def _simple(value) -> bool:
    return value is None or isinstance(value, (bool, int, float, str))


def _target_params(target):
    """(positional parameter names in order, {name: default}) of the target, or None."""
    try:
        sig = inspect.signature(target.__init__ if isinstance(target, type) else target)
    except (TypeError, ValueError):
        return None
    params = list(sig.parameters.values())
    if isinstance(target, type) and params and params[0].name == "self":
        params = params[1:]
    positional, defaults = [], {}
    for q in params:
        if q.kind in (q.POSITIONAL_ONLY, q.POSITIONAL_OR_KEYWORD):
            positional.append(q.name)
        if q.default is not q.empty:
            defaults[q.name] = q.default
        if q.kind == q.VAR_POSITIONAL:
            break
    return positional, defaults


class _Gen(object):
    """Generates the argument-mapping body for one entry.

    Each emitted keyword is either *always* present (required legacy parameter, a rule
    ``default``, an ``extra``, or an optional parameter whose 1.x default equals the
    target's own default: passing it changes nothing) or *conditional* (only when the
    legacy call passed it: collected in a dict). Always-present keywords that form a
    prefix of the target's positional parameters are passed positionally, which is
    measurably cheaper for today's decorated Paddle functions.
    """

    def __init__(self, e, ns, target=None):
        self.e = e
        self.ns = ns
        self.pre: List[str] = []
        self.post: List[str] = []
        self.call_kw: List[str] = []  # call_arg keywords for the entry wrap's call
        self.act_param: Optional[str] = None
        self.varpos: Optional[str] = None
        self.sig_parts: List[str] = []
        self.always: Dict[str, str] = {}   # target keyword -> expression
        self.conditional = False
        self.cond_names = set()            # target keywords passed only when given
        self.n = 0
        self.tparams = _target_params(target) if target is not None else None

    def const(self, value) -> str:
        self.n += 1
        key = "_c%d" % self.n
        self.ns[key] = value
        return key

    def run(self):
        e = self.e
        params = e.params or []
        star_done = False
        for p in params:
            v = _safe(p.name)
            if p.kind == "var_positional":
                self.sig_parts.append("*" + v)
                self.varpos = v
                star_done = True
                continue
            if p.kind == "var_keyword":
                self.sig_parts.append("**" + v)
                self.conditional = True
                self.pre.append("_kw.update(%s)" % v)
                continue
            if p.kind == "keyword_only" and not star_done:
                self.sig_parts.append("*")
                star_done = True
            self.param(p, v)
        for k, src in e.extra.items():
            self.always[k] = "(%s)" % self.holes(src)

    def holes(self, tmpl: str) -> str:
        """``{param}`` in a rule template names another legacy argument (its value, or its
        1.x default when the call did not pass it)."""
        def sub(m):
            p = self.e.param(m.group(1)) if self.e.params else None
            if p is None:
                return m.group(0)
            v = _safe(p.name)
            if not p.has_default:
                return "(%s)" % v
            return "(%s if %s is _UNSET else %s)" % (self.const(_eval(p.default, self.ns)), v, v)
        return _HOLE.sub(sub, tmpl)

    def _same_default(self, p, new) -> bool:
        """The 1.x default equals the target's default for ``new``: omitting and passing
        it are the same call."""
        if self.tparams is None or new not in self.tparams[1]:
            return False
        d = _eval(p.default, self.ns)
        return not isinstance(d, _Source) and _eq(d, self.tparams[1][new]) and _eq(self.tparams[1][new], d)

    def param(self, p, v):
        spec = _without_redundant_1d(self.e, self.e.args.get(p.name))
        required = not p.has_default
        passed = "True" if required else "%s is not _UNSET" % v
        plain = spec is None or (spec.rename is not None and not (
            spec.transform or spec.values or spec.default is not None or spec.drop
            or spec.drop_if_default or spec.manual_if_set or spec.act or spec.wrap
            or getattr(spec, "wrap_if_default", None) or getattr(spec, "call_arg", None)
            or getattr(spec, "manual_if_unset", None)))
        if plain:
            new = p.name if spec is None else spec.rename
            if required:
                self.sig_parts.append(v)
                self.always[new] = v
            elif self._same_default(p, new):
                self.sig_parts.append("%s=%s" % (v, self.const(_eval(p.default, self.ns))))
                self.always[new] = v
            else:
                self.sig_parts.append("%s=_UNSET" % v)
                self.conditional = True
                self.cond_names.add(new)
                self.pre.append("if %s: _kw[%r] = %s" % (passed, new, v))
            return
        self.sig_parts.append(v if required else "%s=_UNSET" % v)
        if getattr(spec, "call_arg", None):  # an argument of the call the entry wrap makes
            cond = passed
            if p.has_default:
                cond += " and not _eq(%s, %s)" % (v, self.const(_eval(p.default, self.ns)))
            self.call_kw.append("if %s: _ckw[%r] = %s" % (cond, spec.call_arg, v))
            return
        if getattr(spec, "manual_if_unset", None):
            err = self.const(manual_error(self.e.name, "argument %r not given: %s"
                                          % (p.name, spec.manual_if_unset), entry=self.e))
            cond = "True" if required else "%s is _UNSET" % v
            if p.has_default:
                cond = "%s is _UNSET or _eq(%s, %s)" % (v, v, self.const(_eval(p.default, self.ns)))
            self.pre.append("if %s: raise %s" % (cond, err))
        if spec.manual_if_set is not None:
            err = self.const(manual_error(self.e.name, "argument %r: %s" % (p.name, spec.manual_if_set),
                                          entry=self.e))
            cond = passed
            if p.has_default:  # passing the 1.x default changes nothing
                cond += " and not _eq(%s, %s)" % (v, self.const(_eval(p.default, self.ns)))
            self.pre.append("if %s: raise %s" % (cond, err))
            return
        if spec.drop:
            return
        if spec.act:
            self.act_param = v
            return
        if spec.wrap is not None:
            tmpl = self.holes(spec.wrap.replace("{call}", "_out").replace("{}", "(%s)" % v))
            cond = passed
            if spec.unless is not None:
                cond += " and not _eq(%s, %s)" % (v, self.const(_eval(spec.unless, self.ns)))
            self.post.append("if %s: _out = %s" % (cond, tmpl))
            return
        if spec.drop_if_default:
            if p.has_default:
                d = self.const(_eval(p.default, self.ns))
                err = self.const(manual_error(
                    self.e.name, "argument %r has no equivalent in %s unless it keeps its "
                    "1.x default %s" % (p.name, self.e.target, p.default), entry=self.e))
                self.pre.append("if %s and not _eq(%s, %s): raise %s" % (passed, v, d, err))
            return
        wid = getattr(spec, "wrap_if_default", None)
        if wid:  # e.g. 1.x full reductions returned shape [1]
            tmpl = self.holes(wid.replace("{call}", "_out").replace("{}", "(%s)" % v))
            cond = "True" if not p.has_default else "%s is _UNSET or _eq(%s, %s)" % (
                v, v, self.const(_eval(p.default, self.ns)))
            for lit in getattr(spec, "wrap_also_for", None) or ():
                cond += " or _eq(%s, %s)" % (v, self.const(_eval(lit, self.ns)))
            self.post.append("if %s: _out = %s" % (cond, tmpl))
        new = spec.rename or p.name
        expr = v
        if spec.values:
            table = {}
            for k, val in spec.values.items():
                table[_eval(k, self.ns)] = _eval(val, self.ns)
            expr = "_vmap(%s, %s)" % (self.const(table), v)
        if spec.transform:
            expr = self.holes(spec.transform.replace("{}", "(%s)" % expr))
        if spec.default is not None:
            unset = "%s is _UNSET" % v
            if p.has_default:  # the 1.x default written out is the same as leaving it out
                unset += " or _eq(%s, %s)" % (v, self.const(_eval(p.default, self.ns)))
            self.always[new] = "((%s) if %s else %s)" % (self.holes(spec.default), unset, expr)
        elif required:
            self.always[new] = expr
        else:
            self.conditional = True
            self.cond_names.add(new)
            self.pre.append("if %s: _kw[%r] = %s" % (passed, new, expr))

    def body(self) -> List[str]:
        return (["_kw = {}"] if self.conditional else []) + self.pre

    def call(self, target_expr: str) -> List[str]:
        """Positional arguments up to the last target parameter we pass (gaps filled with
        the target's own defaults), keywords for the rest."""
        always = dict(self.always)
        args: List[str] = []
        if self.tparams is not None and not self.varpos:
            names, defaults = self.tparams
            last = -1
            for i, name in enumerate(names):
                if name in always:
                    last = i
            slots: List[str] = []
            for name in names[:last + 1]:
                if name in always:
                    slots.append(always.pop(name))
                elif name in defaults and _simple(defaults[name]) and name not in self.cond_names:
                    slots.append(self.const(defaults[name]))
                else:
                    break
            if len(slots) == last + 1:
                args = slots
            else:  # a gap we cannot fill: keywords from there on
                always = dict(self.always)
                for name in names:
                    if name not in always:
                        break
                    args.append(always.pop(name))
        if self.varpos:
            args.append("*" + self.varpos)
        args += ["%s=%s" % (k, x) for k, x in always.items()]
        if self.conditional:
            args.append("**_kw")
        return ["_out = %s(%s)" % (target_expr, ", ".join(args))]

    def tail(self, act_expr: Optional[str]) -> List[str]:
        """The entry ``wrap`` completes the call first, then what the arguments add
        (``wrap``/``wrap_if_default`` in parameter order), the activation last."""
        lines = []
        if self.e.wrap:
            wrap = self.e.wrap
            if self.call_kw:  # rulebook: such a wrap is "{call}(...)"
                lines += ["_ckw = {}"] + self.call_kw
                wrap = wrap[:-1] + ", **_ckw)"
            lines.append("_out = " + self.holes(wrap.replace("{call}", "_out")))
        lines += self.post
        if act_expr:
            lines.append("if %s is not None and %s is not _UNSET: _out = _apply_act(_out, %s)"
                         % (act_expr, act_expr, act_expr))
        return lines


#: Targets that may return a 0-d tensor where 1.x returned shape [1].
_REDUCERS = {
    "paddle.sum", "paddle.mean", "paddle.max", "paddle.min", "paddle.prod", "paddle.all",
    "paddle.any", "paddle.amax", "paddle.amin", "paddle.logsumexp", "paddle.numel",
    "paddle.metric.accuracy", "paddle.static.accuracy", "paddle.dot", "paddle.norm",
    "paddle.linalg.norm", "paddle.dist", "paddle.trace", "paddle.std", "paddle.var",
    "paddle.median", "paddle.nansum", "paddle.nanmean", "paddle.count_nonzero",
}


def _without_redundant_1d(e, spec):
    """``spec`` without a ``wrap_if_default`` of ``paddle.atleast_1d`` when the generated
    function's last step already turns a 0-d result into shape [1] (``_may_be_0d``); None
    when nothing else is left (the argument is then passed through as is, which is cheaper
    than a conditional keyword: matmul's transpose_y)."""
    wid = getattr(spec, "wrap_if_default", None)
    if not wid or wid.replace(" ", "") != "paddle.atleast_1d({call})" or not _may_be_0d(e):
        return spec
    spec = copy.copy(spec)
    spec.wrap_if_default = spec.wrap_also_for = None
    return spec if any(vars(spec).values()) else None


def _may_be_0d(e) -> bool:
    """The target may give a 0-d tensor where 1.x gave shape [1] (a reduction)."""
    t = e.target or ""
    note = e.note.lower()
    if "in both" in note:  # e.g. fluid.layers.rank: 0-d in 1.8.5 as well
        return False
    return t in _REDUCERS or "loss" in t.lower() or "shape [1]" in note


def _base_ns(e, target) -> dict:
    ns = _namespace()
    ns.update({"_UNSET": UNSET, "_target": target, "_eq": _eq, "_vmap": _vmap,
               "_apply_act": apply_act, "_to_1x": _to_1x, "_name": e.name,
               "_reshape": __import__("paddle").reshape, "_ONE": [1],
               "_warned": _runtime._warned, "_warn_once": _runtime.warn_once})
    return ns


_HERE = __import__("os").path.dirname(__import__("os").path.abspath(__file__))


def _compile(src: str, ns: dict, fname: str):
    # a file name under compat/ (paddle.jit.to_static leaves compat's code alone)
    code = compile(src, "%s/<generated %s>" % (_HERE, ns.get("_name", fname)), "exec")
    exec(code, ns)  # noqa: S102 - generated from rule data
    fn = ns[fname]
    fn.__compat_source__ = src
    return fn


def _make_function(e, target):
    ns = _base_ns(e, target)
    g = _Gen(e, ns, target)
    g.run()
    fname = _safe(e.name.rsplit(".", 1)[-1])
    body = ["if _name not in _warned: _warn_once(_name, None, 3)"]
    body += g.body() + g.call("_target") + g.tail(g.act_param)
    if _may_be_0d(e):  # 1.x had no 0-d tensors: a full reduction gave shape [1]
        body += ["try:", "    if not _out.shape: _out = _reshape(_out, _ONE)",
                 "except AttributeError:", "    pass"]
    body.append("return _out")
    src = "def %s(%s):\n%s\n" % (fname, ", ".join(g.sig_parts),
                                 "\n".join("    " + l for l in body))
    fn = _compile(src, ns, fname)
    fn.__signature__ = _legacy_signature(e.params, ns)
    _decorate(fn, e)
    return fn


def _passthrough(e, target):
    name = e.name

    def legacy_call(*args, **kwargs):
        if name not in _runtime._warned:
            _runtime.warn_once(name, None, 3)
        return target(*args, **kwargs)
    legacy_call.__name__ = e.name.rsplit(".", 1)[-1]
    try:
        legacy_call.__signature__ = inspect.signature(target)
    except (TypeError, ValueError):
        pass
    _decorate(legacy_call, e)
    return legacy_call


def _make_class(e, target):
    ns = _base_ns(e, target)
    clsname = e.name.rsplit(".", 1)[-1]
    attrs: Dict[str, Any] = {"__module__": _module_of(e.name),
                             "__qualname__": clsname, "__compat_legacy__": e.name,
                             "__doc__": _doc(e)}
    if e.params is not None:
        g = _Gen(e, ns, target)
        g.run()
        body = ["if _name not in _warned: _warn_once(_name, None, 3)"]
        body += g.body()
        body += [l.replace("_out = _target(", "_target.__init__(self, ", 1) for l in g.call("_target")]
        if g.act_param:
            body.append("self._compat_act = None if %s is _UNSET else %s" % (g.act_param, g.act_param))
        src = "def __init__(%s):\n%s\n" % (", ".join(["self"] + g.sig_parts),
                                          "\n".join("    " + l for l in body))
        init = _compile(src, ns, "__init__")
        init.__signature__ = _legacy_signature(e.params, ns, with_self=True)
        attrs["__init__"] = init
        if g.act_param or e.wrap or g.post:
            if not hasattr(target, "forward"):
                attrs["__init__"] = _stub_init(e, "its act/wrap mapping needs a Layer target")
            else:
                fsrc = ("def forward(self, *args, **kwargs):\n"
                        "    _out = _target.forward(self, *args, **kwargs)\n"
                        + "".join("    %s\n" % l for l in ([] if not e.wrap else
                                                           ["_out = " + e.wrap.replace("{call}", "_out")]))
                        + "    _act = getattr(self, '_compat_act', None)\n"
                        "    if _act is not None: _out = _apply_act(_out, _act)\n"
                        "    return _out\n")
                attrs["forward"] = _compile(fsrc, ns, "forward")
    else:
        name = e.name

        def __init__(self, *args, **kwargs):
            if name not in _runtime._warned:
                _runtime.warn_once(name, None, 3)
            target.__init__(self, *args, **kwargs)
        attrs["__init__"] = __init__
    if e.rename_only:  # the same class as its target under a 1.x name
        try:
            return same_as_meta(type(target))(clsname, (target,),
                                              dict(attrs, __compat_same_as__=target))
        except TypeError:
            pass
    try:
        return type(clsname, (target,), attrs)
    except TypeError:
        # not subclassable (e.g. a final extension type): a factory keeps the call
        if e.params is not None:
            return _make_function(e, target)
        return _passthrough(e, target)


_same_as_metas: Dict[type, type] = {}


def same_as_meta(meta: type = type) -> type:
    """The metaclass (derived from *meta*, the target's own metaclass) of a 1.x class that
    is its target under another name: a class whose ``__compat_same_as__`` names a class
    (or a tuple of classes) answers ``isinstance``/``issubclass`` exactly as that target
    does, as the one 1.x class did (``isinstance(fluid.dygraph.Linear(3, 2),
    fluid.dygraph.Layer)``, ``isinstance(opt, fluid.optimizer.Optimizer)`` for every
    optimizer). Classes that only inherit ``__compat_same_as__`` (user subclasses such as
    ``class Net(fluid.dygraph.Layer)``) answer as usual."""
    got = _same_as_metas.get(meta)
    if got is None:
        def __instancecheck__(cls, obj):
            same = cls.__dict__.get("__compat_same_as__")
            if same is not None:
                return isinstance(obj, same)
            return meta.__instancecheck__(cls, obj)

        def __subclasscheck__(cls, sub):
            same = cls.__dict__.get("__compat_same_as__")
            if same is not None:
                return issubclass(sub, same)
            return meta.__subclasscheck__(cls, sub)

        got = _same_as_metas[meta] = type("Legacy" + meta.__name__, (meta,), {
            "__module__": __name__, "__instancecheck__": __instancecheck__,
            "__subclasscheck__": __subclasscheck__})
    return got


def _stub_init(e, detail):
    err = manual_error(e.name, detail, entry=e)

    def __init__(self, *args, **kwargs):
        raise err
    return __init__


def _manual(e, detail: str = ""):
    err_detail = detail
    ns = _namespace()
    if e.kind == "class":
        def __init__(self, *args, **kwargs):
            raise manual_error(e.name, err_detail, entry=e)
        attrs = {"__init__": __init__, "__module__": _module_of(e.name),
                 "__doc__": _doc(e), "__compat_legacy__": e.name}
        if e.params is not None:
            __init__.__signature__ = _legacy_signature(e.params, ns, with_self=True)
        return type(e.name.rsplit(".", 1)[-1], (object,), attrs)

    def manual(*args, **kwargs):
        raise manual_error(e.name, err_detail, entry=e)
    manual.__name__ = e.name.rsplit(".", 1)[-1]
    if e.params is not None:
        manual.__signature__ = _legacy_signature(e.params, ns)
    _decorate(manual, e)
    return manual


def _doc(e) -> str:
    text = "Paddle 1.x ``%s`` (compat)." % e.short
    if e.target:
        text += " Today: ``%s``." % e.target
    if e.note:
        text += "\n\n" + e.note
    return text


def _module_of(name: str) -> str:
    mod = name.rsplit(".", 1)[0]
    return "compat" + mod[len("paddle"):] if mod.startswith("paddle.fluid") else mod


def _decorate(fn, e):
    fn.__compat_legacy__ = e.name
    fn.__doc__ = _doc(e)
    fn.__module__ = _module_of(e.name)
    fn.__qualname__ = e.name.rsplit(".", 1)[-1]


# -- public entry point ----------------------------------------------------------------

def build(e):
    """The compat object for rule entry *e* (cached per entry)."""
    obj = _cache.get(e.name)
    if obj is None:
        obj = _build(e)
        _cache[e.name] = obj
        if isinstance(obj, type) and e.name not in registry:
            _attach_members(e, obj)
    return obj


def _attach_members(e, cls):
    """Entries named ``<class entry>.<member>`` (1.x static methods such as
    ``BeamSearchDecoder.tile_beam_merge_with_batch``) become attributes of the class."""
    prefix = e.name + "."
    book = _runtime.book()
    for name, member in list(book.entries.items()):
        if not name.startswith(prefix) or "." in name[len(prefix):]:
            continue
        attr = name[len(prefix):]
        if attr in cls.__dict__ or (hasattr(cls, attr) and member.safety != "manual"):
            continue
        try:
            setattr(cls, attr, staticmethod(build(member)))
        except (TypeError, AttributeError):  # pragma: no cover - immutable type
            pass


def _build(e):
    _runtime.built_from.setdefault(e.name, e)
    for n in [e.name] + list(e.aliases):
        if n in registry:
            return registry[n]
    if e.kind == "module":
        return importlib.import_module(_module_of(e.name + ".x"))
    if e.safety == "manual" or not e.target:
        return _manual(e)
    try:
        target = resolve(e.target)
    except (ImportError, AttributeError):
        return _manual(e, "its replacement %s does not exist in this Paddle" % e.target)
    if e.kind == "constant":
        return target
    if e.kind == "class" and isinstance(target, type):
        return _make_class(e, target)
    if e.params is None:
        return _passthrough(e, target)
    return _make_function(e, target)
