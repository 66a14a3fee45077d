"""PU208 program-clone-for-test: ``program.clone(for_test=True)`` under PIR.

What it does
    For ``test_program = <program>.clone(for_test=True)`` whose only uses are
    ``<executor>.run(test_program, ..., fetch_list=[a, b])`` calls, all with the same
    fetch list of variables bound before the clone (``a.name`` counts as ``a``; so does a
    name the scope binds once to such a list, ``fetch_vars = [a, b]``, used only as runs'
    ``fetch_list=fetch_vars`` / ``fetch_list=[v.name for v in fetch_vars]`` or handed to a
    helper that uses it only so), it
    rewrites the clone to ``paddle.static.normalize_program(<program>, [], [a, b])`` and
    drops ``fetch_list`` from those runs: the evaluation program returns ``a`` and ``b``
    in that order; a feed that is not a dict display is passed as ``dict(<feed>)``, or,
    for a name a ``for`` loop binds (an iterable DataLoader's batch, a list holding one
    feed dict), as ``dict(data) if isinstance(data, dict) else [dict(d) for d in data]``. Runs with other fetch lists get one more evaluation program each,
    made right after the first (``test_program_2 = paddle.static.normalize_program(...)``)
    when the cloned program's expression can be written twice (a name, an attribute or
    ``default_main_program()``). A run may also sit in a function defined in the same scope, or at module
    level, that gets the clone as a parameter (1.x's
    ``train_test(train_test_program=test_program, ...)``) when every call of that function
    is in the clone's scope and passes the clone for that parameter, and the fetched names
    are that scope's: written in the run, or passed by every call as the same list for a
    parameter that the function uses only as its runs' ``fetch_list`` (the book's
    ``train_test(executor, program, reader, feeder, fetch_list)``). Runs and calls may
    also sit in functions nested in the clone's function that read the clone as a closure
    variable (the book's ``train_loop()`` calling ``train_test(test_program, reader)``;
    not when one declares it ``nonlocal``/``global`` or fetches a variable of its own),
    and the helper may look the program's variables up by name
    (``[program.global_block().var(n) for n in feed_order]``, its feed list), which becomes
    ``_fluid_block_var(program.global_block(), n)`` (program_methods.py): the evaluation
    program keeps the data its fetched values read, so looking up a data variable they do
    not read raises ValueError there, where 1.8's clone kept every variable. The clone
    may rebind the cloned program's own name (PaddleCV's ``test_prog = test_prog.clone(for_test=True)``
    after building the evaluation program with ``is_train=False``) when that is the name's
    last binding in its scope and its runs fetch one list: the uses before the clone are
    the program it clones. A run may also go through a name bound once to
    ``fluid.CompiledProgram(test_program)[.with_data_parallel(share_vars_from=...)]``,
    which the compiled-program rewrite (PU209) turns into ``test_program`` (not when 1.8
    ran it on several devices and that rewrite stays unsafe), or a name bound once to a
    ``fluid.ParallelExecutor(use_cuda, main_program=test_program, share_vars_from=...)``
    (PU101 parallel-executor) whose only uses are its runs with one fetch list, which pass
    ``fetch_list=None`` then. Any other clone with
    ``for_test`` is reported for a manual rewrite and left as it is.

    A plain ``g_program = <program>.clone()`` (or ``clone(for_test=False)``: DCGAN's
    generator cloned from the combined program before the discriminator is added) whose
    only uses are ``<executor>.run(g_program, ..., fetch_list=[a, b.name])`` calls fetching
    variables bound before the clone in its scope, and ``g_program.global_block()`` reads
    (its parameters), becomes ``g_program_values = paddle.pir.IrMapping()`` /
    ``g_program = <program>.clone(g_program_values)``, and the runs fetch
    ``g_program_values.look_up(a)``: the clone's own values for those variables. Any other
    plain clone of a program is reported for a manual rewrite.

Why is this bad?
    Since Paddle 3.0 static graphs use the new IR (PIR) by default. A PIR ``Program`` has
    no ``clone(for_test=...)``: the call raises ``TypeError: clone(): incompatible function
    arguments``, and a plain ``clone()`` gives a program whose values are new objects, so
    fetching the original program's variables from it silently returns nothing. 1.x code
    used the clone to evaluate without dropout/batch-norm updates and without the backward
    and optimizer ops. ``normalize_program`` clones the program, keeps the operators the
    fetched values need (with no feed variables named, the data a value needs stays and is
    fed by name as before; the executor drops the feeds nothing uses, and it drops them
    from the caller's dict, which the copy keeps whole for the training runs that reuse
    it, e.g. the label), switches them to inference
    (``is_test``: dropout scales by ``1 - p``, batch norm uses its running statistics, as
    1.8's clone did) and appends the fetches.

Example
    ``test_program = main.clone(for_test=True)`` /
    ``loss_v, acc_v = exe.run(test_program, feed=feed, fetch_list=[avg_loss, acc])``
    becomes ``test_program = paddle.static.normalize_program(main, [], [avg_loss, acc])`` /
    ``loss_v, acc_v = exe.run(test_program, feed=feed)``.

    By hand, where the rewrite does not apply (checked on 3.3.1 against the 1.8.5 goldens
    of four bundled programs, fixtures/recipes/): one ``normalize_program`` per fetch list
    when the fetched values are known where the clone was; otherwise move the layers built before the clone into a
    function and call it a second time, before ``minimize``, under
    ``paddle.static.program_guard(test_program, paddle.static.Program())`` with its own
    ``paddle.static.data`` of the same names, in inference mode, every parameter and
    batch-norm statistic named (``ParamAttr(name=...)``: generated names are not shared
    between PIR programs); run it in the same scope, never run its startup program, and
    fetch its own values. Or move the model to dynamic mode and use ``model.eval()``. The
    compat runtime runs the original unchanged.

Fix safety
    The plain clone's rewrite is safe: the clone runs the same operators in training mode,
    as 1.8's did (program static_gan_dcgan_clone: batch-norm statistics updated by the
    generator's runs, checked against 1.8.5). The evaluation clone's rewrite is
    safe when it applies (tests/test_programs_proof.py: fit_a_line_static,
    mnist_static_classifier (two fetch lists), static_eval_clone (dropout, batch norm,
    a helper function), static_book_train_test (a module-level helper given the fetch
    list), static_nlp_eval_loop (a fetch list bound to a name handed to a helper that
    iterates a DataLoader, return_numpy=False) and static_cv_eval_forms (fetch lists by
    name and comprehension, two clones of one program, dropout and batch norm) upgraded
    and run against their 1.8.5 goldens). The evaluation program runs only the operators its fetches need, where 1.8's
    clone ran every forward operator: only side effects of unused operators
    (``layers.Print``, ``py_func``) differ. Manual when the clone is used otherwise (passed
    to ``CompiledProgram`` other than as above, saved, inspected), when the runs fetch values bound after the
    clone, when a helper's runs fetch more than one list, when a run passes its fetch list positionally or has
    none, when the clone is inside a loop, or when ``test_program`` is read in another
    function other than such a helper. Manual too when the clone follows a ``minimize`` in a
    module with a learning-rate schedule (the evaluation program keeps the LRScheduler but
    not its variable: 3.3.1 raises at its first run), a ``layers.increment`` in a module
    with ``create_global_var`` (1.8's evaluation runs advanced the counter), or a
    ``layers.*_decay`` before it in its function (1.8's evaluation runs advanced the
    schedule). The decision is made for the whole module before the rewrite (an ``ast`` pass): the runs of a clone lose ``fetch_list`` only when its
    clone is rewritten (``# noqa: PU208`` on the clone keeps both).
"""
from __future__ import annotations

import ast
import re
from typing import Dict, List, Optional, Set, Tuple

import libcst as cst

from upgrader import untouched
from upgrader.args import code_of

CODE = "PU208"
MANUAL = ("`Program.clone(for_test=True)` does not exist on PIR (Paddle 3 static graphs): "
          "build the evaluation program separately (the same layers in inference mode, "
          "parameters named to share them) or use paddle.static.normalize_program(program, "
          "feed_vars, fetch_vars)")


def check_call(up, original: cst.Call, updated: cst.Call):
    f = original.func
    if not isinstance(f, cst.Attribute) or f.attr.value not in ("clone", "run"):
        return updated
    if f.attr.value == "run":
        mapping = _plan(up).plain_runs.get(_line(up, original)) if _plan(up).plain_runs else None
        if mapping is not None:
            return updated.with_changes(args=_looked_up(_copied_feed(list(updated.args), _line(up, original) in _plan(up).loop_feeds), mapping))
        run = _plan(up).runs.get(_line(up, original)) if _plan(up).runs else None
        if run is None:
            return updated
        if _line(up, original) in _plan(up).executor_runs:
            # <ParallelExecutor>.run(fetch_list, feed=None, ...): fetch_list=None, the
            # evaluation program returns its fetches
            args = [a.with_changes(value=cst.Name("None")) if (a.keyword is None and i == 0) or (
                a.keyword is not None and a.keyword.value == "fetch_list") else a
                for i, a in enumerate(updated.args)]
            return updated.with_changes(args=_copied_feed(args, _line(up, original) in _plan(up).loop_feeds))
        args = _copied_feed(_without_fetch_list(updated.args), _line(up, original) in _plan(up).loop_feeds)
        if run[1] is not None:  # another fetch list: the evaluation program made for it
            args = [a.with_changes(value=cst.Name(run[1])) if i == 0 and a.keyword is None or
                    a.keyword is not None and a.keyword.value == "program" else a
                    for i, a in enumerate(args)]
        return updated.with_changes(args=args)
    plain = not original.args or (len(original.args) == 1 and original.args[0].keyword is not None
                                  and original.args[0].keyword.value == "for_test"
                                  and code_of(original.args[0].value).strip() == "False")
    mapping = _plan(up).plain.get(_line(up, original)) if plain and _plan(up).plain else None
    if mapping is not None and _is_program(up, f.value):
        from upgrader import hoist
        stmt = hoist.statement_for(up, original)
        if not isinstance(stmt, str):
            hoist.add(up, stmt, [(mapping, cst.parse_expression("paddle.pir.IrMapping()"))])
            up.report(original, CODE, f"`clone()` → `clone({mapping})` with "
                      f"`{mapping} = paddle.pir.IrMapping()`: a PIR clone holds new values, "
                      f"its runs fetch `{mapping}.look_up(<variable>)`",
                      "paddle.fluid.Program.clone", "paddle.static.Program", "safe", applied=True)
            return updated.with_changes(args=[cst.Arg(value=cst.Name(mapping))])
    if plain and original.args:
        if _is_program(up, f.value):
            up.report(original, CODE, PLAIN, "paddle.fluid.Program.clone", "paddle.static.Program",
                      "manual")
        return updated
    if not any(a.keyword is not None and a.keyword.value == "for_test" for a in original.args):
        if not original.args and _is_program(up, f.value):
            up.report(original, CODE, PLAIN, "paddle.fluid.Program.clone", "paddle.static.Program",
                      "manual")
        return updated
    programs = _plan(up).clones.get(_line(up, original))
    if programs is None:
        why = _plan(up).manual.get(_line(up, original))
        up.report(original, CODE, why or f"{MANUAL}; see `paddle-upgrade explain PU208`",
                  "paddle.fluid.Program.clone", "paddle.static.Program", "manual")
        return updated
    more = f" (and {', '.join(n for n, _ in programs[1:])} for the other fetch lists)" if len(programs) > 1 else ""
    up.report(original, CODE, "`clone(for_test=True)` → `paddle.static.normalize_program(program, [], "
              f"[{', '.join(programs[0][1])}])`{more}: the runs of an evaluation program return its fetches",
              "paddle.fluid.Program.clone", "paddle.static.normalize_program", "safe", applied=True)
    program = updated.func.value if isinstance(updated.func, cst.Attribute) else f.value
    return _normalize(code_of(program), programs[0][1])


PLAIN = ("`clone()` of a PIR program (Paddle 3 static graphs) copies its values too: running "
         "the clone with a fetch_list of the original program's variables returns nothing (an "
         "empty list, checked on 3.3.1), where 1.8 fetched them; run the original program, or "
         "fetch values looked up in the clone. Ops built in the clone may not read values of the "
         "original program either: 1.8 resolved such an input by name in the clone (PaddleCV "
         "gan's trainers: `self.program = fluid.default_main_program().clone()`, then the "
         "networks built under `program_guard(self.program)` on data variables made before the "
         "clone), while on 3.3.1 running or cloning that program fails (\"Not found key in "
         "IRMapping\"): create those inputs (paddle.static.data) under the program_guard of the "
         "program that reads them")
_PROGRAM_MAKERS = ("paddle.fluid.default_main_program", "paddle.fluid.framework.default_main_program",
                   "paddle.static.default_main_program", "paddle.fluid.Program",
                   "paddle.fluid.framework.Program", "paddle.static.Program")


def _is_program(up, node) -> bool:
    """A static program for sure: ``fluid.default_main_program()`` / ``fluid.Program()``, or a
    name the module binds to one or passes to ``program_guard`` as the main program (tensors
    have a ``clone()`` too)."""
    if isinstance(node, cst.Call):
        return up.resolve_dotted(node.func) in _PROGRAM_MAKERS
    if not isinstance(node, cst.Name):
        return False
    name = re.escape(node.value)
    return re.search(rf"(?m)program_guard\(\s*(main_program\s*=\s*)?{name}\b|"
                     rf"^\s*{name}\s*=\s*[\w.]*(default_main_program|Program)\(\)",
                     up.source) is not None


def _normalize(program: str, fetches: List[str]) -> cst.BaseExpression:
    return cst.parse_expression(f"paddle.static.normalize_program({program}, [], [{', '.join(fetches)}])")


def leave_statement(up, original, updated):
    """After a rewritten clone, one more evaluation program per other fetch list; before a
    plain clone, its IrMapping (hoist.py; a no-op when another fixer's hook placed it)."""
    from upgrader import hoist
    updated = hoist.leave_statement(up, original, updated)
    plan = getattr(up, "_clone_plan", None)
    if plan is None or not plan.more or not isinstance(original, cst.SimpleStatementLine) or \
            not isinstance(updated, cst.SimpleStatementLine):
        return updated
    small = original.body[0]
    value = getattr(small, "value", None)
    if not (isinstance(small, cst.Assign) and isinstance(value, cst.Call) and
            isinstance(value.func, cst.Attribute) and value.func.attr.value == "clone"):
        return updated
    programs = plan.clones.get(_line(up, value))
    if programs is None or len(programs) < 2:
        return updated
    made = getattr(updated.body[0], "value", None)
    if not (isinstance(made, cst.Call) and made.args):
        return updated
    source = code_of(made.args[0].value)
    extra = [cst.SimpleStatementLine(body=[cst.Assign(targets=[cst.AssignTarget(cst.Name(n))],
                                                      value=_normalize(source, names))])
             for n, names in programs[1:]]
    return cst.FlattenSentinel([updated] + extra)


def _looked_up(args, mapping: str):
    """``fetch_list=[a, b.name]`` → ``fetch_list=[<mapping>.look_up(a), <mapping>.look_up(b)]``."""
    out = []
    for a in args:
        if a.keyword is not None and a.keyword.value == "fetch_list" and \
                isinstance(a.value, (cst.List, cst.Tuple)):
            elements = []
            for e in a.value.elements:
                v = e.value
                if isinstance(v, cst.Attribute) and v.attr.value == "name":
                    v = v.value
                elements.append(e.with_changes(value=cst.parse_expression(
                    f"{mapping}.look_up({code_of(v).strip()})")))
            a = a.with_changes(value=a.value.with_changes(elements=elements))
        out.append(a)
    return out


def _line(up, node) -> int:
    return up.pos(node)[0]


def feed_copy(value: cst.BaseExpression, loop_feed: bool) -> cst.BaseExpression:
    """A copy of a run's feed: ``dict(<feed>)``, or, for a name a ``for`` loop binds (an
    iterable DataLoader's batch may be a list holding one feed dict, which ``dict()``
    turns into ``{first key: second key}``), ``dict(n) if isinstance(n, dict) else
    [dict(d) for d in n]``. Shared with PU211 (fetch_by_name.py)."""
    if loop_feed and isinstance(value, cst.Name):
        n = value.value
        return cst.parse_expression(f"dict({n}) if isinstance({n}, dict) else [dict(d) for d in {n}]")
    return cst.Call(func=cst.Name("dict"), args=[cst.Arg(value=value)])


def _copied_feed(args, loop_feed: bool = False):
    """``feed=dict(<feed>)``: the PIR executor removes from the dict it is given every key
    the program does not read (3.3.1 ``Executor._pir_feed_data``), and the evaluation
    program has no use for the label, so a feed dict the training runs reuse would lose
    it. A dict display is left as it is. A name bound by a ``for`` loop may be a batch of
    an iterable ``DataLoader`` (``for data in loader(): exe.run(prog, feed=data)``): a list
    holding one feed dict, which ``dict()`` would turn into ``{first key: second key}``;
    such a feed (``loop_feed``: the run's feed is a name a ``for`` loop of its function
    binds) is copied as ``dict(data) if isinstance(data, dict) else [dict(d) for d in
    data]``."""
    out = []
    for i, a in enumerate(args):
        if (a.keyword is None and i == 1) or (a.keyword is not None and a.keyword.value == "feed"):
            v = a.value
            if isinstance(v, cst.Name) and loop_feed:
                a = a.with_changes(value=feed_copy(v, loop_feed))
            elif not isinstance(v, (cst.Dict, cst.DictComp)) and not (
                    isinstance(v, cst.Name) and v.value == "None"):
                a = a.with_changes(value=feed_copy(v, False))
        out.append(a)
    return out


def _without_fetch_list(args):
    kept = [a for a in args if not (a.keyword is not None and a.keyword.value == "fetch_list")]
    if kept and len(kept) < len(args):
        kept[-1] = kept[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)
    return kept


class _Plan:
    def __init__(self):
        # line of the clone call -> [(program name, fetch names)]: the clone's own name
        # first, then one more program per other fetch list of its direct runs
        self.clones: Dict[int, List[Tuple[str, List[str]]]] = {}
        # line of a run to lose its fetch_list -> (its clone, the program it runs now or None)
        self.runs: Dict[int, Tuple[int, Optional[str]]] = {}
        # lines of those runs that are <ParallelExecutor>.run(fetch_list, ...) calls
        self.executor_runs: Set[int] = set()
        # line of a clone left manual for a reason of its own -> that reason
        self.manual: Dict[int, str] = {}
        # line of a plain clone() -> the IrMapping name its runs look their fetches up in
        self.plain: Dict[int, str] = {}
        # line of a run of a plain clone -> that IrMapping name
        self.plain_runs: Dict[int, str] = {}
        # line of a `<param>.global_block().var(name)` in a function handed the evaluation
        # program -> its clone (program_methods.py rewrites it as the block of a program)
        self.block_lookups: Dict[int, int] = {}
        # names bound to the persistable statistics of auc / ctr_metric_bundle
        self.metric_states: Set[str] = set()
        # lines of runs whose feed is a name a for loop of their function binds (it may be
        # an iterable DataLoader's batch: a list holding one feed dict)
        self.loop_feeds: Set[int] = set()

    @property
    def more(self) -> bool:
        """Some clone needs more than one evaluation program."""
        return any(len(p) > 1 for p in self.clones.values())


def _plan(up) -> _Plan:
    plan = getattr(up, "_clone_plan", None)
    if plan is None:
        plan = up._clone_plan = _Plan()
        if ".clone(" in up.source:
            try:
                tree = untouched.parse(up.source)
            except SyntaxError:
                return plan
            _PLAN_MULTI_DEVICE[0] = None
            if "CompiledProgram" in up.source and not up.opts.unsafe_fixes:
                from upgrader.fixers.small_forms import _multi_device_sites
                _PLAN_MULTI_DEVICE[0] = set(_multi_device_sites(up.source)) or None
            _survey(tree, plan, _LR_SCHEDULE.search(up.source) is not None,
                    "create_global_var" in up.source)
            _PLAN_MULTI_DEVICE[0] = None
            # a clone the rule may not rewrite keeps its runs as they are
            for line in list(plan.clones):
                if not up.opts.enabled(CODE) or up.suppressed(line, CODE):
                    del plan.clones[line]
            plan.runs = {r: c for r, c in plan.runs.items() if c[0] in plan.clones}
            plan.block_lookups = {v: c for v, c in plan.block_lookups.items()
                                  if c in plan.clones}
            for line in list(plan.plain):
                if not up.opts.enabled(CODE) or up.suppressed(line, CODE):
                    mapping = plan.plain.pop(line)
                    plan.plain_runs = {r: m for r, m in plan.plain_runs.items() if m != mapping}
    return plan


class _Scope:
    def __init__(self, node=None, parent=None):
        self.node = node
        self.parent = parent
        self.defs: Dict[str, "_Scope"] = {}               # nested functions by name
        self.stores: Dict[str, List[int]] = {}
        self.loads: Dict[str, List[ast.Name]] = {}
        self.clones: List[Tuple[ast.Assign, bool]] = []   # (statement, inside a loop)
        self.plain: List[Tuple[ast.Assign, bool]] = []    # plain clone() statements
        self.declared: Set[str] = set()                   # global / nonlocal
        self.assigns: Dict[str, ast.Assign] = {}          # name = <value> (the last one)


# a learning rate that is a schedule: 1.8's decay functions, today's LRScheduler classes
_LR_SCHEDULE = re.compile(r"\b(exponential|natural_exp|inverse_time|polynomial|piecewise|cosine|noam)"
                          r"_decay\b|\blinear_lr_warmup\b|\boptimizer\.lr\.|\bLRScheduler\b")
AFTER_MINIMIZE = ("`clone(for_test=True)` after `minimize` of an optimizer with a learning-rate "
                  "schedule: paddle.static.normalize_program keeps the training program's "
                  "LRScheduler on the evaluation program but prunes the learning-rate variable "
                  "it writes, so the first run of the evaluation program raises on 3.3.1 "
                  "(ValueError: The type of value is nullptr); 1.8's clone dropped the backward "
                  "and optimizer ops and ran. Clone before minimize (the same evaluation "
                  "program), or `del test_program.lr_scheduler` after normalize_program")


COUNTER = ("`clone(for_test=True)` of a program that increments a global variable "
           "(layers.increment of a create_global_var counter): 1.8's evaluation program kept "
           "every forward operator, so each evaluation run advanced the counter too (checked on "
           "1.8.5), while paddle.static.normalize_program keeps only what the fetched values "
           "need. Build the evaluation program with the increment if the counter must count "
           "evaluation runs (or increment it by hand after each run), then normalize_program")


_DECAYS = {"exponential_decay", "natural_exp_decay", "inverse_time_decay", "polynomial_decay",
           "piecewise_decay", "cosine_decay", "noam_decay", "linear_lr_warmup"}
DECAY_BEFORE = ("`clone(for_test=True)` made after a layers.*_decay and before minimize: 1.8's "
                "clone pruned nothing then, so the evaluation program kept the decay's step "
                "counter and each evaluation run advanced the learning-rate schedule too "
                "(checked on 1.8.5: counter 2, 5, 8 with two evaluation runs per training run), "
                "while paddle.static.normalize_program's program does not touch the scheduler: "
                "call lr.step() after each evaluation run as well to keep 1.8's schedule (or "
                "build the decay after the clone, as most 1.8 programs did), then "
                "normalize_program")


METRIC_STATE = ("`clone(for_test=True)` whose runs fetch the statistics of `layers.auc` (its "
                "third result) or `contrib.layers.ctr_metric_bundle`: 1.8's evaluation program "
                "kept every forward operator, so each of its runs added to them, while "
                "paddle.static.normalize_program keeps only what the fetched values need, and a "
                "persistable statistic needs nothing (its update is pruned). Fetch the AUC values "
                "(which depend on the update) or read the statistics from the scope after the "
                "run, then normalize_program")


def _metric_state_names(tree: ast.Module) -> Set[str]:
    """Names an assignment binds to the persistable statistics ``layers.auc`` (the third
    element of its result) or ``ctr_metric_bundle`` (all of it) return, also once they
    call the functions fix adds for them (a second fix)."""
    names: Set[str] = set()

    def bind(target):
        for n in ast.walk(target):
            if isinstance(n, ast.Name):
                names.add(n.id)
            elif isinstance(n, ast.Attribute):
                names.add(n.attr)
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Assign) and isinstance(node.value, ast.Call)):
            continue
        f = node.value.func
        callee = f.attr if isinstance(f, ast.Attribute) else getattr(f, "id", "")
        for target in node.targets:
            if callee in ("ctr_metric_bundle", "_fluid_ctr_metric_bundle"):
                bind(target)
            elif callee in ("auc", "_fluid_auc"):
                if isinstance(target, (ast.Tuple, ast.List)) and len(target.elts) == 3:
                    bind(target.elts[2])
                else:
                    bind(target)
    return names


def _survey(tree: ast.Module, plan: _Plan, lr_schedule: bool = False, counters: bool = False) -> None:
    scopes: List[_Scope] = []
    parents: Dict[int, ast.AST] = {}
    calls_per_line: Dict[Tuple[int, str], int] = {}

    def walk(node, scope: _Scope, loop: bool):
        for child in ast.iter_child_nodes(node):
            parents[id(child)] = node
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
                for d in getattr(child, "decorator_list", []) + _defaults(child):
                    parents[id(d)] = child
                    walk_expr(d, scope, loop)
                if not isinstance(child, ast.Lambda):
                    scope.stores.setdefault(child.name, []).append(child.lineno)
                inner = _Scope(child, scope)
                if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    scope.defs[child.name] = inner
                scopes.append(inner)
                walk(child, inner, False) if not isinstance(child, ast.Lambda) else walk_expr(child.body, inner, False)
                continue
            if isinstance(child, (ast.Global, ast.Nonlocal)):
                scope.declared.update(child.names)
            if isinstance(child, ast.Name):
                if isinstance(child.ctx, ast.Load):
                    scope.loads.setdefault(child.id, []).append(child)
                else:
                    scope.stores.setdefault(child.id, []).append(child.lineno)
            elif isinstance(child, (ast.Import, ast.ImportFrom)):
                for a in child.names:
                    scope.stores.setdefault((a.asname or a.name).split(".")[0], []).append(child.lineno)
            elif isinstance(child, ast.Call) and isinstance(child.func, ast.Attribute):
                key = (child.lineno, child.func.attr)
                calls_per_line[key] = calls_per_line.get(key, 0) + 1
            if isinstance(child, ast.Assign) and len(child.targets) == 1 and \
                    isinstance(child.targets[0], ast.Name):
                scope.assigns[child.targets[0].id] = child
            if isinstance(child, ast.Assign) and _is_clone(child.value):
                scope.clones.append((child, loop))
            elif isinstance(child, ast.Assign) and _is_plain_clone(child.value):
                scope.plain.append((child, loop))
            walk(child, scope, loop or isinstance(child, (ast.For, ast.While, ast.AsyncFor,
                                                          ast.comprehension)))

    def walk_expr(node, scope, loop):
        parents.setdefault(id(node), None)
        wrapper = ast.Expression(body=node)
        walk(wrapper, scope, loop)

    module = _Scope()
    scopes.append(module)
    walk(tree, module, False)
    plan.metric_states = _metric_state_names(tree)
    plan.loop_feeds = _loop_feed_runs(tree)
    _FETCH_LISTS.clear()
    for scope in scopes:
        _FETCH_LISTS[id(scope)] = _fetch_list_names(scope, scopes, parents)
    all_names = {n for sc in scopes for n in list(sc.stores) + list(sc.loads)}
    for scope in scopes:
        for stmt, in_loop in scope.clones:
            # what ran before the clone in its own function (or module code): a minimize of
            # the cloned program, an increment of a counter
            before = {attr for line, attr in _calls_in(scope.node or tree) if line < stmt.value.lineno}
            if lr_schedule and "minimize" in before:
                plan.manual[stmt.value.lineno] = AFTER_MINIMIZE
                continue
            if counters and "increment" in before:
                plan.manual[stmt.value.lineno] = COUNTER
                continue
            if before & _DECAYS:
                plan.manual[stmt.value.lineno] = DECAY_BEFORE
                continue
            _decide(scope, scopes, stmt, in_loop, parents, calls_per_line, plan, all_names)
        for stmt, in_loop in scope.plain:
            _decide_plain(scope, scopes, stmt, in_loop, parents, calls_per_line, plan, all_names)


def _loop_feed_runs(tree: ast.Module) -> Set[int]:
    """Lines of ``<x>.run(...)`` calls whose feed is a name that a ``for`` loop of the same
    function (or module code) binds: ``for data in loader(): exe.run(prog, feed=data)``."""
    out: Set[int] = set()
    for body in [tree] + [n for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]:
        own, todo = [], list(ast.iter_child_nodes(body))
        while todo:
            n = todo.pop()
            if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
                continue
            own.append(n)
            todo.extend(ast.iter_child_nodes(n))
        targets = {n.target.id for n in own
                   if isinstance(n, (ast.For, ast.AsyncFor)) and isinstance(n.target, ast.Name)}
        for n in own:
            if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr == "run":
                feed = [k.value for k in n.keywords if k.arg == "feed"] or n.args[1:2]
                if feed and isinstance(feed[0], ast.Name) and feed[0].id in targets:
                    out.add(n.lineno)
    return out


def _calls_in(node):
    """(line, method name) of the ``<x>.<method>(...)`` calls in ``node``'s own code (not in
    the functions or classes it defines)."""
    todo = list(ast.iter_child_nodes(node))
    while todo:
        n = todo.pop()
        if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
            continue
        if isinstance(n, ast.Call) and isinstance(n.func, (ast.Attribute, ast.Name)):
            yield n.lineno, n.func.attr if isinstance(n.func, ast.Attribute) else n.func.id
            f = n.func.value if isinstance(n.func, ast.Attribute) else None
            if isinstance(f, ast.Attribute) and f.attr == "lr" and isinstance(f.value, ast.Attribute) \
                    and f.value.attr == "optimizer":
                yield n.lineno, "linear_lr_warmup"  # paddle.optimizer.lr.<Scheduler>(...): what fix made of a decay
        todo.extend(ast.iter_child_nodes(n))


def _defaults(fn) -> list:
    args = getattr(fn, "args", None)
    if args is None:
        return list(getattr(fn, "bases", [])) + [k.value for k in getattr(fn, "keywords", [])]
    return list(args.defaults) + [d for d in args.kw_defaults if d is not None]


def _is_clone(value) -> bool:
    return (isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute)
            and value.func.attr == "clone" and not value.args and len(value.keywords) == 1
            and value.keywords[0].arg == "for_test" and isinstance(value.keywords[0].value, ast.Constant)
            and value.keywords[0].value.value is True)


def _is_plain_clone(value) -> bool:
    """``<program>.clone()`` or ``<program>.clone(for_test=False)``."""
    if not (isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute)
            and value.func.attr == "clone" and not value.args):
        return False
    return not value.keywords or (
        len(value.keywords) == 1 and value.keywords[0].arg == "for_test"
        and isinstance(value.keywords[0].value, ast.Constant) and value.keywords[0].value.value is False)


def _decide_plain(scope, scopes, stmt, in_loop, parents, calls_per_line, plan: _Plan,
                  all_names=frozenset()) -> None:
    """``g_program = dg_program.clone()`` (DCGAN: the generator alone, cloned before the
    discriminator is added) whose only uses are direct runs fetching variables bound before
    the clone in its scope (and reads of ``<name>.global_block()``, DCGAN's parameter
    names): the clone is made with an IrMapping (``<name>_values``) and the runs fetch
    ``<name>_values.look_up(v)``."""
    if in_loop or len(stmt.targets) != 1 or not isinstance(stmt.targets[0], ast.Name):
        return
    name, line = stmt.targets[0].id, stmt.lineno
    if scope.stores.get(name) != [line] or name in scope.declared or \
            calls_per_line.get((stmt.value.lineno, "clone")) != 1:
        return
    if any(_sees(s, scope, name) for s in scopes if s is not scope):
        return
    runs = []
    for load in scope.loads.get(name, []):
        attr = parents.get(id(load))
        if isinstance(attr, ast.Attribute) and attr.attr == "global_block" and \
                isinstance(parents.get(id(attr)), ast.Call):
            continue  # <clone>.global_block().all_parameters(): the clone's own parameters
        found = _run_of(load, parents, calls_per_line)
        if found is None:
            return
        for names in found[0]:
            for n in names:
                stores = scope.stores.get(n)
                if not stores or max(stores) >= line or n in scope.declared:
                    return
        runs.extend(r for r, _ in found[1])
    mapping = name + "_values"
    if not runs or mapping in all_names:
        return
    plan.plain[stmt.value.lineno] = mapping
    plan.plain_runs.update((r, mapping) for r in runs)


def _decide(scope, scopes, stmt, in_loop, parents, calls_per_line, plan: _Plan, all_names=frozenset()) -> None:
    if in_loop or len(stmt.targets) != 1 or not isinstance(stmt.targets[0], ast.Name):
        return
    name, line = stmt.targets[0].id, stmt.lineno
    rebound = _rebinds(scope, stmt, name)
    if (scope.stores.get(name) != [line] and not rebound) or name in scope.declared or \
            calls_per_line.get((stmt.value.lineno, "clone")) != 1:
        return
    readers = [s for s in scopes if s is not scope and _sees(s, scope, name)]
    # functions nested in the clone's own function may read it (the book's train_loop()
    # calling train_test(test_program, ...)): not when the clone rebinds the cloned
    # program's name, nor when one of them declares the name global or nonlocal
    if readers and (rebound or scope.parent is None or any(
            name in s.declared or not _nested_in(s, scope, name) for s in readers)):
        return
    lists: List[Tuple[str, ...]] = []          # distinct fetch lists, first seen first
    runs: List[Tuple[int, Tuple[str, ...], bool]] = []   # (line, fetches, direct run)
    executor_runs: Set[int] = set()            # runs of a ParallelExecutor given the clone
    lookups: List[int] = []                    # block-var lookups in functions given it
    loads = [(load, scope) for load in scope.loads.get(name, [])] + \
        [(load, s) for s in readers for load in s.loads.get(name, [])]
    for load, where in sorted(loads, key=lambda ls: (ls[0].lineno, ls[0].col_offset)):
        if rebound and (load.lineno < line or load is stmt.value.func.value):
            continue   # the program before the clone: built, passed around, cloned
        found = _run_of(load, parents, calls_per_line, lists=_FETCH_LISTS.get(id(where)))
        direct = found is not None
        if found is None:
            found = _passed_to_helper(load, where, scopes, parents, calls_per_line)
            if found is not None:
                lookups.extend(found[2])
                found = found[:2]
        if found is None:
            found = _compiled_alias(load, where, scopes, parents, calls_per_line)
            direct = found is not None
        if found is None:
            found = _parallel_executor_runs(load, where, scopes, parents, calls_per_line)
            direct = found is not None
            if found is not None:
                executor_runs.update(r for r, _ in found[1])
        if found is None:
            return
        if where is not scope and any(
                n in _locals(where) or n in where.declared for names in found[0] for n in names):
            return   # a nested function fetching a variable of its own
        for names in sorted(found[0]):
            if names not in lists:
                lists.append(names)
        runs.extend((r, f, direct) for r, f in found[1])
    if not lists:
        return
    through_helpers = {f for _, f, direct in runs if not direct}
    if len(through_helpers) > 1:
        return   # a helper's runs all run the clone itself: one fetch list there
    if through_helpers:
        lists.remove(next(iter(through_helpers)))
        lists.insert(0, next(iter(through_helpers)))
    if len(lists) > 1 and executor_runs:
        return   # a ParallelExecutor runs its one program: one fetch list
    if len(lists) > 1 and (rebound or not _repeatable(stmt.value.func.value)):
        return   # (a rebound name means the evaluation program once it is rewritten)
    for names in lists:
        for n in names:
            stores = scope.stores.get(n)
            if not stores or max(stores) >= line or n in scope.declared:
                return
    if any(n in plan.metric_states for names in lists for n in names):
        plan.manual[stmt.value.lineno] = METRIC_STATE
        return
    programs = [(name, list(lists[0]))]
    for i, names in enumerate(lists[1:], 2):
        extra = "%s_%d" % (name, i)
        if extra in all_names:
            return
        programs.append((extra, list(names)))
    plan.clones[stmt.value.lineno] = programs
    by_list = {tuple(names): (None if i == 0 else n) for i, (n, names) in enumerate(programs)}
    plan.runs.update((r, (stmt.value.lineno, by_list[f])) for r, f, _ in runs)
    plan.executor_runs.update(executor_runs)
    plan.block_lookups.update((v, stmt.value.lineno) for v in lookups)


def _rebinds(scope, stmt, name: str) -> bool:
    """``test_prog = test_prog.clone(for_test=True)`` (PaddleCV's train.py: the evaluation
    program built by the same function as the training one, with ``is_train=False``, then
    cloned into its own name), the clone the name's last binding in its scope, every
    earlier binding before it: the loads before the clone's line are the program it
    clones, the loads after it the evaluation program."""
    stores = scope.stores.get(name) or []
    program = stmt.value.func.value
    return (len(stores) > 1 and stores.count(stmt.lineno) == 1 and max(stores) == stmt.lineno
            and isinstance(program, ast.Name) and program.id == name)


def _compiled_alias(load, scope, scopes, parents, calls_per_line):
    """``compiled_test = fluid.CompiledProgram(test_program)[.with_data_parallel(...)]``
    (1.8's ``share_vars_from=compiled_train``), which the compiled-program rewrite (PU209)
    turns into ``compiled_test = test_program``: the runs of that name, bound once in
    the clone's scope, are the clone's runs. Not when 1.8 ran it on several devices and
    the rewrite stays unsafe (small_forms' multi-device sites)."""
    call = parents.get(id(load))
    if not (isinstance(call, ast.Call) and call.args and call.args[0] is load and
            len(call.args) == 1 and all(k.arg == "build_strategy" for k in call.keywords)):
        return None
    f = call.func
    if (f.attr if isinstance(f, ast.Attribute) else getattr(f, "id", "")) != "CompiledProgram":
        return None
    top = call
    attr = parents.get(id(call))
    if isinstance(attr, ast.Attribute) and attr.attr == "with_data_parallel":
        chained = parents.get(id(attr))
        if not (isinstance(chained, ast.Call) and chained.func is attr):
            return None
        top = chained
    stmt = parents.get(id(top))
    if not (isinstance(stmt, ast.Assign) and stmt.value is top and len(stmt.targets) == 1 and
            isinstance(stmt.targets[0], ast.Name)):
        return None
    if _PLAN_MULTI_DEVICE[0] is not None and (call.lineno, call.col_offset + 1) in _PLAN_MULTI_DEVICE[0]:
        return None
    alias = stmt.targets[0].id
    if scope.stores.get(alias) != [stmt.lineno] or alias in scope.declared or \
            any(_sees(s, scope, alias) for s in scopes if s is not scope):
        return None
    fetch_lists, runs = set(), []
    for use in scope.loads.get(alias, []):
        found = _run_of(use, parents, calls_per_line, lists=_FETCH_LISTS.get(id(scope)))
        if found is None:
            return None
        fetch_lists.update(found[0])
        runs.extend(found[1])
    return (fetch_lists, runs) if runs else None


def _parallel_executor_runs(load, scope, scopes, parents, calls_per_line):
    """``test_exe = fluid.ParallelExecutor(use_cuda, main_program=test_program,
    share_vars_from=train_exe)`` (1.x's train/test executors), which PU101
    parallel-executor turns into ``_FluidParallelExecutor``: the name, bound once in the
    clone's scope, is only used by ``test_exe.run(fetch_list=[...], ...)`` calls (or the
    fetch list first), each alone on its line: those are the clone's runs."""
    keyword = parents.get(id(load))
    call = parents.get(id(keyword)) if isinstance(keyword, ast.keyword) else keyword
    if not isinstance(call, ast.Call):
        return None
    f = call.func
    if (f.attr if isinstance(f, ast.Attribute) else getattr(f, "id", "")) != "ParallelExecutor":
        return None
    if isinstance(keyword, ast.keyword):
        if keyword.arg != "main_program":
            return None
    elif not (len(call.args) > 2 and call.args[2] is load):
        return None
    stmt = parents.get(id(call))
    if not (isinstance(stmt, ast.Assign) and stmt.value is call and len(stmt.targets) == 1 and
            isinstance(stmt.targets[0], ast.Name)):
        return None
    alias = stmt.targets[0].id
    if scope.stores.get(alias) != [stmt.lineno] or alias in scope.declared or \
            any(_sees(s, scope, alias) for s in scopes if s is not scope):
        return None
    fetch_lists, runs = set(), []
    for use in scope.loads.get(alias, []):
        attr = parents.get(id(use))
        run = parents.get(id(attr))
        if not (isinstance(attr, ast.Attribute) and attr.attr == "run" and
                isinstance(run, ast.Call) and run.func is attr and
                calls_per_line.get((run.lineno, "run")) == 1):
            return None
        if any(k.arg is None for k in run.keywords) or any(
                isinstance(a, ast.Starred) for a in run.args):
            return None
        given = [k.value for k in run.keywords if k.arg == "fetch_list"] or run.args[:1]
        names = _fetch_names(given[0], _FETCH_LISTS.get(id(scope))) if given else None
        if names is None:
            return None
        fetch_lists.add(tuple(names))
        runs.append((run.lineno, tuple(names)))
    return (fetch_lists, runs) if runs else None


# the (line, column + 1) of CompiledProgram calls that 1.8 ran on several devices, for the
# module being surveyed (None: no such call); set by _plan
_PLAN_MULTI_DEVICE = [None]


def _repeatable(program) -> bool:
    """The cloned program's expression can be written twice: a name, an attribute chain,
    or ``default_main_program()``."""
    if isinstance(program, ast.Name):
        return True
    if isinstance(program, ast.Attribute):
        return _repeatable(program.value)
    return isinstance(program, ast.Call) and not program.args and not program.keywords and \
        getattr(program.func, "attr", getattr(program.func, "id", None)) == "default_main_program"


def _locals(s: "_Scope") -> Set[str]:
    args = getattr(s.node, "args", None)
    params = {a.arg for a in args.posonlyargs + args.args + args.kwonlyargs} | \
        {a.arg for a in (args.vararg, args.kwarg) if a is not None} if args is not None else set()
    return set(s.stores) | params


def _sees(s: "_Scope", owner: "_Scope", name: str) -> bool:
    """Scope ``s`` may read or rebind ``owner``'s ``name`` (it is nested in ``owner``, or
    ``owner`` is the module, and does not bind the name itself)."""
    if name not in s.loads and name not in s.declared:
        return False
    if name in _locals(s) and name not in s.declared:
        return False
    if owner.parent is None:
        return True
    p = s.parent
    while p is not None and p is not owner:
        p = p.parent
    return p is owner


def _run_of(load, parents, calls_per_line, through: Optional[Tuple[str, Tuple[str, ...]]] = None,
            lists: Optional[Dict[str, Tuple[str, ...]]] = None):
    """({fetch names}, [line]) when ``load`` is the program of ``<executor>.run(load, ...,
    fetch_list=[...])`` (or ``run(program=load, ...)``), else None. In a helper,
    ``through = (parameter, names)`` reads ``fetch_list=<parameter>`` as those names (the
    list every call of the helper passes for it); ``lists``: the fetch lists bound to a
    name in the run's scope (``_fetch_list_names``)."""
    call = parents.get(id(load))
    keyword = None
    if isinstance(call, ast.keyword):
        keyword, call = call, parents.get(id(call))
    if not (isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute) and call.func.attr == "run"
            and calls_per_line.get((call.lineno, "run")) == 1):
        return None
    if keyword is not None:
        if keyword.arg != "program" or call.args:
            return None
    elif not (len(call.args) == 1 and call.args[0] is load):
        return None
    fetch = [k.value for k in call.keywords if k.arg == "fetch_list"]
    if any(k.arg is None for k in call.keywords):
        return None
    if fetch and through is not None and isinstance(fetch[0], ast.Name) and fetch[0].id == through[0]:
        return {through[1]}, [(call.lineno, through[1])]
    names = _fetch_names(fetch[0], lists) if fetch else None
    if names is None:
        return None
    return {tuple(names)}, [(call.lineno, tuple(names))]


def _passed_to_helper(load, scope, scopes, parents, calls_per_line):
    """The evaluation program handed to a function defined in the same scope (1.x's
    ``train_test(program=test_program, ...)``): every call of that function passes it
    for the same parameter, whose only uses are runs fetching names of this scope."""
    call = parents.get(id(load))
    keyword = call if isinstance(call, ast.keyword) else None
    if keyword is not None:
        call = parents.get(id(call))
    if not (isinstance(call, ast.Call) and isinstance(call.func, ast.Name)):
        return None
    owner, helper = _helper_def(call.func.id, scope, scopes)
    if helper is None or owner.stores.get(call.func.id) != [helper.node.lineno] or \
            call.func.id in owner.declared or \
            helper.node.args.vararg or helper.node.args.kwarg or helper.node.decorator_list:
        return None
    params = [a.arg for a in helper.node.args.posonlyargs + helper.node.args.args]
    if keyword is not None:
        param = keyword.arg
    elif load in call.args:
        index = call.args.index(load)
        param = params[index] if index < len(params) else None
    else:
        return None
    if param not in params or param in helper.stores or param in helper.declared:
        return None
    index = params.index(param)
    if any(_sees(s, owner, call.func.id) for s in scopes if s is not scope and s is not helper) or \
            (owner is not scope and call.func.id in owner.loads):
        return None   # called from elsewhere too (the module's own code included)
    fetch_param = _fetch_param(helper, params, param, scopes, parents)
    passed = set()   # the fetch lists the calls pass for fetch_param
    for use in scope.loads.get(call.func.id, []):  # every call passes this very name there
        c = parents.get(id(use))
        if not (isinstance(c, ast.Call) and c.func is use) or any(isinstance(a, ast.Starred) for a in c.args) \
                or any(k.arg is None for k in c.keywords):
            return None
        given = _given(c, param, index)
        if len(given) != 1 or not (isinstance(given[0], ast.Name) and given[0].id == load.id):
            return None
        if fetch_param is not None:
            given = _given(c, fetch_param, params.index(fetch_param))
            names = _fetch_names(given[0], _FETCH_LISTS.get(id(scope))) if len(given) == 1 else None
            if names is None:
                return None
            passed.add(tuple(names))
    if len(passed) > 1:
        return None   # one evaluation program serves the helper's runs
    through = (fetch_param, next(iter(passed))) if passed else None
    if any(s.parent is helper for s in scopes if param in s.loads):
        return None
    fetch_lists, runs, lookups = set(), [], []
    for use in helper.loads.get(param, []):
        lookup = _block_var_lookup(use, parents)
        if lookup is not None:
            lookups.append(lookup.lineno)
            continue   # the book's feed list: [program.global_block().var(n) for n in ...]
        found = _run_of(use, parents, calls_per_line, through)
        if found is None:
            return None
        for names in found[0]:
            if any(n in helper.stores or n in params for n in names):
                return None   # fetches must be values of the scope the clone is in
        fetch_lists.update(found[0])
        runs.extend(found[1])
    if len(set(lookups)) != len(lookups):
        return None   # two lookups on one line: program_methods tells them apart by line
    return (fetch_lists, runs, lookups) if runs else None


def _block_var_lookup(load, parents) -> Optional[ast.Call]:
    """``load.global_block().var(<one argument>)``: a variable of the program looked up by
    name, which the block-var rewrite (program_methods.py) turns into
    ``_fluid_block_var(load.global_block(), name)``; on the evaluation program that finds
    the data variables its fetched values read (the feed lists of the book's
    ``train_test(program, reader)``)."""
    attr = parents.get(id(load))
    if not (isinstance(attr, ast.Attribute) and attr.attr == "global_block"):
        return None
    call = parents.get(id(attr))
    if not (isinstance(call, ast.Call) and call.func is attr and not call.args and not call.keywords):
        return None
    attr = parents.get(id(call))
    if not (isinstance(attr, ast.Attribute) and attr.attr == "var"):
        return None
    call = parents.get(id(attr))
    if isinstance(call, ast.Call) and call.func is attr and len(call.args) == 1 \
            and not call.keywords and not isinstance(call.args[0], ast.Starred):
        return call
    return None


def _given(call, param: str, index: int) -> list:
    """The argument ``call`` passes for the parameter ``param`` (at ``index``)."""
    return [k.value for k in call.keywords if k.arg == param] or \
        ([call.args[index]] if index < len(call.args) else [])


def _helper_def(name: str, scope, scopes):
    """(scope that defines it, its function scope) for a function called by name from
    ``scope``: defined in ``scope`` itself, in an enclosing function or at module level,
    when no scope in between binds the name; else (None, None)."""
    if name in scope.defs:
        return scope, scope.defs[name]
    if name in _locals(scope) or name in scope.declared:
        return None, None
    p = scope.parent
    while p is not None:
        if name in p.defs:
            return p, p.defs[name]
        if name in _locals(p) or name in p.declared:
            return None, None
        p = p.parent
    return None, None


def _nested_in(s: "_Scope", owner: "_Scope", name: str) -> bool:
    """Scope ``s`` is (indirectly) nested in ``owner``, and no function in between binds
    ``name`` (``s`` reads ``owner``'s)."""
    p = s.parent
    while p is not None and p is not owner:
        if name in _locals(p) or name in p.declared:
            return False
        p = p.parent
    return p is owner


def _fetch_param(helper, params, program_param: str, scopes, parents) -> Optional[str]:
    """The helper's parameter that its runs take as ``fetch_list=<it>`` and use for
    nothing else (1.x's ``train_test(executor, program, reader, feeder, fetch_list)``), or
    None."""
    found = None
    for p in params:
        if p == program_param or p in helper.stores or p in helper.declared:
            continue
        uses = helper.loads.get(p, [])
        if not uses or any(s.parent is helper for s in scopes if p in s.loads):
            continue
        if all(isinstance(parents.get(id(u)), ast.keyword) and parents[id(u)].arg == "fetch_list"
               for u in uses):
            if found is not None:
                return None
            found = p
    return found


def _fetch_names(node, lists: Optional[Dict[str, Tuple[str, ...]]] = None) -> Optional[List[str]]:
    """The variables a fetch list names: a display of names (``a.name`` counts as ``a``);
    with ``lists`` (``_fetch_list_names`` of the run's scope) also a name bound to such a
    display (``fetch_list=fetch_vars``) and ``[v.name for v in <such a name or display>]``."""
    if lists and isinstance(node, ast.Name) and node.id in lists:
        return list(lists[node.id])
    if lists is not None and isinstance(node, ast.ListComp):
        inner = _comprehended(node)
        if inner is not None:
            return _fetch_names(inner, lists)
        return None
    if not isinstance(node, (ast.List, ast.Tuple)) or not node.elts:
        return None
    out = []
    for e in node.elts:
        if isinstance(e, ast.Attribute) and e.attr == "name":
            e = e.value
        if not isinstance(e, ast.Name):
            return None
        out.append(e.id)
    return out


# id(scope) -> its fetch lists bound to a name (_fetch_list_names), for the module being
# surveyed; set by _survey
_FETCH_LISTS: Dict[int, Dict[str, Tuple[str, ...]]] = {}


def _comprehended(node):
    """``[v.name for v in it]`` / ``[v for v in it]`` (one ``for``, no ``if``): ``it``."""
    if not (isinstance(node, ast.ListComp) and len(node.generators) == 1):
        return None
    gen = node.generators[0]
    if gen.ifs or getattr(gen, "is_async", 0) or not isinstance(gen.target, ast.Name):
        return None
    elt = node.elt
    if isinstance(elt, ast.Attribute) and elt.attr == "name":
        elt = elt.value
    if not (isinstance(elt, ast.Name) and elt.id == gen.target.id):
        return None
    return gen.iter


def _fetch_list_names(scope: "_Scope", scopes, parents) -> Dict[str, Tuple[str, ...]]:
    """Names ``scope`` binds once to a display of variables (``fetch_vars = [loss, acc]``,
    ``fetch_list = [loss.name, acc.name]``) that are only fetch lists: each use is
    ``fetch_list=<it>`` or ``fetch_list=[v.name for v in <it>]`` in a ``.run(...)`` call,
    or an argument of a call of a function defined in the module whose parameter for it
    is used only as its runs' ``fetch_list`` (1.x's ``evaluate(exe, test_prog, loader,
    fetch_list)``); no other function sees the name. Such a name is the fetch list it was
    bound to (1.8 read the list when the program ran; nothing changes it in between)."""
    out: Dict[str, Tuple[str, ...]] = {}
    for name, stmt in scope.assigns.items():
        if scope.stores.get(name) != [stmt.lineno] or name in scope.declared or \
                any(_sees(s, scope, name) for s in scopes if s is not scope):
            continue
        names = _fetch_names(stmt.value)
        if names is None or not all(_fetch_only_use(load, scope, scopes, parents)
                                    for load in scope.loads.get(name, [])):
            continue
        out[name] = tuple(names)
    return out


def _fetch_only_use(load, scope, scopes, parents) -> bool:
    """``load`` of a fetch list is a run's ``fetch_list`` (itself, or iterated by a
    comprehension of its ``.name``s that is), or is passed to a helper that uses it only
    as that."""
    parent = parents.get(id(load))
    if isinstance(parent, ast.comprehension) and parent.iter is load:
        comp = parents.get(id(parent))
        if _comprehended(comp) is not load:
            return False
        load, parent = comp, parents.get(id(comp))
    if isinstance(parent, ast.keyword) and parent.arg == "fetch_list":
        call = parents.get(id(parent))
        return isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute) and \
            call.func.attr == "run"
    keyword = parent if isinstance(parent, ast.keyword) else None
    call = parents.get(id(parent)) if keyword is not None else parent
    if not (isinstance(call, ast.Call) and isinstance(call.func, ast.Name)) or load is call.func:
        return False
    if keyword is None and load not in call.args:
        return False
    owner, helper = _helper_def(call.func.id, scope, scopes)
    if helper is None or helper.node.args.vararg or helper.node.args.kwarg:
        return False
    params = [a.arg for a in helper.node.args.posonlyargs + helper.node.args.args]
    if keyword is not None:
        param = keyword.arg
    else:
        index = call.args.index(load)
        param = params[index] if index < len(params) else None
    if param not in params or param in helper.stores or param in helper.declared:
        return False
    uses = helper.loads.get(param, [])
    if any(s.parent is helper for s in scopes if param in s.loads):
        return False
    return bool(uses) and all(
        isinstance(parents.get(id(u)), ast.keyword) and parents[id(u)].arg == "fetch_list" and
        isinstance(parents.get(id(parents[id(u)])), ast.Call) and
        isinstance(parents[id(parents[id(u)])].func, ast.Attribute) and
        parents[id(parents[id(u)])].func.attr == "run" for u in uses)
