"""PU105 inference-model: ``fluid.io.save_inference_model`` / ``load_inference_model``
become two small functions fix adds to the module, which keep 1.8's arguments and save
and load today's format inside the same directory.

What it does
    ``fluid.io.save_inference_model(dirname, ["img"], [prediction], exe)`` becomes
    ``_fluid_save_inference_model(dirname, ["img"], [prediction], exe)`` and
    ``fluid.io.load_inference_model(dirname, exe)`` becomes
    ``_fluid_load_inference_model(dirname, exe)`` (the same arguments), and ``fix`` adds
    the functions it calls once, after the module's imports::

        def _fluid_save_inference_model(dirname, feeded_var_names, target_vars, executor,
                                        main_program=None, model_filename=None,
                                        params_filename=None, export_for_deployment=True,
                                        program_only=False): ...
        def _fluid_load_inference_model(dirname, executor, model_filename=None,
                                        params_filename=None, pserver_endpoints=None): ...

    The first looks the feed variables up by name among the program's data variables and
    calls ``paddle.static.save_inference_model(<dirname>/<model_filename or '__model__'>,
    feed_vars, target_vars, executor, program=main_program)``; the second calls
    ``paddle.static.load_inference_model`` on the same path prefix and returns its
    ``[program, feed_target_names, fetch_targets]``, as 1.8 did.

Why is this bad?
    Both functions are gone from ``paddle.fluid.io``. Today's ``save_inference_model`` takes
    a path prefix and the feed variables themselves, not a directory and names, and
    writes ``<prefix>.json`` (``.pdmodel`` off PIR) and ``<prefix>.pdiparams``; today's
    ``load_inference_model`` reads that prefix.

Example
    ``fluid.io.save_inference_model(params_dirname, ["img"], [prediction], exe)`` /
    ``[program, feed_names, fetch_targets] = fluid.io.load_inference_model(params_dirname,
    exe)`` → ``_fluid_save_inference_model(params_dirname, ["img"], [prediction], exe)`` /
    ``[program, feed_names, fetch_targets] = _fluid_load_inference_model(params_dirname,
    exe)``.

Fix safety
    Unsafe: the files in the directory change. 1.8 wrote ``__model__`` (or
    ``model_filename``) and one file per parameter (or ``params_filename``); today's
    format is ``__model__.json`` and ``__model__.pdiparams`` (``<model_filename>.*``), so a
    model saved by 1.8 cannot be loaded (re-export it) and deployment code that reads the
    directory (C++ inference, serving) needs the new names. Within the upgraded code the
    round trip gives 1.8.5's results: the saved program is pruned to the targets and runs
    in inference mode (batch norm with its running statistics, dropout scaled by
    ``1 - p``), and loading returns the feed names and fetch targets (checked against
    1.8.5, tests/test_programs_proof.py: static_inference_model). ``compat`` uses the
    same paths, so a model saved through compat loads after ``fix`` and the other way
    round. Manual when the value of ``save_inference_model`` is used (1.8 returned the
    fetch targets' names, which a PIR program does not have),
    ``export_for_deployment``/``program_only`` or ``pserver_endpoints`` are given other
    than their defaults, or the module already uses a function's name for something else.
"""
from __future__ import annotations

from typing import Optional

import libcst as cst

from upgrader.args import code_of, literal

CODE = "PU105"
STRUCTURAL = ("inference-model",)
SAVE = "_fluid_save_inference_model"
LOAD = "_fluid_load_inference_model"
#: what docs/rules.md and explain show instead of the entry's target
HELPERS = {"inference-model": f"{SAVE} / {LOAD} (functions fix adds to the module)"}

SAVE_SOURCE = f'''def {SAVE}(dirname, feeded_var_names, target_vars, executor, main_program=None,
                                model_filename=None, params_filename=None,
                                export_for_deployment=True, program_only=False):
    """Paddle 1.8's fluid.io.save_inference_model: today's format (path prefix
    <dirname>/<model_filename or '__model__'>), the feed variables looked up by name."""
    import os
    program = main_program if main_program is not None else paddle.static.default_main_program()
    names = [feeded_var_names] if isinstance(feeded_var_names, str) else list(feeded_var_names)
    feed_vars = []
    for name in names:
        if not isinstance(name, str):
            feed_vars.append(name)
            continue
        found = [op.result(0) for op in program.global_block().ops
                 if op.name() == 'pd_op.data' and op.attrs().get('name') == name]
        if not found:
            raise ValueError('save_inference_model: no data variable named %r in the program' % (name,))
        feed_vars.append(found[0])
    targets = list(target_vars) if isinstance(target_vars, (list, tuple)) else [target_vars]
    if program_only or not export_for_deployment:
        raise ValueError('save_inference_model: program_only / export_for_deployment=False '
                         'have no counterpart today')
    os.makedirs(dirname, exist_ok=True)
    paddle.static.save_inference_model(os.path.join(dirname, model_filename or '__model__'),
                                       feed_vars, targets, executor, program=program)
'''

LOAD_SOURCE = f'''def {LOAD}(dirname, executor, model_filename=None, params_filename=None,
                                pserver_endpoints=None):
    """Paddle 1.8's fluid.io.load_inference_model of a model saved by
    {SAVE}: [program, feed_target_names, fetch_targets]."""
    import os
    if pserver_endpoints is not None:
        raise ValueError('load_inference_model: pserver_endpoints has no counterpart today')
    return paddle.static.load_inference_model(os.path.join(dirname, model_filename or '__model__'),
                                              executor)
'''

_SOURCES = {SAVE: SAVE_SOURCE, LOAD: LOAD_SOURCE}


def _state(up, name: str) -> str:
    from upgrader.fixers import helper_state
    return helper_state(up, name, _SOURCES[name])


def _value_used(up, original: cst.Call) -> bool:
    """The call is not a statement of its own (its value goes somewhere)."""
    if not up.stmt_stack:
        return True
    stmt = up.stmt_stack[-1][0]
    return not (isinstance(stmt, cst.SimpleStatementLine) and any(
        isinstance(s, cst.Expr) and s.value is original for s in stmt.body))


def _not_default(bound, name: str, default) -> Optional[str]:
    """The source of the argument given for ``name`` unless it is the literal default."""
    arg = bound.values.get(name)
    if arg is None:
        return None
    src = code_of(arg.value)
    return None if literal(src) == ("ok", default) else src


def rewrite_call(up, original: cst.Call, updated: cst.Call, entry):
    from upgrader.args import Manual, bind
    save = entry.name.endswith("save_inference_model")
    helper = SAVE if save else LOAD
    if not up.can_apply(entry, original):
        up.report(original, CODE, f"`{entry.short}` → `{helper}` (unsafe: {entry.note}); apply "
                  "with --unsafe-fixes", entry.name, entry.target, entry.safety,
                  todo=f"`{entry.short}` → `{helper}` can change results; review, then "
                  "`paddle-upgrade fix --unsafe-fixes`.")
        return updated
    # the functions take 1.8's parameters: `**kwargs` passes through (they check at run time)
    unpacked = any(a.star == "**" for a in updated.args)
    bound = None if unpacked else bind(entry, updated)
    why = None
    if isinstance(bound, Manual):
        why = bound.reason
    elif _state(up, helper) == "conflict":
        why = f"the module already uses the name {helper} for something else"
    elif save and _value_used(up, original):
        why = ("its value is used: 1.8 returned the names of the saved fetch targets, which "
               "the values of a Paddle 3 (PIR) program do not have")
    elif bound is None:
        pass
    elif save:
        for name, default in (("export_for_deployment", True), ("program_only", False)):
            given = _not_default(bound, name, default)
            if given is not None:
                why = f"{name}={given} has no counterpart today"
                break
    else:
        given = _not_default(bound, "pserver_endpoints", None)
        if given is not None:
            why = f"pserver_endpoints={given} has no counterpart today"
    if why is not None:
        up.report_entry(original, entry, False, manual=f"{why}; {entry.note}")
        return updated
    up.__dict__.setdefault("_inference_model_used", set()).add(helper)
    up.report(original, CODE, f"`{entry.short}` → `{helper}` (a function fix adds to the module: "
              "1.8's arguments, today's files <dirname>/<model_filename or '__model__'>.json "
              "and .pdiparams)", entry.name, entry.target, entry.safety, applied=True)
    return updated.with_changes(func=cst.Name(helper))


def finish_module(up, module: cst.Module) -> cst.Module:
    """Add the functions the rewrites call after the module's docstring and imports."""
    used = up.__dict__.get("_inference_model_used")
    if not used:
        return module
    from upgrader.fixers import insert_after_head
    return insert_after_head(module, [_SOURCES[n] for n in (SAVE, LOAD)
                                      if n in used and _state(up, n) == "insert"])
