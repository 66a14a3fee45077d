"""Per-call and per-module safety of rules that real 1.x code uses a lot:
``layers.data`` shapes (exact when literal), ``layers.dropout`` (safe in static-only
modules), literal ``size`` lists of embeddings (each element evaluated once).

Expected outputs here are rewrites, not Paddle results: the results are proven on 1.8.5 by
the rules' examples (tests/test_proof.py -k "layers.data or layers.dropout").
"""
from __future__ import annotations

import textwrap

import libcst as cst
import pytest

from upgrader import upgrade_source


def fix(src: str, **kw) -> str:
    return upgrade_source(textwrap.dedent(src), **kw).code


def findings(src: str):
    return upgrade_source(textwrap.dedent(src), fix=False).findings


def assert_fixpoint(src: str, **kw):
    once = fix(src, **kw)
    cst.parse_module(once)
    assert upgrade_source(once, **kw).code == once, "fix is not idempotent"
    return once


# ------------------------------------------------------------------ layers.data

@pytest.mark.parametrize("call, shape", [
    ("shape=[3, 4]", "shape=[-1, 3, 4]"),
    ("shape=(3, 4)", "shape=[-1, 3, 4]"),
    ("shape=(3,)", "shape=[-1, 3]"),
    ("shape=[None, 3]", "shape=[None, 3]"),
    ("shape=[-1, 3]", "shape=[-1, 3]"),
    ("shape=[3, -1]", "shape=[3, -1]"),
    ("shape=[3, 4], append_batch_size=False", "shape=[3, 4]"),
    ("shape=[3, 4], append_batch_size=True", "shape=[-1, 3, 4]"),
    ("shape=[None, 4], append_batch_size=flag", "shape=[None, 4]"),
    ("shape=[n, None], append_batch_size=True", "shape=[n, None]"),
    ("shape=shp, append_batch_size=False", "shape=shp"),
])
def test_layers_data_literal_shapes_are_exact_and_safe(call, shape):
    src = f"import paddle.fluid as fluid\nx = fluid.layers.data(name='x', {call})\n"
    out = assert_fixpoint(src)
    assert f"x = paddle.static.data(name='x', {shape}, dtype='float32')" in out
    (f,) = [f for f in findings(src) if f.legacy == "paddle.fluid.layers.data"]
    assert f.fix == "safe"


def test_layers_data_positional_arguments_keep_their_slots():
    out = fix("import paddle.fluid as fluid\nx = fluid.layers.data('x', [2, 3], False, 'int64')\n")
    assert "x = paddle.static.data('x', [2, 3], 'int64')" in out


@pytest.mark.parametrize("call, shape", [
    ("shape=shp", "shape=_fluid_data_shape(shp)"),
    ("shape=[seq_len, 1]", "shape=_fluid_data_shape([seq_len, 1])"),
    ("shape=self.dims, append_batch_size=flag", "shape=_fluid_data_shape(self.dims, flag)"),
])
def test_layers_data_shapes_known_when_run_use_1_8s_rule_then(call, shape):
    """A shape 1.8's rule cannot be applied to at rewrite time goes through
    _fluid_data_shape, which applies it when the program runs (proven by the rule's
    example); safe, applied by a plain fix."""
    src = f"import paddle.fluid as fluid\nx = fluid.layers.data(name='x', {call})\n"
    out = assert_fixpoint(src)
    assert f"x = paddle.static.data(name='x', {shape}, dtype='float32')" in out
    assert "def _fluid_data_shape(shape, append_batch_size=True):" in out
    (f,) = [f for f in findings(src) if f.legacy == "paddle.fluid.layers.data"]
    assert f.fix == "safe"
    ns = {}
    exec(out[out.index("def _fluid_data_shape"):out.index("return shape") + len("return shape")], ns)
    helper = ns["_fluid_data_shape"]
    assert helper([3, 4]) == [-1, 3, 4] and helper((None, 3)) == [-1, 3]
    assert helper([-1, 3]) == [-1, 3] and helper([2, 3], False) == [2, 3]


def test_layers_data_lod_level_stays_unsafe():
    src = "import paddle.fluid as fluid\nx = fluid.layers.data(name='x', shape=[1], lod_level=1)\n"
    plain = fix(src)
    assert "x = fluid.layers.data(name='x', shape=[1], lod_level=1)" in plain  # left as it was
    assert "# TODO(paddle-upgrade): PU103 `fluid.layers.data`" in plain
    out = assert_fixpoint(src, unsafe_fixes=True)
    assert "x = paddle.static.data(name='x', shape=[-1, 1], lod_level=1, dtype='float32'" in out
    (f,) = [f for f in findings(src) if f.legacy == "paddle.fluid.layers.data"]
    assert f.fix == "unsafe"


def test_layers_data_append_batch_size_call_is_manual():
    src = "import paddle.fluid as fluid\nx = fluid.layers.data(name='x', shape=[3], append_batch_size=flag())\n"
    (f,) = [f for f in findings(src) if f.legacy == "paddle.fluid.layers.data"]
    assert f.fix == "manual" and "append_batch_size" in f.message
    assert_fixpoint(src, unsafe_fixes=True)


# ------------------------------------------------------------------ layers.dropout

STATIC_PROGRAM = """
import paddle.fluid as fluid

main = fluid.Program()
with fluid.program_guard(main):
    x = fluid.data(name='x', shape=[None, 8], dtype='float32')
    h = fluid.layers.dropout(fluid.layers.fc(x, 16), dropout_prob=0.5)
"""

STATIC_LIBRARY = """
import logging
import paddle.fluid as fluid

log = logging.getLogger(__name__)


def encoder(x, p, is_test):
    h = fluid.layers.fc(input=x, size=10)
    return fluid.layers.dropout(h, dropout_prob=p, is_test=is_test)
"""

DYGRAPH_LAYER = """
import paddle.fluid as fluid


class Net(fluid.dygraph.Layer):
    def forward(self, x):
        return fluid.layers.dropout(x, 0.5)
"""

FORWARD_ONLY = """
import paddle.fluid as fluid
from mymodels import Base


class Net(Base):
    def forward(self, x):
        h = fluid.layers.fc(x, 4)
        return fluid.layers.dropout(h, 0.5)
"""

MIXED = """
import numpy as np
import paddle.fluid as fluid

main = fluid.Program()
with fluid.program_guard(main):
    x = fluid.data(name='x', shape=[None, 8], dtype='float32')
    h = fluid.layers.dropout(fluid.layers.fc(x, 16), 0.5)

with fluid.dygraph.guard():
    w = fluid.layers.dropout(fluid.dygraph.to_variable(np.ones((2, 3), 'float32')), 0.5)
"""

GUARD_ONLY = """
import numpy as np
import paddle.fluid as fluid

with fluid.dygraph.guard():
    h = fluid.layers.fc(fluid.dygraph.to_variable(np.ones((2, 3), 'float32')), 4)
    w = fluid.layers.dropout(h, 0.5)
"""

BRANCHES_ON_MODE = """
import paddle.fluid as fluid


def f(x):
    if fluid.in_dygraph_mode():
        return x
    return fluid.layers.dropout(fluid.layers.fc(x, 4), 0.5)
"""

NO_STATIC_API = """
import paddle.fluid as fluid


def block(x):
    return fluid.layers.dropout(fluid.layers.relu(x), 0.1)
"""

ENABLE_DYGRAPH = """
import paddle.fluid as fluid

fluid.enable_dygraph()
h = fluid.layers.dropout(fluid.layers.fc(x, 4), 0.5)
"""


TO_STATIC = """
import paddle.fluid as fluid


@fluid.dygraph.declarative
def f(x):
    h = fluid.layers.fc(x, 4)
    return fluid.layers.dropout(h, 0.5)
"""


def _dropout_fix(src):
    return [f.fix for f in findings(src) if f.legacy == "paddle.fluid.layers.dropout"]


@pytest.mark.parametrize("src", [STATIC_PROGRAM, STATIC_LIBRARY], ids=["program", "library"])
def test_dropout_in_static_only_module_is_safe(src):
    assert _dropout_fix(src) == ["safe"]
    out = assert_fixpoint(src)
    assert "fluid.layers.dropout" not in out
    assert "mode='downscale_in_infer'" in out


def test_dropout_static_rewrite_keeps_is_test():
    out = fix(STATIC_LIBRARY)
    assert "paddle.nn.functional.dropout(h, p=p, training=not is_test, mode='downscale_in_infer')" in out


@pytest.mark.parametrize("src", [DYGRAPH_LAYER, FORWARD_ONLY, MIXED, GUARD_ONLY, BRANCHES_ON_MODE,
                                 NO_STATIC_API, ENABLE_DYGRAPH, TO_STATIC],
                         ids=["layer", "forward", "mixed", "guard", "branch", "no-static-api",
                              "enable-dygraph", "to-static"])
def test_dropout_elsewhere_follows_the_global_mode(src):
    """Dynamic-mode code (or a module that may run it) gets _fluid_dropout, which reads
    the global train/eval mode as 1.8.5's dygraph dropout did: safe, no legacy left."""
    assert set(_dropout_fix(src)) == {"safe"}
    out = assert_fixpoint(src)
    assert "fluid.layers.dropout(" not in out and "PU103" not in out
    assert "_fluid_dropout(" in out and "def _fluid_dropout(" in out
    assert "_dygraph_tracer()._train_mode" in out


def test_dropout_seed_is_still_manual_in_static_module():
    src = STATIC_PROGRAM.replace("dropout_prob=0.5", "dropout_prob=0.5, seed=3")
    assert _dropout_fix(src) == ["manual"]
    assert_fixpoint(src)


def test_dropout_seed_is_still_manual_in_dygraph_module():
    src = GUARD_ONLY.replace("dropout(h, 0.5)", "dropout(h, 0.5, seed=7)")
    assert "seed=7" in src
    assert set(_dropout_fix(src)) == {"manual"}
    assert "_fluid_dropout" not in fix(src)


def test_dropout_decision_survives_upgraded_spelling():
    """A file already half upgraded (paddle.static / paddle.nn.Layer) decides the same."""
    static = ("import paddle\nimport paddle.fluid as fluid\n\nmain = paddle.static.Program()\n"
              "y = fluid.layers.dropout(x, 0.5)\n")
    assert "y = paddle.nn.functional.dropout(x, 0.5, mode='downscale_in_infer')" in fix(static)
    dynamic = static + "\n\nclass N(paddle.nn.Layer):\n    pass\n"
    assert "y = _fluid_dropout(x, 0.5)" in fix(dynamic)
    to_static = static + "\n\nf = paddle.jit.to_static(g, input_spec=[paddle.static.InputSpec([None, 3])])\n"
    assert "y = _fluid_dropout(x, 0.5)" in fix(to_static)


# ------------------------------------------------------------------ embedding size lists

@pytest.mark.parametrize("call, expected", [
    ("fluid.dygraph.Embedding(size=[vocab_size + 1, dim])",
     "paddle.nn.Embedding(num_embeddings=vocab_size + 1, embedding_dim=dim)"),
    ("fluid.dygraph.Embedding(size=(len(words), dim * 2), is_sparse=True)",
     "paddle.nn.Embedding(num_embeddings=len(words), embedding_dim=dim * 2, sparse=True)"),
    ("fluid.dygraph.Embedding(size=[(n := 10), 3])",
     "paddle.nn.Embedding(num_embeddings=(n := 10), embedding_dim=3)"),
    ("fluid.embedding(ids, size=[v + 1, 64], padding_idx=0)",
     "paddle.nn.Embedding(num_embeddings=v + 1, embedding_dim=64, padding_idx=0)(ids)"),
])
def test_literal_size_list_elements_are_evaluated_once(call, expected):
    src = f"import paddle.fluid as fluid\nemb = {call}\n"
    out = assert_fixpoint(src)
    assert f"emb = {expected}" in out
    for f in findings(src):
        assert "evaluated more than once" not in f.message


def test_size_used_whole_still_needs_a_simple_value():
    """A non-literal size expression would appear twice after the rewrite: it is moved to
    a name before the statement (hoist.repeated_argument) and evaluated once."""
    src = "import paddle.fluid as fluid\nemb = fluid.dygraph.Embedding(size=make_size())\n"
    (f,) = [f for f in findings(src) if f.legacy.endswith("Embedding")]
    assert f.fix == "safe"
    out = fix(src)
    assert out.count("make_size()") == 1 and "embedding_size = make_size()\n" in out


def test_size_list_with_unpacking_is_not_folded():
    """`[*dims, 3][0]` cannot be folded to one element: building the list twice would call
    f() twice, so the list is moved to a name before the statement and built once."""
    src = "import paddle.fluid as fluid\nemb = fluid.dygraph.Embedding(size=[*f(), 3])\n"
    (f,) = [f for f in findings(src) if f.legacy.endswith("Embedding")]
    assert f.fix == "safe"
    assert fix(src).count("f()") == 1


# ------------------------------------------------------------------ ranks computed in place

@pytest.mark.parametrize("expr, inline", [
    ("len(x.shape) - 1", True),
    ("len(self.x.shape) + 1 - 2", True),
    ("len(g(x).shape) - 1", False),   # calls g: evaluated twice it would call it twice
    ("n - 1", False),                 # n may be a tensor: not written twice
])
def test_a_rank_computed_in_place_may_be_repeated(expr, inline):
    """fc's rewrite reads num_flatten_dims three times: ``len(<name>.shape) - 1`` (PaddleHub's
    output layer, in a lambda where nothing can be hoisted) builds nothing and is written
    in place (proven by the fc rule's example); anything that calls is not."""
    src = ("import paddle.fluid as fluid\n"
           f"layer = lambda x: fluid.layers.fc(x, size=2, num_flatten_dims={expr})\n")
    out = fix(src)
    if inline:
        assert "fluid.layers.fc" not in out and out.count(expr) == 3
    else:
        assert "fluid.layers.fc(" in out and "evaluated more than once" in out
