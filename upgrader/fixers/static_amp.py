"""PU217 static-amp-decorate: 1.8 static mixed precision → ``auto_cast`` + ``GradScaler``.

What it does
    For ``opt = fluid.contrib.mixed_precision.decorate(inner, amp_lists, init_loss_scaling,
    incr_every_n_steps, decr_every_n_nan_or_inf, incr_ratio, decr_ratio,
    use_dynamic_loss_scaling)`` followed, in the same block, by ``opt.minimize(loss)``
    (the block being the body of a ``program_guard`` or of a function), it

    * wraps the statements of that block that come before ``minimize`` (the forward that
      builds ``loss``, the lists and the decorated optimizer) in
      ``with paddle.amp.auto_cast(custom_white_list=..., custom_black_list=...):``, the
      lists taken from the ``AutoMixedPrecisionLists(...)`` passed as ``amp_lists``, with
      1.8's op names (``mul``, ``matmul``, ``mean``, ``reshape2``) extended by the names
      today's programs use for the same layers (``matmul_v2``, ``reduce_mean``, ``reshape``);
    * makes the decoration ``paddle.static.amp.decorate(inner, amp_lists=...)``;
    * replaces ``opt.minimize(loss)`` by ``opt_scaler = paddle.amp.GradScaler(...)`` with
      1.8's loss-scaling arguments and ``opt_scaler.minimize(opt, opt_scaler.scale(loss))``
      (its result, ``(optimize_ops, params_grads)``, as before).

    ``opt.get_loss_scaling()`` keeps working on the decorated optimizer.

Why is this bad?
    On Paddle 3's default PIR programs ``paddle.static.amp.decorate(opt).minimize(loss)``
    fails (``check_finite_and_unscale_`` gets no loss-scaling value), and a program whose
    forward was not built under ``auto_cast`` never updates its loss scaling (checked on
    3.3.1: the scaling stays at its initial value and an overflowing step writes NaN into
    the parameters). 1.8 rewrote the finished program instead. 1.8 raised the scaling on
    the (incr_every_n_steps + 1)-th consecutive finite step and lowered it on the
    (decr_every_n_nan_or_inf + 1)-th overflowing one, ``GradScaler`` on the n-th: the
    rewrite passes n + 1. ``GradScaler``'s own defaults differ too (2**16, 2000, 1, 0.5),
    so every argument is written out.

Example
    ``with fluid.program_guard(main, startup):`` / ``loss = ...`` /
    ``opt = fluid.contrib.mixed_precision.decorate(fluid.optimizer.SGD(0.1))`` /
    ``opt.minimize(loss)`` becomes ``with paddle.static.program_guard(main, startup):`` /
    ``with paddle.amp.auto_cast():`` / ``loss = ...`` /
    ``opt = paddle.static.amp.decorate(paddle.optimizer.SGD(0.1))`` /
    ``opt_scaler = paddle.amp.GradScaler(init_loss_scaling=2 ** 15, incr_every_n_steps=1000 + 1, ...)`` /
    ``opt_scaler.minimize(opt, opt_scaler.scale(loss))``.

Fix safety
    Unsafe (``--unsafe-fixes``). Proven on CPU against 1.8.5 (the rule's example and
    fixtures/programs/amp_static_loss_scaling.py): the loss-scaling schedule, the unscaled
    gradients and the skipped overflowing steps. Not provable here: which ops compute in
    float16 on a GPU. 1.8's white list (conv2d, matmul, mul) matches today's for those
    layers, but today's black and gray lists are longer, and a layer whose bias follows
    the dtype of its op's output (``static.nn.fc``) creates that bias in float16 under
    ``auto_cast`` when the op is white-listed, where 1.8 kept every parameter float32
    (observed with bfloat16, the CPU's autocast dtype: tests/test_static_amp.py). A GPU
    run is close to, not identical with, 1.8's. Manual (the call stays, with a TODO)
    when the pattern is not this one: the decoration inside an ``if``, ``minimize`` in
    another block or with more than the loss, lists that are not literal, or
    ``custom_black_varnames`` (``auto_cast`` has no per-variable list).
"""
from __future__ import annotations

import re
from typing import Dict, List, Optional, Tuple, Union

import libcst as cst

from upgrader.args import bind, code_of, Manual
from upgrader.fixers import bound_or_report

CODE = "PU217"
STRUCTURAL = ("static-amp-decorate",)

DECORATE = "paddle.fluid.contrib.mixed_precision.decorate"
LISTS = "paddle.fluid.contrib.mixed_precision.AutoMixedPrecisionLists"
GUARD = "paddle.fluid.program_guard"
# the loss-scaling arguments in GradScaler's order; (name, 1.8 default, add one)
SCALING = (("init_loss_scaling", "2 ** 15", False), ("incr_every_n_steps", "1000", True),
           ("decr_every_n_nan_or_inf", "2", True), ("incr_ratio", "2.0", False),
           ("decr_ratio", "0.8", False), ("use_dynamic_loss_scaling", "True", False))
# 1.8 op types whose layers make other ops today (checked on 3.3.1: the names PIR's
# auto_cast matches for fc, layers.matmul, layers.mean and layers.reshape once upgraded)
TODAY = {"mul": ("matmul_v2",), "matmul": ("matmul_v2",), "mean": ("reduce_mean",),
         "reshape2": ("reshape",)}


class _Plan:
    def __init__(self, opt: str, scaler: str, lists: str, scaling: List[Tuple[str, str]]):
        self.opt = opt
        self.scaler = scaler
        self.lists = lists          # auto_cast keyword arguments (source)
        self.scaling = scaling      # GradScaler keyword arguments (source)


def _plans(up) -> Dict[int, _Plan]:
    plans = getattr(up, "_amp_plans", None)
    if plans is None:
        plans = up._amp_plans = {}
    return plans


def rewrite_call(up, original: cst.Call, updated: cst.Call, entry):
    where = _context(up, original)
    if isinstance(where, str):
        up.report_entry(original, entry, False, manual=where)
        return updated
    block, opt = where
    found = _analyse(up, block, original, opt, entry)
    if isinstance(found, str):
        up.report_entry(original, entry, False, manual=found)
        return updated
    bound = bound_or_report(up, original, updated, entry)
    if bound is None:
        return updated
    keep = {id(bound.values[k]) for k in ("optimizer", "amp_lists") if k in bound.values}
    args = [a for a in updated.args if id(a) in keep]
    args[-1] = args[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)
    _plans(up)[id(block)] = found
    up.report_entry(original, entry, True)
    return updated.with_changes(func=cst.parse_expression("paddle.static.amp.decorate"), args=args)


def _context(up, call: cst.Call):
    """(enclosing block statement, decorated optimizer's name) or why not."""
    if len(up.stmt_stack) < 2:
        return "the decoration is not inside a `program_guard` block or a function"
    line, block = up.stmt_stack[-1][0], up.stmt_stack[-2][0]
    small = line.body[0] if isinstance(line, cst.SimpleStatementLine) and len(line.body) == 1 else None
    if not (isinstance(small, cst.Assign) and small.value is call and len(small.targets) == 1
            and isinstance(small.targets[0].target, cst.Name)):
        return "the decorated optimizer is not assigned to a plain name on a line of its own"
    if isinstance(block, cst.With):
        if len(block.items) != 1 or not isinstance(block.items[0].item, cst.Call) or \
                not _guard(up, block.items[0].item.func):
            return "the decoration is in a `with` block other than `program_guard`"
    elif not isinstance(block, cst.FunctionDef):
        return "the decoration is inside a conditional or loop block"
    if not isinstance(block.body, cst.IndentedBlock) or line not in block.body.body:
        return "the decoration is not a statement of its block"
    return block, small.targets[0].target.value


def _guard(up, func) -> bool:
    """``fluid.program_guard`` or, in code already upgraded, ``paddle.static.program_guard``."""
    return _entry_name(up, func) == GUARD or up.resolve_dotted(func) == "paddle.static.program_guard"


def _entry_name(up, func) -> Optional[str]:
    entry = up.entry_for(up.resolve_dotted(func))
    return entry.name if entry is not None else None


def _analyse(up, block, call: cst.Call, opt: str, entry):
    body = list(block.body.body)
    at = next(i for i, s in enumerate(body) if isinstance(s, cst.SimpleStatementLine)
              and s.body[0] is not None and getattr(s.body[0], "value", None) is call)
    minimize = [i for i in range(at + 1, len(body)) if _minimize(body[i], opt) is not None]
    if not minimize:
        return f"no `{opt}.minimize(loss)` with the loss alone follows in the same block"
    m = minimize[0]
    if any(_binds(s, opt) for s in body[at + 1:m]):
        return f"`{opt}` is bound again before its `minimize`"
    loss = _minimize(body[m], opt)
    if not isinstance(loss, cst.Name) or not any(_binds(s, loss.value) for s in body[_start(block):at]):
        return "the loss handed to `minimize` is not a name computed earlier in the same block"
    bound = bind(entry, call)
    if isinstance(bound, Manual):
        return bound.reason
    scaling = []
    for name, default, plus in SCALING:
        arg = bound.values.get(name)
        src = code_of(arg.value) if arg is not None else default
        if arg is not None and not _constant(arg.value, body, at):
            return f"`{name}` is not a literal or a name: its evaluation would move after the forward"
        scaling.append((name, f"{src} + 1" if plus else src))
    lists = _lists(up, bound.values.get("amp_lists"), body[:at])
    if isinstance(lists, Manual):
        return lists.reason
    scaler = f"{opt}_scaler"
    if re.search(r"\b%s\b" % re.escape(scaler), up.source):
        return f"the name `{scaler}` for the loss scaler is already used in this module"
    return _Plan(opt, scaler, lists, scaling)


def _start(block) -> int:
    """Index of the first statement to wrap: after a function's docstring."""
    body = block.body.body
    if isinstance(block, cst.FunctionDef) and body and isinstance(body[0], cst.SimpleStatementLine) \
            and isinstance(body[0].body[0], cst.Expr) and \
            isinstance(body[0].body[0].value, (cst.SimpleString, cst.ConcatenatedString)):
        return 1
    return 0


def _minimize(stmt, opt: str) -> Optional[cst.BaseExpression]:
    """The loss of a statement ``[targets =] opt.minimize(loss)``, else None."""
    if not isinstance(stmt, cst.SimpleStatementLine) or len(stmt.body) != 1:
        return None
    small = stmt.body[0]
    value = small.value if isinstance(small, (cst.Expr, cst.Assign)) else None
    if not (isinstance(value, cst.Call) and isinstance(value.func, cst.Attribute)
            and value.func.attr.value == "minimize" and isinstance(value.func.value, cst.Name)
            and value.func.value.value == opt and len(value.args) == 1 and not value.args[0].star
            and (value.args[0].keyword is None or value.args[0].keyword.value == "loss")):
        return None
    return value.args[0].value


def _binds(stmt, name: str) -> bool:
    """The statement assigns ``name`` (a plain or unpacking target)."""
    class Finder(cst.CSTVisitor):
        found = False

        def visit_AssignTarget(self, node):
            self.found |= name in _target_names(node.target)

        def visit_AnnAssign(self, node):
            self.found |= name in _target_names(node.target)

        def visit_AugAssign(self, node):
            self.found |= name in _target_names(node.target)

        def visit_For(self, node):
            self.found |= name in _target_names(node.target)

        def visit_AsName(self, node):
            self.found |= name in _target_names(node.name)
    f = Finder()
    stmt.visit(f)
    return f.found


def _target_names(t) -> List[str]:
    if isinstance(t, cst.Name):
        return [t.value]
    if isinstance(t, (cst.Tuple, cst.List)):
        return [n for e in t.elements for n in _target_names(e.value)]
    return []


def _constant(node, body, at) -> bool:
    """A literal, arithmetic of literals, or a name/attribute not rebound in the block
    between the decoration and ``minimize``."""
    if isinstance(node, (cst.Integer, cst.Float)) or (isinstance(node, cst.Name) and node.value in ("True", "False")):
        return True
    if isinstance(node, cst.BinaryOperation):
        return _constant(node.left, body, at) and _constant(node.right, body, at)
    if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, cst.Minus):
        return _constant(node.expression, body, at)
    if isinstance(node, cst.Name):
        return not any(_binds(s, node.value) for s in body[at + 1:])
    if isinstance(node, cst.Attribute):
        return isinstance(node.value, cst.Name) and not any(_binds(s, node.value.value) for s in body[at + 1:])
    return False


def _lists(up, arg: Optional[cst.Arg], before) -> Union[str, Manual]:
    """``auto_cast`` keyword arguments from the ``amp_lists`` argument, or why not."""
    if arg is None or (isinstance(arg.value, cst.Name) and arg.value.value == "None"):
        return ""
    value = arg.value
    if isinstance(value, cst.Name):
        binders = [s for s in before if _binds(s, value.value)]
        small = binders[0].body[0] if len(binders) == 1 and isinstance(binders[0], cst.SimpleStatementLine) \
            and len(binders[0].body) == 1 else None
        if not (isinstance(small, cst.Assign) and len(small.targets) == 1
                and isinstance(small.targets[0].target, cst.Name) and isinstance(small.value, cst.Call)):
            return Manual(f"`amp_lists={value.value}` is not built once by `AutoMixedPrecisionLists(...)` in the same block")
        calls = [small.value]
        value = calls[0]
    if not isinstance(value, cst.Call) or (_entry_name(up, value.func) != LISTS and
                                           up.resolve_dotted(value.func) != "paddle.static.amp.AutoMixedPrecisionLists"):
        return Manual("`amp_lists` is not an `AutoMixedPrecisionLists(...)` call")
    entry = up.rules.lookup(LISTS)
    bound = bind(entry, value)
    if isinstance(bound, Manual):
        return bound
    varnames = bound.values.get("custom_black_varnames")
    if varnames is not None and code_of(varnames.value) != "None":
        return Manual("`custom_black_varnames` has no counterpart in `paddle.amp.auto_cast` (it casts by op type only)")
    out = []
    for key in ("custom_white_list", "custom_black_list"):
        a = bound.values.get(key)
        if a is None or code_of(a.value) == "None":
            continue
        names = _strings(a.value)
        if names is None:
            return Manual(f"`{key}` is not a literal list of op names")
        full = []
        for n in names:
            for t in (n,) + TODAY.get(n, ()):
                if t not in full:
                    full.append(t)
        out.append(f"{key}=[{', '.join(repr(n) for n in full)}]")
    return ", ".join(out)


def _strings(node) -> Optional[List[str]]:
    if not isinstance(node, (cst.List, cst.Tuple, cst.Set)):
        return None
    out = []
    for e in node.elements:
        if not isinstance(e, cst.Element) or not isinstance(e.value, cst.SimpleString):
            return None
        out.append(e.value.evaluated_value)
    return out


def _enables_static(stmt) -> bool:
    return isinstance(stmt, cst.SimpleStatementLine) and any(
        isinstance(s, cst.Expr) and code_of(s.value).replace(" ", "") == "paddle.enable_static()"
        for s in stmt.body)


def leave_statement(up, original, updated):
    plans = getattr(up, "_amp_plans", None)
    plan = plans.get(id(original)) if plans else None
    if plan is None or not up.opts.fix:
        return updated
    body = list(updated.body.body)
    m = next((i for i, s in enumerate(body) if _minimize(s, plan.opt) is not None), None)
    start = _start(updated)
    if m is not None:  # auto_cast entered in dynamic mode would not cast the static ops
        start = max([start] + [i + 1 for i in range(start, m) if _enables_static(body[i])])
    if m is None or m <= start:
        return updated
    first = body[start]
    guard = cst.With(
        items=[cst.WithItem(cst.parse_expression(f"paddle.amp.auto_cast({plan.lists})"))],
        body=cst.IndentedBlock(body=[first.with_changes(leading_lines=())] + body[start + 1:m]),
        leading_lines=first.leading_lines)
    old = body[m]
    loss = code_of(_minimize(old, plan.opt))
    scaler = cst.parse_statement(
        f"{plan.scaler} = paddle.amp.GradScaler({', '.join(f'{k}={v}' for k, v in plan.scaling)})\n")
    small = old.body[0]
    step = cst.parse_expression(f"{plan.scaler}.minimize({plan.opt}, {plan.scaler}.scale({loss}))")
    new = old.with_changes(body=[small.with_changes(value=step)], leading_lines=())
    scaler = scaler.with_changes(leading_lines=old.leading_lines)
    body[start:m + 1] = [guard, scaler, new]
    return updated.with_changes(body=updated.body.with_changes(body=body))
