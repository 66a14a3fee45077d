"""PU101 layer names: ``name=`` of a layer function rewritten to a layer class.

What it does
    ``fluid.layers.conv2d`` / ``conv2d_transpose`` / ``conv3d`` / ``conv3d_transpose`` /
    ``batch_norm`` / ``layer_norm`` become a layer class built and called at once
    (``paddle.nn.Conv2D(...)(x)``); their ``name=`` is dropped. A call given ``name=``
    is rewritten only with ``--unsafe-fixes`` when parameter names can change: the call
    leaves one of its parameters to be named for it (no ``param_attr`` / ``bias_attr``
    name, no ``moving_mean_name`` / ``moving_variance_name``), or the module has another
    call of the same function, not given ``name=``, that does.

Why is this bad?
    1.8 named the parameters of a layer given ``name='x'`` ``x.w_0`` / ``x.b_0`` and did
    not count it among the generated ``conv2d_N`` names; the layer class names its
    parameters ``conv2d_N.w_0`` and always takes a number (checked on 1.8.5 and 3.3.1:
    ``conv2d(x)``, ``conv2d(.., name='nc')``, ``conv2d(..)`` give ``conv2d_0``, ``nc``,
    ``conv2d_1`` on 1.8.5 and ``conv2d_0``, ``conv2d_1``, ``conv2d_2`` after the rewrite).
    Values are the same, but a 1.8 checkpoint (``save_persistables`` / ``fluid.save``
    files are named by parameter) no longer loads, or loads one layer's weights into
    another of the same shape, and parameters found by name (``find_var('nc.w_0')``)
    are missing.

Example
    ``fluid.layers.conv2d(x, 4, 3, name='c1')`` (weight and bias named for it) is unsafe;
    ``fluid.layers.conv2d(x, 4, 3, name='c1', param_attr=ParamAttr(name='c1_w'),
    bias_attr=False)`` in a module whose other conv2d calls name their parameters too
    (ResNet's ``conv_bn_layer``) stays safe.

Fix safety
    Unsafe as described; give every parameter of the call a name in ``param_attr`` /
    ``bias_attr`` (``'c1.w_0'``, ``'c1.b_0'`` keep 1.8's) to make the rewrite keep them.
"""
from __future__ import annotations

import ast
from typing import Dict, Optional, Tuple

from upgrader import untouched
from upgrader.args import code_of

CODE = "PU101"

# legacy function -> the arguments that name its parameters (and the flag that drops one)
LAYERS: Dict[str, Tuple[Tuple[str, Optional[str]], ...]] = {
    "paddle.fluid.layers.conv2d": (("param_attr", None), ("bias_attr", None)),
    "paddle.fluid.layers.conv2d_transpose": (("param_attr", None), ("bias_attr", None)),
    "paddle.fluid.layers.conv3d": (("param_attr", None), ("bias_attr", None)),
    "paddle.fluid.layers.conv3d_transpose": (("param_attr", None), ("bias_attr", None)),
    "paddle.fluid.layers.batch_norm": (("param_attr", None), ("bias_attr", None),
                                       ("moving_mean_name", None), ("moving_variance_name", None)),
    "paddle.fluid.layers.layer_norm": (("param_attr", "scale"), ("bias_attr", "shift")),
}
UNSAFE_WHEN = tuple(LAYERS)

WHY = ("name={name}: 1.8 named this layer's parameters {name}.w_0/.b_0 and left it out of "
       "the generated {kind}_N names; the layer class names them {kind}_N.w_0 and takes a "
       "number, so {subject} get other names (same values; 1.8 checkpoints and lookups by "
       "name miss them or load another layer's weights). Name every parameter in "
       "param_attr/bias_attr{stats} to keep 1.8's names")


def _is_none(v) -> bool:
    return isinstance(v, ast.Constant) and v.value is None


def _auto_named(call: ast.Call, specs, positions) -> bool:
    """Whether the legacy call (or its rewrite, the layer class with ``weight_attr``)
    leaves one of its parameters to be named for it."""
    args = {("param_attr" if k.arg == "weight_attr" else k.arg): k.value for k in call.keywords if k.arg}
    for i, a in enumerate(call.args):
        if isinstance(a, ast.Starred):
            return True
        if i < len(positions):
            args.setdefault(positions[i], a)
    if any(k.arg is None for k in call.keywords):
        return True  # **kwargs: unknown
    for pname, flag in specs:
        if flag is not None and isinstance(args.get(flag), ast.Constant) and args[flag].value is False:
            continue  # layer_norm(scale=False): no such parameter
        v = args.get(pname)
        if v is None or _is_none(v):
            return True
        if isinstance(v, ast.Constant):
            if v.value is False:
                continue  # bias_attr=False: no bias
            if isinstance(v.value, str):
                continue
            return True
        if isinstance(v, (ast.JoinedStr, ast.BinOp)):
            continue  # a name built as a string
        if pname.endswith("_name"):
            continue  # moving_mean_name=<expression>: a name
        if isinstance(v, ast.Call):
            f = v.func
            fname = f.attr if isinstance(f, ast.Attribute) else f.id if isinstance(f, ast.Name) else ""
            if fname == "ParamAttr":
                named = next((k.value for k in v.keywords if k.arg == "name"), v.args[0] if v.args else None)
                if named is not None and not _is_none(named):
                    continue
        return True  # a ParamAttr without a name, or a value the rewrite cannot see into
    return False


def _name_of(call: ast.Call, positions):
    """The call's ``name=`` value, None when absent or None."""
    name = next((k.value for k in call.keywords if k.arg == "name"), None)
    if name is None and "name" in positions and len(call.args) > positions.index("name"):
        name = call.args[positions.index("name")]
    return None if name is None or _is_none(name) else name


def _positions(entry):
    try:
        return [p.name for p in entry.params] if entry.params else []
    except AttributeError:
        return []


def _module_auto_named(up, entry) -> bool:
    """How many calls of the same function (or of its layer class) in the module leave a
    parameter unnamed without being given ``name=``: their generated numbers move."""
    cache = getattr(up, "_layer_names_cache", None)
    if cache is None:
        cache = up._layer_names_cache = {}
    if entry.name in cache:
        return cache[entry.name]
    short = entry.name.rsplit(".", 1)[1]
    layer = (entry.target or "").rsplit(".", 1)[-1]  # the rewrite of the calls fix has done
    specs, positions = LAYERS[entry.name], _positions(entry)
    found = 0
    try:
        tree = untouched.parse(up.source)
    except SyntaxError:
        tree = None
    for n in ast.walk(tree) if tree is not None else ():
        if isinstance(n, ast.Call):
            f = n.func
            fname = f.attr if isinstance(f, ast.Attribute) else f.id if isinstance(f, ast.Name) else ""
            if fname == short and _auto_named(n, specs, positions) and _name_of(n, positions) is None \
                    or fname == layer and _auto_named(n, specs, ()):
                found += 1  # its numbered names move (a call given name= is reported itself)
    cache[entry.name] = found
    return found


def unsafe_reason(up, original, entry) -> Optional[str]:
    """Why this call's rewrite changes parameter names (see the module doc), or None."""
    specs = LAYERS.get(entry.name)
    if specs is None:
        return None
    try:
        call = ast.parse(code_of(original).strip(), mode="eval").body
    except SyntaxError:
        return None
    if not isinstance(call, ast.Call):
        return None
    positions = _positions(entry)
    name = _name_of(call, positions)
    if name is None:
        return None
    own = _auto_named(call, specs, positions)
    others = _module_auto_named(up, entry)
    if not own and others <= 0:
        return None
    kind = entry.name.rsplit(".", 1)[1]
    subject = " and ".join(s for s in (
        "its parameters left unnamed" if own else "",
        "those of the module's later %s calls that leave parameters unnamed" % kind if others > 0 else "") if s)
    shown = name.value if isinstance(name, ast.Constant) and isinstance(name.value, str) else ast.unparse(name)
    return WHY.format(name=shown, kind=kind, subject=subject,
                      stats=" (and moving_mean_name/moving_variance_name)" if kind == "batch_norm" else "")
