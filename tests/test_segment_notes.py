"""LoD segments in graph code (PGL regrouped edge messages by destination with lod_reset and
pooled them with sequence_pool / spread them back with sequence_expand_as): the notes of
those manual rules give the segment-id form with paddle.geometric, and that form gives
1.8.5's values (the legacy program runs in .venv-legacy when it exists)."""
import json
import subprocess
import textwrap
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parent.parent
LEGACY_PYTHON = ROOT / ".venv-legacy" / "bin" / "python"
LENGTHS = [2, 3, 1]

LEGACY = textwrap.dedent("""
    import json
    import numpy as np
    import paddle.fluid as fluid
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup):
        x = fluid.data('x', [None, 2], 'float32', lod_level=1)
        outs = [fluid.layers.sequence_pool(x, t) for t in ('sum', 'average', 'max', 'sqrt')]
        outs.append(fluid.layers.sequence_expand_as(fluid.layers.sequence_pool(x, 'max'), x))
    exe = fluid.Executor(fluid.CPUPlace())
    exe.run(startup)
    xv = np.arange(12, dtype='float32').reshape(6, 2) * np.array([1, -1], 'float32')
    t = fluid.create_lod_tensor(xv, [%s], fluid.CPUPlace())
    res = exe.run(main, feed={'x': t}, fetch_list=outs, return_numpy=False)
    print(json.dumps([np.array(r).tolist() for r in res]))
""" % LENGTHS)


def _modern():
    import paddle
    G = paddle.geometric
    x = paddle.to_tensor(np.arange(12, dtype='float32').reshape(6, 2) * np.array([1, -1], 'float32'))
    seg = paddle.repeat_interleave(paddle.arange(len(LENGTHS)), paddle.to_tensor(LENGTHS))
    ones = paddle.ones([x.shape[0], 1])
    return [G.segment_sum(x, seg).numpy(), G.segment_mean(x, seg).numpy(), G.segment_max(x, seg).numpy(),
            (G.segment_sum(x, seg) / paddle.sqrt(G.segment_sum(ones, seg))).numpy(),
            paddle.gather(G.segment_max(x, seg), seg).numpy()]


def test_segment_ops_give_1_8_5_sequence_pool(tmp_path):
    got = _modern()
    assert [g.shape for g in got] == [(3, 2)] * 4 + [(6, 2)]
    if not LEGACY_PYTHON.exists():
        pytest.skip("no Paddle 1.8.5 environment (.venv-legacy) to compare with")
    prog = tmp_path / "legacy.py"
    prog.write_text(LEGACY)
    proc = subprocess.run([str(LEGACY_PYTHON), str(prog)], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]
    expected = json.loads(proc.stdout.strip().splitlines()[-1])
    for g, e in zip(got, expected):
        np.testing.assert_allclose(g, np.array(e, dtype='float32'), rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("name", ["paddle.fluid.layers.sequence_pool", "paddle.fluid.layers.sequence_expand_as",
                                  "paddle.fluid.layers.lod_reset"])
def test_lod_notes_give_the_segment_form(name):
    from upgrader.rulebook import load
    note = load().entries[name].note
    assert "paddle.geometric.segment_sum" in note and "paddle.gather(y, seg)" in note
