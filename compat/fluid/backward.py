"""``paddle.fluid.backward`` (1.8): ``append_backward``, ``gradients``."""
from __future__ import annotations

import paddle

from compat import _lazy
from compat._runtime import legacy


def _names_of(program):
    """name -> value of *program*'s global block: data, parameters, and the values whose
    generated name the program already handed out."""
    from compat.fluid import _pir
    table = {}
    for op in program.global_block().ops:
        for r in op.results():
            name = _pir._own_name(r) or _pir._names_by_id.get(r.id)
            if name is not None:
                table.setdefault(name, r)
    return table


def _by_name(program, items):
    """1.x accepted variables and their names (mixed) in ``parameter_list`` and
    ``no_grad_set``; a name resolves in *program*, a name it lacks is dropped (1.8.5
    ignored it). Anything else is handed on as it is."""
    if items is None or isinstance(items, str) or not isinstance(items, (list, tuple, set)):
        return items
    if not any(isinstance(i, str) for i in items):
        return items
    if program is None:
        program = paddle.static.default_main_program()
    table = _names_of(program)
    out = []
    for i in items:
        if isinstance(i, str):
            i = table.get(i)
            if i is None:
                continue
        out.append(i)
    return out


def first_order_only(program, no_grad_set):
    """``no_grad_set`` plus the values ``gradients()`` returned in *program*: 1.8.5's
    append_backward (and so ``minimize``) differentiated the forward ops only, so a loss
    term computed from a ``fluid.gradients`` result (WGAN-GP's gradient penalty) gave its
    value but no parameter gradient (checked on 1.8.5: SGD on such a penalty alone leaves
    the weights unchanged); Paddle 3 differentiates through it."""
    made = getattr(program, "_compat_gradient_values", None) if program is not None else None
    if not made:
        return no_grad_set
    return list(no_grad_set or []) + list(made)


def _program_of(value):
    from compat.fluid import _pir
    if isinstance(value, (list, tuple)):
        value = value[0] if value else None
    return _pir.program_of(value) if isinstance(value, paddle.pir.Value) else None


@legacy("paddle.fluid.backward.append_backward", "paddle.fluid.append_backward",
        replacement="paddle.static.append_backward")
def append_backward(loss, parameter_list=None, no_grad_set=None, callbacks=None, checkpoints=None):
    program = _program_of(loss)
    if program is None:
        return paddle.static.append_backward(loss, parameter_list=parameter_list,
                                             no_grad_set=no_grad_set, callbacks=callbacks)
    params = _by_name(program, parameter_list)
    if params is None:  # the persistable values of the loss's block, as PIR's append_backward
        params = [r for op in loss.get_defining_op().get_parent_block().ops
                  if op.has_attr("persistable") for r in op.results() if r.persistable]
    params = list(params)
    # PIR's append_backward differentiates every value (no pruning by the inputs): with
    # paddle.add_n (fluid.layers.sums) over an input that needs no gradient, it leaves an
    # op without an output type that crashes the executor (segfault, checked on 3.3.1).
    # gradients() (what Paddle's own optimizers call) prunes to the parameters.
    grads = paddle.static.gradients([loss], params,
                                    no_grad_set=first_order_only(program, _by_name(program, no_grad_set))) \
        if params else []
    pairs = list(zip(params, grads))
    # 1.x left out the parameters that get no gradient (in no_grad_set, not reached), and
    # listed the block's parameters in creation order (PIR puts each one at the top)
    pairs = [pg for pg in pairs if pg[1] is not None]
    return pairs[::-1] if parameter_list is None else pairs


@legacy("paddle.fluid.backward.gradients", "paddle.fluid.gradients",
        replacement="paddle.static.gradients")
def gradients(targets, inputs, target_gradients=None, no_grad_set=None):
    program = _program_of(targets)
    grads = paddle.static.gradients(targets, inputs, target_gradients=target_gradients,
                                    no_grad_set=_by_name(program, no_grad_set))
    if program is not None:
        # 1.8's append_backward (minimize) skipped the ops gradients() added (their role
        # is Backward): a loss computed from these values got no gradient through them
        made = getattr(program, "_compat_gradient_values", None)
        if made is None:
            made = program._compat_gradient_values = []
        made.extend(g for g in (grads if isinstance(grads, list) else [grads]) if g is not None)
    # 1.8.5 unpacked a single gradient and listed it again: one input without a gradient
    # gave [] (several inputs: None in their places)
    if isinstance(grads, list) and len(grads) == 1 and grads[0] is None:
        return []
    return grads


_lazy.attach(globals())
