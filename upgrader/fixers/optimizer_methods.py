"""PU207 optimizer-minimize: optimizer methods whose 1.x spelling is gone.

What it does
    In a file that uses legacy Paddle, ``<opt>.minimize(loss, parameter_list=ps)`` becomes
    ``<opt>.minimize(loss, parameters=ps)``; ``<opt>.current_step_lr()`` becomes
    ``<opt>.get_lr()`` on any receiver (an optimizer passed to a function, ``self.opt``);
    on a variable assigned from a legacy optimizer,
    ``<opt>.set_dict(state)`` becomes ``<opt>.set_state_dict(state)``,
    ``<opt>.backward(loss, parameter_list=ps)`` becomes ``<opt>.backward(loss, parameters=ps)``
    and ``<opt>.apply_optimize(loss, startup_program, params_grads)`` becomes
    ``<opt>.apply_gradients(params_grads)``. In a static program ``<opt>.backward(loss)``
    without a parameter list (neither in the call nor in the optimizer's constructor)
    becomes ``<opt>.backward(loss)[::-1]``: PIR lists the program's parameters in reverse
    creation order, 1.8 in creation order (checked on 3.3.1); for the same reason
    ``ops, pairs = <opt>.minimize(loss)`` is followed by ``pairs = pairs[::-1]``. In a module that uses
    ``program_guard``, an ``<opt>.minimize(loss, ...)`` statement outside any
    ``program_guard`` block, or inside one with a ``startup_program`` other than the
    block's, is put under
    ``with paddle.static.program_guard(loss.block.program, <startup_program or None>):``:
    1.8 built the update ops in the loss's program, 3.x builds them in the current default
    program (3.3.1: IndexError when that program is empty). A ``minimize`` of a stateful
    optimizer (all but SGD) in a ``program_guard`` block whose layers give one literal
    ParamAttr name more than once (weight tying; directly or through a function of the
    module called more than once there) is reported as manual; so is one whose names are
    computed from the string arguments of the module's functions (``ParamAttr(name=name +
    '_w')`` in a ``generator(x, name)`` called twice with ``"GA"``: CycleGAN's cycle; the
    arguments, literal defaults, names assigned once, ``if`` tests on them and loops over a
    known string are followed): 1.8 made one parameter,
    PIR one parameter value per use, and the optimizer updates the shared weight once per
    use with a partial gradient (checked on 3.3.1 against 1.8.5 with Adam). Dygraph code
    is not reported (a ``minimize`` inside a ``dygraph.guard`` block, or of an optimizer
    given ``parameter_list=<layer>.parameters()``): 1.8's dygraph made one parameter per
    layer whatever its name.

Why is this bad?
    Today's ``Optimizer.minimize`` and ``backward`` name the argument ``parameters``
    (``parameter_list=`` raises TypeError), and ``Optimizer.set_dict`` / ``current_step_lr`` /
    ``apply_optimize`` no longer exist:
    the program fails at run time although every name it imports was rewritten.

Example
    In a static program ``adam.minimize(avg_loss, parameter_list=[w1, w2])`` →
    ``adam.minimize(avg_loss, parameters=[w1, w2])``; in dygraph code
    ``adam.minimize(loss, parameter_list=model.parameters())`` → ``adam.minimize(loss)``.

Fix safety
    Safe: the same optimizer method under its modern name. ``minimize``'s keyword is
    renamed on any object (no other Paddle API has ``minimize(parameter_list=)``), and so
    is ``current_step_lr`` (no other Paddle class has it); ``set_dict`` and the others only
    on variables assigned from a legacy optimizer in the same file, and ``set_dict(state)``
    with the state alone on any receiver (a factory's optimizer or model: both 1.8 classes
    had it, both 3.x classes have ``set_state_dict``, which is what a Layer's ``set_dict``
    still calls). ``current_step_lr`` →
    ``get_lr`` is unsafe in a module that uses today's ``ReduceOnPlateau``: 1.8 returned the
    rate of the last ``minimize()``, ``get_lr()`` the scheduler's, which a ``step(loss)`` may
    have lowered since (checked on 1.8.5); 1.8's ``ReduceLROnPlateau`` becomes
    ``_FluidReduceLROnPlateau`` in a module that reads the rate back (lr-decay-class), whose
    ``get_lr()`` is 1.8's, so the rename is safe there (program lr_decay_dygraph). A
    ``parameter_list`` of parameter names (strings, which 1.8 accepted: ``'fc_0.w_0'``,
    ``prefix + '_w'``, ``'%s_w' % tag``, ``p.name``;
    a display or comprehension of names, or a variable the module binds only to such
    lists and grows only by ``.append(<name>)``: DCGAN's
    ``[p.name for p in g_program.global_block().all_parameters()]``, CycleGAN's prefix
    loop) given to ``minimize`` in a static-only module with a plain-name loss becomes
    ``parameters=[_p for _p in loss.block.program.global_block().all_parameters() if
    _p.name in <names>]``: 1.8's append_backward looked each name up in the loss's program
    and skipped names it lacked; today's minimize takes only the parameters themselves
    (names raise TypeError). Safe (program static_gan_dcgan: a generator trained through
    the discriminator's program matches 1.8.5). Names mixed with variables, names in
    ``no_grad_set``, a loss expression or a module with dynamic-mode code stay manual. In a
    module with dynamic-mode code and no static graph, both arguments are dropped instead:
    1.8.5's dygraph ``minimize`` ignored them and updated the optimizer's own parameters
    (checked), where today's would honour them. ``apply_optimize`` built the update ops
    under ``program_guard(<loss's program>, startup_program)``; ``apply_gradients`` builds
    them in the current programs: safe inside a ``program_guard`` block, in a module that
    uses no ``program_guard``, or as a statement of its own with a plain-name loss and
    startup program (put under ``paddle.static.program_guard(loss.block.program, startup)``);
    unsafe elsewhere. ``backward`` given names is manual, and so is ``minimize`` /
    ``backward`` of an optimizer given ``**kwargs`` (the dict may hold ``parameter_list``).
"""
from __future__ import annotations

import ast
import re

import libcst as cst

from upgrader import untouched
from upgrader.args import code_of

CODE = "PU207"
RENAMES = {"set_dict": "set_state_dict", "current_step_lr": "get_lr"}


def _optimizer_vars(up):
    cache = getattr(up, "_optimizer_vars", None)
    if cache is None:
        from upgrader.fixers.save_load_dygraph import _assignments
        cache = {n for n, d in _assignments(up).items() if d and d.startswith("paddle.fluid.optimizer")}
        up._optimizer_vars = cache
    return cache


def check_call(up, original: cst.Call, updated: cst.Call):
    f = updated.func
    if not isinstance(f, cst.Attribute) or not up.opts.enabled(CODE):
        return updated
    if up.suppressed_node(original, CODE):
        return updated
    name = f.attr.value
    if name == "minimize" and not up.guard_depth and (_tied_guards(up) or _tied_calls(up)) \
            and not _dygraph_module(up) and not _layer_optimizer(up, original):
        # the cheap module scan first: deciding the module's modes walks all of it. A
        # minimize in a dygraph.guard block, or of an optimizer given a Layer's
        # parameters(), is dygraph code: 1.8's dygraph made one parameter per layer
        # whatever its ParamAttr name (a module may still use static API in dygraph,
        # such as BMN's create_global_var mask)
        _check_tied(up, original)
    if name == "minimize" and _dygraph_lists(updated) and _dygraph_module(up):
        # 1.8.5's dygraph backward() walked the optimizer's own parameter list: the
        # parameter_list / no_grad_set given to minimize() changed nothing (checked)
        kept = [a for a in updated.args if not _list_arg(updated, a)]
        if kept:
            kept[-1] = kept[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)
        up.report(original, CODE, "`minimize(parameter_list=/no_grad_set=...)` in dygraph code: "
                  "1.8.5 ignored both there (the optimizer's own parameters were updated), "
                  "today's minimize would honour them: dropped",
                  "paddle.fluid.optimizer.Optimizer.minimize", "paddle.optimizer.Optimizer.minimize",
                  "safe", applied=True)
        return updated.with_changes(args=kept)
    if name in ("minimize", "backward") and any(a.star == "**" for a in updated.args) \
            and _optimizer_receiver(up, f.value):
        up.report(original, CODE, f"`{name}(..., **kwargs)`: 1.8's keyword `parameter_list` is "
                  "`parameters` today (passing parameter_list raises TypeError on 3.x) and a "
                  "list of parameter names is no longer accepted; rename the key where the "
                  "dict is built and pass the parameters themselves",
                  f"paddle.fluid.optimizer.Optimizer.{name}",
                  f"paddle.optimizer.Optimizer.{name}", "manual")
        return updated
    if name == "minimize":
        named = _names_given(updated, up)
        if named == "parameter_list":
            rewritten = _names_to_parameters(up, original, updated)
            if rewritten is not None:
                return rewritten
        if named == "no_grad_set":
            up.report(original, CODE, "`minimize(no_grad_set=...)` lists variables by name: "
                      "put the variables themselves in the set (today's minimize takes only "
                      "variables: names raise TypeError on 3.x, and reading `<var>.name` of an "
                      "operator's PIR value raises ValueError; parameters named by strings: "
                      "[p for p in program.global_block().all_parameters() if p.name in names])",
                      "paddle.fluid.optimizer.Optimizer.minimize",
                      "paddle.optimizer.Optimizer.minimize", "manual")
            return updated
        if named:
            up.report(original, CODE, f"`minimize({named}=...)` lists parameters by name: today's "
                      "minimize takes only parameter values (names raise TypeError on 3.x); pass "
                      "the parameters themselves, e.g. [p for p in program.global_block()."
                      "all_parameters() if p.name in names]",
                      "paddle.fluid.optimizer.Optimizer.minimize",
                      "paddle.optimizer.Optimizer.minimize", "manual")
            return updated
    if name == "minimize" and any(a.keyword is not None and a.keyword.value == "parameter_list"
                                  for a in updated.args):
        return _parameters_keyword(up, original, updated, "minimize")
    if name == "backward" and isinstance(f.value, cst.Name) and f.value.value in _optimizer_vars(up):
        return _backward(up, original, updated)
    if name == "apply_optimize" and isinstance(f.value, cst.Name) \
            and f.value.value in _optimizer_vars(up):
        return _apply_optimize(up, original, updated)
    if name == "current_step_lr" and not updated.args or name in RENAMES and isinstance(
            f.value, cst.Name) and f.value.value in _optimizer_vars(up):
        # current_step_lr: no other Paddle class has that method, so any receiver (an
        # optimizer passed to a function, self.optimizer) is renamed
        if name == "current_step_lr" and _plateau_module(up):
            message = ("optimizer `.current_step_lr()` → `.get_lr()` (unsafe: the module uses "
                       "a ReduceOnPlateau scheduler: 1.8's current_step_lr() returned the rate "
                       "of the last minimize(), get_lr() returns the scheduler's current rate, "
                       "so a read between a scheduler.step(loss) that lowered the rate and the next "
                       "minimize() gives the new rate today, the old one in 1.8)")
            if not up.opts.unsafe_fixes:
                up.report(original, CODE, message + "; apply with --unsafe-fixes",
                          "paddle.fluid.optimizer.Optimizer.current_step_lr",
                          "paddle.optimizer.Optimizer.get_lr", "unsafe")
                return updated
            up.report(original, CODE, message, "paddle.fluid.optimizer.Optimizer.current_step_lr",
                      "paddle.optimizer.Optimizer.get_lr", "unsafe", applied=True)
            return updated.with_changes(func=f.with_changes(attr=cst.Name(RENAMES[name])))
        up.report(original, CODE, f"optimizer `.{name}()` → `.{RENAMES[name]}()`",
                  f"paddle.fluid.optimizer.Optimizer.{name}",
                  f"paddle.optimizer.Optimizer.{RENAMES[name]}", "safe", applied=True)
        return updated.with_changes(func=f.with_changes(attr=cst.Name(RENAMES[name])))
    if name == "set_dict" and len(updated.args) == 1 and updated.args[0].keyword is None \
            and not updated.args[0].star and _legacy_module(up):
        # any receiver (a factory's optimizer or model): 1.8's Optimizer and Layer both had
        # set_dict(state); today both have set_state_dict(state), which for a Layer is the
        # very method set_dict still names, and only Layer kept set_dict
        up.report(original, CODE, "`.set_dict(state)` → `.set_state_dict(state)` (an optimizer "
                  "lost set_dict; a Layer's set_dict is set_state_dict)",
                  "paddle.fluid.optimizer.Optimizer.set_dict",
                  "paddle.optimizer.Optimizer.set_state_dict", "safe", applied=True)
        return updated.with_changes(func=f.with_changes(attr=cst.Name("set_state_dict")))
    return updated


def _legacy_module(up) -> bool:
    """The module imports legacy Paddle (``paddle.fluid`` ...): its ``set_dict`` calls are
    1.x code, not the modern Layer alias."""
    cached = getattr(up, "_legacy_module", None)
    if cached is None:
        from upgrader.names import is_legacy
        cached = up._legacy_module = any(is_legacy(b.dotted) for b in up.imports.all_bindings)
    return cached


def _plateau_module(up) -> bool:
    """The module names 1.8's ReduceLROnPlateau (the one 1.8 LR decay the user steps with
    the loss, which PU214 does not trace) or its 3.x name ReduceOnPlateau: an optimizer's
    current_step_lr() and today's get_lr() differ after a scheduler.step(loss) that lowered
    the rate, until the next minimize() (checked on 1.8.5)."""
    cached = getattr(up, "_plateau_module", None)
    if cached is None:
        # also its 3.x name: in a module upgraded before, the call is still to be reviewed;
        # 1.8's becomes _FluidReduceLROnPlateau where current_step_lr() is read, whose
        # rate read back is the last minimize()'s (lr_decay_classes)
        from upgrader.fixers.lr_decay_classes import plateau_as_class
        cached = up._plateau_module = "ReduceOnPlateau" in up.source or (
            "ReduceLROnPlateau" in up.source and not plateau_as_class(up))
    return cached


def _optimizer_receiver(up, value) -> bool:
    """``value`` (the object a method is called on) is a legacy optimizer: a variable
    assigned from one in this module, a legacy optimizer built in place, or a name or
    attribute spelled like one (``self.optimizer``, ``opt``) that resolves to nothing
    outside Paddle (``scipy.optimize`` does not count)."""
    if isinstance(value, cst.Name) and value.value in _optimizer_vars(up):
        return True
    if isinstance(value, cst.Call):
        return (up.resolve_dotted(value.func) or "").startswith("paddle.fluid.optimizer.")
    dotted = up.resolve_dotted(value) if isinstance(value, (cst.Name, cst.Attribute)) else None
    if dotted and not dotted.startswith("paddle"):
        return False
    last = value.attr.value if isinstance(value, cst.Attribute) else (
        value.value if isinstance(value, cst.Name) else "")
    return "opt" in last.lower() and "optimize" != last.lower()


def _names_given(call: cst.Call, up=None):
    """``parameter_list`` / ``no_grad_set`` given as a literal holding a string (1.8 took
    parameter names as well as variables), or as a name the module binds to such a
    list (``g_params = [p.name for p in ...]``): the argument's name, or None."""
    for i, a in enumerate(call.args):
        kw = a.keyword.value if a.keyword is not None else {2: "parameter_list", 3: "no_grad_set"}.get(i)
        if kw not in ("parameter_list", "no_grad_set"):
            continue
        v = a.value
        if isinstance(v, cst.Call) and isinstance(v.func, cst.Name) and v.func.value in ("set", "list") \
                and v.args:
            v = v.args[0].value
        if isinstance(v, (cst.List, cst.Tuple, cst.Set)) and any(
                _stringy(e.value) for e in v.elements if isinstance(e, cst.Element)):
            return kw
        if isinstance(v, (cst.ListComp, cst.SetComp, cst.GeneratorExp)) and _stringy(v.elt):
            return kw
        if isinstance(v, cst.Name) and up is not None and (
                v.value in _name_lists(up) or v.value in _pure_name_lists(up)
                or v.value in _grown_with_names(up)):
            from upgrader.fixers.no_grad_names import no_grad_only_sets
            if kw == "no_grad_set" and v.value in no_grad_only_sets(up):
                continue  # its .names are stripped where it is built (no_grad_names.py)
            return kw
    return None


def _grown_with_names(up) -> set:
    """Names the module grows with a parameter or variable name: ``<it>.add(<name>)`` /
    ``<it>.append(<name>)``, ``<it>.update(...)`` / ``<it>.extend(...)`` of a display or
    comprehension of names (deeplabv3+'s ``no_grad_set.add(label_nignore.name)``)."""
    cached = getattr(up, "_grown_with_names", None)
    if cached is not None:
        return cached
    out: set = set()
    up._grown_with_names = out
    if ".add(" not in up.source and ".append(" not in up.source and ".update(" not in up.source \
            and ".extend(" not in up.source:
        return out
    try:
        tree = untouched.parse(up.source)
    except SyntaxError:
        return out
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
                and isinstance(node.func.value, ast.Name) and len(node.args) == 1:
            arg, method = node.args[0], node.func.attr
            if method in ("add", "append") and _stringy_ast(arg) or method in ("update", "extend") and (
                    isinstance(arg, (ast.List, ast.Tuple, ast.Set)) and any(_stringy_ast(e) for e in arg.elts)
                    or isinstance(arg, (ast.ListComp, ast.SetComp, ast.GeneratorExp)) and _stringy_ast(arg.elt)):
                out.add(node.func.value.id)
    return out


NAME_FILTER = "[_p for _p in {loss}.block.program.global_block().all_parameters() if _p.name in {names}]"


def _names_to_parameters(up, original: cst.Call, updated: cst.Call):
    """``minimize(loss, parameter_list=<names>)`` in a static-only module, the names a
    list / tuple / set display or comprehension of names, or a variable the module binds
    only to such lists (and grows only with ``.append(<name>)``, CycleGAN's form), and
    ``loss`` a name or attribute: the parameters of the loss's program with those names
    (``NAME_FILTER``), as 1.8's append_backward resolved them there (a name the program
    lacks was skipped: the filter skips it too). None when it does not apply."""
    from upgrader.fixers.static_dropout import static_only
    if not static_only(up) or _names_of_kw(updated, "no_grad_set", up):
        return None
    loss = None
    for i, a in enumerate(updated.args):
        if a.star:
            return None
        kw = a.keyword.value if a.keyword is not None else {0: "loss"}.get(i)
        if kw == "loss":
            loss = a.value
    if not _dotted_names(loss):
        return None
    args = list(updated.args)
    for i, a in enumerate(args):
        kw = a.keyword.value if a.keyword is not None else {2: "parameter_list"}.get(i)
        if kw != "parameter_list":
            continue
        if not _all_names(up, a.value):
            return None
        names = code_of(a.value).strip()
        if not isinstance(a.value, (cst.Name, cst.Attribute, cst.List, cst.Tuple, cst.Set,
                                    cst.ListComp, cst.SetComp, cst.GeneratorExp, cst.Call)):
            return None
        if isinstance(a.value, cst.GeneratorExp) and not a.value.lpar:
            names = "(" + names + ")"
        value = cst.parse_expression(NAME_FILTER.format(loss=code_of(loss).strip(), names=names))
        args[i] = a.with_changes(value=value, keyword=cst.Name("parameters") if a.keyword else None)
    up.report(original, CODE, "`minimize(parameter_list=<names>)` → `minimize(parameters=[_p for "
              "_p in loss.block.program.global_block().all_parameters() if _p.name in <names>])`: "
              "today's minimize takes the parameters themselves; 1.8 looked the names up in the "
              "loss's program and skipped those it lacked, as the filter does",
              "paddle.fluid.optimizer.Optimizer.minimize", "paddle.optimizer.Optimizer.minimize",
              "safe", applied=True)
    return updated.with_changes(args=args)


def _names_of_kw(call: cst.Call, kw: str, up) -> bool:
    """``call`` gives ``kw`` (``parameter_list`` / ``no_grad_set``) as names."""
    only = call.with_changes(args=[a for i, a in enumerate(call.args)
                                   if (a.keyword.value if a.keyword is not None else
                                       {2: "parameter_list", 3: "no_grad_set"}.get(i)) == kw])
    return _names_given(only, up) is not None if only.args else False


def _dotted_names(v) -> bool:
    while isinstance(v, cst.Attribute):
        v = v.value
    return isinstance(v, cst.Name)


def _all_names(up, v) -> bool:
    """Every element ``v`` holds is a parameter name (a string expression): 1.8 took
    variables and names mixed, the filter compares names only."""
    if isinstance(v, cst.Call) and isinstance(v.func, cst.Name) and v.func.value in ("set", "list") \
            and len(v.args) == 1 and not v.args[0].star:
        v = v.args[0].value
    if isinstance(v, (cst.List, cst.Tuple, cst.Set)):
        return bool(v.elements) and all(isinstance(e, cst.Element) and _stringy(e.value)
                                        for e in v.elements)
    if isinstance(v, (cst.ListComp, cst.SetComp, cst.GeneratorExp)):
        return _stringy(v.elt)
    if isinstance(v, cst.Name):
        return v.value in _pure_name_lists(up)
    return False


def _pure_name_lists(up) -> set:
    """Names every binding of which in the module is a display or comprehension of names
    (an empty display too), grown only by ``.append(<name>)`` / ``.extend(<names>)`` /
    ``+= <names>``, with at least one name among them; never rebound otherwise (a loop
    target, a function parameter, ``global``)."""
    cached = getattr(up, "_pure_name_lists", None)
    if cached is not None:
        return cached
    out: set = set()
    up._pure_name_lists = out
    try:
        tree = untouched.parse(up.source)
    except SyntaxError:
        return out

    def names_display(v, allow_empty=True):
        if isinstance(v, ast.Call) and isinstance(v.func, ast.Name) and v.func.id in ("set", "list") \
                and len(v.args) <= 1 and not v.keywords:
            if not v.args:
                return "empty" if allow_empty else None
            v = v.args[0]
        if isinstance(v, (ast.List, ast.Tuple, ast.Set)):
            if not v.elts:
                return "empty" if allow_empty else None
            return "names" if all(_stringy_ast(e) for e in v.elts) else None
        if isinstance(v, (ast.ListComp, ast.SetComp, ast.GeneratorExp)):
            return "names" if _stringy_ast(v.elt) else None
        return None

    good, bad, named = set(), set(), set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign):
            for t in node.targets:
                for n in ast.walk(t):
                    if isinstance(n, ast.Name):
                        kind = names_display(node.value) if t is n else None
                        (good if kind else bad).add(n.id)
                        if kind == "names":
                            named.add(n.id)
        elif isinstance(node, ast.AugAssign) and isinstance(node.target, ast.Name):
            kind = names_display(node.value, allow_empty=False)
            (named if kind == "names" else bad).add(node.target.id)
        elif isinstance(node, (ast.AnnAssign, ast.For, ast.AsyncFor, ast.comprehension, ast.withitem)):
            target = getattr(node, "target", None) or getattr(node, "optional_vars", None)
            for n in ast.walk(target) if target is not None else ():
                if isinstance(n, ast.Name):
                    bad.add(n.id)
        elif isinstance(node, (ast.Global, ast.Nonlocal)):
            bad.update(node.names)
        elif isinstance(node, ast.arg):
            bad.add(node.arg)
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
                and isinstance(node.func.value, ast.Name):
            owner, method = node.func.value.id, node.func.attr
            if method == "append" and len(node.args) == 1:
                (named if _stringy_ast(node.args[0]) else bad).add(owner)
            elif method == "extend" and len(node.args) == 1:
                (named if names_display(node.args[0], allow_empty=False) else bad).add(owner)
            elif method in ("insert", "add", "update", "__setitem__"):
                bad.add(owner)
    out.update((good & named) - bad)
    return out


def _name_lists(up) -> set:
    """Names the module binds (anywhere) to a list, tuple, set or comprehension of
    parameter names (cached per module)."""
    cached = getattr(up, "_name_lists", None)
    if cached is not None:
        return cached
    out: set = set()
    up._name_lists = out
    if ".name" not in up.source and "'" not in up.source and '"' not in up.source:
        return out
    try:
        tree = untouched.parse(up.source)
    except SyntaxError:
        return out
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign) and len(node.targets) == 1 \
                and isinstance(node.targets[0], ast.Name):
            v = node.value
            if isinstance(v, ast.Call) and isinstance(v.func, ast.Name) \
                    and v.func.id in ("set", "list") and len(v.args) == 1:
                v = v.args[0]
            if isinstance(v, (ast.List, ast.Tuple, ast.Set)) and any(_stringy_ast(e) for e in v.elts) \
                    or isinstance(v, (ast.ListComp, ast.SetComp, ast.GeneratorExp)) and _stringy_ast(v.elt):
                out.add(node.targets[0].id)
    return out


def _stringy_ast(v) -> bool:
    """``_stringy`` on an ``ast`` expression."""
    if isinstance(v, ast.Constant):
        return isinstance(v.value, str)
    if isinstance(v, ast.JoinedStr):
        return True
    if isinstance(v, ast.BinOp):
        if isinstance(v.op, ast.Add):
            return _stringy_ast(v.left) or _stringy_ast(v.right)
        return isinstance(v.op, ast.Mod) and _stringy_ast(v.left)
    if isinstance(v, ast.Call):
        f = v.func
        return (isinstance(f, ast.Name) and f.id == "str") or (
            isinstance(f, ast.Attribute) and f.attr == "format" and _stringy_ast(f.value))
    return isinstance(v, ast.Attribute) and v.attr == "name"


def _stringy(v) -> bool:
    """An expression that evaluates to a parameter name: a string literal, ``prefix + '_w'``,
    ``'%s_w' % tag``, ``'{}_w'.format(tag)``, ``str(...)`` or ``<param>.name`` (the libcst
    node judged by ``_stringy_ast``)."""
    return _stringy_ast(ast.parse("(" + cst.Module([]).code_for_node(v) + ")", mode="eval").body)


def _list_arg(call: cst.Call, arg: cst.Arg) -> bool:
    i = list(call.args).index(arg)
    kw = arg.keyword.value if arg.keyword is not None else {2: "parameter_list", 3: "no_grad_set"}.get(i)
    return kw in ("parameter_list", "no_grad_set")


def _layer_optimizer(up, original: cst.Call) -> bool:
    """``<opt>.minimize(...)`` of an optimizer the module assigns from a call given
    ``parameter_list=<x>.parameters()`` (1.8's dygraph optimizers needed it)."""
    owner = original.func.value
    if not isinstance(owner, cst.Name):
        return False
    ctor = _assigned_call(up, owner.value)
    return ctor is not None and any(
        k.arg == "parameter_list" and isinstance(k.value, ast.Call)
        and isinstance(k.value.func, ast.Attribute) and k.value.func.attr == "parameters"
        for k in ctor.keywords)


def _dygraph_lists(call: cst.Call) -> bool:
    return any(_list_arg(call, a) for a in call.args)


def _dygraph_module(up) -> bool:
    from upgrader.fixers.static_dropout import dygraph_only
    return dygraph_only(up)


def _backward(up, original: cst.Call, updated: cst.Call):
    """``opt.backward(loss, startup_program, parameter_list, no_grad_set, callbacks)``: today's
    keyword is ``parameters`` (same position)."""
    named = _names_given(updated, up)
    if named:
        up.report(original, CODE, f"`backward({named}=...)` lists variables by name: today's "
                  "Optimizer.backward takes only the variables (names raise TypeError on 3.x)",
                  "paddle.fluid.optimizer.Optimizer.backward",
                  "paddle.optimizer.Optimizer.backward", "manual")
        return updated
    if not any(_list_arg(updated, a) and _kw(updated, a) == "parameter_list"
               for a in updated.args):
        return _backward_order(up, original, updated)
    return _parameters_keyword(up, original, updated, "backward")


def _parameters_keyword(up, original: cst.Call, updated: cst.Call, method: str):
    """``opt.<method>(..., parameter_list=ps)`` → ``opt.<method>(..., parameters=ps)``."""
    args = [a.with_changes(keyword=cst.Name("parameters"))
            if a.keyword is not None and a.keyword.value == "parameter_list" else a
            for a in updated.args]
    up.report(original, CODE, f"`{method}(parameter_list=...)` → `{method}(parameters=...)`",
              f"paddle.fluid.optimizer.Optimizer.{method}", f"paddle.optimizer.Optimizer.{method}",
              "safe", applied=True)
    return updated.with_changes(args=args)


def _kw(call: cst.Call, arg: cst.Arg):
    i = list(call.args).index(arg)
    return arg.keyword.value if arg.keyword is not None else {2: "parameter_list"}.get(i)


def _backward_order(up, original: cst.Call, updated: cst.Call):
    """``opt.backward(loss)`` in a static program, the optimizer built without a parameter
    list: 1.8 listed the program's parameters in creation order, 3.x's PIR backward in
    reverse (each parameter op sits at the top of the block)."""
    from upgrader.fixers.static_dropout import static_only
    if not static_only(up) or any(a.star for a in updated.args):
        return updated
    ctor = _constructors(up).get(updated.func.value.value)
    if ctor is None:  # assigned from something else than a legacy optimizer: order unknown
        return updated
    up.report(original, CODE, "`opt.backward(loss)` → `opt.backward(loss)[::-1]`: on PIR "
              "programs it lists the (param, grad) pairs in reverse creation order (1.8: "
              "creation order)", "paddle.fluid.optimizer.Optimizer.backward",
              "paddle.optimizer.Optimizer.backward", "safe", applied=True)
    from upgrader.fixers.program_methods import _reversed
    return _reversed(updated)


def _constructors(up):
    """optimizer variable -> its first constructor call, when every assignment of the name
    is a legacy optimizer built without a parameter list (the order of backward's pairs is
    then the program's)."""
    cache = getattr(up, "_optimizer_ctor_cache", None)
    if cache is not None:
        return cache
    from upgrader.args import Manual, bind
    from upgrader.names import FastVisitor
    seen = {}

    class V(FastVisitor):
        def visit_Assign(self, node: cst.Assign):
            for t in node.targets:
                if isinstance(t.target, cst.Name):
                    seen.setdefault(t.target.value, []).append(node.value)

    up.module.visit(V())
    cache = {}
    for name in _optimizer_vars(up):
        # every assignment of the name (e.g. `opt = ...` in several functions) must be a
        # legacy optimizer built without a parameter list: then any of them lists the
        # program's parameters
        values = seen.get(name, [])
        ok = bool(values)
        for value in values:
            dotted = up.resolve_dotted(value.func) if isinstance(value, cst.Call) else None
            entry = up.entry_for(dotted) if dotted and dotted.startswith("paddle.fluid.optimizer.") \
                else None
            b = bind(entry, value) if entry is not None else Manual("")
            if isinstance(b, Manual) or "parameter_list" in b.values:
                ok = False
                break
        if ok:
            cache[name] = values[0]
    up._optimizer_ctor_cache = cache
    return cache


def _apply_optimize(up, original: cst.Call, updated: cst.Call):
    """``opt.apply_optimize(loss, startup_program, params_grads)`` (gone on 3.x) →
    ``opt.apply_gradients(params_grads)``: 1.8 built the update ops under
    ``program_guard(loss's program, startup_program)``, apply_gradients builds them in the
    current programs, the same ones inside the ``program_guard`` block that built the loss
    or in a module that only uses the default programs; a statement of its own elsewhere is
    put under the loss's program_guard (``leave_statement``)."""
    legacy, modern = ("paddle.fluid.optimizer.Optimizer.apply_optimize",
                      "paddle.optimizer.Optimizer.apply_gradients")
    pg = loss = startup = None
    for i, a in enumerate(updated.args):
        kw = a.keyword.value if a.keyword is not None else (None if a.star else
                                                           {0: "loss", 1: "startup_program",
                                                            2: "params_grads"}.get(i))
        if kw == "loss":
            loss = a.value
        elif kw == "startup_program":
            startup = a.value
        if kw is None:
            up.report(original, CODE, "`apply_optimize(...)` with unpacked or extra arguments: "
                      "today's optimizer has no apply_optimize; call "
                      "apply_gradients(params_grads) under the loss's program_guard", legacy,
                      modern, "manual")
            return updated
        if kw == "params_grads":
            pg = a
    if pg is None:
        up.report(original, CODE, "`apply_optimize(...)` without params_grads: today's optimizer "
                  "has no apply_optimize; call apply_gradients(params_grads)", legacy, modern,
                  "manual")
        return updated
    guarded = any(isinstance(st, cst.With) and any(
        isinstance(it.item, cst.Call) and _is_guard(up, it.item.func) for it in st.items)
        for st, *_ in up.stmt_stack)
    safe = guarded or "program_guard" not in up.source
    message = ("`opt.apply_optimize(loss, startup_program, params_grads)` → "
               "`opt.apply_gradients(params_grads)` (3.x has no apply_optimize)")
    stmt = up.stmt_stack[-1][0] if up.stmt_stack else None
    if not safe and isinstance(loss, cst.Name) and isinstance(startup, (cst.Name, cst.Attribute)) \
            and isinstance(stmt, cst.SimpleStatementLine) and len(stmt.body) == 1 \
            and getattr(stmt.body[0], "value", None) is original:
        # a statement of its own: leave_statement puts it under the loss's program_guard
        _guard_later(up)[id(stmt)] = (loss.value, code_of(startup))
        safe = True
        message += ", under `paddle.static.program_guard(loss.block.program, startup_program)`"
    if not safe:
        message += ("; unsafe outside a program_guard block: 1.8 built the update ops in the "
                    "loss's program (and startup_program), apply_gradients builds them in the "
                    "current default programs; wrap the call in "
                    "`with paddle.static.program_guard(<loss's program>, <startup_program>):`")
        if not up.opts.unsafe_fixes:
            up.report(original, CODE, message, legacy, modern, "unsafe")
            return updated
    up.report(original, CODE, message, legacy, modern, "safe" if safe else "unsafe",
              applied=True)
    return updated.with_changes(func=updated.func.with_changes(attr=cst.Name("apply_gradients")),
                                args=[pg.with_changes(keyword=None, equal=cst.MaybeSentinel.DEFAULT,
                                                      comma=cst.MaybeSentinel.DEFAULT)])


def _is_guard(up, func) -> bool:
    return up.resolve_dotted(func) in ("paddle.fluid.program_guard",
                                       "paddle.fluid.framework.program_guard",
                                       "paddle.static.program_guard")


def _guard_later(up):
    table = getattr(up, "_guard_later", None)
    if table is None:
        table = up._guard_later = {}
    return table


def _under_guard(up, updated, loss: str, startup: str):
    guard = cst.parse_expression(f"paddle.static.program_guard({loss}.block.program, {startup})")
    inner = updated.with_changes(leading_lines=[])
    wrapped = cst.With(items=[cst.WithItem(item=guard)], body=cst.IndentedBlock(body=[inner]),
                       leading_lines=updated.leading_lines)
    up.wrappers.add(id(wrapped))
    return wrapped


def leave_statement(up, original, updated):
    """``opt.minimize(loss, ...)`` outside the ``program_guard`` that built ``loss``: 3.x
    builds the update ops in the current default program (3.3.1: IndexError on an empty
    default program), 1.8 in the loss's program. The statement is put under
    ``paddle.static.program_guard(loss.block.program, <its startup_program or None>)``."""
    if not isinstance(original, cst.SimpleStatementLine) or len(original.body) != 1:
        return updated
    later = getattr(up, "_guard_later", None)
    if later and id(original) in later:
        return _under_guard(up, updated, *later.pop(id(original)))
    small = original.body[0]
    call = small.value if isinstance(small, (cst.Expr, cst.Assign)) else None
    if not (isinstance(call, cst.Call) and isinstance(call.func, cst.Attribute)
            and call.func.attr.value == "minimize") or not up.opts.enabled(CODE):
        return updated
    extra = _minimize_pairs(up, original, small, call)
    result = _outside_guard(up, original, updated, call)
    return result if extra is None else cst.FlattenSentinel([result, extra])


def _minimize_pairs(up, original, small, call):
    """``ops, pairs = opt.minimize(loss)`` in a static program, no parameter list: 1.8's
    pairs were in the program's creation order, PIR's are reversed; a statement
    ``pairs = pairs[::-1]`` follows."""
    if not (isinstance(small, cst.Assign) and len(small.targets) == 1
            and isinstance(small.targets[0].target, (cst.Tuple, cst.List))):
        return None
    elements = small.targets[0].target.elements
    if len(elements) != 2 or not isinstance(elements[1].value, cst.Name) \
            or elements[1].value.value == "_":
        return None
    owner = call.func.value
    if not (isinstance(owner, cst.Name) and owner.value in _constructors(up)):
        return None
    from upgrader.fixers.static_dropout import static_only
    if not static_only(up) or any(a.star or _list_arg(call, a) and _kw(call, a) == "parameter_list"
                                  for a in call.args):
        return None
    if up.suppressed_node(original, CODE):
        return None
    name = elements[1].value.value
    up.report(original, CODE, f"`ops, {name} = opt.minimize(loss)` → `{name} = {name}[::-1]` "
              "after it: on PIR programs the (param, grad) pairs come in reverse creation order "
              "(1.8: creation order)", "paddle.fluid.optimizer.Optimizer.minimize",
              "paddle.optimizer.Optimizer.minimize", "safe", applied=True)
    return cst.parse_statement(f"{name} = {name}[::-1]\n")


def _outside_guard(up, original, updated, call):
    if "program_guard" not in up.source:
        return updated
    owner = call.func.value
    if not ((isinstance(owner, cst.Name) and owner.value in _optimizer_vars(up)) or
            (isinstance(owner, cst.Call) and
             (up.resolve_dotted(owner.func) or "").startswith("paddle.fluid.optimizer."))):
        return updated
    guards = [it.item for st, *_ in up.stmt_stack[:-1] if isinstance(st, cst.With)
              for it in st.items if isinstance(it.item, cst.Call) and _is_guard(up, it.item.func)]
    loss = startup = None
    for i, a in enumerate(call.args):
        if a.star:
            return updated
        kw = a.keyword.value if a.keyword is not None else {0: "loss", 1: "startup_program"}.get(i)
        if kw == "loss":
            loss = a.value
        elif kw == "startup_program":
            startup = a.value
    if guards:
        # inside a program_guard: only a startup_program other than the guard's matters
        # (3.x creates the optimizer's accumulators in the guard's startup program)
        if startup is None or (isinstance(startup, cst.Name) and startup.value == "None"):
            return updated
        inner = guards[-1]
        given = [a for i, a in enumerate(inner.args) if (a.keyword is None and i == 1) or
                 (a.keyword is not None and a.keyword.value == "startup_program")]
        if given and code_of(given[0].value) == code_of(startup):
            return updated
    # the module's modes last: deciding them walks the whole module, and a minimize inside
    # its program_guard block (the usual case) needs nothing more
    from upgrader.fixers.static_dropout import static_only
    if not static_only(up):
        return updated
    if up.suppressed_node(original, CODE):
        return updated
    if not isinstance(loss, cst.Name) or not (
            startup is None or isinstance(startup, (cst.Name, cst.Attribute))):
        up.report(original, CODE, "`opt.minimize(...)` outside a program_guard block, its loss "
                  "or startup_program not a plain name: 3.x adds the update ops to the current "
                  "default program (1.8: the loss's program); call it under "
                  "`with paddle.static.program_guard(<loss's program>, <startup_program>):`",
                  "paddle.fluid.optimizer.Optimizer.minimize", "paddle.static.program_guard",
                  "manual")
        return updated
    up.report(original, CODE, "`opt.minimize(loss, ...)` → under "
              "`paddle.static.program_guard(loss.block.program, startup_program)`: 3.x adds "
              "the update ops to the current default program and the optimizer's variables to "
              "the current startup program (1.8: the loss's program and the startup_program "
              "given)",
              "paddle.fluid.optimizer.Optimizer.minimize", "paddle.static.program_guard",
              "safe", applied=True)
    return _under_guard(up, updated, loss.value, code_of(startup) if startup is not None else "None")


STATELESS = ("paddle.fluid.optimizer.SGD", "paddle.fluid.optimizer.SGDOptimizer")
TIED = ("the program creates the parameter {names} more than once (weight tying by "
        "ParamAttr name): 1.8 made one parameter, Paddle 3's PIR program gets one parameter "
        "value per use, and {opt} updates the shared weight once per use with that use's "
        "partial gradient (checked on 3.3.1: Adam trains differently; SGD is the same only "
        "without regularization and gradient clipping, which apply once per use). Build "
        "the layer once and call it for every use (one paddle.nn.Linear / paddle.nn.Embedding "
        "object), or create the parameter once with paddle.create_parameter")


def _check_tied(up, original: cst.Call):
    """``minimize`` of a stateful optimizer in a ``program_guard`` block whose layers give
    one literal parameter name more than once (directly, or through a function of the
    module called more than once in the block), or outside every such block when the
    module's code outside them (the default main program) does."""
    tied, calls = _tied_guards(up), _tied_calls(up)
    if not tied and not calls:
        return
    line = up.pos(original)[0]
    names = next((n for (a, b), n in tied.items() if a <= line <= b), set())
    inside = [r for r in calls.get("guards", ()) if r[0] <= line <= r[1]]
    names = set(names) | (calls.get(inside[0], set()) if inside else calls.get("default", set()))
    if not names:
        return
    owner = original.func.value
    ctor = None
    if isinstance(owner, cst.Name):
        from upgrader.fixers.save_load_dygraph import _assignments
        dotted = _assignments(up).get(owner.value)
        if dotted and dotted.startswith("local:"):
            # `opt = optimizer_func()`: the optimizer a function of the module returns
            ctor = _returned_optimizer(up, dotted[len("local:"):])
        elif dotted and dotted in STATELESS:
            ctor = _assigned_call(up, owner.value)
    elif isinstance(owner, cst.Call):
        dotted = up.resolve_dotted(owner.func)
        if dotted is None and isinstance(owner.func, cst.Name):
            ctor = _returned_optimizer(up, owner.func.value)  # optimizer_func().minimize(...)
        elif dotted in STATELESS:
            ctor = ast.parse(code_of(owner).strip(), mode="eval").body
    else:
        dotted = None
    if ctor is not None:
        dotted = _ast_dotted(up, ctor.func)
    if dotted and dotted.startswith("paddle.") and not dotted.startswith("paddle.fluid.optimizer."):
        return  # not an optimizer of 1.8's
    if dotted in STATELESS and not _sgd_with_extras(up, ctor):
        return
    # an optimizer the module does not show (built by a lambda, passed in, imported) may
    # be stateful: reported too
    opt = dotted.rsplit(".", 1)[1] if dotted and dotted.startswith("paddle.fluid.optimizer.") \
        else f"the optimizer (`{code_of(owner).strip()}`, which may be stateful)"
    up.report(original, CODE, TIED.format(names=", ".join(repr(n) for n in sorted(names)),
                                          opt=opt),
              "paddle.fluid.optimizer.Optimizer.minimize", "paddle.optimizer.Optimizer.minimize",
              "manual")


def _ast_dotted(up, func) -> str:
    """The dotted legacy name an ``ast`` callee spells (``fluid.optimizer.SGD`` with the
    module's imports), or ""."""
    parts = []
    while isinstance(func, ast.Attribute):
        parts.append(func.attr)
        func = func.value
    if not isinstance(func, ast.Name):
        return ""
    base = up.imports.resolve_name(func.id)
    return ".".join([base] + parts[::-1]) if base else ""


def _module_defs(up) -> dict:
    tree = untouched.parse(up.source)  # shared with the engine's passes: read only
    return {n.name: n for n in untouched.walk(tree)
            if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))}


def _assigned_call(up, name):
    """The ``ast.Call`` last assigned to ``name`` in the module (``sgd = fluid.optimizer.SGD(...)``)."""
    got = None
    for n in untouched.walk(untouched.parse(up.source)):
        if isinstance(n, ast.Assign) and isinstance(n.value, ast.Call) and any(
                isinstance(t, ast.Name) and t.id == name for t in n.targets):
            if got is None or (n.lineno, n.col_offset) > (got.lineno, got.col_offset):
                got = n
    return got.value if got is not None else None


def _returned_optimizer(up, fname):
    """The legacy optimizer constructor (``ast.Call``) a function of the module returns:
    ``return fluid.optimizer.Adam(...)``, or ``opt = fluid.optimizer.Adam(...); return opt``
    (the book's ``optimizer_func()``); None when it returns anything else."""
    fn = _module_defs(up).get(fname)
    if fn is None:
        return None
    for n in untouched.walk(fn):
        if not isinstance(n, ast.Return) or n.value is None:
            continue
        v = n.value
        if isinstance(v, ast.Name):
            calls = sorted((a.lineno, a.col_offset, a.value) for a in untouched.walk(fn)
                           if isinstance(a, ast.Assign) and isinstance(a.value, ast.Call)
                           and any(isinstance(t, ast.Name) and t.id == v.id for t in a.targets))
            v = calls[-1][2] if calls else None
        if isinstance(v, ast.Call) and _ast_dotted(up, v.func).startswith("paddle.fluid.optimizer."):
            return v
    return None


def _sgd_with_extras(up, ctor) -> bool:
    """SGD updates a tied weight once per use too, which is the same as one update by the
    summed gradient, unless a regularizer (given to SGD or in a ParamAttr of the module) or
    gradient clipping is applied per use (checked on 3.3.1 against 1.8.5: L2Decay and
    GradientClipByGlobalNorm train differently). ``ctor`` None: the call is unknown."""
    if re.search(r"\bregularizer\s*=|set_gradient_clip", up.source):
        return True
    if ctor is None:
        return False
    if len(ctor.args) > 2 or any(a.arg is None for a in ctor.keywords):
        return True
    return any(k.arg in ("regularization", "grad_clip") and not (
        isinstance(k.value, ast.Constant) and k.value.value is None) for k in ctor.keywords)


# a literal parameter name: ParamAttr('w') / ParamAttr(name='w') / param_attr='w' / bias_attr='b'
_LITERAL_NAME = re.compile(r"""ParamAttr\(\s*[rRuU]?['"]|ParamAttr\(.{0,400}?\bname\s*=\s*[rRuU]?['"]|(?:param|bias)_attr\s*=\s*[rRuU]?['"]""", re.DOTALL)


def _literal_names(call) -> list:
    """The literal parameter names one ``ast.Call`` gives: ``ParamAttr('w')`` /
    ``ParamAttr(name='w')``, ``param_attr='w'`` / ``bias_attr='b'``."""
    out = []
    fname = call.func.attr if isinstance(call.func, ast.Attribute) else getattr(call.func, "id", "")
    if fname == "ParamAttr":
        args = [k.value for k in call.keywords if k.arg == "name"] + call.args[:1]
        out += [a.value for a in args[:1] if isinstance(a, ast.Constant) and isinstance(a.value, str)]
    for k in call.keywords:
        if k.arg in ("param_attr", "bias_attr") and isinstance(k.value, ast.Constant) \
                and isinstance(k.value.value, str):
            out.append(k.value.value)
    return out


_LOOPS = (ast.For, ast.AsyncFor, ast.While, ast.ListComp, ast.SetComp, ast.DictComp,
          ast.GeneratorExp)


def _is_guard_block(n) -> bool:
    return type(n) is ast.With and any(
        isinstance(i.context_expr, ast.Call) and "program_guard" in ast.dump(i.context_expr.func)
        for i in n.items)


def _fold_early_returns(nodes) -> list:
    """A statement list in which an ``if`` without ``else`` ends in ``return`` / ``raise``:
    the statements after it run only when its test is false, so they become its ``else``
    (ResNet's shortcut: ``if is_first: return conv_bn(...)`` then ``return conv_bn(...)``,
    one parameter name created in one of the two). Other lists are returned as a list."""
    nodes = list(nodes)
    for i, s in enumerate(nodes):
        if type(s) is ast.If and not s.orelse and s.body and i + 1 < len(nodes) \
                and type(s.body[-1]) in (ast.Return, ast.Raise):
            folded = ast.If(test=s.test, body=s.body, orelse=_fold_early_returns(nodes[i + 1:]))
            return nodes[:i] + [ast.copy_location(folded, s)]
    return nodes


def _tied_calls(up) -> dict:
    """What ``_tied_guards`` does not see: a layer that may run more than once because it
    sits in a loop or comprehension, or in a function of the module called there, called
    by a function the block calls, or mapped (``map(embedding_layer, ids)``: PaddleRec's
    CTR-DNN, one embedding named 'SparseFeatFactors' per sparse slot); and the same for
    the code outside every ``program_guard`` block, which builds the default main program.
    Returns {"guards": [(first, last line) of each block], (first, last): names,
    "default": names}; {} when the module names no parameter by a literal string."""
    cached = getattr(up, "_tied_calls_cache", None)
    if cached is not None:
        return cached
    cached = up._tied_calls_cache = {}
    if not _LITERAL_NAME.search(up.source) and not _COMPUTED_NAME.search(up.source):
        return cached
    try:
        tree = untouched.parse(up.source)  # shared with the engine's passes: read only
    except SyntaxError:
        return cached
    defs, methods, guards = {}, {}, []
    for n in ast.walk(tree):
        if type(n) is ast.FunctionDef or type(n) is ast.AsyncFunctionDef:
            defs[n.name] = n
        elif type(n) is ast.ClassDef:
            for f in n.body:
                if type(f) is ast.FunctionDef or type(f) is ast.AsyncFunctionDef:
                    methods[f.name] = f
                    if f.name == "__init__":
                        methods[n.name] = f  # Net(...) runs Net.__init__
        elif _is_guard_block(n):
            guards.append(n)
    memo = {}
    module_values = _single_assignments(tree)

    def function_counts(name, skip_guards, stack, table=None, env=None):
        table = defs if table is None else table
        fn = table[name]
        # the string / int arguments the call passes (or the defaults): names computed from
        # them (``ParamAttr(name=name + '_w')``) are known in this call
        env = _call_env(fn, env, table is methods)
        key = (name, skip_guards, table is methods, tuple(sorted(env.items())))
        if key not in memo:
            memo[key] = {}  # a recursive call counts nothing more
            memo[key] = counts(fn.body, skip_guards, stack | {name}, env, _single_assignments(fn))
        return memo[key]

    def counts(nodes, skip_guards, stack, env=None, local=None):
        env = env or {}
        values = dict(module_values)
        values.update(local or {})

        def value(e, depth=0):
            return _evaluate(e, env, values, depth)

        out = {}
        todo = [(n, 1) for n in _fold_early_returns(nodes)]
        while todo:
            n, m = todo.pop()
            t = type(n)
            if t in (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef) or (skip_guards and _is_guard_block(n)):
                continue  # a function counts where it is called; a block builds another program
            if t is ast.For and isinstance(n.target, ast.Name) and not n.orelse:
                items = _evaluate(n.iter, env, values)
                if isinstance(items, (str, tuple)) and len(items) <= 64:
                    # `for cmd in process_cmd` over a known string (the transformers'
                    # pre_post_process_layer): each iteration with its value
                    for item in items:
                        inner = dict(env)
                        inner[n.target.id] = item
                        for name, c in counts(n.body, skip_guards, stack, inner, local).items():
                            out[name] = out.get(name, 0) + c * m
                    continue
            if t in _LOOPS:
                m = 2
            if t is ast.If or t is ast.IfExp:
                test = _truth(n.test, env, values)
                if test is not None:  # decided by the call's arguments: that branch only
                    taken = n.body if test else n.orelse
                    todo.extend((x, m) for x in (taken if isinstance(taken, list) else [taken]))
                    continue
            if t is ast.If:  # one branch runs: the larger count of the two
                todo.append((n.test, m))
                a = counts(n.body, skip_guards, stack, env, local)
                b = counts(n.orelse, skip_guards, stack, env, local)
                for name in set(a) | set(b):
                    out[name] = out.get(name, 0) + max(a.get(name, 0), b.get(name, 0)) * m
                continue
            if t is ast.Call:
                for name in _computed_names(n, value):
                    out[name] = out.get(name, 0) + m
                called = [(n.func.id, m)] if type(n.func) is ast.Name else []
                if type(n.func) is ast.Name and n.func.id == "map":
                    called += [(a.id, 2) for a in n.args[:1] if type(a) is ast.Name]
                passed = _passed_values(n, value)
                for fname, k in called:
                    given = passed if fname == getattr(n.func, "id", None) else None
                    if fname in defs and fname not in stack:
                        for name, c in function_counts(fname, skip_guards, stack, None, given).items():
                            out[name] = out.get(name, 0) + c * k
                    elif fname in methods and fname not in defs and fname not in stack:
                        # a class of the module built here: its __init__ runs
                        for name, c in function_counts(fname, skip_guards, stack, methods, given).items():
                            out[name] = out.get(name, 0) + c * k
                if type(n.func) is ast.Attribute and n.func.attr in methods and n.func.attr not in stack:
                    # model.net() / self.embedding_layer(x): a method of a class of the module
                    # (PaddleRec's CTR-DNN builds its network in CTR().net())
                    for name, c in function_counts(n.func.attr, skip_guards, stack, methods, passed).items():
                        out[name] = out.get(name, 0) + c * m
            for field in n._fields:
                v = getattr(n, field, None)
                if type(v) is list:
                    todo.extend((x, m) for x in v if isinstance(x, ast.AST))
                elif isinstance(v, ast.AST):
                    todo.append((v, m))
        return out

    cached["guards"] = [(w.lineno, w.end_lineno) for w in guards]
    for w in guards:
        names = {k for k, c in counts(w.body, False, frozenset()).items() if c > 1}
        if names:
            cached[(w.lineno, w.end_lineno)] = names
    cached["default"] = {k for k, c in counts(tree.body, True, frozenset()).items() if c > 1}
    if len(cached) == 2 and not cached["default"]:
        cached.clear()  # nothing tied: the cheap test of check_call stays false
    return cached


# a parameter name computed from a variable: ParamAttr(name=prefix + '_w'), param_attr=name + 'w'
_COMPUTED_NAME = re.compile(r"ParamAttr\(|(?:param|bias)_attr\s*=")


def _single_assignments(node) -> dict:
    """Names assigned exactly once in ``node``'s own code (a function body without the
    functions and classes it defines, or the module) by a plain ``name = <expr>``, and never
    otherwise bound there: name -> the expression (``bn_name = 'bn_' + name``)."""
    body = node.body if hasattr(node, "body") else []
    counts, exprs = {}, {}
    todo = list(body)
    while todo:
        n = todo.pop()
        if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
            counts[getattr(n, "name", "")] = counts.get(getattr(n, "name", ""), 0) + 2
            continue
        if isinstance(n, ast.Assign) and len(n.targets) == 1 and isinstance(n.targets[0], ast.Name):
            exprs[n.targets[0].id] = n.value
        if isinstance(n, ast.Name) and not isinstance(n.ctx, ast.Load):
            counts[n.id] = counts.get(n.id, 0) + 1
        elif isinstance(n, (ast.Global, ast.Nonlocal)):
            for g in n.names:
                counts[g] = counts.get(g, 0) + 2
        todo.extend(ast.iter_child_nodes(n))
    return {k: v for k, v in exprs.items() if counts.get(k) == 1}


def _evaluate(e, env: dict, values: dict, depth: int = 0):
    """The str / int value of ``e`` from literals, the call's arguments (``env``) and names
    assigned once (``values``: evaluated in turn), with ``+``, ``%``, f-strings and
    ``str.format``; None when unknown."""
    if depth > 8 or e is None:
        return None
    if isinstance(e, ast.Constant):
        return e.value if isinstance(e.value, (str, int, float)) else None
    if isinstance(e, ast.Name):
        if e.id in env:
            return env[e.id]
        if e.id in values:
            return _evaluate(values[e.id], env, values, depth + 1)
        return None
    if isinstance(e, ast.BinOp):
        a = _evaluate(e.left, env, values, depth + 1)
        b = _evaluate(e.right, env, values, depth + 1)
        if a is None or b is None:
            return None
        try:
            if isinstance(e.op, ast.Add) and type(a) is type(b):
                return a + b
            if isinstance(e.op, ast.Mod) and isinstance(a, str):
                return a % b
            if isinstance(e.op, ast.Mult) and isinstance(a, int) and isinstance(b, int):
                return a * b
        except (TypeError, ValueError):
            return None
        return None
    if isinstance(e, ast.JoinedStr):
        parts = []
        for v in e.values:
            if isinstance(v, ast.FormattedValue):
                if v.format_spec is not None or v.conversion not in (-1, None):
                    return None
                x = _evaluate(v.value, env, values, depth + 1)
                if x is None:
                    return None
                parts.append(str(x))
            else:
                x = _evaluate(v, env, values, depth + 1)
                if not isinstance(x, str):
                    return None
                parts.append(x)
        return "".join(parts)
    if isinstance(e, ast.Tuple):
        items = [_evaluate(x, env, values, depth + 1) for x in e.elts]
        return tuple(items) if all(x is not None for x in items) else None
    if isinstance(e, ast.Call) and isinstance(e.func, ast.Attribute) and e.func.attr == "format" \
            and not e.keywords:
        fmt = _evaluate(e.func.value, env, values, depth + 1)
        args = [_evaluate(a, env, values, depth + 1) for a in e.args]
        if isinstance(fmt, str) and all(a is not None for a in args):
            try:
                return fmt.format(*args)
            except (IndexError, KeyError, ValueError):
                return None
    return None


def _truth(e, env: dict, values: dict):
    """The truth of an ``if`` test decided by known values (``use_bias``, ``not norm``,
    ``relufactor == 0.0``, ``padding_type == 'SAME'``), or None."""
    if isinstance(e, ast.UnaryOp) and isinstance(e.op, ast.Not):
        got = _truth(e.operand, env, values)
        return None if got is None else not got
    if isinstance(e, ast.Compare) and len(e.ops) == 1 and isinstance(e.ops[0], (ast.Eq, ast.NotEq)):
        a = _evaluate(e.left, env, values)
        b = _evaluate(e.comparators[0], env, values)
        if a is None or b is None:
            return None
        return (a == b) if isinstance(e.ops[0], ast.Eq) else (a != b)
    if isinstance(e, (ast.Constant, ast.Name)):
        got = _evaluate(e, env, values)
        return None if got is None else bool(got)
    return None


def _computed_names(call, value) -> list:
    """The parameter names one ``ast.Call`` gives whose value is known: ``ParamAttr(name=...)``
    / ``ParamAttr('...')``, a string ``param_attr=`` / ``bias_attr=`` (literals, or computed
    from known values with ``value``)."""
    out = []
    fname = call.func.attr if isinstance(call.func, ast.Attribute) else getattr(call.func, "id", "")
    if fname == "ParamAttr":
        args = [k.value for k in call.keywords if k.arg == "name"] + call.args[:1]
        got = value(args[0]) if args else None
        if isinstance(got, str):
            out.append(got)
    for k in call.keywords:
        if k.arg in ("param_attr", "bias_attr"):
            got = value(k.value)
            if isinstance(got, str):
                out.append(got)
    return out


_UNKNOWN = object()


def _passed_values(call, value) -> dict:
    """What a call passes: {position or keyword: its value, or _UNKNOWN}; {"*": _UNKNOWN}
    with ``*args`` / ``**kwargs``."""
    out = {}
    for i, a in enumerate(call.args):
        if isinstance(a, ast.Starred):
            return {"*": _UNKNOWN}
        got = value(a)
        out[i] = _UNKNOWN if got is None else got
    for k in call.keywords:
        if k.arg is None:
            return {"*": _UNKNOWN}
        got = value(k.value)
        out[k.arg] = _UNKNOWN if got is None else got
    return out


def _call_env(fn, passed, method: bool) -> dict:
    """The parameters of ``fn`` whose value is known in this call (``_passed_values``):
    passed as a known str / int, or not passed and given a literal default. An unknown call
    (``passed`` None, ``map(fn, ...)``, star arguments) knows none."""
    if passed is None or "*" in passed:
        return {}
    args = fn.args
    positional = [a.arg for a in args.posonlyargs + args.args]
    defaults = dict(zip(positional[len(positional) - len(args.defaults):], args.defaults))
    defaults.update({a.arg: d for a, d in zip(args.kwonlyargs, args.kw_defaults) if d is not None})
    params = positional[1:] if method and positional and positional[0] in ("self", "cls") else positional
    env = {}
    for i, p in enumerate(params + [a.arg for a in args.kwonlyargs]):
        if i < len(params) and i in passed:
            got = passed[i]
        elif p in passed:
            got = passed[p]
        elif p in defaults:
            got = _evaluate(defaults[p], {}, {})
        else:
            continue
        if got is not None and got is not _UNKNOWN:
            env[p] = got
    return env


def _tied_guards(up):
    """(first line, last line) of each ``with ...program_guard(...)`` block -> the literal
    parameter names its layers create more than once.

    One walk of the module finds its functions (the last one of a name in ``ast.walk``'s
    order counts) and its ``program_guard`` blocks (in that order); each block's statements are walked
    once, and a function's own names are collected only when such a block calls it."""
    cached = getattr(up, "_tied_cache", None)
    if cached is not None:
        return cached
    cached = up._tied_cache = {}
    if "program_guard" not in up.source or not _LITERAL_NAME.search(up.source):
        return cached  # no parameter is named by a literal string: nothing can be tied
    try:
        tree = untouched.parse(up.source)  # shared with the engine's passes: read only
    except SyntaxError:
        return cached
    walk = untouched.walk  # depth first: the counts do not depend on the order

    defs, guards = {}, []
    level = [tree]
    while level:  # breadth first, in ast.walk's order, without its per-field generators
        below = []
        for n in level:
            t = type(n)
            if t is ast.FunctionDef or t is ast.AsyncFunctionDef:
                defs[n.name] = n
            elif t is ast.With and any(
                    isinstance(i.context_expr, ast.Call) and "program_guard" in ast.dump(i.context_expr.func)
                    for i in n.items):
                guards.append(n)
            for field in n._fields:
                v = getattr(n, field, None)
                if type(v) is list:
                    below.extend([x for x in v if isinstance(x, ast.AST)])
                elif isinstance(v, ast.AST):
                    below.append(v)
        level = below
    functions = {}
    looped = set()  # ids of calls in a loop body: they may run (create a layer) repeatedly
    for n in walk(tree):
        if isinstance(n, (ast.For, ast.AsyncFor, ast.While)):
            looped.update(id(c) for st in n.body for c in walk(st) if isinstance(c, ast.Call))
        elif isinstance(n, (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)):
            looped.update(id(c) for c in walk(n) if isinstance(c, ast.Call))

    def times(call):
        return 2 if id(call) in looped else 1

    def count(nodes, calls_defs=True):
        """Literal names -> times the statements ``nodes`` create them. One branch of an
        ``if`` (or ``a if t else b``) runs: its count is the larger of the two."""
        out = {}

        def add(name, c):
            out[name] = out.get(name, 0) + c

        todo = _fold_early_returns(nodes)
        while todo:
            n = todo.pop()
            t = type(n)
            if t is ast.If or t is ast.IfExp:
                todo.append(n.test)
                body = n.body if t is ast.If else [n.body]
                orelse = n.orelse if t is ast.If else [n.orelse]
                a, b = count(body, calls_defs), count(orelse, calls_defs)
                for name in set(a) | set(b):
                    add(name, max(a.get(name, 0), b.get(name, 0)))
                continue
            if t is ast.Call:
                for name in _literal_names(n):
                    add(name, times(n))
                if calls_defs and isinstance(n.func, ast.Name) and n.func.id in defs:
                    for name, c in function_names(n.func.id).items():
                        add(name, c * times(n))
            for field in n._fields:
                v = getattr(n, field, None)
                if type(v) is list:
                    todo.extend(x for x in v if isinstance(x, ast.AST))
                elif isinstance(v, ast.AST):
                    todo.append(v)
        return out

    def function_names(name):
        got = functions.get(name)
        if got is None:
            got = functions[name] = count(defs[name].body, calls_defs=False)
        return got

    for w in guards:
        counts = count(w.body)
        names = {n for n, c in counts.items() if c > 1}
        if names:
            cached[(w.lineno, w.end_lineno)] = names
    return cached
