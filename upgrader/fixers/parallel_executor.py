"""PU101 parallel-executor: ``fluid.ParallelExecutor`` becomes a small class fix adds to the
module.

What it does
    ``pe = fluid.ParallelExecutor(use_cuda=False, loss_name=loss.name, main_program=prog)``
    becomes ``pe = _FluidParallelExecutor(use_cuda=False, main_program=prog)`` (the other
    arguments as they were, ``loss_name`` dropped), and ``fix`` adds once, after the
    module's imports, a class of that name whose ``run(fetch_list, feed)`` runs the
    program with an executor in the scope, as 1.8's did on one device::

        class _FluidParallelExecutor(object):
            def __init__(self, use_cuda, loss_name=None, main_program=None, ...): ...
            def run(self, fetch_list, feed=None, feed_dict=None, return_numpy=True): ...
            device_count / drop_local_exe_scopes()

    ``pe.run(fetch_list=[loss.name], feed=...)`` then fetches ``loss`` (PU211).

Why is this bad?
    ``ParallelExecutor`` is gone in 3.x. 1.8.5's was a thin wrapper: it compiled
    ``main_program`` (default: the default main program) with ``with_data_parallel`` and
    ran it with an ``Executor`` in ``scope`` (default: the global scope when it was made),
    ``share_vars_from`` sharing that scope's variables; ``loss_name`` only chose the loss
    whose gradient is scaled across devices. On one device that is a plain executor run.
    ``loss.name`` itself raises ValueError for most PIR values, hence it is dropped; so is
    an ``exec_strategy=<name>`` (its ExecutionStrategy, gone in 3.x, is deleted with its
    attribute assignments when nothing else uses it, PU101 exec-strategy).

Example
    ``pe = fluid.ParallelExecutor(use_cuda=False, loss_name=loss.name, main_program=main)`` /
    ``loss_v, = pe.run(fetch_list=[loss.name], feed=feed)`` →
    ``pe = _FluidParallelExecutor(use_cuda=False, main_program=main)`` /
    ``loss_v, = pe.run(fetch_list=[loss], feed=feed)``.

Fix safety
    Safe on one device: ``use_cuda`` a literal False and the module not setting
    ``CPU_NUM`` above 1 (program static_infra_parallel_executor: the losses and weights of
    1.8.5). Unsafe otherwise (``use_cuda=True`` used every visible GPU, ``CPU_NUM=n``
    that many CPU places): 1.8 split each batch between the devices and returned every
    fetched value per device, concatenated; the helper runs one device. Manual when
    ``loss_name`` is more than a name, an attribute or a literal (its evaluation would be
    lost), or when the module already uses the name ``_FluidParallelExecutor`` for
    something else.
"""
from __future__ import annotations

import ast
from typing import Optional

import libcst as cst

from upgrader.args import code_of, literal

CODE = "PU101"
STRUCTURAL = ("parallel-executor",)
HELPER = "_FluidParallelExecutor"
#: what docs/rules.md and explain show instead of the entry's target
HELPERS = {"parallel-executor": f"{HELPER} (a class fix adds to the module)"}

HELPER_SOURCE = '''class _FluidParallelExecutor(object):
    """Paddle 1.8's fluid.ParallelExecutor on one device: run(fetch_list, feed) runs
    main_program (default: the default main program) with an Executor in scope (default:
    the global scope when it was made)."""

    def __init__(self, use_cuda, loss_name=None, main_program=None, share_vars_from=None,
                 exec_strategy=None, build_strategy=None, num_trainers=1, trainer_id=0,
                 scope=None):
        self._use_cuda = use_cuda
        self._program = main_program if main_program is not None \\
            else paddle.static.default_main_program()
        self._scope = scope if scope is not None else paddle.static.global_scope()
        self._exe = paddle.static.Executor(paddle.CUDAPlace(0) if use_cuda else paddle.CPUPlace())

    def run(self, fetch_list, feed=None, feed_dict=None, return_numpy=True):
        feed = feed if feed is not None else feed_dict
        if isinstance(feed, (list, tuple)) and len(feed) == 1:
            feed = feed[0]
        return self._exe.run(self._program, feed=dict(feed) if feed is not None else None,
                             fetch_list=fetch_list, scope=self._scope,
                             return_numpy=return_numpy)

    @property
    def device_count(self):
        places = paddle.static.cuda_places() if self._use_cuda else paddle.static.cpu_places()
        return len(places)

    def drop_local_exe_scopes(self):
        pass
'''


def _state(up) -> str:
    """'insert', 'reuse' (a second fix) or 'conflict' (fixers.helper_state)."""
    from upgrader.fixers import helper_state
    return helper_state(up, HELPER, HELPER_SOURCE)


def _cpu_num(source: str) -> Optional[str]:
    """``CPU_NUM=<n>`` when the module sets the variable to something other than 1."""
    if "CPU_NUM" not in source:
        return None
    from upgrader import untouched
    try:
        tree = untouched.parse(source)
    except SyntaxError:
        return "CPU_NUM (unreadable module)"

    def one(v):
        return isinstance(v, ast.Constant) and str(v.value) == "1"

    for n in ast.walk(tree):
        if isinstance(n, ast.Assign):
            for t in n.targets:
                if isinstance(t, ast.Subscript) and "CPU_NUM" in ast.dump(t.slice) and not one(n.value):
                    return "CPU_NUM=%s" % ast.unparse(n.value)
        elif isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and \
                n.func.attr in ("setdefault", "putenv") and len(n.args) == 2 and \
                isinstance(n.args[0], ast.Constant) and n.args[0].value == "CPU_NUM" and \
                not one(n.args[1]):
            return "CPU_NUM=%s" % ast.unparse(n.args[1])
    return None


def _plain(node) -> bool:
    if isinstance(node, cst.Attribute):
        return _plain(node.value)
    return isinstance(node, (cst.Name, cst.SimpleString, cst.ConcatenatedString))


def _decide(up, call: cst.Call, entry):
    """(bound arguments or None, why manual or None, why unsafe or None) for a legacy
    ``ParallelExecutor(...)`` call (the original node)."""
    from upgrader.args import Manual, bind
    bound = bind(entry, call)
    if isinstance(bound, Manual):
        return None, bound.reason, None
    loss = bound.values.get("loss_name")
    if loss is not None and not _plain(loss.value):
        return bound, ("its loss_name is an expression whose evaluation would be lost (only "
                       "the multi-device gradient scaling used it)"), None
    if _state(up) == "conflict":
        return bound, f"the module already uses the name {HELPER} for something else", None
    use_cuda = bound.values.get("use_cuda")
    if use_cuda is None or literal(code_of(use_cuda.value)) not in (("ok", False), ("ok", 0)):
        return bound, None, "use_cuda may be true (1.8 then used every visible GPU)"
    if _cpu_num(up.source):
        return bound, None, f"the module sets {_cpu_num(up.source)} (1.8 used that many CPU places)"
    return bound, None, None


def rewritten(up, call: cst.Call) -> bool:
    """``call`` (an original node) is a ``ParallelExecutor(...)`` that this fixer rewrites
    to the helper (exec_strategy.py: its ``exec_strategy=es`` goes with it)."""
    entry = up.entry_for(up.resolve_dotted(call.func))
    if entry is None or entry.structural != STRUCTURAL[0] or not up.can_apply(entry, call):
        return False
    bound, manual, devices = _decide(up, call, entry)
    return bound is not None and manual is None and (devices is None or up.opts.unsafe_fixes)


def rewrite_call(up, original: cst.Call, updated: cst.Call, entry):
    from upgrader.fixers import bound_or_report
    if bound_or_report(up, original, updated, entry) is None:
        return updated
    bound, why, devices = _decide(up, original, entry)
    if why is not None:
        up.report_entry(original, entry, False, manual=f"{why}; {entry.note}")
        return updated
    message = (f"`{entry.short}` → `{HELPER}` (a class fix adds to the module: the program "
               "run by an executor in the scope, as 1.8's did on one device; loss_name dropped)")
    safety = "safe"
    if devices is not None:
        safety = "unsafe"
        unsafe = (f"{devices}: 1.8 split each batch between the devices and returned every "
                  "fetched value per device, concatenated; the helper runs one device")
        message += f"; unsafe: {unsafe}"
        if not up.opts.unsafe_fixes:
            up.report(original, CODE, message, entry.name, entry.target, safety, applied=False,
                      todo=f"`{entry.short}` → `{HELPER}` is unsafe here: {unsafe}; review, "
                      "then `paddle-upgrade fix --unsafe-fixes`.")
            return updated
    up.parallel_executor_used = True
    up.report(original, CODE, message, entry.name, entry.target, safety, applied=True)
    args = []
    for i, a in enumerate(updated.args):
        if a.keyword is not None and (a.keyword.value == "loss_name" or (
                a.keyword.value == "exec_strategy" and _plain(a.value))):
            continue   # (exec_strategy.py deletes a strategy only this call used)
        if a.keyword is None and i == 1 and not a.star:   # loss_name given positionally
            a = a.with_changes(value=cst.Name("None"))
        args.append(a)
    if args and len(args) < len(updated.args):
        args[-1] = args[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)
    return updated.with_changes(func=cst.Name(HELPER), args=args)


def finish_module(up, module: cst.Module) -> cst.Module:
    """Add the class after the module's leading docstring and imports, once."""
    if not getattr(up, "parallel_executor_used", False) or _state(up) != "insert":
        return module
    from upgrader.fixers import insert_after_head
    return insert_after_head(module, [HELPER_SOURCE])
