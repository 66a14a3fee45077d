"""``paddle.fluid.dygraph.base`` (1.8): ``guard``, ``to_variable``, ``no_grad``, ``grad``,
``enable_dygraph`` / ``disable_dygraph``."""
from __future__ import annotations

import contextlib
import functools
import weakref

import numpy as np
import paddle
from paddle.utils import unique_name

from compat import _lazy, device
from compat._runtime import legacy, mode_state

__all__ = ["no_grad", "grad", "guard", "enable_dygraph", "disable_dygraph", "enabled",
           "to_variable", "enable_imperative", "disable_imperative"]


def _b(name, *more, replacement=None):
    return legacy("paddle.fluid.dygraph." + name, "paddle.fluid.dygraph.base." + name, *more,
                  replacement=replacement)


@_b("guard", replacement="dynamic mode is the default (paddle.disable_static)")
@contextlib.contextmanager
def guard(place=None):
    """Dygraph inside, the previous mode (1.x default: static) restored afterwards; a
    fresh ``unique_name`` namespace as in 1.x; ``place`` selects the device."""
    was_dynamic = paddle.in_dynamic_mode()
    prev_device = paddle.get_device()
    mode_state.explicit_dygraph += 1
    tracer, train = None, True
    try:
        if not was_dynamic:
            paddle.disable_static()
        # 1.x: a new tracer, in train mode (Layer.eval() before the block does not reach
        # into it; layers.dropout follows that mode), the previous one back afterwards
        tracer = paddle.base.framework._dygraph_tracer()
        if tracer is not None:
            train = (tracer._train_mode, tracer._has_grad)
            tracer.train_mode()
        if place is not None:
            device.use_place(place)
        with unique_name.guard():
            yield
    finally:
        mode_state.explicit_dygraph -= 1
        if tracer is not None:
            tracer._train_mode, tracer._has_grad = train
        if not was_dynamic:
            paddle.enable_static()
        if paddle.get_device() != prev_device:
            paddle.set_device(prev_device)


@legacy("paddle.fluid.dygraph.enable_dygraph", "paddle.fluid.dygraph.base.enable_dygraph",
        "paddle.fluid.enable_dygraph", replacement="paddle.disable_static")
def enable_dygraph(place=None):
    mode_state.explicit_dygraph = max(1, mode_state.explicit_dygraph)
    paddle.disable_static()
    if place is not None:
        device.use_place(place)


@legacy("paddle.fluid.dygraph.disable_dygraph", "paddle.fluid.dygraph.base.disable_dygraph",
        "paddle.fluid.disable_dygraph", replacement="paddle.enable_static")
def disable_dygraph():
    mode_state.explicit_dygraph = 0
    paddle.enable_static()


@legacy("paddle.fluid.dygraph.enable_imperative", "paddle.fluid.dygraph.base.enable_imperative",
        "paddle.fluid.enable_imperative", replacement="paddle.disable_static")
def enable_imperative(place=None):
    mode_state.explicit_dygraph = max(1, mode_state.explicit_dygraph)
    paddle.disable_static()
    if place is not None:
        device.use_place(place)


@legacy("paddle.fluid.dygraph.disable_imperative", "paddle.fluid.dygraph.base.disable_imperative",
        "paddle.fluid.disable_imperative", replacement="paddle.enable_static")
def disable_imperative():
    mode_state.explicit_dygraph = 0
    paddle.enable_static()


@_b("enabled", replacement="paddle.in_dynamic_mode")
def enabled():
    return paddle.in_dynamic_mode()


@_b("to_variable", replacement="paddle.to_tensor")
def to_variable(value, name=None, zero_copy=None):
    if not paddle.in_dynamic_mode():
        if paddle.base.dygraph.base.in_to_static_mode():
            # inside a translated function (1.x's translator turned it into assign)
            if isinstance(value, paddle.pir.Value):
                return value
            return paddle.to_tensor(value)
        raise AssertionError("We only support 'to_variable()' in dynamic graph mode, please "
                             "call 'paddle.fluid.dygraph.guard()' first.")
    if isinstance(value, paddle.Tensor):
        return value
    if isinstance(value, paddle.base.core.DenseTensor):
        value = np.array(value)
    if not isinstance(value, np.ndarray):
        raise TypeError("The type of input value is invalid, expected type is 'ndarray', "
                        "'Variable' or 'ComplexVariable', but received %s" % type(value))
    t = paddle.to_tensor(value)
    _leaves.add(t)
    if name is not None:
        try:
            t.name = name
        except Exception:  # pragma: no cover
            pass
    return t


@_b("no_grad", replacement="paddle.no_grad")
def no_grad(func=None):
    """Context manager (``with no_grad():``) or decorator, with or without parentheses."""
    if func is None:
        return paddle.no_grad()

    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        with paddle.no_grad():
            return func(*args, **kwargs)
    return wrapper


@_b("grad", replacement="paddle.grad")
def grad(outputs, inputs, grad_outputs=None, retain_graph=None, create_graph=False,
         only_inputs=True, allow_unused=False, no_grad_vars=None, backward_strategy=None):
    return paddle.grad(outputs, inputs, grad_outputs=grad_outputs, retain_graph=retain_graph,
                       create_graph=create_graph, only_inputs=only_inputs,
                       allow_unused=allow_unused, no_grad_vars=no_grad_vars)


@legacy("paddle.fluid.dygraph.BackwardStrategy", "paddle.fluid.dygraph.backward_strategy.BackwardStrategy",
        replacement="(nothing: today's backward needs no strategy)")
class BackwardStrategy(object):
    """1.x ``loss.backward(strategy)`` option holder, accepted and ignored as ``fix``
    deletes it: today's autograd sums the gradient contributions of a variable used by
    several ops in the order 1.8.5 did by default (``sort_sum_gradient=False``); 1.8.5's
    sorted order (True) has no counterpart (Paddle 3.3.1's eager autograd does not read
    FLAGS_sort_sum_gradient), so with three or more contributions to one variable the
    sum can differ in the last bits."""

    def __init__(self):
        self.sort_sum_gradient = False


# -- 1.x backward: leaf gradients are overwritten, not accumulated --------------------
#
# In 1.8 every ``loss.backward()`` set the gradients of the leaves it reached (the
# contributions of one pass summed); a second backward replaced them. Today gradients
# accumulate until cleared. The patched backward clears, before running, the gradients
# of the leaves this backward will reach (parameters, and tensors from ``to_variable``
# made trainable with ``stop_gradient = False``), which gives the 1.x result.
#
# The usual 1.x step (``backward``, ``minimize``, ``clear_gradients``) leaves nothing to
# clear, and finding that out must cost next to nothing: each parameter carries a hook
# that runs when a backward has accumulated into its gradient and records it in
# ``_dirty``; its ``clear_gradient`` (which ``Layer.clear_gradients`` and the optimizers'
# ``clear_grad`` call) removes it. Only when some parameter in ``_dirty`` (or a trainable
# ``to_variable`` tensor) holds a gradient does the backward walk the graph.

_leaves = weakref.WeakSet()  # to_variable tensors (and parameters that take no hook)
_dirty = {}  # id(parameter) -> weakref: a backward reached it since its last clear


def _reached_leaf_nodes(tensor):
    root = tensor.grad_fn
    out, seen, stack = set(), set(), [root]
    while stack:
        node = stack.pop()
        if node is None:
            continue
        ptr = node.node_ptr()
        if ptr in seen:
            continue
        seen.add(ptr)
        nxt = node.next_functions
        if node.name() == "GradNodeAccumulation":
            out.add(ptr)
        stack.extend(nxt)
    return out


def _clear_reached_leaves(tensor):
    live = []
    if _dirty:
        for key, ref in list(_dirty.items()):
            t = ref()
            if t is None:
                del _dirty[key]
            elif t.grad is not None:
                live.append(t)
    if _leaves:
        live.extend(t for t in _leaves if t.grad is not None)
    if not live:
        return
    reached = _reached_leaf_nodes(tensor)
    for t in live:
        fn = t.grad_fn
        if fn is not None and fn.node_ptr() in reached:
            t.clear_gradient(False)


_orig_backward = paddle.Tensor.backward


def _backward(self, grad_tensor=None, retain_graph=False, *args, **kwargs):
    if isinstance(grad_tensor, BackwardStrategy):  # 1.x: loss.backward(backward_strategy)
        grad_tensor = None
    kwargs.pop("backward_strategy", None)
    _clear_reached_leaves(self)
    return _orig_backward(self, grad_tensor, retain_graph, *args, **kwargs)


def _tracer_train_mode(self):
    """1.x's tracer had one flag for Layer.train()/eval() and no_grad(): eval mode recorded
    no gradients for any layer until a train() call (checked on 1.8.5: after
    layer.eval(), loss.stop_gradient was True and minimize() left the weights alone)."""
    self._train_mode = True
    self._has_grad = True


def _tracer_eval_mode(self):
    self._train_mode = False
    self._has_grad = False


_Tracer = paddle.base.dygraph.tracer.Tracer


_Param = paddle.base.framework.EagerParamBase
_orig_param_init = _Param.__init__
_orig_clear_gradient = paddle.Tensor.clear_gradient


def _param_init(self, *args, **kwargs):
    _orig_param_init(self, *args, **kwargs)
    key, ref = id(self), weakref.ref(self)

    def reached():
        _dirty[key] = ref

    try:
        self._register_backward_hook(reached)
    except Exception:  # pragma: no cover - no hook: checked on every backward instead
        _leaves.add(self)


def _param_clear_gradient(self, set_to_zero=True):
    _orig_clear_gradient(self, set_to_zero)
    _dirty.pop(id(self), None)


if getattr(paddle.Tensor.backward, "__name__", "") != "_backward":
    _backward.__doc__ = _orig_backward.__doc__
    _param_clear_gradient.__doc__ = _orig_clear_gradient.__doc__
    paddle.Tensor.backward = _backward
    _Param.__init__ = _param_init
    _Param.clear_gradient = _param_clear_gradient
    _Tracer.train_mode = _tracer_train_mode
    _Tracer.eval_mode = _tracer_eval_mode

_lazy.attach(globals())
