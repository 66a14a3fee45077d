"""The engine pauses the cyclic garbage collector for one file's work (engine.collector_paused):
it must come back on whatever happens, stay off when the caller turned it off, and the
call's cyclic garbage must be gone when the call returns."""
import gc

import pytest

from upgrader import engine, runner
from upgrader.config import resolve

LEGACY = "import paddle.fluid as fluid\n\nx = fluid.layers.relu(fluid.layers.data('x', [3]))\n"


def test_collector_back_on_after_a_call():
    assert gc.isenabled()
    res = engine.upgrade_source(LEGACY)
    assert res.changed and gc.isenabled()
    # one young collection ran at the end: nothing of the call waits in generation 0/1
    assert gc.get_count()[0] < 50


def test_collector_back_on_after_a_parse_error():
    with pytest.raises(engine.ParseError):
        engine.upgrade_source("import paddle.fluid as fluid\ndef f(:\n")
    assert gc.isenabled()


def test_collector_left_off_when_the_caller_turned_it_off():
    gc.disable()
    try:
        engine.upgrade_source(LEGACY)
        assert not gc.isenabled()
        with engine.collector_paused():
            assert not gc.isenabled()
        assert not gc.isenabled()
    finally:
        gc.enable()


def test_nested_pause_collects_once_at_the_outer_end(tmp_path):
    calls = []
    gc.callbacks.append(lambda phase, info: calls.append((phase, info["generation"])))
    try:
        with engine.collector_paused():
            engine.upgrade_source(LEGACY)
            assert not gc.isenabled() and calls == []
        assert gc.isenabled()
        assert ("start", 1) in calls
    finally:
        gc.callbacks.pop()


def test_runner_file_work_restores_the_collector(tmp_path):
    p = tmp_path / "train.py"
    p.write_text(LEGACY)
    out = runner.upgrade_python(LEGACY, resolve([str(tmp_path)]), str(p), True)
    assert out.changed and gc.isenabled()
