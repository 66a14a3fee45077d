"""PU101 while-block: ``fluid.layers.While(cond)`` becomes ``_FluidWhile(cond)``, a class fix
adds to the module: ``with loop.block():`` builds the body of a PIR while op that writes the
program's variables in place, as 1.8's block did.

What it does
    ``loop = fluid.layers.While(cond=c)`` becomes ``loop = _FluidWhile(cond=c)`` (the same
    arguments, 1.8's signature ``(cond, is_test=False, name=None)``); ``with
    loop.block():`` and its body stay as they are, their 1.8 calls rewritten by their own
    rules into today's in-place writers: ``layers.assign(v, output=x)`` →
    ``paddle.assign(v, output=x)``, ``layers.increment(i, in_place=True)`` →
    ``paddle.increment(i)``, ``layers.less_than(i, n, cond=c)`` →
    ``paddle.assign(paddle.less_than(i, n), c)``, ``layers.array_write(v, i, array=a)``
    → ``paddle.tensor.array_write(v, i, array=a)``, ``fill_constant(..., out=x)``,
    ``sums(..., out=x)`` and ``logical_and(..., out=c)`` → ``paddle.assign(<op>, x)``.
    The class, added once after the module's imports, builds the loop on Paddle 3's
    ``paddle.static.nn.control_flow.While``: a while op on ``cond`` whose body writes the
    outer variables in place, so after the loop they hold their last values (a loop that
    runs zero times leaves them as they were). Paddle 3.3.1's executor keeps an in-place
    write made in a nested block only for a variable of the block right around it (a
    write two blocks down is lost, checked), so on leaving the body each variable of an
    outer block that a block inside the loop writes (a nested ``While``, a ``Switch`` case
    or ``layers.cond`` branch, after fix ``paddle.static.nn.case`` / ``cond``) is relayed
    through a copy: copied before the op holding the write, the copy written inside,
    written back after it.

Why is this bad?
    ``fluid.layers.While`` is gone with ``paddle.fluid``. Today's public loop,
    ``paddle.static.nn.while_loop(cond_fn, body_fn, loop_vars)``, takes the loop-carried
    values as explicit loop variables and returns new ones; 1.8's block wrote them in
    place and read ``cond`` back after each step.

Example
    ``loop = fluid.layers.While(cond=cond)`` / ``with loop.block():`` /
    ``fluid.layers.assign(acc * 2.0, acc)`` / ``fluid.layers.increment(i, in_place=True)``
    / ``fluid.layers.less_than(i, n, cond=cond)`` → ``loop = _FluidWhile(cond=cond)`` /
    ``with loop.block():`` / ``paddle.assign(acc * 2.0, acc)`` / ``paddle.increment(i)``
    / ``paddle.assign(paddle.less_than(i, n), cond)``.

Fix safety
    Safe: loop-carried variables read after the loop, tensor arrays written in the loop,
    a condition refreshed through ``less_than(cond=)`` / ``logical_and(out=)``, loops
    nested three deep, a ``Switch`` and a ``layers.cond`` inside the body and a loop
    inside a ``Switch`` case agree with 1.8.5 (the rule's example, program
    static_control_flow, tests/test_compat_control_flow.py). Manual:

    - when the module builds a backward (``minimize``, ``append_backward``,
      ``gradients``, ``calc_gradient``, ``backward``) that may run through the loop: a
      backward call outside the function holding the loop, or one whose arguments are
      derived, by name within that function, from a variable the body writes in place.
      1.8.5 differentiated through tensor arrays written in the loop, but through a
      variable written in place it took none (the variable had stop_gradient) or only
      the last step, with the final values (checked); on Paddle 3.3.1 the backward of
      such a loop differs, or fails to build when a value the body reads without a
      gradient is also read by a differentiable op after the loop (``call_vjp``, checked);
    - when a block inside the loop (a nested ``with ....block()`` / ``.case()`` /
      ``.default()``, a function or lambda) writes a tensor array of a block outside the
      loop's body, or the loop, itself inside such a block, writes an array of a block
      further out: Paddle 3.3.1 cannot copy a tensor array to relay the write
      (``_FluidWhile`` raises NotImplementedError where the check cannot see it, e.g. a
      loop in a function passed to ``layers.cond``);
    - when the module already uses the name ``_FluidWhile`` for something else.

    The check of the backward is by name over the module; like the other rules it
    assumes that a backward of another module does not reach the loop's variables.
"""
from __future__ import annotations

from typing import Iterable, List, Optional, Set

import libcst as cst

from upgrader.args import Manual, bind
from upgrader.names import FastVisitor

CODE = "PU101"
STRUCTURAL = ("while-block",)
NAME = "_FluidWhile"
#: what docs/rules.md and explain show instead of the entry's target
HELPERS = {"while-block": "_FluidWhile (a class fix adds to the module: 1.8's While, a PIR "
                          "while op whose body writes the program's variables in place)"}

SOURCES = {
    NAME: '''class _FluidWhile:
    """Paddle 1.8's fluid.layers.While: ``with loop.block():`` builds the body of a while
    op that runs while ``cond`` (a one-element bool tensor) holds. The body writes
    variables of the program in place (paddle.assign(value, var), paddle.increment(i),
    paddle.tensor.array_write(x, i, array)) and refreshes ``cond`` (paddle.assign(
    paddle.less_than(i, n), cond)); after the loop they hold their last values.

    Paddle 3's PIR executor keeps an in-place write made in a nested block only for a
    variable of the block right around it. So on leaving the body, each variable that a
    block inside the loop (a nested loop, a branch) writes in place and that belongs to a
    block further out is relayed, innermost blocks first: copied before the op holding the
    write, the copy written inside, written back after the op. A tensor array cannot be
    copied: a tensor array of an outer block written two or more blocks down raises
    _FluidWhile.Unsupported (a NotImplementedError)."""

    class Unsupported(NotImplementedError):
        """A body this class cannot build as 1.8 did on today's PIR executor (fix reports
        such bodies manual where it can see them)."""

    def __init__(self, cond, is_test=False, name=None):
        import paddle
        from paddle.static.nn.control_flow import While
        if paddle.in_dynamic_mode():
            raise TypeError("fluid.layers.While builds a static program; in dynamic mode "
                            "use a Python while loop")
        self.cond_var = cond
        self._while = While(cond, is_test=is_test, name=name)
        self._guard = None

    def block(self):
        return self

    def __enter__(self):
        self._guard = self._while.block()
        return self._guard.__enter__()

    def __exit__(self, exc_type, exc_val, exc_tb):
        from paddle.base.libpaddle import pir
        out = self._guard.__exit__(exc_type, exc_val, exc_tb)
        if exc_type is None:
            _FluidWhile.relay(pir.get_current_insertion_point().block().ops[-1])
        return out

    @staticmethod
    def relay(op):
        """Relay the in-place writes that the blocks of ``op`` make (at any depth) to
        variables defined outside the block holding ``op`` and the blocks inside it."""
        import paddle
        from paddle.base.libpaddle import pir

        def walk(o):
            for blk in o.blocks():
                for inner in blk.ops:
                    yield inner
                    yield from walk(inner)

        for blk in op.blocks():
            for inner in list(blk.ops):
                if inner.num_regions():
                    _FluidWhile.relay(inner)
        here = op.get_parent_block()
        near = [here] + [blk for o in [op] + list(walk(op)) for blk in o.blocks()]

        def is_near(v):
            d = v.get_defining_op()
            return d is None or any(d.get_parent_block() == b for b in near)

        written = []
        for inner in walk(op):
            n = inner.name()
            if not n.endswith("_") or n.startswith(("cf.", "builtin.")) or n == "pd_op.share_data_":
                continue
            for v in inner.operands_source():
                if not is_near(v) and not any(v.is_same(w) for w in written):
                    written.append(v)
        try:
            for v in written:
                pir.set_insertion_point(op)
                copy = paddle.assign(v)
                for inner in walk(op):
                    for i in range(inner.num_operands()):
                        if inner.operand_source(i).is_same(v):
                            inner.operand(i).set_source(copy)
                pir.set_insertion_point_after(op)
                paddle.assign(copy, v)
        except Exception as exc:
            raise _FluidWhile.Unsupported(
                "a loop or branch inside fluid.layers.While writes a variable of a block two "
                "or more blocks up that cannot be relayed through a copy (%s: %s); write the "
                "loop with paddle.static.nn.while_loop and explicit loop variables"
                % (type(exc).__name__, exc))
        finally:
            pir.set_insertion_point_to_block_end(here)
''',
}

#: calls that build a backward (their last name)
_BACKWARD = frozenset({"append_backward", "gradients", "minimize", "calc_gradient", "backward"})
#: methods whose ``with <obj>.<method>(...):`` opens a block of a 1.8 static control-flow op
_BLOCK_METHODS = frozenset({"block", "case", "default", "true_block", "false_block"})
#: 1.8 parameters through which a call writes a variable passed to it
_WRITTEN = ("out", "output", "cond", "array")
#: methods that store their arguments in the object they are called on
_MUTATORS = frozenset({"append", "extend", "insert", "update", "add", "setdefault"})
_ARRAY_WRITE = ("paddle.fluid.layers.array_write", "paddle.fluid.layers.control_flow.array_write")
_INCREMENT = ("paddle.fluid.layers.increment", "paddle.fluid.layers.control_flow.increment")
#: today's writers (a module fixed before): the position and keyword of the written argument
_TODAY = {"paddle.assign": (1, "output"), "paddle.increment": (0, "x"),
          "paddle.tensor.array_write": (2, "array"), "paddle.tensor.array.array_write": (2, "array"),
          "paddle.array_write": (2, "array")}


def rewrite_call(up, original: cst.Call, updated: cst.Call, entry):
    from upgrader.fixers import call_added_function
    why = _why_manual(up, original)
    if why:
        up.report_entry(original, entry, False, manual=why + "; " + _MIGRATE)
        return updated
    return call_added_function(up, original, updated, entry, NAME, SOURCES[NAME],
                               "a class fix adds to the module: 1.8's While, a PIR while op "
                               "whose body writes the program's variables in place")


_MIGRATE = ("write the loop with paddle.static.nn.while_loop(cond_fn, body_fn, loop_vars), "
            "the variables the body writes as loop_vars")


def finish_module(up, module: cst.Module) -> cst.Module:
    """Add the class the rewrites call after the module's docstring and imports."""
    from upgrader.fixers import add_used_helpers
    return add_used_helpers(up, module, SOURCES)


# ----------------------------------------------------------------------------- the check
def _why_manual(up, call: cst.Call) -> Optional[str]:
    scope = next((st for st, _ in reversed(up.stmt_stack) if isinstance(st, cst.FunctionDef)), None)
    scope_body = scope.body if scope is not None else up.module
    bodies = _bodies(up, call, scope_body)
    for body in bodies or ():
        why = _nested_array_write(up, body)
        if why:
            return why
    if bodies:
        why = _array_two_blocks_down(up, bodies)
        if why:
            return why
    return _backward_through(up, scope, scope_body, bodies)


def _bodies(up, call: cst.Call, scope_body) -> Optional[List[cst.BaseSuite]]:
    """The bodies of the loop: of ``with While(...).block():``, or of the ``with
    <name>.block():`` statements of the function holding ``<name> = While(...)``; None
    when the loop's object is used otherwise."""
    stmt = up.stmt_stack[-1][0] if up.stmt_stack else None
    if isinstance(stmt, cst.With):
        for item in stmt.items:
            c = item.item
            if isinstance(c, cst.Call) and isinstance(c.func, cst.Attribute) and \
                    c.func.value is call and c.func.attr.value == "block" and not c.args:
                return [stmt.body]
        return None
    if not (isinstance(stmt, cst.SimpleStatementLine) and len(stmt.body) == 1
            and isinstance(stmt.body[0], cst.Assign) and stmt.body[0].value is call
            and len(stmt.body[0].targets) == 1
            and isinstance(stmt.body[0].targets[0].target, cst.Name)):
        return None
    name = stmt.body[0].targets[0].target.value
    found = _WithBlocks(name)
    scope_body.visit(found)
    if not found.bodies or found.other_uses:
        return None
    return found.bodies


class _WithBlocks(FastVisitor):
    """``with <name>.block():`` statements of one function (not of functions inside it),
    and whether ``name`` is used otherwise there."""

    def __init__(self, name: str):
        super().__init__()
        self.name = name
        self.bodies: List[cst.BaseSuite] = []
        self.other_uses = 0
        self._items: Set[int] = set()

    def visit_FunctionDef(self, node):
        return False

    def visit_ClassDef(self, node):
        return False

    def visit_With(self, node):
        for item in node.items:
            c = item.item
            if isinstance(c, cst.Call) and not c.args and isinstance(c.func, cst.Attribute) \
                    and c.func.attr.value == "block" and isinstance(c.func.value, cst.Name) \
                    and c.func.value.value == self.name:
                self.bodies.append(node.body)
                self._items.add(id(c.func.value))

    def visit_Name(self, node):
        if node.value == self.name and id(node) not in self._items:
            self.other_uses += 1

    def visit_Attribute(self, node):
        node.value.visit(self)  # the attribute's own name is not a use
        return False

    def visit_Assign(self, node):
        for t in node.targets:  # the binding itself
            if not (isinstance(t.target, cst.Name) and t.target.value == self.name):
                t.target.visit(self)
        node.value.visit(self)
        return False


def _is_block_with(node) -> bool:
    return isinstance(node, cst.With) and any(
        isinstance(i.item, cst.Call) and isinstance(i.item.func, cst.Attribute)
        and i.item.func.attr.value in _BLOCK_METHODS for i in node.items)


def _bound_names(node) -> Set[str]:
    """Names a block binds (assignments, loop and with targets, functions)."""
    out: Set[str] = set()

    class V(FastVisitor):
        def visit_AssignTarget(self, n):
            _target_names(n.target, out)

        def visit_AugAssign(self, n):
            _target_names(n.target, out)

        def visit_AnnAssign(self, n):
            _target_names(n.target, out)

        def visit_For(self, n):
            _target_names(n.target, out)

        def visit_AsName(self, n):
            _target_names(n.name, out)

        def visit_NamedExpr(self, n):
            _target_names(n.target, out)

        def visit_FunctionDef(self, n):
            out.add(n.name.value)
            return False

    node.visit(V())
    return out


def _target_names(t, out: Set[str]) -> None:
    if isinstance(t, cst.Name):
        out.add(t.value)
    elif isinstance(t, (cst.Tuple, cst.List)):
        for e in t.elements:
            _target_names(e.value, out)
    elif isinstance(t, cst.StarredElement):
        _target_names(t.value, out)


def _array_writes(up, node) -> Iterable[cst.BaseExpression]:
    """The ``array`` argument of each ``layers.array_write`` call in ``node``."""
    found: List[cst.BaseExpression] = []

    class V(FastVisitor):
        def visit_Call(self, c):
            dotted = up.resolve_dotted(c.func)
            if dotted in _ARRAY_WRITE:
                entry = up.entry_for(_ARRAY_WRITE[0])
                bound = bind(entry, c) if entry is not None else None
                if isinstance(bound, Manual) or bound is None:
                    found.append(c)
                elif "array" in bound.values:
                    found.append(bound.values["array"].value)
            elif dotted in _TODAY and _TODAY[dotted][1] == "array":
                arg = _today_arg(c, *_TODAY[dotted])
                if arg is not None:
                    found.append(arg)

    node.visit(V())
    return found


def _nested_array_write(up, body) -> Optional[str]:
    """A block inside the loop's body writing a tensor array the body does not bind."""
    local = _bound_names(body)
    blocks: List[cst.CSTNode] = []

    class V(FastVisitor):
        def visit_With(self, n):
            if _is_block_with(n):
                blocks.append(n.body)
                return False

        def visit_FunctionDef(self, n):
            blocks.append(n.body)
            return False

        def visit_Lambda(self, n):
            blocks.append(n.body)
            return False

    body.visit(V())
    for block in blocks:
        for arr in _array_writes(up, block):
            if not (isinstance(arr, cst.Name) and arr.value in local):
                return (f"a block inside the loop writes the tensor array "
                        f"`{_code(arr)}` of a block outside the loop's body: Paddle 3.3.1 keeps "
                        "an in-place write only one block down and cannot copy a tensor array "
                        "to relay it")
    return None


def _array_two_blocks_down(up, bodies) -> Optional[str]:
    """The loop, inside a block of another 1.8 control-flow op, writing a tensor array the
    innermost such block does not bind."""
    outer = next((st for st, _ in reversed(up.stmt_stack[:-1]) if _is_block_with(st)), None)
    if outer is None:
        return None
    local = _bound_names(outer.body)
    for body in bodies:
        for arr in _array_writes(up, body):
            if not (isinstance(arr, cst.Name) and arr.value in local):
                return (f"the loop, inside a block of another control-flow op, writes the "
                        f"tensor array `{_code(arr)}` of a block further out: Paddle 3.3.1 "
                        "keeps an in-place write only one block down and cannot copy a tensor "
                        "array to relay it")
    return None


def _code(node) -> str:
    return cst.Module(body=[]).code_for_node(node)


# ----------------------------------------------------------------------------- backward
def _backward_calls(node, inside_only: bool) -> List[cst.Call]:
    calls: List[cst.Call] = []

    class V(FastVisitor):
        def visit_FunctionDef(self, n):
            return not inside_only

        def visit_ClassDef(self, n):
            return not inside_only

        def visit_Call(self, c):
            f = c.func
            last = f.attr.value if isinstance(f, cst.Attribute) else \
                f.value if isinstance(f, cst.Name) else None
            if last in _BACKWARD:
                calls.append(c)

    node.visit(V())
    return calls


def _backward_through(up, scope, scope_body, bodies) -> Optional[str]:
    if not any(k in up.source for k in _BACKWARD):
        return None
    every = _backward_calls(up.module, inside_only=False)
    if not every:
        return None
    here = _backward_calls(scope.body if scope is not None else up.module, inside_only=True)
    if len(here) < len(every):
        other = next(c for c in every if all(c is not h for h in here))
        return (f"the module builds a backward (`{_code(other.func)}(...)`) outside the "
                "function holding the loop, which may run through it: " + _GRADIENTS)
    if bodies is None:
        return ("the module builds a backward and the loop's body is not a `with "
                "<name>.block():` of the function holding it, so whether the backward runs "
                "through the loop is not checked: " + _GRADIENTS)
    tainted: Set[str] = set()
    for body in bodies:
        tainted |= _written(up, body)
    flows = _Flows()
    scope_body.visit(flows)
    changed = True
    while changed:
        changed = False
        for targets, sources in flows.flows:
            if sources & tainted and not targets <= tainted:
                tainted |= targets
                changed = True
    for c in here:
        used = _names(c.args)
        if isinstance(c.func, cst.Attribute) and c.func.attr.value == "backward":
            used |= _names(c.func.value)
        hit = sorted(used & tainted)
        if hit:
            return (f"the backward `{_code(c.func)}(...)` is built from `{hit[0]}`, which "
                    "the loop writes or which is derived from a variable it writes: "
                    + _GRADIENTS)
    return None


_GRADIENTS = ("1.8.5 differentiated through tensor arrays written in the loop, but through a "
              "variable written in place it took none (stop_gradient) or only the last step "
              "with the final values, and Paddle 3.3.1's backward of such a loop differs or "
              "fails to build (checked)")


def _written(up, body) -> Set[str]:
    """Names the loop's body writes through: the ``out`` / ``output`` / ``cond`` /
    ``array`` argument of a 1.8 call, ``increment``'s ``x`` (in place), the variables
    passed to a call that is not a paddle API (a function of the user's may write them)
    and the object a method is called on, and the base of an attribute or item
    assigned."""
    out: Set[str] = set()

    class V(FastVisitor):
        def visit_Call(self, c):
            dotted = up.resolve_dotted(c.func) or ""
            entry = up.entry_for(dotted) if dotted.startswith("paddle.fluid") else None
            if entry is not None:
                bound = bind(entry, c)
                if isinstance(bound, Manual):
                    for a in c.args:
                        out.update(_passed(a.value))
                    return
                for p in _WRITTEN:
                    if p in bound.values:
                        out.update(_passed(bound.values[p].value))
                if entry.name in _INCREMENT and "x" in bound.values:
                    flag = bound.values.get("in_place")
                    if flag is None or _code(flag.value) != "False":
                        out.update(_passed(bound.values["x"].value))
            elif dotted in _TODAY or (dotted.startswith("paddle.") and dotted.endswith("_")):
                arg = _today_arg(c, *_TODAY.get(dotted, (0, "x")))
                if arg is not None:
                    out.update(_passed(arg))
            elif not dotted.startswith(("paddle.", "numpy.")) and not (
                    isinstance(c.func, cst.Name) and c.func.value in _PURE):
                for a in c.args:
                    out.update(_passed(a.value))
                if isinstance(c.func, cst.Attribute):
                    out.update(_passed(c.func.value))

        def visit_AssignTarget(self, n):
            if isinstance(n.target, (cst.Attribute, cst.Subscript)):
                out.update(_passed(n.target))

    body.visit(V())
    return out


def _today_arg(call: cst.Call, index: int, keyword: str) -> Optional[cst.BaseExpression]:
    """The argument of a call of today's API at ``index`` or given as ``keyword``."""
    for a in call.args:
        if a.keyword is not None and a.keyword.value == keyword:
            return a.value
    plain = [a for a in call.args if a.keyword is None and not a.star]
    return plain[index].value if index < len(plain) else None


def _passed(node) -> Set[str]:
    """The variables a call can write when given ``node``: a name, the base of an attribute
    or item, the elements of a literal list, tuple or dict; none for a new value."""
    if isinstance(node, cst.Name):
        return {node.value}
    if isinstance(node, (cst.Attribute, cst.Subscript)):
        return _passed(node.value)
    if isinstance(node, (cst.List, cst.Tuple, cst.Set)):
        return set().union(*[_passed(e.value) for e in node.elements]) if node.elements else set()
    if isinstance(node, cst.Dict):
        return set().union(*[_passed(e.value) for e in node.elements
                             if isinstance(e, cst.DictElement)] or [set()])
    return set()


#: builtins that do not write their arguments
_PURE = frozenset({"len", "range", "int", "float", "str", "bool", "list", "tuple", "dict",
                   "print", "isinstance", "enumerate", "zip", "min", "max", "abs", "sum",
                   "getattr", "hasattr", "type", "repr", "format", "sorted", "reversed"})


def _names(node) -> Set[str]:
    """The variable names an expression (or a sequence of args) reads."""
    out: Set[str] = set()

    class V(FastVisitor):
        def visit_Name(self, n):
            out.add(n.value)

        def visit_Attribute(self, n):
            n.value.visit(self)
            return False

        def visit_Arg(self, n):
            n.value.visit(self)
            return False

    if isinstance(node, (list, tuple)):
        for n in node:
            n.visit(V())
    else:
        node.visit(V())
    return out


class _Flows(FastVisitor):
    """(names bound, names read) of each binding of a function's body, functions inside it
    included as a whole (the function's name reads every name of its body)."""

    def __init__(self):
        super().__init__()
        self.flows = []

    def visit_FunctionDef(self, n):
        self.flows.append(({n.name.value}, _names(n.body)))
        return False

    def visit_ClassDef(self, n):
        return False

    def visit_Assign(self, n):
        targets: Set[str] = set()
        for t in n.targets:
            targets |= _names(t.target)
        self.flows.append((targets, _names(n.value)))

    def visit_AugAssign(self, n):
        targets = _names(n.target)
        self.flows.append((targets, _names(n.value) | targets))

    def visit_AnnAssign(self, n):
        if n.value is not None:
            self.flows.append((_names(n.target), _names(n.value)))

    def visit_For(self, n):
        self.flows.append((_names(n.target), _names(n.iter)))

    def visit_WithItem(self, n):
        if n.asname is not None:
            self.flows.append((_names(n.asname.name), _names(n.item)))

    def visit_NamedExpr(self, n):
        self.flows.append((_names(n.target), _names(n.value)))

    def visit_Call(self, c):
        if isinstance(c.func, cst.Attribute) and c.func.attr.value in _MUTATORS:
            self.flows.append((_names(c.func.value), _names(c.args)))
