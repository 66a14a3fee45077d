"""PU106 generator-loader: ``fluid.io.DataLoader.from_generator`` becomes a small class fix
adds to the module.

What it does
    ``loader = fluid.io.DataLoader.from_generator(feed_list=[x, y], capacity=8)`` becomes
    ``loader = _FluidGeneratorLoader(feed_list=[x, y], capacity=8)`` (the same arguments),
    and ``fix`` adds once, after the module's imports, a class of that name with 1.8's
    iterable protocol::

        class _FluidGeneratorLoader(object):
            def set_sample_generator(self, reader, batch_size, drop_last=True, places=None): ...
            def set_sample_list_generator(self, reader, places=None): ...
            def set_batch_generator(self, reader, places=None): ...
            def __call__(self): ...   # for data in loader(): ...

    The training loop (``for data in loader(): exe.run(prog, feed=data, ...)`` or, in
    dygraph, ``for img, label in loader(): ...``) runs unchanged.

    A non-iterable loader (``iterable=False``) started and read in one function::

        loader.start()
        try:
            while True:
                exe.run(prog, fetch_list=[loss])
        except fluid.core.EOFException:
            loader.reset()

    becomes the same loop with ``exe.run(prog, feed=loader.next_feed(), fetch_list=[loss])``
    and ``except _FluidGeneratorLoader.EOFException:`` (``next_feed()`` raises it at the end
    of the data, as 1.8's run raised EOFException).

Why is this bad?
    ``paddle.io.DataLoader`` has no ``from_generator`` in 3.x, and the nearest replacement
    (an ``IterableDataset`` under ``paddle.io.DataLoader``) batches differently: its collate
    splits a list field into one array per element, it neither casts nor reshapes for the
    feed variables, and its ``drop_last`` default is the opposite of
    ``set_sample_generator``'s. The class reproduces what 1.8 yielded: in dygraph a list
    of tensors, one per field, each ``np.asarray`` of the field's values (so Python floats
    give float64, as in 1.8) with ``stop_gradient=True``; in a static program a list holding
    one feed dict ``{name: array}`` (``return_list=True``: one list of arrays), each field
    cast to its feed variable's dtype and reshaped to its shape when the ranks differ (1.8's
    DataFeeder conversion: the class uses ``_FluidDataFeeder``, which fix adds too).
    ``set_sample_generator`` batches with ``paddle.batch`` and its ``drop_last``
    (default True, as 1.8).

Example
    ``loader = fluid.io.DataLoader.from_generator(capacity=10)`` /
    ``loader.set_sample_list_generator(paddle.batch(reader, 16), places=place)`` →
    ``loader = _FluidGeneratorLoader(capacity=10)`` / the same call.

Fix safety
    Safe for the iterable mode (``iterable`` left out or ``True``), checked on 3.3.1 against
    1.8.5 (batch structure, values, dtypes, shapes, ``stop_gradient``, a short last batch,
    trained results; static and dygraph). capacity, double buffering and use_multiprocess
    only tuned 1.8's background reading and have no effect on what is read. A non-iterable
    loader is rewritten when it is bound to a name or ``self.<attribute>`` (handed on by
    returning it, unpacking a builder's result or passing it by name), used only by its
    set_*_generator / start() / reset() methods, each function that starts it starts no
    other loader and runs programs without feed only inside a ``try`` catching
    EOFException, and every other feed-less run of the module is a startup run (checked
    on 3.3.1 against 1.8.5: program static_loader_non_iterable). 1.8 fed every run of a
    program holding the loader's read op; a run elsewhere (a helper called inside the
    loop) may have read it too, so such a module is reported for a manual rewrite, as is
    a non-literal ``iterable`` and a module that uses the class names for something else. With several
    places (a data-parallel CompiledProgram) 1.8 split each batch into one feed per place;
    the class raises ValueError there instead of feeding them whole.
"""
from __future__ import annotations

import ast
from typing import Optional, Tuple

import libcst as cst

from upgrader import untouched

CODE = "PU106"
STRUCTURAL = ("generator-loader", "generator-loader-eof")
EOF = "paddle.fluid.core.EOFException"
MANUAL_EOF = ("raised by a non-iterable loader (DataLoader.from_generator(iterable=False) "
              "or py_reader) at the end of the data; fix rewrites it only for a "
              "from_generator loader it rewrites (started and read in one function)")
HELPER = "_FluidGeneratorLoader"
#: what docs/rules.md and explain show instead of the entry's target
HELPERS = {"generator-loader": f"{HELPER} (a class fix adds to the module)",
           "generator-loader-eof": f"{HELPER}.EOFException (of the class fix adds)"}

HELPER_SOURCE = '''class _FluidGeneratorLoader(object):
    """Paddle 1.8's fluid.io.DataLoader.from_generator in iterable mode: `for data in
    loader():` yields, in dynamic mode, a list of tensors (one per field); in a static
    program a list holding one feed dict {name: array} (return_list=True: one list of
    arrays), fields converted to the feed variables as 1.8's DataFeeder did."""

    def __init__(self, feed_list=None, capacity=None, use_double_buffer=True, iterable=True,
                 return_list=False, use_multiprocess=False, drop_last=True):
        if not capacity:
            raise ValueError('Please give value to capacity.')
        self._dynamic = paddle.in_dynamic_mode()
        if not self._dynamic and not feed_list:
            raise ValueError('Feed list must be given under static mode.')
        self._feed_list = list(feed_list or [])
        self._iterable = iterable or self._dynamic
        self._return_list = return_list or self._dynamic
        self._reader = None
        self._batches = None
        self._program = None if self._dynamic else paddle.static.default_main_program()

    def set_sample_generator(self, reader, batch_size, drop_last=True, places=None):
        return self.set_sample_list_generator(paddle.batch(reader, batch_size, drop_last), places)

    def set_sample_list_generator(self, reader, places=None):
        import numpy

        def batches():
            for samples in reader():
                if self._dynamic:
                    yield [numpy.asarray(list(field)) for field in zip(*samples)]
                else:
                    feed = _FluidDataFeeder(self._feed_list).feed(samples)
                    yield [feed[v.name] for v in self._feed_list]
        return self.set_batch_generator(batches, places)

    def set_batch_generator(self, reader, places=None):
        if places is None and self._iterable and not self._dynamic:
            raise ValueError('Places cannot be None when DataLoader is iterable')
        if isinstance(places, (list, tuple)) and len(places) != 1:
            raise ValueError('DataLoader over %d places: Paddle 1.8 split each batch into '
                             'one feed per place; feed one place' % len(places))
        self._reader = reader
        return self

    def __call__(self):
        return iter(self)

    def __iter__(self):
        import numpy
        for batch in self._reader():
            arrays = [numpy.asarray(a) for a in batch]
            if self._dynamic:
                yield [paddle.to_tensor(a) for a in arrays]
            elif self._return_list and self._iterable:
                yield [arrays]
            else:
                yield [dict(zip([v.name for v in self._feed_list], arrays))]

    class EOFException(Exception):
        """1.8's fluid.core.EOFException: a started non-iterable loader has no next batch."""

    def start(self):
        self._batches = iter(self)

    def reset(self):
        self._batches = None

    def next_feed(self):
        """The next batch of the started non-iterable loader, a feed dict for the run that
        1.8 fed from the loader; EOFException at the end of the data."""
        if self._batches is None:
            raise RuntimeError('DataLoader: call start() before running the program')
        try:
            return next(self._batches)[0]
        except StopIteration:
            self._batches = None
            if getattr(self._program, '_fluid_decay_step', None) is not None:
                # 1.8 ran the program's step-counter increment before the read that met
                # the end of the data (_fluid_decay_step_counter): that run advanced it
                import numpy
                counter = paddle.static.global_scope().find_var('@LR_DECAY_COUNTER@').get_tensor()
                counter.set(numpy.array(counter) + 1, paddle.CPUPlace())
            raise _FluidGeneratorLoader.EOFException('There is no next data.')
'''


_SETTERS = ("set_sample_generator", "set_sample_list_generator", "set_batch_generator")


def _ast_key(t) -> Optional[Tuple[str, str]]:
    if isinstance(t, ast.Name):
        return ("name", t.id)
    if isinstance(t, ast.Attribute) and isinstance(t.value, ast.Name) and t.value.id == "self":
        return ("attr", t.attr)
    return None


def _is_eof(t) -> bool:
    return isinstance(t, ast.Attribute) and t.attr == "EOFException" or \
        isinstance(t, ast.Name) and t.id == "EOFException"


def _feedless_run(node) -> bool:
    """``<x>.run(...)`` given no feed (``exe.run(program, fetch_list=...)``)."""
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
        and node.func.attr == "run" and len(node.args) <= 1 \
        and not any(isinstance(a, ast.Starred) for a in node.args) \
        and not any(k.arg in ("feed", None) for k in node.keywords)


class _Plan(object):
    def __init__(self):
        self.calls = {}     # (line, col) of an approved from_generator(iterable=False) call -> key
        self.why = {}       # (line, col) of a refused one -> why
        self.runs = {}      # (line, col) of a run to feed -> loader source ("loader", "self.loader")
        self.handlers = set()  # (line, col) of EOFException in the handlers of those runs' try


def _plan(up) -> _Plan:
    """Which non-iterable loaders (``from_generator(..., iterable=False)`` bound to a name
    or ``self.<attr>``) can be rewritten: every use of the name is a set_*_generator /
    start() / reset() call; each function (or the module) that starts it starts no other
    loader and runs programs without feed only inside the body of a ``try`` that catches
    EOFException; and the module's other feed-less runs are startup runs (the program's
    source mentions ``startup``). Those runs then get ``feed=<loader>.next_feed()``."""
    cached = up.__dict__.get("_loader_plan")
    if cached is not None:
        return cached
    plan = up._loader_plan = _Plan()
    if "iterable" not in up.source or "EOFException" not in up.source:
        return plan
    try:
        tree = untouched.parse(up.source)
    except SyntaxError:
        return plan
    loaders = {}  # key -> [(position of the call, its target)]
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Call) \
                and isinstance(node.value.func, ast.Attribute) \
                and node.value.func.attr == "from_generator" and any(
                    k.arg == "iterable" and isinstance(k.value, ast.Constant)
                    and k.value.value is False for k in node.value.keywords):
            key = _ast_key(node.targets[0]) if len(node.targets) == 1 else None
            at = (node.value.lineno, node.value.col_offset + 1)
            if key is None:
                plan.why[at] = "the loader is not assigned to a name or self.<attribute>"
            else:
                loaders.setdefault(key, []).append((at, node.targets[0]))
    if not loaders:
        return plan
    # names the loader reaches through a builder function of the module that returns it
    # (`loader, loss = build(...)`, `test_loader = make_loader(...)`)
    returns = {}  # function name -> [index of the loader in its returned tuple, or None]
    defs = {}
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            defs[node.name] = defs.get(node.name, 0) + 1
            found = set()
            for r in ast.walk(node):
                if isinstance(r, ast.Return) and r.value is not None:
                    v = r.value
                    if _ast_key(v) in loaders:
                        found.add((None, _ast_key(v)))
                    elif isinstance(v, ast.Tuple):
                        found.update((i, _ast_key(e)) for i, e in enumerate(v.elts) if _ast_key(e) in loaders)
            if len(found) == 1:
                returns[node.name] = next(iter(found))
    alias = {}  # alias key -> loader key
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.value, ast.Call) \
                and isinstance(node.value.func, ast.Name) and defs.get(node.value.func.id) == 1 \
                and node.value.func.id in returns:
            index, key = returns[node.value.func.id]
            t = node.targets[0]
            if index is None:
                got = _ast_key(t)
            else:
                got = _ast_key(t.elts[index]) if isinstance(t, (ast.Tuple, ast.List)) \
                    and len(t.elts) > index else None
            if got is not None and got not in loaders:
                alias[got] = key
    bad = {}  # key -> why
    start_src = {}  # id(scope) -> the loader as the scope names it (the receiver of start())
    starts = {}  # id(scope) -> set of keys started there
    scope_of_start = {}  # key -> [scope ids]
    tries = {}  # id(scope) -> [feed-less runs in an EOF try body]
    outside = []  # feed-less runs elsewhere
    eof_types = {}  # id(scope) -> [EOF handler type nodes]
    targets = {id(t) for v in loaders.values() for _, t in v}
    # handing the loader on by name: returned, unpacked, passed to a function (the
    # function's parameter of that name is checked like the name itself)
    for node in ast.walk(tree):
        values = []
        if isinstance(node, ast.Call):
            values = list(node.args) + [k.value for k in node.keywords]
        elif isinstance(node, (ast.Return, ast.Assign)) and node.value is not None:
            values = [node.value]
        elif isinstance(node, (ast.Name, ast.Attribute)) and not isinstance(node.ctx, ast.Load):
            targets.add(id(node))
        for v in values:
            for e in (v.elts if isinstance(v, (ast.Tuple, ast.List)) else [v]):
                targets.add(id(e))

    def use_of(node):
        """The loader key a Name / self.attr node names (or None)."""
        k = _ast_key(node)
        return k if k in loaders else alias.get(k)

    def visit(node, scope, in_try):
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
                visit(child, id(child), False)
                continue
            if isinstance(child, ast.Try):
                eof = [h for h in child.handlers if h.type is not None and (
                    _is_eof(h.type) or isinstance(h.type, ast.Tuple) and any(_is_eof(e) for e in h.type.elts))]
                for st in child.body:
                    visit_one(st, scope, in_try or bool(eof))
                for h in child.handlers:
                    if h in eof:
                        types = h.type.elts if isinstance(h.type, ast.Tuple) else [h.type]
                        eof_types.setdefault(scope, []).extend(t for t in types if _is_eof(t))
                    visit_one(h, scope, in_try)
                for st in child.orelse + child.finalbody:
                    visit_one(st, scope, in_try)
                continue
            visit_one(child, scope, in_try)

    def visit_one(child, scope, in_try):
        if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            visit(child, id(child), False)
            return
        if _feedless_run(child):
            (tries.setdefault(scope, []) if in_try else outside).append(child)
        if isinstance(child, ast.Call) and isinstance(child.func, ast.Attribute):
            k = use_of(child.func.value)
            if k is not None:
                if child.func.attr == "start":
                    starts.setdefault(scope, set()).add(k)
                    scope_of_start.setdefault(k, []).append(scope)
                    start_src[scope] = _ast_key(child.func.value)
                elif child.func.attr not in _SETTERS + ("reset",):
                    bad.setdefault(k, f"the loader's {child.func.attr}() has no counterpart")
                for a in child.args:
                    visit_one(a, scope, in_try)
                for kw in child.keywords:
                    visit_one(kw, scope, in_try)
                return
        if isinstance(child, (ast.Name, ast.Attribute)) and id(child) not in targets:
            k = use_of(child)
            if k is not None:
                bad.setdefault(k, "the loader is used other than by its set_*_generator, "
                                  "start() and reset() methods")
                return
        visit(child, scope, in_try)

    visit(tree, id(tree), False)
    # runs in such a try of a function that starts no loader known here read some loader
    outside += [r for sc, runs in tries.items() if sc not in starts for r in runs]
    strays = [r for r in outside if "startup" not in ast.dump(
        r.args[0] if r.args else next((k.value for k in r.keywords if k.arg == "program"), ast.Pass()))]
    for key, made in loaders.items():
        why = bad.get(key)
        scopes = scope_of_start.get(key, [])
        if why is None and len(made) != 1:
            why = "the name is bound to more than one loader"
        if why is None and not scopes:
            why = "the loader is never started in this module"
        if why is None and any(len(starts[sc]) != 1 for sc in scopes):
            why = "a function that starts it starts another loader too"
        if why is None and any(not tries.get(sc) for sc in scopes):
            why = ("the function that starts it runs no program inside a try that catches "
                   "EOFException")
        if why is None and strays:
            r = strays[0]
            text = " ".join((ast.get_source_segment(up.source, r) or "run").split())
            why = (f"a program run without feed outside such a try (`{text[:80]}`) may read "
                   "the loader")
        at = made[0][0]
        if why is not None:
            for a, _ in made:
                plan.why[a] = why
            continue
        plan.calls[at] = key
        for sc in scopes:
            kind, name = start_src[sc]
            source = name if kind == "name" else "self." + name
            for r in tries[sc]:
                plan.runs[(r.lineno, r.col_offset + 1)] = source
            for t in eof_types.get(sc, []):
                plan.handlers.add((t.lineno, t.col_offset + 1))
    return plan


def _states(up):
    """helper_state of this class and of _FluidDataFeeder, which it uses."""
    from upgrader.fixers import helper_state
    from upgrader.fixers.data_feeder import HELPER as FEEDER, HELPER_SOURCE as FEEDER_SOURCE
    return helper_state(up, HELPER, HELPER_SOURCE), helper_state(up, FEEDER, FEEDER_SOURCE)


def rewrite_call(up, original: cst.Call, updated: cst.Call, entry):
    from upgrader.fixers import bound_or_report
    if entry.name == EOF:  # raise fluid.core.EOFException(...)
        up.report_entry(original, entry, False, manual=MANUAL_EOF)
        return updated
    bound = bound_or_report(up, original, updated, entry)
    if bound is None:
        return updated
    why = None
    iterable = bound.values.get("iterable")
    if iterable is not None:
        value = iterable.value
        at = up.pos(original)[:2]
        if isinstance(value, cst.Name) and value.value == "False" and at in _plan(up).calls:
            pass  # a non-iterable loader whose runs get feed=<loader>.next_feed()
        elif isinstance(value, cst.Name) and value.value == "False":
            why = "iterable=False: " + _plan(up).why.get(at, (
                "no function starts it and runs the program inside a try that catches "
                "EOFException"))
        elif not (isinstance(value, cst.Name) and value.value == "True"):
            why = (f"iterable={up.module.code_for_node(value)}: only the iterable mode "
                   "(`for data in loader():`) and a non-iterable loader started and read "
                   "in one function have a rewrite")
    if why is None and "conflict" in _states(up):
        why = f"the module already uses the name {HELPER} or _FluidDataFeeder for something else"
    if why is not None:
        up.report_entry(original, entry, False, manual=(
            f"{why}; 1.8's non-iterable loader (start()/reset(), fluid.core.EOFException, "
            "exe.run without feed) has no counterpart: iterate the batches in a for loop and "
            "pass each as exe.run's feed"))
        return updated
    up.generator_loader_used = True
    up.feeder_helper_used = True
    up.report(original, CODE, f"`{entry.short}` → `{HELPER}` (a class fix adds to the module "
              "that reproduces 1.8's iterable loader: batches, dtypes and shapes as 1.8 "
              "yielded them)", entry.name, entry.target, "safe", applied=True)
    return updated.with_changes(func=cst.Name(HELPER))


def finish_module(up, module: cst.Module) -> cst.Module:
    """Add the class after the module's leading docstring and imports, once."""
    if not getattr(up, "generator_loader_used", False) or _states(up)[0] != "insert":
        return module
    from upgrader.fixers import insert_after_head
    return insert_after_head(module, [HELPER_SOURCE])


def _enabled(up) -> bool:
    return up.opts.fix and up.opts.enabled(CODE) and "conflict" not in _states(up)


def check_run(up, original: cst.Call, updated: cst.Call) -> cst.Call:
    """A feed-less run in the try of a rewritten non-iterable loader gets
    ``feed=<loader>.next_feed()`` (1.8 fed it from the started loader)."""
    plan = _plan(up)
    if not plan.runs:
        return updated
    source = plan.runs.get(up.pos(original)[:2])
    if source is None or not _enabled(up):
        return updated
    comma = cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))
    args = list(updated.args)
    at = 1 if args and args[0].keyword is None else 0
    feed = cst.Arg(keyword=cst.Name("feed"), value=cst.parse_expression(f"{source}.next_feed()"),
                   equal=cst.AssignEqual(whitespace_before=cst.SimpleWhitespace(""),
                                         whitespace_after=cst.SimpleWhitespace("")),
                   comma=comma if at < len(args) else cst.MaybeSentinel.DEFAULT)
    if at == 1 and args[0].comma is cst.MaybeSentinel.DEFAULT:
        args[0] = args[0].with_changes(comma=comma)
    args.insert(at, feed)
    return updated.with_changes(args=args)


def rewrite_reference(up, node: cst.BaseExpression, entry):
    """``fluid.core.EOFException`` in the handler of a rewritten loader's try →
    ``_FluidGeneratorLoader.EOFException``; elsewhere manual."""
    if entry.name != EOF:
        return None
    at = up.pos(node)[:2]
    ok = at in _plan(up).handlers and _enabled(up) and up.can_apply(entry, node)
    if not ok:
        up.report_entry(node, entry, False, manual=MANUAL_EOF)
        return node
    up.report(node, CODE, f"`{entry.short}` → `{HELPER}.EOFException` (raised by the loader's "
              "next_feed() at the end of the data)", entry.name, entry.target, "safe",
              applied=True)
    return cst.parse_expression(f"{HELPER}.EOFException")
