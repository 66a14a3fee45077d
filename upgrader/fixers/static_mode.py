"""PU202 static-mode: insert ``paddle.enable_static()`` once in static-graph programs.

What it does
    Inserts ``paddle.enable_static()`` exactly once in a module that builds or runs a
    static graph (``fluid.Program``, ``program_guard``, ``Executor``, ``fluid.data``, ...):
    after the imports when static API is used at module level or the module runs code at
    import time; at the top of the ``if __name__ == "__main__":`` block when the program
    is structured that way; nowhere in a library module that only defines functions.
    ``fluid.install_check.run_check()`` (entry ``structural = "run-check"``) becomes
    ``paddle.utils.run_check()`` followed by ``paddle.enable_static()`` in a static program.

Why is this bad?
    Paddle 1.x ran static graphs by default. Since Paddle 2.0 dynamic mode is the
    default, and static-graph code fails (``paddle.static.data`` raises in dynamic mode).
    ``paddle.utils.run_check()`` ends in dynamic mode whatever the mode before it; 1.8's
    ``run_check`` built its own programs and left the mode alone (it only ran in static
    mode: in dygraph mode it raised).

Example
    ``import paddle.fluid as fluid`` / ``x = fluid.data('x', [None, 3])`` becomes
    ``import paddle`` / ``paddle.enable_static()`` / ``x = paddle.static.data('x', [None, 3])``.

Fix safety
    Safe: static programs could only run in static mode. Files that mix static code and
    ``dygraph.guard`` blocks keep each guard body in dynamic mode
    (``paddle.disable_static()`` … ``paddle.enable_static()``). ``run_check`` in a static
    program is followed by ``paddle.enable_static()`` (1.8.5 could only run it in static
    mode, and stayed there); in a dygraph program it stays a plain call (its code after it
    wants dynamic mode; so does a ``dygraph.guard`` body, where 1.8.5's even raised). In a
    static program a ``run_check()`` that shares its line with other statements or sits
    in a compound statement's header or one-line body is manual.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import List

import libcst as cst

from upgrader.names import BindingsCollector, dotted_of

CODE = "PU202"
STRUCTURAL = ("run-check",)
# switching *to* dynamic mode means the program manages its mode (static_program());
# it does not suppress the insertion: 1.x started in static mode, so static code before
# an enable_dygraph() call still needs paddle.enable_static() (checked on 1.8.5:
# in_dygraph_mode() was False before fluid.enable_dygraph() and fluid.data built a
# static variable there). Switching back to static (disable_dygraph) is what 1.x did by
# default, so it does not either.
MODE_SWITCHES = {"paddle.enable_static", "paddle.fluid.enable_dygraph",
                 "paddle.fluid.enable_imperative", "paddle.fluid.dygraph.enable_dygraph",
                 "paddle.fluid.dygraph.base.enable_dygraph", "paddle.fluid.dygraph.enable_imperative",
                 "paddle.fluid.dygraph.base.enable_imperative"}
# switching to static mode outside a guard block: a later `with dygraph.guard():` block
# must switch to dynamic mode for its body and back (1.8's guard restored the mode), so
# the module counts as a static program for PU201 (checked on 1.8.5: disable_dygraph()
# then a guard block ran the block in dygraph mode and static mode again after it)
STATIC_SWITCHES = {"paddle.enable_static", "paddle.fluid.disable_dygraph",
                   "paddle.fluid.dygraph.disable_dygraph", "paddle.fluid.dygraph.base.disable_dygraph",
                   "paddle.fluid.disable_imperative", "paddle.fluid.dygraph.disable_imperative",
                   "paddle.fluid.dygraph.base.disable_imperative"}
STATIC_CALL = "paddle.enable_static()"


@dataclass
class Facts:
    static_refs: int = 0          # static-only legacy API referenced (counted while rewriting)
    # what the rewrite actually turned into static-graph code, outside dygraph guards:
    applied_static: bool = False
    applied_module_level: bool = False
    static_outside_guard: bool = False  # decided by the survey before rewriting
    module_level_static: bool = False
    has_guard: bool = False
    already_static: bool = False  # paddle.enable_static() already in the module
    manages_mode: bool = False    # the module switches modes itself (MODE_SWITCHES)


def survey(up, module: cst.Module) -> None:
    """Before rewriting: is this a static program, and where is static API used?
    The same walk computes every function's local bindings for the rewrite's scope
    tracking (``up.scope.known``)."""
    facts = up.facts

    from upgrader.fixers.backward_accumulation import Tracker
    from upgrader.fixers.save_load_dygraph import assignment_origins
    backward = Tracker()
    assignments: dict = {}
    quiet = getattr(up, "quiet", None) or {}

    class V(BindingsCollector):
        def __init__(self):
            super().__init__()
            self.depth_fn = 0
            self.depth_guard = 0

        # the same walk collects what PU204/PU207/PU215/PU216 need (one walk, not four)
        def visit_For(self, node):
            backward.enter_loop()

        def leave_For(self, node):
            backward.leave_loop()

        def visit_While(self, node):
            backward.enter_loop()

        def leave_While(self, node):
            backward.leave_loop()

        def visit_If(self, node):
            backward.enter_if()

        def leave_If(self, node):
            backward.leave_if()

        def visit_Assign(self, node):
            assignment_origins(up, node, assignments)

        # a statement nothing of this walk can concern (untouched.py `quiet`): only its
        # assignments count, recorded from the ast pass
        def on_visit(self, node):
            q = quiet.get(id(node))
            if q is not None:
                for name, origin in q:
                    assignments[name] = origin
                return False
            return super().on_visit(node)

        def on_leave(self, original_node):
            if id(original_node) not in quiet:
                super().on_leave(original_node)

        def visit_FunctionDef(self, node):
            self.depth_fn += 1
            return super().visit_FunctionDef(node)

        def leave_FunctionDef(self, node):
            self.depth_fn -= 1
            super().leave_FunctionDef(node)

        def visit_With(self, node):
            from upgrader.fixers.dygraph_guard import is_guard
            if is_guard(up, node):
                facts.has_guard = True
                self.depth_guard += 1

        def leave_With(self, node):
            from upgrader.fixers.dygraph_guard import is_guard
            if is_guard(up, node):
                self.depth_guard -= 1

        def visit_Call(self, node):
            backward.call(node, self.depth_fn > 0)
            dotted = up.resolve_dotted(node.func)
            if dotted_of(node.func) == "paddle.enable_static" or dotted in MODE_SWITCHES:
                facts.manages_mode = True  # the program manages its mode itself
            if dotted_of(node.func) == "paddle.enable_static" or dotted == "paddle.enable_static":
                facts.already_static = True
            if self.depth_guard == 0 and (dotted_of(node.func) == "paddle.enable_static"
                                          or dotted in STATIC_SWITCHES):
                facts.static_outside_guard = True
            e = up.entry_for(dotted)
            if _static(e) and self.depth_guard == 0:
                facts.static_outside_guard = True
                if self.depth_fn == 0:
                    facts.module_level_static = True

        def visit_Attribute(self, node):
            e = up.entry_for(up.resolve_dotted(node))
            if _static(e) and self.depth_guard == 0:
                facts.static_outside_guard = True
                if self.depth_fn == 0:
                    facts.module_level_static = True

    def _static(e) -> bool:
        # only what the rewrite turns into static-mode code counts: an API left for a
        # manual rewrite keeps its legacy import, and counting it would make a second
        # `fix` decide differently once an enclosing guard block is gone
        return e is not None and e.mode == "static" and up.can_apply(e)

    v = V()
    module.visit(v)
    up._assign_cache = assignments
    up._backward_plan = backward.plan(assignments)
    scope = getattr(up, "scope", None)
    if scope is not None and getattr(scope, "known", False) is None and not scope.stack:
        scope.known = v.bindings


def _is_import(stmt) -> bool:
    return isinstance(stmt, cst.SimpleStatementLine) and all(
        isinstance(s, (cst.Import, cst.ImportFrom)) for s in stmt.body)


def _is_docstring(stmt) -> bool:
    return isinstance(stmt, cst.SimpleStatementLine) and len(stmt.body) == 1 and \
        isinstance(stmt.body[0], cst.Expr) and isinstance(stmt.body[0].value, (cst.SimpleString, cst.ConcatenatedString))


def _is_main_guard(stmt) -> bool:
    if not isinstance(stmt, cst.If) or not isinstance(stmt.test, cst.Comparison):
        return False
    code = cst.Module(body=[]).code_for_node(stmt.test).replace('"', "'").replace(" ", "")
    return code in ("__name__=='__main__'", "'__main__'==__name__")


def _runs_code(stmt) -> bool:
    """A top-level statement that runs the program at import time: a bare call
    (``main()``, ``train()``) or a loop / ``with`` block. Assignments (a logger, a
    ``partial``), ``try`` imports and ``if`` switches are what library modules do too."""
    if isinstance(stmt, cst.SimpleStatementLine):
        return any(isinstance(s, cst.Expr) and isinstance(s.value, cst.Call) for s in stmt.body)
    return isinstance(stmt, (cst.For, cst.While, cst.With))


def _walk(node):
    yield node
    for c in node.children:
        yield from _walk(c)


def statement() -> cst.SimpleStatementLine:
    return cst.parse_statement(STATIC_CALL + "\n")  # type: ignore[return-value]


def note_applied(up, entry) -> None:
    """Called for every applied rewrite: static-graph code now in the output, outside a
    guard block, is what makes the module a static program. Deciding on what was applied
    (not on what the source mentions) keeps `fix` idempotent: a legacy API left for a
    manual rewrite counts neither before nor after its guard block is unwrapped."""
    if entry.mode == "static" and up.guard_depth == 0:
        up.facts.applied_static = True
        if not up.scope.stack:
            up.facts.applied_module_level = True


def wanted(up, module: cst.Module) -> bool:
    facts: Facts = up.facts
    if not facts.applied_static or facts.already_static or not up.opts.enabled(CODE):
        return False
    body = list(module.body)
    main_idx = next((i for i, s in enumerate(body) if _is_main_guard(s)), None)
    runs = any(_runs_code(s) for s in body)
    # a library module that only builds graphs gets none
    return facts.applied_module_level or runs or main_idx is not None


def _imports_paddle(stmt) -> bool:
    return isinstance(stmt, cst.SimpleStatementLine) and any(
        isinstance(s, cst.Import) and any(
            (a.asname is None and (dotted_of(a.name) or "").split(".")[0] == "paddle")
            or (a.asname is not None and a.asname.name.value == "paddle") for a in s.names)
        for s in stmt.body)


def insert(up, module: cst.Module) -> cst.Module:
    facts: Facts = up.facts
    body: List[cst.BaseStatement] = list(module.body)
    main_idx = next((i for i, s in enumerate(body) if _is_main_guard(s)), None)
    runs = any(_runs_code(s) for s in body)
    if facts.applied_module_level or runs or main_idx is None:
        idx = 0
        for i, s in enumerate(body):
            if _is_import(s) or (i == 0 and _is_docstring(s)):
                idx = i + 1
            elif isinstance(s, cst.SimpleStatementLine) and _is_future_or_try_import(s):
                idx = i + 1
            else:
                break
        paddle_at = max((i for i, s in enumerate(body) if _imports_paddle(s)), default=-1)
        idx = max(idx, paddle_at + 1)
        body.insert(idx, statement())
        return module.with_changes(body=body)
    main = body[main_idx]
    assert isinstance(main, cst.If)
    block = main.body
    if isinstance(block, cst.IndentedBlock):
        new_block = block.with_changes(body=[statement()] + list(block.body))
    else:
        new_block = cst.IndentedBlock(body=[statement()] + [cst.SimpleStatementLine(body=list(block.body))])
    body[main_idx] = main.with_changes(body=new_block)
    return module.with_changes(body=body)


def _is_future_or_try_import(stmt) -> bool:
    return False


# ---------------------------------------------------------------- run_check
def _own_lines(up):
    """id(call) -> id(line) for the calls evaluated by a simple statement line of one
    statement (``run_check()``, ``r = run_check()``; not inside a lambda)."""
    m = getattr(up, "_run_check_calls", None)
    if m is not None:
        return m
    m = up._run_check_calls = {}

    class Calls(cst.CSTVisitor):
        def __init__(self, line):
            super().__init__()
            self.line = line

        def visit_Call(self, node):
            m[id(node)] = self.line

        def visit_Lambda(self, node):
            return False

    class Lines(cst.CSTVisitor):
        def visit_SimpleStatementLine(self, node):
            if len(node.body) == 1:
                node.body[0].visit(Calls(id(node)))
            return False

    up.module.visit(Lines())
    return m


def static_program(up) -> bool:
    """The module builds static graphs outside dygraph guards, or sets its mode itself."""
    return up.facts.static_outside_guard or up.facts.manages_mode


def rewrite_call(up, original: cst.Call, updated: cst.Call, entry):
    """``fluid.install_check.run_check()``: ``paddle.utils.run_check()``, then, in a static
    program, ``paddle.enable_static()`` (added by ``leave_statement``)."""
    if not up.can_apply(entry, original):
        up.report_entry(original, entry, False)
        return updated
    new = updated.with_changes(func=cst.parse_expression(entry.target))
    if up.guard_depth > 0 or not static_program(up):
        # dynamic mode is what the code around it wants (inside a guard 1.8.5 even raised)
        up.report_entry(original, entry, True)
        return new
    line = _own_lines(up).get(id(original))
    if line is None:
        up.report_entry(original, entry, False, manual=(
            "paddle.utils.run_check() leaves the process in dynamic mode: in this static "
            "program call it in a statement of its own, followed by paddle.enable_static()"))
        return updated
    lines = getattr(up, "_run_check_lines", None)
    if lines is None:
        lines = up._run_check_lines = set()
    lines.add(line)
    up.report(original, entry.code, f"`{entry.short}()` → `{entry.target}()` followed by "
              "`paddle.enable_static()` (today's check ends in dynamic mode; 1.8's left the "
              "static program in static mode)", entry.name, entry.target, "safe", applied=True)
    return new


def leave_statement(up, original, updated):
    """Statement hook: ``paddle.enable_static()`` after a rewritten ``run_check()`` line."""
    lines = getattr(up, "_run_check_lines", None)
    if not lines or id(original) not in lines or not isinstance(updated, cst.SimpleStatementLine):
        return updated
    return cst.FlattenSentinel([updated, statement()])
