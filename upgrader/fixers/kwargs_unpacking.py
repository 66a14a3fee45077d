"""PU101 kwargs-unpacking: a legacy call given ``**kwargs`` keeps them, with 1.8's keyword
names mapped to today's when the program runs.

What it does
    A call such as ``fluid.optimizer.Momentum(learning_rate=lr, **kwargs)`` (one ``**``
    argument, last, no ``*`` argument) of a rule whose argument changes are plain renames
    (``parameter_list`` → ``parameters``, ``regularization`` → ``weight_decay``) or drops
    of arguments without effect (``name``) becomes
    ``paddle.optimizer.Momentum(learning_rate=lr, **_fluid_kwargs(kwargs, {'parameter_list':
    'parameters', 'regularization': 'weight_decay'}))``; the explicit arguments are mapped as
    usual, and ``fix`` adds once, after the module's imports::

        def _fluid_kwargs(kwargs, renames):
            out = {}
            for key, value in kwargs.items():
                key = renames.get(key, key)
                if key is not None:
                    out[key] = value
            return out

    When the rule renames nothing, ``**kwargs`` is passed on as it is.

Why is this bad?
    The keywords inside ``kwargs`` are known only when the program runs, so the rewrite
    cannot rename them in the source; passed on unchanged, 1.8's ``parameter_list=`` or
    ``regularization=`` make today's constructor raise TypeError (or, for a name both
    versions take with another meaning, compute something else).

Example
    PaddleHub's strategy factory ``fluid.optimizer.Adagrad(learning_rate=self.learning_rate,
    **kwargs)`` → ``paddle.optimizer.Adagrad(learning_rate=self.learning_rate,
    **_fluid_kwargs(kwargs, {'parameter_list': 'parameters', 'regularization':
    'weight_decay'}))``.

Fix safety
    Safe for rules whose changes are only renames and drops: every 1.8 keyword then means
    the same under its new name (the rule database's invariant: a parameter whose meaning
    changes carries another spec), and a keyword 1.8 did not take raises in both versions.
    Program static_optimizer_kwargs checks it on 1.8.5 (optimizers built from ``**`` in a
    static program and in dygraph). A rule with an argument that can make the rewrite
    unsafe (``Adam``'s ``epsilon`` above its default, ``lazy_mode``) makes the call unsafe
    unless that argument is passed explicitly, since ``kwargs`` may carry it. Any other
    argument spec (values, transforms, defaults, ``act``), an entry ``wrap`` or ``extra``,
    or a structural rule keep the call manual, as before.
"""
from __future__ import annotations

import dataclasses
from typing import Dict, Optional, Tuple

import libcst as cst

CODE = "PU101"
HELPER = "_fluid_kwargs"
SOURCE = f'''def {HELPER}(kwargs, renames):
    """Keyword arguments of a Paddle 1.8 call passed with **, under today's names (renames:
    1.8 name -> today's name, or None for an argument today's call does not take)."""
    out = {{}}
    for key, value in kwargs.items():
        key = renames.get(key, key)
        if key is not None:
            out[key] = value
    return out
'''
_PLAIN = {"rename", "drop", "unsafe_if_set", "unsafe_below", "unsafe_above"}


def split(call: cst.Call) -> Optional[Tuple[cst.Call, cst.Arg]]:
    """(the call without its ``**`` argument, that argument) when it has one, last, and no
    ``*`` argument; else None."""
    if not call.args or call.args[-1].star != "**":
        return None
    if any(a.star for a in call.args[:-1]):
        return None
    rest = list(call.args[:-1])
    if rest:
        rest[-1] = rest[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)
    return call.with_changes(args=rest), call.args[-1]


def renames(entry) -> Optional[Dict[str, Optional[str]]]:
    """1.8 keyword -> today's keyword (None: dropped) when every argument spec of the entry
    is a plain rename or drop (or marks the call unsafe), else None."""
    if entry.extra or entry.wrap or entry.structural or entry.params is None:
        return None
    out: Dict[str, Optional[str]] = {}
    for name, spec in entry.args.items():
        for f in dataclasses.fields(spec):
            if f.name not in _PLAIN and getattr(spec, f.name) not in (None, False):
                return None
        if spec.drop:
            out[name] = None
        elif spec.rename and spec.rename != name:
            out[name] = spec.rename
    return out


def unsafe_reason(entry, rest: cst.Call, kw: cst.Arg) -> Optional[str]:
    """Why the call is unsafe: an argument whose value can make the rewrite change results
    may come through ``kw`` (it is not passed explicitly)."""
    from upgrader.args import Manual, bind
    b = bind(entry, rest, partial=True)
    passed = set(b.values) if not isinstance(b, Manual) else set()
    from upgrader.args import code_of
    for name, spec in entry.args.items():
        why = spec.unsafe_if_set or (spec.unsafe_below or spec.unsafe_above or {}).get("why")
        if why and name not in passed:
            return f"{name} may be passed in **{code_of(kw.value)}: {why}"
    return None


def rewrite(up, rest: cst.Call, kw: cst.Arg, entry, target, names: Dict[str, Optional[str]]):
    """(the mapped call with the ``**`` argument appended, notes), or Manual."""
    from upgrader.args import Manual, code_of, map_call
    mapped = map_call(entry, rest, target, partial=True)
    if isinstance(mapped, Manual):
        return mapped
    node, notes = mapped
    if not isinstance(node, cst.Call) or code_of(node.func) != code_of(target):
        return Manual(f"called with **-unpacking; the rewrite of `{entry.short}` is more than "
                      "a call of its target, so the unpacked arguments cannot follow it")
    value = kw.value
    if names:
        from upgrader.fixers import helper_state, need_helper
        if helper_state(up, HELPER, SOURCE) == "conflict":
            return Manual(f"called with **-unpacking, and the module already uses the name "
                          f"{HELPER} for something else")
        need_helper(up, HELPER)
        table = ", ".join(f"{k!r}: {v!r}" for k, v in names.items())
        value = cst.parse_expression(f"{HELPER}({code_of(kw.value)}, {{{table}}})")
    args = list(node.args)
    if args:
        args[-1] = args[-1].with_changes(
            comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" ")))
    return node.with_changes(args=args + [kw.with_changes(value=value,
                                                          comma=cst.MaybeSentinel.DEFAULT)]), notes


def finish_module(up, module: cst.Module) -> cst.Module:
    """Add the keyword function the rewrites call after the module's docstring and imports."""
    from upgrader.fixers import add_used_helpers
    return add_used_helpers(up, module, {HELPER: SOURCE})
