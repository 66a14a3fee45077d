"""Record (or verify) the goldens of the compat runtime on real Paddle 1.8.5.

Two files under ``fixtures/goldens/compat/``, written only by this script:

- ``snippets.json``: small legacy snippets (the 1.x semantics compat must reproduce:
  cross_entropy on probabilities, dropout modes at inference, ``act=``, reductions,
  ``elementwise_*`` axis broadcasting, ``fill_constant`` argument order, ...), each with
  its code and the outputs real Paddle 1.8.5 produced. ``tests/test_compat_semantics.py``
  runs the same code through ``compat`` and compares.
- ``legacy_api.json``: the public names of the 1.8.5 ``paddle.fluid`` modules with their
  kind and signature, for the signature checks of ``tests/test_compat_api.py``.

    python tools/record_compat_goldens.py             # (re)record
    python tools/record_compat_goldens.py --verify    # re-run on 1.8.5, exit 1 on drift

The snippets run under the legacy interpreter (``.venv-legacy/bin/python``); this file
is Python 3.7 compatible for that reason.
"""
from __future__ import print_function

import argparse
import inspect
import json
import os
import subprocess
import sys
import traceback

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
OUT_DIR = os.path.join(ROOT, "fixtures", "goldens", "compat")
SNIPPETS_FILE = os.path.join(OUT_DIR, "snippets.json")
API_FILE = os.path.join(OUT_DIR, "legacy_api.json")
LEGACY_PYTHON = os.path.join(ROOT, ".venv-legacy", "bin", "python")
RTOL, ATOL = 1e-5, 1e-6

#: Prepended to every snippet (both engines). ``fluid`` is provided by the runner.
PRELUDE = '''\
import numpy as np

def static_run(build, feed, runs=1):
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup):
        with fluid.unique_name.guard():
            outs = build()
    single = not isinstance(outs, (list, tuple))
    outs = [outs] if single else list(outs)
    scope = fluid.Scope()
    with fluid.scope_guard(scope):
        exe = fluid.Executor(fluid.CPUPlace())
        exe.run(startup)
        results = [exe.run(main, feed=feed, fetch_list=outs) for _ in range(runs)]
    res = results[-1] if runs == 1 else [np.concatenate([np.asarray(r[i]).ravel() for r in results]) for i in range(len(outs))]
    return res[0] if single else res

def numpy_of(r):
    if isinstance(r, (list, tuple)):
        return [numpy_of(v) for v in r]
    return r.numpy() if hasattr(r, 'numpy') else np.asarray(r)

def dy(fn):
    with fluid.dygraph.guard():
        return numpy_of(fn())

def const(v):
    return fluid.ParamAttr(initializer=fluid.initializer.Constant(v))

def arr(a):
    return fluid.ParamAttr(initializer=fluid.initializer.NumpyArrayInitializer(np.asarray(a, dtype='float32')))

rng = np.random.RandomState(2020)
'''

#: name -> code assigning ``out`` (an array or a list of arrays).
SNIPPETS = [
    ("adam_float64_dygraph", '''
X = rng.randn(2, 2, 4, 4)
class Net(fluid.dygraph.Layer):
    def __init__(self):
        super(Net, self).__init__(dtype='float64')
        self.conv = fluid.dygraph.Conv2D(2, 3, 3, padding=1, param_attr=const(-0.05), bias_attr=const(0.0), act='relu', dtype='float64')
        self.bn = fluid.dygraph.BatchNorm(3, dtype='float64')
        self.ln = fluid.dygraph.LayerNorm([3, 4, 4], dtype='float64')
        self.fc = fluid.dygraph.Linear(48, 2, param_attr=const(0.05), bias_attr=const(0.1), dtype='float64')
        self.emb = fluid.dygraph.Embedding([5, 2], param_attr=const(0.15), dtype='float64')
    def forward(self, x, ids):
        h = self.ln(self.bn(self.conv(x)))
        return self.fc(fluid.layers.reshape(h, [-1, 48])) + fluid.layers.reduce_sum(self.emb(ids), dim=1)
def f():
    net = Net()
    opt = fluid.optimizer.Adam(0.05, parameter_list=net.parameters())
    x = fluid.dygraph.to_variable(X)
    ids = fluid.dygraph.to_variable(np.array([[1, 2], [3, 3]], 'int64'))
    res = []
    for step in range(3):
        y = net(x, ids)
        loss = fluid.layers.reduce_mean(y * y)
        loss.backward()
        opt.minimize(loss)
        net.clear_gradients()
        res += [loss, y]
    return res + [p.numpy() for p in net.parameters()]
out = dy(f)
'''),
    ("norm_one_affine_frozen_dygraph", '''
X = rng.randn(4, 3, 2, 2).astype('float32')
T = rng.randn(4, 3, 2, 2).astype('float32')
frozen = fluid.ParamAttr(initializer=fluid.initializer.Constant(0.3), trainable=False)
def f():
    layers = [fluid.dygraph.BatchNorm(3, param_attr=const(1.5), bias_attr=frozen, act='relu'),
              fluid.dygraph.BatchNorm(3, param_attr=frozen, bias_attr=const(0.2)),
              fluid.dygraph.InstanceNorm(3, param_attr=const(1.5), bias_attr=frozen),
              fluid.dygraph.InstanceNorm(3, param_attr=frozen)]
    res = []
    for layer in layers:
        opt = fluid.optimizer.SGD(0.5, parameter_list=layer.parameters())
        for step in range(2):
            x = fluid.dygraph.to_variable(X)
            x.stop_gradient = False
            y = layer(x)
            loss = fluid.layers.reduce_sum(y * fluid.dygraph.to_variable(T))
            loss.backward()
            opt.minimize(loss)
            res += [y, x.gradient()]
            layer.clear_gradients()
        res += [p for p in layer.parameters() if p.name.find('w_1') < 0 and p.name.find('w_2') < 0]
    return res
out = dy(f)
'''),
    ("gru_unit_static", '''
H = 3
X = rng.randn(4, 3 * H).astype('float32')
H0 = rng.randn(4, H).astype('float32')
res = []
for origin in [False, True]:
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup):
        with fluid.unique_name.guard():
            x = fluid.data('x', [None, 3 * H], 'float32')
            h0 = fluid.data('h0', [None, H], 'float32')
            h1, r1, g1 = fluid.layers.gru_unit(x, h0, 3 * H, param_attr=arr(rng.randn(H, 3 * H) * 0.5),
                                               bias_attr=arr(rng.randn(1, 3 * H) * 0.1), activation='relu', origin_mode=origin)
            h2, r2, g2 = fluid.layers.gru_unit(x * 0.5, h1, size=3 * H, param_attr=const(0.1))
            loss = fluid.layers.reduce_mean(fluid.layers.square(h2 - 0.2)) + fluid.layers.reduce_mean(g1) + fluid.layers.reduce_mean(r2)
            fluid.optimizer.SGD(learning_rate=0.5).minimize(loss)
    scope = fluid.Scope()
    with fluid.scope_guard(scope):
        exe = fluid.Executor(fluid.CPUPlace())
        exe.run(startup)
        for step in range(3):
            res += exe.run(main, feed={'x': X, 'h0': H0}, fetch_list=[loss, h1, r1, g1, h2])
out = res
'''),
    ("grad_clip_sparse_embedding_dygraph", '''
W = rng.randn(6, 2).astype('float32')
batches = [np.array([[1, 3, 1]], 'int64'), np.array([[2, 3, 3]], 'int64'), np.array([[0, 1, 1]], 'int64')]
def run(make):
    emb = fluid.dygraph.Embedding([6, 2], is_sparse=True, param_attr=arr(W))
    lin = fluid.dygraph.Linear(2, 1, param_attr=const(0.5), bias_attr=const(0.1))
    opt = make(emb.parameters() + lin.parameters())
    for b in batches:
        h = emb(fluid.dygraph.to_variable(b))
        loss = fluid.layers.reduce_sum(lin(h) * fluid.dygraph.to_variable(np.arange(3).reshape(1, 3, 1).astype('float32') + 1))
        loss.backward(); opt.minimize(loss); emb.clear_gradients(); lin.clear_gradients()
    return [emb.weight.numpy(), lin.weight.numpy()]
C = fluid.clip
with fluid.dygraph.guard():
    out = (run(lambda ps: fluid.optimizer.SGD(0.1, parameter_list=ps, grad_clip=C.GradientClipByGlobalNorm(0.5)))
           + run(lambda ps: fluid.optimizer.SGD(0.1, parameter_list=ps, grad_clip=C.GradientClipByNorm(0.7)))
           + run(lambda ps: fluid.optimizer.Momentum(0.1, 0.9, parameter_list=ps, grad_clip=C.GradientClipByValue(0.8, -0.2)))
           + run(lambda ps: fluid.optimizer.Adam(0.1, parameter_list=ps, grad_clip=C.GradientClipByGlobalNorm(0.5)))
           + run(lambda ps: fluid.optimizer.Adam(0.1, parameter_list=ps, lazy_mode=True, grad_clip=C.GradientClipByNorm(0.7)))
           + run(lambda ps: fluid.optimizer.Adam(0.1, parameter_list=ps, grad_clip=C.GradientClipByValue(0.8))))
'''),
    ("gru_unit_layer_dygraph", '''
H = 3
def f():
    res = []
    for act, gact, origin in [('tanh', 'sigmoid', False), ('relu', 'sigmoid', True), ('identity', 'tanh', False)]:
        gru = fluid.dygraph.GRUUnit(3 * H, param_attr=arr(rng.randn(H, 3 * H) * 0.5), bias_attr=arr(rng.randn(1, 3 * H) * 0.1),
                                    activation=act, gate_activation=gact, origin_mode=origin)
        x = fluid.dygraph.to_variable(rng.randn(4, 3 * H).astype('float32'))
        h0 = fluid.dygraph.to_variable(rng.randn(4, H).astype('float32'))
        h0.stop_gradient = False
        h1, r1, g1 = gru(x, h0)
        h2, r2, g2 = gru(x * 0.5, h1)
        loss = fluid.layers.reduce_sum(h2 * h2) + fluid.layers.reduce_sum(g1)
        loss.backward()
        res += [h1, r1, g1, h2, gru.weight.gradient(), gru.bias.gradient(), h0.gradient()]
    return res
out = dy(f)
'''),
    ("layer_sublayers_include_sublayers_dygraph", '''
class Net(fluid.dygraph.Layer):
    def __init__(self):
        super(Net, self).__init__()
        self.a = fluid.dygraph.Linear(2, 2, param_attr=const(0.5))
        self.seq = fluid.dygraph.Sequential(fluid.dygraph.Linear(2, 2), fluid.dygraph.Sequential(fluid.dygraph.Linear(2, 1)))
        self.ll = fluid.dygraph.LayerList([fluid.dygraph.Linear(1, 1)])
def names(items):
    return np.array([len(items)] + [ord(c) for c in '|'.join(items)])
def f():
    net = Net()
    net2 = Net()
    net2.set_dict(net.state_dict(), True, True)
    net2.load_dict(net.state_dict(), include_sublayers=True)
    return [names([type(l).__name__ for l in net.sublayers()]),
            names([type(l).__name__ for l in net.sublayers(include_sublayers=False)]),
            names([type(l).__name__ for l in net.sublayers(False)]),
            names([type(l).__name__ for l in net.seq.sublayers(include_sublayers=False)]),
            names([n for n, _ in net.named_sublayers(include_sublayers=False, include_self=True)]),
            names([n for n, _ in net.named_sublayers('pre', True)]),
            names([n for n, _ in net.named_sublayers('pre', False, True)]),
            names([n for n, _ in net.named_sublayers(prefix='x', include_self=True)]),
            names([type(l).__name__ for l in net.ll.sublayers()]), net2.a.weight]
out = dy(f)
'''),
    ("batch_norm_is_test_dygraph", '''
X = (rng.randn(6, 3) * 2 + 1).astype('float32')
def f():
    bn = fluid.dygraph.BatchNorm(3, is_test=True, param_attr=const(1.5), bias_attr=const(0.2))
    pos = fluid.dygraph.BatchNorm(3, None, True)
    x = fluid.dygraph.to_variable(X)
    train = [bn(x), pos(x), bn._mean, bn._variance]
    bn.eval()
    return train + [bn(x)]
out = dy(f)
'''),
    ("adam_sparse_embedding_dygraph", '''
W = rng.randn(6, 2).astype('float32')
batches = [np.array([[1, 3, 1]], 'int64'), np.array([[2, 3, 3]], 'int64'), np.array([[0, 1, 1]], 'int64')]
def run(lazy, scale):
    emb = fluid.dygraph.Embedding([6, 2], is_sparse=True, param_attr=arr(W))
    lin = fluid.dygraph.Linear(2, 1, param_attr=const(0.5), bias_attr=const(0.1))
    opt = fluid.optimizer.Adam(learning_rate=0.1, parameter_list=emb.parameters() + lin.parameters(), lazy_mode=lazy)
    for b in batches:
        h = emb(fluid.dygraph.to_variable(b))
        loss = fluid.layers.reduce_sum(lin(h) * fluid.dygraph.to_variable(np.arange(3).reshape(1, 3, 1).astype('float32') + 1) * scale)
        loss.backward(); opt.minimize(loss); emb.clear_gradients(); lin.clear_gradients()
    return [emb.weight.numpy(), lin.weight.numpy(), lin.bias.numpy()]
with fluid.dygraph.guard():
    out = run(False, 1.0) + run(True, 1.0) + run(False, 1e-8) + run(True, 1e-8)
'''),
    ("cross_entropy_probs_dygraph", '''
logits = rng.uniform(-2, 2, size=(4, 5)).astype('float32')
P = (np.exp(logits) / np.exp(logits).sum(1, keepdims=True)).astype('float32')
L = rng.randint(0, 5, size=(4, 1)).astype('int64')
out = dy(lambda: fluid.layers.cross_entropy(fluid.dygraph.to_variable(P), fluid.dygraph.to_variable(L)))
model = {0: -np.log(P[np.arange(4), L[:, 0]])[:, None]}
'''),
    ("cross_entropy_probs_static", '''
logits = rng.uniform(-2, 2, size=(4, 5)).astype('float32')
P = (np.exp(logits) / np.exp(logits).sum(1, keepdims=True)).astype('float32')
L = rng.randint(0, 5, size=(4, 1)).astype('int64')
def build():
    p = fluid.data('p', [None, 5], 'float32'); l = fluid.data('l', [None, 1], 'int64')
    return fluid.layers.cross_entropy(input=p, label=l)
out = static_run(build, {'p': P, 'l': L})
model = {0: -np.log(P[np.arange(4), L[:, 0]])[:, None]}
'''),
    ("dropout_downgrade_in_infer_static", '''
X = rng.uniform(0, 1, size=(3, 4)).astype('float32')
def build():
    x = fluid.data('x', [3, 4], 'float32')
    return [fluid.layers.dropout(x, dropout_prob=0.3, is_test=True),
            fluid.layers.dropout(x, 0.3, True, dropout_implementation='upscale_in_train')]
out = static_run(build, {'x': X})
model = {0: X * (1 - 0.3), 1: X}
'''),
    ("dropout_dygraph_eval", '''
X = rng.uniform(0, 1, size=(3, 4)).astype('float32')
def f():
    d = fluid.dygraph.Dropout(p=0.4); d.eval()
    u = fluid.dygraph.Dropout(p=0.4, dropout_implementation='upscale_in_train'); u.eval()
    x = fluid.dygraph.to_variable(X)
    return [d(x), u(x), fluid.layers.dropout(x, 0.4, is_test=True)]
out = dy(f)
model = {0: X * (1 - 0.4), 1: X, 2: X * (1 - 0.4)}
'''),
    ("dropout_dygraph_tracer_mode", '''
# 1.8's dygraph layers.dropout ignored is_test and followed the tracer's train mode: any
# Layer.eval()/train() switched it, no_grad() turned it off, a new guard() started in train
# mode (p=1.0 upscale_in_train: zeros in train mode, x at inference)
X = rng.uniform(0.5, 1, size=(2, 3)).astype('float32')
def drop(x):
    return fluid.layers.dropout(x, 1.0, is_test=False, dropout_implementation='upscale_in_train')
class DropNet(fluid.dygraph.Layer):
    def forward(self, x):
        return drop(x)
res = []
with fluid.dygraph.guard():
    x = fluid.dygraph.to_variable(X)
    net = DropNet()
    res.append(fluid.layers.dropout(x, 1.0, is_test=True, dropout_implementation='upscale_in_train').numpy())
    net.eval()
    res.append(net(x).numpy())
    res.append(drop(x).numpy())
    net.train()
    with fluid.dygraph.no_grad():
        res.append(drop(x).numpy())
    res.append(drop(x).numpy())
    net.eval()
with fluid.dygraph.guard():
    res.append(drop(fluid.dygraph.to_variable(X)).numpy())
out = res
model = {0: X * 0, 1: X, 2: X, 3: X, 4: X * 0, 5: X * 0}
'''),
    ("dygraph_eval_mode_records_no_grad", '''
# 1.8's Layer.eval() put the dygraph tracer in eval mode, which recorded no gradients for
# any layer until some layer's train() (or a new guard()): minimize() then left the weights
X = rng.uniform(-1, 1, size=(2, 3)).astype('float32')
res = []
with fluid.dygraph.guard():
    fc = fluid.dygraph.Linear(3, 2, param_attr=const(0.5), bias_attr=const(0.1))
    opt = fluid.optimizer.SGD(learning_rate=0.5, parameter_list=fc.parameters())
    x = fluid.dygraph.to_variable(X)
    def step():
        loss = fluid.layers.reduce_sum(fluid.layers.square(fc(x)))
        res.append(np.array([loss.stop_gradient], 'int64'))
        loss.backward()
        opt.minimize(loss)
        fc.clear_gradients()
        res.append(fc.weight.numpy().copy())
    step()
    fc.eval()
    step()
    fluid.dygraph.Linear(3, 2).train()
    step()
    fc.eval()
with fluid.dygraph.guard():
    step()
out = res
'''),
    ("fc_act_static", '''
X = rng.uniform(-1, 1, size=(4, 2, 3)).astype('float32')
W = rng.uniform(-1, 1, size=(6, 5)).astype('float32')
def build():
    x = fluid.data('x', [None, 2, 3], 'float32')
    return [fluid.layers.fc(x, 5, param_attr=arr(W), bias_attr=const(-0.1), act='relu'),
            fluid.layers.fc(x, 5, num_flatten_dims=1, param_attr=arr(W), bias_attr=False, act='softmax')]
out = static_run(build, {'x': X})
'''),
    ("layer_act_dygraph", '''
X = rng.uniform(-1, 1, size=(2, 3, 6, 6)).astype('float32')
W = rng.uniform(-0.5, 0.5, size=(4, 3, 3, 3)).astype('float32')
L = rng.uniform(-0.5, 0.5, size=(9, 3)).astype('float32')
def f():
    conv = fluid.dygraph.Conv2D(3, 4, 3, act='relu', param_attr=arr(W), bias_attr=const(0.05))
    pool = fluid.dygraph.Pool2D(pool_size=2, pool_type='max')
    lin = fluid.dygraph.Linear(9, 3, param_attr=arr(L), bias_attr=const(0.0), act='tanh')
    h = pool(conv(fluid.dygraph.to_variable(X)))
    g = fluid.layers.reduce_mean(h, dim=1)
    return [h, lin(fluid.layers.reshape(g, [2, 9]))]
out = dy(f)
'''),
    ("conv2d_act_pool_static", '''
X = rng.uniform(-1, 1, size=(2, 2, 7, 7)).astype('float32')
W = rng.uniform(-0.5, 0.5, size=(3, 2, 3, 3)).astype('float32')
def build():
    x = fluid.data('x', [None, 2, 7, 7], 'float32')
    c = fluid.layers.conv2d(x, 3, 3, act='sigmoid', param_attr=arr(W), bias_attr=const(0.1))
    return [c, fluid.layers.pool2d(c, pool_size=2), fluid.layers.pool2d(c, 2, 'avg', 2),
            fluid.layers.pool2d(c, pool_type='max', global_pooling=True)]
out = static_run(build, {'x': X})
'''),
    ("reductions_static", '''
X = rng.uniform(-1, 1, size=(2, 3, 4)).astype('float32')
def build():
    x = fluid.data('x', [2, 3, 4], 'float32')
    L = fluid.layers
    return [L.reduce_sum(x), L.reduce_mean(x, dim=[0, 2], keep_dim=True), L.reduce_max(x, dim=-1),
            L.reduce_min(x, 1), L.reduce_prod(x, dim=2, keep_dim=True), L.mean(x)]
out = static_run(build, {'x': X})
model = {0: X.sum().reshape([1]), 1: X.mean(axis=(0, 2), keepdims=True), 2: X.max(-1), 3: X.min(1),
         4: X.prod(2, keepdims=True), 5: X.mean().reshape([1])}
'''),
    ("reductions_dygraph", '''
X = rng.uniform(-1, 1, size=(2, 3, 4)).astype('float32')
def f():
    x = fluid.dygraph.to_variable(X); L = fluid.layers
    return [L.reduce_sum(x), L.reduce_mean(x, dim=1), L.reduce_sum(x, [1, 2], True), L.mean(x),
            L.reduce_all(L.greater_than(x, L.fill_constant([2, 3, 4], 'float32', -2.0)))]
out = dy(f)
'''),
    ("elementwise_axis_static", '''
X4 = rng.uniform(0.5, 2, size=(2, 3, 4, 5)).astype('float32')
Y34 = rng.uniform(0.5, 2, size=(3, 4)).astype('float32')
Y2 = rng.uniform(0.5, 2, size=(2,)).astype('float32')
Y31 = rng.uniform(0.5, 2, size=(3, 1)).astype('float32')
Y5 = rng.uniform(0.5, 2, size=(5,)).astype('float32')
def build():
    x = fluid.data('x', [2, 3, 4, 5], 'float32'); a = fluid.data('a', [3, 4], 'float32')
    b = fluid.data('b', [2], 'float32'); c = fluid.data('c', [3, 1], 'float32'); d = fluid.data('d', [5], 'float32')
    L = fluid.layers
    return [L.elementwise_add(x, a, axis=1), L.elementwise_mul(x, b, axis=0),
            L.elementwise_div(x, c, axis=1), L.elementwise_sub(x, d),
            L.elementwise_max(x, a, axis=1, act='relu')]
out = static_run(build, {'x': X4, 'a': Y34, 'b': Y2, 'c': Y31, 'd': Y5})
model = {0: X4 + Y34[None, :, :, None], 1: X4 * Y2[:, None, None, None], 2: X4 / Y31[None, :, :, None],
         3: X4 - Y5, 4: np.maximum(np.maximum(X4, Y34[None, :, :, None]), 0)}
'''),
    ("elementwise_axis_dygraph", '''
X = rng.uniform(-1, 1, size=(2, 3, 4)).astype('float32')
Y = rng.uniform(-1, 1, size=(3,)).astype('float32')
def f():
    x = fluid.dygraph.to_variable(X); y = fluid.dygraph.to_variable(Y)
    L = fluid.layers
    return [L.elementwise_add(x, y, axis=1), L.elementwise_mul(x, y, axis=1, act='tanh'),
            L.elementwise_pow(L.abs(x), fluid.dygraph.to_variable(np.full((4,), 2.0, 'float32')))]
out = dy(f)
'''),
    ("fill_constant_order", '''
def build():
    L = fluid.layers
    return [L.fill_constant([2, 3], 'int64', 7), L.fill_constant([3], 'float32', 1.5),
            L.fill_constant(shape=[2], dtype='int32', value=-4)]
out = static_run(build, {})
model = {0: np.full([2, 3], 7, 'int64'), 1: np.full([3], 1.5, 'float32'), 2: np.full([2], -4, 'int32')}
'''),
    ("split_argmax_cumsum_defaults", '''
X = rng.uniform(-1, 1, size=(2, 3, 4)).astype('float32')
def f():
    x = fluid.dygraph.to_variable(X); L = fluid.layers
    a, b = L.split(x, 2)
    return [a, b, L.argmax(x), L.argmin(x, axis=2), L.cumsum(x), L.flatten(x, axis=2), L.flatten(x)]
out = dy(f)
'''),
    ("one_hot_embedding_trailing_static", '''
LBL = rng.randint(0, 5, size=(4, 1)).astype('int64')
IDS = rng.randint(0, 6, size=(3, 2, 1)).astype('int64')
E = rng.uniform(-1, 1, size=(6, 4)).astype('float32')
def build():
    l = fluid.data('l', [4, 1], 'int64'); i = fluid.data('i', [3, 2, 1], 'int64')
    L = fluid.layers
    return [L.one_hot(l, depth=5), L.embedding(i, size=[6, 4], param_attr=arr(E)),
            L.embedding(i, size=[6, 4], padding_idx=2, param_attr=arr(E)),
            fluid.embedding(fluid.layers.squeeze(i, [2]), size=[6, 4], param_attr=arr(E))]
out = static_run(build, {'l': LBL, 'i': IDS})
'''),
    ("layers_data_batch_dim", '''
main, startup = fluid.Program(), fluid.Program()
with fluid.program_guard(main, startup):
    vs = [fluid.layers.data('a', [3]), fluid.layers.data('b', [-1, 3]),
          fluid.layers.data('c', [2, 3], append_batch_size=False), fluid.data('d', [None, 3]),
          fluid.layers.data('e', [3], dtype='int64')]
out = [np.array([int(d) for d in v.shape]) for v in vs]
'''),
    ("matmul_alpha_mul_dims", '''
M = rng.uniform(-1, 1, size=(4, 6)).astype('float32')
N = rng.uniform(-1, 1, size=(6, 3)).astype('float32')
X = rng.uniform(-1, 1, size=(2, 3, 4, 5)).astype('float32')
W = rng.uniform(-1, 1, size=(20, 2)).astype('float32')
def build():
    m = fluid.data('m', [4, 6], 'float32'); n = fluid.data('n', [6, 3], 'float32')
    x = fluid.data('x', [2, 3, 4, 5], 'float32'); w = fluid.data('w', [20, 2], 'float32')
    L = fluid.layers
    return [L.matmul(m, n, alpha=0.25), L.matmul(m, m, transpose_y=True, alpha=3.0),
            L.mul(x, w, x_num_col_dims=2)]
out = static_run(build, {'m': M, 'n': N, 'x': X, 'w': W})
'''),
    ("activation_defaults", '''
X = rng.uniform(-4, 4, size=(3, 5)).astype('float32')
def f():
    x = fluid.dygraph.to_variable(X); L = fluid.layers
    return [L.leaky_relu(x), L.hard_sigmoid(x), L.relu6(x), L.swish(x, beta=2.0), L.softplus(x),
            L.elu(x), L.logsigmoid(x), L.softmax(x)]
out = dy(f)
'''),
    ("losses_static", '''
LOG = rng.uniform(-2, 2, size=(4, 3)).astype('float32')
LBL = rng.randint(0, 3, size=(4, 1)).astype('int64')
T = rng.randint(0, 2, size=(4, 3)).astype('float32')
def build():
    x = fluid.data('x', [4, 3], 'float32'); l = fluid.data('l', [4, 1], 'int64'); t = fluid.data('t', [4, 3], 'float32')
    L = fluid.layers
    loss, sm = L.softmax_with_cross_entropy(x, l, return_softmax=True)
    return [loss, sm, L.sigmoid_cross_entropy_with_logits(x, t), L.square_error_cost(x, t),
            L.accuracy(L.softmax(x), l)]
out = static_run(build, {'x': LOG, 'l': LBL, 't': T})
'''),
    ("shape_ops_dygraph", '''
X = rng.uniform(-1, 1, size=(2, 3)).astype('float32')
def f():
    x = fluid.dygraph.to_variable(X); L = fluid.layers
    s, i = L.argsort(x, axis=1, descending=True)
    v, k = L.topk(x, 2)
    return [L.expand(x, [2, 3]), L.where(L.greater_than(x, L.zeros_like(x))), L.isfinite(x), s, i, v, k,
            L.l2_normalize(x, axis=1), L.pad(x, [1, 0, 0, 2], pad_value=-1.0),
            L.scale(x, 2.0, 1.0, bias_after_scale=False), L.clip(x, -0.5, 0.5), L.unsqueeze(x, [0]),
            L.gather(x, fluid.dygraph.to_variable(np.array([1, 0, 1], 'int64'))), L.transpose(x, [1, 0])]
out = dy(f)
'''),
    ("pool2d_ceil_exclusive_static", '''
X = rng.uniform(-1, 1, size=(1, 2, 7, 7)).astype('float32')
def build():
    x = fluid.data('x', [1, 2, 7, 7], 'float32'); L = fluid.layers
    return [L.pool2d(x, 3, 'avg', 2, 1, ceil_mode=True, exclusive=False),
            L.pool2d(x, 3, 'avg', 2, 1, ceil_mode=True), L.pool2d(x, 3, 'max', 2, 1, ceil_mode=True),
            L.pool2d(x, [2, 3], 'avg', [2, 2], [1, 0], ceil_mode=True, exclusive=False)]
out = static_run(build, {'x': X})
'''),
    ("pool3d_ceil_exclusive_dygraph", '''
X = rng.uniform(-1, 1, size=(1, 2, 5, 6, 5)).astype('float32')
def f():
    x = fluid.dygraph.to_variable(X); L = fluid.layers
    return [L.pool3d(x, [2, 3, 2], 'avg', 2, [1, 0, 1], ceil_mode=True, exclusive=False),
            L.pool3d(x, 3, 'avg', 2, 1, ceil_mode=True, exclusive=False),
            L.pool3d(x, 3, 'avg', 2, 1, ceil_mode=True), L.pool3d(x, 2, 'max', 2, 0, ceil_mode=True)]
out = dy(f)
'''),
    ("resize_static", '''
X = rng.uniform(-1, 1, size=(1, 2, 4, 4)).astype('float32')
def build():
    x = fluid.data('x', [1, 2, 4, 4], 'float32'); L = fluid.layers
    return [L.resize_nearest(x, out_shape=[7, 7]), L.resize_nearest(x, scale=1.5, align_corners=False),
            L.resize_bilinear(x, out_shape=[6, 6]), L.image_resize(x, out_shape=[5, 5], resample='NEAREST')]
out = static_run(build, {'x': X})
'''),
    ("backward_overwrites_gradients", '''
A = rng.uniform(-1, 1, size=(3, 4)).astype('float32')
def f():
    lin = fluid.dygraph.Linear(4, 2, param_attr=const(0.5), bias_attr=const(0.0))
    x = fluid.dygraph.to_variable(A); x.stop_gradient = False
    grads = []
    for s in (1.0, 3.0):
        loss = fluid.layers.reduce_mean(lin(x) * s)
        loss.backward()
        grads += [lin.weight.gradient(), x.gradient()]
    lin.clear_gradients()
    return grads
out = dy(f)
'''),
    ("adam_static_small_gradients", '''
X = rng.uniform(-1, 1, size=(8, 3)).astype('float32')
Y = (X.dot(np.array([[0.5], [-1.0], [2.0]], 'float32')) + 0.1).astype('float32')
def build():
    x = fluid.data('x', [8, 3], 'float32'); y = fluid.data('y', [8, 1], 'float32')
    p = fluid.layers.fc(x, 1, param_attr=fluid.ParamAttr(name='w', initializer=fluid.initializer.Constant(0.1)),
                        bias_attr=fluid.ParamAttr(name='b', initializer=fluid.initializer.Constant(0.0)))
    loss = fluid.layers.mean(fluid.layers.square_error_cost(p, y))
    fluid.optimizer.Adam(learning_rate=0.01, epsilon=1e-4).minimize(loss)
    return [loss, p]
out = static_run(build, {'x': X, 'y': Y}, runs=4)
'''),
    ("lr_decay_static_fetch", '''
X = rng.uniform(-1, 1, size=(4, 2)).astype('float32')
def build():
    x = fluid.data('x', [4, 2], 'float32')
    loss = fluid.layers.mean(fluid.layers.fc(x, 1, param_attr=const(0.1), bias_attr=const(0.0)))
    lr = fluid.layers.exponential_decay(0.1, decay_steps=2, decay_rate=0.5, staircase=True)
    fluid.optimizer.SGD(learning_rate=lr).minimize(loss)
    return [lr, loss]
out = static_run(build, {'x': X}, runs=5)
'''),
    ("lr_decay_dygraph_steps", '''
X = rng.uniform(-1, 1, size=(4, 2)).astype('float32')
def f():
    lin = fluid.dygraph.Linear(2, 1, param_attr=const(0.1), bias_attr=const(0.0))
    opt = fluid.optimizer.SGD(learning_rate=fluid.dygraph.PiecewiseDecay([2, 4], [0.1, 0.05, 0.01], 0),
                              parameter_list=lin.parameters())
    lrs = [opt.current_step_lr()]
    for _ in range(5):
        loss = fluid.layers.mean(lin(fluid.dygraph.to_variable(X)))
        loss.backward(); opt.minimize(loss); lin.clear_gradients()
        lrs.append(opt.current_step_lr())
    return [np.array(lrs, 'float32'), lin.weight]
out = dy(f)
'''),
    ("lr_decay_subclass_dygraph", '''
X = rng.uniform(-1, 1, size=(4, 2)).astype('float32')
from paddle.fluid.dygraph.learning_rate_scheduler import LearningRateDecay
class Warmup(LearningRateDecay):
    def __init__(self, lr, warmup_steps, begin=1):
        super(Warmup, self).__init__(begin=begin)
        self.lr = lr
        self.warmup_steps = warmup_steps
    def step(self):
        if self.step_num < self.warmup_steps:
            return self.lr * self.step_num / self.warmup_steps
        return self.lr
class Noam(LearningRateDecay):
    def __init__(self, d_model, warmup_steps):
        super(Noam, self).__init__(begin=1)
        self.d_model = d_model
        self.warmup_steps = warmup_steps
    def step(self):
        a = self.create_lr_var(self.step_num ** -0.5)
        b = self.create_lr_var((self.warmup_steps ** -1.5) * self.step_num)
        return (self.d_model ** -0.5) * fluid.layers.elementwise_min(a, b)
def f():
    rows = []
    for sched in (Warmup(0.2, 3), Noam(4, 2)):
        lin = fluid.dygraph.Linear(2, 1, param_attr=const(0.1), bias_attr=const(0.0))
        opt = fluid.optimizer.SGD(learning_rate=sched, parameter_list=lin.parameters())
        lrs = []
        for _ in range(4):
            loss = fluid.layers.mean(lin(fluid.dygraph.to_variable(X)))
            loss.backward(); opt.minimize(loss); lin.clear_gradients()
            lrs.append(opt.current_step_lr())
        rows += [np.array(lrs, 'float32'), lin.weight]
    return rows
out = dy(f)
'''),
    ("current_step_lr_type_dygraph", '''
X = rng.uniform(-1, 1, size=(4, 2)).astype('float32')
def f():
    lin = fluid.dygraph.Linear(2, 1, param_attr=const(0.1), bias_attr=const(0.0))
    opt = fluid.optimizer.Momentum(0.3, 0.9, parameter_list=lin.parameters())
    opt2 = fluid.optimizer.SGD(learning_rate=fluid.dygraph.NoamDecay(8, 2), parameter_list=lin.parameters())
    lrs = [opt.current_step_lr()]
    for _ in range(2):
        loss = fluid.layers.mean(lin(fluid.dygraph.to_variable(X)))
        loss.backward(); opt.minimize(loss); lin.clear_gradients()
        lrs.append(opt.current_step_lr())
    loss = fluid.layers.mean(lin(fluid.dygraph.to_variable(X)))
    loss.backward(); opt2.minimize(loss); lin.clear_gradients()
    return [np.asarray(v) for v in lrs] + [np.asarray(opt2.current_step_lr())]
out = dy(f)
'''),
    ("adadelta_decay_dygraph", '''
X = rng.uniform(-1, 1, size=(4, 2)).astype('float32')
from paddle.fluid.dygraph.learning_rate_scheduler import LearningRateDecay
class Halving(LearningRateDecay):
    def __init__(self):
        super(Halving, self).__init__(begin=0)
    def step(self):
        return 0.4 * 0.5 ** self.step_num
def f():
    # Adadelta ignores its rate, but 1.x's minimize still advanced the decay: the SGD that
    # shares it, current_step_lr() and step_num see every Adadelta step
    lin = fluid.dygraph.Linear(2, 1, param_attr=const(0.1), bias_attr=const(0.0))
    lin2 = fluid.dygraph.Linear(2, 1, param_attr=const(0.1), bias_attr=const(0.0))
    decay = fluid.dygraph.PiecewiseDecay([2, 4], [0.1, 0.05, 0.01], 0)
    opt = fluid.optimizer.Adadelta(learning_rate=decay, parameter_list=lin.parameters())
    sgd = fluid.optimizer.SGD(learning_rate=decay, parameter_list=lin2.parameters())
    mine = Halving()
    opt3 = fluid.optimizer.AdadeltaOptimizer(mine, rho=0.9, parameter_list=lin2.parameters())
    lrs, steps = [opt.current_step_lr(), opt3.current_step_lr()], [decay.step_num, mine.step_num]
    for i in range(5):
        loss = fluid.layers.mean(lin(fluid.dygraph.to_variable(X)))
        loss.backward(); opt.minimize(loss); lin.clear_gradients()
        lrs.append(opt.current_step_lr()); steps.append(decay.step_num)
        loss2 = fluid.layers.mean(lin2(fluid.dygraph.to_variable(X)))
        loss2.backward()
        if i % 2:
            sgd.minimize(loss2); lrs.append(sgd.current_step_lr())
        else:
            opt3.minimize(loss2); lrs.append(opt3.current_step_lr())
        lin2.clear_gradients(); steps += [decay.step_num, mine.step_num]
    return [np.array(lrs, 'float32'), np.array(steps), lin.weight, lin2.weight]
out = dy(f)
'''),
    ("adadelta_decay_static", '''
X = rng.uniform(-1, 1, size=(4, 2)).astype('float32')
def build():
    x = fluid.data('x', [4, 2], 'float32')
    loss = fluid.layers.mean(fluid.layers.fc(x, 1, param_attr=const(0.1), bias_attr=const(0.0)))
    lr = fluid.layers.piecewise_decay(boundaries=[2, 4], values=[0.1, 0.05, 0.01])
    fluid.optimizer.Adadelta(learning_rate=lr).minimize(loss)
    step = fluid.layers.learning_rate_scheduler._decay_step_counter()
    return [lr, step, loss]
out = static_run(build, {'x': X}, runs=5)
'''),
    ("dataloader_non_iterable_static", '''
FEAT = rng.uniform(-1, 1, size=(10, 3)).astype('float32')
TGT = FEAT.sum(1, keepdims=True).astype('float32')
def batches():
    for i in range(0, 10, 4):
        yield FEAT[i:i + 4], TGT[i:i + 4]
main, startup = fluid.Program(), fluid.Program()
with fluid.program_guard(main, startup):
    with fluid.unique_name.guard():
        x = fluid.data('x', [None, 3], 'float32'); y = fluid.data('y', [None, 1], 'float32')
        loader = fluid.io.DataLoader.from_generator(feed_list=[x, y], capacity=2, iterable=False)
        loss = fluid.layers.mean(fluid.layers.square_error_cost(
            fluid.layers.fc(x, 1, param_attr=const(0.2), bias_attr=const(0.0)), y))
        fluid.optimizer.SGD(0.1).minimize(loss)
loader.set_batch_generator(batches, places=fluid.cpu_places(1))
exe = fluid.Executor(fluid.CPUPlace())
losses, steps = [], []
exe.run(startup)  # the loader's queue lives in the global scope (1.x)
for epoch in range(2):
    loader.start()
    n = 0
    try:
        while True:
            losses.append(exe.run(main, fetch_list=[loss])[0][0]); n += 1
    except fluid.core.EOFException:
        loader.reset()
    steps.append(n)
out = [np.array(losses, 'float32'), np.array(steps)]
'''),
    ("datafeeder_and_sample_list_loader", '''
SAMPLES = [(rng.uniform(-1, 1, size=(3,)).astype('float32'), int(rng.randint(0, 4))) for _ in range(7)]
def reader():
    for s in SAMPLES:
        yield s
main, startup = fluid.Program(), fluid.Program()
with fluid.program_guard(main, startup):
    x = fluid.data('x', [None, 3], 'float32'); lbl = fluid.data('lbl', [None, 1], 'int64')
    out_sum = fluid.layers.reduce_sum(x, dim=1) + fluid.layers.cast(fluid.layers.reshape(lbl, [-1]), 'float32')
feeder = fluid.DataFeeder(feed_list=[x, lbl], place=fluid.CPUPlace())
fed = feeder.feed(SAMPLES[:3])
loader = fluid.io.DataLoader.from_generator(feed_list=[x, lbl], capacity=3, iterable=True)
loader.set_sample_list_generator(fluid.io.batch(reader, batch_size=3), places=fluid.cpu_places(1))
exe = fluid.Executor(fluid.CPUPlace())
exe.run(startup)
res = [exe.run(main, feed=data, fetch_list=[out_sum])[0] for data in loader()]
out = [fed['x'], fed['lbl'], np.concatenate(res)]
'''),
    ("dygraph_sample_generator_loader", '''
FEAT = rng.uniform(-1, 1, size=(9, 2)).astype('float32')
def samples():
    for i in range(9):
        yield FEAT[i], np.array([i % 3], 'int64')
def f():
    loader = fluid.io.DataLoader.from_generator(capacity=4)
    loader.set_sample_generator(samples, batch_size=4, drop_last=False, places=fluid.CPUPlace())
    got = []
    for x, y in loader():
        got += [fluid.layers.reduce_sum(x, dim=1), y]
    return got
out = dy(f)
'''),
    ("save_params_layout", '''
import os, shutil, tempfile
d = tempfile.mkdtemp()
try:
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup):
        with fluid.unique_name.guard():
            x = fluid.data('x', [None, 3], 'float32')
            h = fluid.layers.fc(x, 2, param_attr=const(0.3), bias_attr=const(0.1))
            p = fluid.layers.fc(h, 1, param_attr=fluid.ParamAttr(name='head_w', initializer=fluid.initializer.Constant(0.5)))
    exe = fluid.Executor(fluid.CPUPlace())
    scope = fluid.Scope()
    with fluid.scope_guard(scope):
        exe.run(startup)
        fluid.io.save_params(exe, os.path.join(d, 'params'), main_program=main)
        fluid.io.save_params(exe, os.path.join(d, 'one'), main_program=main, filename='all')
        fluid.save(main, os.path.join(d, 'ckpt', 'model'))
        fluid.dygraph.save_dygraph  # exists
    listing = sorted(os.listdir(os.path.join(d, 'params')))
    with fluid.scope_guard(fluid.Scope()):
        exe.run(startup)
        fluid.io.load_params(exe, os.path.join(d, 'one'), main_program=main, filename='all')
        loaded = np.array(fluid.global_scope().find_var('head_w').get_tensor())
    out = [np.array(listing), np.array(sorted(os.listdir(os.path.join(d, 'one')))),
           np.array(sorted(f for f in os.listdir(os.path.join(d, 'ckpt')))), loaded]
finally:
    shutil.rmtree(d)
'''),
    ("dygraph_save_load_layout", '''
import os, shutil, tempfile
d = tempfile.mkdtemp()
try:
    with fluid.dygraph.guard():
        lin = fluid.dygraph.Linear(3, 2, param_attr=const(0.25), bias_attr=const(0.5))
        opt = fluid.optimizer.Adam(0.1, parameter_list=lin.parameters())
        loss = fluid.layers.mean(lin(fluid.dygraph.to_variable(np.ones((2, 3), 'float32'))))
        loss.backward(); opt.minimize(loss)
        fluid.dygraph.save_dygraph(lin.state_dict(), os.path.join(d, 'm'))
        fluid.dygraph.save_dygraph(opt.state_dict(), os.path.join(d, 'm'))
        files = sorted(os.listdir(d))
        para, opti = fluid.dygraph.load_dygraph(os.path.join(d, 'm'))
        only, none = fluid.dygraph.load_dygraph(os.path.join(d, 'm') + '.pdparams')
        types = [type(para).__name__, type(para['weight']).__name__, str(opti is None)]
        out = [np.array(files), np.array(sorted(para)), para['weight'], np.array(types)]
finally:
    shutil.rmtree(d)
'''),
    ("batch_norm_train_then_test_static", '''
X = rng.uniform(-1, 1, size=(6, 3)).astype('float32')
main, startup = fluid.Program(), fluid.Program()
with fluid.program_guard(main, startup):
    with fluid.unique_name.guard():
        x = fluid.data('x', [6, 3], 'float32')
        bn = fluid.layers.batch_norm(x, momentum=0.5, moving_mean_name='m', moving_variance_name='v')
        test = main.clone(for_test=True)
        ln = fluid.layers.layer_norm(x)
scope = fluid.Scope()
with fluid.scope_guard(scope):
    exe = fluid.Executor(fluid.CPUPlace())
    exe.run(startup)
    train_out, ln_out = exe.run(main, feed={'x': X}, fetch_list=[bn, ln])
    test_out, = exe.run(test, feed={'x': X}, fetch_list=[bn])
    out = [train_out, ln_out, test_out, np.array(scope.find_var('m').get_tensor()),
           np.array(scope.find_var('v').get_tensor())]
'''),
    ("activation_params_dygraph", '''
X = rng.uniform(-8, 8, size=(2, 3, 4, 4)).astype('float32')
def f():
    x = fluid.dygraph.to_variable(X)
    return [fluid.layers.relu6(x, threshold=4.0), fluid.layers.hard_swish(x, threshold=5.0, scale=4.0, offset=2.0),
            fluid.layers.relu6(x), fluid.layers.hard_swish(x), fluid.layers.adaptive_pool2d(x, [2, 3], pool_type='avg')]
out = dy(f)
'''),
    ("activation_params_static", '''
X = rng.uniform(-8, 8, size=(2, 3, 4, 4)).astype('float32')
def build():
    x = fluid.data('x', [2, 3, 4, 4], 'float32')
    return [fluid.layers.relu6(x, threshold=4.0), fluid.layers.hard_swish(x, threshold=5.0, scale=4.0, offset=2.0),
            fluid.layers.adaptive_pool2d(x, 2, 'avg')]
out = static_run(build, {'x': X})
'''),
    ("scale_act_dygraph_ignored", '''
X = rng.uniform(-2, 2, size=(2, 3)).astype('float32')
def f():
    x = fluid.dygraph.to_variable(X)
    return [fluid.layers.scale(x, 3.0, 0.5, True, 'leaky_relu'), fluid.layers.scale(x, 2.0, act='relu')]
out = dy(f)
model = {0: X * 3.0 + 0.5, 1: X * 2.0}
'''),
    ("scale_act_static", '''
X = rng.uniform(-2, 2, size=(2, 3)).astype('float32')
def build():
    x = fluid.data('x', [2, 3], 'float32')
    return [fluid.layers.scale(x, 3.0, 0.5, True, 'leaky_relu'), fluid.layers.scale(x, 2.0, act='relu'),
            fluid.layers.scale(x, 2.0, bias=1.0, bias_after_scale=False, act='tanh')]
out = static_run(build, {'x': X})
'''),
    ("cos_sim_flatten_dygraph", '''
A = rng.uniform(-1, 1, size=(4, 1, 3)).astype('float32')
B = rng.uniform(-1, 1, size=(4, 1, 3)).astype('float32')
C = rng.uniform(-1, 1, size=(2, 2, 3)).astype('float32')
D = rng.uniform(-1, 1, size=(1, 2, 3)).astype('float32')
E = rng.uniform(-1, 1, size=(3, 4)).astype('float32')
F = rng.uniform(-1, 1, size=(1, 4)).astype('float32')
def f():
    t = fluid.dygraph.to_variable
    e, g = t(E), t(F)
    e.stop_gradient = False
    g.stop_gradient = False
    s = fluid.layers.cos_sim(e, g)
    fluid.layers.reduce_sum(s).backward()
    zero = fluid.layers.cos_sim(t(np.zeros((2, 3), 'float32')), t(E[:2, :3].copy()))
    return [fluid.layers.cos_sim(t(A), t(B)), fluid.layers.cos_sim(t(C), t(D)), s,
            e.gradient(), g.gradient(), zero]
out = dy(f)
A2, B2 = A.reshape(4, -1), B.reshape(4, -1)
model = {0: (A2 * B2).sum(1, keepdims=True) / np.sqrt((A2 * A2).sum(1, keepdims=True) * (B2 * B2).sum(1, keepdims=True))}
'''),
    ("cos_sim_flatten_static", '''
A = rng.uniform(-1, 1, size=(3, 2, 2)).astype('float32')
B = rng.uniform(-1, 1, size=(1, 2, 2)).astype('float32')
def build():
    a = fluid.data('a', [None, 2, 2], 'float32')
    b = fluid.data('b', [1, 2, 2], 'float32')
    return [fluid.layers.cos_sim(a, b), fluid.layers.cos_sim(a, a)]
out = static_run(build, {'a': A, 'b': B})
'''),
    ("prelu_param_layout_dygraph", '''
X = rng.uniform(-1, 1, size=(2, 3, 2, 2)).astype('float32')
def f():
    rows = []
    for mode, kw in (('all', {}), ('channel', {'channel': 3}), ('element', {'input_shape': [2, 3, 2, 2]})):
        p = fluid.dygraph.PRelu(mode=mode, param_attr=const(0.25), **kw)
        x = fluid.dygraph.to_variable(X)
        y = p(x)
        fluid.layers.reduce_sum(y * y).backward()
        rows += [y, p.weight, p.weight.gradient(), np.array(sorted(p.state_dict())),
                 np.array(p.weight.name.split('.')[-1])]
    p = fluid.dygraph.PRelu(mode='channel', channel=3, param_attr=const(0.5))
    rows.append(p(fluid.dygraph.to_variable(X[:, :, 0, 0].copy())))
    return rows
out = dy(f)
'''),
    ("prelu_param_layout_static", '''
X = rng.uniform(-1, 1, size=(2, 3, 2, 2)).astype('float32')
def build():
    x = fluid.data('x', [None, 3, 2, 2], 'float32')
    outs = [fluid.layers.prelu(x, m, param_attr=const(0.1 * (i + 1))) for i, m in enumerate(('all', 'channel', 'element'))]
    return outs
main, startup = fluid.Program(), fluid.Program()
with fluid.program_guard(main, startup):
    with fluid.unique_name.guard():
        outs = build()
shapes = np.array(sorted(str(list(p.shape)) for p in main.global_block().all_parameters()))
scope = fluid.Scope()
with fluid.scope_guard(scope):
    exe = fluid.Executor(fluid.CPUPlace())
    exe.run(startup)
    out = exe.run(main, feed={'x': X}, fetch_list=outs) + [shapes]
'''),
    ("batch_norm_act_dygraph", '''
X = rng.uniform(-3, 3, size=(2, 3, 2, 2)).astype('float32')
ACTS = ['leaky_relu', 'softplus', 'soft_relu', 'relu6', 'elu', 'hard_sigmoid', 'swish', 'brelu',
        'stanh', 'thresholded_relu', 'sigmoid', 'relu', 'tanh', 'gelu', 'selu', 'hard_swish',
        'softsign', 'logsigmoid', 'tanh_shrink', 'softshrink', 'hard_shrink', 'mish', 'erf',
        'sign', 'atan', 'square', 'abs', 'exp', 'softmax']
def f():
    return [fluid.dygraph.BatchNorm(3, act=a)(fluid.dygraph.to_variable(X)) for a in ACTS]
out = dy(f)
'''),
    ("batch_norm_act_static", '''
X = rng.uniform(-3, 3, size=(2, 3, 2, 2)).astype('float32')
ACTS = ['leaky_relu', 'softplus', 'soft_relu', 'relu6', 'elu', 'hard_sigmoid', 'swish', 'brelu',
        'stanh', 'thresholded_relu']
def build():
    x = fluid.data('x', [None, 3, 2, 2], 'float32')
    return [fluid.layers.batch_norm(x, act=a) for a in ACTS]
out = static_run(build, {'x': X})
'''),
    ("softmax_with_cross_entropy_softmax_no_grad_dygraph", '''
X = rng.uniform(-2, 2, size=(3, 4)).astype('float32')
Y = rng.randint(0, 4, size=(3, 1)).astype('int64')
W = rng.uniform(-1, 1, size=(3, 4)).astype('float32')
def f():
    t = fluid.dygraph.to_variable
    rows = []
    for terms in ('both', 'softmax', 'loss'):
        x = t(X)
        x.stop_gradient = False
        loss, sm = fluid.layers.softmax_with_cross_entropy(x, t(Y), return_softmax=True)
        total = {'both': fluid.layers.reduce_sum(loss) + fluid.layers.reduce_sum(sm * t(W)),
                 'softmax': fluid.layers.reduce_sum(sm * t(W)),
                 'loss': fluid.layers.reduce_sum(loss)}[terms]
        total.backward()
        g = x.gradient()
        rows += [loss, sm, np.array(g is None), g if g is not None else np.zeros(0, 'float32')]
    return rows
out = dy(f)
'''),
    ("softmax_with_cross_entropy_softmax_no_grad_static", '''
X = rng.uniform(-2, 2, size=(3, 4)).astype('float32')
Y = rng.randint(0, 4, size=(3, 1)).astype('int64')
W0 = rng.uniform(-1, 1, size=(4, 4)).astype('float32')
M = rng.uniform(-1, 1, size=(3, 4)).astype('float32')
def build():
    x = fluid.data('x', [3, 4], 'float32')
    y = fluid.data('y', [3, 1], 'int64')
    m = fluid.data('m', [3, 4], 'float32')
    h = fluid.layers.fc(x, 4, param_attr=fluid.ParamAttr(name='w', initializer=fluid.initializer.NumpyArrayInitializer(W0)), bias_attr=False)
    loss, sm = fluid.layers.softmax_with_cross_entropy(h, y, return_softmax=True)
    total = fluid.layers.reduce_sum(loss) + fluid.layers.reduce_sum(sm * m)
    g = fluid.gradients(total, [h])[0]
    fluid.optimizer.SGD(0.5).minimize(total)
    return [loss, sm, g, fluid.default_main_program().global_block().var('w')]
out = static_run(build, {'x': X, 'y': Y, 'm': M}, runs=2)
'''),
    ("int_division_dygraph", '''
A = np.array([7, -7, 9, -5, 0], 'int64')
B = np.array([2, 2, -4, 3, -3], 'int64')
F = np.array([2.5, 2.0, -4.0, 3.0, 1.5], 'float32')
def f():
    t = fluid.dygraph.to_variable
    rows = []
    for dt in ('int64', 'int32'):
        a, b = t(A.astype(dt)), t(B.astype(dt))
        rows += [fluid.layers.elementwise_div(a, b), a / b, a / 2, a / 2.5, 7 / b, a // b, a % b,
                 fluid.layers.elementwise_floordiv(a, b), fluid.layers.elementwise_mod(a, b)]
    rows.append(t(F) % t(np.array([2.0, 2.0, -4.0, 3.0, 1.0], 'float32')))
    return rows
out = dy(f)
'''),
    ("getitem_stepped_slice_dygraph", '''
X = np.arange(2 * 3 * 4 * 5).reshape(2, 3, 4, 5).astype('float32')
W = np.arange(1, 6).astype('float32')
def f():
    v = fluid.dygraph.to_variable(X)
    v.stop_gradient = False
    rows = [v[:, :, ::2, 1], v[0, ::2], v[::2, 0], v[0, :, ::-1], v[-1, 1:3:2], v[:, -1, 3:0:-2],
            v[0, 1, ::2, 3], v[1, :, 1:3], v[0, 1, 2], v[0][:, ::-1], v[:, ::2]]
    loss = fluid.layers.reduce_sum(v[1, 2, ::-1] * fluid.dygraph.to_variable(W))
    loss.backward()
    return rows + [v.gradient()]
out = dy(f)
'''),
    ("while_loop_dygraph_inputs_kept", '''
X = np.array([1.5, -2.0], 'float32')
def f():
    L = fluid.layers
    x = fluid.dygraph.to_variable(X)
    i = L.fill_constant([1], 'int64', 0)
    ten = L.fill_constant([1], 'int64', 4)
    i_out, acc = L.while_loop(lambda i, a: L.less_than(i, ten),
                              lambda i, a: [L.increment(i, 1, in_place=False), a * 1.1 + 1.0], [i, x])
    (only,) = L.while_loop(lambda a: L.reduce_sum(a) < 20.0, lambda a: [a + 2.0], [x])
    return [i_out, acc, only, x, i, L.cond(L.reduce_sum(x) < 0.0, lambda: x * 2.0, lambda: x - 1.0)]
out = dy(f)
'''),
    ("int_division_static", '''
A = np.array([7, -7, 9, -5, 0], 'int64')
B = np.array([2, 2, -4, 3, -3], 'int64')
F = np.array([2.5, 2.0, -4.0, 3.0, 1.5], 'float32')
def build():
    a = fluid.data('a', [5], 'int64')
    b = fluid.data('b', [5], 'int64')
    fa = fluid.data('f', [5], 'float32')
    a32, b32 = fluid.layers.cast(a, 'int32'), fluid.layers.cast(b, 'int32')
    return [fluid.layers.elementwise_div(a, b), a / b, a / 2, a / 2.5, 7 / b, a // b, a % b,
            fluid.layers.elementwise_floordiv(a, b), fluid.layers.elementwise_mod(a, b),
            fluid.layers.elementwise_div(a32, b32), a32 / b32, a32 / 3, a / fa, fa / b]
out = static_run(build, {'a': A, 'b': B, 'f': F})
'''),
    ("reduce_int_dtypes_dygraph", '''
X = np.array([[1, 0, 5], [3, 4, -2]])
def f():
    rows = []
    for dt in ('int32', 'int64'):
        x = fluid.dygraph.to_variable(X.astype(dt))
        for fn in (fluid.layers.reduce_sum, fluid.layers.reduce_prod, fluid.layers.reduce_max,
                   fluid.layers.reduce_min, fluid.layers.reduce_mean):
            rows += [fn(x), fn(x, dim=0), fn(x, dim=1, keep_dim=True)]
    b = fluid.dygraph.to_variable(X > 0)
    rows += [fluid.layers.reduce_all(b, dim=0), fluid.layers.reduce_any(b)]
    return rows
out = dy(f)
'''),
    ("reduce_int_dtypes_static", '''
X = np.array([[1, 0, 5], [3, 4, -2]], 'int32')
def build():
    x = fluid.data('x', [2, 3], 'int32')
    rows = []
    for fn in (fluid.layers.reduce_sum, fluid.layers.reduce_prod, fluid.layers.reduce_max,
               fluid.layers.reduce_min, fluid.layers.reduce_mean):
        rows += [fn(x), fn(x, dim=0), fn(x, dim=1, keep_dim=True)]
    return rows
out = static_run(build, {'x': X})
'''),
    ("matmul_1d_vectors_dygraph", '''
V = np.arange(4, dtype='float32')
M = np.arange(8, dtype='float32').reshape(2, 4)
def f():
    t = fluid.dygraph.to_variable
    v, m = t(V), t(M)
    return [fluid.layers.matmul(v, v), fluid.layers.matmul(v, v, alpha=2.0), fluid.layers.matmul(m, v),
            fluid.layers.matmul(v, m, transpose_y=True)]
out = dy(f)
'''),
    ("matmul_1d_vectors_static", '''
V = np.arange(4, dtype='float32')
M = np.arange(8, dtype='float32').reshape(2, 4)
def build():
    v = fluid.data('v', [4], 'float32')
    m = fluid.data('m', [2, 4], 'float32')
    return [fluid.layers.matmul(v, v), fluid.layers.matmul(v, v, alpha=2.0), fluid.layers.matmul(m, v)]
out = static_run(build, {'v': V, 'm': M})
'''),
    ("all_parameters_without_global_vars_static", '''
import os, shutil, tempfile
def names(vs):
    return np.array(sorted(v.name for v in vs))
def f(decay):
    main, start = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, start):
        with fluid.unique_name.guard():
            x = fluid.layers.data(name='x', shape=[2], dtype='float32')
            h = fluid.layers.fc(x, 3, param_attr=fluid.ParamAttr(trainable=False))
            h = fluid.layers.batch_norm(h)
            p = fluid.layers.create_parameter([3], 'float32', name='myp')
            loss = fluid.layers.mean(h * p)
            fluid.layers.create_global_var(shape=[1], value=0.0, dtype='float32', persistable=True, name='gstep')
            lr = fluid.layers.piecewise_decay(boundaries=[2], values=[0.1, 0.01]) if decay else 0.1
            opt = fluid.optimizer.Adam(lr) if decay else fluid.optimizer.SGD(lr)
            opt.minimize(loss)
    test = main.clone(for_test=True)
    scope = fluid.Scope()
    with fluid.scope_guard(scope):
        exe = fluid.Executor(fluid.CPUPlace())
        exe.run(start)
        d = tempfile.mkdtemp()
        fluid.io.save_params(exe, d, main_program=main)
        saved = np.array(sorted(os.listdir(d)))
        shutil.rmtree(d)
    return [names(main.global_block().all_parameters()), names(main.all_parameters()),
            names(fluid.io.get_program_parameter(main)), names(test.all_parameters()), saved]
out = f(True) + f(False)
'''),
    ("auc_accumulates_static", '''
P = rng.uniform(0, 1, (4, 6, 1)).astype('float32')
L = rng.randint(0, 2, (4, 6, 1)).astype('int64')
main, startup = fluid.Program(), fluid.Program()
with fluid.program_guard(main, startup):
    with fluid.unique_name.guard():
        p = fluid.layers.data(name='p', shape=[1], dtype='float32')
        label = fluid.layers.data(name='label', shape=[1], dtype='int64')
        two = fluid.layers.concat([1.0 - p, p], axis=1)
        a, b, states = fluid.layers.auc(input=two, label=label, num_thresholds=7, slide_steps=2)
        a2, b2, _ = fluid.layers.auc(input=two, label=label)
params = np.array(len(main.global_block().all_parameters()))
scope = fluid.Scope()
out = [params]
with fluid.scope_guard(scope):
    exe = fluid.Executor(fluid.CPUPlace())
    exe.run(startup)
    for i in range(4):
        out += exe.run(main, feed={'p': P[i], 'label': L[i]}, fetch_list=[a, b] + states + [a2, b2])
'''),
    ("auc_dygraph", '''
P = rng.uniform(0, 1, (2, 6, 1)).astype('float32')
L = rng.randint(0, 2, (2, 6, 1)).astype('int64')
def f():
    t = fluid.dygraph.to_variable
    rows = []
    for i in range(2):
        a, b, states = fluid.layers.auc(t(np.concatenate([1 - P[i], P[i]], 1)), t(L[i]), num_thresholds=7)
        rows += [a, b] + states
    return rows
out = dy(f)
'''),
    ("gradients_without_gradient_static", '''
main, startup = fluid.Program(), fluid.Program()
with fluid.program_guard(main, startup):
    x = fluid.data('x', [2, 3], 'float32')
    w = fluid.data('w', [2, 3], 'float32')
    w.stop_gradient = False
    y = fluid.layers.reduce_sum(x * w)
    one = fluid.gradients(y, x)
    two = fluid.gradients([y], [x, w])
out = [np.array(len(one)), np.array(len(two)), np.array(two[0] is None)]
'''),
    ("optimizer_backward_apply_optimize_static", '''
X = rng.uniform(-1, 1, size=(5, 3)).astype('float32')
main, startup = fluid.Program(), fluid.Program()
with fluid.program_guard(main, startup):
    x = fluid.data('x', [5, 3], 'float32')
    h = fluid.layers.fc(x, 4, param_attr=fluid.ParamAttr(name='bo_w', initializer=fluid.initializer.Constant(0.3)),
                        bias_attr=fluid.ParamAttr(name='bo_b', initializer=fluid.initializer.Constant(0.1)))
    y = fluid.layers.fc(h, 2, param_attr=fluid.ParamAttr(name='bo_w2', initializer=fluid.initializer.Constant(-0.2)),
                        bias_attr=False)
    loss = fluid.layers.reduce_mean(y * y)
    opt = fluid.optimizer.Adam(learning_rate=0.1)
    pg = opt.backward(loss, startup_program=startup)
opt.apply_optimize(loss, startup, pg)
scope = fluid.Scope()
with fluid.scope_guard(scope):
    exe = fluid.Executor(fluid.CPUPlace())
    exe.run(startup)
    out = exe.run(main, feed={'x': X}, fetch_list=[g for p, g in pg] + [loss])
    out += exe.run(main, feed={'x': X}, fetch_list=[loss] + [p for p, g in pg])
'''),
    ("unique_first_occurrence_dygraph", '''
I = np.array([4, 1, 4, 0, 5, 1, 1, 3, 0, 4], dtype='int64')
F = np.array([2.5, -1.0, 2.5, 3.0, -1.0, 0.0], dtype='float32')
def f():
    t = fluid.dygraph.to_variable
    return (list(fluid.layers.unique(t(I))) + list(fluid.layers.unique(t(F), dtype='int64'))
            + list(fluid.layers.unique_with_counts(t(I))) + list(fluid.layers.unique_with_counts(t(F), 'int64'))
            + list(fluid.layers.unique(t(np.array([7], dtype='int32')))))
out = dy(f)
'''),
    ("unique_first_occurrence_static", '''
I = np.array([4, 1, 4, 0, 5, 1, 1, 3, 0, 4], dtype='int64')
F = np.array([2.5, -1.0, 2.5, 3.0, -1.0, 0.0], dtype='float32')
def build():
    i = fluid.data('i', [None], 'int64')
    f = fluid.layers.assign(F)
    return (list(fluid.layers.unique(i, 'int64')) + list(fluid.layers.unique(f))
            + list(fluid.layers.unique_with_counts(i)) + list(fluid.layers.unique_with_counts(f, dtype='int64')))
out = static_run(build, {'i': I})
'''),
    ("l2_normalize_epsilon_dygraph", '''
Y = np.concatenate([rng.randn(3, 4), 0.01 * rng.randn(2, 4)]).astype('float32')
def f():
    y = fluid.dygraph.to_variable(Y)
    return [fluid.layers.l2_normalize(y, axis=1, epsilon=1e-4), fluid.layers.l2_normalize(y, 0),
            fluid.layers.l2_normalize(fluid.dygraph.to_variable(Y[0]), -1, 1e-2)]
out = dy(f)
'''),
    ("l2_normalize_epsilon_static", '''
Y = np.concatenate([rng.randn(3, 4), 0.01 * rng.randn(2, 4)]).astype('float32')
def build():
    y = fluid.data('y', [None, 4], 'float32')
    return [fluid.layers.l2_normalize(y, -1, 1e-3), fluid.layers.l2_normalize(x=y, axis=0, epsilon=1e-2)]
out = static_run(build, {'y': Y})
'''),
    ("pad_constant_like_dygraph", '''
X = rng.randn(2, 3, 4).astype('float32')
Y = rng.randn(1, 2, 3).astype('float32')
def f():
    t = fluid.dygraph.to_variable
    return [fluid.layers.pad_constant_like(t(X), t(Y)), fluid.layers.pad_constant_like(t(X), t(Y), pad_value=-1.5),
            fluid.layers.pad_constant_like(t(X[0, 0]), t(Y[0, 0]), 2.0),
            fluid.layers.pad_constant_like(x=t(X.reshape(1, 2, 3, 4)), y=t(Y.reshape(1, 1, 2, 3)), pad_value=0.5)]
out = dy(f)
'''),
    ("pad_constant_like_static", '''
X = rng.randn(3, 3, 4).astype('float32')
Y = rng.randn(1, 2, 3).astype('float32')
def build():
    x = fluid.data('x', [None, 3, 4], 'float32')
    y = fluid.data('y', [None, 2, 3], 'float32')
    x2 = fluid.data('x2', [3, 3, 4], 'float32')
    y2 = fluid.data('y2', [1, 2, 3], 'float32')
    return [fluid.layers.pad_constant_like(x, y, 2.0), fluid.layers.pad_constant_like(x=x2, y=y2),
            fluid.layers.pad_constant_like(x, y2, pad_value=-1.0)]
out = static_run(build, {'x': X, 'y': Y, 'x2': X, 'y2': Y})
'''),
    ("softmax_with_cross_entropy_ignored_rows_grad_static", '''
X = rng.randn(6, 4).astype('float32')
Y = np.array([[0], [3], [1], [3], [2], [3]], 'int64')
def build():
    x = fluid.data('x', [None, 4], 'float32')
    x.stop_gradient = False
    y = fluid.data('y', [None, 1], 'int64')
    l1 = fluid.layers.softmax_with_cross_entropy(x, y, ignore_index=3)
    l2 = fluid.layers.softmax_with_cross_entropy(x * 2.0, y, ignore_index=0, numeric_stable_mode=False)
    return [l1, l2, fluid.gradients(fluid.layers.reduce_sum(l1 * l1) + fluid.layers.reduce_mean(l2), x)[0]]
out = static_run(build, {'x': X, 'y': Y})
'''),
    ("softmax_with_cross_entropy_ignored_rows_grad_dygraph", '''
X = rng.randn(2, 5, 3).astype('float32')
Y = np.array([[[0], [2], [0], [1], [2]], [[2], [2], [1], [0], [0]]], 'int64')
def f():
    t = fluid.dygraph.to_variable
    x = t(X)
    x.stop_gradient = False
    l1 = fluid.layers.softmax_with_cross_entropy(x, t(Y), ignore_index=2)
    l2, sm = fluid.layers.softmax_with_cross_entropy(x, t(Y), ignore_index=0, return_softmax=True)
    xt = t(np.transpose(X, (0, 2, 1)).copy())
    xt.stop_gradient = False
    l3 = fluid.layers.softmax_with_cross_entropy(xt, t(np.transpose(Y, (0, 2, 1)).copy()), ignore_index=1, axis=1)
    (fluid.layers.reduce_sum(l1) + fluid.layers.reduce_mean(l2) + fluid.layers.reduce_sum(l3 * l3)).backward()
    return [l1, l2, sm, l3, x.gradient(), xt.gradient()]
out = dy(f)
'''),
    ("accuracy_correct_total_static", '''
P = rng.rand(6, 4).astype('float32')
Y = np.array([[0], [3], [1], [3], [2], [3]], 'int64')
def build():
    p = fluid.data('p', [None, 4], 'float32')
    y = fluid.data('y', [None, 1], 'int64')
    correct = fluid.layers.fill_constant(shape=[1], dtype='int32', value=0)
    total = fluid.layers.fill_constant(shape=[1], dtype='int32', value=0)
    acc = fluid.layers.accuracy(p, y, k=2, correct=correct, total=total)
    return [acc, correct, total, fluid.layers.accuracy(input=p, label=y)]
out = static_run(build, {'p': P, 'y': Y})
'''),
    ("accuracy_correct_total_dygraph", '''
P = rng.rand(6, 4).astype('float32')
Y = np.array([[0], [3], [1], [3], [2], [3]], 'int64')
def f():
    c = fluid.layers.fill_constant(shape=[1], dtype='int32', value=0)
    t = fluid.layers.fill_constant(shape=[1], dtype='int32', value=0)
    acc = fluid.layers.accuracy(fluid.dygraph.to_variable(P), fluid.dygraph.to_variable(Y), 1, c, t)
    return [acc, c, t]
out = dy(f)
'''),
    ("metrics_chunk_evaluator_edit_distance", '''
chunk = fluid.metrics.ChunkEvaluator()
chunk2 = fluid.metrics.ChunkEvaluator('c2')
ed = fluid.metrics.EditDistance('ed')
out = [np.array(chunk.eval(), 'float64')]
for ni, nl, nc in [(7, 5, 3), (9, 8, 0), (6, 6, 6)]:
    chunk.update(ni, nl, nc)
    chunk2.update(np.array([ni], 'int64'), np.array([nl], 'int64'), np.array([nc], 'int64'))
    ed.update(rng.randint(0, 3, (5, 1)).astype('float32'), 5)
    out += [np.array(chunk.eval(), 'float64'), np.array(chunk2.eval(), 'float64').ravel(), np.array(ed.eval(), 'float64')]
states = chunk.get_config()['states']
out.append(np.array([states['num_infer_chunks'], states['num_label_chunks'], states['num_correct_chunks'], ed.seq_num, ed.instance_error], 'float64'))
ed.reset()
out.append(np.array([ed.total_distance, ed.seq_num, ed.instance_error], 'float64'))
'''),
    ("losses_without_counterpart_static", '''
X = (rng.randn(6, 4) * 1.5).astype('float32')
X[0, 0] = 0.0
Y = rng.randn(6, 4).astype('float32')
Y[1, 1] = X[1, 1] + 1.0
Y[2, 2] = X[2, 2]
IW = rng.rand(6, 4).astype('float32')
OW = rng.rand(6, 4).astype('float32')
A4 = rng.randn(6, 2, 2, 3).astype('float32')
B4 = rng.randn(6, 2, 2, 3).astype('float32')
LB = rng.rand(6, 4).astype('float32')
LB[0, 1] = -1.0; LB[3, 2] = -1.0; LB[5, 0] = -1.0
R = (rng.rand(6, 1) > 0.5).astype('float32')
LE = rng.randn(6, 1).astype('float32')
RI = rng.randn(6, 1).astype('float32')
IL = rng.randint(0, 4, (6, 1)).astype('int64')
def build():
    d = lambda n, s, t='float32': fluid.data(n, [None] + s, t)
    x, y, a4, b4 = d('x', [4]), d('y', [4]), d('a4', [2, 2, 3]), d('b4', [2, 2, 3])
    inw, otw, lb, r, le, ri, lab = d('inw', [4]), d('otw', [4]), d('lb', [4]), d('r', [1]), d('le', [1]), d('ri', [1]), d('lab', [1], 'int64')
    for v in (x, y, a4, le, ri):
        v.stop_gradient = False
    res = [fluid.layers.smooth_l1(x, y), fluid.layers.smooth_l1(x, y, inw, otw, sigma=2.0),
           fluid.layers.smooth_l1(a4, b4, sigma=0.5),
           fluid.layers.sigmoid_cross_entropy_with_logits(x, lb, ignore_index=-1),
           fluid.layers.sigmoid_cross_entropy_with_logits(x, lb, -1, normalize=True),
           fluid.layers.sigmoid_cross_entropy_with_logits(x, fluid.layers.abs(lb)),
           fluid.layers.rank_loss(r, le, ri), fluid.layers.bpr_loss(x, lab),
           fluid.layers.bpr_loss(fluid.layers.softmax(x), lab)]
    total = fluid.layers.sums([fluid.layers.reduce_sum(v * v) for v in res])
    return res + fluid.gradients(total, [x, y, a4, le, ri])
out = static_run(build, {'x': X, 'y': Y, 'a4': A4, 'b4': B4, 'inw': IW, 'otw': OW, 'lb': LB, 'r': R, 'le': LE, 'ri': RI, 'lab': IL})
'''),
    ("mean_iou_edit_distance", '''
PRED = rng.randint(0, 4, (2, 5, 5)).astype('int32')
LAB = rng.randint(0, 4, (2, 5, 5)).astype('int32')
LAB[:, 0, :] = 3
HYP = rng.randint(1, 6, (3, 6)).astype('int64')
REF = rng.randint(1, 6, (3, 7)).astype('int64')
HL = np.array([6, 3, 0], 'int64')
RL = np.array([7, 5, 2], 'int64')
def build():
    p = fluid.data('p', [None, 5, 5], 'int32')
    l = fluid.data('l', [None, 5, 5], 'int32')
    h = fluid.data('h', [None, 6], 'int64')
    r = fluid.data('r', [None, 7], 'int64')
    hl = fluid.data('hl', [None], 'int64')
    rl = fluid.data('rl', [None], 'int64')
    return (list(fluid.layers.mean_iou(p, l, 4)) + list(fluid.layers.mean_iou(input=p, label=l, num_classes=6))
            + list(fluid.layers.edit_distance(h, r, input_length=hl, label_length=rl))
            + list(fluid.layers.edit_distance(h, r, normalized=False, input_length=hl, label_length=rl)))
out = static_run(build, {'p': PRED, 'l': LAB, 'h': HYP, 'r': REF, 'hl': HL, 'rl': RL})
def f():
    t = fluid.dygraph.to_variable
    return list(fluid.layers.mean_iou(t(PRED), t(LAB), 4)) + list(fluid.layers.edit_distance(t(HYP), t(REF), True, None, t(HL), t(RL)))
out = out + dy(f)
'''),
    ("activation_arguments_without_counterpart", '''
X = np.array([-5.0, -3.0, -2.0, -1.5, -0.5, 0.0, 0.5, 1.0, 1.9, 2.0, 3.0, 4.0, 4.5, 5.0, 6.0, 7.0, 40.0, 41.0], 'float32').reshape(3, 6)
def build():
    x = fluid.data('x', [None, 6], 'float32')
    x.stop_gradient = False
    res = [fluid.layers.relu6(x, threshold=4.0), fluid.layers.relu6(x), fluid.layers.soft_relu(x),
           fluid.layers.soft_relu(x, threshold=2.0), fluid.layers.hard_swish(x, threshold=5.0, scale=7.0, offset=2.0),
           fluid.layers.hard_swish(x, 4.0), fluid.layers.hard_swish(x)]
    return res + [fluid.gradients(fluid.layers.reduce_sum(r * 3.0), x)[0] for r in res]
out = static_run(build, {'x': X})
def f():
    t = fluid.dygraph.to_variable(X)
    t.stop_gradient = False
    r = fluid.layers.relu6(t, 2.5) + fluid.layers.soft_relu(t, 1.0) + fluid.layers.hard_swish(t, 3.0, 5.0, 1.0)
    fluid.layers.reduce_sum(r * r).backward()
    return [r, t.gradient()]
out = out + dy(f)
'''),
    ("teacher_student_sigmoid_loss", '''
XS = np.array([-20.0, -15.0, -4.0, -2.0, -1.0, 0.0, 1.0, 2.0, 4.0, 15.0, 16.0], 'float32')
LS = [-2.0, -1.0, 0.0, 0.3, 1.0, 1.6, 2.0]
X = np.repeat(XS, len(LS)).reshape(-1, 1).astype('float32')
L = np.tile(np.array(LS, 'float32'), len(XS)).reshape(-1, 1)
def build():
    x = fluid.data('x', [None, 1], 'float32')
    x.stop_gradient = False
    l = fluid.data('l', [None, 1], 'float32')
    o = fluid.layers.teacher_student_sigmoid_loss(x, l, soft_max_up_bound=2.0, soft_max_lower_bound=-2.0)
    o2 = fluid.layers.teacher_student_sigmoid_loss(input=x, label=l)
    return [o, o2, fluid.gradients(fluid.layers.reduce_sum(o * o) + fluid.layers.reduce_sum(o2), x)[0]]
out = static_run(build, {'x': X, 'l': L})
def f():
    x = fluid.dygraph.to_variable(X)
    x.stop_gradient = False
    o = fluid.layers.teacher_student_sigmoid_loss(x, fluid.dygraph.to_variable(L), 3.0, -1.0)
    fluid.layers.reduce_sum(o * 2.0).backward()
    return [o, x.gradient()]
out = out + dy(f)
'''),
    ("clip_brelu_hard_shrink_bounds", '''
X = np.array([-6.0, -3.0, -1.0, -0.5, -0.25, 0.0, 0.25, 0.5, 1.0, 3.0, 6.0, 7.0], 'float32').reshape(3, 4)
def build():
    x = fluid.data('x', [None, 4], 'float32')
    x.stop_gradient = False
    res = [fluid.layers.clip(x, -1.0, 1.0), fluid.layers.clip(fluid.layers.relu(x), min=0.0, max=6.0),
           fluid.layers.brelu(x, t_min=-1.0, t_max=3.0), fluid.layers.brelu(x),
           fluid.layers.hard_shrink(x, threshold=0.5), fluid.layers.hard_shrink(x)]
    return res + [fluid.gradients(fluid.layers.reduce_sum(r * r), x)[0] for r in res]
out = static_run(build, {'x': X})
def f():
    x = fluid.dygraph.to_variable(X)
    x.stop_gradient = False
    r = fluid.layers.clip(x, -0.5, 3.0) + fluid.layers.brelu(x, 0.0, 1.0) + fluid.layers.hard_shrink(x, 0.25)
    fluid.layers.reduce_sum(r * r).backward()
    return [r, x.gradient()]
out = out + dy(f)
'''),
    ("elementwise_max_min_ties", '''
X = np.array([[1.0, -1.0, 0.0, 2.0], [0.5, 0.5, -2.0, 1.0]], 'float32')
Y = np.array([[1.0, 0.0, 0.0, -1.0], [0.5, 1.0, -2.0, 3.0]], 'float32')
B = np.array([1.0, 0.5, 0.0, 3.0], 'float32')
def build():
    x = fluid.data('x', [2, 4], 'float32')
    y = fluid.data('y', [2, 4], 'float32')
    b = fluid.data('b', [4], 'float32')
    for v in (x, y, b):
        v.stop_gradient = False
    res = [fluid.layers.elementwise_max(x, y), fluid.layers.elementwise_min(x, y),
           fluid.layers.elementwise_max(x, b), fluid.layers.elementwise_min(x, b, axis=1)]
    return res + [g for r in res for g in fluid.gradients(fluid.layers.reduce_sum(r * r), [x, y, b]) if g is not None]
out = static_run(build, {'x': X, 'y': Y, 'b': B})
def f():
    x, b = fluid.dygraph.to_variable(X), fluid.dygraph.to_variable(B)
    x.stop_gradient = False
    b.stop_gradient = False
    r = fluid.layers.elementwise_max(x, b) * 2.0 + fluid.layers.elementwise_min(x, b) * 3.0
    fluid.layers.reduce_sum(r * r).backward()
    return [r, x.gradient(), b.gradient()]
out = out + dy(f)
'''),
    ("reduce_max_min_ties", '''
X = np.array([[[2.0, -1.0, 2.0, 0.0], [0.5, 0.5, -2.0, -2.0]], [[1.0, 1.0, 1.0, 1.0], [3.0, 0.0, 3.0, -1.0]]], 'float32')
I = np.array([[1, 5, 5], [2, 2, 0]], 'int64')
def build():
    x = fluid.data('x', [2, 2, 4], 'float32')
    x.stop_gradient = False
    i = fluid.data('i', [2, 3], 'int64')
    L = fluid.layers
    res = [L.reduce_max(x, dim=2), L.reduce_min(x, dim=-1, keep_dim=True), L.reduce_max(x),
           L.reduce_max(x, dim=[0, 2]), L.reduce_min(x, dim=[1]), L.reduce_max(L.reshape(x, [16]), dim=0)]
    grads = [fluid.gradients(L.reduce_sum(r * r), x)[0] for r in res]
    return res + grads + [L.reduce_max(i, dim=1), L.reduce_min(i)]
out = static_run(build, {'x': X, 'i': I})
def f():
    x = fluid.dygraph.to_variable(X)
    x.stop_gradient = False
    r = fluid.layers.reduce_max(x, dim=1) * 2.0 + fluid.layers.reduce_min(x, dim=1) * 3.0
    t = fluid.layers.reduce_sum(r * r) + fluid.layers.reduce_max(x) * 5.0
    t.backward()
    return [r, t, x.gradient()]
out = out + dy(f)
'''),
    ("cumsum_int32_dtype", '''
I = np.array([[1, 2, 3], [-4, 5, 6]], 'int32')
def build():
    i = fluid.data('i', [2, 3], 'int32')
    L = fluid.layers
    return [L.cumsum(i, axis=1), L.cumsum(i, axis=0, exclusive=True), L.cumsum(i, reverse=True),
            L.cumsum(L.cast(i, 'int64'), axis=1)]
out = static_run(build, {'i': I})
def f():
    i = fluid.dygraph.to_variable(I)
    return [fluid.layers.cumsum(i, axis=1), fluid.layers.cumsum(i, exclusive=True, reverse=True)]
out = out + dy(f)
'''),
    ("clone_for_test_lr_decay_static", '''
X = (np.arange(24, dtype='float32').reshape(8, 3) / 10.0)
Y = np.linspace(-1, 1, 8).astype('float32').reshape(8, 1)
def run(clone_first):
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup):
        with fluid.unique_name.guard():
            x = fluid.data('x', [None, 3], 'float32')
            y = fluid.data('y', [None, 1], 'float32')
            h = fluid.layers.batch_norm(fluid.layers.fc(x, 4, act='relu', param_attr=fluid.ParamAttr(
                initializer=fluid.initializer.Constant(0.2))))
            pred = fluid.layers.fc(h, 1, param_attr=fluid.ParamAttr(initializer=fluid.initializer.Constant(-0.1)))
            loss = fluid.layers.mean(fluid.layers.square_error_cost(pred, y))
            lr = fluid.layers.exponential_decay(0.1, decay_steps=1, decay_rate=0.5, staircase=True)
            sgd = fluid.optimizer.SGD(lr)
            if clone_first:   # the decay's step counter is in the evaluation program
                test_prog = main.clone(for_test=True)
                sgd.minimize(loss)
            else:             # backward pruned, with the decay's ops
                sgd.minimize(loss)
                test_prog = main.clone(for_test=True)
    scope = fluid.Scope()
    res = []
    with fluid.scope_guard(scope):
        exe = fluid.Executor(fluid.CPUPlace())
        exe.run(startup)
        for i in range(3):
            res.append(exe.run(main, feed={'x': X, 'y': Y}, fetch_list=[loss])[0])
            for _ in range(2):
                res.append(exe.run(test_prog, feed={'x': X, 'y': Y}, fetch_list=[loss])[0])
    return np.concatenate([np.asarray(r).ravel() for r in res])
out = [run(True), run(False)]
'''),
    ("group_norm_default_attrs_static", '''
X = rng.rand(2, 4, 3, 3).astype('float32')
W = np.linspace(-1, 1, 36).reshape(4, 3, 3).astype('float32')
main, startup = fluid.Program(), fluid.Program()
with fluid.program_guard(main, startup):
    with fluid.unique_name.guard():
        img = fluid.data('img', [None, 4, 3, 3], 'float32')
        gn = fluid.layers.group_norm(img, groups=2)   # 1.8: no scale, no bias
        gn2 = fluid.layers.group_norm(img, groups=2, param_attr=fluid.ParamAttr(initializer=fluid.initializer.Constant(2.0)),
                                      bias_attr=fluid.ParamAttr(initializer=fluid.initializer.Constant(0.5)))
        w = fluid.layers.create_parameter([4, 3, 3], 'float32', default_initializer=fluid.initializer.NumpyArrayInitializer(W))
        loss = fluid.layers.reduce_mean(gn * w)   # (1.8.5's group_norm backward with a scale segfaults)
        fluid.optimizer.SGD(1.0).minimize(loss)
n_params = len(main.global_block().all_parameters())
scope = fluid.Scope()
res = []
with fluid.scope_guard(scope):
    exe = fluid.Executor(fluid.CPUPlace())
    exe.run(startup)
    for i in range(3):
        res += exe.run(main, feed={'img': X}, fetch_list=[loss, gn, gn2])
out = [np.array([n_params], 'int64')] + res
'''),
    ("layer_parameter_names_static", '''
main, startup = fluid.Program(), fluid.Program()
L = fluid.layers
with fluid.program_guard(main, startup), fluid.unique_name.guard():
    img = fluid.data('img', [None, 1, 8, 8], 'float32')
    ids = fluid.data('ids', [None, 1], 'int64')
    c = L.conv2d(img, 2, 3)
    b = L.batch_norm(c)
    c2 = L.conv2d_transpose(L.pool2d(b, 2, pool_stride=2), 2, filter_size=2, stride=2)
    e = L.embedding(ids, size=[10, 4])
    e2 = fluid.embedding(ids, size=[10, 4])
    f = L.fc(L.flatten(L.layer_norm(c2)), 3)
    g = L.group_norm(c, groups=2)
    cp = L.create_parameter([2, 2], 'float32')
    cp2 = L.create_parameter([2], 'float32', is_bias=True)
asked = ['conv2d_0.w_0', 'conv2d_0.b_0', 'batch_norm_0.w_0', 'batch_norm_0.w_1', 'batch_norm_0.w_2',
         'conv2d_transpose_0.w_0', 'layer_norm_0.w_0', 'embedding_0.w_0', 'embedding_1.w_0', 'fc_0.w_0',
         'fc_0.b_0', 'group_norm_0.w_0', 'create_parameter_0.w_0', 'create_parameter_1.b_0',
         'create_parameter_20.w_0', 'create_parameter_18.w_0']
names = set(p.name for p in main.global_block().all_parameters())
out = [np.array([int(n in names) for n in asked], 'int64'), np.array([len(names)], 'int64')]
'''),
    ("losses_without_counterpart_dygraph", '''
X = (rng.randn(5, 3) * 1.5).astype('float32')
X[0, 0] = 0.0
Y = rng.randn(5, 3).astype('float32')
Y[1, 1] = X[1, 1] - 0.25
IW = rng.rand(5, 3).astype('float32')
OW = rng.rand(5, 3).astype('float32')
LB = rng.rand(5, 3).astype('float32')
LB[0, 1] = 2.0; LB[4, 2] = 2.0
IL = rng.randint(0, 3, (5, 1)).astype('int64')
def f():
    t = fluid.dygraph.to_variable
    x, y = t(X), t(Y)
    x.stop_gradient = False
    y.stop_gradient = False
    res = [fluid.layers.smooth_l1(x, y, inside_weight=t(IW), outside_weight=t(OW), sigma=4.0),
           fluid.layers.sigmoid_cross_entropy_with_logits(x, t(LB), ignore_index=2, normalize=True),
           fluid.layers.rank_loss(t(LB[:, :1]), x[:, :1], y[:, 1:2]), fluid.layers.bpr_loss(x, t(IL))]
    fluid.layers.sums([fluid.layers.reduce_sum(v * v) for v in res]).backward()
    return res + [x.gradient(), y.gradient()]
out = dy(f)
'''),
    ("all_parameters_order_static", '''
main, startup = fluid.Program(), fluid.Program()
with fluid.program_guard(main, startup):
    x = fluid.data('x', [2, 3], 'float32')
    h = fluid.layers.fc(x, 5, param_attr=fluid.ParamAttr(name='po_w1'), bias_attr=fluid.ParamAttr(name='po_b1'))
    e = fluid.layers.create_parameter([5, 2], 'float32', name='po_cp')
    y = fluid.layers.fc(fluid.layers.matmul(h, e), 4, param_attr=fluid.ParamAttr(name='po_w2'), bias_attr=False)
out = [np.concatenate([np.array(p.shape) for p in main.all_parameters()]),
       np.concatenate([np.array(p.shape) for p in main.global_block().all_parameters()]),
       np.concatenate([np.array(p.shape) for p in main.block(0).all_parameters()])]
'''),
    ("weight_tying_by_name_static", '''
L = rng.uniform(-1, 1, (4, 5)).astype('float32')
R = rng.uniform(-1, 1, (4, 5)).astype('float32')
T = rng.uniform(0, 1, (4, 1)).astype('float32')
W = rng.uniform(-1, 1, (5, 3)).astype('float32')
def tower(inp):
    return fluid.layers.fc(inp, 3, act='tanh',
                           param_attr=fluid.ParamAttr(name='wt_w', initializer=fluid.initializer.NumpyArrayInitializer(W)),
                           bias_attr=fluid.ParamAttr(name='wt_b', initializer=fluid.initializer.Constant(0.1)))
main, startup = fluid.Program(), fluid.Program()
with fluid.program_guard(main, startup):
    l = fluid.data('l', [4, 5], 'float32')
    r = fluid.data('r', [4, 5], 'float32')
    t = fluid.data('t', [4, 1], 'float32')
    d = fluid.layers.reduce_sum(fluid.layers.square(tower(l) - tower(r)), dim=1, keep_dim=True)
    loss = fluid.layers.reduce_mean(fluid.layers.square(d - t))
    fluid.optimizer.Adam(learning_rate=0.1).minimize(loss)
out = [np.array(len(main.all_parameters()))]
scope = fluid.Scope()
with fluid.scope_guard(scope):
    exe = fluid.Executor(fluid.CPUPlace())
    exe.run(startup)
    for i in range(3):
        out += exe.run(main, feed={'l': L, 'r': R, 't': T}, fetch_list=[loss])
    out += [np.array(scope.find_var(n).get_tensor()) for n in ('wt_w', 'wt_b')]
'''),
    ("unstack_backward_dygraph", '''
X = rng.randn(4, 3, 2).astype('float32')
def f():
    x = fluid.dygraph.to_variable(X)
    x.stop_gradient = False
    a = fluid.layers.unstack(x, axis=1)[2]
    b = fluid.layers.unstack(x, -1)[0]
    c = fluid.layers.unstack(x)[1]
    loss = fluid.layers.reduce_sum(a * 2.0) + fluid.layers.reduce_sum(b * b) + fluid.layers.reduce_sum(c)
    loss.backward()
    return [a, b, c, loss, x.gradient()]
out = dy(f)
'''),
    ("scatter_input_gradient_static", '''
X = rng.randn(4, 3).astype('float32')
U = rng.randn(3, 3).astype('float32')
W = np.linspace(-1, 2, 12).reshape(4, 3).astype('float32')
def build():
    x = fluid.data('x', [4, 3], 'float32')
    u = fluid.data('u', [3, 3], 'float32')
    x.stop_gradient = False
    u.stop_gradient = False
    idx = fluid.layers.assign(np.array([2, 0, 2], dtype='int64'))
    a = fluid.layers.scatter(x, idx, u)
    b = fluid.layers.scatter(x, idx, u, overwrite=False)
    c = fluid.layers.scatter(fluid.layers.zeros([4, 3], 'float32'), idx, u, None, False)
    loss = fluid.layers.reduce_sum((a + 2.0 * b + 3.0 * c) * fluid.layers.assign(W))
    return [a, b, c] + fluid.gradients(loss, [x, u])
out = static_run(build, {'x': X, 'u': U})
'''),
    ("scatter_input_gradient_dygraph", '''
X = rng.randn(4, 3).astype('float32')
U = rng.randn(3, 3).astype('float32')
W = np.linspace(-1, 2, 12).reshape(4, 3).astype('float32')
def f():
    t = fluid.dygraph.to_variable
    x, u = t(X), t(U)
    x.stop_gradient = False
    u.stop_gradient = False
    idx = t(np.array([1, 3, 1], dtype='int64'))
    a = fluid.layers.scatter(x, idx, u, overwrite=False)
    b = fluid.layers.scatter(input=x, index=idx, updates=u)
    loss = fluid.layers.reduce_sum((a + 2.0 * b) * t(W))
    loss.backward()
    return [a, b, x.gradient(), u.gradient()]
out = dy(f)
'''),
    ("strided_slice_negative_strides_dygraph", '''
A = np.arange(10).astype('float32')
M = np.arange(24).reshape(4, 6).astype('float32')
CASES = [(4, 0, -2), (8, 2, -3), (7, -20, -2), (-1, 0, -2), (-2, -9, -4), (100, -100, -3), (9, 0, -1), (0, 9, 2)]
def f():
    x = fluid.dygraph.to_variable(A)
    rows = [fluid.layers.strided_slice(x, [0], [s], [e], [st]) for s, e, st in CASES]
    return rows + [fluid.layers.strided_slice(fluid.dygraph.to_variable(M), [0, 1], [3, 5], [0, 0], [-2, -3])]
out = dy(f)
'''),
    ("strided_slice_negative_strides_static", '''
M = np.arange(24).reshape(4, 6).astype('float32')
def build():
    m = fluid.data('m', [4, 6], 'float32')
    return [fluid.layers.strided_slice(m, [0, 1], [3, 5], [0, 0], [-2, -3]),
            fluid.layers.strided_slice(m, axes=[1], starts=[-1], ends=[-7], strides=[-4]),
            fluid.layers.strided_slice(m, [0], [0], [4], [3])]
out = static_run(build, {'m': M})
'''),
    ("gather_duplicate_index_gradient_static", '''
X = rng.randn(4, 3).astype('float32')
W = np.linspace(-1, 2, 15).reshape(5, 3).astype('float32')
def build():
    x = fluid.data('x', [None, 3], 'float32')
    x.stop_gradient = False
    idx = fluid.layers.assign(np.array([1, 3, 1, 0, 1], dtype='int64'))
    a = fluid.layers.gather(x, idx)
    b = fluid.layers.gather(x, idx, overwrite=False)
    c = fluid.layers.gather(input=x, index=fluid.layers.assign(np.array([[2], [2], [0], [2], [3]], dtype='int32')))
    w = fluid.layers.assign(W)
    la = fluid.layers.reduce_sum(a * w)
    lb = fluid.layers.reduce_sum(b * w)
    lc = fluid.layers.reduce_sum(c * w)
    return [a, b, c] + fluid.gradients(la, [x]) + fluid.gradients(lb, [x]) + fluid.gradients(lc, [x])
out = static_run(build, {'x': X})
'''),
    ("gather_duplicate_index_gradient_dygraph", '''
X = rng.randn(4, 2, 3).astype('float32')
W = np.linspace(-1, 2, 30).reshape(5, 2, 3).astype('float32')
def f():
    t = fluid.dygraph.to_variable
    x = t(X)
    x.stop_gradient = False
    y = t(X)
    y.stop_gradient = False
    idx = t(np.array([3, 3, 0, 3, 1], dtype='int64'))
    a = fluid.layers.gather(x, idx)
    b = fluid.layers.gather(y, idx, False)
    loss = fluid.layers.reduce_sum(a * t(W)) + fluid.layers.reduce_sum(b * t(W) * 2.0)
    loss.backward()
    return [a, b, x.gradient(), y.gradient()]
out = dy(f)
'''),
    ("one_hot_out_of_range_dygraph", '''
I = np.array([[0], [3], [5], [-1], [2], [9]], dtype='int64')
def f():
    ids = fluid.dygraph.to_variable(I)
    return [fluid.layers.one_hot(ids, 4, True), fluid.layers.one_hot(input=ids, depth=6, allow_out_of_range=True),
            fluid.layers.one_hot(fluid.dygraph.to_variable(I[:2]), 4)]
out = dy(f)
'''),
    ("one_hot_out_of_range_static", '''
I = np.array([[0], [3], [5], [7], [2], [9]], dtype='int64')
def build():
    ids = fluid.data('ids', [None, 1], 'int64')
    return [fluid.layers.one_hot(ids, depth=4, allow_out_of_range=True),
            fluid.layers.one_hot(ids, fluid.layers.fill_constant([1], 'int32', 8), True),
            fluid.layers.one_hot(ids, 10)]
out = static_run(build, {'ids': I})
'''),
    ("reshape_actual_shape_static", '''
X = np.arange(24, dtype='float32').reshape(2, 3, 4) - 10
def build():
    x = fluid.data('x', [None, 3, 4], 'float32')
    return [fluid.layers.reshape(x, shape=[-1, 4], actual_shape=fluid.layers.assign(np.array([3, 8], 'int32'))),
            fluid.layers.reshape(x, [-1, 12], fluid.layers.assign(np.array([4, -1], 'int32')), 'relu'),
            fluid.layers.reshape(x, fluid.layers.assign(np.array([6, 4], 'int32')), actual_shape=fluid.layers.assign(np.array([8, 3], 'int32'))),
            fluid.layers.reshape(x, [0, -1])]
out = static_run(build, {'x': X})
'''),
    ("reshape_actual_shape_dygraph", '''
X = np.arange(24, dtype='float32').reshape(2, 3, 4) - 10
def f():
    x = fluid.dygraph.to_variable(X)
    return [fluid.layers.reshape(x, [4, 6], actual_shape=fluid.dygraph.to_variable(np.array([3, 8], 'int32'))),
            fluid.layers.reshape(x, [0, -1], act='relu', inplace=True)]
out = dy(f)
'''),
    ("load_from_save_vars_directories_static", '''
import os, shutil, tempfile
d = tempfile.mkdtemp()
try:
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup):
        with fluid.unique_name.guard():
            x = fluid.data('x', [None, 3], 'float32')
            h = fluid.layers.fc(x, 2, param_attr=fluid.ParamAttr(name='dw', initializer=fluid.initializer.Constant(0.3)),
                                bias_attr=fluid.ParamAttr(name='db', initializer=fluid.initializer.Constant(0.1)))
            loss = fluid.layers.reduce_sum(h)
            fluid.optimizer.Momentum(0.1, 0.9).minimize(loss)
    X = rng.randn(2, 3).astype('float32')
    exe = fluid.Executor(fluid.CPUPlace())
    with fluid.scope_guard(fluid.Scope()):
        exe.run(startup)
        exe.run(main, feed={'x': X}, fetch_list=[loss])
        fluid.io.save_persistables(exe, os.path.join(d, 'persist'), main_program=main)
        fluid.io.save_params(exe, os.path.join(d, 'comb'), main_program=main, filename='params.bin')
        trained = exe.run(main, feed={'x': X}, fetch_list=[h])[0]
    params = main.global_block().all_parameters()
    state = fluid.io.load_program_state(os.path.join(d, 'persist'))
    picked = fluid.io.load_program_state(os.path.join(d, 'persist'), var_list=params[:1])
    from_file = fluid.io.load_program_state(os.path.join(d, 'comb', 'params.bin'), var_list=params)
    with fluid.scope_guard(fluid.Scope()):
        exe.run(startup)
        fluid.load(main, os.path.join(d, 'persist'), exe)
        dir_loaded = exe.run(main, feed={'x': X}, fetch_list=[h])[0]
    with fluid.scope_guard(fluid.Scope()):
        exe.run(startup)
        fluid.load(main, os.path.join(d, 'comb', 'params.bin'), exe, var_list=params)
        file_loaded = exe.run(main, feed={'x': X}, fetch_list=[h])[0]
    out = [np.array(sorted(state)), state['dw'], state['db_velocity_0'], np.array(sorted(picked)),
           picked['dw'], np.array(sorted(from_file)), from_file['db'], trained, dir_loaded, file_loaded]
finally:
    shutil.rmtree(d)
'''),
    ("sparse_embedding_padding_row_static", '''
W1 = rng.randn(6, 3).astype('float32')
W2 = rng.randn(6, 3).astype('float32')
IDS = np.array([[0, 1, 5, 2], [3, 0, 0, 5]], 'int64')
def build():
    ids = fluid.data('ids', [None, 4], 'int64')
    ids3 = fluid.data('ids3', [None, 4, 1], 'int64')
    e1 = fluid.embedding(ids, size=[6, 3], is_sparse=True, padding_idx=0, param_attr=fluid.ParamAttr(name='sw1', initializer=fluid.initializer.NumpyArrayInitializer(W1)))
    e2 = fluid.layers.embedding(ids3, size=[6, 3], is_sparse=True, padding_idx=-1, param_attr=fluid.ParamAttr(name='sw2', initializer=fluid.initializer.NumpyArrayInitializer(W2)))
    e3 = fluid.embedding(ids, size=[6, 3], padding_idx=2, param_attr='sw1')
    loss = fluid.layers.reduce_sum(fluid.layers.square(e1 + e2 + 1.0)) + fluid.layers.reduce_mean(e3)
    fluid.optimizer.SGD(0.1).minimize(loss)
    params = dict((p.name, p) for p in fluid.default_main_program().global_block().all_parameters())
    return [e1, e2, e3, loss, params['sw1'], params['sw2']]
out = static_run(build, {'ids': IDS, 'ids3': IDS.reshape(2, 4, 1)}, runs=2)
'''),
    ("traced_layer_save_fetch_subset_dygraph", '''
import shutil, tempfile
X = rng.randn(2, 6).astype('float32')
H = rng.randn(2, 2).astype('float32')
dirs = [tempfile.mkdtemp() for _ in range(3)]
try:
    with fluid.dygraph.guard():
        gru = fluid.dygraph.GRUUnit(6, param_attr=const(0.3), bias_attr=const(0.1))
        outs, traced = fluid.dygraph.TracedLayer.trace(gru, inputs=[fluid.dygraph.to_variable(X), fluid.dygraph.to_variable(H)])
        traced.save_inference_model(dirs[0], fetch=[2])
        traced.save_inference_model(dirs[1], fetch=[0, 1])
        traced.save_inference_model(dirs[2])
    exe = fluid.Executor(fluid.CPUPlace())
    out = [o.numpy() for o in outs]
    for d in dirs:
        with fluid.scope_guard(fluid.Scope()):
            prog, feeds, fetches = fluid.io.load_inference_model(d, exe)
            res = exe.run(prog, feed={feeds[0]: X * 2, feeds[1]: H}, fetch_list=fetches)
            out += [np.array(len(fetches))] + [np.asarray(r) for r in res]
finally:
    for d in dirs:
        shutil.rmtree(d)
'''),
    ("space_to_depth_dygraph_static", '''
def grads(shape, bs):
    x = fluid.dygraph.to_variable(rng.randn(*shape).astype('float32'))
    x.stop_gradient = False
    y = fluid.layers.space_to_depth(x, blocksize=bs)
    w = fluid.dygraph.to_variable(rng.randn(*y.shape).astype('float32'))
    fluid.layers.reduce_sum(y * w).backward()
    return [y, x.gradient()]
def f():
    return grads((1, 4, 2, 2), 2) + grads((2, 8, 4, 6), 2) + grads((2, 9, 3, 3), 3)
X = rng.randn(3, 8, 4, 2).astype('float32')
def build():
    d = fluid.data('d', [None, 8, 4, 2], 'float32')
    return fluid.layers.space_to_depth(d, 2)
out = dy(f) + [static_run(build, {'d': X})]
'''),
    ("layers_utils_nest", '''
import collections
u = fluid.layers.utils
P = collections.namedtuple('P', ['b', 'a'])
s = {'z': [1, (2, 3)], 'a': P(4, 5), 'm': 6}
flat = u.flatten(s)
packed = u.pack_sequence_as(s, [v * 10 for v in flat])
mapped = u.map_structure(lambda x, y: x + y, s, s)
errs = []
for a, b in [(s, s), ([1, 2], (1, 2)), ([1, [2]], [1, 2]), ({'a': 1}, {'b': 1}), ([1, (2,)], [3, (4,)])]:
    try:
        u.assert_same_structure(a, b)
        errs.append(0)
    except TypeError:
        errs.append(1)
    except ValueError:
        errs.append(2)
out = [np.array(flat), np.array(u.flatten(packed)), np.array(u.flatten(mapped)), np.array(u.flatten(u.pack_sequence_as(7, [8]))),
       np.array([type(packed['a']).__name__ == 'P', isinstance(packed['z'][1], tuple), u.is_sequence('ab'), u.is_sequence({}),
                 u.is_sequence(np.zeros(2)), u.is_sequence((1,))]), np.array(errs)]
'''),
    ("append_backward_sums_no_grad_term_static", '''
X = rng.uniform(-1, 1, size=(3, 5)).astype('float32')
W = rng.uniform(-0.5, 0.5, size=(5, 4)).astype('float32')
def build():
    x = fluid.data('x', [3, 5], 'float32')
    w = fluid.layers.create_parameter([5, 4], 'float32', name='ab_sums_w',
                                      default_initializer=fluid.initializer.NumpyArrayInitializer(W))
    v = fluid.layers.create_parameter([4], 'float32', name='ab_sums_v',
                                      default_initializer=fluid.initializer.Constant(0.5))
    h = fluid.layers.matmul(x, w)
    loss = fluid.layers.sums([fluid.layers.reduce_sum(fluid.layers.topk(h, k=2)[0]), fluid.layers.reduce_mean(h * v),
                              fluid.layers.reduce_sum(x)])
    pg = fluid.backward.append_backward(loss)
    only_w = fluid.backward.append_backward(fluid.layers.sums([fluid.layers.reduce_mean(h), fluid.layers.reduce_max(x)]),
                                            parameter_list=['ab_sums_w'])
    return [loss] + [g for p, g in pg] + [g for p, g in only_w]
out = static_run(build, {'x': X})
'''),
    ("variable_learning_rate_step_counter_static", '''
X = rng.uniform(-1, 1, size=(6, 4)).astype('float32')
Y = rng.uniform(-1, 1, size=(6, 1)).astype('float32')
W = rng.uniform(-0.5, 0.5, size=(4, 1)).astype('float32')
def build():
    x = fluid.data('x', [None, 4], 'float32'); y = fluid.data('y', [None, 1], 'float32')
    pred = fluid.layers.fc(x, 1, param_attr=fluid.ParamAttr(name='vlr_w', initializer=fluid.initializer.NumpyArrayInitializer(W)),
                           bias_attr=fluid.ParamAttr(name='vlr_b', initializer=fluid.initializer.Constant(0.1)))
    loss = fluid.layers.mean(fluid.layers.square_error_cost(pred, y))
    step = fluid.layers.learning_rate_scheduler._decay_step_counter()
    again = fluid.layers.learning_rate_scheduler._decay_step_counter()
    warmup = fluid.layers.elementwise_min(step / 3.0, fluid.layers.fill_constant([1], 'float32', 1.0))
    lr = 0.1 * warmup + 0.01
    fluid.optimizer.Adam(learning_rate=lr).minimize(loss)
    return [loss, step, again, lr, fluid.default_main_program().global_block().var('vlr_w')]
out = static_run(build, {'x': X, 'y': Y}, runs=5)
'''),
    ("shuffle_channel_grad_dygraph_static", '''
def grads(shape, group):
    x = fluid.dygraph.to_variable(rng.randn(*shape).astype('float32'))
    x.stop_gradient = False
    y = fluid.layers.shuffle_channel(x, group=group)
    w = fluid.dygraph.to_variable(rng.randn(*y.shape).astype('float32'))
    fluid.layers.reduce_sum(y * w).backward()
    return [y, x.gradient()]
def f():
    return grads((1, 8, 2, 2), 2) + grads((2, 12, 2, 1), 3) + grads((1, 4, 1, 2), 2)
X = rng.randn(2, 6, 2, 2).astype('float32')
W = rng.randn(2, 6, 2, 2).astype('float32')
def build():
    d = fluid.data('d', [None, 6, 2, 2], 'float32')
    d.stop_gradient = False
    y = fluid.layers.shuffle_channel(d, 3)
    loss = fluid.layers.reduce_sum(y * fluid.layers.assign(W))
    return [y, fluid.gradients(loss, d)[0]]
out = dy(f) + static_run(build, {'d': X})
'''),
    ("exponential_moving_average_static", '''
X = rng.uniform(-1, 1, size=(4, 6, 3)).astype('float32')
Y = rng.uniform(-1, 1, size=(4, 6, 1)).astype('float32')
W = rng.uniform(-0.5, 0.5, size=(3, 2)).astype('float32')
main, startup = fluid.Program(), fluid.Program()
with fluid.program_guard(main, startup):
    x = fluid.data('x', [None, 3], 'float32'); y = fluid.data('y', [None, 1], 'float32')
    h = fluid.layers.fc(x, 2, param_attr=fluid.ParamAttr(name='ema_w', initializer=fluid.initializer.NumpyArrayInitializer(W)),
                        bias_attr=fluid.ParamAttr(name='ema_b', initializer=fluid.initializer.Constant(0.1)))
    h = fluid.layers.batch_norm(h, moving_mean_name='ema_bn_mean', moving_variance_name='ema_bn_var')
    pred = fluid.layers.fc(h, 1, param_attr=fluid.ParamAttr(name='ema_w2', initializer=fluid.initializer.Constant(0.3)),
                           bias_attr=False)
    loss = fluid.layers.mean(fluid.layers.square_error_cost(pred, y))
    test = main.clone(for_test=True)
    fluid.optimizer.Momentum(learning_rate=0.1, momentum=0.9).minimize(loss)
    ema = fluid.optimizer.ExponentialMovingAverage(0.8)
    ema.update()
scope = fluid.Scope()
out = []
with fluid.scope_guard(scope):
    exe = fluid.Executor(fluid.CPUPlace())
    exe.run(startup)
    def var(name):
        return np.array(scope.find_var(name).get_tensor())
    with ema.apply(exe):
        out.append(var('ema_w'))  # no step yet: the shadow, 0
    for i in range(4):
        out += exe.run(main, feed={'x': X[i], 'y': Y[i]}, fetch_list=[loss])
        if i == 1:
            with ema.apply(exe):
                out += exe.run(test, feed={'x': X[0], 'y': Y[0]}, fetch_list=[loss])
                out += [var('ema_w'), var('ema_bn_mean')]
            out.append(var('ema_w'))
    with ema.apply(exe, need_restore=False):
        out += [var('ema_w'), var('ema_b'), var('ema_bn_var')]
    out.append(var('ema_w'))
    ema.restore(exe)
    out += [var('ema_w'), var('ema_w2')]
'''),
    ("eof_run_advances_decays_static", '''
S = [(rng.uniform(-1, 1, size=(4,)).astype('float32'), rng.uniform(-1, 1, size=(1,)).astype('float32')) for _ in range(5)]
main, startup = fluid.Program(), fluid.Program()
with fluid.program_guard(main, startup):
    with fluid.unique_name.guard():
        x = fluid.data('x', [None, 4], 'float32'); y = fluid.data('y', [None, 1], 'float32')
        loader = fluid.io.DataLoader.from_generator(feed_list=[x, y], capacity=4, iterable=False)
        pred = fluid.layers.fc(x, 1, param_attr=fluid.ParamAttr(name='eof_w', initializer=fluid.initializer.Constant(0.1)),
                               bias_attr=False)
        loss = fluid.layers.mean(fluid.layers.square_error_cost(pred, y))
        lr = fluid.layers.piecewise_decay(boundaries=[2, 4, 6], values=[0.1, 0.05, 0.02, 0.01])
        step = fluid.layers.learning_rate_scheduler._decay_step_counter()
        fluid.optimizer.SGD(learning_rate=lr).minimize(loss)
loader.set_sample_generator(lambda: iter(S), batch_size=2)
got = []
exe = fluid.Executor(fluid.CPUPlace())
exe.run(startup)
for epoch in range(3):
    loader.start()
    try:
        while True:
            got.append(exe.run(main, fetch_list=[loss, lr, step]))
    except fluid.core.EOFException:
        loader.reset()
w = np.array(fluid.global_scope().find_var('eof_w').get_tensor())
out = [np.concatenate([np.asarray(g[i]).ravel() for g in got]) for i in range(3)] + [w]
'''),
    ("profiler_calls_static", '''
import os, tempfile
from paddle.fluid import profiler
X = rng.uniform(-1, 1, size=(3, 4)).astype('float32')
path = os.path.join(tempfile.mkdtemp(), 'profile')
def build():
    x = fluid.data('x', [3, 4], 'float32')
    return fluid.layers.reduce_sum(fluid.layers.tanh(x), dim=1)
main, startup = fluid.Program(), fluid.Program()
with fluid.program_guard(main, startup):
    with fluid.unique_name.guard():
        y = build()
exe = fluid.Executor(fluid.CPUPlace())
exe.run(startup)
with profiler.profiler('CPU', 'total', path):
    a = exe.run(main, feed={'x': X}, fetch_list=[y])[0]
profiler.start_profiler('All')
b = exe.run(main, feed={'x': X * 2}, fetch_list=[y])[0]
profiler.reset_profiler()
c = exe.run(main, feed={'x': X * 3}, fetch_list=[y])[0]
profiler.stop_profiler('calls', path)
errors = []
for bad in (lambda: profiler.start_profiler('TPU'), lambda: profiler.profiler('CPU', 'bad').__enter__()):
    try:
        bad()
        errors.append(0)
    except ValueError:
        errors.append(1)
    finally:
        profiler.stop_profiler()
out = [a, b, c, np.array(errors)]
'''),
    ("concat_second_order_grad_static", '''
W1 = rng.uniform(-0.5, 0.5, (6, 5)).astype('float32')
W2 = rng.uniform(-0.5, 0.5, (5, 1)).astype('float32')
XV = rng.uniform(-1, 1, (3, 4)).astype('float32')
CV = rng.uniform(-1, 1, (3, 2)).astype('float32')
def build():
    x = fluid.data('x', [None, 4], 'float32')
    x.stop_gradient = False
    c = fluid.data('c', [None, 2], 'float32')
    h = fluid.layers.concat([x, c], axis=1)
    h = fluid.layers.fc(h, 5, param_attr=fluid.ParamAttr(name='cc_w1', initializer=fluid.initializer.NumpyArrayInitializer(W1)),
                        bias_attr=False)
    h = fluid.layers.leaky_relu(h, alpha=0.2)
    y = fluid.layers.fc(h, 1, param_attr=fluid.ParamAttr(name='cc_w2', initializer=fluid.initializer.NumpyArrayInitializer(W2)),
                        bias_attr=False)
    g = fluid.gradients(y, x)[0]
    gp = fluid.layers.reduce_mean(fluid.layers.square(fluid.layers.sqrt(
        fluid.layers.reduce_sum(fluid.layers.square(g), dim=1) + 1e-12) - 1.0))
    fluid.optimizer.SGD(learning_rate=0.1).minimize(gp)
    return [gp, g, fluid.default_main_program().global_block().var('cc_w1')]
out = static_run(build, {'x': XV, 'c': CV}, runs=3)
'''),
    ("layers_rnn_cells_static", '''
X = rng.uniform(-1, 1, size=(3, 4, 5)).astype('float32')
L = np.array([4, 2, 3], dtype='int64')
class AddCell(fluid.layers.RNNCell):
    def __init__(self, size):
        self.size = size
    def call(self, inputs, states):
        new = fluid.layers.tanh(fluid.layers.fc(inputs, self.size, param_attr=fluid.ParamAttr(initializer=fluid.initializer.Constant(0.2)), bias_attr=False) + states * 0.5)
        return new * 2.0, new
    @property
    def state_shape(self):
        return [self.size]
def build():
    x = fluid.data('x', [None, 4, 5], 'float32')
    x.stop_gradient = False
    lens = fluid.data('lens', [None], 'int64')
    gru = fluid.layers.GRUCell(6, param_attr=fluid.ParamAttr(initializer=fluid.initializer.Constant(0.1)))
    lstm = fluid.layers.LSTMCell(hidden_size=6, param_attr=fluid.ParamAttr(initializer=fluid.initializer.Constant(-0.05)), forget_bias=0.5)
    g_out, g_state = fluid.layers.rnn(gru, x, sequence_length=lens)
    l_out, (l_h, l_c) = fluid.layers.rnn(cell=lstm, inputs=x, sequence_length=lens, is_reverse=True)
    tm_out, tm_state = fluid.layers.rnn(gru, fluid.layers.transpose(x, [1, 0, 2]), time_major=True)
    a_out, a_state = fluid.layers.rnn(AddCell(3), x, initial_states=fluid.layers.fill_constant_batch_size_like(x, [-1, 3], 'float32', 0.25))
    total = fluid.layers.reduce_sum(g_out) + fluid.layers.reduce_sum(l_c) + fluid.layers.reduce_sum(a_out)
    grad = fluid.gradients(total, x)[0]
    return [g_out, g_state, l_out, l_h, l_c, tm_out, tm_state, a_out, a_state, grad]
out = static_run(build, {'x': X, 'lens': L})
'''),
    ("distributed_batch_reader_env", '''
import os
from paddle.fluid.contrib.reader import distributed_batch_reader
def batches():
    for i in range(7):
        yield [i, i * 10]
out = [np.array(list(fluid.contrib.distributed_batch_reader(batches)()))]
saved = {k: os.environ.get(k) for k in ('PADDLE_TRAINERS_NUM', 'PADDLE_TRAINER_ID')}
try:
    for n, k in [(2, 0), (2, 1), (3, 2)]:
        os.environ['PADDLE_TRAINERS_NUM'], os.environ['PADDLE_TRAINER_ID'] = str(n), str(k)
        out.append(np.array(list(distributed_batch_reader(batches)())))
finally:
    for k, v in saved.items():
        if v is None:
            os.environ.pop(k, None)
        else:
            os.environ[k] = v
'''),
    ("executor_infra_static", '''
X = rng.randn(4, 3).astype('float32')
main, startup = fluid.Program(), fluid.Program()
with fluid.program_guard(main, startup):
    x = fluid.data('x', [None, 3], 'float32')
    y = fluid.layers.fc(x, 2, param_attr=fluid.ParamAttr(name='pe_w', initializer=fluid.initializer.Constant(0.3)), bias_attr=False)
    loss = fluid.layers.reduce_mean(y * y)
    fluid.optimizer.SGD(0.1).minimize(loss)
fluid.memory_optimize(main, print_log=False)
fluid.release_memory(main)
bs = fluid.BuildStrategy()
bs.enable_sequential_execution = True
bs.remove_unnecessary_lock = False
bs.is_distribution = False
bs.gradient_scale_strategy = fluid.BuildStrategy.GradientScaleStrategy.One
scope = fluid.Scope()
with fluid.scope_guard(scope):
    exe = fluid.Executor(fluid.CPUPlace())
    exe.run(startup)
    pe = fluid.ParallelExecutor(use_cuda=False, loss_name=loss.name, main_program=main, build_strategy=bs)
    losses = [pe.run(fetch_list=[loss.name], feed={'x': X})[0] for _ in range(3)]
    w = fluid.executor._fetch_var('pe_w')
    t = fluid.executor._fetch_var('pe_w', scope=scope, return_numpy=False)
out = losses + [w, np.array(t), np.array([pe.device_count])]
'''),
    ("memory_usage_estimate_static", '''
main, startup = fluid.Program(), fluid.Program()
with fluid.program_guard(main, startup):
    with fluid.unique_name.guard():
        x = fluid.data('x', [None, 13], 'float32')
        y = fluid.data('y', [None, 1], 'float32')
        h = fluid.layers.fc(x, 64, act='relu')
        p = fluid.layers.fc(h, 1)
        loss = fluid.layers.mean(fluid.layers.square_error_cost(p, y))
        fluid.optimizer.SGD(0.01).minimize(loss)
lo, hi, unit = fluid.contrib.memory_usage(program=main, batch_size=32)
empty = fluid.contrib.memory_usage(fluid.Program(), 4)
# an estimate: today's program has other operators, the magnitude and the unit agree
out = [np.array([int(lo), int(hi)]), np.array([unit == 'KB', empty[2] == 'B', empty[0] == 0.0])]
'''),
]


def _worker(out_path, only=None):
    """Runs inside the legacy interpreter: execute every snippet (or those named in
    ``only``), dump the outputs."""
    import numpy as np
    import paddle.fluid as fluid
    records = {}
    for name, code in SNIPPETS:
        if only is not None and name not in only:
            continue
        ns = {"fluid": fluid, "__name__": "__snippet__"}
        try:
            exec(compile(PRELUDE + code, "<snippet %s>" % name, "exec"), ns)
            out = ns["out"]
            items = out if isinstance(out, (list, tuple)) else [out]
            rows = []
            for item in items:
                a = np.asarray(item.numpy() if hasattr(item, "numpy") else item)
                rows.append({"shape": list(a.shape), "dtype": str(a.dtype),
                             "values": a.ravel().tolist()})
            records[name] = {"code": code, "sequence": isinstance(out, (list, tuple)),
                             "outputs": rows}
            model = ns.get("model")
            if model:  # numpy model of the 1.x semantics, checked against 1.8.5 too
                records[name]["model"] = {str(i): {"shape": list(np.shape(v)), "dtype": str(np.asarray(v).dtype),
                                                   "values": np.asarray(v).ravel().tolist()}
                                          for i, v in model.items()}
        except Exception:
            records[name] = {"code": code, "error": traceback.format_exc()}
        if fluid.in_dygraph_mode():  # a failure inside dygraph.guard leaves 1.8 in dygraph
            fluid.disable_dygraph()
    api = _legacy_api()
    with open(out_path, "w") as f:
        json.dump({"paddle": __import__("paddle").__version__, "snippets": records, "api": api}, f)


API_MODULES = [
    "paddle.fluid", "paddle.fluid.layers", "paddle.fluid.dygraph", "paddle.fluid.optimizer",
    "paddle.fluid.initializer", "paddle.fluid.regularizer", "paddle.fluid.io",
    "paddle.fluid.framework", "paddle.fluid.executor", "paddle.fluid.unique_name",
    "paddle.fluid.clip", "paddle.fluid.metrics", "paddle.fluid.param_attr",
    "paddle.fluid.dygraph.nn", "paddle.fluid.dygraph.base", "paddle.fluid.dygraph.jit",
    "paddle.fluid.dygraph.parallel", "paddle.fluid.dygraph.learning_rate_scheduler",
    "paddle.fluid.dygraph.checkpoint", "paddle.fluid.dygraph.container",
    "paddle.fluid.dygraph.layers", "paddle.fluid.layers.nn", "paddle.fluid.layers.tensor",
    "paddle.fluid.layers.loss", "paddle.fluid.layers.ops", "paddle.fluid.layers.control_flow",
    "paddle.fluid.layers.learning_rate_scheduler", "paddle.fluid.layers.io",
    "paddle.fluid.layers.metric_op", "paddle.fluid.compiler", "paddle.fluid.data_feeder",
    "paddle.fluid.reader", "paddle.fluid.backward", "paddle.fluid.nets",
    "paddle.fluid.lod_tensor", "paddle.fluid.input", "paddle.fluid.contrib.mixed_precision",
    "paddle.fluid.incubate.fleet.base.role_maker",
]


def _legacy_api():
    import importlib
    out = {}
    for m in API_MODULES:
        mod = importlib.import_module(m)
        names = getattr(mod, "__all__", None) or [n for n in dir(mod) if not n.startswith("_")]
        entries = {}
        for n in sorted(set(names)):
            obj = getattr(mod, n, None)
            if obj is None:
                continue
            kind = ("module" if inspect.ismodule(obj) else "class" if inspect.isclass(obj)
                    else "function" if callable(obj) else "constant")
            sig = None
            try:
                if kind == "class":
                    sig = str(inspect.signature(obj.__init__))
                elif kind == "function":
                    sig = str(inspect.signature(obj))
            except (TypeError, ValueError):
                pass
            entries[n] = {"kind": kind, "signature": sig}
        out[m] = entries
    return out


def _record(python, only=None):
    import tempfile
    fd, tmp = tempfile.mkstemp(suffix=".json")
    os.close(fd)
    try:
        env = dict(os.environ, GLOG_minloglevel="2", PYTHONHASHSEED="0")
        cmd = [python, os.path.abspath(__file__), "--worker", tmp]
        if only:
            cmd += ["--only", ",".join(only)]
        subprocess.check_call(cmd, cwd=tempfile.gettempdir(), env=env)
        with open(tmp) as f:
            return json.load(f)
    finally:
        os.unlink(tmp)


def _same(a, b):
    if a.get("error") or b.get("error") or len(a["outputs"]) != len(b["outputs"]):
        return False
    for x, y in zip(a["outputs"], b["outputs"]):
        if x["shape"] != y["shape"] or x["dtype"] != y["dtype"]:
            return False
        for u, v in zip(x["values"], y["values"]):
            if isinstance(u, float) or isinstance(v, float):
                if abs(u - v) > ATOL + RTOL * abs(u):
                    return False
            elif u != v:
                return False
    return True


def _difference(a, b):
    """Where recording ``b`` departs from golden ``a``, in words (for the drift report)."""
    if a.get("error") or b.get("error"):
        return "error: %s" % (b.get("error") or a.get("error")).strip().splitlines()[-1]
    if len(a["outputs"]) != len(b["outputs"]):
        return "%d outputs, golden has %d" % (len(b["outputs"]), len(a["outputs"]))
    parts = []
    for i, (x, y) in enumerate(zip(a["outputs"], b["outputs"])):
        if x["shape"] != y["shape"] or x["dtype"] != y["dtype"]:
            parts.append("output %d: %s %s, golden %s %s" % (i, y["shape"], y["dtype"], x["shape"], x["dtype"]))
            continue
        worst = None
        for k, (u, v) in enumerate(zip(x["values"], y["values"])):
            if isinstance(u, float) or isinstance(v, float):
                over = abs(u - v) / (ATOL + RTOL * abs(u))
            else:
                over = 0.0 if u == v else float("inf")
            if over > 1 and (worst is None or over > worst[0]):
                worst = (over, k, u, v)
        if worst:
            parts.append("output %d[%d]: %r, golden %r (%.3g x tolerance)" % (i, worst[1], worst[3], worst[2], worst[0]))
    return "; ".join(parts)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--python", default=LEGACY_PYTHON, help="the Paddle 1.8.5 interpreter")
    ap.add_argument("--verify", action="store_true", help="re-run and compare, write nothing")
    ap.add_argument("--worker", help=argparse.SUPPRESS)
    ap.add_argument("--only", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.worker:
        _worker(args.worker, args.only.split(",") if args.only else None)
        sys.stdout.flush()
        os._exit(0)  # 1.8's reader threads can abort a normal interpreter shutdown
    got = _record(args.python)
    if not got["paddle"].startswith("1.8"):
        print("error: %s runs Paddle %s, not 1.8" % (args.python, got["paddle"]), file=sys.stderr)
        return 2
    failed = [n for n, r in got["snippets"].items() if "error" in r]
    for n in failed:
        print("error: snippet %s fails on Paddle %s:\n%s" % (n, got["paddle"], got["snippets"][n]["error"]),
              file=sys.stderr)
    if failed:
        return 1
    snippets = {"engine": "paddlepaddle %s" % got["paddle"], "rtol": RTOL, "atol": ATOL,
                "prelude": PRELUDE, "snippets": got["snippets"]}
    api = {"engine": "paddlepaddle %s" % got["paddle"], "modules": got["api"]}
    if args.verify:
        with open(SNIPPETS_FILE) as f:
            old = json.load(f)
        drift = [n for n in got["snippets"] if n not in old["snippets"]
                 or not _same(old["snippets"][n], got["snippets"][n])]
        if drift:
            # A snippet runs after all those before it in one interpreter; 1.8.5 keeps
            # process-wide state (scopes, name counters, allocator). A drifted snippet is
            # run again alone in a fresh interpreter: matching there means the golden is
            # what 1.8.5 computes for that code, and the sequence is reported, not failed.
            alone = _record(args.python, only=drift)["snippets"]
            for n in drift:
                if n not in old["snippets"]:
                    continue
                print("note: %s drifted after the snippets before it (%s); alone: %s" % (
                    n, _difference(old["snippets"][n], got["snippets"][n]),
                    "matches" if _same(old["snippets"][n], alone[n])
                    else _difference(old["snippets"][n], alone[n])), file=sys.stderr)
            drift = [n for n in drift if n not in old["snippets"]
                     or not _same(old["snippets"][n], alone[n])]
        for n in drift:
            print("drift: %s" % n, file=sys.stderr)
        print("%d snippets verified, %d drifted" % (len(got["snippets"]), len(drift)))
        return 1 if drift else 0
    if not os.path.isdir(OUT_DIR):
        os.makedirs(OUT_DIR)
    for path, data in ((SNIPPETS_FILE, snippets), (API_FILE, api)):
        with open(path, "w") as f:
            json.dump(data, f, indent=1, sort_keys=True)
            f.write("\n")
    print("recorded %d snippets and %d modules into %s" % (len(got["snippets"]), len(got["api"]), OUT_DIR))
    return 0


if __name__ == "__main__":
    sys.exit(main())
