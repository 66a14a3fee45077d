"""``paddle.fluid.layers.control_flow`` (1.8).

Hand-written here: the block-built control flow of 1.x static programs and the compare
ops' ``cond`` output; every other name is generated from the rule database.

- ``While(cond)`` / ``with while_op.block():``: the body writes the variables of the
  enclosing program in place (``assign(x, output)``, ``increment(in_place=True)``,
  ``array_write``) and refreshes ``cond`` (``less_than(i, n, cond=cond)``). Paddle 3.x
  still builds exactly that on PIR (``paddle.static.nn.control_flow.While``: a while op
  carrying ``cond`` whose body writes the outer variables in place). The class is
  ``_FluidWhile``, the one ``fix`` adds to upgraded modules (upgrader/fixers/while_block.py).
- ``Switch``: ``with switch.case(c):`` / ``with switch.default():`` run the first case
  whose condition holds; each case is a PIR if op (true block = the case body) guarded
  by "this condition and none of the earlier ones", as 1.x's Switch computed it.
- ``less_than`` & co. with ``cond=``: the result is written into ``cond`` (in place)
  and ``cond`` returned.

These are static-graph constructs, as in 1.x; dygraph code uses Python control flow.

Nesting works too: Paddle 3.3.1's PIR executor keeps an in-place write made in a
nested block only for variables of the block right around it (a write two blocks down
is lost), so when a ``While`` or ``Switch`` case has been built, each variable of an
outer block that it (or a block inside it, e.g. a ``layers.cond`` branch) writes in place
is relayed through a copy in the block around it (copied before the op, the copy written
inside, written back after the op: ``_FluidWhile.relay``). A tensor array
(``create_array``) written two blocks down cannot be copied on PIR: that raises
``LegacyAPIError`` (unrelayed, the run would fail).
"""
from __future__ import annotations

import paddle

from compat import _lazy
from compat._added import added
from compat._runtime import legacy, manual_error


def _cf(name, replacement):
    return legacy("paddle.fluid.layers." + name, "paddle.fluid.layers.control_flow." + name,
                  replacement=replacement)


def _compare(fn, x, y, cond):
    out = fn(x, y)
    if cond is None:
        return out
    paddle.assign(out, cond)
    return cond


@_cf("less_than", "paddle.less_than")
def less_than(x, y, force_cpu=None, cond=None):
    return _compare(paddle.less_than, x, y, cond)


@_cf("less_equal", "paddle.less_equal")
def less_equal(x, y, cond=None):
    return _compare(paddle.less_equal, x, y, cond)


@_cf("greater_than", "paddle.greater_than")
def greater_than(x, y, cond=None):
    return _compare(paddle.greater_than, x, y, cond)


@_cf("greater_equal", "paddle.greater_equal")
def greater_equal(x, y, cond=None):
    return _compare(paddle.greater_equal, x, y, cond)


@_cf("equal", "paddle.equal")
def equal(x, y, cond=None):
    return _compare(paddle.equal, x, y, cond)


@_cf("not_equal", "paddle.not_equal")
def not_equal(x, y, cond=None):
    return _compare(paddle.not_equal, x, y, cond)


def _static_only(name):
    if paddle.in_dynamic_mode():
        raise manual_error("paddle.fluid.layers." + name,
                           "a static-graph construct (1.x built it into a Program); in "
                           "dygraph code use Python control flow")


def _relay_deep_writes(op, name):
    """Relay the in-place writes that ``op``'s blocks make to variables defined outside
    the block holding ``op`` (see the module docstring): the relay of ``_FluidWhile``, the
    class fix adds for ``While``."""
    try:
        added("while_block", "_FluidWhile").relay(op)
    except NotImplementedError as exc:
        raise manual_error("paddle.fluid.layers." + name, str(exc))


class _Tracked(object):
    """A 1.x block's guard; on a clean exit the op it built gets its deep writes relayed."""

    def __init__(self, name, guard):
        self._name, self._guard = name, guard

    def __enter__(self):
        return self._guard.__enter__()

    def __exit__(self, exc_type, exc_val, exc_tb):
        out = self._guard.__exit__(exc_type, exc_val, exc_tb)
        if exc_type is None:
            from paddle.base.libpaddle import pir as P
            _relay_deep_writes(P.get_current_insertion_point().block().ops[-1], self._name)
        return out


@_cf("While", "paddle.static.nn.while_loop")
class While(added("while_block", "_FluidWhile")):
    """1.x ``While``: ``with while_op.block():`` builds the loop body; ``_FluidWhile``, the
    class fix adds (upgrader/fixers/while_block.py), with 1.x's error in dygraph mode."""

    def __init__(self, cond, is_test=False, name=None):
        _static_only("While")
        super().__init__(cond, is_test=is_test, name=name)

    def __exit__(self, exc_type, exc_val, exc_tb):
        try:
            return super().__exit__(exc_type, exc_val, exc_tb)
        except NotImplementedError as exc:
            raise manual_error("paddle.fluid.layers.While", str(exc))


_CASE_DEPTH = [0]  # open Switch case/default blocks


def in_case_block() -> bool:
    """Code runs inside a ``Switch`` case or default block (its results feed graph ops)."""
    return _CASE_DEPTH[0] > 0


class _CaseBlock(object):
    """``with``: the true block of a PIR if op on ``cond`` (the false block is empty)."""

    def __init__(self, cond):
        self._cond = cond

    def __enter__(self):
        from paddle.static.nn.control_flow import If
        self._if = If(self._cond)
        self._block = self._if.true_block()
        self._block.__enter__()
        _CASE_DEPTH[0] += 1
        return self

    def __exit__(self, exc_type, exc_val, exc_tb):
        from paddle.base.libpaddle.pir import cf_yield
        _CASE_DEPTH[0] -= 1
        if exc_type is None:
            cf_yield([])
        self._block.__exit__(exc_type, exc_val, exc_tb)
        if exc_type is None:
            with self._if.false_block():
                cf_yield([])
        return False


@_cf("Switch", "paddle.static.nn.case")
class Switch(object):
    """1.x ``Switch``: the body of the first case whose condition holds (else the
    default's) runs."""

    def __init__(self, name=None):
        _static_only("Switch")
        self.inside_scope = False
        self._not_before = None  # no earlier condition held

    def case(self, condition):
        if not self.inside_scope:
            raise ValueError("case should be called inside with")
        if self._not_before is None:
            cond = condition
            self._not_before = paddle.logical_not(condition)
        else:
            cond = paddle.logical_and(self._not_before, condition)
            self._not_before = paddle.logical_and(self._not_before,
                                                  paddle.logical_not(condition))
        return _Tracked("Switch", _CaseBlock(cond))

    def default(self):
        if self._not_before is None:
            raise ValueError("there should be at least one condition")
        return _Tracked("Switch", _CaseBlock(self._not_before))

    def __enter__(self):
        self.inside_scope = True
        return self

    def __exit__(self, exc_type, exc_val, exc_tb):
        self.inside_scope = False
        return False


def _copy_dense(v):
    if isinstance(v, paddle.pir.Value) and v.is_dense_tensor_type():
        return paddle.assign(v)
    return v


@_cf("while_loop", "paddle.static.nn.while_loop")
def while_loop(cond, body, loop_vars, is_test=False, name=None):
    """1.x ``while_loop`` (``paddle.static.nn.while_loop``). In a static program the loop
    starts from copies of the dense-tensor loop variables: on Paddle 3.3.1 a loop variable
    that an op outside the loop also reads for its gradient (``h * h`` and
    ``while_loop(.., [i, h])``, then a backward) made every run fail ("Tensor holds no
    memory"); from a copy the values and gradients are those of the loop.

    In dygraph, 1.8.5 ran the loop in Python and returned the body's last results, leaving
    the tensors passed in unchanged; 3.3.1's dygraph while_loop assigns each step's results
    into them (``x`` read after ``while_loop(c, b, [i, x])`` held the final value), so here
    the loop runs as 1.8.5's did.

    Not reproduced: 1.8 also wrote the loop's results into the loop variables themselves
    (static programs); they keep their values here, as after ``fix`` (unsafe there when a
    loop variable is read after the call)."""
    if paddle.in_dynamic_mode():
        return _dygraph_while_loop(cond, body, loop_vars)
    if isinstance(loop_vars, (list, tuple)):
        loop_vars = paddle.utils.map_structure(_copy_dense, list(loop_vars))
    return paddle.static.nn.while_loop(cond, body, loop_vars, is_test=is_test, name=name)


def _dygraph_while_loop(cond, body, loop_vars):
    """1.8.5's dygraph branch of ``layers.while_loop`` (the loop variables are rebound, not
    written)."""
    if not callable(cond) or not callable(body):
        raise TypeError("cond and body of while_loop must be callable")
    if not isinstance(loop_vars, (list, tuple)) or len(loop_vars) == 0:
        raise ValueError("loop_vars in while_loop should not be empty")
    now_cond = bool(cond(*loop_vars).numpy().ravel()[0])
    while now_cond:
        output_vars = body(*loop_vars)
        if not isinstance(output_vars, (list, tuple)):
            output_vars = [output_vars]
        if len(output_vars) != len(loop_vars):
            raise ValueError("body in while_loop should return the same arity "
                             "(length and structure) and types as loop_vars")
        now_cond = bool(cond(*output_vars).numpy().ravel()[0])
        loop_vars = output_vars
    return loop_vars


_lazy.attach(globals())


@legacy("paddle.fluid.layers.increment", "paddle.fluid.layers.control_flow.increment",
        replacement="paddle.increment")
def increment(x, value=1.0, in_place=True):
    """1.x ``increment``: adds ``value`` to the one-element ``x`` in place, or (in_place=False)
    into a new variable of x's dtype, leaving x unchanged."""
    return paddle.increment(x if in_place else paddle.assign(x), value)
