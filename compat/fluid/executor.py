"""``paddle.fluid.executor`` (1.8): ``Executor``, ``global_scope``, ``scope_guard``."""
from __future__ import annotations

import numpy as np
import paddle

from compat import _lazy, device
from compat._runtime import ensure_static, legacy
from compat.fluid import _pir

__all__ = ["Executor", "global_scope", "scope_guard", "Scope"]


@legacy("paddle.fluid.global_scope", "paddle.fluid.executor.global_scope")
def global_scope():
    return paddle.static.global_scope()


@legacy("paddle.fluid.scope_guard", "paddle.fluid.executor.scope_guard")
def scope_guard(scope):
    return paddle.static.scope_guard(scope)


@legacy("paddle.fluid.Scope", "paddle.fluid.core.Scope")
def Scope():  # noqa: N802 - 1.x name
    return paddle.base.core.Scope()


def _as_array(value):
    if isinstance(value, np.ndarray):
        return value
    if isinstance(value, paddle.Tensor):
        return value.numpy()
    if isinstance(value, paddle.base.core.DenseTensor):
        return np.array(value)
    return np.asarray(value)


def _merge_feeds(feed):
    """1.x fed a list of per-device dicts (``DataLoader`` with places): one dict here."""
    if isinstance(feed, (list, tuple)):
        feeds = [f for f in feed if f]
        if not feeds:
            return {}
        if len(feeds) == 1:
            return dict(feeds[0])
        out = {}
        for k in feeds[0]:
            out[k] = np.concatenate([_as_array(f[k]) for f in feeds], axis=0)
        return out
    return dict(feed)


_dtype_cache = {}


def _data_infos(program):
    """{name: (numpy dtype, shape, used)} of the program's feedable data."""
    key = (id(program), program.global_block().num_ops())
    got = _dtype_cache.get(key)
    if got is None:
        got = {}
        for op in program.global_block().ops:
            if op.name() == "pd_op.data":
                try:
                    r = op.results()[0]
                    if r.persistable:
                        continue
                    got[op.attrs()["name"]] = (paddle.base.data_feeder.convert_dtype(r.dtype),
                                               [int(d) for d in r.shape], not r.use_empty())
                except Exception:
                    pass
        if len(_dtype_cache) > 64:
            _dtype_cache.clear()
        _dtype_cache[key] = got
    return got


def _normalize_feed(feed, program):
    feed = _merge_feeds(feed)
    if not isinstance(program, paddle.pir.Program):
        return feed
    infos = _data_infos(program)
    out = {}
    for k, v in feed.items():
        name = k if isinstance(k, str) else getattr(k, "name", k)
        if isinstance(v, paddle.base.core.DenseTensor) and name not in infos:
            out[name] = v
            continue
        a = _as_array(v)
        want = infos.get(name, (None,))[0]
        if want is not None and a.dtype != np.dtype(want) and want not in ("bfloat16",):
            a = a.astype(want)
        out[name] = a
    # 1.x ran a program without feeding data nobody reads (e.g. the label in a test
    # clone); today's executor wants every data op fed.
    for name, (dtype, shape, used) in infos.items():
        if name not in out and not used:
            out[name] = np.zeros([1 if d < 0 else d for d in shape], dtype=dtype)
    return out


def _to_1x(value):
    if isinstance(value, np.ndarray) and value.ndim == 0:
        return value.reshape((1,))
    return value


@legacy("paddle.fluid.Executor", "paddle.fluid.executor.Executor")
class Executor(paddle.static.Executor):
    """``fluid.Executor(place=None)``: ``place`` selects the device (device policy applies);
    ``run`` takes 1.x arguments (fetch by name, list-of-dict feeds, compiled programs,
    non-iterable ``DataLoader``) and returns 1.x shapes (no 0-d arrays)."""

    def __init__(self, place=None):
        ensure_static()
        if place is not None:
            if isinstance(place, (list, tuple)):
                place = place[0] if place else None
            device.use_place(place)
        super().__init__(place)

    def run(self, program=None, feed=None, fetch_list=None, feed_var_name="feed",
            fetch_var_name="fetch", scope=None, return_numpy=True, use_program_cache=False,
            return_merged=True, use_prune=False):
        ensure_static()
        from compat.fluid import compiler, reader
        if program is None:
            program = paddle.static.default_main_program()
        if isinstance(program, compiler.CompiledProgram):
            program = program._program
        if isinstance(program, paddle.pir.Program):
            from compat.fluid import _pir
            _pir.adopt_foreign_operands(program)
        from compat.fluid.layers import learning_rate_scheduler as lrs
        if not feed:
            try:
                pending = reader.pending_feed(program)
            except paddle.base.core.EOFException:
                # 1.x raised from the read op of the running program, after the step-counter
                # increments prepended to it had run: the run that meets the end of a
                # non-iterable DataLoader still advanced the learning-rate decays
                lrs.after_eof(program, scope)
                raise
            if pending is not None:
                feed = pending
        feed = _normalize_feed(feed or {}, program)
        if fetch_list is not None and not isinstance(fetch_list, (list, tuple)):
            fetch_list = [fetch_list]
        items = list(fetch_list or [])
        fetch = [self._fetch_target(f, program) for f in items]
        out = super().run(program, feed=feed, fetch_list=fetch, feed_var_name=feed_var_name,
                          fetch_var_name=fetch_var_name, scope=scope,
                          return_numpy=return_numpy, use_program_cache=use_program_cache)
        lrs.after_run(program)
        if return_numpy and isinstance(out, list):
            # a learning-rate variable was [1] in 1.x (today's is 0-d)
            out = [_to_1x(o) if isinstance(i, lrs.LegacyDecay) else o for i, o in zip(items, out)]
        return out

    @staticmethod
    def _fetch_target(item, program):
        from compat.fluid.layers import learning_rate_scheduler as lrs
        if isinstance(item, lrs.LegacyDecay):
            return lrs.lr_value_for(item, program)
        if isinstance(item, str):
            value = _pir.find_by_name(program, item) if isinstance(program, paddle.pir.Program) else None
            if value is None:
                raise ValueError("fetch_list: no variable named %r in the program" % item)
            item = value
        if isinstance(item, paddle.pir.Value) and isinstance(program, paddle.pir.Program):
            return _pir.translate(item, program)
        return item

    def close(self):
        try:
            super().close()
        except Exception:  # pragma: no cover
            pass


_lazy.attach(globals())


@legacy("paddle.fluid.executor._fetch_var", replacement=(
    "np.array(paddle.static.global_scope().find_var(name).get_tensor())"))
def _fetch_var(name, scope=None, return_numpy=True):
    """1.8's private ``fluid.executor._fetch_var``: a variable's value read from the scope."""
    assert isinstance(name, str)
    if scope is None:
        scope = paddle.static.global_scope()
    var = scope.find_var(name)
    assert var is not None, (
        "Cannot find " + name + " in scope. Perhaps you need to make the variable "
        "persistable by using var.persistable = True in your program.")
    tensor = var.get_tensor()
    return np.array(tensor) if return_numpy else tensor
