"""PU103 unique-name-guard: ``unique_name.guard()`` keeps restarting ``fc`` names.

What it does
    Rewrites ``fluid.unique_name.guard()`` to ``paddle.utils.unique_name.guard()`` as its
    rule says, except in a module that opens the guard more than once (two guards, or one
    in a loop or in a function called more than once, such as the 1.8 models'
    ``build_program(is_train, ...)`` called for the training and the evaluation program)
    and builds ``fluid.layers.fc`` layers, or opens it once and builds ``fc`` layers outside it
    too (a program built before the guard whose weights the guarded one shared by name):
    there the guard becomes ``_fluid_unique_name_guard(...)`` (same argument), a function
    fix adds to the module: today's guard, and while it is open the default program's own
    name counter, from which ``paddle.static.nn.fc`` names its parameters, is the guard's
    generator, as 1.8's fc took its names from the guard. Such a module keeps the plain
    rewrite when every ``fc`` names its weight and its bias (a string expression such as
    ``name + 'w'``, ``ParamAttr(name=...)``, or ``bias_attr=False``): no name then comes from
    a counter (the models' GAN helpers ``def fc(x, size, name): return fluid.layers.fc(...,
    param_attr=name + 'w', bias_attr=name + 'b')``).

Why is this bad?
    A common 1.8 pattern builds the training and the evaluation program each inside its
    own ``unique_name.guard()``, so that both get the same automatic parameter names
    (``fc_0.w_0``) and the evaluation program reads the trained weights. On Paddle 3's
    default (PIR) programs ``paddle.static.nn.fc`` (what ``layers.fc`` becomes) numbers
    its layers with the default program's own counter (``LayerHelper``), which today's
    guard does not reset: the second program's parameters are ``fc_1.w_0`` and running it
    fails with "Cannot find fc_1.b_0 in scope" (checked on 3.3.1). Layer classes
    (``paddle.nn.Conv2D``, ``paddle.nn.BatchNorm``, what the other layer functions become)
    are still named from the guard's generator.

Example
    ``def build(is_train): with fluid.unique_name.guard(): ... fluid.layers.fc(x, 10)``
    called for two programs → ``with _fluid_unique_name_guard(): ...
    paddle.static.nn.fc(x, 10)``: both programs name the layer ``fc_0``.

Fix safety
    Safe: the rule's example (a training and an evaluation program built in their own
    guards, the evaluation program run on the training program's startup) and programs
    static_nlp_transformer and static_resume_training agree with 1.8.5. The function sets
    ``_name_generator`` of ``paddle.base.framework.default_main_program()``, the program
    object today's ``LayerHelper`` reads (under PIR it is not the program being built, and
    ``program_guard`` does not switch it), and restores it when the guard closes. Manual
    when the module already uses the function's name.
"""
from __future__ import annotations

import ast
import copy
import re

import libcst as cst

from upgrader import untouched

CODE = "PU103"
STRUCTURAL = ("unique-name-guard",)


NAME = "_fluid_unique_name_guard"
WHAT = ("a function fix adds to the module: today's guard, which also restarts the fc "
        "names of the default program's own counter as 1.8's guard did")
HELPERS = {"unique-name-guard": f"paddle.utils.unique_name.guard; where programs built in "
                                f"separate guards share fc names, {NAME} ({WHAT})"}
SOURCE = f'''def {NAME}(new_generator=None):
    """Paddle 1.8's fluid.unique_name.guard: paddle.utils.unique_name.guard(new_generator),
    and while it is open the default program's own name counter, from which
    paddle.static.nn.fc names its parameters (fc_<n>.w_0), is the guard's generator, as
    1.8's fc took its names from the guard: programs built in separate guards get the
    same fc names and share those parameters."""
    import contextlib
    import paddle
    from paddle.base import framework

    @contextlib.contextmanager
    def guard():
        with paddle.utils.unique_name.guard(new_generator):
            program = framework.default_main_program()
            saved = program._name_generator
            program._name_generator = paddle.base.unique_name.generator
            try:
                yield
            finally:
                program._name_generator = saved
    return guard()
'''


def rewrite_call(up, original: cst.Call, updated: cst.Call, entry):
    if _shares_fc_names(up):
        from upgrader.fixers import call_added_function
        use = copy.copy(entry)
        use.code = CODE  # the guard's meaning for fc names changed: reported as such
        return call_added_function(up, original, updated, use, NAME, SOURCE, WHAT)
    return up.apply_entry(original, updated, entry)


def finish_module(up, module: cst.Module) -> cst.Module:
    """Add the function the rewritten guards call after the module's docstring and imports."""
    from upgrader.fixers import add_used_helpers
    return add_used_helpers(up, module, {NAME: SOURCE})


def _shares_fc_names(up) -> bool:
    got = up.__dict__.get("_fc_guards")
    if got is None:
        src = up.source
        guards = len(re.findall(r"\bunique_name\s*\.\s*guard\s*\(", src))
        got = up._fc_guards = (guards > 0 and re.search(r"\bfc\s*\(", src) is not None
                               and not _fc_all_named(src)
                               and (guards > 1 or _guard_runs_again(src) or _fc_outside_guard(src)))
    return got


def _named_attr(v, bias=False) -> bool:
    """A ``param_attr`` / ``bias_attr`` value that names the parameter: a string expression
    (``'fc_w'``, ``name + 'w'``, ``'%s_w' % tag``, ``'{}_w'.format(tag)``),
    ``ParamAttr(name=<not None>)`` / ``ParamAttr('<name>')``, a list of those (fc with several
    inputs), ``False`` for the bias (no parameter), or a conditional of two such values."""
    if isinstance(v, ast.IfExp):
        return _named_attr(v.body, bias) and _named_attr(v.orelse, bias)
    if isinstance(v, ast.Constant):
        return isinstance(v.value, str) or (bias and v.value is False)
    if isinstance(v, (ast.List, ast.Tuple)):
        return bool(v.elts) and all(_named_attr(e, bias) for e in v.elts)
    if isinstance(v, ast.JoinedStr):
        return True
    if isinstance(v, ast.BinOp):
        if isinstance(v.op, ast.Add):
            return _named_attr(v.left) or _named_attr(v.right)
        return isinstance(v.op, ast.Mod) and _named_attr(v.left)
    if isinstance(v, ast.Call):
        f = v.func
        fname = f.attr if isinstance(f, ast.Attribute) else getattr(f, "id", "")
        if fname == "format" and isinstance(f, ast.Attribute):
            return _named_attr(f.value)
        if fname == "ParamAttr":
            name = [k.value for k in v.keywords if k.arg == "name"] + v.args[:1]
            return bool(name) and not (isinstance(name[0], ast.Constant) and name[0].value is None)
    return False


def _fc_all_named(src: str) -> bool:
    """Every ``layers.fc`` of the module (``<module>.fc(...)``, or ``fc(...)`` when the
    module defines no function ``fc``) names its weights and its bias (or has none): no
    name comes from the counter, so the guards' numbering does not matter."""
    try:
        tree = untouched.parse(src)
    except SyntaxError:
        return False
    own = {n.name for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))}
    found = False
    for n in ast.walk(tree):
        if not isinstance(n, ast.Call):
            continue
        f = n.func
        if not (isinstance(f, ast.Attribute) and f.attr == "fc" and not (
                isinstance(f.value, ast.Name) and f.value.id == "self")
                or isinstance(f, ast.Name) and f.id == "fc" and "fc" not in own):
            continue
        found = True
        if any(k.arg is None for k in n.keywords) or any(isinstance(a, ast.Starred) for a in n.args):
            return False
        kw = {k.arg: k.value for k in n.keywords}
        # fc(input, size, num_flatten_dims=1, param_attr=None, bias_attr=None, act=None, ...)
        param = kw.get("param_attr", n.args[3] if len(n.args) > 3 else None)
        bias = kw.get("bias_attr", n.args[4] if len(n.args) > 4 else None)
        if param is None or bias is None or not _named_attr(param) or not _named_attr(bias, True):
            return False
    return found


def _fc_outside_guard(src: str) -> bool:
    """A layers.fc that may run outside the module's guard block: 1.8's guard restarted the
    names (fc_0 again), so a program built in it shared the weights of one built before it;
    PIR's static.nn.fc keeps counting (checked on 3.3.1: 'Cannot find fc_3.b_0 in scope')."""
    try:
        tree = untouched.parse(src)
    except SyntaxError:
        return False
    spans = [(n.lineno, n.end_lineno) for n in ast.walk(tree) if isinstance(n, ast.With) and any(
        isinstance(i.context_expr, ast.Call) and isinstance(i.context_expr.func, ast.Attribute)
        and i.context_expr.func.attr == "guard" and "unique_name" in ast.dump(i.context_expr.func)
        for i in n.items)]
    functions = {}
    for n in ast.walk(tree):
        if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)):
            functions[n.name] = n
    calls = [n for n in ast.walk(tree) if isinstance(n, ast.Call)]

    def called(node, name):
        f = node.func
        return isinstance(f, ast.Name) and f.id == name or isinstance(f, ast.Attribute) and f.attr == name

    def in_guard(node):
        return any(a <= node.lineno <= b for a, b in spans)

    def owner(node):
        for fn in functions.values():
            if fn.lineno <= node.lineno <= fn.end_lineno and node is not fn:
                inner = [f for f in functions.values() if f is not fn and fn.lineno <= f.lineno
                         and f.end_lineno <= fn.end_lineno and f.lineno <= node.lineno <= f.end_lineno]
                if not inner:
                    return fn.name
        return None

    def only_in_guards(name, seen):
        uses = [c for c in calls if called(c, name)]
        for c in uses:
            if in_guard(c):
                continue
            outer = owner(c)
            if outer in seen:
                continue  # a call from the function itself (or a cycle): its callers count
            if outer is None or not only_in_guards(outer, seen | {outer}):
                return False
        return True

    for c in calls:
        if called(c, "fc") and not in_guard(c):
            fn = owner(c)
            if fn is None or not only_in_guards(fn, {fn}):
                return True
    return False


_LOOPS = (ast.For, ast.AsyncFor, ast.While, ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)


def _guard_runs_again(src: str) -> bool:
    """The one ``unique_name.guard()`` of the module may be opened more than once: it sits
    in a loop, or in a function called more than once or in a loop (the 1.8 models'
    ``build_program(is_train, main_prog, startup_prog)`` called for the training and the
    evaluation program)."""
    try:
        tree = untouched.parse(src)
    except SyntaxError:
        return False
    parents = {}
    for node in ast.walk(tree):
        for child in ast.iter_child_nodes(node):
            parents[child] = node

    def in_loop_or_function(node):
        """(inside a loop, name of the innermost enclosing function or None)."""
        loop = False
        while node in parents:
            node = parents[node]
            if isinstance(node, _LOOPS):
                loop = True
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                return loop, node.name
        return loop, None

    def runs_again(name, seen):
        calls = [n for n in ast.walk(tree) if isinstance(n, ast.Call) and (
            isinstance(n.func, ast.Name) and n.func.id == name
            or isinstance(n.func, ast.Attribute) and n.func.attr == name)]
        if len(calls) > 1:
            return True
        for c in calls:
            loop, outer = in_loop_or_function(c)
            if loop or (outer and outer not in seen and runs_again(outer, seen | {outer})):
                return True
        return False

    for node in ast.walk(tree):
        if isinstance(node, ast.With) and any(
                isinstance(i.context_expr, ast.Call) and isinstance(i.context_expr.func, ast.Attribute)
                and i.context_expr.func.attr == "guard" and "unique_name" in ast.dump(i.context_expr.func)
                for i in node.items):
            loop, fn = in_loop_or_function(node)
            if loop or (fn is not None and runs_again(fn, {fn})):
                return True
    return False
