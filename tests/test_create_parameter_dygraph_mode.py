"""``fluid.layers.create_parameter`` ran in both 1.8 modes: a dygraph Layer's
``self.w = fluid.layers.create_parameter(...)`` registered the parameter (checked on 1.8.5:
``parameters()`` and ``state_dict()`` list it, the optimizer trains it). Its rewrite
``paddle.create_parameter`` does the same in dynamic mode, so the call is no static-graph
evidence: a dygraph module that uses it gets no ``paddle.enable_static()``, its guard block
no ``disable_static`` / ``enable_static`` pair, and its ``ParameterList`` the plain rename
(fixtures/programs/dygraph_mixed_utils.py runs it after fix). A module that runs a static
program still gets ``paddle.enable_static()`` from its static code."""
from upgrader import upgrade_source

DYGRAPH = """import numpy as np
import paddle.fluid as fluid


class Model(fluid.dygraph.Layer):
    def __init__(self):
        super(Model, self).__init__()
        self.offset = fluid.layers.create_parameter(
            shape=[2], dtype='float32', default_initializer=fluid.initializer.Constant(0.25))
        self.scales = fluid.dygraph.ParameterList(
            [self.create_parameter(shape=[2], dtype='float32')])

    def forward(self, x):
        return x * self.scales[0] + self.offset


with fluid.dygraph.guard(fluid.CPUPlace()):
    model = Model()
    print(model(fluid.dygraph.to_variable(np.ones((3, 2), 'float32'))).numpy())
"""

STATIC = """import numpy as np
import paddle.fluid as fluid

x = fluid.data(name='x', shape=[None, 2], dtype='float32')
w = fluid.layers.create_parameter(shape=[2], dtype='float32',
                                  default_initializer=fluid.initializer.Constant(0.5))
out = fluid.layers.elementwise_mul(x, w)
exe = fluid.Executor(fluid.CPUPlace())
exe.run(fluid.default_startup_program())
print(exe.run(feed={'x': np.ones((3, 2), 'float32')}, fetch_list=[out])[0])
"""


def test_dygraph_layer_create_parameter_keeps_module_dynamic():
    res = upgrade_source(DYGRAPH)
    assert "enable_static" not in res.code and "disable_static" not in res.code, res.code
    assert "paddle.nn.ParameterList(" in res.code
    assert "paddle.create_parameter(" in res.code
    assert not [f for f in res.findings if f.fix == "manual"], [f.message for f in res.findings]


def test_static_program_with_create_parameter_still_enables_static():
    res = upgrade_source(STATIC)
    assert res.code.count("paddle.enable_static()") == 1, res.code
    assert "paddle.create_parameter(" in res.code
