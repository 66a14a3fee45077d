"""PU103 layers-data: ``fluid.layers.data`` → ``paddle.static.data`` with 1.8's exact shape.

What it does
    1.8.5's ``fluid.layers.data(name, shape, append_batch_size=True, ...)`` turned ``None``
    entries of ``shape`` into ``-1`` and prepended a batch dimension ``-1`` only when
    ``append_batch_size`` was true and no entry was ``None`` or negative
    (``fluid/layers/io.py``). ``paddle.static.data`` uses ``shape`` as given (``None``
    becomes ``-1`` there too). With a literal ``shape`` list/tuple and
    ``append_batch_size`` absent or a literal, the rewrite computes the same rule at
    rewrite time and emits the exact shape: ``shape=[3, 4]`` → ``shape=[-1, 3, 4]``,
    ``shape=[None, 3]`` and ``shape=[-1, 3]`` stay as they are, and so does any shape with
    ``append_batch_size=False``. ``append_batch_size`` is dropped, ``lod_level=0`` too,
    the 1.8 default ``dtype='float32'`` is passed explicitly.

Why is this bad?
    ``paddle.static.data`` has no ``append_batch_size``: renaming the call alone loses
    the batch dimension (``[3, 4]`` declares a 2-D input where 1.8 declared ``[-1, 3, 4]``),
    and always prepending one adds a dimension to shapes such as ``[None, 3]`` that 1.8
    left alone.

Example
    ``fluid.layers.data(name='img', shape=[1, 28, 28])`` →
    ``paddle.static.data(name='img', shape=[-1, 1, 28, 28], dtype='float32')``;
    ``fluid.layers.data(name='x', shape=[None, 13], append_batch_size=False)`` →
    ``paddle.static.data(name='x', shape=[None, 13], dtype='float32')``.

Fix safety
    Safe when the shape is decided at rewrite time: a literal list/tuple whose entries
    are literals (or holding a literal ``None``/negative entry), or any shape with a literal
    ``append_batch_size=False``. A name the module binds exactly once, at its top level, to
    an int (``IMG_DIM = 784``, ``H, W = 28, 28``) or a list/tuple of ints
    (``SHAPE = [1, 28, 28]``) counts as that literal, and so does ``+ - * //`` arithmetic
    on such names and int literals (``IMG * IMG``, ``3 * H * W``, ``IMG // 4``). Any other
    shape (a name, ``self.shape``, a list with a non-literal entry such as
    ``[self.max_seq_len, 1]``) and an ``append_batch_size`` given as a name or attribute
    are decided when the program runs: the shape becomes ``_fluid_data_shape(shape[,
    append_batch_size])``, a function fix adds to the module that applies 1.8's rule
    (safe as well; the rule's example covers a non-literal entry, a non-literal shape with
    and without ``None`` and a non-literal ``append_batch_size``). ``lod_level`` > 0 is
    unsafe: Paddle 3 programs carry no LoD, so the sequence ops reading it are manual
    (declare the padded batch and its lengths instead). Any other non-literal
    ``append_batch_size`` (a call, ...) is manual. Either way, two 1.8
    leniencies remain (loud errors, not silent changes): a fed array must have the declared
    dtype (1.8's ``layers.data`` let a float64 array into a float32 input), and every data
    variable of a program must be fed.
"""
from __future__ import annotations

import ast
import copy
from typing import List, Optional, Tuple

import libcst as cst

from upgrader import untouched
from upgrader.args import Manual, bind, code_of, literal
from upgrader.bound_names import bindings
from upgrader.rulebook import ArgSpec

CODE = "PU103"
STRUCTURAL = ("layers-data",)
HELPER = "_fluid_data_shape"
SOURCE = f'''def {HELPER}(shape, append_batch_size=True):
    """Paddle 1.8's fluid.layers.data shape: None entries become -1, and the batch
    dimension -1 is prepended when append_batch_size is true and no entry is None or
    negative."""
    shape = [-1 if d is None else d for d in shape]
    if append_batch_size and all(d >= 0 for d in shape):
        shape = [-1] + shape
    return shape
'''

_NO_BATCH = ("no batch dimension is added: 1.8 added none to a shape holding None or a "
             "negative entry")


def _elements(shape: cst.BaseExpression) -> Optional[List[cst.Element]]:
    if isinstance(shape, (cst.List, cst.Tuple)) and all(
            isinstance(e, cst.Element) for e in shape.elements):
        return list(shape.elements)  # type: ignore[arg-type]
    return None


def module_constants(up) -> dict:
    """Names bound once in the whole module, by a top-level assignment of an int literal
    or of a list/tuple of them (``IMG_DIM = 784``, ``H, W = 28, 28``, ``SHAPE = [3, 32, 32]``):
    their value is known when the rewrite is decided (cached per run)."""
    got = up.__dict__.get("_module_constants")
    if got is not None:
        return got
    got = up._module_constants = {}
    try:
        tree = untouched.parse(up.source)
    except SyntaxError:
        return got
    binds = {name: len(nodes) for name, nodes in bindings(tree).items()}
    for stmt in tree.body:
        if not (isinstance(stmt, ast.Assign) and len(stmt.targets) == 1):
            continue
        target, value = stmt.targets[0], stmt.value
        pairs = [(target, value)]
        if isinstance(target, (ast.Tuple, ast.List)) and isinstance(value, (ast.Tuple, ast.List)) \
                and len(target.elts) == len(value.elts):
            pairs = list(zip(target.elts, value.elts))
        for t, v in pairs:
            if not isinstance(t, ast.Name) or binds.get(t.id) != 1:
                continue
            try:
                val = ast.literal_eval(v)
            except ValueError:
                continue
            if _int(val) or (isinstance(val, (list, tuple)) and all(_int(x) for x in val)):
                got[t.id] = val
    return got


def _int(v) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def _classify(elements: List[cst.Element], consts=None) -> Tuple[bool, List[str]]:
    """(some entry is a literal None or negative int, entries that are not literals)."""
    no_batch = False
    unknown: List[str] = []
    for e in elements:
        kind, val = literal(code_of(e.value))
        if kind != "ok" and consts and isinstance(e.value, cst.Name) and _int(consts.get(e.value.value)):
            kind, val = "ok", consts[e.value.value]  # a module constant
        elif kind != "ok" and consts and isinstance(e.value, cst.BinaryOperation):
            folded = _fold(code_of(e.value), consts)  # IMG * IMG, C * H * W, IMG // 4
            if folded is not None:
                kind, val = "ok", folded
        if kind == "ok" and (val is None or (isinstance(val, (int, float))
                                             and not isinstance(val, bool) and val < 0)):
            no_batch = True
        elif kind != "ok" or isinstance(val, bool) or not isinstance(val, int):
            unknown.append(code_of(e.value))
    return no_batch, unknown


_FOLD_OPS = {ast.Add: lambda a, b: a + b, ast.Sub: lambda a, b: a - b,
             ast.Mult: lambda a, b: a * b, ast.FloorDiv: lambda a, b: a // b if b else None}


def _fold(source: str, consts: dict) -> Optional[int]:
    """The int value of ``+ - * //`` arithmetic on int literals and module int constants
    (``IMG * IMG``, ``3 * H * W``, ``IMG // 4``), or None."""
    try:
        node = ast.parse(source.strip(), mode="eval").body
    except SyntaxError:
        return None

    def value(n):
        if isinstance(n, ast.Constant):
            return n.value if _int(n.value) else None
        if isinstance(n, ast.Name):
            v = consts.get(n.id)
            return v if _int(v) else None
        if isinstance(n, ast.UnaryOp) and isinstance(n.op, ast.USub):
            v = value(n.operand)
            return -v if v is not None else None
        if isinstance(n, ast.BinOp) and type(n.op) in _FOLD_OPS:
            a, b = value(n.left), value(n.right)
            return _FOLD_OPS[type(n.op)](a, b) if a is not None and b is not None else None
        return None

    return value(node)


def _prepend(shape: cst.BaseExpression, elements: List[cst.Element]) -> cst.List:
    first = cst.Element(value=cst.parse_expression("-1"),
                        comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" ")))
    if isinstance(shape, cst.List):
        return shape.with_changes(elements=[first] + elements)
    if elements and isinstance(shape, cst.Tuple):  # (3,) → [-1, 3]
        elements = elements[:-1] + [elements[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)]
    return cst.List(elements=[first] + elements)


def _with_value(call: cst.Call, arg: cst.Arg, value: cst.BaseExpression) -> cst.Call:
    return call.with_changes(args=[a.with_changes(value=value) if a is arg else a
                                   for a in call.args])


def rewrite_call(up, original: cst.Call, updated: cst.Call, entry):
    from upgrader.fixers import helper_conflict, need_helper
    bound = bind(entry, updated)
    if isinstance(bound, Manual):
        return up.apply_entry(original, updated, entry)  # reports the binding problem
    use = copy.copy(entry)
    use.args = dict(entry.args)
    use.args["append_batch_size"] = ArgSpec(drop=True)
    use.args["shape"] = ArgSpec()
    reasons: List[str] = []

    lod = bound.values.get("lod_level")
    if lod is not None:
        kind, val = literal(code_of(lod.value))
        if kind == "ok" and val == 0 and not isinstance(val, bool):
            use.args["lod_level"] = ArgSpec(drop=True)
        else:
            reasons.append(
                f"lod_level={code_of(lod.value)}: Paddle 3 programs carry no LoD, so the "
                "sequence ops that read it have no counterpart (see the sequence_* rules); "
                "declare the padded batch (e.g. [-1, max_len] + shape) and feed the lengths "
                "as a second input")

    ab = bound.values.get("append_batch_size")
    append: Optional[bool] = True  # None: not a literal
    droppable = True  # dropping the argument loses no evaluation
    if ab is not None:
        kind, val = literal(code_of(ab.value))
        append = bool(val) if kind == "ok" else None
        droppable = kind == "ok" or isinstance(ab.value, (cst.Name, cst.Attribute))

    shape_arg = bound.values["shape"]
    shape = shape_arg.value
    elements = _elements(shape)
    new_shape = shape
    consts = module_constants(up)
    no_batch, unknown = _classify(elements, consts) if elements is not None else (False, [])
    known = consts.get(shape.value) if isinstance(shape, cst.Name) else None
    helper_args: Optional[List[cst.Arg]] = None  # the shape computed at run time
    if no_batch and droppable:
        pass  # 1.8 added no batch dimension, whatever append_batch_size said
    elif append is None:
        if not droppable:
            return up.apply_entry(original, updated, entry, entry_override=_manual_ab(entry))
        helper_args = [cst.Arg(shape), cst.Arg(ab.value)]  # 1.8's rule on both values
    elif append and elements is not None and not unknown:
        new_shape = _prepend(shape, elements)
    elif append and isinstance(known, (list, tuple)) and not any(x < 0 for x in known):
        # a module constant of positive ints: 1.8 prepended the batch dimension
        new_shape = cst.parse_expression("[-1] + list(__pu_shape__)").visit(_Put(shape))
    elif append:  # an entry or the shape is known only when the program runs
        helper_args = [cst.Arg(shape)]
    if helper_args is not None:
        if helper_conflict(up, original, entry, HELPER, SOURCE):
            return updated
        new_shape = cst.Call(func=cst.Name(HELPER), args=_commas(helper_args))
    if reasons:
        use.safety = "unsafe"
        use.note = "; ".join(reasons) + "."
    else:
        use.safety = "safe"
    if not up.can_apply(use, original):
        return up.apply_entry(original, updated, use)  # reported, left as it is
    call = _with_value(updated, shape_arg, new_shape) if new_shape is not shape else updated
    result = up.apply_entry(original, call, use)
    if result is call and call is not updated:
        return updated  # left for a manual rewrite (another argument): keep the legacy shape
    if helper_args is not None:
        need_helper(up, HELPER)
    return result


def _commas(args: List[cst.Arg]) -> List[cst.Arg]:
    sep = cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))
    return [a.with_changes(comma=sep) for a in args[:-1]] + args[-1:]


def finish_module(up, module: cst.Module) -> cst.Module:
    """Add the shape function the rewrites call after the module's docstring and imports."""
    from upgrader.fixers import add_used_helpers
    return add_used_helpers(up, module, {HELPER: SOURCE})


def _manual_ab(entry):
    e = copy.copy(entry)
    e.args = dict(entry.args)
    e.args["append_batch_size"] = ArgSpec(manual_if_set=(
        "not a literal: whether 1.8 added the batch dimension -1 depends on its value; "
        "write paddle.static.data(name, shape, dtype) with the shape 1.8 built "
        "([-1] + shape when true and shape holds no None/negative entry)"))
    return e


class _Put(cst.CSTTransformer):
    def __init__(self, value: cst.BaseExpression):
        self.value = value

    def leave_Name(self, original, updated):
        return self.value if updated.value == "__pu_shape__" else updated
