"""PU208 program-clone-for-test: ``program.clone(for_test=True)`` under PIR.

What it does
    For ``test_program = <program>.clone(for_test=True)`` whose only uses are
    ``<executor>.run(test_program, ..., fetch_list=[a, b])`` calls, all with the same
    fetch list of variables bound before the clone (``a.name`` counts as ``a``), it
    rewrites the clone to ``paddle.static.normalize_program(<program>, [], [a, b])`` and
    drops ``fetch_list`` from those runs: the evaluation program returns ``a`` and ``b``
    in that order. Any other clone with ``for_test`` is reported for a manual rewrite and
    left as it is.

Why is this bad?
    Since Paddle 3.0 static graphs use the new IR (PIR) by default. A PIR ``Program`` has
    no ``clone(for_test=...)``: the call raises ``TypeError: clone(): incompatible function
    arguments``, and a plain ``clone()`` gives a program whose values are new objects, so
    fetching the original program's variables from it silently returns nothing. 1.x code
    used the clone to evaluate without dropout/batch-norm updates and without the backward
    and optimizer ops. ``normalize_program`` clones the program, keeps the operators the
    fetched values need (with no feed variables named, the data a value needs stays and is
    fed by name as before; feeds nothing uses are ignored), switches them to inference
    (``is_test``: dropout scales by ``1 - p``, batch norm uses its running statistics, as
    1.8's clone did) and appends the fetches.

Example
    ``test_program = main.clone(for_test=True)`` /
    ``loss_v, acc_v = exe.run(test_program, feed=feed, fetch_list=[avg_loss, acc])``
    becomes ``test_program = paddle.static.normalize_program(main, [], [avg_loss, acc])`` /
    ``loss_v, acc_v = exe.run(test_program, feed=feed)``.

    By hand, where the rewrite does not apply (checked on 3.3.1 against the 1.8.5 goldens
    of four bundled programs, fixtures/recipes/): with several fetch lists, one
    ``normalize_program`` per list; otherwise move the layers built before the clone into a
    function and call it a second time, before ``minimize``, under
    ``paddle.static.program_guard(test_program, paddle.static.Program())`` with its own
    ``paddle.static.data`` of the same names, in inference mode, every parameter and
    batch-norm statistic named (``ParamAttr(name=...)``: generated names are not shared
    between PIR programs); run it in the same scope, never run its startup program, and
    fetch its own values. Or move the model to dynamic mode and use ``model.eval()``. The
    compat runtime runs the original unchanged.

Fix safety
    Safe when it applies (tests/test_programs_proof.py: fit_a_line_static and
    static_eval_clone, with dropout and batch norm, upgraded and run against their 1.8.5
    goldens). The evaluation program runs only the operators its fetches need, where 1.8's
    clone ran every forward operator: only side effects of unused operators
    (``layers.Print``, ``py_func``) differ. Manual when the clone is used otherwise (passed
    to ``CompiledProgram``, saved, inspected), when the runs fetch different lists or
    values bound after the clone, when a run passes its fetch list positionally or has
    none, when the clone is inside a loop, or when ``test_program`` is also used in
    another function.
"""
from __future__ import annotations

import ast
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
        if _plan(up).runs and _line(up, original) in _plan(up).runs:
            return updated.with_changes(args=_without_fetch_list(updated.args))
        return updated
    if not any(a.keyword is not None and a.keyword.value == "for_test" for a in original.args):
        return updated
    fetches = _plan(up).clones.get(_line(up, original))
    if fetches is None or not up.opts.enabled(CODE) or up.suppressed_node(original, CODE):
        up.report(original, CODE, f"{MANUAL}; see `paddle-upgrade explain PU208`",
                  "paddle.fluid.Program.clone", "paddle.static.Program", "manual")
        return updated
    up.report(original, CODE, "`clone(for_test=True)` → `paddle.static.normalize_program(program, [], "
              f"[{', '.join(fetches)}])` (the runs of the evaluation program return those values)",
              "paddle.fluid.Program.clone", "paddle.static.normalize_program", "safe", applied=True)
    program = updated.func.value if isinstance(updated.func, cst.Attribute) else f.value
    return cst.parse_expression(
        f"paddle.static.normalize_program({code_of(program)}, [], [{', '.join(fetches)}])")


def _line(up, node) -> int:
    return up.pos(node)[0]


def _without_fetch_list(args):
    kept = [a for a in args if not (a.keyword is not None and a.keyword.value == "fetch_list")]
    if kept and len(kept) < len(args):
        kept[-1] = kept[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)
    return kept


class _Plan:
    def __init__(self):
        self.clones: Dict[int, List[str]] = {}  # line of the clone call -> fetch names
        self.runs: Set[int] = set()              # lines of the runs to lose their fetch_list


def _plan(up) -> _Plan:
    plan = getattr(up, "_clone_plan", None)
    if plan is None:
        plan = up._clone_plan = _Plan()
        if ".clone(" in up.source and "for_test" in up.source:
            try:
                tree = untouched.parse(up.source)
            except SyntaxError:
                return plan
            _survey(tree, plan)
    return plan


class _Scope:
    def __init__(self):
        self.stores: Dict[str, List[int]] = {}
        self.loads: Dict[str, List[ast.Name]] = {}
        self.clones: List[Tuple[ast.Assign, bool]] = []   # (statement, inside a loop)
        self.declared: Set[str] = set()                   # global / nonlocal


def _survey(tree: ast.Module, plan: _Plan) -> None:
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
                inner = _Scope()
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
            if isinstance(child, ast.Assign) and _is_clone(child.value):
                scope.clones.append((child, loop))
            walk(child, scope, loop or isinstance(child, (ast.For, ast.While, ast.AsyncFor,
                                                          ast.comprehension)))

    def walk_expr(node, scope, loop):
        parents.setdefault(id(node), None)
        wrapper = ast.Expression(body=node)
        walk(wrapper, scope, loop)

    module = _Scope()
    scopes.append(module)
    walk(tree, module, False)
    for scope in scopes:
        for stmt, in_loop in scope.clones:
            _decide(scope, scopes, stmt, in_loop, parents, calls_per_line, plan)


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


def _decide(scope, scopes, stmt, in_loop, parents, calls_per_line, plan: _Plan) -> None:
    if in_loop or len(stmt.targets) != 1 or not isinstance(stmt.targets[0], ast.Name):
        return
    name, line = stmt.targets[0].id, stmt.lineno
    if scope.stores.get(name) != [line] or name in scope.declared or calls_per_line.get((line, "clone")) != 1:
        return
    if any(name in s.loads or name in s.declared for s in scopes if s is not scope):
        return
    fetch_lists, runs = set(), []
    for load in scope.loads.get(name, []):
        call = parents.get(id(load))
        keyword = None
        if isinstance(call, ast.keyword):
            keyword, call = call, parents.get(id(call))
        if not (isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute) and call.func.attr == "run"
                and calls_per_line.get((call.lineno, "run")) == 1):
            return
        if keyword is not None:
            if keyword.arg != "program" or call.args:
                return
        elif not (len(call.args) == 1 and call.args[0] is load):
            return
        fetch = [k.value for k in call.keywords if k.arg == "fetch_list"]
        names = _fetch_names(fetch[0]) if fetch else None
        if names is None or any(k.arg is None for k in call.keywords):
            return
        fetch_lists.add(tuple(names))
        runs.append(call.lineno)
    if len(fetch_lists) != 1:
        return
    names = list(next(iter(fetch_lists)))
    for n in names:
        stores = scope.stores.get(n)
        if not stores or max(stores) >= line or n in scope.declared:
            return
    plan.clones[line] = names
    plan.runs.update(runs)


def _fetch_names(node) -> Optional[List[str]]:
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
