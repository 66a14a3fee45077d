"""PU101 data-feeder: ``fluid.DataFeeder`` becomes a small class fix adds to the module.

What it does
    ``feeder = fluid.DataFeeder(feed_list=[x, y], place=place)`` becomes
    ``feeder = _FluidDataFeeder(feed_list=[x, y], place=place)`` (the same arguments), and
    ``fix`` adds once, after the module's imports, a class of that name whose
    ``feed(minibatch)`` does what 1.8's did::

        class _FluidDataFeeder(object):
            def __init__(self, feed_list, place=None, program=None): ...
            def feed(self, iterable): ...   # {name: numpy array}

    ``exe.run(feed=feeder.feed(data), ...)`` then runs unchanged.

Why is this bad?
    ``fluid.DataFeeder`` is gone in 3.x and nothing replaces it: ``paddle.io.DataLoader``
    neither casts nor reshapes. 1.8's ``feed`` stacked field i of the sample tuples into an
    array of ``feed_list[i]``'s dtype, reshaped it to the variable's shape when the ranks
    differed (scalar labels for a ``[None, 1]`` variable became ``[N, 1]``; no reshape when
    more than one dimension is unknown) and keyed it by the variable's name; a variable
    given by name was looked up in ``program`` (default: the main program). The class does
    exactly that on Paddle 3 programs (names are looked up among the program's data
    variables); the place is not needed (the executor copies the arrays).

Example
    ``feeder = fluid.DataFeeder(feed_list=[img, label], place=place)`` /
    ``exe.run(main, feed=feeder.feed(batch), fetch_list=[loss])`` →
    ``feeder = _FluidDataFeeder(feed_list=[img, label], place=place)`` / the same run.

Fix safety
    Safe when the feeder is bound to a name or ``self.<attribute>`` and every use of that
    name (attribute) in the module is a call of its ``feed`` method, or passes it to a
    function of the module (nested ones too, as book's ``train_test(..., train_test_feed=
    feeder)``) whose parameter is used only so (checked on 3.3.1 against 1.8.5: values,
    dtypes and shapes of the fed batches and the trained results).
    ``feed`` returns numpy arrays where 1.8 returned LoDTensors, which Executor.run takes
    alike. Any other use (``feed_parallel``, ``decorate_reader``, the feeder passed on or
    stored elsewhere), a feeder not bound to a name, or a module that already uses the
    name ``_FluidDataFeeder`` for something else is reported for a manual rewrite.
    Sequence (LoD, ``lod_level > 0``) inputs have no counterpart: their samples differ in
    length and ``feed`` raises ValueError naming the variable.
"""
from __future__ import annotations

from typing import Dict, Optional, Tuple

import libcst as cst

from upgrader.names import FastVisitor

CODE = "PU101"
STRUCTURAL = ("data-feeder",)
HELPER = "_FluidDataFeeder"
#: what docs/rules.md and explain show instead of the entry's target
HELPERS = {"data-feeder": f"{HELPER} (a class fix adds to the module)"}

HELPER_SOURCE = '''class _FluidDataFeeder(object):
    """Paddle 1.8's fluid.DataFeeder: feed(samples) stacks field i of the samples into an
    array of feed_list[i]'s dtype, reshaped to its shape when the ranks differ, keyed by
    its name (a feed dict for Executor.run)."""

    def __init__(self, feed_list, place=None, program=None):
        self.feed_vars = [self._var(v, program) for v in feed_list]

    @staticmethod
    def _var(v, program):
        if not isinstance(v, str):
            return v
        program = program if program is not None else paddle.static.default_main_program()
        for op in program.global_block().ops:
            if op.name() == 'pd_op.data' and op.attrs().get('name') == v:
                return op.result(0)
        raise ValueError('DataFeeder: no data variable named %r in the program' % (v,))

    def feed(self, iterable):
        import numpy
        columns = [[] for _ in self.feed_vars]
        for sample in iterable:
            if len(sample) != len(columns):
                raise ValueError('The number of fields in data (%d) does not match '
                                 'len(feed_list) (%d)' % (len(sample), len(columns)))
            for column, value in zip(columns, sample):
                column.append(value)
        feed = {}
        for var, column in zip(self.feed_vars, columns):
            shape = list(var.shape)
            try:
                array = numpy.array(column, dtype=str(var.dtype).split('.')[-1])
            except ValueError:
                raise ValueError('DataFeeder: the samples of %r differ in shape (a 1.8 LoD '
                                 'input?): pad them to one length' % (var.name,))
            if sum(1 for d in shape if d < 0) <= 1 and array.ndim != len(shape):
                array = array.reshape(shape)
            feed[var.name] = array
        return feed
'''


def _key(target) -> Optional[Tuple[str, str]]:
    if isinstance(target, cst.Name):
        return ("name", target.value)
    if isinstance(target, cst.Attribute) and isinstance(target.value, cst.Name) \
            and target.value.value == "self":
        return ("attr", target.attr.value)
    return None


def _uses(up) -> Dict[Tuple[str, str], str]:
    """For every name and ``self.<attr>`` of the module: absent when each use that is not a
    binding (assignment target, parameter) is ``<it>.feed(...)`` or passes it to a function
    of the module whose parameter it binds is itself used only so; else the first other
    use (source text). Name-based: the same identifier anywhere in the module counts."""
    got = up.__dict__.get("_feeder_uses")
    if got is not None:
        return got
    uses: Dict[Tuple[str, str], str] = {}
    passed: Dict[Tuple[str, str], list] = {}  # name -> [(parameter key, source of the call)]
    covered = set()
    module = up.module
    functions: Dict[str, cst.FunctionDef] = {}  # every def of the module, nested ones too
    counts: Dict[str, int] = {}

    class Defs(FastVisitor):
        def visit_FunctionDef(self, node: cst.FunctionDef):
            functions[node.name.value] = node
            counts[node.name.value] = counts.get(node.name.value, 0) + 1

        def visit_ClassDef(self, node: cst.ClassDef):
            counts[node.name.value] = counts.get(node.name.value, 0) + 1

    module.visit(Defs())

    def parameter(call: cst.Call, arg: cst.Arg) -> Optional[str]:
        f = call.func
        if not isinstance(f, cst.Name) or counts.get(f.value) != 1 or f.value not in functions:
            return None
        params = functions[f.value].params
        if any(a.star for a in call.args):
            return None
        if arg.keyword is not None:
            names = [p.name.value for p in list(params.params) + list(params.kwonly_params)]
            return arg.keyword.value if arg.keyword.value in names else None
        i = [a for a in call.args if a.keyword is None].index(arg)
        positional = list(params.posonly_params) + list(params.params)
        return positional[i].name.value if i < len(positional) else None

    class Marks(FastVisitor):
        def visit_Call(self, node: cst.Call):
            f = node.func
            if isinstance(f, cst.Attribute) and f.attr.value == "feed":
                covered.add(id(f.value))
            for a in node.args:
                if a.keyword is not None:
                    covered.add(id(a.keyword))  # f(feeder=...) names a parameter
                if isinstance(a.value, cst.Name):
                    p = parameter(node, a)
                    if p is not None:
                        covered.add(id(a.value))
                        passed.setdefault(("name", a.value.value), []).append(
                            (("name", p), module.code_for_node(node)))

        def visit_AssignTarget(self, node: cst.AssignTarget):
            covered.add(id(node.target))

        def visit_Param(self, node: cst.Param):
            covered.add(id(node.name))

    class Uses(FastVisitor):
        def visit_Name(self, node: cst.Name):
            if id(node) not in covered:
                uses.setdefault(("name", node.value), module.code_for_node(node))

        def visit_Attribute(self, node: cst.Attribute):
            covered.add(id(node.attr))  # the attribute's own name is not a use of a name
            if id(node) not in covered:
                uses.setdefault(("attr", node.attr.value), module.code_for_node(node))
            if isinstance(node.value, cst.Name) and id(node.value) not in covered:
                # name the use by its attribute: `feeder.decorate_reader`
                uses.setdefault(("name", node.value.value), module.code_for_node(node))

    module.visit(Marks())
    module.visit(Uses())
    # a name passed to a parameter is used as the parameter is (cycles count as fine)
    changed = True
    while changed:
        changed = False
        for key, targets in passed.items():
            if key in uses:
                continue
            for pkey, call in targets:
                if pkey in uses:
                    uses[key] = f"`{call}` uses it as `{uses[pkey].strip('`')}`"
                    changed = True
                    break
    up._feeder_uses = {k: (v if v.startswith("`") else f"`{v}`") for k, v in uses.items()}
    return up._feeder_uses


def _state(up) -> str:
    """'insert', 'reuse' (a second fix) or 'conflict' (fixers.helper_state)."""
    from upgrader.fixers import helper_state
    return helper_state(up, HELPER, HELPER_SOURCE)


def _binding(up, original: cst.Call):
    """The name or ``self.<attr>`` the call is assigned to, from the enclosing statement."""
    if not up.stmt_stack:
        return None
    stmt = up.stmt_stack[-1][0]
    if not isinstance(stmt, cst.SimpleStatementLine) or len(stmt.body) != 1:
        return None
    small = stmt.body[0]
    if isinstance(small, cst.Assign) and small.value is original and len(small.targets) == 1:
        return _key(small.targets[0].target)
    return None


def rewrite_call(up, original: cst.Call, updated: cst.Call, entry):
    from upgrader.fixers import bound_or_report
    if bound_or_report(up, original, updated, entry) is None:
        return updated
    key = _binding(up, original)
    why = None
    if key is None:
        why = "the feeder is not assigned to a name or self.<attribute>"
    elif _uses(up).get(key):
        why = (f"the feeder is used other than by calls of its feed method: "
               f"{_uses(up)[key]}")
    elif _state(up) == "conflict":
        why = f"the module already uses the name {HELPER} for something else"
    if why is not None:
        up.report_entry(original, entry, False, manual=(
            f"{why}; 1.8's feed(minibatch) built a dict {{variable name: array of the "
            "variable's dtype, reshaped to its shape when the ranks differ}: build it by hand"))
        return updated
    up.feeder_helper_used = True
    up.report(original, CODE, f"`{entry.short}` → `{HELPER}` (a class fix adds to the module "
              "that reproduces 1.8's feed: dtype cast, reshape to the variable's shape, "
              "keyed by name)", entry.name, entry.target, "safe", applied=True)
    return updated.with_changes(func=cst.Name(HELPER))


def finish_module(up, module: cst.Module) -> cst.Module:
    """Add the class after the module's leading docstring and imports, once."""
    if not getattr(up, "feeder_helper_used", False) or _state(up) != "insert":
        return module
    from upgrader.fixers import insert_after_head
    return insert_after_head(module, [HELPER_SOURCE])
