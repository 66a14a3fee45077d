"""Moving an expression out of a call into a fresh name assigned just before its statement,
for rewrites that read an argument more than once (``elementwise_*(axis)``'s operands,
``load_dygraph``'s path).

Only where that keeps Python's order of evaluation: the call sits in a plain expression,
assignment or return statement of its own line, outside lambdas, comprehensions,
conditional expressions and ``and``/``or``, not in a class body, and everything the
statement evaluates before it is a name, attribute or literal (so no layer is built, and
no parameter created, in a different order). A value that is only arithmetic on names,
attributes and numbers (``1.0 - mask``: graph operators, no parameter, no layer name;
also ``math`` functions and numeric builtins of such values, ``1.0 / math.sqrt(fan_in)``)
may also move before other calls of the statement, when those are legacy layer calls
or operators that write none of their inputs (not ``increment``, ``assign``,
``array_write`` or a call given ``out=`` / ``output=``): only the order of operators
without side effects changes.
"""
from __future__ import annotations

import re
from typing import Optional

import libcst as cst


def leave_statement(up, original, updated):
    """The values moved out of a statement, assigned just before it (a statement hook,
    registered by the fixers that hoist)."""
    pending = up.__dict__.get("_hoists")
    if not pending or id(original) not in pending:
        return updated
    return assign_before(up, pending.pop(id(original)), updated)


def assign_before(up, pairs, updated):
    """``name = value`` statements for ``pairs``, placed just before ``updated`` (a
    statement, or what it became): the statement's comments and blank lines stay above
    them, its follow-up notes go on the statement itself (engine: ids in ``up.hoisted``)."""
    assigns = [cst.SimpleStatementLine(body=[cst.Assign(
        targets=[cst.AssignTarget(cst.Name(name))], value=value)]) for name, value in pairs]
    nodes = list(updated.nodes) if isinstance(updated, cst.FlattenSentinel) else [updated]
    if hasattr(nodes[0], "leading_lines"):
        assigns[0] = assigns[0].with_changes(leading_lines=nodes[0].leading_lines)
        nodes[0] = nodes[0].with_changes(leading_lines=())
    up.__dict__.setdefault("hoisted", set()).update(id(a) for a in assigns)
    return cst.FlattenSentinel(assigns + nodes)


def fresh_name(up, base: str, first: Optional[str] = None) -> str:
    """``first`` (if given), then ``base``, ``base_2``, ...: a name the module does not
    spell anywhere and no other rewrite of this run has taken."""
    taken = up.__dict__.get("_fresh_names")
    if taken is None:
        taken = up._fresh_names = set(re.findall(r"[A-Za-z_][A-Za-z0-9_]*", up.source))
    for cand in ([first] if first else []) + [base] + [f"{base}_{i}" for i in range(2, 1000)]:
        if cand not in taken:
            taken.add(cand)
            return cand
    raise RuntimeError("no free name")  # pragma: no cover


def add(up, stmt, pairs) -> None:
    """Assign each ``(name, value)`` just before ``stmt`` (from :func:`statement_for`)."""
    up.__dict__.setdefault("_hoists", {}).setdefault(id(stmt), []).extend(pairs)


def hoist(up, call: cst.Call, value: cst.BaseExpression, base: str):
    """Move ``value`` (an argument of ``call``, already rewritten) to a fresh name assigned
    just before the statement holding ``call``: (the name, None), or (None, why not)."""
    stmt = statement_for(up, call)
    if isinstance(stmt, str):
        return None, stmt
    name = fresh_name(up, base)
    add(up, stmt, [(name, value)])
    return name, None


_STATEMENTS = (cst.Expr, cst.Assign, cst.AnnAssign, cst.Return)


def statement_for(up, call: cst.Call, values=(), strict: bool = False):
    """The statement (original node) before which the arguments of ``call`` can be
    assigned without changing what is evaluated first, or why not (a short reason).
    ``values``: the arguments to move; arithmetic ones may pass other legacy calls
    (the module docstring), or with ``strict`` only expressions that call nothing."""
    if not up.stmt_stack:
        return "it is not in a statement"
    line = up.stmt_stack[-1][0]
    if not isinstance(line, cst.SimpleStatementLine) or len(line.body) != 1:
        return "its statement shares a line with another or is a compound statement"
    for node, _ in reversed(up.stmt_stack[:-1]):
        if isinstance(node, cst.ClassDef):
            return "in a class body the name would become a class attribute"
        if isinstance(node, cst.FunctionDef):
            break
    small = line.body[0]
    if not isinstance(small, _STATEMENTS) or getattr(small, "value", None) is None:
        return f"it is in a {type(small).__name__} statement"
    found = _before([small.value], call)  # an assignment's targets come after its value
    if found is None:
        return "it is evaluated conditionally or in another scope (lambda, comprehension, `if` expression, `and`/`or`, comparison)"
    if not found and values and all(_arithmetic(v, up) for v in values):
        earlier = _evaluated_before([small.value], call)
        if earlier is not None and all(
                _calls_nothing(n) if strict else _writes_nothing(up, n) for n in earlier):
            return line
        if earlier is not None:
            return ("the statement first calls a function that is not a legacy layer or may "
                    "write into its input")
    return line if found else "the statement evaluates a call or an operation before it"


#: legacy functions that write into a variable they are given (1.x in-place outputs)
_WRITERS = frozenset({"increment", "assign", "array_write"})


#: functions of numbers that build nothing (``1.0 / math.sqrt(float(fan_in))``)
_NUMERIC_MATH = frozenset("math." + n for n in (
    "sqrt", "log", "log2", "log10", "exp", "pow", "floor", "ceil", "fabs"))
_NUMERIC_BUILTINS = frozenset(("float", "int", "abs", "round", "min", "max"))


def _arithmetic(node, up=None) -> bool:
    """Operators on names, attribute chains and numbers only: builds no layer. With
    ``up``, also calls of ``math`` functions and of the numeric builtins (not rebound in
    the module) on such values."""
    if isinstance(node, (cst.BinaryOperation,)):
        return _arithmetic(node.left, up) and _arithmetic(node.right, up)
    if isinstance(node, cst.UnaryOperation):
        return _arithmetic(node.expression, up)
    if up is not None and isinstance(node, cst.Call) and node.args and all(
            a.keyword is None and not a.star and _arithmetic(a.value, up) for a in node.args):
        return _numeric_function(up, node.func)
    return isinstance(node, (cst.Integer, cst.Float)) or _pure(node) and not isinstance(
        node, cst.SimpleString)


def _numeric_function(up, func) -> bool:
    """``func`` is a numeric builtin nothing in the module rebinds, or a ``math``
    function of ``import math`` (the module's only binding of ``math``)."""
    from upgrader.names import dotted_of, module_binding_counts
    counts = up.__dict__.get("_module_binding_counts")
    if counts is None:
        counts = up._module_binding_counts = module_binding_counts(up.module)
    if isinstance(func, cst.Name) and func.value in _NUMERIC_BUILTINS:
        return func.value not in counts and not up.scope.shadowed(func.value)
    return dotted_of(func) in _NUMERIC_MATH and counts.get("math") == 1 and \
        not up.scope.shadowed("math") and re.search(
            r"^[ \t]*import[ \t]+(?:[\w.]+[ \t]*,[ \t]*)*math\b(?![ \t]+as)", up.source, re.M) \
        is not None


def _evaluated_before(nodes, call) -> Optional[list]:
    """The sub-expressions evaluated completely before ``call`` (in ``nodes``, in
    evaluation order), or None when ``call`` is not reached on a plain evaluation path."""
    done = []
    for node in nodes:
        if node is call:
            return done
        if _contains(node, call):
            parts = _parts(node)
            if parts is None:
                return None
            rest = _evaluated_before(parts, call)
            return None if rest is None else done + rest
        done.append(node)
    return None


def _calls(node) -> Optional[list]:
    """The calls under ``node``, or None when it holds a lambda or comprehension (code
    that runs elsewhere)."""
    calls, stack = [], [node]
    while stack:
        n = stack.pop()
        if isinstance(n, (cst.Lambda, cst.ListComp, cst.SetComp, cst.DictComp, cst.GeneratorExp)):
            return None
        if isinstance(n, cst.Call):
            calls.append(n)
        stack.extend(n.children)
    return calls


def _calls_nothing(node) -> bool:
    """``node`` builds no layer and runs no function: names, literals, operators, displays."""
    return _calls(node) == []


def _writes_nothing(up, node) -> bool:
    """Every call under ``node`` is a legacy ``paddle.fluid`` call that writes none of
    its inputs; operators and names are fine."""
    calls = _calls(node)
    if calls is None:
        return False
    for n in calls:
        dotted = up.resolve_dotted(n.func) or ""
        if not dotted.startswith("paddle.fluid.") or dotted.rsplit(".", 1)[-1] in _WRITERS:
            return False
        if any(a.keyword is not None and a.keyword.value in ("out", "output") for a in n.args):
            return False
    return True


def _before(nodes, call) -> Optional[bool]:
    """Walk ``nodes`` in evaluation order up to ``call``: True when only names, attributes
    and literals were evaluated before it, False when something else was, None when the
    call is not reached on a plain evaluation path."""
    for node in nodes:
        if node is call:
            return True
        if _contains(node, call):
            parts = _parts(node)
            if parts is None:
                return None
            return _before(parts, call)
        if not _pure(node):
            return False
    return None


def _parts(node) -> Optional[list]:
    """The sub-expressions of ``node`` in the order Python evaluates them, or None for a
    node that evaluates its parts conditionally or in another scope."""
    if isinstance(node, cst.Call):
        return [node.func] + [a.value for a in node.args]
    if isinstance(node, cst.Attribute):
        return [node.value]
    if isinstance(node, cst.Subscript):
        return [node.value] + [e.slice.value for e in node.slice
                               if isinstance(e.slice, cst.Index)]
    if isinstance(node, cst.BinaryOperation):
        return [node.left, node.right]
    if isinstance(node, cst.UnaryOperation):
        return [node.expression]
    if isinstance(node, (cst.Tuple, cst.List)):
        return [e.value for e in node.elements]
    return None


def _pure(node) -> bool:
    """Evaluating it builds nothing: a name, an attribute chain of one, a literal."""
    if isinstance(node, (cst.Name, cst.Integer, cst.Float, cst.SimpleString)):
        return True
    if isinstance(node, cst.Attribute):
        return _pure(node.value)
    return False


def _contains(node, target) -> bool:
    if node is target:
        return True
    return any(_contains(c, target) for c in node.children)


def repeated_argument(up, original: cst.Call, updated: cst.Call, entry, target, manual):
    """A rule whose rewrite reads a legacy argument twice (``conv2d``'s ``input`` builds the
    layer from ``input.shape[1]`` and is its input): an argument that is not a name is
    assigned to a fresh name just before the statement (``<layer>_<param>``) and the call
    mapped again with that name. Only where the order of evaluation stays Python's
    (``statement_for``, and every argument written before it is a name, attribute or
    literal, or, for a value of numbers, operators and ``math`` functions, an expression
    that calls nothing); else the call stays manual with the reason why."""
    from upgrader.args import Manual, bind, code_of, map_call
    bound = bind(entry, updated)
    arg = None if isinstance(bound, Manual) else bound.values.get(manual.repeated)
    if arg is None or arg.star:
        return manual
    stmt = statement_for(up, original, [arg.value], strict=True)
    if isinstance(stmt, str):
        return Manual(f"{manual.reason} (it cannot be moved before the statement here: {stmt})")
    for a in updated.args:
        if a is arg:
            break
        if not _pure(a.value) and not (_arithmetic(arg.value, up) and _calls_nothing(a.value)):
            return Manual(f"{manual.reason} (an argument written before it, "
                          f"`{code_of(a.value)}`, would then be evaluated after it)")
    short = entry.name.rsplit(".", 1)[-1].lower()
    name = fresh_name(up, f"{short}_{manual.repeated}")
    replaced = updated.with_changes(args=[
        a.with_changes(value=cst.Name(name)) if a is arg else a for a in updated.args])
    mapped = map_call(entry, replaced, target)
    if isinstance(mapped, Manual):
        return mapped
    add(up, stmt, [(name, arg.value)])
    return mapped
