"""PU207 optimizer-minimize: optimizer methods whose 1.x spelling is gone.

What it does
    In a file that uses legacy Paddle, ``<opt>.minimize(loss, parameter_list=ps)`` becomes
    ``<opt>.minimize(loss, parameters=ps)``; on a variable assigned from a legacy optimizer,
    ``<opt>.set_dict(state)`` becomes ``<opt>.set_state_dict(state)`` and
    ``<opt>.current_step_lr()`` becomes ``<opt>.get_lr()``.

Why is this bad?
    Today's ``Optimizer.minimize`` names the argument ``parameters`` (``parameter_list=``
    raises TypeError), and ``Optimizer.set_dict`` / ``current_step_lr`` no longer exist:
    the program fails at run time although every name it imports was rewritten.

Example
    In a static program ``adam.minimize(avg_loss, parameter_list=[w1, w2])`` →
    ``adam.minimize(avg_loss, parameters=[w1, w2])``; in dygraph code
    ``adam.minimize(loss, parameter_list=model.parameters())`` → ``adam.minimize(loss)``.

Fix safety
    Safe: the same optimizer method under its modern name. ``minimize``'s keyword is
    renamed on any object (no other Paddle API has ``minimize(parameter_list=)``); the
    other two only on variables assigned from a legacy optimizer in the same file. A
    ``parameter_list`` or ``no_grad_set`` literal holding parameter names (strings, which
    1.8 accepted) is manual: today's minimize takes only the parameters themselves. In a
    module with dynamic-mode code and no static graph, both arguments are dropped instead:
    1.8.5's dygraph ``minimize`` ignored them and updated the optimizer's own parameters
    (checked), where today's would honour them.
"""
from __future__ import annotations

import libcst as cst

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
    if name == "minimize":
        named = _names_given(updated)
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
        args = [a.with_changes(keyword=cst.Name("parameters"))
                if a.keyword is not None and a.keyword.value == "parameter_list" else a
                for a in updated.args]
        up.report(original, CODE, "`minimize(parameter_list=...)` → `minimize(parameters=...)`",
                  "paddle.fluid.optimizer.Optimizer.minimize", "paddle.optimizer.Optimizer.minimize",
                  "safe", applied=True)
        return updated.with_changes(args=args)
    if name in RENAMES and isinstance(f.value, cst.Name) and f.value.value in _optimizer_vars(up):
        up.report(original, CODE, f"optimizer `.{name}()` → `.{RENAMES[name]}()`",
                  f"paddle.fluid.optimizer.Optimizer.{name}",
                  f"paddle.optimizer.Optimizer.{RENAMES[name]}", "safe", applied=True)
        return updated.with_changes(func=f.with_changes(attr=cst.Name(RENAMES[name])))
    return updated


def _names_given(call: cst.Call):
    """``parameter_list`` / ``no_grad_set`` given as a literal holding a string (1.8 took
    parameter names as well as variables): the argument's name, or None."""
    for i, a in enumerate(call.args):
        kw = a.keyword.value if a.keyword is not None else {2: "parameter_list", 3: "no_grad_set"}.get(i)
        if kw not in ("parameter_list", "no_grad_set"):
            continue
        v = a.value
        if isinstance(v, cst.Call) and isinstance(v.func, cst.Name) and v.func.value in ("set", "list") \
                and v.args:
            v = v.args[0].value
        if isinstance(v, (cst.List, cst.Tuple, cst.Set)) and any(
                isinstance(e.value, (cst.SimpleString, cst.ConcatenatedString, cst.FormattedString))
                for e in v.elements if isinstance(e, cst.Element)):
            return kw
    return None


def _list_arg(call: cst.Call, arg: cst.Arg) -> bool:
    i = list(call.args).index(arg)
    kw = arg.keyword.value if arg.keyword is not None else {2: "parameter_list", 3: "no_grad_set"}.get(i)
    return kw in ("parameter_list", "no_grad_set")


def _dygraph_lists(call: cst.Call) -> bool:
    return any(_list_arg(call, a) for a in call.args)


def _dygraph_module(up) -> bool:
    from upgrader.fixers.static_dropout import dygraph_only
    return dygraph_only(up)
