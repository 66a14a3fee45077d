"""PU104 set-gradient-clip: ``fluid.clip.set_gradient_clip(clip, param_list, program)``
becomes ``_FluidGradientClipMarks.mark(...)``, and the module's optimizers get
``grad_clip=_FluidGradientClipMarks(<their own clip>)``: a class fix adds to the module
that keeps 1.8's marks and applies them as 1.8.5's ``append_gradient_clip_ops`` did.

What it does
    ``fluid.clip.set_gradient_clip(fluid.clip.GradientClipByGlobalNorm(5.0))`` becomes
    ``_FluidGradientClipMarks.mark(paddle.nn.ClipGradByGlobalNorm(clip_norm=5.0))``: the
    same arguments (1.8's signature). ``mark`` gives the parameters the program has at
    that moment (or those of ``param_list``: names or parameters) the clip, in the program
    (default: the default main program). Every optimizer the module builds,
    ``fluid.optimizer.SGD(0.1, grad_clip=own)``, becomes
    ``paddle.optimizer.SGD(0.1, grad_clip=_FluidGradientClipMarks(own))`` (no ``own``:
    ``_FluidGradientClipMarks()``), a clip (``ClipGradBase``) that does what 1.8.5's
    optimizer did with the gradients: its own clip when it has one; else, when every
    parameter that gets a gradient is marked, every gradient clipped by the clip of the
    last of those parameters by name (1.8.5's ``append_gradient_clip_ops`` kept the loop
    variable of its first pass; a global-norm clip scales by the norm of the gradients
    whose parameters carry a global-norm clip of its ``group_name``, one norm across calls;
    different ``clip_norm`` in one group raise 1.8.5's ValueError); one unmarked
    parameter, or no marks: nothing clipped.

Why is this bad?
    ``fluid.clip.set_gradient_clip`` was removed in 2.0 and ``paddle.nn.clip``'s leftover
    ``set_gradient_clip`` rejects the parameters of a Paddle 3 (PIR) program (TypeError:
    they are values, not ``framework.Parameter``); Paddle 3's PIR optimizers read only
    their own ``grad_clip``. The idiomatic ``grad_clip=`` on the optimizer is right only
    when the call marked every parameter (1.8.5 clipped nothing otherwise).

Example
    ``fluid.clip.set_gradient_clip(fluid.clip.GradientClipByGlobalNorm(clip_norm=1.0))`` /
    ``fluid.optimizer.SGD(0.1).minimize(loss)`` →
    ``_FluidGradientClipMarks.mark(paddle.nn.ClipGradByGlobalNorm(clip_norm=1.0))`` /
    ``paddle.optimizer.SGD(0.1, grad_clip=_FluidGradientClipMarks()).minimize(loss)``.

Fix safety
    Safe in a module building static programs whose optimizers are all built in it by calls fix rewrites
    (proven on 1.8.5: every parameter marked, ``param_list`` naming some (nothing
    clipped), the call made before the last layer (nothing clipped), two calls that
    together mark every parameter (one global norm), an optimizer's own ``grad_clip``
    next to the marks; program static_set_gradient_clip). Manual when the module builds
    no optimizer (one built elsewhere would not see the marks), when one of its
    optimizers is not a plain call fix rewrites (``**kwargs``, ``grad_clip`` by position,
    a manual or unsafe optimizer rule, an optimizer class used as a value), when the
    module builds no static program (1.8.5's set_gradient_clip raised in dynamic mode), or
    when it already uses the name. In dynamic mode the wrapper clips with the optimizer's
    own clip or not at all, as 1.8.5's dygraph optimizers did.
"""
from __future__ import annotations

import libcst as cst

CODE = "PU104"
STRUCTURAL = ("set-gradient-clip",)
NAME = "_FluidGradientClipMarks"
WHAT = ("a class fix adds to the module: 1.8's marks, applied by the optimizers that have "
        "no grad_clip of their own")
HELPERS = {"set-gradient-clip": f"{NAME}.mark ({WHAT})"}

SOURCE = '''class _FluidGradientClipMarks(paddle.nn.clip.ClipGradBase):
    \"\"\"Paddle 1.8's fluid.clip.set_gradient_clip for static programs. mark(clip,
    param_list=None, program=None) gives the parameters program has now (or those of
    param_list, names or parameters) the clip. An instance is an optimizer's grad_clip:
    _FluidGradientClipMarks(own) clips as 1.8.5's optimizer did: with its own clip when it
    has one; else, when every parameter that gets a gradient is marked, each gradient with
    the clip of the last of them by name (1.8.5's loop kept it; a global-norm clip
    scales by the norm of the gradients marked with its group); else not at all.\"\"\"

    def __init__(self, own=None):
        super().__init__()
        self._own = own

    @staticmethod
    def mark(clip, param_list=None, program=None):
        if not isinstance(clip, paddle.nn.clip.ClipGradBase):
            raise TypeError("'clip' should be an instance of GradientClipBase's derived class")
        if program is None:
            program = paddle.static.default_main_program()
        params = [p.name for p in program.global_block().all_parameters()]
        if param_list is None:
            names = params
        elif all(isinstance(p, str) for p in param_list):
            for n in param_list:
                if n not in params:
                    raise ValueError("var %s is not a parameter of this block" % n)
            names = list(param_list)
        elif any(isinstance(p, str) for p in param_list):
            raise TypeError("'param_list' should be a list of Parameter or basestring"
                            "(parameter's name).")
        else:
            names = [p.name for p in param_list]
        marks = dict(getattr(program, '_fluid_gradient_clip_marks', None) or {})
        for n in names:
            marks[n] = clip
        program._fluid_gradient_clip_marks = marks

    def __call__(self, params_grads):
        if self._own is not None:
            return self._own(params_grads)
        live = [(p, g) for p, g in params_grads if g is not None]
        if not live or paddle.in_dynamic_mode():
            return params_grads
        marks = getattr(live[0][0].block.program, '_fluid_gradient_clip_marks', None) or {}
        if any(p.name not in marks for p, _ in live):
            return params_grads  # 1.8.5: a parameter without the clip, no clipping
        # 1.8.5: each marked clip saw its gradient first (a global-norm clip added it to
        # its group's norm), then the clip of the last parameter by name clipped them all
        order = sorted(range(len(live)), key=lambda i: live[i][0].name)
        groups = {}
        for i in order:
            clip = marks[live[i][0].name]
            if hasattr(clip, 'group_name'):  # a global-norm clip
                norm, grads = groups.setdefault(clip.group_name, (clip.clip_norm, []))
                if norm != clip.clip_norm:
                    raise ValueError("All parameters' 'clip_norm' of a same group should be "
                                     "the same")
                grads.append(live[i][1])
        last = marks[live[order[-1]][0].name]
        if not hasattr(last, 'group_name'):
            return last(live)
        limit = paddle.full([1], last.clip_norm, 'float32')
        norm = paddle.sqrt(paddle.add_n([paddle.sum(paddle.square(g)).reshape([1])
                                         for g in groups[last.group_name][1]]))
        scale = limit / paddle.maximum(limit, norm)
        return [(p, g * scale) for p, g in live]
'''
SOURCES = {NAME: SOURCE}


def _plan(up):
    """(reason the module's set_gradient_clip calls stay manual or None, ids of the
    optimizer calls that take the wrapper), decided once per module."""
    cached = up.__dict__.get("_set_clip_plan")
    if cached is not None:
        return cached
    from upgrader.args import Manual, bind, map_call
    from upgrader.fixers import imported_entry, static_dropout
    from upgrader.names import FastVisitor
    names = set(AFTER_APPLY_WHEN)
    calls, other = [], []

    class Uses(FastVisitor):
        def visit_Call(self, node: cst.Call):
            entry = imported_entry(up, node.func)
            if entry is not None and entry.name.startswith("paddle.fluid.optimizer."):
                (calls if entry.name in names else other).append((node, entry))

        def visit_Attribute(self, node: cst.Attribute):
            entry = imported_entry(up, node)
            if entry is not None and entry.name in names:
                refs.append(node)

        def visit_Name(self, node: cst.Name):
            entry = imported_entry(up, node)
            if entry is not None and entry.name in names:
                refs.append(node)

    refs: list = []
    up.module.visit(Uses())
    reason = None
    if not static_dropout.module_modes(up)[0]:
        reason = ("the module builds no static program (1.8.5's set_gradient_clip raised in "
                  "dynamic mode)")
    elif not calls:
        reason = ("the module builds no optimizer: one built elsewhere would not apply the "
                  "marks; pass the clip to that optimizer as grad_clip when the call marks "
                  "every parameter")
    elif other:
        reason = f"the module uses `{other[0][1].short}`, which fix cannot give the marks"
    elif len(refs) > len(calls):
        reason = "an optimizer class is used other than by a call the rewrite can give the marks"
    else:
        for call, entry in calls:
            why = None
            if entry.safety != "safe" or entry.structural or not entry.target:
                why = f"`{entry.short}` is not rewritten by a plain fix"
            elif any(a.star for a in call.args):
                why = f"`{entry.short}` is called with * / ** arguments"
            elif not _plain_rewrite(up, call, entry):
                why = f"`{entry.short}`'s call is not rewritten by a plain fix here"
            else:
                bound = bind(entry, call)
                if isinstance(bound, Manual):
                    why = bound.reason
                elif "grad_clip" in bound.values and bound.values["grad_clip"].keyword is None:
                    why = f"`{entry.short}` gets grad_clip by position"
                elif isinstance(map_call(entry, call, cst.parse_expression(entry.target)), Manual):
                    why = f"`{entry.short}`'s call is not rewritten by a plain fix"
            if why:
                reason = f"an optimizer of the module keeps its legacy form ({why})"
                break
    plan = (reason, {id(c) for c, _ in calls} if reason is None else set())
    up._set_clip_plan = plan
    return plan


def _plain_rewrite(up, call: cst.Call, entry) -> bool:
    """Whether the engine's plain mapping applies to this optimizer call (the checks of
    Upgrader.apply_entry that can keep a safe rule's call as it is)."""
    from upgrader import bound_names, fixers
    from upgrader.engine import _unsafe_args
    if not up.can_apply(entry, call):
        return False
    if entry.name in fixers.MANUAL_CHECKS and fixers.MANUAL_CHECKS[entry.name](up, call, entry):
        return False
    excuse = fixers.SAFE_ARGS.get(entry.name)
    try:
        line = up.pos(call)[0]
    except Exception:  # noqa: BLE001 - a node without a position: be conservative
        return False
    if _unsafe_args(entry, call, None if excuse is None else (
            lambda name: excuse(up, call, entry, name)),
            lambda name: bound_names.literal_at(up, line, name)):
        return False
    if entry.name in fixers.UNSAFE_CHECKS and fixers.UNSAFE_CHECKS[entry.name](up, call, entry):
        return False
    return True


def rewrite_call(up, original: cst.Call, updated: cst.Call, entry):
    from upgrader.fixers import call_added_function
    reason, _ = _plan(up)
    if reason is not None:
        up.report_entry(original, entry, False, manual=reason)
        return updated
    return call_added_function(up, original, updated, entry, NAME, SOURCE, WHAT, method="mark")


def _module_marks(up) -> bool:
    """Whether the module calls set_gradient_clip (cheap text test first)."""
    return "set_gradient_clip" in up.source


#: the optimizer rules whose 1.8 signature has grad_clip (tests/test_set_gradient_clip.py
#: checks the list against the rule database)
AFTER_APPLY_WHEN = tuple("paddle.fluid.optimizer." + n for n in (
    "Adadelta", "Adagrad", "Adam", "Adamax", "DGCMomentumOptimizer", "DecayedAdagrad", "Ftrl",
    "LambOptimizer", "LarsMomentum", "Momentum", "RMSProp", "SGD"))


def after_apply(up, original: cst.Call, node, entry):
    """The optimizer's rewritten call with ``grad_clip=_FluidGradientClipMarks(<own>)``,
    in a module whose set_gradient_clip calls are rewritten."""
    if not _module_marks(up) or not isinstance(node, cst.Call):
        return node
    reason, calls = _plan(up)
    if reason is not None or id(original) not in calls:
        return node
    inner = node
    wrapped = isinstance(node.func, cst.Name) and node.func.value != NAME and node.args and \
        isinstance(node.args[0].value, cst.Call)   # _fluid_graph_lr(<optimizer>, lr)
    if wrapped:
        inner = node.args[0].value
    args = list(inner.args)
    at = next((i for i, a in enumerate(args) if a.keyword is not None
               and a.keyword.value == "grad_clip"), None)
    own = [] if at is None else [cst.Arg(args[at].value)]
    value = cst.Call(func=cst.Name(NAME), args=own)
    if at is None:
        if args:
            args[-1] = args[-1].with_changes(comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" ")))
        args.append(cst.Arg(value, keyword=cst.Name("grad_clip"),
                            equal=cst.AssignEqual(cst.SimpleWhitespace(""), cst.SimpleWhitespace(""))))
    else:
        args[at] = args[at].with_changes(value=value)
    from upgrader.fixers import need_helper
    need_helper(up, NAME)
    up.needed_imports.add("paddle")
    inner = inner.with_changes(args=args)
    if wrapped:
        return node.with_changes(args=[node.args[0].with_changes(value=inner)] + list(node.args[1:]))
    return inner


def finish_module(up, module: cst.Module) -> cst.Module:
    """Add the class the rewritten calls use after the module's docstring and imports."""
    from upgrader.fixers import add_used_helpers
    return add_used_helpers(up, module, SOURCES)
