"""1.x program behaviour on PIR programs (Paddle 3's static IR).

compat builds static graphs in PIR, Paddle's default IR since 3.0 (the old IR still
exists behind ``FLAGS_enable_pir_api=0``, but on 3.3.1 ``paddle.matmul``, ``paddle.sum``,
``paddle.exp``, ``F.sigmoid``, ``paddle.static.nn.cond`` ... no longer build old-IR ops;
see compat/README.md). What 1.x programs expect and PIR lacks is added here:

- every variable has a ``.name`` (1.x: ``fc_0.tmp_1``): PIR names only data,
  parameters and a few ops, so the other values get a stable generated name, and
  ``Executor.run(fetch_list=[name])`` resolves it;
- ``Program.clone(for_test=True)``: a copy with ``is_test`` set on dropout/batch_norm
  and, when the program was already minimized, without backward and optimizer ops;
  variables of the original program can be fetched from the clone.
"""
from __future__ import annotations

import paddle
from paddle import pir

_names_by_id = {}     # value.id -> generated name
_values_by_name = {}  # generated name -> value
_counters = {}

_orig_name = pir.Value.__dict__["name"]
_orig_clone = pir.Program.clone


def _generated_name(value) -> str:
    key = value.id
    name = _names_by_id.get(key)
    if name is None:
        try:
            op = value.get_defining_op().name().split(".")[-1].rstrip("_")
        except Exception:
            op = "tmp"
        n = _counters.get(op, 0)
        _counters[op] = n + 1
        name = "%s_%d.tmp_0" % (op, n)
        while name in _values_by_name:
            n += 1
            _counters[op] = n + 1
            name = "%s_%d.tmp_0" % (op, n)
        _names_by_id[key] = name
        _values_by_name[name] = value
    return name


def _get_name(self):
    try:
        return _orig_name.fget(self)
    except Exception:
        return _generated_name(self)


def _set_name(self, name):
    try:
        _orig_name.fset(self, name)
    except Exception:
        _names_by_id[self.id] = name
        _values_by_name[name] = self


def program_of(value):
    try:
        return value.get_defining_op().get_parent_block().program
    except Exception:
        return None


def _own_name(value):
    try:
        return _orig_name.fget(value)
    except Exception:
        return None


def find_by_name(program, name):
    """The value called *name* in *program* (data, parameter, or a generated name)."""
    v = _values_by_name.get(name)
    if v is not None:
        return v
    block = program.global_block()
    for op in block.ops:
        for r in op.results():
            if _own_name(r) == name:
                return r
    return None


def translate(value, program):
    """A value of *program* for *value*, which may belong to the program *program* was
    cloned from (``clone(for_test=True)``)."""
    owner = program_of(value)
    if owner is None or owner is program:
        return value
    chain = []
    p = program
    while p is not None and p is not owner:
        chain.append(p)
        p = getattr(p, "_compat_source", None)
    if p is None:
        return value
    for clone in reversed(chain):
        mapping = clone._compat_mapping
        if not mapping.has(value):
            return value
        value = mapping.look_up(value)
    return value


def _ops_of(block):
    for op in block.ops:
        yield op
        for inner in op.blocks():
            yield from _ops_of(inner)


def adopt_foreign_operands(program) -> None:
    """Ops built in a clone of a program (``program_guard(main.clone())``, PaddleCV gan's
    trainers: ``self.program = fluid.default_main_program().clone()``, then the networks
    built under ``program_guard(self.program)`` on the data variables made before) read
    values of the program it was cloned from: 1.x resolved such an input by name in the
    clone, which had copied it. PIR ops keep the source program's value (running or
    cloning the clone then fails: "Not found key in IRMapping"), so each such operand is
    pointed at the clone's copy of the value."""
    if getattr(program, "_compat_source", None) is None:
        return
    count = program.global_block().num_ops()
    if getattr(program, "_compat_adopted", None) == count:
        return
    for op in _ops_of(program.global_block()):
        for i in range(op.num_operands()):
            operand = op.operand(i)
            v = operand.source()
            if not v.initialized():
                continue
            owner = program_of(v)
            if owner is None or owner is program:
                continue
            new = translate(v, program)
            if new is not v:
                operand.set_source(new)
    program._compat_adopted = count


def _set_parameter_name(op):
    """The parameter a startup program's ``builtin.set_parameter`` op initializes, or None
    (1.x startup blocks listed every parameter they initialized among their variables)."""
    if op.name() != "builtin.set_parameter":
        return None
    try:
        return op.attrs().get("parameter_name")
    except Exception:
        return None


def _block_find(block, name):
    for op in block.ops:
        for r in op.results():
            if _own_name(r) == name or _names_by_id.get(r.id) == name:
                return r
        if _set_parameter_name(op) == name:
            return op.operand_source(0)
    return None


def _block_var(self, name):
    """1.x ``Block.var(name)``."""
    v = _block_find(self, name)
    if v is None:
        raise ValueError("var %s not in this block" % name)
    return v


def _block_vars(self):
    """1.x ``Block.vars``: name -> variable of the block (its named values, in order)."""
    out = {}
    for op in self.ops:
        for r in op.results():
            name = _own_name(r) or _names_by_id.get(r.id)
            if name and name not in out:
                out[name] = r
        name = _set_parameter_name(op)
        if name and name not in out:
            out[name] = op.operand_source(0)
    return out


def _input_arg_names(self):
    """1.x ``Operator.input_arg_names``: the names of the variables the op reads (values
    without a name of their own get compat's generated name, which ``Block.var`` finds)."""
    return [o.source().name for o in self.operands() if o.source().initialized()]


def _output_arg_names(self):
    """1.x ``Operator.output_arg_names``: the names of the variables the op writes."""
    return [r.name for r in self.results()]


def _current_block(self):
    """1.x ``Program.current_block()``: the block ops are being added to (the body of a
    cond/while_loop being built), else the global block."""
    try:
        block = paddle.base.libpaddle.pir.get_current_insertion_point().block()
        if block.program is self:
            return block
    except Exception:
        pass
    return self.global_block()


def _clone(self, *args, **kwargs):
    for_test = kwargs.pop("for_test", None)
    if args and not isinstance(args[0], bool):
        return _orig_clone(self, *args, **kwargs)
    if args:
        for_test = args[0]
    adopt_foreign_operands(self)
    mapping = pir.IrMapping()
    new = _orig_clone(self, mapping)
    new._compat_source = self
    new._compat_mapping = mapping
    # before any backward (1.x pruned nothing then) the clone keeps the step counters of
    # the learning-rate decays built so far: its runs advance them (learning_rate_scheduler)
    decays = getattr(self, "_compat_decays", None)
    new._compat_advance = list(decays) if decays and getattr(self, "_compat_forward_ops", None) is None else []
    if for_test:
        fwd = getattr(self, "_compat_forward_ops", None)
        if fwd is not None:
            # the learning-rate decays' step counters went too (1.x built them under the
            # learning-rate role, which clone(for_test=True) pruned with the optimizer)
            lr_ops = getattr(self, "_compat_lr_ops", ())
            old_ops = list(self.global_block().ops)
            new_block = new.global_block()
            new_ops = list(new_block.ops)
            if len(old_ops) == len(new_ops):
                for old, op in reversed(list(zip(old_ops, new_ops))):
                    if old.id() not in fwd or old.id() in lr_ops:
                        try:
                            new_block.remove_op(op)
                        except Exception:
                            pass
            # no optimizer ops left: the training program's learning-rate schedule (copied
            # with the program's attributes) has no variable here (3.3.1's executor raised
            # "The type of value is nullptr" at the first run), and 1.8.5's evaluation runs
            # did not advance it
            for attr in ("lr_scheduler", "lr_var", "lr_name"):
                new.__dict__.pop(attr, None)
        new.set_is_test_attr()
    try:
        new.random_seed = self.random_seed
    except Exception:
        pass
    return new


def mark_forward(program) -> None:
    """Remember the forward ops (called before an optimizer appends backward ops)."""
    if getattr(program, "_compat_forward_ops", None) is None:
        program._compat_forward_ops = {op.id() for op in program.global_block().ops}


_orig_seed = pir.Program.__dict__.get("random_seed")


def _set_seed(self, seed):
    """1.x dygraph took its random seed from ``default_main_program().random_seed``."""
    if _orig_seed is not None and _orig_seed.fset is not None:
        _orig_seed.fset(self, seed)
    if paddle.in_dynamic_mode():
        paddle.seed(int(seed))


def mark_not_parameter(value, program=None) -> None:
    """A persistable PIR parameter that 1.x did not make a ``Parameter``
    (``create_global_var``'s variables, the optimizers' learning-rate variables): left
    out of ``all_parameters()``, ``get_program_parameter`` and ``save_params``."""
    if program is None:
        program = paddle.static.default_main_program()
    names = getattr(program, "_compat_not_params", None)
    if names is None:
        names = program._compat_not_params = set()
    try:
        names.add(value.name)
    except Exception:  # pragma: no cover
        pass


def mark_global_var(value) -> None:
    mark_not_parameter(value)


def not_parameters(program) -> set:
    """Names of *program*'s (or its clone source's) non-1.x parameters."""
    out = set()
    while program is not None:
        out |= getattr(program, "_compat_not_params", set())
        program = getattr(program, "_compat_source", None)
    return out


def is_parameter(value) -> bool:
    """1.x ``isinstance(var, Parameter)`` for a PIR value of a static program."""
    try:
        op = value.get_defining_op()
        if op.name() != "builtin.parameter":
            return False
        return value.name not in not_parameters(op.get_parent_block().program)
    except Exception:
        return False


_orig_block_all_parameters = pir.Block.all_parameters


def _block_all_parameters(self):
    """1.x ``Block.all_parameters()``: real parameters only, in creation order (PIR puts
    each parameter op at the top of the block: its list is in reverse order)."""
    skip = not_parameters(self.program)
    return [p for p in _orig_block_all_parameters(self) if p.name not in skip][::-1]


def _all_parameters(self):
    """1.x ``Program.all_parameters()``."""
    return self.global_block().all_parameters()


def _existing_parameter(program, name):
    """The value of *program*'s parameter op named *name*, or None."""
    for op in program.global_block().ops:
        if op.name() == "builtin.parameter" and op.attrs().get("parameter_name") == name:
            return op.result(0)
    return None


def _create_parameter_once(create):
    """1.x made one parameter per name in a program: a second layer given the same
    ParamAttr name (weight tying) used that parameter (and the first initializer). PIR
    adds another parameter op for it, so the optimizer updated the weight once per use with
    a partial gradient (differs from 1.8 but for SGD) and all_parameters() listed it twice:
    the program's parameter of that name is returned instead."""
    def create_parameter(dtype, shape, name=None, **kwargs):
        if name:
            import paddle.pir.core as core
            found = _existing_parameter(core.default_main_program(), name)
            if found is not None:
                return found
        return create(dtype, shape, name=name, **kwargs)
    create_parameter.__wrapped__ = create
    return create_parameter


_installed = False


def install() -> None:
    global _installed
    if _installed:
        return
    _installed = True
    pir.Value.name = property(_get_name, _set_name)
    pir.Program.clone = _clone
    import paddle.pir.core as _core
    _core.create_parameter = _create_parameter_once(_core.create_parameter)
    # 1.x Program/Block accessors that PIR programs lack
    pir.Program.all_parameters = _all_parameters
    pir.Block.all_parameters = _block_all_parameters
    if not hasattr(pir.Program, "block"):
        pir.Program.block = lambda self, index=0: self.global_block() if index == 0 else self.blocks[index]
    if not hasattr(pir.Program, "current_block"):
        pir.Program.current_block = _current_block
    if not hasattr(pir.Block, "var"):
        pir.Block.var = _block_var
    if not hasattr(pir.Block, "vars"):
        pir.Block.vars = property(_block_vars)
    if not hasattr(pir.Operation, "input_arg_names"):
        pir.Operation.input_arg_names = property(_input_arg_names)
    if not hasattr(pir.Operation, "output_arg_names"):
        pir.Operation.output_arg_names = property(_output_arg_names)
    if not hasattr(pir.Block, "has_var"):
        pir.Block.has_var = lambda self, name: _block_find(self, name) is not None
    if _orig_seed is not None:
        pir.Program.random_seed = property(_orig_seed.fget, _set_seed)
