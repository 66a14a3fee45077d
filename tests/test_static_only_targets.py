"""`target_static_only` in the rule data: each flagged target really raises in dynamic
mode on the installed Paddle (so a call inside a dygraph.guard() block must stay manual),
and each has a probe here."""
import pytest

from upgrader import rulebook

paddle = pytest.importorskip("paddle")

PROBES = {
    "paddle.static.nn.fc": lambda f: f(paddle.ones([1, 2]), 1),
    "paddle.static.data": lambda f: f("x", [1, 2], "float32"),
    "paddle.static.Print": lambda f: f(paddle.ones([1])),
}


def _flagged():
    book = rulebook.load()
    return sorted({e.target for e in book.entries.values() if e.target_static_only})


def test_every_flagged_target_has_a_probe():
    assert _flagged() == sorted(PROBES)


@pytest.mark.parametrize("target", sorted(PROBES))
def test_flagged_target_raises_in_dynamic_mode(target):
    import importlib
    mod, _, attr = target.rpartition(".")
    func = getattr(importlib.import_module(mod), attr)
    assert paddle.in_dynamic_mode()
    with pytest.raises(AssertionError, match="only supported in static"):
        PROBES[target](func)
