"""PU211 fetch-by-name: ``exe.run(..., fetch_list=[loss.name])`` fetches the variable.

What it does
    In ``<executor>.run(...)`` calls of a static-graph program, ``fetch_list`` elements
    written ``<var>.name`` become ``<var>``. When one feed dict (a name) is given to the
    runs of different programs in the same function (or module level), those runs pass
    ``feed=dict(<name>)`` (a name a ``for`` loop of the function binds, which may be an
    iterable DataLoader's batch, a list holding one feed dict:
    ``feed=dict(data) if isinstance(data, dict) else [dict(d) for d in data]``).

Why is this bad?
    Paddle 3 builds static graphs in PIR by default; a PIR value produced by an operator
    has no name (``ValueError: Currently, we can only get name of Value from DataOp...``),
    so ``loss.name`` fails before the program runs. Fetching the value itself was equally
    valid in 1.x.

Example
    ``exe.run(main, feed=feed, fetch_list=[avg_cost.name, acc.name])`` →
    ``exe.run(main, feed=feed, fetch_list=[avg_cost, acc])``;
    ``fetch_list=[v.name for v in outs]`` → ``fetch_list=[v for v in outs]``; lists joined
    with ``+`` (``[loss.name] + [m.name for m in metrics]``) and a fetch list passed by
    position (``exe.run(prog, feed, [loss.name])``, or first to the ``run`` of a name the
    module binds to a ``ParallelExecutor(...)``: ``pe.run([loss.name], feed)``) likewise. A list of ``.name``s built
    first and used only as a fetch list (``fetch = [loss.name]``,
    ``fetch.append(acc.name)``, ``fetch += [...]``, ``len(fetch)``, ``exe.run(...,
    fetch_list=fetch)``) loses its ``.name``s where it is built.

    3.3.1's ``Executor.run`` removes from the feed dict it is given every key the
    program does not read (1.8 warned and left it whole): after running an inference
    program with the training feed dict, the label is gone and the training run fails
    with KeyError.

Fix safety
    Safe: 1.x resolved the name to the same variable; ``dict(feed)`` is a shallow copy the
    executor reads as it read the dict. Names given as strings
    (``fetch_list=['loss']``, also built ones: ``prefix + '_w'``, ``'%s_w' % p``,
    ``'{}_w'.format(p)``, a list of names bound to a variable first and used otherwise
    too: ``names = [loss.name, acc.name]``; ``print(names)`` ... ``fetch_list=names``,
    and a name every binding of
    which gives a string: ``w = 'fc_0.w_0'`` or ``for n in ['fc_0.w_0', 'fc_0.b_0']:`` ...
    ``fetch_list=[n]``, a slice of such a list, ``list(map(lambda v: v.name, outs))``)
    are reported as manual: a PIR program cannot fetch by name
    (not even data or parameters; checked on 3.3.1), the variable itself must be fetched.
"""
from __future__ import annotations

import ast
import re
from typing import Dict, List, Set, Tuple

import libcst as cst

from upgrader import untouched
from upgrader.args import code_of
from upgrader.fixers.static_mode import static_program

CODE = "PU211"


def _shared_feeds(up) -> Set[int]:
    """Lines of the ``.run(...)`` calls (one on their line) whose feed is a name that the
    same scope also gives to a run of another program (the program expression as written;
    none: the default main program)."""
    cached = getattr(up, "_shared_feed_lines", None)
    if cached is not None:
        return cached
    out: Set[int] = set()
    up._shared_feed_lines = out
    if "feed" not in up.source or ".run(" not in up.source:
        return out
    try:
        tree = untouched.parse(up.source)
    except SyntaxError:
        return out
    per_line: Dict[int, int] = {}
    groups: Dict[Tuple[int, str], List[Tuple[int, str]]] = {}

    def visit(node, scope: int):
        for child in ast.iter_child_nodes(node):
            inner = id(child) if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef,
                                                    ast.Lambda, ast.ClassDef)) else scope
            if isinstance(child, ast.Call) and isinstance(child.func, ast.Attribute) \
                    and child.func.attr == "run":
                per_line[child.lineno] = per_line.get(child.lineno, 0) + 1
                feed = [k.value for k in child.keywords if k.arg == "feed"] or child.args[1:2]
                program = [k.value for k in child.keywords if k.arg == "program"] or child.args[:1]
                if len(feed) == 1 and isinstance(feed[0], ast.Name) \
                        and not any(k.arg is None for k in child.keywords) \
                        and not any(isinstance(a, ast.Starred) for a in child.args):
                    key = ast.dump(program[0]) if program else ""
                    groups.setdefault((scope, feed[0].id), []).append((child.lineno, key))
            visit(child, inner)

    visit(tree, 0)
    for runs in groups.values():
        if len({key for _, key in runs}) > 1:
            out.update(line for line, _ in runs if per_line.get(line) == 1)
    return out


def _copy_feed(up, original: cst.Call, args: list) -> bool:
    """``feed=<name>`` → ``feed=dict(<name>)`` in a run whose feed dict other programs'
    runs read too (3.3.1's run drops the keys its program does not read from the dict)."""
    if not up.opts.enabled(CODE) or up.pos(original)[0] not in _shared_feeds(up):
        return False
    for i, a in enumerate(args):
        if (a.keyword is None and i == 1) or (a.keyword is not None and a.keyword.value == "feed"):
            if isinstance(a.value, cst.Name) and not up.suppressed_node(original, CODE):
                from upgrader.fixers.program_clone import feed_copy
                args[i] = a.with_changes(value=feed_copy(a.value, up.pos(original)[0] in _loop_feeds(up)))
                up.report(original, CODE, "feed=<dict> → feed=dict(<dict>): the runs of other "
                          "programs read this feed dict too, and 3.3.1's run removes the keys "
                          "its program does not read from the dict it is given (1.8 left it "
                          "whole)", "paddle.fluid.Executor.run", "paddle.static.Executor.run",
                          "safe", applied=True)
                return True
    return False


def _loop_feeds(up) -> Set[int]:
    """Lines of runs whose feed is a name a ``for`` loop of their function binds (it may
    be an iterable DataLoader's batch: ``for data in loader(): exe.run(prog, feed=data)``)."""
    cached = getattr(up, "_loop_feed_lines", None)
    if cached is None:
        from upgrader.fixers.program_clone import _loop_feed_runs
        try:
            cached = _loop_feed_runs(untouched.parse(up.source))
        except SyntaxError:
            cached = set()
        up._loop_feed_lines = cached
    return cached


_STRINGS = (cst.SimpleString, cst.ConcatenatedString, cst.FormattedString)


def _string_expr(v: cst.BaseExpression) -> bool:
    """A string the code builds: a literal, ``prefix + '_w'`` / ``'%s_w' % p`` with a
    literal operand, ``'{}_w'.format(p)`` / ``'_'.join(...)`` on a literal, ``str(x)``."""
    if isinstance(v, _STRINGS):
        return True
    if isinstance(v, cst.BinaryOperation) and isinstance(v.operator, (cst.Add, cst.Modulo)):
        return _string_expr(v.left) or (isinstance(v.operator, cst.Add) and _string_expr(v.right))
    if isinstance(v, cst.Call):
        f = v.func
        if isinstance(f, cst.Attribute) and isinstance(f.value, _STRINGS):
            return True
        return isinstance(f, cst.Name) and f.value == "str"
    return False


def _ast_string(e, name_attr: bool = False) -> bool:
    """``e`` (ast) gives a string: a string literal, or ``+``/``%`` with one on the left
    (``+``: on either side); with ``name_attr``, ``<x>.name`` counts as one too."""
    if isinstance(e, ast.Constant):
        return isinstance(e.value, str)
    if isinstance(e, ast.BinOp) and isinstance(e.op, (ast.Add, ast.Mod)):
        return _ast_string(e.left, name_attr) or (
            isinstance(e.op, ast.Add) and _ast_string(e.right, name_attr))
    return name_attr and isinstance(e, ast.Attribute) and e.attr == "name"


def _name_lists(up) -> Set[str]:
    """Names the module binds (anywhere) to a list or tuple holding a variable name
    (``'loss'``, ``loss.name``, ``prefix + '_w'``) or to a comprehension of ``.name``s."""
    cached = getattr(up, "_fetch_name_lists", None)
    if cached is not None:
        return cached
    out: Set[str] = set()
    up._fetch_name_lists = out
    if "fetch_list" not in up.source:
        return out
    try:
        tree = untouched.parse(up.source)
    except SyntaxError:
        return out

    for node in ast.walk(tree):
        if isinstance(node, ast.Assign) and len(node.targets) == 1 \
                and isinstance(node.targets[0], ast.Name):
            v = node.value
            if isinstance(v, (ast.List, ast.Tuple)) and any(_ast_string(e, True) for e in v.elts) \
                    or isinstance(v, ast.ListComp) and _ast_string(v.elt, True):
                out.add(node.targets[0].id)
    out -= _fetch_only_lists(up)
    return out


def _dot_name(e) -> bool:
    """``<var>.name`` (ast) where ``<var>`` is a name, attribute or subscript."""
    return isinstance(e, ast.Attribute) and e.attr == "name" and isinstance(
        e.value, (ast.Name, ast.Attribute, ast.Subscript))


def _fetch_only_lists(up) -> Set[str]:
    """Names of lists of ``<var>.name``s used only as fetch lists: every binding of the
    name in the module is a list or tuple display of ``.name``s (``+=`` one too), and every
    other use is ``<it>.append(<var>.name)`` / ``<it>.extend([...])`` as a statement,
    ``len(<it>)`` or ``fetch_list=<it>`` in a ``.run(...)`` call. Their ``.name``s can go."""
    cached = getattr(up, "_fetch_only", None)
    if cached is not None:
        return cached
    out: Set[str] = set()
    up._fetch_only = out
    if "fetch_list" not in up.source or ".name" not in up.source:
        return out
    try:
        tree = untouched.parse(up.source)
    except SyntaxError:
        return out

    def names_display(v) -> bool:
        return isinstance(v, (ast.List, ast.Tuple)) and bool(v.elts) and all(_dot_name(e) for e in v.elts)

    good, bad, used = set(), set(), set()
    fine = set()  # ids of Name nodes whose use is accounted for
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign):
            for t in node.targets:
                if isinstance(t, ast.Name):
                    fine.add(id(t))
                    (good if len(node.targets) == 1 and names_display(node.value) else bad).add(t.id)
        elif isinstance(node, ast.AugAssign) and isinstance(node.target, ast.Name):
            fine.add(id(node.target))
            (good if isinstance(node.op, ast.Add) and names_display(node.value) else bad).add(node.target.id)
        elif isinstance(node, ast.Expr) and isinstance(node.value, ast.Call):
            c = node.value
            f = c.func
            if isinstance(f, ast.Attribute) and isinstance(f.value, ast.Name) and len(c.args) == 1 \
                    and not c.keywords and (f.attr == "append" and _dot_name(c.args[0])
                                            or f.attr == "extend" and names_display(c.args[0])):
                fine.add(id(f.value))
        elif isinstance(node, ast.Call):
            f = node.func
            if isinstance(f, ast.Name) and f.id == "len" and len(node.args) == 1 \
                    and isinstance(node.args[0], ast.Name):
                fine.add(id(node.args[0]))
            if isinstance(f, ast.Attribute) and f.attr == "run":
                for k in node.keywords:
                    if k.arg == "fetch_list" and isinstance(k.value, ast.Name):
                        fine.add(id(k.value))
                        used.add(k.value.id)
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and id(node) not in fine:
            bad.add(node.id)
        elif isinstance(node, (ast.Global, ast.Nonlocal)):
            bad.update(node.names)
        elif isinstance(node, ast.arg):
            bad.add(node.arg)
    out.update((good & used) - bad)
    return out


class _StripNames(cst.CSTTransformer):
    """``<var>.name`` elements of the fetch-only lists' displays and appends → ``<var>``."""

    def __init__(self, names):
        self.names = names
        self.hits = 0

    def _strip(self, v):
        if isinstance(v, (cst.List, cst.Tuple)):
            els = [e.with_changes(value=e.value.value) if isinstance(e.value, cst.Attribute)
                   and e.value.attr.value == "name" else e for e in v.elements]
            self.hits += 1
            return v.with_changes(elements=els)
        if isinstance(v, cst.Attribute) and v.attr.value == "name":
            self.hits += 1
            return v.value
        return v

    def leave_Assign(self, original, updated):
        if len(updated.targets) == 1 and isinstance(updated.targets[0].target, cst.Name) \
                and updated.targets[0].target.value in self.names:
            return updated.with_changes(value=self._strip(updated.value))
        return updated

    def leave_AugAssign(self, original, updated):
        if isinstance(updated.target, cst.Name) and updated.target.value in self.names:
            return updated.with_changes(value=self._strip(updated.value))
        return updated

    def leave_Expr(self, original, updated):
        c = updated.value
        if isinstance(c, cst.Call) and isinstance(c.func, cst.Attribute) \
                and isinstance(c.func.value, cst.Name) and c.func.value.value in self.names \
                and c.func.attr.value in ("append", "extend") and len(c.args) == 1:
            return updated.with_changes(value=c.with_changes(
                args=[c.args[0].with_changes(value=self._strip(c.args[0].value))]))
        return updated


def leave_statement(up, original, updated):
    """Strip the ``.name``s of fetch-only lists where they are built (see check_call). A
    compound statement the walk skipped (untouched.py: nothing legacy inside, so its inner
    statements get no hook of their own) is searched whole."""
    if not up.opts.enabled(CODE):
        return updated
    if not isinstance(updated, cst.SimpleStatementLine) and id(original) not in up.untouched:
        return updated
    names = _fetch_only_lists(up)
    if not names or not static_program(up):
        return updated
    strip = _StripNames(names)
    new = updated.visit(strip)
    return new if strip.hits else updated


def _string_names(up) -> Set[str]:
    """Names every binding of which in the module gives a variable name as a string: an
    assignment of one (``w_name = 'fc_0.w_0'``, ``prefix + '_w'``) or a ``for`` loop over a
    literal list or tuple of them (``for n in ['fc_0.w_0', 'fc_0.b_0']:``, also
    ``for n in names:`` with ``names`` such a list)."""
    cached = getattr(up, "_fetch_string_names", None)
    if cached is not None:
        return cached
    out: Set[str] = set()
    up._fetch_string_names = out
    if "fetch_list" not in up.source:
        return out
    try:
        tree = untouched.parse(up.source)
    except SyntaxError:
        return out

    lists, other_lists = set(), set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign) and len(node.targets) == 1 \
                and isinstance(node.targets[0], ast.Name):
            v = node.value
            ok = isinstance(v, (ast.List, ast.Tuple)) and v.elts and all(_ast_string(e) for e in v.elts)
            (lists if ok else other_lists).add(node.targets[0].id)
    lists -= other_lists
    strings, others = set(), set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for t in targets:
                for n in ast.walk(t):
                    if isinstance(n, ast.Name):
                        ok = t is n and node.value is not None and _ast_string(node.value) \
                            and not isinstance(node, ast.AugAssign)
                        (strings if ok else others).add(n.id)
        elif isinstance(node, (ast.For, ast.AsyncFor, ast.comprehension)):
            it = node.iter
            ok = isinstance(it, (ast.List, ast.Tuple)) and it.elts and all(_ast_string(e) for e in it.elts) \
                or isinstance(it, ast.Name) and it.id in lists
            for n in ast.walk(node.target):
                if isinstance(n, ast.Name):
                    (strings if ok and n is node.target else others).add(n.id)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            for a in node.args.posonlyargs + node.args.args + node.args.kwonlyargs:
                others.add(a.arg)
        elif isinstance(node, (ast.With, ast.AsyncWith)):
            for i in node.items:
                if i.optional_vars is not None:
                    others.update(n.id for n in ast.walk(i.optional_vars) if isinstance(n, ast.Name))
    out.update(strings - others)
    return out


def _fetch_value(up, value, strings):
    """``value`` (a fetch_list) with ``<var>.name`` items fetching ``<var>``, and whether
    it changed; names given as strings go to ``strings``. Lists joined with ``+``
    (``[loss.name] + [m.name for m in metrics]``) are handled operand by operand."""
    if isinstance(value, cst.BinaryOperation) and isinstance(value.operator, cst.Add):
        left, a = _fetch_value(up, value.left, strings)
        right, b = _fetch_value(up, value.right, strings)
        return (value.with_changes(left=left, right=right), True) if a or b else (value, False)
    if isinstance(value, cst.Name) and value.value in _fetch_only_lists(up):
        # `names = [loss.name, acc.name]` ... fetch_list=names: its `.name`s go where it is
        # built (leave_statement)
        return value, True
    if isinstance(value, cst.Name) and value.value in _name_lists(up):
        strings.append(value)  # `names = [loss.name, 'acc']` ... fetch_list=names
        return value, False
    if isinstance(value, cst.Subscript) and isinstance(value.value, cst.Name) \
            and value.value.value in _name_lists(up):
        strings.append(value)  # fetch_list=names[:1]
        return value, False
    if isinstance(value, cst.Call) and isinstance(value.func, cst.Name) \
            and value.func.value in ("list", "map", "tuple") \
            and any(isinstance(n, cst.Attribute) and n.attr.value == "name"
                    for n in _lambda_bodies(value)):
        strings.append(value)  # list(map(lambda v: v.name, outs))
        return value, False
    if isinstance(value, cst.ListComp) and isinstance(value.elt, cst.Attribute) \
            and value.elt.attr.value == "name" and isinstance(value.elt.value, cst.Name) \
            and isinstance(value.for_in.target, cst.Name) \
            and value.for_in.target.value == value.elt.value.value:
        # `[v.name for v in outs]` → `[v for v in outs]`
        return value.with_changes(elt=value.elt.value), True
    if not isinstance(value, (cst.List, cst.Tuple)):
        return value, False
    elements, changed = [], False
    for el in value.elements:
        v = el.value
        if _string_expr(v) or isinstance(v, cst.Name) and v.value in _string_names(up):
            strings.append(v)
        if isinstance(v, cst.Attribute) and v.attr.value == "name" and isinstance(v.value, (cst.Name, cst.Attribute)):
            el = el.with_changes(value=v.value)
            changed = True
        elements.append(el)
    return (value.with_changes(elements=elements), True) if changed else (value, False)


def _lambda_bodies(call: cst.Call):
    """The bodies of the lambdas a ``list(map(lambda v: ..., xs))`` call passes."""
    todo = [call]
    while todo:
        n = todo.pop()
        if isinstance(n, cst.Lambda):
            yield n.body
        elif isinstance(n, cst.Call):
            todo.extend(a.value for a in n.args)


def _parallel_executors(up) -> Set[str]:
    """The names (or ``self.<attr>``) the module binds to a ``ParallelExecutor(...)``."""
    cached = getattr(up, "_parallel_executor_names", None)
    if cached is None:
        cached = up._parallel_executor_names = set(re.findall(
            r"(?m)^\s*((?:self\.)?\w+)\s*=\s*[\w.]*ParallelExecutor\(", up.source)) \
            if "ParallelExecutor(" in up.source else set()
    return cached


def check_call(up, original: cst.Call, updated: cst.Call):
    f = updated.func
    if not (isinstance(f, cst.Attribute) and f.attr.value == "run" and static_program(up)):
        return updated
    args = list(updated.args)
    copied = _copy_feed(up, original, args)
    changed = False
    strings = []
    # 1.8's ParallelExecutor.run(fetch_list, feed=None, ...): the fetch list comes first
    first = 0 if code_of(original.func.value) in _parallel_executors(up) else 2
    for i, a in enumerate(args):
        if a.keyword is None and i == first and not any(
                x.keyword is not None and x.keyword.value == "fetch_list" for x in args) \
                and all(x.keyword is None and not x.star for x in args[:first + 1]):
            pass  # exe.run(program, feed, fetch_list): the third positional argument
        elif a.keyword is None or a.keyword.value != "fetch_list":
            continue
        value, did = _fetch_value(up, a.value, strings)
        if did:
            args[i] = a.with_changes(value=value)
            changed = True
    if strings and up.opts.enabled(CODE) and not up.suppressed_node(original, CODE):
        up.report(original, CODE, "fetch_list names a variable by a string: fetch the "
                  "variable itself (a parameter: program.get_parameter_value_by_name(name)); a "
                  "PIR program cannot fetch by name, 3.3.1 raises for every string (\"doesn't "
                  "have fetch op\"), also for data and parameters",
                  "paddle.fluid.Executor.run", "paddle.static.Executor.run", "manual")
    if not changed or not up.opts.enabled(CODE) or up.suppressed_node(original, CODE):
        return updated.with_changes(args=args) if copied else updated
    up.report(original, CODE, "fetch_list by `.name` → the variable itself (PIR values have no name)",
              "paddle.fluid.Executor.run", "paddle.static.Executor.run", "safe", applied=True)
    return updated.with_changes(args=args)
