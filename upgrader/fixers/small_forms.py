"""PU209 legacy-call-forms: calls whose modern form differs in shape, not in arguments.

What it does
    ``no_grad``: ``fluid.dygraph.no_grad()`` → ``paddle.no_grad()``; ``no_grad(fn)`` →
    ``paddle.no_grad()(fn)``; the bare decorator ``@fluid.dygraph.no_grad`` →
    ``@paddle.no_grad()`` (bare decorators of any entry follow the entry's ``decorator``
    key).
    ``CompiledProgram(prog[, build_strategy])[.with_data_parallel(...)]`` → ``prog``.
    ``fill_constant_batch_size_like(input, shape, dtype, value, input_dim_idx,
    output_dim_idx)`` with a literal shape list → ``paddle.full(shape=[...], fill_value=value,
    dtype=dtype)`` whose ``shape[output_dim_idx]`` is ``paddle.shape(input)[input_dim_idx]``;
    a shape given as a name or attribute (``pos.shape``: SimNet's hinge margin) → the list
    rebuilt with that element replaced (``[paddle.shape(input)[i] if k == j else d for k, d
    in enumerate(shape)]``).
    ``cumsum(x, axis, exclusive=True)`` / ``reverse=True`` with literal flags and axis →
    ``paddle.cumsum`` shifted by one along the axis with zeros first (exclusive) and/or on
    ``paddle.flip``-ped input (reverse). ``flatten(x, axis)`` with a literal axis other
    than 1 → the same 2-D matrix from ``paddle.flatten`` (``paddle.reshape(x, [1, -1])``
    for axis 0). ``initializer.Xavier`` / ``MSRA`` with a literal ``uniform=False`` →
    ``paddle.nn.initializer.XavierNormal`` / ``KaimingNormal`` with the same fans.

Why is this bad?
    ``paddle.no_grad`` is a class today: the bare decorator raises TypeError.
    ``CompiledProgram`` rejects the
    PIR programs Paddle 3 builds by default and has no ``with_data_parallel``.
    ``fill_constant_batch_size_like`` is gone; ``paddle.full`` takes a shape list holding a
    tensor, so the batch size is read from the input when the program runs, as 1.8 did.
    ``paddle.cumsum`` has no ``exclusive`` / ``reverse``; ``cumsum(x) - x`` is not the
    exclusive sum in floating point (it loses small leading terms), the shifted inclusive
    sum adds in 1.8's order.

Example
    ``exe.run(fluid.CompiledProgram(main).with_data_parallel(loss_name=loss.name), ...)``
    → ``exe.run(main, ...)``.

Fix safety
    Safe (each entry's example, proven on 1.8.5 in both modes). Manual:
    ``fill_constant_batch_size_like`` with a shape
    that is not a literal list, non-literal indices, ``force_cpu=True``, or a non-literal
    element at ``output_dim_idx`` (1.8 evaluated and ignored it); and ``cumsum`` with
    non-literal flags or axis, or an exclusive sum of an expression that is not a name or
    attribute (it is read twice). Dropping
    ``CompiledProgram`` runs the plain program on one device: build-strategy fusions do not
    change results; data parallelism over several devices is launched with
    ``python -m paddle.distributed.launch`` instead (reported in the message). Unsafe when
    1.8 ran it on several devices: ``with_data_parallel(places=...)`` (not None), or a
    module that sets ``os.environ['CPU_NUM']`` to something other than 1 (1.8 split each
    batch between the devices and fetched one value per device: a mean loss came back
    with shape [devices]; checked on 1.8.5 with ``cpu_places(2)``).
"""
from __future__ import annotations

import copy

import libcst as cst

from upgrader.fixers import static_mode

from upgrader.args import Manual, bind, code_of, keyword_arg, literal
from upgrader.rulebook import ArgSpec
from upgrader.fixers import bound_or_report

CODE = "PU209"
STRUCTURAL = ("no-grad-decorator", "compiled-program", "fill-batch-size-like",
              "cumsum-flags", "flatten-axis", "adaptive-pool-type", "increment-copy",
              "initializer-uniform")


def rewrite_call(up, original: cst.Call, updated: cst.Call, entry):
    if entry.structural == "cumsum-flags":
        return _cumsum(up, original, updated, entry)
    if entry.structural == "flatten-axis":
        return _flatten(up, original, updated, entry)
    if entry.structural == "adaptive-pool-type":
        return _adaptive_pool(up, original, updated, entry)
    if entry.structural == "increment-copy":
        return _increment(up, original, updated, entry)
    if entry.structural == "initializer-uniform":
        return _initializer_uniform(up, original, updated, entry)
    if entry.structural == "compiled-program":
        why = _multi_device(up, original)
        if why:
            entry = copy.copy(entry)
            entry.safety, entry.note = "unsafe", why
    bound = bound_or_report(up, original, updated, entry)
    if bound is None:
        return updated
    if entry.structural == "no-grad-decorator":
        new = cst.parse_expression("paddle.no_grad()")
        fn = bound.values.get("func")
        if fn is not None:
            new = cst.Call(func=new, args=[cst.Arg(value=fn.value)])
        up.report(original, entry.code, f"`{entry.short}` → `paddle.no_grad()`", entry.name,
                  "paddle.no_grad", "safe", applied=True)
        return new
    if entry.structural == "fill-batch-size-like":
        return _fill_batch_like(up, original, updated, entry, bound)
    return _compiled(up, original, updated, entry, bound)


def _cumsum(up, original, updated, entry):
    """``exclusive`` / ``reverse``: the inclusive ``paddle.cumsum`` shifted by one along the
    axis (zeros first) and/or computed on the flipped input, which sums in the order 1.8's
    kernel did; without them the entry's plain mapping applies."""
    from upgrader.args import Manual, _simple, bind
    bound = bind(entry, updated)
    flags = {}
    for name in ("exclusive", "reverse"):
        arg = bound.values.get(name) if not isinstance(bound, Manual) else None
        kind, value = literal(code_of(arg.value)) if arg is not None else ("ok", None)
        flags[name] = value if kind == "ok" else "?"
    if isinstance(bound, Manual) or not (flags["exclusive"] or flags["reverse"]):
        plain = bound if isinstance(bound, Manual) else None
        if plain is None:  # neither flag set: drop them and map the call as the entry says
            keep = [a for a in updated.args if not (a.keyword is not None and a.keyword.value in flags)]
            if len(keep) < len(updated.args) or len(updated.args) > 2:
                keep = _keywords(bound, ("x", "axis"))
            updated = updated.with_changes(args=keep)
        return up.apply_entry(original, updated, entry)
    if not up.can_apply(entry, original):
        up.report_entry(original, entry, False)
        return updated
    axis_arg = bound.values.get("axis")
    kind, axis = literal(code_of(axis_arg.value)) if axis_arg is not None else ("ok", None)
    axis = -1 if axis is None else axis
    x = bound.values["x"].value
    why = None
    if "?" in flags.values():
        why = "exclusive / reverse are not literals"
    elif kind != "ok" or not isinstance(axis, int) or isinstance(axis, bool):
        why = "the axis is not a literal integer"
    elif flags["exclusive"] and not _simple(x):
        why = f"`{code_of(x)}` would be evaluated twice; assign it to a variable first"
    if why is not None:
        up.report_entry(original, entry, False, manual=why)
        return updated
    src = code_of(x)
    if flags["reverse"]:
        src = f"paddle.flip({src}, axis=[{axis}])"
    out = f"paddle.cumsum({src}, axis={axis})"
    if flags["exclusive"]:
        out = (f"paddle.concat([paddle.zeros_like(paddle.slice({src}, axes=[{axis}], starts=[0], ends=[1])), "
               f"paddle.slice({out}, axes=[{axis}], starts=[0], ends=[-1])], axis={axis})")
    if flags["reverse"]:
        out = f"paddle.flip({out}, axis=[{axis}])"
    up.report_entry(original, entry, True)
    return cst.parse_expression(out)


def _flatten(up, original, updated, entry):
    """1.8's flatten always gave a matrix [prod(shape[:axis]), prod(shape[axis:])]. axis=1
    is the entry's plain mapping; another literal axis gets its exact form: a trailing 1 is
    appended so that axis == rank works too (1.8: [N, 1]), axes axis.. are merged, then
    axes ..axis-1; axis=0 is a reshape to [1, -1]."""
    from upgrader.args import Manual, bind
    bound = bind(entry, updated)
    arg = bound.values.get("axis") if not isinstance(bound, Manual) else None
    kind, axis = literal(code_of(arg.value)) if arg is not None else ("ok", 1)
    if isinstance(bound, Manual) or (kind == "ok" and axis == 1):
        return up.apply_entry(original, updated, entry)
    if not up.can_apply(entry, original):
        up.report_entry(original, entry, False)
        return updated
    if kind != "ok" or not isinstance(axis, int) or isinstance(axis, bool) or axis < 0:
        up.report_entry(original, entry, False, manual="the axis is not a literal non-negative integer")
        return updated
    x = code_of(bound.values["x"].value)
    if axis == 0:
        out = f"paddle.reshape({x}, [1, -1])"
    else:
        out = (f"paddle.flatten(paddle.flatten(paddle.unsqueeze({x}, -1), start_axis={axis}), "
               f"stop_axis={axis - 1})")
    up.report_entry(original, entry, True)
    return cst.parse_expression(out)


def _keywords(bound, names):
    return [keyword_arg(n, bound.values[n].value) for n in names if n in bound.values]


def _fill_batch_like(up, original, updated, entry, bound):
    def index(name):
        arg = bound.values.get(name)
        kind, value = literal(code_of(arg.value)) if arg is not None else ("ok", 0)
        return value if kind == "ok" and isinstance(value, int) and not isinstance(value, bool) else None
    shape = bound.values["shape"].value
    inp, out = index("input_dim_idx"), index("output_dim_idx")
    force = bound.values.get("force_cpu")
    why = None
    if force is not None and literal(code_of(force.value)) != ("ok", False):
        why = "force_cpu: place the result on the CPU by hand (paddle.full under paddle.static.device_guard('cpu'))"
    elif inp is None or out is None:
        why = "input_dim_idx / output_dim_idx are not literal integers"
    elif not isinstance(shape, (cst.List, cst.Tuple)) or \
            not all(isinstance(e, cst.Element) for e in shape.elements):
        done = _fill_batch_like_shape_name(up, original, updated, entry, bound, inp, out)
        if done is not None:
            return done
        why = "the shape is not a literal list: set shape[output_dim_idx] = paddle.shape(input)[input_dim_idx] by hand"
    elif not -len(shape.elements) <= out < len(shape.elements) or \
            literal(code_of(shape.elements[out].value))[0] != "ok":
        why = "shape[output_dim_idx] is missing or not a literal (1.8 evaluated and ignored it)"
    if why is not None:
        up.report_entry(original, entry, False, manual=why)
        return updated
    elements = list(shape.elements)
    batch = cst.parse_expression(f"paddle.shape({code_of(bound.values['input'].value)})[{inp}]")
    elements[out] = elements[out].with_changes(value=batch)
    args = [keyword_arg("shape", cst.List(elements=elements)),
            keyword_arg("fill_value", bound.values["value"].value),
            keyword_arg("dtype", bound.values["dtype"].value)]
    up.report_entry(original, entry, True)
    return updated.with_changes(func=cst.parse_expression(entry.target), args=args)


def _plain(node) -> bool:
    """A name or an attribute chain of one (``x``, ``self.pos.shape``): reading it again
    evaluates nothing."""
    while isinstance(node, cst.Attribute):
        node = node.value
    return isinstance(node, cst.Name)


def _fill_batch_like_shape_name(up, original, updated, entry, bound, inp, out):
    """``shape`` given as a name or attribute (``pos.shape``, a list built earlier): the
    list is rebuilt with element ``output_dim_idx`` replaced by the batch size,
    ``[paddle.shape(input)[i] if k == output_dim_idx else d for k, d in enumerate(shape)]``
    (1.8 read shape's other elements and ignored that one). Only when input and shape are
    names or attribute chains (read once each, nothing evaluated out of order) and not in
    a class body (a comprehension does not see class-level names); None otherwise."""
    shape, source = bound.values["shape"].value, bound.values["input"].value
    if not (_plain(shape) and _plain(source)) or out < 0:
        return None  # (a negative output_dim_idx failed on 1.8.5)
    if any(isinstance(n, cst.ClassDef) for n, _ in up.stmt_stack):
        return None
    names = {n.value for node in (shape, source) for n in _names_in(node)}
    k = next(c for c in ("k", "_k", "_k_") if c not in names)
    d = next(c for c in ("d", "_d", "_d_") if c not in names)
    shape_src = code_of(shape)
    built = cst.parse_expression(
        f"[paddle.shape({code_of(source)})[{inp}] if {k} == {out} else {d} "
        f"for {k}, {d} in enumerate({shape_src})]")
    args = [keyword_arg("shape", built),
            keyword_arg("fill_value", bound.values["value"].value),
            keyword_arg("dtype", bound.values["dtype"].value)]
    up.report_entry(original, entry, True)
    return updated.with_changes(func=cst.parse_expression(entry.target), args=args)


def _names_in(node):
    out = []
    while isinstance(node, cst.Attribute):
        node = node.value
    if isinstance(node, cst.Name):
        out.append(node)
    return out


MULTI_DEVICE = (
    "{how}: 1.8 ran the program on several devices in one process: each batch split "
    "between them, the gradients averaged, and every fetched value returned per device, "
    "concatenated (a mean loss of shape [1] came back as [number of devices], one mean "
    "per part; batch_norm statistics per part; checked on 1.8.5 with cpu_places(2)). The "
    "plain program runs on one device: fetched losses, batch_norm statistics and, with "
    "parts of unequal size, the updates differ. Keep one device (index the loss as 1.8 "
    "returned it no more), or launch one process per device with "
    "python -m paddle.distributed.launch and fleet.distributed_optimizer")


def _multi_device(up, original):
    """Why ``CompiledProgram(...)``, in a ``.with_data_parallel(...)`` whose ``places`` may
    hold several devices, ran on several devices in 1.8; None otherwise. Without
    ``places`` (or ``places=None``, ``cpu_places()``) 1.8 used ``CPU_NUM`` places on CPU
    (default 1): several when the module sets ``CPU_NUM`` above 1. ``cpu_places(n)``,
    ``cuda_places(device_ids=[...])`` and lists of places count as written; a name is
    followed to its assignments; anything else (``cuda_places()``: every visible GPU) may
    be several."""
    cached = getattr(up, "_multi_device_cache", None)
    if cached is None:
        cached = up._multi_device_cache = _multi_device_sites(up.source)
    if not cached:
        return None
    how = cached.get(tuple(up.pos(original)[:2]))
    return MULTI_DEVICE.format(how=how) if how else None


def _multi_device_sites(source):
    import ast
    from upgrader import untouched
    out = {}
    if "with_data_parallel" not in source:
        return out
    try:
        tree = untouched.parse(source)
    except SyntaxError:
        return out

    def is_one(v):
        return isinstance(v, ast.Constant) and str(v.value) == "1"

    cpu_num, bindings = None, {}
    for n in ast.walk(tree):
        if isinstance(n, ast.Assign):
            for t in n.targets:
                if isinstance(t, ast.Subscript) and "CPU_NUM" in ast.dump(t.slice) and not is_one(n.value):
                    cpu_num = "CPU_NUM=%s" % ast.unparse(n.value)
                elif isinstance(t, ast.Name):
                    bindings.setdefault(t.id, []).append(n.value)
                elif isinstance(t, (ast.Tuple, ast.List)):
                    for e in t.elts:
                        if isinstance(e, ast.Name):
                            bindings.setdefault(e.id, []).append(None)  # unknown
        elif isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) \
                and n.func.attr == "setdefault" and len(n.args) == 2 \
                and isinstance(n.args[0], ast.Constant) and n.args[0].value == "CPU_NUM" \
                and not is_one(n.args[1]):
            cpu_num = "CPU_NUM=%s" % ast.unparse(n.args[1])

    def several(v, depth=0):
        """Whether the places expression may hold more than one device."""
        if v is None or depth > 3:
            return True
        if isinstance(v, ast.Constant) and v.value is None:
            return bool(cpu_num)
        if isinstance(v, ast.IfExp):
            return several(v.body, depth + 1) or several(v.orelse, depth + 1)
        if isinstance(v, (ast.List, ast.Tuple)):
            return len(v.elts) != 1 or any(isinstance(e, ast.Starred) for e in v.elts)
        if isinstance(v, ast.Name):
            values = bindings.get(v.id)
            return not values or any(several(x, depth + 1) for x in values)
        if isinstance(v, ast.Call):
            f = v.func
            fname = f.attr if isinstance(f, ast.Attribute) else f.id if isinstance(f, ast.Name) else ""
            if fname == "cpu_places":
                count = v.args[0] if v.args else next(
                    (k.value for k in v.keywords if k.arg == "device_count"), None)
                if count is None or isinstance(count, ast.Constant) and count.value is None:
                    return bool(cpu_num)
                return not is_one(count)
            if fname == "cuda_places":
                ids = v.args[0] if v.args else next(
                    (k.value for k in v.keywords if k.arg == "device_ids"), None)
                return not (isinstance(ids, (ast.List, ast.Tuple)) and len(ids.elts) == 1)
        return True

    for n in ast.walk(tree):
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) \
                and n.func.attr == "with_data_parallel" and isinstance(n.func.value, ast.Call):
            places = next((k.value for k in n.keywords if k.arg == "places"),
                          n.args[4] if len(n.args) > 4 else ast.Constant(value=None))
            if several(places):
                inner = n.func.value
                how = ("with_data_parallel(places=%s)" % ast.unparse(places)
                       if not (isinstance(places, ast.Constant) and places.value is None)
                       else "with_data_parallel() with %s set in the module" % cpu_num)
                out[(inner.lineno, inner.col_offset + 1)] = how
    return out


def _compiled(up, original, updated, entry, bound):
    # `CompiledProgram(p)` alone; `.with_data_parallel(...)` is handled by the caller's chain
    prog = bound.values["program_or_graph"].value
    if literal(code_of(prog))[0] == "ok":  # `CompiledProgram(None)`: nothing to unwrap
        up.report_entry(original, entry, False, manual="the program argument is a literal")
        return updated
    static_mode.note_applied(up, entry)
    up.compiled_programs.add(id(original))
    up.report(original, entry.code, f"`{entry.short}(prog)` → `prog` (PIR programs run as they are; "
              "multi-device data parallelism is launched with paddle.distributed.launch)"
              + (f" ({entry.note})" if entry.safety == "unsafe" else ""),
              entry.name, "", entry.safety, applied=True)
    return prog


def unwrap_with_data_parallel(up, original: cst.Call, updated: cst.Call):
    """``<CompiledProgram(...)>.with_data_parallel(...)`` → the program."""
    f = original.func
    if isinstance(f, cst.Attribute) and f.attr.value == "with_data_parallel" and \
            isinstance(f.value, cst.Call) and id(f.value) in up.compiled_programs:
        return updated.func.value  # type: ignore[union-attr]
    return updated


def _adaptive_pool(up, original, updated, entry):
    """``adaptive_pool2d/3d(x, size, pool_type='avg')`` is today's adaptive_avg_pool: the
    entry's mapping with that target (``require_index`` only exists for max pooling)."""
    bound = bind(entry, updated)
    if isinstance(bound, Manual):
        return up.apply_entry(original, updated, entry)
    arg = bound.values.get("pool_type")
    if arg is None or literal(code_of(arg.value)) != ("ok", "avg"):
        return up.apply_entry(original, updated, entry)  # max (the default): the rule as is
    ri = bound.values.get("require_index")
    if ri is not None and literal(code_of(ri.value)) != ("ok", False):
        up.report_entry(original, entry, False, manual=(
            "require_index with pool_type='avg': 1.8 had no indices for average pooling"))
        return updated
    use = copy.copy(entry)
    use.target = entry.target.replace("adaptive_max_pool", "adaptive_avg_pool")
    use.args = dict(entry.args)
    use.args["pool_type"] = ArgSpec(drop=True)
    use.args["require_index"] = ArgSpec(drop=True)
    return up.apply_entry(original, updated, use)


def _increment(up, original, updated, entry):
    """``increment(x, value, in_place=False)`` made a new variable: today's in-place
    ``paddle.increment`` applied to a copy, ``paddle.increment(paddle.assign(x), value)``
    (same dtype as x; ``x + value`` would turn an int counter into a float)."""
    bound = bind(entry, updated)
    if isinstance(bound, Manual):
        return up.apply_entry(original, updated, entry)
    arg = bound.values.get("in_place")
    if arg is None or literal(code_of(arg.value)) != ("ok", False):
        return up.apply_entry(original, updated, entry)  # in place (or non-literal: the rule's)
    use = copy.copy(entry)
    use.args = dict(entry.args)
    use.args["in_place"] = ArgSpec(drop=True)
    use.args["x"] = ArgSpec(transform="paddle.assign({})")
    return up.apply_entry(original, updated, use)


def _initializer_uniform(up, original, updated, entry):
    """``Xavier`` / ``MSRA`` with a literal ``uniform=False`` drew from a normal distribution
    with the same fans: today's ``XavierNormal`` / ``KaimingNormal`` (std
    sqrt(2 / (fan_in + fan_out)) / sqrt(2 / fan_in), as in 1.8); the default ``True`` is the
    entry's own uniform target, a non-literal flag stays manual (the entry's drop_if_default)."""
    bound = bind(entry, updated)
    if isinstance(bound, Manual):
        return up.apply_entry(original, updated, entry)
    arg = bound.values.get("uniform")
    if arg is None or literal(code_of(arg.value)) != ("ok", False):
        return up.apply_entry(original, updated, entry)
    use = copy.copy(entry)
    use.target = entry.target.replace("Uniform", "Normal")
    use.args = dict(entry.args)
    use.args["uniform"] = ArgSpec(drop=True)
    return up.apply_entry(original, updated, use)
