"""A module's own top-level def / class / lambda named like a legacy import it made
earlier (names.py `_module_redefinitions`): the calls after it are the module's own."""
from upgrader.engine import upgrade_source


def fixed(code):
    out = upgrade_source(code).code
    assert upgrade_source(out).code == out
    return out


def test_def_class_and_lambda_after_the_import_are_the_modules_own():
    code = ("from paddle.fluid.layers import fc, concat\nfrom paddle.fluid.dygraph import Linear\n"
            "import paddle.fluid as fluid\n\n"
            "def fc(x, size):\n    return fluid.layers.fc(x, size, act='relu')\n\n"
            "concat = lambda xs: xs[0]\n\n"
            "class Linear(fluid.dygraph.Layer):\n    def __init__(self, n):\n"
            "        super(Linear, self).__init__()\n\n"
            "def use(x):\n    return fc(x, 3), concat([x]), Linear(4)\n")
    out = fixed(code)
    assert "return fc(x, 3), concat([x]), Linear(4)" in out
    assert "super(Linear, self).__init__()" in out
    assert "paddle.nn.functional.relu(paddle.static.nn.fc(x, size))" in out
    assert "fluid" not in out


def test_a_fallback_definition_changes_nothing():
    code = ("try:\n    from paddle.fluid.layers import tanh\nexcept ImportError:\n"
            "    def tanh(x):\n        return x\n\ndef use(x):\n    return tanh(x)\n")
    assert "return paddle.tanh(x)" in fixed(code)


def test_a_use_before_the_definition_keeps_its_import_and_is_reported():
    code = ("import paddle.fluid as fluid\nfrom paddle.fluid.layers import relu\n"
            "y = relu(fluid.data('x', [None, 2]))\n\n"
            "def relu(x):\n    return x\n\ndef use(x):\n    return relu(x)\n")
    r = upgrade_source(code)
    assert "from paddle.fluid.layers import relu" in r.code
    assert "return relu(x)" in r.code
    assert [(f.code, f.fix) for f in r.findings if f.fix == "manual"] == [("PU002", "manual")]
