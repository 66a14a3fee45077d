"""PU101 backward-strategy: a 1.8 ``BackwardStrategy`` whose every use is visible is deleted,
with its argument of ``backward()`` / ``dygraph.grad()``.

What it does
    For a name bound (everywhere in the module) only by ``bs = fluid.dygraph
    .BackwardStrategy()`` statements and used only in ``bs.sort_sum_gradient = <value>``
    statements, as the strategy of a tensor's ``backward`` (``loss.backward(bs)``,
    ``loss.backward(backward_strategy=bs)``) and as ``backward_strategy=bs`` of
    ``fluid.dygraph.grad(...)``, the construction and flag statements are deleted and the
    argument is removed from those calls (the grad rule drops it). A strategy built in
    place, ``loss.backward(fluid.dygraph.BackwardStrategy())``, is dropped the same way.

Why is this bad?
    ``BackwardStrategy`` is gone (Paddle 2.0 removed it). Its one setting,
    ``sort_sum_gradient``, chose the order in which 1.8.5's dygraph autograd summed the
    gradient contributions of a variable used by several ops: False (the default) in the
    order the backward pass produced them, True sorted from the most recently traced
    consumer to the first. Paddle 3.3.1 still accepts ``FLAGS_sort_sum_gradient``
    (``paddle.set_flags``), but its eager autograd does not read it: the sum follows the
    backward pass as 1.8.5's default did (checked: the same graphs give the same
    gradients with the flag on and off), so writing the flag would change nothing.

Example
    ``bs = fluid.dygraph.BackwardStrategy()`` / ``bs.sort_sum_gradient = False`` /
    ``loss.backward(bs)`` → ``loss.backward()``.

Fix safety
    Safe when every value the strategy's ``sort_sum_gradient`` is given is ``False`` (or it
    is never set): 1.8.5's default order is today's (the rule's example: a variable
    feeding seven ops whose float32 sum depends on the order, gradients checked on
    1.8.5). Unsafe (applied with ``--unsafe-fixes``) when it may be True: where a
    variable receives three or more gradient contributions, 1.8.5's sorted sum can differ
    from today's in the last bits (with two, the sum is the same; checked on 1.8.5:
    contributions of 1e8, 1, -1e8, ... gave 0 sorted and 4 unsorted). Manual when the
    strategy is used any other way (passed to a function, stored on an object, its flag
    read, the name rebound or also bound otherwise), is not assigned to a plain name in a
    statement of its own, or is given to a call other than those.
"""
from __future__ import annotations

import copy
from typing import Dict, List, Optional, Set

import libcst as cst

from upgrader import removal

CODE = "PU101"
STRUCTURAL = ("backward-strategy",)
DELETES = ("backward-strategy",)
SAFE_ARGS_WHEN = ("paddle.fluid.dygraph.grad",)

STRATEGY = "paddle.fluid.dygraph.BackwardStrategy"
GRAD = "paddle.fluid.dygraph.grad"
FLAG = "sort_sum_gradient"
USES = ("`{n}.sort_sum_gradient = <value>` statements, `<tensor>.backward({n})` / "
        "`.backward(backward_strategy={n})` and `fluid.dygraph.grad(..., "
        "backward_strategy={n})`")
MAY_SORT = ("its sort_sum_gradient may be True: 1.8.5 then summed the gradient "
            "contributions of a variable used by several ops sorted from the last traced "
            "consumer to the first; Paddle 3.3.1's eager autograd ignores "
            "FLAGS_sort_sum_gradient and sums them as 1.8.5 did by default, so with three "
            "or more contributions to one variable the float sum can differ in the last bits")


class _Name:
    """What the module does with one strategy name."""

    def __init__(self) -> None:
        self.constructions: List[cst.Call] = []
        self.flags: List[tuple] = []          # (value node, line)
        self.bad: Optional[str] = None        # why the name is not followed
        self.may_sort = False
        self.applied: Optional[bool] = None   # decided at the first construction


class _Survey:
    def __init__(self) -> None:
        self.names: Dict[str, _Name] = {}
        self.role: Dict[int, tuple] = {}      # id(constructor call) -> ("name", n) / ("inline",)
        self.drops: Dict[int, str] = {}       # id(statement) -> strategy name to delete
        self.edits: Dict[int, Set[str]] = {}  # id(statement) -> names (or "") to strip
        self.inline_ok: Set[int] = set()      # id(constructor call) given in place


def _resolves(up, node, name: str) -> bool:
    from upgrader.fixers import imported_entry
    entry = imported_entry(up, node)
    return entry is not None and entry.name == name


def _is_constructor(up, node) -> bool:
    return isinstance(node, cst.Call) and _resolves(up, node.func, STRATEGY)


def survey(up) -> _Survey:
    s = up.__dict__.get("_backward_strategy")
    if s is not None:
        return s
    s = up.__dict__["_backward_strategy"] = _Survey()
    if "BackwardStrategy" not in up.source:
        return s

    class Walk(cst.CSTVisitor):
        def __init__(self) -> None:
            self.stack: List[cst.CSTNode] = []

        def on_visit(self, node) -> bool:
            self.stack.append(node)
            if isinstance(node, cst.Call) and _is_constructor(up, node):
                self.constructor(node)
            return True

        def on_leave(self, node) -> None:
            self.stack.pop()

        def statement(self) -> Optional[cst.SimpleStatementLine]:
            for n in reversed(self.stack[:-1]):
                if isinstance(n, cst.SimpleStatementLine):
                    return n
                if isinstance(n, (cst.BaseCompoundStatement, cst.IndentedBlock)):
                    return None
            return None

        def constructor(self, call: cst.Call) -> None:
            parents = self.stack[:-1]
            p1 = parents[-1] if parents else None
            p2 = parents[-2] if len(parents) > 1 else None
            if call.args:
                return  # 1.8.5's BackwardStrategy() took no arguments: reported as manual
            if isinstance(p1, cst.Assign) and p1.value is call and len(p1.targets) == 1 \
                    and isinstance(p1.targets[0].target, cst.Name) \
                    and isinstance(p2, cst.SimpleStatementLine) and len(p2.body) == 1:
                n = p1.targets[0].target.value
                s.names.setdefault(n, _Name()).constructions.append(call)
                s.role[id(call)] = ("name", n)
                s.drops[id(p2)] = n
                return
            if isinstance(p1, cst.Arg) and isinstance(p2, cst.Call) and not p1.star:
                if _backward_use(p2, p1):
                    stmt = self.statement()
                    if stmt is not None:
                        s.role[id(call)] = ("inline",)
                        s.edits.setdefault(id(stmt), set()).add("")
                elif p1.keyword is not None and p1.keyword.value == "backward_strategy" \
                        and _resolves(up, p2.func, GRAD):
                    s.role[id(call)] = ("inline",)
                    s.inline_ok.add(id(call))

    up.module.visit(Walk())
    if not s.names:
        return s
    _uses(up, s)
    return s


def _backward_use(call: cst.Call, arg: cst.Arg) -> bool:
    """``<x>.backward(<arg>)`` or ``<x>.backward(backward_strategy=<arg>)``, alone."""
    return isinstance(call.func, cst.Attribute) and call.func.attr.value == "backward" \
        and len(call.args) == 1 and call.args[0] is arg and not arg.star \
        and (arg.keyword is None or arg.keyword.value == "backward_strategy")


def _uses(up, s: _Survey) -> None:
    """Every occurrence of the strategy names: allowed forms only."""
    from upgrader import bound_names, untouched
    try:
        binds = bound_names.bindings(untouched.parse(up.source))
    except (SyntaxError, RecursionError, MemoryError, ValueError):
        for info in s.names.values():
            info.bad = "the module could not be analysed"
        return
    for n, info in s.names.items():
        if len(binds.get(n, ())) != len(info.constructions):
            info.bad = (f"the name `{n}` is also bound otherwise in the module (a parameter, "
                        "another assignment, a loop variable or an import)")
    names = set(s.names)

    class Walk(cst.CSTVisitor):
        def __init__(self) -> None:
            self.stack: List[cst.CSTNode] = []

        def on_visit(self, node) -> bool:
            self.stack.append(node)
            if isinstance(node, cst.Name) and node.value in names:
                self.occurrence(node)
            return True

        def on_leave(self, node) -> None:
            self.stack.pop()

        def occurrence(self, node: cst.Name) -> None:
            info = s.names[node.value]
            parents = self.stack[:-1]
            p = [parents[-i] if len(parents) >= i else None for i in range(1, 5)]
            if isinstance(p[0], cst.Attribute) and p[0].attr is node:
                return  # `x.bs`: an attribute name, not the variable
            if isinstance(p[0], cst.Arg) and p[0].keyword is node:
                return  # `f(bs=...)`: a keyword
            if isinstance(p[0], cst.AssignTarget) and isinstance(p[1], cst.Assign) \
                    and id(p[1].value) in s.role:
                return  # the construction itself
            if isinstance(p[0], cst.Attribute) and p[0].value is node \
                    and p[0].attr.value == FLAG and isinstance(p[1], cst.AssignTarget) \
                    and isinstance(p[2], cst.Assign) and len(p[2].targets) == 1 \
                    and isinstance(p[3], cst.SimpleStatementLine) and len(p[3].body) == 1:
                line = up.pos(p[3])[0]
                info.flags.append((p[2].value, line))
                s.drops[id(p[3])] = node.value
                return
            if isinstance(p[0], cst.Arg) and isinstance(p[1], cst.Call):
                if _backward_use(p[1], p[0]):
                    stmt = None
                    for q in reversed(parents):
                        if isinstance(q, cst.SimpleStatementLine):
                            stmt = q
                            break
                        if isinstance(q, (cst.BaseCompoundStatement, cst.IndentedBlock)):
                            break
                    if stmt is not None:
                        s.edits.setdefault(id(stmt), set()).add(node.value)
                        return
                elif p[0].keyword is not None and p[0].keyword.value == "backward_strategy" \
                        and _resolves(up, p[1].func, GRAD):
                    return
            if info.bad is None:
                info.bad = (f"`{node.value}` is used at line {up.pos(node)[0]} other than in "
                            + USES.format(n=node.value))

    up.module.visit(Walk())
    from upgrader.args import literal
    for n, info in s.names.items():
        for value, line in info.flags:
            src = up.module.code_for_node(value).strip()
            if isinstance(value, cst.Name):
                src = bound_names.literal_at(up, line, value.value) or src
            kind, v = literal(src)
            if not (kind == "ok" and isinstance(v, (bool, int, float)) and v == 0):
                info.may_sort = True  # True, or a value not known here


def _decide(up, n: str) -> bool:
    """Whether the strategy ``n`` goes (one decision for all its constructions, whichever
    of its statements the rewrite meets first)."""
    info = survey(up).names.get(n)
    if info is None:
        return False
    if info.applied is None:
        variant = _variant(up.entry_for(STRATEGY), info)
        info.applied = info.bad is None and all(up.can_apply(variant, c) for c in info.constructions)
    return info.applied


def _variant(entry, info: _Name):
    if not info.may_sort:
        return entry
    e = copy.copy(entry)
    e.safety, e.note = "unsafe", MAY_SORT
    return e


def rewrite_call(up, original: cst.Call, updated: cst.Call, entry):
    s = survey(up)
    role = s.role.get(id(original))
    if role is None:
        up.report_entry(original, entry, False, manual=(
            "not assigned to a plain name in a statement of its own nor given in place to "
            "`<tensor>.backward(...)` / `fluid.dygraph.grad(..., backward_strategy=...)`" +
            (" (1.8.5's BackwardStrategy() took no arguments)" if original.args else "")
            + "; " + entry.note))
        return updated
    if role[0] == "inline":
        if not up.can_apply(entry, original):
            up.report_entry(original, entry, False)
            return updated
        up.report(original, entry.code, f"`{entry.short}()` given in place: the default "
                  "strategy (sort_sum_gradient=False), dropped with its argument", entry.name,
                  "", "safe", applied=True)
        return updated
    n = role[1]
    info = s.names[n]
    if info.bad is not None:
        up.report_entry(original, entry, False, manual=f"{info.bad}; {entry.note}")
        return updated
    variant = _variant(entry, info)
    if not _decide(up, n):
        if info.may_sort and up.opts.enabled(entry.code):
            up.report(original, entry.code, f"`{n} = {entry.short}()` and its uses can be "
                      f"deleted (unsafe: {MAY_SORT}); apply with --unsafe-fixes", entry.name,
                      "", "unsafe", applied=False,
                      todo=(f"deleting `{n} = {entry.short}()` with its uses can change "
                            "results (1.8's sorted gradient summation); review, then "
                            "`paddle-upgrade fix --unsafe-fixes`."))
        else:
            up.report_entry(original, variant, False)
        return updated
    what = (f"`{n} = {entry.short}()` deleted with its flag statements and its argument of "
            "backward() / dygraph.grad()")
    if info.may_sort:
        what += f" (unsafe: {MAY_SORT})"
    else:
        what += (" (sort_sum_gradient is False: 1.8.5's default summation order, which is "
                 "today's)")
    up.report(original, entry.code, what, entry.name, "", variant.safety, applied=True)
    return updated


def safe_arg(up, call: cst.Call, entry, name: str) -> bool:
    """``fluid.dygraph.grad(..., backward_strategy=<x>)``: harmless when ``x`` is a followed
    strategy that is deleted and never sorts, or a strategy built in place."""
    if name != "backward_strategy":
        return False
    s = survey(up)
    for a in call.args:
        if a.keyword is not None and a.keyword.value == name:
            v = a.value
            if isinstance(v, cst.Name) and v.value in s.names:
                info = s.names[v.value]
                return _decide(up, v.value) and not info.may_sort
            return isinstance(v, cst.Call) and not v.args and _resolves(up, v.func, STRATEGY)
    return False


class _Strip(cst.CSTTransformer):
    """Remove the strategy argument of ``.backward(...)`` calls."""

    def __init__(self, up, names: Set[str]) -> None:
        self.up = up
        self.names = names

    def leave_Call(self, original, updated):
        if not (isinstance(updated.func, cst.Attribute) and updated.func.attr.value == "backward"
                and len(updated.args) == 1):
            return updated
        a = updated.args[0]
        if a.star or not (a.keyword is None or a.keyword.value == "backward_strategy"):
            return updated
        v = a.value
        if isinstance(v, cst.Name) and v.value in self.names or \
                "" in self.names and _is_constructor(self.up, v) and not v.args:
            return updated.with_changes(args=())
        return updated


def leave_statement(up, original, updated):
    s = survey(up)
    if not (s.drops or s.edits):
        return updated
    n = s.drops.get(id(original))
    if n is not None and _decide(up, n) and up.opts.fix:
        return removal.remove(up, original, updated)
    names = s.edits.get(id(original))
    if names and up.opts.fix:
        going = {n for n in names if n and _decide(up, n)}
        if "" in names and up.can_apply(up.entry_for(STRATEGY), original):
            going.add("")  # a strategy built in place (its call reported the rewrite)
        if going:
            updated = updated.visit(_Strip(up, going))
    return removal.carry_in(up, original, updated)
