"""Wrappers generated from rule entries (compat/_wrap.py), warn-once, LegacyAPIError,
and the cost of the shim around fast eager ops.

The generation tests use a rule file written here (every argument-spec form once), so
they do not depend on the growing rule database; expected values come from calling
today's target directly with the arguments the rule says (or from NumPy).
"""
import inspect
import textwrap

import numpy as np
import pytest

from _compat_support import emit_source, explain, results, run_script

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")

RULES = textwrap.dedent('''
    ["paddle.fluid.layers.t_rename"]
    signature = "(input, dim=None, keep_dim=False, name=None)"
    target = "paddle.sum"
    note = "0-D today"
    args = { input = "x", dim = "axis", keep_dim = "keepdim" }

    ["paddle.fluid.layers.t_dropout"]
    signature = "(x, dropout_prob, is_test=False, seed=None, name=None, dropout_implementation='downgrade_in_infer')"
    target = "paddle.nn.functional.dropout"
    [ "paddle.fluid.layers.t_dropout".args ]
    dropout_prob = "p"
    is_test = { rename = "training", transform = "not ({})" }
    seed = { drop_if_default = true }
    dropout_implementation = { rename = "mode", default = "'downscale_in_infer'", values = { "'downgrade_in_infer'" = "'downscale_in_infer'" } }

    ["paddle.fluid.layers.t_act"]
    signature = "(x, y, axis=-1, act=None, name=None)"
    target = "paddle.add"
    args = { axis = { drop_if_default = true }, act = { act = true } }

    ["paddle.fluid.layers.t_alpha"]
    signature = "(x, y, transpose_x=False, transpose_y=False, alpha=1.0, name=None)"
    target = "paddle.matmul"
    args = { alpha = { wrap = "({call}) * ({})", unless = "1.0" } }

    ["paddle.fluid.layers.t_extra"]
    signature = "(input, label, soft_label=False, ignore_index=-100)"
    target = "paddle.nn.functional.cross_entropy"
    extra = { use_softmax = "False", reduction = "'none'" }

    ["paddle.fluid.layers.t_full"]
    signature = "(shape, dtype, value, force_cpu=False, out=None)"
    target = "paddle.full"
    args = { value = "fill_value", force_cpu = { drop = true }, out = { manual_if_set = "assign the result instead" } }

    ["paddle.fluid.layers.t_wrap"]
    signature = "(input, size)"
    target = "paddle.nn.functional.one_hot"
    wrap = "paddle.squeeze({call}, axis=-2)"
    args = { input = "x", size = "num_classes" }

    ["paddle.fluid.layers.t_default"]
    signature = "(input, num_or_sections, dim=-1, name=None)"
    target = "paddle.split"
    args = { input = "x", dim = { rename = "axis", default = "-1" } }

    ["paddle.fluid.layers.t_manual"]
    signature = "(input, pool_type, is_test=False)"
    safety = "manual"
    note = "LoD sequences have no dense equivalent; pad and mask instead."

    ["paddle.fluid.layers.t_missing"]
    signature = "(x)"
    target = "paddle.no_such_function_here"

    ["paddle.fluid.layers.t_holes"]
    signature = "(input, num_filters, act=None)"
    target = "paddle.nn.Linear"
    wrap = "{call}({input})"
    extra = { in_features = "{input}.shape[-1]" }
    args = { input = { drop = true }, num_filters = "out_features", act = { act = true } }

    ["paddle.fluid.layers.t_callarg"]
    signature = "(input, num_filters, output_size=None, filter_size=None, stride=1, padding=0)"
    target = "paddle.nn.Conv2DTranspose"
    wrap = "{call}({input})"
    extra = { in_channels = "{input}.shape[1]" }
    args = { input = { drop = true }, num_filters = "out_channels", output_size = { call_arg = "output_size" }, filter_size = { rename = "kernel_size", manual_if_unset = "give the kernel size" } }

    ["paddle.fluid.layers.t_wid"]
    signature = "(input, dim=None, keep_dim=False, name=None)"
    target = "paddle.max"
    args = { input = "x", keep_dim = "keepdim", dim = { rename = "axis", wrap_if_default = "paddle.atleast_1d({call})" } }

    ["paddle.fluid.dygraph.TLinear"]
    kind = "class"
    signature = "(input_dim, output_dim, param_attr=None, bias_attr=None, act=None, dtype='float32')"
    target = "paddle.nn.Linear"
    args = { input_dim = "in_features", output_dim = "out_features", param_attr = "weight_attr", act = { act = true }, dtype = { drop = true } }
''')


@pytest.fixture(scope="module")
def book(tmp_path_factory):
    from upgrader import rulebook
    d = tmp_path_factory.mktemp("rules")
    (d / "synthetic.toml").write_text(RULES)
    return rulebook.load_files([d / "synthetic.toml"])


@pytest.fixture(scope="module")
def paddle_dygraph():
    import paddle
    was = paddle.in_dynamic_mode()
    paddle.disable_static()
    yield paddle
    if not was:
        paddle.enable_static()


def _build(book, name):
    from compat import _wrap
    _wrap.clear_cache()
    return _wrap.build(book.entries["paddle.fluid." + name])


def test_signature_is_the_legacy_one(book):
    fn = _build(book, "layers.t_dropout")
    sig = inspect.signature(fn)
    assert list(sig.parameters) == ["x", "dropout_prob", "is_test", "seed", "name",
                                    "dropout_implementation"]
    assert sig.parameters["dropout_implementation"].default == "downgrade_in_infer"
    assert sig.parameters["is_test"].default is False
    assert sig.parameters["dropout_prob"].default is inspect.Parameter.empty
    assert "fluid.layers.t_dropout" in fn.__doc__


def test_rename_positional_and_1x_shape(book, paddle_dygraph):
    paddle = paddle_dygraph
    fn = _build(book, "layers.t_rename")
    x = np.random.RandomState(0).rand(2, 3, 4).astype("float32")
    t = paddle.to_tensor(x)
    np.testing.assert_allclose(fn(t, 1, True).numpy(), x.sum(1, keepdims=True), rtol=1e-6)
    np.testing.assert_allclose(fn(t, dim=[0, 2]).numpy(), x.sum((0, 2)), rtol=1e-6)
    full = fn(t)
    assert list(full.shape) == [1]  # 1.x had no 0-d tensors
    np.testing.assert_allclose(full.numpy(), [x.sum()], rtol=1e-6)


def test_transform_values_default(book, paddle_dygraph):
    paddle = paddle_dygraph
    fn = _build(book, "layers.t_dropout")
    x = np.random.RandomState(1).rand(3, 4).astype("float32")
    t = paddle.to_tensor(x)
    np.testing.assert_allclose(fn(t, 0.3, is_test=True).numpy(), x * 0.7, rtol=1e-6)
    np.testing.assert_allclose(fn(t, 0.3, True, None, None, "downgrade_in_infer").numpy(), x * 0.7, rtol=1e-6)
    np.testing.assert_allclose(fn(t, 0.3, True, dropout_implementation="upscale_in_train").numpy(), x, rtol=1e-6)
    from compat import LegacyAPIError
    with pytest.raises(LegacyAPIError, match="seed"):
        fn(t, 0.3, is_test=True, seed=7)


def test_act_wrap_extra_manual_if_set(book, paddle_dygraph):
    paddle = paddle_dygraph
    rng = np.random.RandomState(2)
    a, b = rng.uniform(-1, 1, (3, 4)).astype("float32"), rng.uniform(-1, 1, (3, 4)).astype("float32")
    ta, tb = paddle.to_tensor(a), paddle.to_tensor(b)
    add = _build(book, "layers.t_act")
    np.testing.assert_allclose(add(ta, tb, act="relu").numpy(), np.maximum(a + b, 0), rtol=1e-6)
    np.testing.assert_allclose(add(ta, tb).numpy(), a + b, rtol=1e-6)
    from compat import LegacyAPIError
    with pytest.raises(LegacyAPIError, match="axis"):
        add(ta, tb, axis=1)
    mm = _build(book, "layers.t_alpha")
    np.testing.assert_allclose(mm(ta, tb, transpose_y=True, alpha=0.5).numpy(), 0.5 * a @ b.T, rtol=1e-5)
    np.testing.assert_allclose(mm(ta, tb, False, True).numpy(), a @ b.T, rtol=1e-5)
    ce = _build(book, "layers.t_extra")
    p = np.full((2, 4), 0.25, "float32")
    lbl = np.array([[1], [3]], "int64")
    np.testing.assert_allclose(ce(paddle.to_tensor(p), paddle.to_tensor(lbl)).numpy(),
                               -np.log(p[[0, 1], lbl[:, 0]])[:, None], rtol=1e-6)
    full = _build(book, "layers.t_full")
    got = full([2, 3], "int64", 7)
    assert got.numpy().dtype == np.int64 and got.numpy().tolist() == np.full((2, 3), 7).tolist()
    with pytest.raises(LegacyAPIError, match="assign the result instead"):
        full([2], "float32", 1.0, out=ta)
    assert full([2], "float32", 1.0, out=None).numpy().tolist() == [1.0, 1.0]  # the 1.x default


def test_named_holes_and_wrap_if_default(book, paddle_dygraph):
    paddle = paddle_dygraph
    x = np.random.RandomState(5).uniform(-1, 1, (2, 4)).astype("float32")
    t = paddle.to_tensor(x)
    build_and_call = _build(book, "layers.t_holes")   # layer built from the input, then called
    out = build_and_call(t, 3, act="relu").numpy()
    assert out.shape == (2, 3) and (out >= 0).all()
    ct = _build(book, "layers.t_callarg")  # output_size goes to the layer call
    img = paddle.to_tensor(np.ones((1, 2, 3, 3), "float32"))
    assert list(ct(img, 4, filter_size=3, stride=2, padding=1).shape) == [1, 4, 5, 5]
    assert list(ct(img, 4, [6, 6], 3, stride=2, padding=1).shape) == [1, 4, 6, 6]
    assert list(ct(img, 4, None, 3, stride=2, padding=1).shape) == [1, 4, 5, 5]
    from compat import LegacyAPIError
    with pytest.raises(LegacyAPIError, match="give the kernel size"):
        ct(img, 4, output_size=[6, 6], stride=2)
    mx = _build(book, "layers.t_wid")
    assert list(mx(t).shape) == [1]
    np.testing.assert_allclose(mx(t).numpy(), [x.max()], rtol=1e-6)
    np.testing.assert_allclose(mx(t, dim=1).numpy(), x.max(1), rtol=1e-6)
    np.testing.assert_allclose(mx(t, None, True).numpy(), x.max(keepdims=True), rtol=1e-6)


def test_entry_wrap_and_default(book, paddle_dygraph):
    paddle = paddle_dygraph
    oh = _build(book, "layers.t_wrap")
    ids = paddle.to_tensor(np.array([[1], [0]], "int64"))
    assert list(oh(ids, 3).shape) == [2, 3]
    split = _build(book, "layers.t_default")
    parts = split(paddle.to_tensor(np.zeros((2, 3, 4), "float32")), 2)
    assert [list(p.shape) for p in parts] == [[2, 3, 2], [2, 3, 2]]  # 1.x default dim=-1


def test_warning_names_the_rule(book, paddle_dygraph, recwarn):
    import warnings
    from compat import LegacyAPIWarning, _runtime
    fn = _build(book, "layers.t_rename")
    _runtime._warned.discard("paddle.fluid.layers.t_rename")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        fn(paddle_dygraph.to_tensor(np.ones((2,), "float32")))
    msgs = [str(w.message) for w in caught if issubclass(w.category, LegacyAPIWarning)]
    assert msgs == ["fluid.layers.t_rename is a Paddle 1.x API [PU101]; use paddle.sum (0-D today)"]


def test_manual_and_missing_target(book):
    from compat import LegacyAPIError
    man = _build(book, "layers.t_manual")
    assert list(inspect.signature(man).parameters) == ["input", "pool_type", "is_test"]
    with pytest.raises(LegacyAPIError) as info:
        man(None, "max")
    msg = str(info.value)
    assert "fluid.layers.t_manual" in msg and "PU102" in msg and "pad and mask instead" in msg
    missing = _build(book, "layers.t_missing")
    with pytest.raises(LegacyAPIError, match="paddle.no_such_function_here does not exist"):
        missing(1)


def test_class_with_act(book, paddle_dygraph):
    paddle = paddle_dygraph
    cls = _build(book, "dygraph.TLinear")
    assert issubclass(cls, paddle.nn.Linear)
    assert list(inspect.signature(cls).parameters)[:2] == ["input_dim", "output_dim"]
    w = np.random.RandomState(3).uniform(-1, 1, (4, 2)).astype("float32")
    lin = cls(4, 2, param_attr=paddle.ParamAttr(initializer=paddle.nn.initializer.Assign(w)),
              act="sigmoid", dtype="float32")
    x = np.random.RandomState(4).rand(3, 4).astype("float32")
    np.testing.assert_allclose(lin(paddle.to_tensor(x)).numpy(), 1 / (1 + np.exp(-(x @ w))), rtol=1e-5)


WARN = emit_source() + r'''
import warnings
import numpy as np
import paddle.fluid as fluid
from compat import LegacyAPIWarning, LegacyAPIError
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("default")
    with fluid.dygraph.guard():
        x = fluid.dygraph.to_variable(np.ones((2, 2), "float32"))
        for _ in range(3):
            fluid.layers.relu(x)
            fluid.layers.reduce_sum(x)
            fluid.layers.nn.relu(x)         # the same legacy API under its 1.x alias
legacy = [w for w in caught if issubclass(w.category, LegacyAPIWarning)]
emit(messages=[str(w.message) for w in legacy], files=sorted({w.filename for w in legacy}),
     is_deprecation=issubclass(LegacyAPIWarning, DeprecationWarning))
manual = sorted(n for n, e in __import__("compat")._runtime.book().entries.items()
                if e.safety == "manual" and n.startswith("paddle.fluid.layers.sequence_"))[0]
obj = fluid.layers
for part in manual.split(".")[3:]:
    obj = getattr(obj, part)
try:
    obj(None)
except LegacyAPIError as exc:
    emit(manual=manual, manual_error=str(exc))
'''


def test_warn_once_and_manual_api(tmp_path):
    proc = run_script(tmp_path, WARN)
    assert proc.returncode == 0, explain(proc)
    r = results(proc)
    assert r["is_deprecation"] is True
    relu = [m for m in r["messages"] if m.startswith("fluid.layers.relu ")]
    rsum = [m for m in r["messages"] if m.startswith("fluid.layers.reduce_sum ")]
    assert len(relu) == 1 and len(rsum) == 1, r["messages"]
    assert "[PU101]" in relu[0] and "paddle.nn.functional.relu" in relu[0]
    assert "paddle.sum" in rsum[0]
    assert r["files"] == [str(tmp_path / "prog.py")]  # the warning points at the user's line
    assert r["manual"].startswith("paddle.fluid.layers.sequence_")
    short = r["manual"][len("paddle."):]
    assert short in r["manual_error"] and "[PU102]" in r["manual_error"]
    assert "How to migrate" in r["manual_error"]


def test_warnings_shown_by_default_and_silenced_by_W(tmp_path):
    code = ("import numpy as np\nimport paddle.fluid as fluid\n"
            "with fluid.dygraph.guard():\n"
            "    fluid.layers.relu(fluid.dygraph.to_variable(np.ones((1,), 'float32')))\n")
    shown = run_script(tmp_path, code, name="w.py")
    assert shown.returncode == 0, explain(shown)
    assert "LegacyAPIWarning: fluid.layers.relu is a Paddle 1.x API [PU101]" in shown.stderr
    silenced = run_script(tmp_path, code, name="w.py", PYTHONWARNINGS="ignore::DeprecationWarning")
    assert silenced.returncode == 0 and "LegacyAPIWarning" not in silenced.stderr


# The per-call overhead of these wrappers is measured by make bench
# (benchmarks/compat_bench.py: 7 eager ops, median and worst against targets), not here.
