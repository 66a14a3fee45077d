"""PU101 while-loop: ``fluid.layers.while_loop`` is unsafe where its loop variables are read later.

What it does
    Rewrites ``fluid.layers.while_loop(cond, body, loop_vars)`` to
    ``paddle.static.nn.while_loop(cond, body, loop_vars)`` as its rule says, and decides
    the fix safety per call: safe when no loop variable can be read after the call other
    than through the names the call's result is assigned to, unsafe (``--unsafe-fixes``)
    otherwise. In a module that builds a backward (``append_backward``, ``gradients``,
    ``minimize``), a loop variable that is a name read before the call too starts from a
    copy: ``[i, h]`` → ``[i, paddle.assign(h)]``.

Why is this bad?
    In a static program 1.8's ``while_loop`` wrote the loop's results into the loop
    variables themselves (its block assigned every output to its input variable) and
    returned ``loop_vars``: after ``i_out, h_out = while_loop(c, b, [i, h])`` the
    variables ``i`` and ``h`` held the final values too (checked on 1.8.5: a fetch of
    ``h``, or an op built from ``h`` after the loop, saw the result). Today's
    ``paddle.static.nn.while_loop`` returns new values and leaves the loop variables as
    they were. In dygraph 1.8.5 returned new values too. On Paddle 3.3.1 a loop variable
    that another op also reads for its gradient (``h * h``, then ``while_loop(.., [i, h])``
    and a backward) makes the static program fail at run time ("Tensor holds no memory");
    from a copy the values and gradients are the loop's (checked against 1.8.5).

Example
    ``i, h = fluid.layers.while_loop(c, b, [i, h])`` → ``i, h =
    paddle.static.nn.while_loop(c, b, [i, h])`` is applied by a plain ``fix`` (the names
    are rebound to the results); ``_, h_out = fluid.layers.while_loop(c, b, [i, h])``
    followed by a use of ``h`` is reported unsafe, naming ``h``.

Fix safety
    In a ``dygraph.guard()`` block or a module with dygraph code only: 1.8.5 returned the body's results there and left the
    tensors passed in unchanged, while 3.3.1's dygraph ``while_loop`` assigns each step's
    results into them (checked on 1.8.5 and 3.3.1); a loop variable read after the call
    (not rebound by its assignment) and an attribute or subscript element are passed as
    ``paddle.assign(x)`` copies, and a ``loop_vars`` that is not a literal list is unsafe;
    so is every call in a module with a backward (3.3.1's in-place writes break the
    backward of body ops that saved a loop variable: a Python loop is the migration).
    Elsewhere safe when every element of a literal
    ``loop_vars`` list/tuple is a name the assignment of the call's result rebinds, a
    name not read after the call statement (nor elsewhere in a Python loop around it), or
    an expression that makes a new value (a call, a literal). Unsafe otherwise: a name
    read later, an attribute or subscript element, a ``loop_vars`` that is not a literal.
    The check is by name over the rest of the file (a later function reusing the name
    makes it unsafe too). A persistable loop variable (a counter kept across runs) also
    kept the final value across ``exe.run`` calls in 1.8, even when rebound: write it
    back with ``paddle.assign(result, var)`` (the entry's note).
"""
from __future__ import annotations

import ast
import copy
from typing import Dict, List, Optional, Tuple

import libcst as cst

from upgrader import untouched
from upgrader.args import Manual, bind
from upgrader.fixers import static_dropout

CODE = "PU101"
STRUCTURAL = ("while-loop",)

_FRESH = (cst.Call, cst.Integer, cst.Float, cst.SimpleString, cst.BinaryOperation, cst.UnaryOperation)


def rewrite_call(up, original: cst.Call, updated: cst.Call, entry):
    if up.guard_depth or static_dropout.dygraph_only(up):
        return _dygraph_call(up, original, updated, entry)
    why = _why_unsafe(up, original, entry)
    if why:
        entry = copy.copy(entry)
        entry.safety, entry.note = "unsafe", why
    new = up.apply_entry(original, updated, entry)
    if isinstance(new, cst.Call) and new is not updated and _builds_backward(up):
        new = _copy_shared(up, new)
    return new


_BACKWARD = ("append_backward", "gradients", "minimize", "calc_gradient", "backward(")


def _builds_backward(up) -> bool:
    return any(k in up.source for k in _BACKWARD)


def _copy_shared(up, call: cst.Call) -> cst.Call:
    """Loop variables that are plain names read before the call statement too start from
    ``paddle.assign(name)``: on Paddle 3.3.1 a loop variable that another op also reads
    for its gradient makes the program fail at run time ("Tensor holds no memory")."""
    stmt = up.stmt_stack[-1][0] if up.stmt_stack else None
    if not isinstance(stmt, cst.SimpleStatementLine):
        return call
    line = up.pos(stmt)[0]
    loads, _ = _survey(up)
    args = list(call.args)
    for k, arg in enumerate(args):
        if (arg.keyword is None and k == 2) or (arg.keyword is not None and arg.keyword.value == "loop_vars"):
            if isinstance(arg.value, (cst.List, cst.Tuple)):
                args[k] = arg.with_changes(value=_wrap_elements(arg.value, loads, line))
            break
    return call.with_changes(args=args)


def _wrap_elements(node, loads, line):
    elements = []
    for el in node.elements:
        v = el.value
        if isinstance(v, (cst.List, cst.Tuple)):
            v = _wrap_elements(v, loads, line)
        elif isinstance(v, cst.Name) and any(l < line for l in loads.get(v.value, ())):
            v = cst.parse_expression(f"paddle.assign({v.value})")
        elements.append(el.with_changes(value=v))
    return node.with_changes(elements=elements)


def _why_unsafe(up, original: cst.Call, entry) -> Optional[str]:
    bound = bind(entry, original)
    if isinstance(bound, Manual) or "loop_vars" not in bound.values:
        return None  # reported by the argument mapping
    loop_vars = bound.values["loop_vars"].value
    if not isinstance(loop_vars, (cst.List, cst.Tuple)):
        return ("1.8 wrote the loop's results into the loop variables passed in and returned "
                "that same list; loop_vars is not a literal list here, so a later read of "
                "those variables (they keep their values today) cannot be ruled out: read "
                "the returned values")
    names: List[str] = []
    for el in _elements(loop_vars):
        if isinstance(el, cst.Name):
            names.append(el.value)
        elif not isinstance(el, _FRESH):
            return ("1.8 wrote the loop's results into the loop variables passed in; the "
                    f"element `{cst.Module(body=[]).code_for_node(el)}` is not a plain name, "
                    "so a later read of it (the value from before the loop today) cannot be "
                    "ruled out: read the returned values")
    if not names:
        return None
    stmt = up.stmt_stack[-1][0] if up.stmt_stack else None
    if not isinstance(stmt, cst.SimpleStatementLine):
        return ("1.8 wrote the loop's results into the loop variables passed in "
                f"({', '.join(names)}); whether they are read after the loop is not checked "
                "here: read the returned values")
    rebound = set()
    for small in stmt.body:
        if isinstance(small, cst.Assign) and small.value is original:
            for t in small.targets:
                _target_names(t.target, rebound)
    line, _, end, _ = up.pos(stmt)
    loads, loops = _survey(up)
    later = []
    for name in names:
        if name in rebound or name in later:
            continue
        lines = loads.get(name, ())
        if any(l > end for l in lines) or any(
                a <= line <= b and any(a <= l <= b and not line <= l <= end for l in lines)
                for a, b in loops):
            later.append(name)
    if not later:
        return None
    shown = ", ".join(f"`{n}`" for n in later)
    return (f"1.8 wrote the loop's results into the loop variables passed in: {shown} "
            "read after this call held the final values in 1.8 and keep the values from "
            "before the loop today; read the returned values instead (or rebind the names: "
            "`i, h = paddle.static.nn.while_loop(cond, body, [i, h])`)")


def _dygraph_call(up, original: cst.Call, updated: cst.Call, entry):
    """Dygraph: 1.8.5 returned the body's results and left the tensors passed as loop_vars
    unchanged; 3.3.1's dygraph while_loop assigns each step's results into them. A loop
    variable read after the call (other than through the names its result rebinds), or an
    attribute or subscript element, is passed as a copy, ``paddle.assign(x)``; a loop_vars
    that is not a literal list makes the call unsafe."""
    bound = bind(entry, original)
    loop_vars = None if isinstance(bound, Manual) or "loop_vars" not in bound.values \
        else bound.values["loop_vars"].value
    if _builds_backward(up):
        entry = copy.copy(entry)
        entry.safety = "unsafe"
        entry.note = ("3.3.1's dygraph while_loop writes each step's results into the loop "
                      "variables in place, so a backward through the loop fails when an op in "
                      "the body saved one of them for its gradient (`a * a`: 'tensor_version "
                      "... != wrapper_version_snapshot', checked; a leaf that needs a gradient "
                      "cannot be written in place at all), and the tensors passed in change, "
                      "where 1.8.5 ran the loop in Python and left them as they were: in "
                      "dygraph write the loop in Python instead, `vs = [i, x]` then `while "
                      "cond(*vs): vs = body(*vs)`")
        return up.apply_entry(original, updated, entry)
    if loop_vars is not None and not isinstance(loop_vars, (cst.List, cst.Tuple)):
        entry = copy.copy(entry)
        entry.safety = "unsafe"
        entry.note = ("in dygraph 1.8.5 left the tensors passed as loop_vars unchanged, while "
                      "today's while_loop assigns each step's results into them; loop_vars is "
                      "not a literal list here, so they cannot be copied: pass "
                      "[paddle.assign(v) for v in loop_vars] where they are read after the loop")
        return up.apply_entry(original, updated, entry)
    new = up.apply_entry(original, updated, entry)
    if not isinstance(new, cst.Call) or new is updated or loop_vars is None:
        return new
    kept = _read_later(up, original, loop_vars)
    args = list(new.args)
    for k, arg in enumerate(args):
        if (arg.keyword is None and k == 2) or (arg.keyword is not None and arg.keyword.value == "loop_vars"):
            if isinstance(arg.value, (cst.List, cst.Tuple)):
                args[k] = arg.with_changes(value=_copy_elements(arg.value, kept))
            break
    return new.with_changes(args=args)


def _read_later(up, original: cst.Call, loop_vars) -> set:
    """Names among the loop variables read after the call statement (or elsewhere in a
    Python loop around it) that the assignment of the call's result does not rebind; every
    name when the call is not a simple statement."""
    names = {el.value for el in _elements(loop_vars) if isinstance(el, cst.Name)}
    stmt = up.stmt_stack[-1][0] if up.stmt_stack else None
    if not names or not isinstance(stmt, cst.SimpleStatementLine):
        return names
    rebound = set()
    for small in stmt.body:
        if isinstance(small, cst.Assign) and small.value is original:
            for t in small.targets:
                _target_names(t.target, rebound)
    line, _, end, _ = up.pos(stmt)
    loads, loops = _survey(up)
    later = set()
    for name in names - rebound:
        lines = loads.get(name, ())
        if any(l > end for l in lines) or any(
                a <= line <= b and any(a <= l <= b and not line <= l <= end for l in lines)
                for a, b in loops):
            later.add(name)
    return later


def _copy_elements(node, kept: set):
    elements = []
    for el in node.elements:
        v = el.value
        if isinstance(v, (cst.List, cst.Tuple)):
            v = _copy_elements(v, kept)
        elif (isinstance(v, cst.Name) and v.value in kept) or isinstance(v, (cst.Attribute, cst.Subscript)):
            v = cst.Call(func=cst.parse_expression("paddle.assign"), args=[cst.Arg(value=v)])
        elements.append(el.with_changes(value=v))
    return node.with_changes(elements=elements)


def _elements(node):
    for el in node.elements:
        v = el.value
        if isinstance(v, (cst.List, cst.Tuple)):
            yield from _elements(v)
        else:
            yield v


def _target_names(node, out: set) -> None:
    if isinstance(node, cst.Name):
        out.add(node.value)
    elif isinstance(node, (cst.Tuple, cst.List)):
        for el in node.elements:
            _target_names(el.value, out)
    elif isinstance(node, cst.StarredElement):
        _target_names(node.value, out)


def _survey(up) -> Tuple[Dict[str, List[int]], List[Tuple[int, int]]]:
    """Lines where each name is read (not counting reads of a parameter of an enclosing
    function or lambda: the cond/body functions' own loop variables), and the line spans
    of the Python loops (cached)."""
    cached = getattr(up, "_while_loop_survey", None)
    if cached is None:
        loads: Dict[str, List[int]] = {}
        loops: List[Tuple[int, int]] = []

        def walk(node, params: frozenset):
            for child in ast.iter_child_nodes(node):
                inner = params
                if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
                    a = child.args
                    inner = params | {p.arg for p in a.args + a.kwonlyargs
                                      + getattr(a, "posonlyargs", [])
                                      + [p for p in (a.vararg, a.kwarg) if p]}
                elif isinstance(child, ast.Name) and isinstance(child.ctx, ast.Load):
                    if child.id not in params:
                        loads.setdefault(child.id, []).append(child.lineno)
                elif isinstance(child, (ast.For, ast.While, ast.AsyncFor)):
                    loops.append((child.lineno, getattr(child, "end_lineno", None) or 10 ** 9))
                walk(child, inner)

        walk(untouched.parse(up.source), frozenset())
        cached = up._while_loop_survey = (loads, loops)
    return cached
