"""A program's ``random_seed`` set through ``default_main_program()`` /
``default_startup_program()`` is the seeding idiom of both 1.8 modes (the dygraph models set
it in their guard, and fix keeps the startup one as ``paddle.static.default_startup_program()``):
it is no static-graph evidence for the module mode survey (fixers/static_dropout.py), so a
dygraph module that seeds this way is still dygraph-only, before and after fix."""
from pathlib import Path

from upgrader import upgrade_source
from upgrader.fixers import static_dropout

CASE = Path(__file__).resolve().parent.parent / "fixtures" / "PU104" / "seeded_dygraph_modes.in.py"

# linear_lr_warmup in dygraph mode stays manual (its dygraph LinearLrWarmup is another
# formula), so the module keeps legacy code and is surveyed again after fix
WARMUP = """import numpy as np
import paddle.fluid as fluid

with fluid.dygraph.guard():
    fluid.default_startup_program().random_seed = 33
    fluid.default_main_program().random_seed = 33
    model = fluid.dygraph.Linear(4, 2)
    lr = fluid.layers.linear_lr_warmup(0.1, 4, 0.0, 0.1)
    sgd = fluid.optimizer.SGD(learning_rate=lr, parameter_list=model.parameters())
    for step in range(3):
        loss = fluid.layers.reduce_mean(model(fluid.dygraph.to_variable(np.ones((2, 4), 'float32'))))
        loss.backward()
        sgd.minimize(loss)
        model.clear_gradients()
"""


def _modes(source):
    seen = []
    survey = static_dropout._survey

    def spy(up):
        got = survey(up)
        seen.append(got)
        return got

    static_dropout._survey = spy
    try:
        upgrade_source(source, fix=False)
    finally:
        static_dropout._survey = survey
    return seen


def test_seeded_dygraph_module_is_dygraph_only_before_and_after_fix():
    assert set(_modes(CASE.read_text())) == {(False, True)}
    out = upgrade_source(WARMUP).code
    assert "paddle.static.default_startup_program().random_seed" in out
    assert set(_modes(out)) == {(False, True)}


def test_layers_decay_note_names_dygraph_mode_after_fix():
    out = upgrade_source(WARMUP).code
    notes = [f.message for f in upgrade_source(out, fix=False).findings
             if f.code == "PU104" and "linear_lr_warmup" in f.message]
    assert notes and all("called in dygraph mode" in m for m in notes), notes
