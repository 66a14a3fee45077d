"""PU207's weight-tying check (fixers/optimizer_methods.py) is about static programs: in
1.8's dygraph each layer made its own parameter whatever its ParamAttr name. A dygraph
module that also calls static API in dynamic mode (models/dygraph/bmn's loss builds its
mask with fluid.layers.create_global_var inside the guard) must not be reported."""
from upgrader import upgrade_source

SRC = '''import numpy as np
import paddle.fluid as fluid


class Head(fluid.dygraph.Layer):
    def __init__(self):
        super(Head, self).__init__()
        self.fc = fluid.dygraph.Linear(2, 2, param_attr=fluid.ParamAttr(name="head_w"))

    def forward(self, x):
        return self.fc(x)


def make_mask():
    m = fluid.layers.create_global_var(shape=[2], value=0, dtype="float32", persistable=True)
    fluid.layers.assign(np.ones([2], "float32"), m)
    return m


{body}
'''

IN_GUARD = '''with fluid.dygraph.guard():
    net = Head()
    opt = fluid.optimizer.Adam(learning_rate=0.1, parameter_list=net.parameters())
    for step in range(2):
        loss = fluid.layers.reduce_mean(net(fluid.dygraph.to_variable(np.ones([2, 2], "float32"))) * make_mask())
        loss.backward()
        opt.minimize(loss)
        net.clear_gradients()
'''

IN_FUNCTION = '''def train(net):
    opt = fluid.optimizer.Adam(learning_rate=0.1, parameter_list=net.parameters())
    for step in range(2):
        loss = fluid.layers.reduce_mean(net(fluid.dygraph.to_variable(np.ones([2, 2], "float32"))) * make_mask())
        loss.backward()
        opt.minimize(loss)
        net.clear_gradients()


with fluid.dygraph.guard():
    train(Head())
    train(Head())
'''


def _tied(src):
    return [f for f in upgrade_source(src).findings if f.code == "PU207" and f.fix == "manual"]


def test_minimize_in_a_dygraph_guard_is_not_weight_tying():
    assert _tied(SRC.format(body=IN_GUARD)) == []


def test_minimize_of_an_optimizer_given_a_layers_parameters_is_not_weight_tying():
    # outside the guard block lexically: the optimizer's parameter_list=net.parameters()
    assert _tied(SRC.format(body=IN_FUNCTION)) == []
