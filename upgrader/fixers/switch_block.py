"""PU102 switch-block: ``with fluid.layers.Switch() as s:`` / ``with s.case(c):`` /
``with s.default():`` become functions and one ``paddle.static.nn.case`` call.

What it does
    A ``Switch`` statement whose body holds only its ``case(cond)`` blocks and at most one
    ``default()`` block, last, becomes, in place: one function per block (``def
    _fluid_switch<n>_case<i>():`` / ``_fluid_switch<n>_default()`` holding the block's
    statements) and ``paddle.static.nn.case([(cond, _fluid_switch<n>_case<i>), ...],
    default=...)``, which runs the function of the first condition that holds, else the
    default's (a function doing nothing when there was none). The blocks' ops, among them
    ``paddle.assign(value, var)`` into a variable of the program (the learning-rate
    schedules of 1.8's ERNIE/BERT and PaddleCV code), run as they did in 1.8.

Why is this bad?
    ``Switch`` is gone with ``paddle.fluid``; Paddle 3 static (PIR) programs branch with
    ``paddle.static.nn.case`` / ``cond`` over functions, whose assignments into variables
    defined outside them persist as 1.8's did (checked on 3.3.1).

Example
    ``with fluid.layers.control_flow.Switch() as switch:`` / ``with switch.case(step <
    warmup):`` / ``fluid.layers.assign(warm, lr)`` / ``with switch.default():`` /
    ``fluid.layers.assign(decayed, lr)`` → ``def _fluid_switch0_case0():`` /
    ``paddle.assign(warm, lr)`` / ``def _fluid_switch0_default():`` /
    ``paddle.assign(decayed, lr)`` / ``paddle.static.nn.case([(step < warmup,
    _fluid_switch0_case0)], default=_fluid_switch0_default)``.

Fix safety
    Safe: program static_nlp_ernie_warmup (ERNIE's linear_warmup_decay, run for more
    steps than the warmup) agrees with 1.8.5. Manual when a block's names are read
    outside it (they become the function's locals), when a block returns, yields,
    breaks, continues or declares global / nonlocal names, or builds parameters (an fc,
    conv, embedding or norm layer, create_parameter: created inside a branch they do not
    belong to a Paddle 3 program), and for any other shape of ``Switch``.
"""
from __future__ import annotations

from typing import List, Optional, Set

import libcst as cst

from upgrader.names import FastVisitor

CODE = "PU102"
STRUCTURAL = ("switch-block",)
SWITCHES = ("paddle.fluid.layers.Switch", "paddle.fluid.layers.control_flow.Switch")
#: layers that create parameters: inside a branch they would not belong to the program
_PARAMETERS = ("fc", "conv2d", "conv3d", "conv2d_transpose", "conv3d_transpose", "embedding",
               "batch_norm", "layer_norm", "group_norm", "instance_norm", "create_parameter",
               "prelu", "nce", "hsigmoid", "data_norm", "spectral_norm", "bilinear_tensor_product")


def _switch_call(up, node: cst.With) -> Optional[cst.Call]:
    if len(node.items) != 1 or node.asynchronous is not None:
        return None
    item = node.items[0]
    if isinstance(item.item, cst.Call) and up.resolve_dotted(item.item.func) in SWITCHES:
        return item.item
    return None


def _blocks(node: cst.With):
    """[(condition or None for default, block)] of a Switch with an ``as`` name, or a
    reason it has another shape."""
    item = node.items[0]
    if item.asname is None or not isinstance(item.asname.name, cst.Name):
        return "`Switch()` is not bound with `as <name>`"
    name = item.asname.name.value
    if not isinstance(node.body, cst.IndentedBlock):
        return "its body is on one line"
    out = []
    for stmt in node.body.body:
        ok = isinstance(stmt, cst.With) and len(stmt.items) == 1 and stmt.items[0].asname is None \
            and isinstance(stmt.items[0].item, cst.Call) \
            and isinstance(stmt.items[0].item.func, cst.Attribute) \
            and isinstance(stmt.items[0].item.func.value, cst.Name) \
            and stmt.items[0].item.func.value.value == name \
            and isinstance(stmt.body, cst.IndentedBlock)
        if not ok:
            return "its body holds statements other than `with <switch>.case(...)` / `.default()` blocks"
        call = stmt.items[0].item
        method = call.func.attr.value
        arg = call.args[0] if len(call.args) == 1 else None
        if method == "case" and arg is not None and not arg.star and (
                arg.keyword is None or arg.keyword.value == "condition"):
            out.append((arg.value, stmt))
        elif method == "default" and not call.args:
            out.append((None, stmt))
        else:
            return f"`{name}.{method}(...)` is not a case or default block"
    conds = [c for c, _ in out]
    if not out or conds[0] is None or None in conds[:-1]:
        return "it has no case, or its default block is not the last"
    return out


class _Bound(FastVisitor):
    """Names a block binds, and what makes it unfit for a function body."""

    def __init__(self, up):
        super().__init__()
        self.up = up
        self.names: Set[str] = set()
        self.why: Optional[str] = None

    def _target(self, t):
        if isinstance(t, cst.Name):
            self.names.add(t.value)
        elif isinstance(t, (cst.Tuple, cst.List)):
            for e in t.elements:
                self._target(e.value)
        elif isinstance(t, cst.StarredElement):
            self._target(t.value)

    def visit_Assign(self, node):
        for t in node.targets:
            self._target(t.target)

    def visit_AugAssign(self, node):
        self._target(node.target)

    def visit_AnnAssign(self, node):
        self._target(node.target)

    def visit_For(self, node):
        self._target(node.target)

    def visit_AsName(self, node):
        self._target(node.name)

    def visit_NamedExpr(self, node):
        self._target(node.target)

    def visit_FunctionDef(self, node):
        self.names.add(node.name.value)
        return False

    def visit_ClassDef(self, node):
        self.names.add(node.name.value)
        return False

    def visit_Lambda(self, node):
        return False

    def visit_Return(self, node):
        self.why = self.why or "a block returns"

    def visit_Yield(self, node):
        self.why = self.why or "a block yields"

    def visit_Break(self, node):
        self.why = self.why or "a block breaks out of a loop"

    def visit_Continue(self, node):
        self.why = self.why or "a block continues a loop"

    def visit_Global(self, node):
        self.why = self.why or "a block declares global names"

    def visit_Nonlocal(self, node):
        self.why = self.why or "a block declares nonlocal names"

    def visit_Call(self, node):
        full = self.up.resolve_dotted(node.func) or ""
        if full.startswith(("paddle.fluid.layers.", "paddle.fluid.")) and \
                full.rsplit(".", 1)[-1] in _PARAMETERS:
            self.why = self.why or (f"a block builds parameters (`{full[len('paddle.'):]}`), "
                                    "which a Paddle 3 program does not keep from inside a branch")


class _Loads(FastVisitor):
    def __init__(self, skip):
        super().__init__()
        self.skip = skip
        self.loads: Set[str] = set()

    def on_visit(self, node):
        if node is self.skip:
            return False
        if isinstance(node, cst.Name):
            self.loads.add(node.value)
        return super().on_visit(node)


def _why_manual(up, node: cst.With, blocks) -> Optional[str]:
    bound = _Bound(up)
    for _, stmt in blocks:
        stmt.body.visit(bound)
    if bound.why:
        return bound.why
    scope = next((st for st, _ in reversed(up.stmt_stack[:-1])
                  if isinstance(st, cst.FunctionDef)), None)
    loads = _Loads(node)
    (scope.body if scope is not None else up.module).visit(loads)
    outside = sorted(bound.names & loads.loads)
    if outside:
        return (f"`{outside[0]}`, which a block assigns, is read outside the Switch (the blocks "
                f"become functions, their names locals)")
    name = node.items[0].asname.name.value
    if name in loads.loads:
        return f"the Switch object `{name}` is used outside its statement"
    return None


def rewrite_call(up, original: cst.Call, updated: cst.Call, entry):
    """The ``Switch()`` of a statement rewritten as a whole stays for it; any other use is
    manual (the entry's note)."""
    if id(original) in up.__dict__.get("_switch_items", ()):
        return updated
    why = up.__dict__.get("_switch_why", {}).get(id(original)) or \
        "`Switch()` is not the item of a `with ... as <name>:` statement"
    up.report_entry(original, entry, False, manual=(
        f"{why}: rewrite it by hand as paddle.static.nn.case([(cond, fn), ...], default=fn), "
        "one function per block"))
    return updated


def visit_with(up, node: cst.With) -> None:
    """Decide, before its children are rewritten, whether a Switch statement is rewritten."""
    call = _switch_call(up, node)
    if call is None:
        return
    entry = up.entry_for(up.resolve_dotted(call.func))
    blocks = _blocks(node)
    why = blocks if isinstance(blocks, str) else _why_manual(up, node, blocks)
    if why is None and (entry is None or not up.can_apply(entry, call)):
        why = "its rewrite is disabled or suppressed here"
    if why is not None:
        up.__dict__.setdefault("_switch_why", {})[id(call)] = why
        return
    up.__dict__.setdefault("_switch_items", set()).add(id(call))
    up.__dict__.setdefault("_switch_withs", set()).add(id(node))


def rewrite(up, original: cst.With, updated: cst.With):
    """``updated`` (children rewritten) as the functions and the case call."""
    if id(original) not in up.__dict__.get("_switch_withs", ()):
        return updated
    n = up.__dict__.get("_switch_count", 0)
    up._switch_count = n + 1
    stmts: List[cst.BaseStatement] = []
    pairs = []
    default = None
    for i, block in enumerate(updated.body.body):
        call = block.items[0].item
        is_default = call.func.attr.value == "default"
        fname = f"_fluid_switch{n}_default" if is_default else f"_fluid_switch{n}_case{i}"
        stmts.append(cst.FunctionDef(name=cst.Name(fname), params=cst.Parameters(),
                                     body=block.body, leading_lines=block.leading_lines))
        if is_default:
            default = fname
        else:
            pairs.append(cst.Element(cst.Tuple([cst.Element(call.args[0].value),
                                                cst.Element(cst.Name(fname))])))
    case = cst.Call(func=cst.parse_expression("paddle.static.nn.case"), args=[
        cst.Arg(cst.List(pairs)),
        cst.Arg(cst.Name(default) if default else cst.parse_expression("lambda: None"),
                keyword=cst.Name("default"),
                equal=cst.AssignEqual(whitespace_before=cst.SimpleWhitespace(""),
                                      whitespace_after=cst.SimpleWhitespace("")))])
    # comments after the last block (the Switch body's footer) go above the case call, a
    # comment on the `with Switch() as s:` line above the first function
    stmts.append(cst.SimpleStatementLine(body=[cst.Expr(case)],
                                         leading_lines=list(updated.body.footer)))
    header = updated.body.header.comment
    own = [cst.EmptyLine(comment=header)] if header is not None else []
    stmts[0] = stmts[0].with_changes(
        leading_lines=list(original.leading_lines) + own + list(stmts[0].leading_lines))
    up.needed_imports.add("paddle")
    entry = up.entry_for(up.resolve_dotted(original.items[0].item.func))
    up.report(original, CODE, "`with fluid.layers.Switch()` → its blocks as functions and "
              "`paddle.static.nn.case([(cond, fn), ...], default=fn)`", entry.name,
              "paddle.static.nn.case", "safe", applied=True)
    return cst.FlattenSentinel(stmts)
