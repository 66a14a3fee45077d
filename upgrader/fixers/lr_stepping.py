"""PU214 lr-scheduler-step: 1.x dygraph LR decay objects → schedulers stepped explicitly.

What it does
    For a dygraph LR decay object bound to a plain name in a function (or the module) and
    feeding exactly one optimizer of that same scope through ``learning_rate``, the
    constructor becomes today's ``paddle.optimizer.lr`` scheduler (rule PU104: ``begin``
    → ``last_epoch = begin - 1``, ``end_learning_rate`` → ``end_lr``, ...) and, for the
    step-based ones (``NoamDecay``, ``PiecewiseDecay``, ``PolynomialDecay``),
    ``<sched>.step()`` is inserted right after every ``<opt>.minimize(...)`` of that
    optimizer. For the epoch-based ones (``StepDecay``, ``MultiStepDecay``,
    ``LambdaDecay``), ``<sched>.epoch(e)`` becomes ``<sched>.step(e)``.

Why is this bad?
    A 1.8 step-based decay advanced by itself: every ``minimize()`` read the rate and
    moved the schedule one step on. Today's schedulers only move on an explicit
    ``scheduler.step()``; without it the rate silently stays at its first value.
    The epoch-based ones had ``epoch(epoch=None)``, which is ``step(epoch=None)`` today.

Example
    ``lr = fluid.dygraph.PiecewiseDecay([2, 4], [0.1, 0.05, 0.01], begin=0)`` /
    ``opt = fluid.optimizer.SGD(learning_rate=lr, parameter_list=ps)`` / ``opt.minimize(loss)``
    becomes ``lr = paddle.optimizer.lr.PiecewiseDecay([2, 4], [0.1, 0.05, 0.01], last_epoch=-1)``
    / ``opt = paddle.optimizer.SGD(learning_rate=lr, parameters=ps)`` /
    ``opt.minimize(loss)`` / ``lr.step()``.

Fix safety
    Safe when the whole pattern is visible in one scope: the parameters after every step
    are those of 1.8.5 (proven per scheduler). Anything else stays manual with a note
    naming what could not be traced: a scheduler not bound to a name (built inline, in a
    lambda, returned), used for anything but ``learning_rate`` (and ``epoch()``), read in a
    nested function, feeding several optimizers; an optimizer passed on, stored, saved
    (``state_dict``) or minimized inside an expression or another function. Unsafe (applied
    with ``--unsafe-fixes``) when the optimizer's ``current_step_lr()`` is read: 1.8 returned
    the rate of the last ``minimize()``, today's ``get_lr()`` the rate of the next step (the
    training itself is unchanged).
"""
from __future__ import annotations

from typing import Dict, List, Optional, Tuple

import libcst as cst

from upgrader.args import Manual, bind, code_of, map_call

CODE = "PU214"
STEP_BASED = "lr-scheduler-step"
EPOCH_BASED = "lr-epoch-method"
STRUCTURAL = (STEP_BASED, EPOCH_BASED)

SITES = ("minimize", "step")                 # optimizer calls that advanced a 1.8 decay
HARMLESS = ("clear_gradients", "clear_grad")  # optimizer methods that do not touch the rate
READS_LR = "current_step_lr"


# --------------------------------------------------------------------------- survey
class _Survey(cst.CSTVisitor):
    """Bindings, loads and method calls of plain names, per scope, on the original tree."""

    def __init__(self, up):
        self.up = up
        self.scopes: List[int] = [0]
        self.parent: Dict[int, int] = {}
        self.stmt_of: Dict[int, cst.SimpleStatementLine] = {}   # id(value) -> its statement
        self.target_of: Dict[int, str] = {}                       # id(value) -> `name =` target
        self.bindings: Dict[Tuple[str, int], int] = {}
        self.declared: set = set()                                # global / nonlocal names
        self.loads: Dict[str, List[Tuple[int, cst.Name]]] = {}
        self.methods: Dict[Tuple[str, int], List[Tuple[str, cst.Call]]] = {}
        self.lr_args: Dict[Tuple[str, int], List[cst.Call]] = {}
        self.scheds: List[Tuple[cst.Call, object, int]] = []
        self.opt_scope: Dict[int, int] = {}
        self.skip: set = set()
        self.calls: List[cst.Call] = []
        self.context: Dict[int, cst.Call] = {}                    # id(load) -> innermost call

    # scopes
    def _push(self, node):
        self.parent[id(node)] = self.scopes[-1]
        self.scopes.append(id(node))

    def _bind(self, name: str):
        key = (name, self.scopes[-1])
        self.bindings[key] = self.bindings.get(key, 0) + 1

    def _bind_target(self, node):
        if isinstance(node, cst.Name):
            self._bind(node.value)
            self.skip.add(id(node))
        elif isinstance(node, (cst.Tuple, cst.List)):
            for el in node.elements:
                self._bind_target(el.value)
        elif isinstance(node, cst.StarredElement):
            self._bind_target(node.value)

    def visit_FunctionDef(self, node):
        self._bind(node.name.value)
        for d in node.decorators:
            d.visit(self)
        for p in _all_params(node.params):
            if p.default is not None:
                p.default.visit(self)
        self._push(node)
        for p in _all_params(node.params):
            self._bind(p.name.value)
        node.body.visit(self)
        self.scopes.pop()
        return False

    def visit_Lambda(self, node):
        self._push(node)
        for p in _all_params(node.params):
            self._bind(p.name.value)
        node.body.visit(self)
        self.scopes.pop()
        return False

    def visit_ClassDef(self, node):
        self._bind(node.name.value)
        for d in node.decorators:
            d.visit(self)
        for a in list(node.bases) + list(node.keywords):
            a.value.visit(self)
        self._push(node)
        node.body.visit(self)
        self.scopes.pop()
        return False

    def _comprehension(self, node):
        self._push(node)
        for child in node.children:
            child.visit(self)
        self.scopes.pop()
        return False

    visit_ListComp = visit_SetComp = visit_DictComp = visit_GeneratorExp = _comprehension

    # bindings
    def visit_SimpleStatementLine(self, node):
        if len(node.body) == 1:
            s = node.body[0]
            value = getattr(s, "value", None)
            if isinstance(s, (cst.Expr, cst.Assign, cst.AnnAssign)) and value is not None:
                self.stmt_of[id(value)] = node
                if isinstance(s, cst.Assign) and len(s.targets) == 1 and \
                        isinstance(s.targets[0].target, cst.Name):
                    self.target_of[id(value)] = s.targets[0].target.value

    def visit_Assign(self, node):
        for t in node.targets:
            self._bind_target(t.target)

    def visit_AnnAssign(self, node):
        self._bind_target(node.target)

    def visit_AugAssign(self, node):
        self._bind_target(node.target)

    def visit_For(self, node):
        self._bind_target(node.target)

    def visit_CompFor(self, node):
        self._bind_target(node.target)

    def visit_AsName(self, node):
        self._bind_target(node.name)

    def visit_NamedExpr(self, node):
        self._bind_target(node.target)

    def visit_Del(self, node):
        self._bind_target(node.target)

    def visit_Global(self, node):
        self.declared.update(n.name.value for n in node.names)
        return False

    def visit_Nonlocal(self, node):
        self.declared.update(n.name.value for n in node.names)
        return False

    def visit_Import(self, node):
        return False

    def visit_ImportFrom(self, node):
        return False

    # loads
    def visit_Attribute(self, node):
        node.value.visit(self)
        return False

    def visit_Arg(self, node):
        node.value.visit(self)
        return False

    def leave_Call(self, node):
        self.calls.pop()

    def visit_Call(self, node):
        self.calls.append(node)
        scope = self.scopes[-1]
        entry = _entry(self.up, node.func)
        if entry is not None and entry.structural in STRUCTURAL:
            self.scheds.append((node, entry, scope))
        elif entry is not None and _is_optimizer(entry):
            self.opt_scope[id(node)] = scope
            b = bind(entry, node)
            if not isinstance(b, Manual):
                a = b.values.get("learning_rate")
                if a is not None and isinstance(a.value, cst.Name):
                    self.lr_args.setdefault((a.value.value, scope), []).append(node)
                    self.skip.add(id(a.value))
        f = node.func
        if isinstance(f, cst.Attribute) and isinstance(f.value, cst.Name):
            self.methods.setdefault((f.value.value, scope), []).append((f.attr.value, node))
            self.skip.add(id(f.value))
            self.context[id(node)] = node

    def visit_Name(self, node):
        if id(node) not in self.skip:
            self.loads.setdefault(node.value, []).append((self.scopes[-1], node))
            if self.calls:
                self.context[id(node)] = self.calls[-1]
        return False


def _all_params(params: cst.Parameters):
    out = list(params.posonly_params) + list(params.params) + list(params.kwonly_params)
    for p in (params.star_arg, params.star_kwarg):
        if isinstance(p, cst.Param):
            out.append(p)
    return out


def _entry(up, func):
    from upgrader.names import dotted_of
    d = dotted_of(func)
    if d is None:
        return None
    head, _, rest = d.partition(".")
    base = up.imports.resolve_name(head)
    if base is None:
        return None
    return up.rules.lookup(f"{base}.{rest}" if rest else base)


def _is_optimizer(entry) -> bool:
    return entry.kind == "class" and entry.name.startswith("paddle.fluid.optimizer.") and \
        any(p.name == "learning_rate" for p in (entry.params or []))


# --------------------------------------------------------------------------- plan
class Decision:
    def __init__(self, entry, name: Optional[str]):
        self.entry = entry
        self.name = name              # the scheduler's variable
        self.status = "safe"          # safe | unsafe | manual | mapping
        self.reason = ""
        self.suppressed = False
        self.optimizers: List[str] = []

    def fail(self, reason: str, status: str = "manual") -> "Decision":
        if self.status in ("safe", "unsafe"):
            self.status, self.reason = status, reason
        return self

    def active(self, up) -> bool:
        if self.suppressed or not up.opts.enabled(CODE) or not up.opts.enabled(self.entry.code):
            return False
        return self.status == "safe" or (self.status == "unsafe" and up.opts.unsafe_fixes)


class _Plan:
    def __init__(self):
        self.decisions: Dict[int, Decision] = {}     # id(scheduler call) -> decision
        self.after: Dict[int, Tuple[Decision, str]] = {}   # id(statement) -> (decision, opt)
        self.epoch: Dict[int, Decision] = {}          # id(statement `s.epoch(...)`) -> decision


def _line(up, node) -> int:
    return up.pos(node)[0]


def _show(v: _Survey, node) -> str:
    """Short source of where a name is used: the innermost call around it."""
    text = " ".join(code_of(v.context.get(id(node), node)).split())
    return text if len(text) <= 40 else text[:37] + "..."


def _nested(v: _Survey, scope: int, outer: int) -> bool:
    while scope in v.parent:
        scope = v.parent[scope]
        if scope == outer:
            return True
    return False


def _foreign_loads(v: _Survey, name: str, scope: int) -> List[cst.Name]:
    """Reads of ``name`` from a scope nested in ``scope`` that does not bind it itself
    (a closure, or a module-level name read by a function)."""
    out = []
    for sc, node in v.loads.get(name, []):
        if sc != scope and (name, sc) not in v.bindings and (scope == 0 or _nested(v, sc, scope)):
            out.append(node)
    for (n, sc), calls in v.methods.items():
        if n == name and sc != scope and (name, sc) not in v.bindings and \
                (scope == 0 or _nested(v, sc, scope)):
            out.extend(c for _, c in calls)
    for (n, sc), calls in v.lr_args.items():
        if n == name and sc != scope and (name, sc) not in v.bindings and \
                (scope == 0 or _nested(v, sc, scope)):
            out.extend(calls)
    return out


def _plain_binding(v: _Survey, name: str, scope: int) -> bool:
    return v.bindings.get((name, scope), 0) == 1 and name not in v.declared


def _decide(up, v: _Survey, p: _Plan, call: cst.Call, entry, scope: int) -> Decision:
    """Can the stepping of this decay object be rewritten? The reasons are TODO text: short,
    no ';' or '. ' before the advice (todo_text keeps the first sentence)."""
    step_based = entry.structural == STEP_BASED
    name = v.target_of.get(id(call))
    sched = name or "lr"
    advance = (f"call `{sched}.step()` after each minimize()" if step_based
               else f"`{sched}.epoch(e)` became `{sched}.step(e)`")
    d = Decision(entry, name)
    if entry.safety == "manual":
        d.status = "entry-manual"
        return d
    if name is None:
        return d.fail(f"not bound to a plain name, so it cannot be stepped: bind it (`lr = ...`), "
                      f"then {advance}" if step_based else
                      f"not bound to a plain name, so its epoch() calls cannot be traced: bind it "
                      f"(`lr = ...`), then {advance}")
    if not _plain_binding(v, name, scope):
        return d.fail(f"`{name}` is rebound or declared global in this scope: {advance}")
    stmt = v.stmt_of[id(call)]
    mapped = map_call(entry, call, cst.parse_expression(entry.target))
    if isinstance(mapped, Manual):
        d.status, d.reason = "mapping", mapped.reason
        return d
    for node in _foreign_loads(v, name, scope):
        return d.fail(f"`{name}` is read in another scope (`{_show(v, node)}`): {advance}")
    for sc, node in v.loads.get(name, []):
        if sc == scope:
            return d.fail(f"`{name}` is used beyond learning_rate (`{_show(v, node)}`): "
                          f"{advance}")
    epoch_sites = []
    for method, mcall in v.methods.get((name, scope), []):
        s = v.stmt_of.get(id(mcall))
        at = f"`{_show(v, mcall)}`"
        if not step_based and method == "epoch":
            if s is not None and isinstance(s.body[0], cst.Expr):
                epoch_sites.append(s)
                continue
            return d.fail(f"`{name}.epoch()` is inside an expression ({at}): {advance}")
        if step_based and method == "step":
            return d.fail(f"`{name}.step()` only read the rate in 1.8 but advances it "
                          f"today: migrate by hand")
        return d.fail(f"`{name}.{method}()` has no traced counterpart: migrate by hand")
    opts = v.lr_args.get((name, scope), [])
    if step_based and not opts:
        return d.fail(f"no optimizer in this scope takes learning_rate={name}: {advance}")
    if step_based and len(opts) > 1:
        return d.fail(f"`{name}` drives several optimizers: {advance} of each")
    sites: List[Tuple[cst.SimpleStatementLine, str]] = []
    reads = False
    for ocall in opts:
        oname = v.target_of.get(id(ocall))
        if oname is None or not _plain_binding(v, oname, scope):
            return d.fail(f"its optimizer (`{code_of(ocall.func)}(...)`) is not a plain name "
                          f"assigned once: {advance}")
        d.optimizers.append(oname)
        for node in _foreign_loads(v, oname, scope):
            return d.fail(f"optimizer `{oname}` is used in another scope (`{_show(v, node)}`): "
                          f"{advance} there")
        for sc, node in v.loads.get(oname, []):
            if sc == scope:
                return d.fail(f"optimizer `{oname}` is used beyond minimize() "
                              f"(`{_show(v, node)}`): {advance} wherever it steps")
        for method, mcall in v.methods.get((oname, scope), []):
            at = f"`{_show(v, mcall)}`"
            if method in HARMLESS:
                continue
            if method == READS_LR:
                reads = True
                continue
            if method in SITES:
                s = v.stmt_of.get(id(mcall))
                if s is None:
                    return d.fail(f"`{oname}.{method}()` is inside an expression ({at}): {advance}")
                sites.append((s, oname))
                continue
            return d.fail(f"`{oname}.{method}()` involves the 1.8 decay state (global_step): "
                          f"migrate by hand")
    order = _line(up, stmt)
    for s, _ in sites:
        if _line(up, s) < order:
            return d.fail(f"a minimize() precedes the scheduler in the file: {advance}")
    if any(_suppressed(up, s) for s, _ in sites) or any(_suppressed(up, s) for s in epoch_sites) \
            or _suppressed(up, stmt, entry.code):
        d.suppressed = True
    if entry.safety == "unsafe":
        d.fail(entry.note, status="unsafe")
    if reads:
        d.fail(f"`{'`/`'.join(d.optimizers)}.current_step_lr()` (now get_lr()) gives the next "
               f"step's rate, 1.8 the last minimize()'s", status="unsafe")
    if step_based:
        for s, oname in sites:
            p.after[id(s)] = (d, oname)
    for s in epoch_sites:
        p.epoch[id(s)] = d
    return d


def _suppressed(up, node, other: Optional[str] = None) -> bool:
    line = _line(up, node)
    return up.suppressed(line, CODE) or (other is not None and up.suppressed(line, other))


def plan(up) -> _Plan:
    p = getattr(up, "_lr_plan", None)
    if p is not None:
        return p
    p = up._lr_plan = _Plan()
    v = _Survey(up)
    up.module.visit(v)
    for call, entry, scope in v.scheds:
        p.decisions[id(call)] = _decide(up, v, p, call, entry, scope)
    return p


# --------------------------------------------------------------------------- rewrites
def rewrite_call(up, original: cst.Call, updated: cst.Call, entry):
    """The decay constructor: the data rule when its stepping is rewritten too."""
    d = plan(up).decisions.get(id(original))
    if d is None:  # not seen by the survey (should not happen)
        up.report_entry(original, entry, False, manual="its stepping could not be traced")
        return updated
    if d.status == "entry-manual":
        up.report_entry(original, entry, False)
        return updated
    if d.status == "mapping":
        return up.apply_entry(original, updated, entry)  # reports the mapping's reason
    if d.status == "manual":
        up.report_entry(original, entry, False, manual=d.reason)
        return updated
    if not d.active(up):
        if d.status == "unsafe" and not d.suppressed and up.opts.enabled(CODE):
            up.report(original, entry.code, f"`{entry.short}` → `{entry.target}` with "
                      f"`{d.name}.step()` (unsafe: {d.reason}); apply with --unsafe-fixes",
                      entry.name, entry.target, "unsafe", applied=False,
                      todo=f"`{entry.short}`: apply with --unsafe-fixes: {d.reason}")
        else:
            up.report_entry(original, entry, False,
                            manual="its stepping rewrite (PU214) is disabled or suppressed here")
        return updated
    mapped = map_call(entry, updated, cst.parse_expression(entry.target))
    if isinstance(mapped, Manual):  # the plan checked the original call; be safe anyway
        up.report_entry(original, entry, False, manual=mapped.reason)
        d.status = "manual"
        return updated
    if any("math." in str(v) for v in (entry.extra or {}).values()):
        up.needed_imports.add("math")  # a rate formula written with math (CosineDecay)
    from upgrader.fixers import static_mode
    static_mode.note_applied(up, entry)
    msg = f"`{entry.short}` → `{entry.target}`"
    if d.status == "unsafe":
        msg += f" (unsafe: {d.reason})"
    up.report(original, entry.code, msg, entry.name, entry.target, d.status, applied=True)
    return mapped[0]


def leave_statement(up, original, updated):
    """Statement hook: ``<sched>.step()`` after each planned minimize(), ``epoch`` → ``step``."""
    p = getattr(up, "_lr_plan", None)
    if p is None or not isinstance(updated, cst.SimpleStatementLine):
        return updated
    key = id(original)
    if key in p.after:
        d, oname = p.after[key]
        if not d.active(up):
            return updated
        call = original.body[0].value
        up.report(original, CODE, f"`{d.name}.step()` after `{oname}.{call.func.attr.value}()`: "
                  f"1.8's {d.entry.short} advanced on every optimizer step, today's scheduler "
                  "only on step()", d.entry.name, "paddle.optimizer.lr.LRScheduler.step",
                  d.status, applied=True)
        step = cst.SimpleStatementLine(body=[cst.Expr(cst.Call(
            func=cst.Attribute(value=cst.Name(d.name), attr=cst.Name("step"))))])
        return cst.FlattenSentinel([updated, step])
    if key in p.epoch:
        d = p.epoch[key]
        if not d.active(up):
            return updated
        expr = updated.body[0]
        call = expr.value
        if not (isinstance(call, cst.Call) and isinstance(call.func, cst.Attribute)
                and call.func.attr.value == "epoch"):
            return updated
        up.report(original, CODE, f"`{d.name}.epoch(...)` → `{d.name}.step(...)`",
                  d.entry.name + ".epoch", "paddle.optimizer.lr.LRScheduler.step", d.status,
                  applied=True)
        new_call = call.with_changes(func=call.func.with_changes(attr=cst.Name("step")))
        return updated.with_changes(body=[expr.with_changes(value=new_call)])
    return updated
