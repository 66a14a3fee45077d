"""``paddle.fluid.layers.control_flow`` (1.8).

Hand-written here: the block-built control flow of 1.x static programs and the compare
ops' ``cond`` output; every other name is generated from the rule database.

- ``While(cond)`` / ``with while_op.block():``: the body writes the variables of the
  enclosing program in place (``assign(x, output)``, ``increment(in_place=True)``,
  ``array_write``) and refreshes ``cond`` (``less_than(i, n, cond=cond)``). Paddle 3.x
  still builds exactly that on PIR (``paddle.static.nn.control_flow.While``: a while op
  carrying ``cond`` whose body writes the outer variables in place).
- ``Switch``: ``with switch.case(c):`` / ``with switch.default():`` run the first case
  whose condition holds; each case is a PIR if op (true block = the case body) guarded
  by "this condition and none of the earlier ones", as 1.x's Switch computed it.
- ``less_than`` & co. with ``cond=``: the result is written into ``cond`` (in place)
  and ``cond`` returned.

These are static-graph constructs, as in 1.x; dygraph code uses Python control flow.

Nesting (a ``While`` or ``Switch`` inside a ``While`` body or a ``Switch`` case) raises
``LegacyAPIError``: Paddle 3.3.1's PIR executor keeps an in-place write made in a
nested block only for variables of the block right around it, so a write to a
variable of the program (``assign(x, total)`` two blocks down) would silently be lost.
"""
from __future__ import annotations

import paddle

from compat import _lazy
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


_open_blocks = []  # the While bodies / Switch cases being built, innermost last


def _enter_block(name):
    if _open_blocks:
        raise manual_error(
            "paddle.fluid.layers." + name,
            "nested in a %s block: on Paddle %s's PIR, in-place writes (assign(x, output), "
            "increment, array_write) made two blocks down to variables of the enclosing "
            "program are lost; write the loop with paddle.static.nn.while_loop / "
            "paddle.static.nn.cond and explicit loop variables" % (_open_blocks[-1],
                                                                   paddle.__version__))
    _open_blocks.append(name)


class _Tracked(object):
    """A block guard that records that a 1.x block is being built."""

    def __init__(self, name, guard):
        self._name, self._guard = name, guard

    def __enter__(self):
        _enter_block(self._name)
        try:
            return self._guard.__enter__()
        except BaseException:
            _open_blocks.pop()
            raise

    def __exit__(self, exc_type, exc_val, exc_tb):
        try:
            return self._guard.__exit__(exc_type, exc_val, exc_tb)
        finally:
            _open_blocks.pop()


@_cf("While", "paddle.static.nn.while_loop")
class While(object):
    """1.x ``While``: ``with while_op.block():`` builds the loop body."""

    def __init__(self, cond, is_test=False, name=None):
        _static_only("While")
        from paddle.static.nn.control_flow import While as _While
        self._impl = _While(cond, is_test=is_test, name=name)
        self.cond_var = cond

    def block(self):
        return _Tracked("While", self._impl.block())


class _CaseBlock(object):
    """``with``: the true block of a PIR if op on ``cond`` (the false block is empty)."""

    def __init__(self, cond):
        self._cond = cond

    def __enter__(self):
        from paddle.static.nn.control_flow import If
        self._if = If(self._cond)
        self._block = self._if.true_block()
        self._block.__enter__()
        return self

    def __exit__(self, exc_type, exc_val, exc_tb):
        from paddle.base.libpaddle.pir import cf_yield
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


_lazy.attach(globals())
