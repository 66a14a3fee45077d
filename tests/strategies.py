"""Hypothesis strategies: legacy Paddle 1.x programs built from the rule book.

``legacy_programs()`` draws whole modules that use random rule-book entries through random
import forms (``import paddle.fluid as fluid``, ``as F``, ``from paddle import fluid``,
``from paddle.fluid import layers``, ``import paddle.fluid.layers as L``,
``from paddle.fluid.layers import X as Y``, ``import paddle`` + full path, ...). Calls are
built from each entry's 1.8 signature: positional, keyword or mixed, with plausible
argument expressions (literal defaults and their variants, tensors, shapes, ``act``
strings, nested legacy calls). Calls and references sit in functions, classes (Layer
subclasses with ``self.fc = ...`` / ``forward``), lambdas, comprehensions, decorators,
``with fluid.dygraph.guard():`` and other compound statements.

``plain_programs()`` draws modules with no legacy usage that still mention ``fluid`` or
``paddle`` (modern API, a local variable or parameter named ``fluid``, another library's
``fluid``, strings and comments), so the engine parses them and must leave them alone.

Everything is read from the live rule book: nothing here names a particular rule.
"""
from __future__ import annotations

import keyword
import re
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Dict, List, Optional, Sequence, Tuple

from hypothesis import strategies as st

from upgrader.rulebook import MISSING, Entry, load

# ----------------------------------------------------------------------------- rule book

_IDENT = re.compile(r"^[a-z_][a-z0-9_]*$")


@lru_cache(maxsize=1)
def book():
    return load()


def _all_names() -> Dict[str, Entry]:
    b = book()
    out = dict(b.entries)
    out.update(b.by_alias)
    return out


@lru_cache(maxsize=1)
def module_paths() -> Tuple[str, ...]:
    """Legacy dotted paths that are modules (lower-case, not a function/class entry)."""
    names = _all_names()
    out = {"paddle.fluid"}
    for m in book().modules:
        if not m.startswith("paddle.fluid"):
            continue
        if not all(_IDENT.match(p) and not keyword.iskeyword(p) for p in m.split(".")):
            continue
        e = names.get(m)
        if e is not None and e.kind != "module":
            continue
        out.add(m)
    return tuple(sorted(out))


def _usable(name: str) -> bool:
    return name.startswith("paddle.fluid.") and all(
        p.isidentifier() and not keyword.iskeyword(p) for p in name.split("."))


@lru_cache(maxsize=1)
def callable_names() -> Tuple[Tuple[str, str], ...]:
    """``(spelling, entry name)`` for every callable entry with a legacy signature
    (entry names and their aliases)."""
    out = []
    for spelling, e in sorted(_all_names().items()):
        if e.kind in ("function", "class") and e.params is not None and _usable(spelling):
            out.append((spelling, e.name))
    return tuple(out)


@lru_cache(maxsize=1)
def reference_names() -> Tuple[Tuple[str, str], ...]:
    """Entries that programs use as values: classes (base classes, isinstance),
    constants, entries without a signature."""
    out = []
    for spelling, e in sorted(_all_names().items()):
        if not _usable(spelling):
            continue
        if e.kind in ("class", "constant") or e.params is None or e.rename_only:
            out.append((spelling, e.name))
    return tuple(out)


def _find(predicate) -> Tuple[str, ...]:
    return tuple(sorted(n for n, e in _all_names().items() if _usable(n) and predicate(e)))


@lru_cache(maxsize=1)
def guard_names() -> Tuple[str, ...]:
    return _find(lambda e: e.structural == "dygraph-guard")


@lru_cache(maxsize=1)
def decorator_names() -> Tuple[str, ...]:
    return _find(lambda e: e.structural == "no-grad-decorator"
                 or e.name.rsplit(".", 1)[-1] in ("no_grad", "declarative", "to_static"))


@lru_cache(maxsize=1)
def example_codes() -> Tuple[str, ...]:
    """The rule book's ``example.code`` snippets (legacy code written against
    ``import paddle.fluid as fluid``): realistic idioms around the structural rules."""
    out = []
    for e in sorted(book(), key=lambda e: e.name):
        code = (e.example or {}).get("code")
        if code and "fluid" in code:
            try:
                compile(code, "<example>", "exec")
            except SyntaxError:
                continue
            out.append(code.strip("\n"))
    return tuple(out)


@lru_cache(maxsize=1)
def layer_base_names() -> Tuple[str, ...]:
    return _find(lambda e: e.kind == "class" and e.name.rsplit(".", 1)[-1] == "Layer")


@lru_cache(maxsize=1)
def layer_class_names() -> Tuple[str, ...]:
    """Layer classes with a signature (``Linear``, ``Conv2D``, ``Pool2D`` ...)."""
    return _find(lambda e: e.kind == "class" and e.params is not None
                 and ".dygraph." in e.name and e.name.rsplit(".", 1)[-1][:1].isupper()
                 and e.name.rsplit(".", 1)[-1] != "Layer")


# ------------------------------------------------------------------------- expressions

TENSORS = ("x", "h", "y", "feat", "img", "label", "self.h", "inputs[0]", "batch['x']",
           "net(x)", "(x + 1)", "x * 2.0", "outs[-1]", "np.ones((2, 3), 'float32')")
SHAPES = ("[2, 3]", "[-1, 8]", "(4,)", "[1, 3, 8, 8]", "shape", "[n, 16]", "x.shape")
INTS = ("0", "1", "2", "3", "-1", "8", "16", "n", "k")
FLOATS = ("0.0", "0.1", "0.5", "1.0", "1e-5", "2.5", "lr")
ACTS = ("None", "'relu'", "'sigmoid'", "'tanh'", "'softmax'", "'leaky_relu'", "'gelu'",
        "act", "self.act")
STRINGS = ("'float32'", "'int64'", "'max'", "'avg'", "'NCHW'", "'fc_0'", "None")
OTHERS = ("None", "True", "False", "[x, y]", "(x, y)", "{'a': 1}", "fn", "lambda v: v",
          "cfg.value", "values[i]")


def _default_variants(default: str) -> Tuple[str, ...]:
    """The legacy default itself and plausible other values of the same kind."""
    d = default
    if d in ("True", "False"):
        return (d, "True" if d == "False" else "False", "flag")
    if d == "None":
        return ("None", "None", "x", "'name'", "[1]")
    if re.fullmatch(r"-?\d+", d):
        return (d, str(int(d) + 1), str(-int(d) if d != "0" else 2), "n")
    if re.fullmatch(r"-?[\d.]+(e-?\d+)?", d):
        return (d, "0.5", "2.0", "lr")
    if d[:1] in "'\"":
        return (d, d, "'avg'", "'max'", "'NHWC'", "mode")
    return (d, d, "x")


def _by_name(pname: str) -> Tuple[str, ...]:
    n = pname.lower()
    if n == "act":
        return ACTS
    if n in ("name",):
        return ("None", "'layer_0'", "name")
    if n in ("dtype",):
        return ("'float32'", "'int64'", "'float64'", "dtype", "'bool'")
    if "shape" in n or n in ("size", "pool_size", "filter_size", "kernel_size", "perm",
                             "num_filters", "output_size", "stride", "padding", "dims",
                             "starts", "ends", "axes", "num_or_sections"):
        return SHAPES + INTS
    if n in ("axis", "dim", "k", "num", "depth", "groups", "num_channels", "input_dim",
             "output_dim", "num_classes", "num_heads", "seed", "pad_value"):
        return INTS
    if n in ("learning_rate", "lr", "momentum", "epsilon", "scale", "alpha", "beta",
             "value", "rate", "dropout_prob", "p", "min", "max", "bias", "decay",
             "regularization_coeff", "clip_norm"):
        return FLOATS
    if n in ("input", "x", "y", "label", "logits", "weight", "inputs", "target", "tensor",
             "var", "val", "cond", "condition", "index", "ids", "prob", "predict",
             "labels", "left", "right", "a", "b", "z", "loss", "grad", "data"):
        return TENSORS
    if n in ("param_attr", "bias_attr", "weight_attr"):
        return ("None", "False", "attr", "ParamAttr_placeholder")
    if n in ("parameter_list", "parameters"):
        return ("model.parameters()", "net.parameters()", "params", "None")
    return ()


@dataclass
class Program:
    """A drawn program and what it is made of (for failure messages)."""
    code: str
    used: List[str] = field(default_factory=list)

    def __repr__(self) -> str:  # hypothesis prints this on failure
        return f"Program(used={self.used!r}, code=\n{self.code})"


# ----------------------------------------------------------------------------- builder

ALIAS_POOL = ("fluid", "F", "L", "pf", "fl", "dg", "layers", "nn", "lyr", "P", "fld",
              "dygraph", "opt", "init", "io_", "M", "Q")
NAME_POOL = ("Y", "op", "api", "dense", "fn2", "layer_fn", "thing", "Cls", "Alias",
             "renamed", "legacy_op", "g", "u")


class _Builder:
    """Draws one legacy program; tracks import bindings so every access resolves."""

    def __init__(self, draw, max_depth: int = 3):
        self.draw = draw
        self.max_depth = max_depth
        self.bindings: Dict[str, str] = {}  # local name -> dotted path it is bound to
        self.import_lines: List[str] = []
        self.paddle_bound = False  # `import paddle` (or `import paddle.fluid...`) present
        self.used: List[str] = []
        self.counter = 0

    # --------------------------------------------------------------- imports/access
    def _fresh_local(self, pool: Sequence[str], dotted: str) -> Optional[str]:
        choices = [a for a in pool if self.bindings.get(a, dotted) == dotted]
        if not choices:
            return None
        return self.draw(st.sampled_from(choices))

    def _bind(self, local: str, dotted: str, line: str) -> None:
        self.bindings[local] = dotted
        if line not in self.import_lines:
            self.import_lines.append(line)

    def access(self, spelling: str) -> str:
        """An expression that means the legacy ``spelling`` under some import form,
        reusing a binding already made or adding an import."""
        self.used.append(spelling)
        reuse = [(loc, d) for loc, d in self.bindings.items()
                 if spelling == d or spelling.startswith(d + ".")]
        if self.paddle_bound:
            reuse.append(("paddle", "paddle"))
        if reuse and self.draw(st.integers(0, 3)) > 0:
            loc, d = self.draw(st.sampled_from(sorted(reuse)))
            return loc + spelling[len(d):]
        form = self.draw(st.integers(0, 6))
        parts = spelling.split(".")
        prefixes = [".".join(parts[:i]) for i in range(2, len(parts))]
        mods = [p for p in prefixes if p in module_paths()]
        if form == 0 or not mods:  # `import paddle` + the full path
            line = self.draw(st.sampled_from(
                ["import paddle", "import paddle.fluid"] +
                ([f"import {mods[-1]}"] if mods else [])))
            if line not in self.import_lines:
                self.import_lines.append(line)
            self.paddle_bound = True
            return spelling
        if form in (1, 2):  # import MOD as ALIAS
            mod = self.draw(st.sampled_from(mods))
            alias = self._fresh_local(ALIAS_POOL, mod)
            if alias is None:
                return self._full(spelling)
            self._bind(alias, mod, f"import {mod} as {alias}")
            return alias + spelling[len(mod):]
        if form in (3, 4):  # from PARENT import CHILD [as ALIAS]   (CHILD a module)
            cands = [m for m in mods if m.count(".") >= 1]
            mod = self.draw(st.sampled_from(cands))
            parent, child = mod.rsplit(".", 1)
            if self.draw(st.booleans()) and self.bindings.get(child, mod) == mod \
                    and child != "paddle":
                local, line = child, f"from {parent} import {child}"
            else:
                local = self._fresh_local(ALIAS_POOL, mod)
                if local is None:
                    return self._full(spelling)
                line = f"from {parent} import {child} as {local}" if local != child else \
                    f"from {parent} import {child}"
            self._bind(local, mod, line)
            return local + spelling[len(mod):]
        # from MOD import NAME [as Y]: binds the API itself
        parent, name = spelling.rsplit(".", 1)
        if parent not in module_paths():
            return self._full(spelling)
        if self.draw(st.booleans()) and self.bindings.get(name, spelling) == spelling \
                and name not in ALIAS_POOL and name not in NAME_POOL and name != "paddle" \
                and name not in _RESERVED:
            local, line = name, f"from {parent} import {name}"
        else:
            local = self._fresh_local(NAME_POOL, spelling)
            if local is None:
                return self._full(spelling)
            line = f"from {parent} import {name} as {local}"
        self._bind(local, spelling, line)
        return local

    def _full(self, spelling: str) -> str:
        if "import paddle" not in self.import_lines:
            self.import_lines.append("import paddle")
        self.paddle_bound = True
        return spelling

    # ------------------------------------------------------------------- arguments
    def arg_value(self, pname: str, default, depth: int) -> str:
        options: List[str] = list(_by_name(pname))
        if default is not MISSING:
            options += list(_default_variants(default)) * 2
        if not options:
            options = list(TENSORS[:6]) + list(OTHERS)
        if depth < 2 and self.draw(st.integers(0, 9)) == 0:
            return self.call_expr(depth + 1)  # a nested legacy call as the argument
        value = self.draw(st.sampled_from(options))
        if value == "ParamAttr_placeholder":
            refs = [n for n, _ in callable_names() if n.endswith(".ParamAttr")]
            if refs:
                return f"{self.access(self.draw(st.sampled_from(refs)))}(name='w')"
            return "None"
        return value

    def call_expr(self, depth: int = 0, spelling: Optional[str] = None) -> str:
        if spelling is None:
            spelling, _ = self.draw(st.sampled_from(callable_names()))
        entry = book().lookup(spelling)
        func = self.access(spelling)
        params = list(entry.params or [])
        positional = [p for p in params if p.kind == "positional"]
        kwonly = [p for p in params if p.kind == "keyword_only"]
        var_pos = any(p.kind == "var_positional" for p in params)
        var_kw = any(p.kind == "var_keyword" for p in params)
        # which optional parameters are passed
        passed = {p.name for p in positional + kwonly
                  if not p.has_default or self.draw(st.integers(0, 3)) == 0}
        n_pos = self.draw(st.integers(0, len(positional)))
        args: List[str] = []
        for p in positional[:n_pos]:
            args.append(self.arg_value(p.name, p.default, depth))
        if var_pos and n_pos == len(positional) and self.draw(st.booleans()):
            args += [self.draw(st.sampled_from(TENSORS))
                     for _ in range(self.draw(st.integers(0, 2)))]
        kws = [p for p in positional[n_pos:] + kwonly if p.name in passed]
        kws = self.draw(st.permutations(kws)) if len(kws) > 1 else kws
        for p in kws:
            args.append(f"{p.name}={self.arg_value(p.name, p.default, depth)}")
        splat = self.draw(st.integers(0, 19))
        if splat == 0:
            args.append("*extra_args")
        elif splat == 1 or (var_kw and splat < 4):
            args.append("**extra_kwargs")
        sep = self.draw(st.sampled_from([", ", ",\n        ", ", "]))
        trailing = "," if args and sep != ", " and self.draw(st.booleans()) else ""
        return f"{func}({sep.join(args)}{trailing})"

    def reference_expr(self) -> str:
        spelling, _ = self.draw(st.sampled_from(reference_names()))
        return self.access(spelling)

    def legacy_expr(self, depth: int = 0) -> str:
        kind = self.draw(st.integers(0, 9))
        if kind == 0 and reference_names():
            return self.reference_expr()
        call = self.call_expr(depth)
        wrap = self.draw(st.integers(0, 11))
        if wrap == 0:
            return f"{call}.numpy()"
        if wrap == 1:
            return f"{call}[0]"
        if wrap == 2:
            return f"float({call})"
        if wrap == 3:
            return f"({call} + 1)"
        return call

    # ------------------------------------------------------------------- statements
    def var(self) -> str:
        self.counter += 1
        return f"v{self.counter}"

    def simple_stmt(self, in_function: bool, in_class_method: bool = False) -> List[str]:
        e = self.legacy_expr()
        form = self.draw(st.integers(0, 14))
        v = self.var()
        if form == 0:
            return [e]
        if form == 1 and in_function:
            return [f"return {e}"]
        if form == 2:
            return [f"{v} = lambda x, *a: {e}"]
        if form == 3:
            return [f"{v} = [{e} for x in xs]"]
        if form == 4:
            return [f"{v} = {{k: {e} for k, x in items.items() if x is not None}}"]
        if form == 5:
            return [f"{v} = list({e} for x in xs)"]
        if form == 6:
            return [f"{v} = {e} if flag else None"]
        if form == 7:
            return [f"{v}: object = {e}"]
        if form == 8:
            return [f"print({e}, sep='')"]
        if form == 9:
            return [f"{v} = isinstance(obj, {self.reference_expr()})"]
        if form == 10 and in_class_method:
            return [f"self.{v} = {e}"]
        if form == 11:
            return [f"{v}, {v}_b = {e}, {self.legacy_expr()}"]
        if form == 12:
            return [f"{v} = {e}  # comment stays"]
        if form == 13:
            return self.odd_stmt(e, v, in_function)
        return [f"{v} = {e}"]

    def odd_stmt(self, e: str, v: str, in_function: bool) -> List[str]:
        """Less common syntax around a legacy expression."""
        k = self.draw(st.integers(0, 13))
        if k == 0:  # an f-string (3.7-3.11 grammar: no quotes or line breaks inside)
            if "'" in e or '"' in e or "\n" in e:
                return [f"{v} = str({e})"]
            return [f"{v} = f'{{{e}}} done'"]
        if k == 1:
            return [f"if ({v} := {e}) is not None:", "    pass"]
        if k == 2:
            return [f"{v} = {e}; {v}_n = 2"]
        if k == 3:
            return [f"{v} = \\", f"    {e}"]
        if k == 4:
            return [f"{v} += {e}"]
        if k == 5:
            return [f"{v} = {v}_b = {e}"]
        if k == 6:
            return [f"assert {e} is not None, 'no value'"]
        if k == 7:
            ref = self.reference_expr()
            return [f"def ann_{v}(x: {ref} = None) -> {ref}:", f"    return {e}"]
        if k == 8:
            return [f"def dflt_{v}(x, fn={self.reference_expr()}):", f"    return {e}"]
        if k == 9:
            return ["try:", f"    {v} = {e}", f"except {self.reference_expr()} as err:", "    pass"]
        if k == 10:
            return [f"async def co_{v}(x):", f"    return await {e}"]
        if k == 11:
            return [f"{v} = ({e}  # inside parentheses", "    )"]
        if k == 12:
            return [f"{v} = [*{e}, *xs]"]
        # a function whose parameter shadows an import alias: not a legacy use in there
        alias = self.draw(st.sampled_from(sorted(self.bindings) or ["fluid"]))
        return [f"def shadow_{v}({alias}, x):", f"    return {alias}.layers.relu(x)", f"{v} = {e}"]

    def block(self, depth: int, in_function: bool, in_class_method: bool = False) -> List[str]:
        n = self.draw(st.integers(1, 3))
        out: List[str] = []
        for _ in range(n):
            out += self.statement(depth, in_function, in_class_method)
        return out

    def statement(self, depth: int, in_function: bool, in_class_method: bool = False) -> List[str]:
        if depth >= self.max_depth:
            return self.simple_stmt(in_function, in_class_method)
        kind = self.draw(st.integers(0, 17))
        ind = "    "

        def body(**kw):
            return [ind + l for l in self.block(depth + 1, kw.get("fn", in_function),
                                                 kw.get("meth", in_class_method))]
        if kind == 0:
            name = self.var()
            deco = []
            if decorator_names() and self.draw(st.integers(0, 2)) == 0:
                d = self.access(self.draw(st.sampled_from(decorator_names())))
                deco = [f"@{d}" + self.draw(st.sampled_from(["", "()"]))]
            return deco + [f"def f_{name}(x, *args, **kwargs):"] + body(fn=True)
        if kind == 1 and guard_names():
            g = self.access(self.draw(st.sampled_from(guard_names())))
            arg = self.draw(st.sampled_from(["", "", "place", "fluid_place"]))
            cands = [n for n, _ in callable_names() if n.rsplit(".", 1)[-1] == "CPUPlace"]
            if arg == "fluid_place" and cands:
                arg = f"{self.access(cands[0])}()"
            elif arg == "fluid_place":
                arg = ""
            asname = self.draw(st.sampled_from(["", "", " as g"]))
            return [f"with {g}({arg}){asname}:"] + body()
        if kind == 2:
            return ["with open(path) as fh:"] + body()
        if kind == 3:
            return ["if flag:"] + body() + ["else:"] + body()
        if kind == 4:
            return ["for x in xs:"] + body()
        if kind == 5:
            return ["while not done:"] + body() + [ind + "break"]
        if kind == 6:
            return ["try:"] + body() + ["except Exception as exc:", ind + "raise"]
        if kind == 7 and not in_class_method:
            return self.layer_class(depth)
        if kind == 8:
            name = self.var()
            return [f"class C_{name}(object):", ind + "attr = 1",
                    ind + "def method(self, x):"] + \
                [ind + l for l in body(fn=True, meth=True)]
        if kind == 10 and example_codes():
            return self.example_block()
        if kind == 9 and in_function:
            # an import inside a function, used right after it
            spelling, _ = self.draw(st.sampled_from(callable_names()))
            mod = spelling.rsplit(".", 1)[0]
            if mod in module_paths():
                alias = self.draw(st.sampled_from(["lf", "inner_mod"]))
                self.bindings[alias] = mod
                try:
                    call = self.call_expr(0, spelling)
                finally:
                    del self.bindings[alias]
                return [f"import {mod} as {alias}", f"{self.var()} = {call}"]
        return self.simple_stmt(in_function, in_class_method)

    def example_block(self) -> List[str]:
        """A rule-book example, ``fluid`` re-spelled through this program's imports."""
        code = self.draw(st.sampled_from(example_codes()))
        self.used.append("<example>")
        fluid = self.access_module("paddle.fluid")
        return re.sub(r"\bfluid\.", fluid + ".", code).splitlines()

    def access_module(self, dotted: str) -> str:
        """An expression for a legacy module under this program's imports."""
        reuse = sorted(loc for loc, d in self.bindings.items() if d == dotted)
        if reuse and self.draw(st.booleans()):
            return self.draw(st.sampled_from(reuse))
        form = self.draw(st.integers(0, 2))
        if form == 0:
            return self._full(dotted)
        parent, child = dotted.rsplit(".", 1)
        if form == 1:
            alias = self._fresh_local(ALIAS_POOL, dotted)
            if alias is None:
                return self._full(dotted)
            self._bind(alias, dotted, f"import {dotted} as {alias}")
            return alias
        local = child if self.bindings.get(child, dotted) == dotted else \
            self._fresh_local(ALIAS_POOL, dotted)
        if local is None:
            return self._full(dotted)
        self._bind(local, dotted, f"from {parent} import {child}" + (
            f" as {local}" if local != child else ""))
        return local

    def layer_class(self, depth: int) -> List[str]:
        ind = "    "
        name = f"Net{self.var()}"
        base = "object"
        if layer_base_names() and self.draw(st.integers(0, 3)) > 0:
            base = self.access(self.draw(st.sampled_from(layer_base_names())))
        lines = [f"class {name}({base}):", ind + "def __init__(self, act=None):",
                 ind * 2 + f"super({name}, self).__init__()"]
        attrs = []
        for i in range(self.draw(st.integers(1, 3))):
            if layer_class_names() and self.draw(st.integers(0, 2)) > 0:
                spelling = self.draw(st.sampled_from(layer_class_names()))
            else:
                spelling, _ = self.draw(st.sampled_from(callable_names()))
            attrs.append(f"l{i}")
            lines.append(ind * 2 + f"self.l{i} = {self.call_expr(1, spelling)}")
        lines.append("")
        lines.append(ind + "def forward(self, x):")
        for a in attrs:
            form = self.draw(st.integers(0, 3))
            if form == 0:
                lines.append(ind * 2 + f"x = self.{a}(x)")
            elif form == 1:
                lines.append(ind * 2 + f"y = [self.{a}(t) for t in x]")
            elif form == 2:
                lines.append(ind * 2 + f"x = self.{a}(self.{a}(x)) + 1")
            else:
                lines += [ind * 2 + l for l in self.simple_stmt(True, True)]
        lines.append(ind * 2 + "return x")
        return lines

    def program(self) -> str:
        body: List[str] = []
        for _ in range(self.draw(st.integers(1, 4))):
            body += self.statement(0, False)
            body.append("")
        header = self.draw(st.sampled_from(["", '"""A legacy module."""\n', "# -*- coding: utf-8 -*-\n",
                                            "from __future__ import print_function\n"]))
        extra = self.draw(st.sampled_from(["", "import numpy as np\n", "import os\nimport numpy as np\n"]))
        if self.draw(st.integers(0, 11)) == 0:
            spelling, _ = self.draw(st.sampled_from(callable_names()))
            mod, name = spelling.rsplit(".", 1)
            if mod in module_paths() and name not in _RESERVED:
                self.import_lines.append(f"from {mod} import *")
                body.append(f"star_v = {name}(x)")
        imports = list(self.import_lines)
        imports = self.draw(st.permutations(imports)) if len(imports) > 1 else imports
        main = ""
        if self.draw(st.integers(0, 3)) == 0:
            main = "\nif __name__ == '__main__':\n    " + "\n    ".join(
                self.block(self.max_depth, False)) + "\n"
            imports = list(dict.fromkeys(imports + [l for l in self.import_lines if l not in imports]))
        return header + extra + "\n".join(imports) + "\n\n" + "\n".join(body) + main


_RESERVED = {"x", "y", "h", "xs", "items", "flag", "done", "path", "fh", "exc", "act", "n",
             "k", "lr", "np", "os", "self", "shape", "mode", "fn", "cfg", "values", "i",
             "net", "model", "params", "attr", "name", "dtype", "feat", "img", "label",
             "inputs", "batch", "outs", "extra_args", "extra_kwargs", "place", "g", "t",
             "print", "list", "float", "isinstance", "object", "open", "range", "super",
             "Exception", "obj", "a", "v"}


@st.composite
def legacy_programs(draw, max_depth: int = 3) -> Program:
    b = _Builder(draw, max_depth)
    code = b.program()
    return Program(code, b.used)


# ------------------------------------------------------------------------ plain code

@lru_cache(maxsize=1)
def modern_calls() -> Tuple[str, ...]:
    """Today's API names (targets of the rule book) that are not legacy themselves."""
    b = book()
    out = set()
    for e in b:
        t = e.target
        if t and t.startswith("paddle.") and re.fullmatch(r"[\w.]+", t) and b.lookup(t) is None \
                and not t.startswith("paddle.fluid"):
            out.add(t)
    return tuple(sorted(out))


_PLAIN_STMTS = (
    "fluid_density = 997.0  # water, kg/m^3",
    "flow = {'fluid': 'water', 'rate': 1.5}",
    "msg = 'ported from paddle.fluid.layers.fc'",
    "# fluid.layers.fc(x, 10) was the 1.x spelling",
    "def viscosity(fluid, t):\n    return fluid.layers.relu(t) if fluid else t",
    "def mix(fluid=None):\n    fluid = fluid or Fluid()\n    return fluid.layers.fc(1)",
    "class Tank(object):\n    fluid = None\n\n    def level(self):\n        return self.fluid.layers.fc(self)",
    "result = obj.paddle.fluid.layers.fc(x)",
    "values = [fluid for fluid in fluids if fluid.layers]",
    "lam = lambda fluid: fluid.dygraph.guard()",
    "with ctx as fluid:\n    fluid.layers.relu(x)",
    "x = np.zeros((3, 4), dtype='float32')",
    "def train(model, loader):\n    for batch in loader:\n        loss = model(batch)\n    return loss",
)


@st.composite
def plain_programs(draw) -> Program:
    """A module with no legacy usage that mentions ``fluid`` or ``paddle`` anyway."""
    lines: List[str] = []
    imports = draw(st.lists(st.sampled_from(
        ["import numpy as np", "import paddle", "import paddle.nn.functional as F",
         "from mylib import fluid", "import fluidsim as fluid", "from paddle import nn",
         "import os"]), max_size=4, unique=True))
    calls = modern_calls()
    for _ in range(draw(st.integers(1, 8))):
        kind = draw(st.integers(0, 2))
        if kind == 0 or not calls:
            lines.append(draw(st.sampled_from(_PLAIN_STMTS)))
        elif kind == 1:
            t = draw(st.sampled_from(calls))
            if "import paddle" not in imports:
                imports.append("import paddle")
            lines.append(f"out = {t}(x)")
        else:
            lines.append(draw(st.sampled_from(
                ["fluid = load_fluid()\nfluid.layers.fc(x)", "y = fluid.layers.relu(x)",
                 "z = fluid.dygraph.Linear(3, 4)"])) if "from mylib import fluid" in imports
                or "import fluidsim as fluid" in imports else "fluid_x = 1")
    code = "\n".join(imports) + "\n\n" + "\n\n".join(lines) + "\n"
    return Program(code)
