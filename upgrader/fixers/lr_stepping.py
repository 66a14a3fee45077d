"""PU214 lr-scheduler-step: 1.x LR decays → schedulers stepped explicitly.

What it does
    Dygraph: for a dygraph LR decay object bound to a plain name in a function (or the
    module) and feeding exactly one optimizer of that same scope through ``learning_rate``,
    the constructor becomes today's ``paddle.optimizer.lr`` scheduler (rule PU104: ``begin``
    → ``last_epoch = begin - 1``, ``end_learning_rate`` → ``end_lr``, ...) and, for the
    step-based ones (``NoamDecay``, ``PiecewiseDecay``, ``PolynomialDecay``, ...),
    ``<sched>.step()`` is inserted right after every ``<opt>.minimize(...)`` of that
    optimizer. For the epoch-based ones (``StepDecay``, ``MultiStepDecay``,
    ``LambdaDecay``), ``<sched>.epoch(e)`` becomes ``<sched>.step(e)``.

    Static graph: for ``fluid.layers.exponential_decay`` / ``natural_exp_decay`` /
    ``inverse_time_decay`` / ``cosine_decay`` / ``polynomial_decay`` / ``piecewise_decay`` /
    ``noam_decay`` / ``linear_lr_warmup`` (of a number, or of a ``piecewise_decay`` with
    literal boundaries, moved by ``-warmup_steps`` since ``LinearWarmup`` steps what it
    wraps with ``step - warmup_steps``) bound to a plain name and passed
    as the ``learning_rate`` of one optimizer minimized once in that scope, the call
    becomes the scheduler of 1.8.5's formula (``LambdaDecay`` where no class matches it
    exactly) and ``<sched>.step()`` is inserted right after every ``exe.run(...)`` of the
    program holding the minimize: the default main program, the ``program_guard(main,
    ...)`` program, or a ``fluid.CompiledProgram`` of it, run in the same scope (or, for a
    module-level decay, anywhere in the module). Such a run inside a ``try`` that catches
    EOFException (a non-iterable DataLoader's end of data) also gets ``<sched>.step()``
    first in that handler: 1.8 prepended the counter increment to the program, so the run
    that raised EOFException advanced the decay too.

    Dygraph mode: one of those functions but ``linear_lr_warmup`` called in a guard block
    (or outside any ``program_guard`` in a module with dynamic-mode code only) returned in
    1.8 the dygraph decay object of the same formula (``piecewise_decay`` →
    ``dygraph.PiecewiseDecay(boundaries, values, 0)``, ...), which every ``minimize()``
    advanced: it becomes the static rule's scheduler, stepped like a dygraph decay
    (``<sched>.step()`` after every ``minimize()``; written inline as the optimizer's
    ``learning_rate`` it is bound to a fresh name first), under the dygraph conditions.

    Static decays whose stepping cannot be traced that way (an optimizer factory such as
    the book's ``optimizer_func()``, a program handed to a training function, programs run
    in one scope, several decays in one program) keep 1.8's counter in their program
    instead: the call becomes ``_FluidProgramDecay(<scheduler>)``, a class fix adds to the
    module that creates 1.8's persistable ``@LR_DECAY_COUNTER@`` in the current program
    (zero from the startup program, advanced by every run of the program, shared by the
    programs of one scope) and answers the executor, which asks for the rate before each
    run, with the scheduler's rate at the counter's value; no ``step()`` is written. This
    applies when every static decay of the module qualifies (their value goes only to
    optimizers as ``learning_rate``; no ``train_from_dataset``, ``ParallelExecutor``,
    ``scope=`` run, full ``clone()``, checkpoint of persistables, read of the counter or
    EOFException in the module): a program feeds only its last optimizer's scheduler, so
    the two kinds are not mixed (program static_lr_decay_factory).

    A dygraph optimizer that a function builds with a step-based decay and returns (the
    models' ``optimizer_setting()`` factories), read nowhere else in that function:
    its assignment becomes ``opt = _fluid_decay_on_minimize(<optimizer>, <sched>)``, a
    function fix adds to the module that makes that optimizer's ``minimize()`` call
    ``<sched>.step()`` after the update, wherever the caller minimizes it.

Why is this bad?
    A 1.8 decay advanced by itself: a dygraph step-based decay moved one step on every
    ``minimize()``; a static decay was a graph Variable computed from a hidden step
    counter (``@LR_DECAY_COUNTER@``) that every run of its program incremented (the first
    run used step 0, 1 for ``noam_decay``). Today's schedulers only move on an explicit
    ``scheduler.step()``; without it the rate silently stays at its first value. The
    dygraph epoch-based ones had ``epoch(epoch=None)``, which is ``step(epoch=None)`` today.

Example
    ``lr = fluid.dygraph.PiecewiseDecay([2, 4], [0.1, 0.05, 0.01], begin=0)`` /
    ``opt = fluid.optimizer.SGD(learning_rate=lr, parameter_list=ps)`` / ``opt.minimize(loss)``
    becomes ``lr = paddle.optimizer.lr.PiecewiseDecay([2, 4], [0.1, 0.05, 0.01], last_epoch=-1)``
    / ``opt = paddle.optimizer.SGD(learning_rate=lr, parameters=ps)`` /
    ``opt.minimize(loss)`` / ``lr.step()``. In a static program,
    ``lr = fluid.layers.exponential_decay(0.1, 100, 0.5, staircase=True)`` /
    ``fluid.optimizer.SGD(learning_rate=lr).minimize(loss)`` / ``for b in batches:
    exe.run(main, feed=b)`` becomes ``lr = paddle.optimizer.lr.LambdaDecay(0.1,
    lr_lambda=lambda n, steps=100, rate=0.5: rate ** math.floor(n / steps))`` / ... /
    ``exe.run(main, feed=b)`` / ``lr.step()``.

Fix safety
    Safe when the whole pattern is visible in one scope: the parameters after every step
    are those of 1.8.5 (proven per scheduler, dygraph and static). A returned optimizer is
    wrapped only in a module that reads no rate back (``current_step_lr`` / ``get_lr``),
    restores no state (``set_dict``, ``set_state_dict``, ``load_dict``, ``load_dygraph``)
    and calls no ``.step(``, and when its function does not minimize it itself (program
    dygraph_cycle_gan: three Adam optimizers from one factory with a ``piecewise_decay``
    whose boundaries fall within the run match 1.8.5; without the steps they do not). Anything else stays
    manual with a note naming what could not be traced: a scheduler not bound to a name
    (built in a lambda, returned; dygraph: built inline; a static decay built inline as
    the ``learning_rate`` of an optimizer statement is assigned to a name the module does
    not use, right before that statement), used for anything but ``learning_rate`` (and
    ``epoch()``; a static decay fetched with ``fetch_list=[lr]``, read in a nested
    function), feeding several optimizers; an optimizer passed on, stored, saved
    (``state_dict``) or minimized inside an expression or another function. Static only:
    a program passed on (saved, restored: its step counter went with it), taken from the
    caller, or cloned without ``for_test=True``, ``train_from_dataset`` (a run per batch),
    a run of it inside an expression, with ``scope=`` (3.3 looks the rate
    up in the global scope), or where the scheduler is not visible, a startup run after
    training started (1.8 restarted its counter), a ``ParallelExecutor``, and several
    decays sharing one counter: two in one program (today's executor feeds one scheduler
    per program) or programs run in one fluid scope (the counter is a scope variable), unless
    each program runs in a ``fluid.Scope()`` of its own training function
    (``scope_guard(scope)``, ``scope_guard(fluid.Scope())``). Unsafe (applied
    with ``--unsafe-fixes``) when the optimizer's ``current_step_lr()`` is read: 1.8 returned
    the rate of the last ``minimize()``, today's ``get_lr()`` the rate of the next step (the
    training itself is unchanged). A dygraph decay (a ``fluid.dygraph`` decay class, or a
    ``fluid.layers.*_decay`` call in dygraph code, which returned one) is never left
    manual or unsafe for these reasons (nor for a call today's class cannot take:
    ``staircase``, ``step``): it becomes 1.8's class fix adds instead (lr-decay-class,
    PU104), which advances itself as 1.8's did and keeps the rate ``get_lr()`` reads; what
    stays manual or unsafe here are the static decays.
"""
from __future__ import annotations

import copy
import re
from typing import Dict, List, Optional, Tuple

import libcst as cst

from upgrader.args import Bound, Manual, bind, code_of, literal, map_call
from upgrader.names import FastVisitor
from upgrader.rulebook import ArgSpec

CODE = "PU214"
STEP_BASED = "lr-scheduler-step"
EPOCH_BASED = "lr-epoch-method"
STATIC = "lr-static-step"                    # fluid.layers.*_decay in a static program
STRUCTURAL = (STEP_BASED, EPOCH_BASED, STATIC)

SITES = ("minimize", "step")                 # optimizer calls that advanced a 1.8 decay
HARMLESS = ("clear_gradients", "clear_grad")  # optimizer methods that do not touch the rate
READS_LR = "current_step_lr"


# --------------------------------------------------------------------------- survey
class _Survey(FastVisitor):
    """Bindings, loads and method calls of plain names, per scope, on the original tree
    (token/whitespace-only nodes: their hook runs, their children are not walked)."""

    def __init__(self, up):
        super().__init__()
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
        self.statement: Optional[cst.SimpleStatementLine] = None
        self.shown: Dict[int, cst.CSTNode] = {}                   # id(load outside calls) -> statement
        # static-graph decays (STATIC): where each call is, programs, executor runs
        self.statics: List[Tuple[cst.Call, object, int]] = []
        self.where: Dict[int, "_Where"] = {}                       # id(call) -> its context
        self.guards: List["_Guard"] = []
        self.fluid_scopes: List[Tuple[str, int]] = []            # fluid.scope_guard(name)
        self.withs: Dict[int, Tuple[int, int, bool]] = {}         # what each with pushed
        self.loops: List[int] = []
        self.dygraph = 0
        self.runs: List[Tuple[cst.Call, int]] = []                # <x>.run(...) calls, scope
        self.run_stmt: Dict[int, cst.SimpleStatementLine] = {}    # id(call) -> its statement
        self.assigned: Dict[Tuple[str, int], cst.BaseExpression] = {}
        self.chained: Dict[int, cst.Call] = {}                    # id(optimizer call) -> .minimize()
        self.inline_lr: Dict[int, cst.Call] = {}                  # id(decay call) -> optimizer
        self.attr_base: set = set()                                # id(name) of `name.attr`
        self.executors: set = set()                                # names assigned an Executor
        self.parallel: List[cst.Call] = []                         # ParallelExecutor(...)
        self.method_on: Dict[int, cst.Call] = {}                   # id(call) -> call.method(...)
        self.arg_of: Dict[int, cst.Call] = {}                      # id(call) -> f(..., call, ...)
        self.lambdas: set = set()                                  # scopes that are lambdas
        self.params: set = set()                                   # (name, scope) parameters
        self.dataset_runs: List[cst.Call] = []                     # exe.train_from_dataset(...)
        self.counters: List[cst.Call] = []                         # other readers of the counter
        self.saved: List[Tuple[cst.Name, cst.Call, object]] = []    # programs given to a checkpoint save
        self.default_saved: List[cst.Call] = []                      # the same, of the default program
        self.io_calls: List[cst.Call] = []
        self.default_calls: List[cst.Call] = []                    # default_main_program()

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
            self.params.add((p.name.value, self.scopes[-1]))
        saved = self._enter_body()
        node.body.visit(self)
        self._leave_body(saved)
        self.scopes.pop()
        return False

    def visit_Lambda(self, node):
        self.lambdas.add(id(node))
        self._push(node)
        for p in _all_params(node.params):
            self._bind(p.name.value)
            self.params.add((p.name.value, self.scopes[-1]))
        saved = self._enter_body()
        node.body.visit(self)
        self._leave_body(saved)
        self.scopes.pop()
        return False

    # a function body runs later: outside the guards and loops around its definition
    def _enter_body(self):
        saved = (self.guards, self.loops, self.dygraph, self.fluid_scopes)
        self.guards, self.loops, self.dygraph, self.fluid_scopes = [], [], 0, []
        return saved

    def _leave_body(self, saved):
        self.guards, self.loops, self.dygraph, self.fluid_scopes = saved

    def visit_With(self, node):
        guards = scopes = 0
        for item in node.items:
            call = item.item
            if not isinstance(call, cst.Call):
                continue
            entry = _entry(self.up, call.func)
            if entry is not None and entry.name == GUARD:
                self.guards.append(_Guard(self.up, call, self.scopes[-1]))
                guards += 1
            elif entry is not None and entry.name == SCOPE_GUARD and len(call.args) == 1:
                arg = call.args[0].value
                if isinstance(arg, cst.Name):
                    self.fluid_scopes.append((arg.value, self.scopes[-1]))
                    self.skip.add(id(arg))
                else:
                    new = _entry(self.up, arg.func) if isinstance(arg, cst.Call) else None
                    fresh = new is not None and new.name in NEW_SCOPE and not arg.args
                    self.fluid_scopes.append((FRESH if fresh else "?", id(arg)))
                scopes += 1
        from upgrader.fixers.dygraph_guard import is_guard
        dyg = is_guard(self.up, node)
        self.dygraph += dyg
        self.withs[id(node)] = (guards, scopes, dyg)

    def leave_With(self, node):
        guards, scopes, dyg = self.withs.pop(id(node), (0, 0, False))
        del self.guards[len(self.guards) - guards:]
        del self.fluid_scopes[len(self.fluid_scopes) - scopes:]
        self.dygraph -= dyg

    def leave_For(self, node):
        self.loops.pop()

    def visit_While(self, node):
        self.loops.append(id(node))

    def leave_While(self, node):
        self.loops.pop()

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
        self.statement = node
        if len(node.body) == 1:
            s = node.body[0]
            value = getattr(s, "value", None)
            if isinstance(s, (cst.Expr, cst.Assign, cst.AnnAssign)) and value is not None:
                self.stmt_of[id(value)] = node
                if isinstance(s, cst.Assign) and len(s.targets) == 1 and \
                        isinstance(s.targets[0].target, cst.Name):
                    self.target_of[id(value)] = s.targets[0].target.value
                    self.assigned[(s.targets[0].target.value, self.scopes[-1])] = value
                for c in _statement_calls(value):
                    self.run_stmt[id(c)] = node

    def leave_SimpleStatementLine(self, node):
        self.statement = None

    def visit_Assign(self, node):
        for t in node.targets:
            self._bind_target(t.target)

    def visit_AnnAssign(self, node):
        self._bind_target(node.target)

    def visit_AugAssign(self, node):
        self._bind_target(node.target)

    def visit_For(self, node):
        self._bind_target(node.target)
        self.loops.append(id(node))

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
        if isinstance(node.value, (cst.Name, cst.Call)):
            self.attr_base.add(id(node.value))
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
        self.where[id(node)] = _Where(self.guards[-1] if self.guards else None,
                                      tuple(self.loops), self.dygraph > 0,
                                      self.fluid_scopes[-1] if self.fluid_scopes else None)
        entry = _entry(self.up, node.func)
        if entry is not None and entry.structural == STATIC:
            self.statics.append((node, entry, scope))
        elif entry is not None and entry.structural in STRUCTURAL:
            self.scheds.append((node, entry, scope))
        elif entry is not None and _is_optimizer(entry):
            self.opt_scope[id(node)] = scope
            b = bind(entry, node)
            if isinstance(b, Manual) and not _is_legacy(self.up, node.func):  # today's optimizer
                a = next((x for i, x in enumerate(node.args) if (x.keyword is None and i == 0)
                          or (x.keyword is not None and x.keyword.value == "learning_rate")), None)
                b = Bound({"learning_rate": a} if a is not None else {}, [])
            if not isinstance(b, Manual):
                a = b.values.get("learning_rate")
                if a is not None and isinstance(a.value, cst.Name):
                    self.lr_args.setdefault((a.value.value, scope), []).append(node)
                    self.skip.add(id(a.value))
                elif a is not None and isinstance(a.value, cst.Call):
                    self.inline_lr[id(a.value)] = node
        elif entry is not None:
            self._static_call(node, entry)
        elif isinstance(node.func, cst.Name) and node.func.value.startswith("_fluid_") and (
                node.func.value == "_fluid_decay_step_counter" or node.func.value.endswith("_decay_value")):
            self.counters.append(node)  # fix's own readers of 1.8's counter (a second fix)
        elif isinstance(node.func, cst.Name) and node.func.value == PARALLEL_HELPER:
            # fix's own ParallelExecutor class (a re-check of upgraded code): the same runs
            self._static_call(node, self.up.rules.lookup(PARALLEL))
        f = node.func
        if isinstance(f, cst.Attribute) and f.attr.value in DATASET_RUNS:
            self.dataset_runs.append(node)
        if isinstance(f, cst.Attribute) and f.attr.value == "run":
            self.runs.append((node, scope))
            prog = _run_program(node)
            if isinstance(prog, cst.Name):
                self.skip.add(id(prog))
        elif isinstance(f, cst.Attribute) and f.attr.value == "minimize" and \
                isinstance(f.value, cst.Call):
            self.chained[id(f.value)] = node
        if isinstance(f, cst.Attribute) and isinstance(f.value, cst.Call):
            self.method_on[id(f.value)] = node
        for a in node.args:
            if isinstance(a.value, cst.Call):
                self.arg_of[id(a.value)] = node
        if isinstance(f, cst.Attribute) and isinstance(f.value, cst.Name):
            self.methods.setdefault((f.value.value, scope), []).append((f.attr.value, node))
            self.skip.add(id(f.value))
            self.context[id(node)] = node

    def _static_call(self, node, entry):
        name = entry.name
        if name == GUARD:
            for a in node.args[:2]:
                if isinstance(a.value, cst.Name):
                    self.skip.add(id(a.value))
        elif name == COMPILED:
            if node.args and isinstance(node.args[0].value, cst.Name):
                self.skip.add(id(node.args[0].value))
        elif name in EXECUTORS:
            target = self.target_of.get(id(node))
            if target:
                self.executors.add(target)
            if name == PARALLEL:
                self.parallel.append(node)
        elif name in COUNTERS:
            self.counters.append(node)
        elif name in SAVES_WITHOUT_COUNTER or name in SAVES_WITH_COUNTER:
            b = bind(entry, node)  # saving reads the program, it does not run it
            if isinstance(b, Manual):  # today's spelling (save_vars(..., predicate=...)): by position
                pos = 0 if name == "paddle.fluid.save" else 4 if name.endswith("inference_model") else 2
                a = next((x for i, x in enumerate(node.args) if (x.keyword is None and i == pos) or (
                    x.keyword is not None and x.keyword.value in ("main_program", "program"))), None)
            else:
                a = b.values.get("main_program") or b.values.get("program")
            if a is None or (isinstance(a.value, cst.Name) and a.value.value == "None"):
                if name in SAVES_WITH_COUNTER:
                    self.default_saved.append(node)  # the default main program's persistables
            elif isinstance(a.value, cst.Name):
                self.skip.add(id(a.value))
                if name in SAVES_WITH_COUNTER:
                    self.saved.append((a.value, node, self.scopes[-1]))
            else:
                self.io_calls.append(node)  # a program expression: not followed
        elif name == DEFAULT_MAIN:
            self.default_calls.append(node)
        elif _io(name):
            self.io_calls.append(node)

    def visit_Name(self, node):
        if id(node) not in self.skip:
            self.loads.setdefault(node.value, []).append((self.scopes[-1], node))
            if self.calls:
                self.context[id(node)] = self.calls[-1]
            elif self.statement is not None:  # `return opt`, `self.opt = opt`: shown in notes
                self.shown[id(node)] = self.statement
        return False


def _all_params(params: cst.Parameters):
    out = list(params.posonly_params) + list(params.params) + list(params.kwonly_params)
    for p in (params.star_arg, params.star_kwarg):
        if isinstance(p, cst.Param):
            out.append(p)
    return out


def _full_name(up, func) -> Optional[str]:
    """The dotted name ``func`` resolves to through the module's imports, or None."""
    from upgrader.fixers import imported_name
    return imported_name(up, func)


def _entry(up, func):
    full = _full_name(up, func)
    if full is None:
        return None
    e = up.rules.lookup(full)
    if e is None and full.startswith(("paddle.static.", "paddle.optimizer.", "paddle.save")):
        # already upgraded code around a decay left as it is (a re-check of fix's output,
        # or a file fixed in part): today's spelling of the programs, executors and
        # optimizers the plan follows
        e = _modern(up.rules).get(full)
    return e


_MODERN: dict = {}


def _modern(book) -> dict:
    """Today's name -> the legacy entry, for the program, executor and optimizer entries
    the plan reads (targets that more than one such entry maps to are left out)."""
    got = _MODERN.get(book.digest)
    if got is None:
        wanted = {GUARD, SCOPE_GUARD, COMPILED, DEFAULT_MAIN, DEFAULT_STARTUP, *NEW_SCOPE,
                  *EXECUTORS, *SAVES_WITH_COUNTER, *SAVES_WITHOUT_COUNTER}
        from upgrader import fixers
        seen: dict = {}
        for e in book:
            # an entry whose fix calls code added to the module (ParallelExecutor ->
            # _FluidParallelExecutor) or deletes the call only names a namespace as target
            if e.structural in fixers.HELPERS or e.structural in fixers.DELETING:
                continue
            if e.target and (e.name in wanted or _is_optimizer(e) or _io(e.name)):
                seen.setdefault(e.target, set()).add(e.name)
        # several io entries share a target (save_vars, load_vars): read as one that saved
        # the counter, else as a load (both keep the plan from stepping silently)
        got = _MODERN[book.digest] = {
            t: book.lookup(sorted(n, key=lambda x: (x not in SAVES_WITH_COUNTER, x))[0])
            for t, n in seen.items() if len(n) == 1 or all(_io(x) for x in n)}
    return got


def _io(name: str) -> bool:
    return name.startswith("paddle.fluid.io.") or name in ("paddle.fluid.save", "paddle.fluid.load")


def _is_legacy(up, func) -> bool:
    return (_full_name(up, func) or "").startswith("paddle.fluid")


def _is_optimizer(entry) -> bool:
    return entry.kind == "class" and entry.name.startswith("paddle.fluid.optimizer.") and \
        any(p.name == "learning_rate" for p in (entry.params or []))


# --------------------------------------------------------------------------- static graphs
GUARD = "paddle.fluid.program_guard"
SCOPE_GUARD = "paddle.fluid.scope_guard"
NEW_SCOPE = ("paddle.fluid.Scope", "paddle.fluid.core.Scope")
FRESH = "<fluid.Scope()>"                    # scope_guard(fluid.Scope()): no one else runs there
COMPILED = "paddle.fluid.CompiledProgram"
DEFAULT_MAIN = "paddle.fluid.default_main_program"
DEFAULT_STARTUP = "paddle.fluid.default_startup_program"
PARALLEL = "paddle.fluid.ParallelExecutor"
PARALLEL_HELPER = "_FluidParallelExecutor"  # what fix makes of it (parallel_executor.py)
DATASET_RUNS = ("train_from_dataset", "infer_from_dataset")   # a run per batch
EXECUTORS = ("paddle.fluid.Executor", PARALLEL)
#: keywords only Executor.run takes (a no-program `x.run(...)` without them is no executor run)
RUN_KEYWORDS = ("feed", "fetch_list", "scope", "return_numpy", "use_program_cache",
                "feed_var_name", "fetch_var_name", "return_merged", "use_prune")
COUNTERS = ("paddle.fluid.layers.autoincreased_step_counter",
            "paddle.fluid.layers.learning_rate_scheduler._decay_step_counter")
#: checkpoint saves that take a program: 1.8 saved the decay's step counter (a persistable
#: variable) with the persistables, not with the parameters or an inference model
SAVES_WITH_COUNTER = ("paddle.fluid.io.save_persistables", "paddle.fluid.io.save_vars",
                      "paddle.fluid.save")
SAVES_WITHOUT_COUNTER = ("paddle.fluid.io.save_params", "paddle.fluid.io.save_inference_model")
WARMUP = "paddle.fluid.layers.linear_lr_warmup"
PIECEWISE = "paddle.fluid.layers.piecewise_decay"


class _Guard:
    """A ``with fluid.program_guard(main, startup):`` around the code."""

    def __init__(self, up, call: cst.Call, scope: int):
        self.call = call
        self.scope = scope
        entry = up.rules.lookup(GUARD)
        b = bind(entry, call) if entry is not None else Manual("")
        vals = {} if isinstance(b, Manual) else b.values
        main, start = vals.get("main_program"), vals.get("startup_program")
        self.main = main.value.value if main is not None and isinstance(main.value, cst.Name) else None
        self.start = (start.value.value if start is not None and isinstance(start.value, cst.Name)
                      else None)
        self.anonymous_start = start is not None and self.start is None


class _Where:
    __slots__ = ("guard", "loops", "dygraph", "scope")

    def __init__(self, guard, loops, dygraph, scope=None):
        self.guard, self.loops, self.dygraph = guard, loops, dygraph
        self.scope = scope   # (name, python scope) of the innermost fluid.scope_guard(name)


def _statement_calls(value):
    """Calls a statement runs once, after which a statement may follow: the value itself,
    its subscript (``exe.run(...)[0]``) and the direct arguments of a call around it
    (``losses.append(exe.run(...))``)."""
    def inner(v):
        while isinstance(v, cst.Subscript):
            v = v.value
        return v
    v = inner(value)
    if isinstance(v, cst.Call):
        yield v
        for a in v.args:
            w = inner(a.value)
            if isinstance(w, cst.Call):
                yield w


def _run_program(call: cst.Call):
    """The program argument of ``exe.run(...)`` (None: the default main program)."""
    for i, a in enumerate(call.args):
        if a.keyword is None and i == 0 and not a.star:
            return a.value
        if a.keyword is not None and a.keyword.value == "program":
            return a.value
    return None


def _resolve(v: "_Survey", name: str, scope: int) -> int:
    """The scope whose binding of ``name`` a read from ``scope`` sees (0: the module)."""
    while scope:
        if (name, scope) in v.bindings:
            return scope
        scope = v.parent.get(scope, 0)
    return 0


def _literal_number(node) -> bool:
    if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, cst.Minus):
        node = node.expression
    return isinstance(node, (cst.Integer, cst.Float))


# --------------------------------------------------------------------------- plan
class Decision:
    def __init__(self, entry, name: Optional[str]):
        self.entry = entry
        self.name = name              # the scheduler's variable
        self.status = "safe"          # safe | unsafe | manual | mapping
        self.reason = ""
        self.suppressed = False
        self.hoist = None             # the statement an inline decay moves before
        self.hoisted = None           # the scheduler built there
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
        self.static_after: Dict[int, List[Decision]] = {}  # id(exe.run statement) -> decays
        self.static_eof: Dict[int, List[Decision]] = {}   # id(try catching EOF) -> decays
        self.static_eof_handlers: Dict[int, List[int]] = {}  # id(that try) -> handler indexes
        self.hoist: Dict[int, Decision] = {}       # id(optimizer statement) -> inline decay
        # id(optimizer statement) -> (decision, optimizer name): an optimizer its function
        # returns, whose minimize() the helper makes step the scheduler
        self.wrap: Dict[int, Tuple[Decision, str]] = {}


def _line(up, node) -> int:
    return up.pos(node)[0]


def _show(v: _Survey, node) -> str:
    """Short source of where a name is used: the innermost call around it."""
    shown = v.context.get(id(node)) or v.shown.get(id(node))
    if isinstance(shown, cst.SimpleStatementLine):
        shown = shown.body[0] if len(shown.body) == 1 else node
    text = " ".join(code_of(shown or node).split())
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


def _optimizer_escapes(v: _Survey, oname: str, scope: int, there: str, beyond: str,
                       returned: Optional[str] = None) -> Optional[str]:
    """Why optimizer ``oname`` cannot be traced (read in another scope, or used beyond
    ``minimize()`` in its own), each reason ending with what to do; None when it can.
    ``returned``: the advice when it is returned (an optimizer factory)."""
    for node in _foreign_loads(v, oname, scope):
        return f"optimizer `{oname}` is used in another scope (`{_show(v, node)}`): {there}"
    for sc, node in v.loads.get(oname, []):
        if sc == scope:
            stmt = v.shown.get(id(node))
            if returned is not None and isinstance(stmt, cst.SimpleStatementLine) and \
                    isinstance(stmt.body[0], cst.Return):
                return f"optimizer `{oname}` is returned (`{_show(v, node)}`): {returned}"
            return f"optimizer `{oname}` is used beyond minimize() (`{_show(v, node)}`): {beyond}"
    return None


def _returned_only(v: _Survey, oname: str, scope: int) -> bool:
    """Optimizer ``oname`` leaves its scope only by ``return oname`` (an optimizer factory:
    models/dygraph's ``optimizer_setting()``), read nowhere else."""
    if _foreign_loads(v, oname, scope):
        return False
    loads = [node for sc, node in v.loads.get(oname, []) if sc == scope]
    for node in loads:
        stmt = v.shown.get(id(node))
        if not (isinstance(stmt, cst.SimpleStatementLine) and isinstance(stmt.body[0], cst.Return)
                and stmt.body[0].value is node):
            return False
    return bool(loads)


#: what makes a returned optimizer's stepping untraceable anywhere in the module: its rate
#: read back (1.8 gave the last minimize()'s; get_lr() is how a first fix spells it), its
#: state restored (1.8's global_step), a scheduler stepped by hand
_UNWRAPPABLE = re.compile(r"\.current_step_lr\s*\(|\.get_lr\s*\(|\.set_dict\s*\(|\.set_state_dict\s*\(|"
                          r"\.load_dict\s*\(|load_dygraph\s*\(|\.step\s*\(")


def _wrappable_module(up) -> bool:
    """No code of the module reads a rate back, restores a state or steps by hand."""
    return _UNWRAPPABLE.search(up.source) is None


WRAPPER = "_fluid_decay_on_minimize"
WRAPPER_SOURCE = f'''def {WRAPPER}(optimizer, scheduler):
    """Paddle 1.8's dygraph learning-rate decay advanced on every minimize() of its
    optimizer: this optimizer's minimize() steps `scheduler` after the update."""
    minimize = optimizer.minimize

    def minimize_and_step(*args, **kwargs):
        result = minimize(*args, **kwargs)
        scheduler.step()
        return result

    optimizer.minimize = minimize_and_step
    return optimizer
'''


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
    if getattr(entry, "not_literal", None):  # a fluid.layers decay in dygraph code
        return d.fail(f"`{entry.not_literal}` is not a literal (today's scheduler would read "
                      "it at every step)")
    inline = None  # the optimizer call it is written in (`Momentum(learning_rate=Decay(...))`)
    if name is None and step_based and id(call) in v.inline_lr:
        ocall = v.inline_lr[id(call)]
        if v.target_of.get(id(ocall)) is not None and v.stmt_of.get(id(ocall)) is not None \
                and not v.where[id(ocall)].loops:
            inline, name = ocall, _fresh_name(up)
            d.name = sched = name
            advance = f"bind it (`{sched} = ...`), then call `{sched}.step()` after each minimize()"
    if name is None:
        return d.fail(f"not bound to a plain name, so it cannot be stepped: bind it (`lr = ...`), "
                      f"then {advance}" if step_based else
                      f"not bound to a plain name, so its epoch() calls cannot be traced: bind it "
                      f"(`lr = ...`), then {advance}")
    if inline is None and not _plain_binding(v, name, scope):
        return d.fail(f"`{name}` is rebound or declared global in this scope: {advance}")
    stmt = v.stmt_of[id(call)] if inline is None else v.stmt_of[id(inline)]
    entry = staircase_variant(entry, call)
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
    opts = [inline] if inline is not None else v.lr_args.get((name, scope), [])
    if step_based and not opts:
        return d.fail(f"no optimizer in this scope takes learning_rate={name}: {advance}")
    if step_based and len(opts) > 1:
        return d.fail(f"`{name}` drives several optimizers: {advance} of each")
    sites: List[Tuple[cst.SimpleStatementLine, str]] = []
    reads = False
    wrap = None  # (optimizer statement, name): returned by its function, wrapped
    for ocall in opts:
        oname = v.target_of.get(id(ocall))
        if oname is None or not _plain_binding(v, oname, scope):
            return d.fail(f"its optimizer (`{code_of(ocall.func)}(...)`) is not a plain name "
                          f"assigned once: {advance}")
        d.optimizers.append(oname)
        returned = (f"return `{sched}` with it, then call `{sched}.step()` after each of its "
                    f"minimize() calls")
        if advance.startswith("bind it"):
            returned = f"bind the scheduler (`{sched} = ...`), {returned}"
        why = _optimizer_escapes(v, oname, scope, f"{advance} there", f"{advance} wherever it steps",
                                 returned if step_based else None)
        if why is not None:
            wrap_stmt = v.stmt_of.get(id(ocall))
            if not (step_based and wrap_stmt is not None and _returned_only(v, oname, scope)):
                return d.fail(why)
            if not _wrappable_module(up):
                return d.fail(why + " (fix makes a returned optimizer step its scheduler only "
                              "in a module that reads no rate back, restores no state and "
                              "steps nothing by hand)")
            wrap = (wrap_stmt, oname)
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
    if wrap is not None and sites:
        return d.fail(f"optimizer `{wrap[1]}` is returned and minimized where it is built: "
                      f"{advance} of each")
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
        # a dygraph decay class keeps 1.8's rate read back as the class fix adds
        # (lr_decay_classes); today's scheduler would give the next step's rate
        d.fail(f"`{'`/`'.join(d.optimizers)}.current_step_lr()` (now get_lr()) gives the next "
               f"step's rate, 1.8 the last minimize()'s",
               status="manual" if _decay_classes()._class_of(entry) else "unsafe")
    if step_based:
        for s, oname in sites:
            p.after[id(s)] = (d, oname)
        if wrap is not None:
            p.wrap[id(wrap[0])] = (d, wrap[1])
    for s in epoch_sites:
        p.epoch[id(s)] = d
    if inline is not None and d.status in ("safe", "unsafe"):
        d.hoist = stmt  # assigned to its new name just before the optimizer's statement
        p.hoist[id(stmt)] = d
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
    for call, entry, scope in v.statics:
        dyg = _in_dygraph(up, v, call, entry)
        p.decisions[id(call)] = _decide(up, v, p, call, dyg, scope) if dyg is not None \
            else _decide_static(up, v, p, call, entry, scope)
    if len(v.statics) > 1:
        _shared_counters(up, v, p)
    _count_in_program(up, v, p)
    if p.static_after and "EOFException" in up.source:
        up.module.visit(_EofHandlers(p))
    return p


class _EofHandlers(cst.CSTVisitor):
    """Runs stepped after (``static_after``) inside the body of a ``try`` that catches
    EOFException (a non-iterable DataLoader's end of data): the handler steps them too,
    as 1.8's step counter was incremented by the run that raised (its increment ops were
    prepended to the program, before the read op)."""

    def __init__(self, p: "_Plan"):
        self.p = p
        self.tries: List[Tuple[cst.Try, List[int]]] = []

    def visit_Try(self, node):
        eof = [i for i, h in enumerate(node.handlers)
               if h.type is not None and "EOFException" in cst.Module([]).code_for_node(h.type)]
        self.tries.append((node, eof))
        # the handlers and the else/finally blocks are not the guarded body
        node.body.visit(self)
        return False

    def leave_Try(self, node):
        self.tries.pop()
        for h in node.handlers:
            h.visit(self)
        for extra in (node.orelse, node.finalbody):
            if extra is not None:
                extra.visit(self)

    def visit_FunctionDef(self, node):
        saved, self.tries = self.tries, []
        node.body.visit(self)
        self.tries = saved
        return False

    visit_ClassDef = visit_FunctionDef

    def visit_SimpleStatementLine(self, node):
        decisions = self.p.static_after.get(id(node))
        if decisions:
            for t, eof in reversed(self.tries):
                if eof:
                    got = self.p.static_eof.setdefault(id(t), [])
                    got.extend(d for d in decisions if d not in got)
                    self.p.static_eof_handlers[id(t)] = eof
                    break
        return False


# --------------------------------------------------------------------------- static plan
def _compiled_inner(up, expr):
    """``fluid.CompiledProgram(main)`` (``.with_data_parallel(...)``) → the ``main`` node."""
    if isinstance(expr, cst.Call) and isinstance(expr.func, cst.Attribute) and \
            expr.func.attr.value == "with_data_parallel":
        expr = expr.func.value
    if isinstance(expr, cst.Call):
        e = _entry(up, expr.func)
        if e is not None and e.name == COMPILED:
            b = bind(e, expr)
            if not isinstance(b, Manual):
                a = b.values.get("program_or_graph")
                return a.value if a is not None else None
    return None


def _guard_ref(g, which: str = "main"):
    if g is None:
        return ("default",) if which == "main" else ("default-startup",)
    if which == "main":
        return ("name", g.main, g.scope) if g.main else ("anon", id(g.call))
    if g.start:
        return ("name", g.start, g.scope)
    return ("anon-start", id(g.call)) if g.anonymous_start else ("default-startup",)


def _ref(up, v: _Survey, expr, scope: int, where, depth: int = 0):
    """What program ``expr`` (an ``exe.run`` argument) is: a tuple naming it, or None."""
    if expr is None:
        return _guard_ref(where.guard)
    inner = _compiled_inner(up, expr)
    if inner is not None:
        return _ref(up, v, inner, scope, where, depth + 1)
    if isinstance(expr, cst.Call) and not expr.args:
        e = _entry(up, expr.func)
        if e is not None and e.name == DEFAULT_MAIN:
            return _guard_ref(where.guard)
        if e is not None and e.name == DEFAULT_STARTUP:
            return _guard_ref(where.guard, "startup")
        return None
    if isinstance(expr, cst.Name):
        b = _resolve(v, expr.value, scope)
        if v.bindings.get((expr.value, b), 0) == 1 and depth < 3:
            value = v.assigned.get((expr.value, b))
            inner = _compiled_inner(up, value) if value is not None else None
            if inner is not None:
                return _ref(up, v, inner, b, v.where.get(id(value), where), depth + 1)
        return ("name", expr.value, b)
    return None


def _same(a, b) -> bool:
    if a is None or b is None:
        return False
    if a[0] == "name" and b[0] == "name":
        return a[1] == b[1] and a[2] == b[2]
    return a == b


def _lambda_body_holes(entry) -> List[str]:
    """``{param}`` holes of a ``lambda`` template used in its body (read at every step)."""
    out = []
    for t in (entry.extra or {}).values():
        if t.startswith("lambda "):
            body = t.split(": ", 1)[1] if ": " in t else t
            out += re.findall(r"\{([A-Za-z_][A-Za-z0-9_]*)\}", body)
    return out


class _StaticDecision(Decision):
    def __init__(self, entry, name):
        super().__init__(entry, name)
        self.program = None
        self.guard = None
        self.fluid_scope = None       # the fresh fluid.Scope() every run of it happens in
        self.hoist = None             # the optimizer's statement an inline decay moves before
        self.hoisted = None           # the scheduler built there
        self.wrapped = None           # linear_lr_warmup: the piecewise_decay call it wraps
        self.shift = 0
        self.outer = None             # piecewise_decay: the warmup decision wrapping it
        self.counted = False          # _FluidProgramDecay: 1.8's counter kept in the program


def _dygraph_only(up) -> bool:
    from upgrader.fixers.static_dropout import dygraph_only
    return dygraph_only(up)


#: 1.8.5's layers.*_decay in dygraph mode returned the dygraph decay object of the same
#: formula, begin and counter start as its static graph (layers/learning_rate_scheduler.py:
#: piecewise_decay -> PiecewiseDecay(boundaries, values, 0), noam_decay -> NoamDecay (begin
#: 1, the static counter's first step), ...), which every minimize() advanced: the static
#: rule's scheduler (its formula proven on 1.8.5 static programs) stepped after each
#: minimize(). linear_lr_warmup is not among them: its dygraph LinearLrWarmup is another
#: formula (manual, like the class).
DYGRAPH_DECAYS = frozenset(f"paddle.fluid.layers.{n}" for n in (
    "piecewise_decay", "exponential_decay", "natural_exp_decay", "inverse_time_decay",
    "polynomial_decay", "cosine_decay", "noam_decay"))


def _in_dygraph(up, v: _Survey, call: cst.Call, entry):
    """A step-based copy of a static decay's entry when the call runs in dygraph mode (in a
    guard block, or outside any program_guard in a module with dynamic-mode code only)."""
    where = v.where[id(call)]
    if entry.name not in DYGRAPH_DECAYS or entry.safety == "manual" or not (
            where.dygraph or (where.guard is None and _dygraph_only(up))):
        return None
    b = bind(entry, call)
    e = copy.copy(entry)
    e.structural, e.mode = STEP_BASED, "dygraph"
    for hole in _lambda_body_holes(entry):
        a = None if isinstance(b, Manual) else b.values.get(hole)
        if a is not None and literal(code_of(a.value))[0] != "ok":
            # the scheduler's rate formula would read it at every step: not today's
            # scheduler, 1.8's class (lr_decay_classes), which takes the value once
            e.not_literal = hole
    return e


def _decide_static(up, v: _Survey, p: "_Plan", call: cst.Call, entry, scope: int):
    """Can the decay Variable be a scheduler stepped after each run of its program?"""
    name = v.target_of.get(id(call))
    sched = name or "lr"
    advance = f"call `{sched}.step()` after each exe.run() of the training program"
    d = _StaticDecision(entry, name)
    where = v.where[id(call)]
    d.guard = where.guard
    if entry.safety == "manual":
        d.status = "entry-manual"
        return d
    for outer in p.decisions.values():
        if isinstance(outer, _StaticDecision) and outer.wrapped is call:
            d.outer, d.status = outer, "wrapped"
            d.program, d.fluid_scope = outer.program, outer.fluid_scope
            return d
    if where.dygraph or (where.guard is None and _dygraph_only(up)):
        # also outside a guard block in a module with dynamic-mode code only (a function
        # called in a guard, or a module after fix removed its guards)
        return d.fail("called in dygraph mode, where 1.8 returned a dygraph decay object "
                      "that every minimize() advanced: build the paddle.optimizer.lr scheduler "
                      "and call its step() after each minimize()")
    hoist = None
    if name is None and id(call) in v.inline_lr and scope not in v.lambdas:
        ocall = v.inline_lr[id(call)]
        hoist = v.stmt_of.get(id(v.chained.get(id(ocall), ocall)))
        if hoist is not None:
            name = d.name = _fresh_name(up)
            # a failure below leaves the decay inline: the follow-up must bind it first
            sched = name
            advance = (f"bind it to a name before the optimizer's statement (`{name} = ...`), "
                       f"then call `{name}.step()` after each exe.run() of the training program")
    if name is None and id(call) not in v.inline_lr and _graph_argument(up, v, call, entry):
        d.status = "graph"  # lr_graph: handed to a function that uses it in graph ops
        return d
    if name is None:
        if scope in v.lambdas:
            return d.fail(f"built in a lambda, so the optimizer and the runs it drives cannot "
                          f"be traced: build it where its optimizer is built (`lr = ...`), then "
                          f"{advance}")
        if id(call) in v.inline_lr:
            return d.fail(f"built inline as the optimizer's learning_rate, so it cannot be "
                          f"stepped: bind it (`lr = ...`), then {advance}")
        outer = v.arg_of.get(id(call))
        if outer is not None and _entry(up, outer.func) is None:
            # PaddleCV's lr_warmup(piecewise_decay(...), ...) assigns it into a graph rate
            fname = " ".join(code_of(outer.func).split())
            return d.fail(f"passed to `{fname}(...)`, where it cannot be stepped: the optimizer "
                          f"needs one paddle.optimizer.lr scheduler, stepped after each exe.run(). "
                          f"If that function hands the decay to an optimizer, bind it (`lr = ...`), "
                          f"then {advance}; if it uses it in graph ops (assign, arithmetic, a "
                          f"Switch: a custom warmup), a scheduler cannot be a graph value: write "
                          f"the whole schedule as one scheduler (e.g. LambdaDecay) for the "
                          f"optimizer")
        return d.fail(f"not bound to a plain name, so it cannot be stepped: bind it "
                      f"(`lr = ...`), then {advance}")
    if hoist is None and not _plain_binding(v, name, scope):
        return d.fail(f"`{name}` is rebound or declared global in this scope: {advance}")
    if where.loops:
        return d.fail(f"built in a loop (a new 1.8 program variable each time): {advance}")
    stmt = hoist if hoist is not None else v.stmt_of[id(call)]
    mapped = map_call(entry, call, cst.parse_expression(entry.target))
    if isinstance(mapped, Manual):
        d.status, d.reason = "mapping", mapped.reason
        return d
    b = bind(entry, call)
    for hole in _lambda_body_holes(entry):
        a = b.values.get(hole)
        kind, _ = literal(code_of(a.value)) if a is not None else ("ok", None)
        if kind != "ok":
            return d.fail(f"{hole}={code_of(a.value)} is not a literal (the rate formula "
                          f"depends on it): {advance}")
    if entry.name == WARMUP:
        a = b.values.get("learning_rate")
        shift = _warmup_shift(up, v, b) if a is not None else None
        if shift is not None:
            d.wrapped, d.shift = shift
        elif a is None or not _literal_number(a.value):
            return d.fail(f"learning_rate={code_of(a.value) if a else ''} is neither a number "
                          "nor a piecewise_decay with literal boundaries and warmup_steps: 1.8 "
                          "evaluated a wrapped decay at the global step, LinearWarmup at "
                          "step - warmup_steps: migrate by hand")
    for node in _foreign_loads(v, name, scope):
        return d.fail(f"`{name}` is read in another scope (`{_show(v, node)}`): {advance}")
    if _graph_value(up, v, name, scope, entry):
        d.status = "graph"  # lr_graph: 1.8's formula as graph ops on the step counter
        return d
    for sc, node in v.loads.get(name, []):
        if sc == scope:
            ctx = v.context.get(id(node))
            if isinstance(ctx, cst.Call) and isinstance(ctx.func, cst.Attribute) and \
                    ctx.func.attr.value == "run":
                return d.fail(f"`{name}` is fetched (`{_show(v, node)}`), today a scheduler, "
                              f"not a graph variable: read `{name}()` before the run instead, "
                              f"then {advance}")
            return d.fail(f"`{name}` is used beyond learning_rate (`{_show(v, node)}`), "
                          f"today a scheduler, not a graph variable: {advance}")
    for method, mcall in v.methods.get((name, scope), []):
        return d.fail(f"`{name}.{method}()` has no traced counterpart: migrate by hand")
    opts = [v.inline_lr[id(call)]] if hoist is not None else v.lr_args.get((name, scope), [])
    if not opts:
        return d.fail(f"no optimizer in this scope takes learning_rate={name}: {advance}")
    if len(opts) > 1:
        return d.fail(f"`{name}` drives several optimizers: {advance}")
    ocall = opts[0]
    oname = v.target_of.get(id(ocall))
    minimizes: List[cst.Call] = []
    if oname is None:
        if id(ocall) in v.chained:
            minimizes.append(v.chained[id(ocall)])
        else:
            return d.fail(f"its optimizer (`{code_of(ocall.func)}(...)`) is neither a plain name "
                          f"nor minimized where it is built: {advance}")
    else:
        if not _plain_binding(v, oname, scope):
            return d.fail(f"its optimizer `{oname}` is not a plain name assigned once: {advance}")
        d.optimizers.append(oname)
        why = _optimizer_escapes(v, oname, scope, advance, advance)
        if why is not None:
            return d.fail(why)
        for method, mcall in v.methods.get((oname, scope), []):
            if method == "minimize":
                minimizes.append(mcall)
            elif method not in HARMLESS:
                return d.fail(f"`{oname}.{method}()` has no traced counterpart: migrate by hand")
    if len(minimizes) != 1:
        return d.fail(f"its optimizer is minimized {len(minimizes)} times in this scope: "
                      f"{advance}")
    mwhere = v.where[id(minimizes[0])]
    if mwhere.loops or mwhere.guard is not where.guard:
        return d.fail(f"minimize() is not under the same program_guard as the decay: {advance}")
    d.program = prog = _guard_ref(where.guard)
    start = _guard_ref(where.guard, "startup")
    pname = "the default main program" if prog[0] == "default" else f"`{prog[1]}`" \
        if prog[0] == "name" else "the program_guard's program"
    if prog[0] == "name" and v.bindings.get((prog[1], prog[2]), 0) != 1:
        return d.fail(f"program `{prog[1]}` is rebound: {advance}")
    if prog[0] == "name" and (prog[1], prog[2]) in v.params:
        return d.fail(f"program `{prog[1]}` comes from the caller, whose runs of it cannot be "
                      f"traced: {advance}")
    for c in v.dataset_runs:
        return d.fail(f"`{_show(v, c)}` runs a program once per batch: {advance} by hand")
    # the program must not escape: 1.8 counted every run of it, and a checkpoint saved or
    # restored its step counter
    if prog[0] == "name":
        for node, save, sc in v.saved:
            if node.value == prog[1] and _resolve(v, prog[1], sc) == prog[2]:
                d.fail(f"program `{prog[1]}` is saved with its persistables (`{_show(v, save)}`): "
                       "1.8's checkpoint held the decay's step counter, today's does not (save "
                       "and restore the scheduler's state_dict() next to it to resume)", status="unsafe")
        for sc, node in v.loads.get(prog[1], []):
            if _resolve(v, prog[1], sc) == prog[2] and id(node) not in v.attr_base:
                return d.fail(f"program `{prog[1]}` is passed on (`{_show(v, node)}`), so its "
                              f"runs cannot all be traced: {advance}")
        for sc0 in {sc for (n, sc) in v.methods if n == prog[1]}:
            if _resolve(v, prog[1], sc0) != prog[2]:
                continue
            for method, mcall in v.methods[(prog[1], sc0)]:
                if method == "clone" and not any(
                        a.keyword is not None and a.keyword.value == "for_test" and
                        code_of(a.value) == "True" for a in mcall.args):
                    return d.fail(f"`{prog[1]}.clone()` keeps 1.8's step counter, its runs "
                                  f"advance it too: {advance}")
    for c in v.parallel:
        return d.fail(f"`{_show(v, c)}` runs programs its own way: migrate by hand")
    if prog[0] == "default":
        for c in v.default_calls:
            if any(c is _run_program(r) for r, _ in v.runs) or v.where[id(c)].guard is not None:
                continue
            m = v.method_on.get(id(c))
            if m is not None and m.func.attr.value == "clone":
                if any(a.keyword is not None and a.keyword.value == "for_test" and
                       code_of(a.value) == "True" for a in m.args):
                    continue
                return d.fail(f"`{_show(v, m)}` keeps 1.8's step counter, its runs advance it "
                              f"too: {advance}")
            if id(c) not in v.attr_base:
                return d.fail(f"the default main program is used beyond exe.run() "
                              f"(`{_show(v, c)}`): {advance}")
        for c in v.default_saved:
            d.fail(f"the default main program is saved with its persistables (`{_show(v, c)}`): "
                   "1.8's checkpoint held the decay's step counter, today's does not (save and "
                   "restore the scheduler's state_dict() next to it to resume)", status="unsafe")
        for c in v.io_calls:
            return d.fail(f"`{code_of(c.func)}()` may save or restore 1.8's step counter with "
                          f"the program: {advance}")
    for c in v.counters:
        if v.where[id(c)].guard is where.guard:
            return d.fail(f"the program reads 1.8's step counter itself "
                          f"(`{_show(v, c)}`): migrate by hand")
    line = _line(up, stmt)
    sites, resets, run_calls = [], [], []
    for rcall, sc in v.runs:
        rwhere = v.where[id(rcall)]
        ref = _ref(up, v, _run_program(rcall), sc, rwhere)
        at = f"`{_show(v, rcall)}`"
        known = isinstance(rcall.func.value, cst.Name) and rcall.func.value.value in v.executors
        if _run_program(rcall) is None and not known and not any(
                a.keyword is not None and a.keyword.value in RUN_KEYWORDS for a in rcall.args):
            continue  # not an executor's run (a thread, an app ...)
        if _same(ref, prog):
            kind = "train"
        elif _same(ref, start):
            kind = "start"
        elif ref is None and isinstance(rcall.func.value, cst.Name) and \
                rcall.func.value.value in v.executors:
            return d.fail(f"{at} runs a program that cannot be traced: {advance}")
        else:
            continue
        run_calls.append((rcall, sc))
        visible = sc == scope or scope == 0 or _nested(v, sc, scope)
        if not visible or (hoist is None and _resolve(v, name, sc) != scope):
            if kind == "train":
                return d.fail(f"{at} runs {pname} where `{name}` is not visible: {advance}")
            continue
        s = v.run_stmt.get(id(rcall))
        if kind == "train":
            if any(a.keyword is not None and a.keyword.value == "scope" for a in rcall.args):
                return d.fail(f"{at} passes scope=: today's executor looks a scheduler's rate up "
                              f"in the global scope (NotFound), run it under "
                              f"fluid.scope_guard(...) instead, then {advance}")
            if s is None:
                return d.fail(f"{at} is inside an expression: {advance}")
            if sc == scope and _line(up, s) < line:
                return d.fail(f"an exe.run() of {pname} precedes the decay in the file: "
                              f"{advance}")
            sites.append((s, rwhere))
        else:
            resets.append((rcall, s, rwhere, sc))
    if not sites:
        return d.fail(f"no exe.run() of {pname} in this module: {advance}")
    d.fluid_scope = _isolated(up, v, scope, run_calls, prog, start)
    first = min(_line(up, s) for s, _ in sites)
    loops = set()
    for _, w in sites:
        loops.update(w.loops)
    for rcall, s, rwhere, sc in resets:
        if (s is None or _line(up, s) > first or sc != scope) or (set(rwhere.loops) & loops):
            return d.fail(f"`{_show(v, rcall)}` may run the startup program again after "
                          f"training started (1.8 restarted its step counter with the "
                          f"parameters): migrate by hand")
    if any(_suppressed(up, s) for s, _ in sites) or _suppressed(up, stmt, entry.code):
        d.suppressed = True
    if entry.safety == "unsafe":
        d.fail(entry.note, status="unsafe")
    for s, _ in sites:
        p.static_after.setdefault(id(s), []).append(d)
    if hoist is not None:
        d.hoist = hoist
        p.hoist[id(hoist)] = d
    return d


def _graph_value(up, v: _Survey, name: str, scope: int, entry) -> bool:
    """The decay's value is used only as an argument of fluid.layers functions (assigned
    into a variable, in a Switch case): never given to an optimizer, read back or
    returned. lr-graph writes it as 1.8's formula in graph ops."""
    from upgrader.fixers import lr_graph
    if entry.name not in lr_graph.VALUES or v.lr_args.get((name, scope)) \
            or v.methods.get((name, scope)) or not _plain_binding(v, name, scope):
        return False
    loads = [node for sc, node in v.loads.get(name, []) if sc == scope]
    if not loads:
        return False
    for node in loads:
        ctx = v.context.get(id(node))
        if not isinstance(ctx, cst.Call) or not (_full_name(up, ctx.func) or "").startswith(
                "paddle.fluid.layers.") or any(a.value is node and a.keyword is not None and
                                               a.keyword.value == "learning_rate" for a in ctx.args):
            return False
    return True


def _graph_argument(up, v: _Survey, call: cst.Call, entry) -> bool:
    """The decay is an argument of a call of a function of the module (PaddleCV's
    ``lr_warmup(piecewise_decay(...), ...)``) whose parameter the function only hands to
    fluid.layers functions (assigns it into its rate in a Switch case)."""
    from upgrader.fixers import lr_graph
    outer = v.arg_of.get(id(call))
    if entry.name not in lr_graph.VALUES or outer is None or not isinstance(outer.func, cst.Name):
        return False
    fn = next((st for st in up.module.body if isinstance(st, cst.FunctionDef)
               and st.name.value == outer.func.value), None)
    if fn is None or sum(isinstance(st, (cst.FunctionDef, cst.ClassDef)) and st.name.value ==
                         fn.name.value for st in up.module.body) != 1:
        return False
    params = list(fn.params.params)
    at = next((i for i, a in enumerate(outer.args) if a.value is call), None)
    arg = outer.args[at]
    if arg.star:
        return False
    param = None
    if arg.keyword is not None:
        param = arg.keyword.value if any(p.name.value == arg.keyword.value for p in params) else None
    elif at < len(params) and all(a.keyword is None and not a.star for a in outer.args[:at]):
        param = params[at].name.value
    if param is None:
        return False

    class Uses(FastVisitor):
        def __init__(self):
            super().__init__()
            self.total = self.layer_args = 0
            self.bound = False

        def visit_Name(self, node):
            if node.value == param:
                self.total += 1

        def visit_Call(self, node):
            if (_full_name(up, node.func) or "").startswith("paddle.fluid.layers."):
                self.layer_args += sum(isinstance(a.value, cst.Name) and a.value.value == param
                                       and not (a.keyword is not None and a.keyword.value ==
                                                "learning_rate") for a in node.args)

        def visit_AssignTarget(self, node):
            if isinstance(node.target, cst.Name) and node.target.value == param:
                self.bound = True

    uses = Uses()
    fn.body.visit(uses)
    return not uses.bound and uses.total > 0 and uses.total == uses.layer_args


def _warmup_shift(up, v: _Survey, b):
    """``linear_lr_warmup(piecewise_decay([b...], values), W, ...)`` with literal int
    boundaries and W: (the piecewise call, W). 1.8 looked the wrapped piecewise up at the
    global step, LinearWarmup steps it with step - W: its boundaries move by -W."""
    inner = b.values["learning_rate"].value
    w = b.values.get("warmup_steps")
    if not isinstance(inner, cst.Call) or w is None:
        return None
    e = _entry(up, inner.func)
    kind, steps = literal(code_of(w.value))
    if e is None or e.name != PIECEWISE or kind != "ok" or type(steps) is not int:
        return None
    ib = bind(e, inner)
    if isinstance(ib, Manual) or "boundaries" not in ib.values:
        return None
    kind, bounds = literal(code_of(ib.values["boundaries"].value))
    if kind != "ok" or not isinstance(bounds, (list, tuple)) or \
            not all(type(x) is int for x in bounds):
        return None
    return inner, steps


def _shifted_boundaries(call: cst.Call, shift: int, entry) -> cst.Call:
    """The piecewise call with every literal boundary moved by -shift."""
    b = bind(entry, call)
    arg = b.values["boundaries"]
    _, bounds = literal(code_of(arg.value))
    new = cst.parse_expression(repr([x - shift for x in bounds]))
    return call.with_changes(args=[a.with_changes(value=new) if a is arg else a
                                   for a in call.args])


def _fresh_name(up) -> str:
    """A name for an inline decay's scheduler that the module does not spell anywhere."""
    from upgrader.hoist import fresh_name
    return fresh_name(up, "lr_scheduler", first="lr")


def _run_scope(v: "_Survey", rcall: cst.Call, sc: int):
    """(name, python scope) of the fluid scope a run uses: ``scope=name``, else the innermost
    ``scope_guard(name)``; None for the global scope (or an expression)."""
    for a in rcall.args:
        if a.keyword is not None and a.keyword.value == "scope":
            return (a.value.value, sc) if isinstance(a.value, cst.Name) else ("?", id(a))
    return v.where[id(rcall)].scope


def _isolated(up, v: _Survey, scope: int, runs, prog, start):
    """The fluid scope every run of the program happens in, when it is a ``fluid.Scope()``
    of this function used only by ``scope_guard`` / ``scope=`` (and its own methods) and
    holding no other program's runs; else None (the runs share the global scope's step
    counter with other programs)."""
    scopes = {_run_scope(v, rcall, sc) for rcall, sc in runs}
    if len(scopes) != 1 or None in scopes or scope == 0:
        return None
    (sname, ssc), = scopes
    if sname == FRESH:
        for rcall, sc in v.runs:
            if _run_scope(v, rcall, sc) == (sname, ssc) and not (
                    _same(_ref(up, v, _run_program(rcall), sc, v.where[id(rcall)]), prog) or
                    _same(_ref(up, v, _run_program(rcall), sc, v.where[id(rcall)]), start)):
                return None
        return (sname, ssc)
    if not isinstance(sname, str) or sname == "?" or _resolve(v, sname, ssc) != scope or \
            v.bindings.get((sname, scope), 0) != 1:
        return None
    value = v.assigned.get((sname, scope))
    e = _entry(up, value.func) if isinstance(value, cst.Call) else None
    if e is None or e.name not in NEW_SCOPE:
        return None
    for sc, node in v.loads.get(sname, []):
        call = v.context.get(id(node))
        as_scope = call is not None and any(a.value is node and a.keyword is not None and
                                            a.keyword.value == "scope" for a in call.args) \
            and isinstance(call.func, cst.Attribute) and call.func.attr.value == "run"
        if _resolve(v, sname, sc) == scope and not as_scope:
            return None  # passed on: other programs may run in it
    for rcall, sc in v.runs:
        rs = _run_scope(v, rcall, sc)
        if rs is not None and rs[0] == sname and _resolve(v, sname, rs[1]) == scope:
            ref = _ref(up, v, _run_program(rcall), sc, v.where[id(rcall)])
            if not (_same(ref, prog) or _same(ref, start)):
                return None
    return (sname, scope)


def _shared_counters(up, v: _Survey, p: "_Plan") -> None:
    """The decays of one program shared its step counter, and the counter is a variable of
    the fluid scope, so the decays of several programs run in one scope shared it too.
    Today a static program feeds one scheduler (``program.lr_scheduler``, the last
    optimizer's): several decays in one program stay manual."""
    calls = [c for c, _, _ in v.statics]
    for call in calls:
        d = p.decisions.get(id(call))
        if not isinstance(d, _StaticDecision) or d.status not in ("safe", "unsafe"):
            continue  # (a wrapped piecewise_decay follows its warmup)
        for other in calls:
            if other is call or other is d.wrapped:
                continue
            o = p.decisions.get(id(other))
            traced = isinstance(o, _StaticDecision) and o.program is not None
            if traced and _same(o.program, d.program):
                d.fail(f"the program has another decay (`{_show(v, other)}`): today a static "
                       f"program feeds one scheduler (the last optimizer's), migrate by hand")
                break
            if d.fluid_scope is None and not (traced and o.fluid_scope is not None):
                d.fail(f"another program's decay (`{_show(v, other)}`) shares 1.8's step "
                       f"counter in the same fluid scope: run each program in its own "
                       f"fluid.Scope() (scope_guard), or migrate by hand")
                break


# --------------------------------------------------------------------------- counted
COUNTED = "_FluidProgramDecay"
COUNTED_SOURCE = f'''class {COUNTED}(paddle.optimizer.lr.LRScheduler):
    """Paddle 1.8's static learning-rate decays (fluid.layers.exponential_decay, ...): the
    rate was computed in the program from a step counter, @LR_DECAY_COUNTER@, a persistable
    variable that every run of the program advanced (one per program, shared by the
    programs run in one scope). This adds that counter to the current program
    (_fluid_decay_step_counter) and gives the optimizer the wrapped scheduler's rate at the
    count of the next run: the executor asks for the rate before each run, so no step() is needed,
    wherever the program is run. The rates of the other such decays are refreshed at the
    same time (the executor asks only the last minimized optimizer of a program)."""
    _decays = []

    def __init__(self, scheduler):
        import paddle
        if paddle.in_dynamic_mode():
            raise RuntimeError('1.8 learning-rate decays in dynamic mode advanced on every '
                               'minimize(): call step() of the scheduler after each minimize()')
        _fluid_decay_step_counter()
        self.scheduler = scheduler
        self._first = scheduler.last_epoch
        super().__init__(scheduler.base_lr)
        {COUNTED}._decays.append(self)

    def get_lr(self):
        return self.scheduler()

    def _counted(self, scope):
        import numpy as np
        var = scope.find_var('@LR_DECAY_COUNTER@')
        step = 0  # the count the next run reads: the counter after its increment
        if var is not None and var.get_tensor()._is_initialized():
            step = int(np.array(var.get_tensor()).reshape(-1)[0]) + 1
        self.scheduler.step(self._first + step)
        return self.scheduler()

    def __call__(self):
        import numpy as np
        import paddle
        scope = paddle.static.global_scope()
        for decay in {COUNTED}._decays:
            name = getattr(decay, '_var_name', None)
            var = scope.find_var(name) if name and decay is not self else None
            if var is not None and var.get_tensor()._is_initialized():
                tensor = var.get_tensor()
                value = np.array(tensor)
                tensor.set(np.full(value.shape, decay._counted(scope), value.dtype),
                           paddle.CPUPlace())
        self.last_lr = self._counted(scope)
        return self.last_lr
'''
#: program clones: one that keeps the optimizer (not for_test) runs without a fed rate
_CLONES = re.compile(r"\.clone\(([^()]*)\)")
#: loads that may restore 1.8's step counter with a program's persistables
_RESTORES = re.compile(r"load_persistables|load_vars|fluid\.load\b|io\.load\b")


def _counted_ok(up, v: _Survey, call: cst.Call, entry, scope: int) -> bool:
    """Can the decay keep 1.8's step counter in its program (``_FluidProgramDecay``)? Its
    value must go only to optimizers as their learning_rate; nothing in the module may run
    a program per batch, with a scope of its own or in a ParallelExecutor, read or restore
    the counter, or meet a non-iterable loader's end of data (1.8's run advanced the counter
    before the read raised EOFException)."""
    where = v.where[id(call)]
    if entry.safety != "safe" or entry.name == WARMUP or where.dygraph or (
            where.guard is None and _dygraph_only(up)) or scope in v.lambdas:
        return False
    if isinstance(map_call(entry, call, cst.parse_expression(entry.target)), Manual):
        return False
    b = bind(entry, call)
    for hole in _lambda_body_holes(entry):
        a = b.values.get(hole)
        if a is not None and literal(code_of(a.value))[0] != "ok":
            return False
    name = v.target_of.get(id(call))
    if name is None:
        if id(call) not in v.inline_lr:
            return False
    elif name in v.declared or not v.lr_args.get((name, scope)) or _foreign_loads(v, name, scope) \
            or any(sc == scope for sc, _ in v.loads.get(name, [])) or v.methods.get((name, scope)):
        return False
    if v.dataset_runs or v.parallel or v.counters or v.saved or v.default_saved \
            or "EOFException" in up.source or _RESTORES.search(up.source):
        return False
    for args in _CLONES.findall(up.source):
        if "True" not in args:
            return False  # runs of a full clone advance the counter, at a rate not fed to it
    return not any(a.keyword is not None and a.keyword.value == "scope"
                   for rcall, _ in v.runs for a in rcall.args)


def _count_in_program(up, v: _Survey, p: "_Plan") -> None:
    """Static decays left manual because their optimizer, program or runs could not be
    traced (an optimizer factory, a program handed to a training function) keep 1.8's
    counter in their program instead, when every static decay of the module can: a program
    feeds only its last optimizer's scheduler, so the two kinds are not mixed."""
    decisions = [(call, entry, scope, p.decisions.get(id(call))) for call, entry, scope in v.statics]
    decisions = [x for x in decisions if isinstance(x[3], _StaticDecision)
                 and x[3].status not in ("entry-manual",)]
    if not any(d.status == "manual" for *_, d in decisions):
        return
    if not all(d.status in ("manual", "safe") and d.outer is None and d.wrapped is None
               and _counted_ok(up, v, call, entry, scope) for call, entry, scope, d in decisions):
        return
    for call, entry, scope, d in decisions:
        d.status, d.reason, d.counted, d.hoist = "safe", "", True, None
        for key in list(p.static_after):
            p.static_after[key] = [x for x in p.static_after[key] if x is not d]
            if not p.static_after[key]:
                del p.static_after[key]
        for key in [k for k, x in p.hoist.items() if x is d]:
            del p.hoist[key]


# --------------------------------------------------------------------------- rewrites
def staircase_variant(entry, call: cst.Call):
    """``dygraph.ExponentialDecay(..., staircase=True)`` (a literal True) is today's
    ``StepDecay``: lr * decay_rate ** floor(n / decay_steps) is lr * gamma ** (n // step_size)."""
    if entry.name != "paddle.fluid.dygraph.ExponentialDecay":
        return entry
    b = bind(entry, call)
    arg = None if isinstance(b, Manual) else b.values.get("staircase")
    if arg is None or literal(code_of(arg.value)) != ("ok", True):
        return entry
    e = copy.copy(entry)
    e.target = "paddle.optimizer.lr.StepDecay"
    e.args = dict(entry.args)
    e.args["decay_steps"] = ArgSpec(rename="step_size")
    e.args["decay_rate"] = ArgSpec(rename="gamma")
    e.args["staircase"] = ArgSpec(drop=True)
    return e


def rewrite_call(up, original: cst.Call, updated: cst.Call, entry):
    """The decay constructor: the data rule when its stepping is rewritten too."""
    entry = staircase_variant(entry, updated)
    d = plan(up).decisions.get(id(original))
    if d is None:  # not seen by the survey (should not happen)
        up.report_entry(original, entry, False, manual="its stepping could not be traced")
        return updated
    if d.status == "entry-manual":
        up.report_entry(original, entry, False)
        return updated
    if d.status == "wrapped":
        if not d.outer.active(up):
            up.report_entry(original, entry, False, manual=f"wrapped by `{d.outer.entry.short}`, "
                            "migrated with it")
            return updated
        mapped = map_call(entry, _shifted_boundaries(updated, d.outer.shift, entry),
                          cst.parse_expression(entry.target))
        if isinstance(mapped, Manual):  # the plan checked the boundaries; be safe anyway
            up.report_entry(original, entry, False, manual=mapped.reason)
            return updated
        up.report(original, entry.code, f"`{entry.short}` → `{entry.target}` with its "
                  f"boundaries moved by -{d.outer.shift} (LinearWarmup steps it with step - "
                  f"warmup_steps)", entry.name, entry.target, d.outer.status, applied=True)
        return mapped[0]
    if _decay_classes().untraced(d):
        # 1.8's dygraph decay as the class fix adds, which advances itself as 1.8's did
        return _decay_classes().to_class(up, original, updated, d.entry,
                                         _decay_classes().untraced_why(d))
    if d.status == "mapping":
        return up.apply_entry(original, updated, entry)  # reports the mapping's reason
    if d.status == "graph":
        from upgrader.fixers import lr_graph
        return lr_graph.graph_value(up, original, updated, entry)
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
    if "math." in code_of(mapped[0]):
        up.needed_imports.add("math")  # a rate formula written with math (CosineDecay)
    from upgrader.fixers import static_mode
    static_mode.note_applied(up, entry)
    if getattr(d, "counted", False):
        from upgrader.fixers import lr_graph, need_helper
        need_helper(up, COUNTED)
        need_helper(up, lr_graph.COUNTER)  # the counter it builds on
        up.needed_imports.add("paddle")
        up.report(original, entry.code, f"`{entry.short}` → `{COUNTED}({entry.target}(...))` "
                  "(a class fix adds to the module: 1.8's step counter in the program, "
                  "advanced by every run of it)", entry.name, entry.target, "safe", applied=True)
        return cst.Call(func=cst.Name(COUNTED), args=[cst.Arg(mapped[0])])
    msg = f"`{entry.short}` → `{entry.target}`"
    if d.status == "unsafe":
        msg += f" (unsafe: {d.reason})"
    up.report(original, entry.code, msg, entry.name, entry.target, d.status, applied=True)
    if getattr(d, "hoist", None) is not None:
        d.hoisted = mapped[0]  # assigned to its name before the optimizer's statement
        return cst.Name(d.name)
    return mapped[0]


def _decay_classes():
    from upgrader.fixers import lr_decay_classes
    return lr_decay_classes


def rewrite_reference(up, node: cst.BaseExpression, entry):
    """A dygraph decay class used as a value: the class fix adds when its calls in the
    module become it (lr_decay_classes); None keeps the engine's rename."""
    return _decay_classes().rewrite_reference(up, node, entry)


def leave_statement(up, original, updated):
    """Statement hook: ``<sched>.step()`` after each planned minimize(), ``epoch`` → ``step``."""
    p = getattr(up, "_lr_plan", None)
    if p is not None and p.static_eof and isinstance(updated, cst.Try) \
            and id(original) in p.static_eof:
        return _eof_steps(up, original, updated, p)
    if p is None or not isinstance(updated, cst.SimpleStatementLine):
        return updated
    key = id(original)
    if key in p.wrap:
        updated = _wrap_optimizer(up, original, updated, *p.wrap[key])
    if key in p.hoist:
        d = p.hoist[key]
        if d.hoisted is None or not d.active(up):
            return updated
        from upgrader.hoist import assign_before
        return assign_before(up, [(d.name, d.hoisted)], updated)
    if key in p.static_after:
        return _static_steps(up, original, updated, p)
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


def _wrap_optimizer(up, original, updated, d: Decision, oname: str):
    """``opt = Optimizer(learning_rate=sched, ...)`` of an optimizer its function returns
    → ``opt = _fluid_decay_on_minimize(Optimizer(...), sched)``."""
    from upgrader.fixers import helper_state
    small = updated.body[0] if isinstance(updated, cst.SimpleStatementLine) else None
    if not d.active(up) or not isinstance(small, cst.Assign):
        return updated
    if helper_state(up, WRAPPER, WRAPPER_SOURCE) == "conflict":
        up.report(original, CODE, f"the module already uses the name {WRAPPER} for something "
                  f"else: call `{d.name}.step()` after each minimize() of the optimizer "
                  f"`{oname}` returns", d.entry.name, "paddle.optimizer.lr.LRScheduler.step",
                  "manual")
        return updated
    up.__dict__["_decay_on_minimize_used"] = True
    up.report(original, CODE, f"optimizer `{oname}` is returned: `{WRAPPER}` makes its "
              f"minimize() call `{d.name}.step()` (1.8's {d.entry.short} advanced on every "
              "minimize(), today's scheduler only on step(); a function fix adds to the module)",
              d.entry.name, "paddle.optimizer.lr.LRScheduler.step", d.status, applied=True)
    value = cst.Call(func=cst.Name(WRAPPER), args=[
        cst.Arg(small.value, comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))),
        cst.Arg(cst.Name(d.name))])
    return updated.with_changes(body=[small.with_changes(value=value)])


def finish_module(up, module: cst.Module) -> cst.Module:
    """Add the function that makes a returned optimizer step its scheduler."""
    from upgrader.fixers import add_used_helpers, helper_state, insert_after_head
    module = add_used_helpers(up, module, {COUNTED: COUNTED_SOURCE})
    if not up.__dict__.get("_decay_on_minimize_used") or \
            helper_state(up, WRAPPER, WRAPPER_SOURCE) != "insert":
        return module
    return insert_after_head(module, [WRAPPER_SOURCE])


def _static_steps(up, original, updated, p: _Plan):
    """``<sched>.step()`` after a run of the training program."""
    out = [updated]
    for d in p.static_after.get(id(original), []):
        if not d.active(up):
            continue
        up.report(original, CODE, f"`{d.name}.step()` after `exe.run()`: 1.8's "
                  f"{d.entry.short} advanced on every run of its program, today's scheduler "
                  "only on step()", d.entry.name, "paddle.optimizer.lr.LRScheduler.step",
                  d.status, applied=True)
        out.append(cst.SimpleStatementLine(body=[cst.Expr(cst.Call(
            func=cst.Attribute(value=cst.Name(d.name), attr=cst.Name("step"))))]))
    return cst.FlattenSentinel(out) if len(out) > 1 else updated


def _eof_steps(up, original, updated, p: _Plan):
    """``<sched>.step()`` first in the EOFException handlers of a ``try`` whose body runs
    the training program: the run that met the end of the data advanced 1.8's counter."""
    steps = []
    for d in p.static_eof[id(original)]:
        if not d.active(up):
            continue
        up.report(original, CODE, f"`{d.name}.step()` in the EOFException handler: the run "
                  f"that met the end of a non-iterable DataLoader also advanced 1.8's "
                  f"{d.entry.short} (its step counter was incremented before the read op "
                  "raised)", d.entry.name, "paddle.optimizer.lr.LRScheduler.step",
                  d.status, applied=True)
        steps.append(cst.SimpleStatementLine(body=[cst.Expr(cst.Call(
            func=cst.Attribute(value=cst.Name(d.name), attr=cst.Name("step"))))]))
    if not steps:
        return updated
    handlers = list(updated.handlers)
    for i in p.static_eof_handlers[id(original)]:
        h = handlers[i]
        body = h.body
        if isinstance(body, cst.IndentedBlock):
            handlers[i] = h.with_changes(body=body.with_changes(body=list(steps) + list(body.body)))
        else:  # `except EOFException: loader.reset()` on one line
            handlers[i] = h.with_changes(body=cst.IndentedBlock(body=list(steps) + [
                cst.SimpleStatementLine(body=list(body.body))]))
    return updated.with_changes(handlers=handlers)
