"""1.x ``Optimizer.minimize`` corners in static graphs, against the real Paddle 1.8.5.

Each program runs on 1.8.5 (``.venv-legacy``) and unmodified through
``python -m compat``; the printed results (parameters after training, which program
received the optimizer's ops, which (param, grad) pairs came back) must be equal.

- ``minimize`` called after leaving the ``program_guard`` that built the loss: 1.8.5
  appends to the loss's program and initializes the optimizer's variables in the
  ``startup_program`` argument, else in the startup program current at the call.
- parameter names (strings, alone or mixed with variables) in ``parameter_list`` and
  ``no_grad_set`` of ``minimize``, ``Optimizer.backward``, ``fluid.backward.append_backward``
  and ``fluid.gradients``; a name the program lacks is ignored, and ``append_backward``
  leaves out the parameters that get no gradient.
- in dygraph mode 1.8.5's ``minimize``/``backward`` ignored both arguments (names or
  variables): every parameter of the optimizer's own ``parameter_list`` with a gradient
  is updated.
"""
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
LEGACY_PY = ROOT / ".venv-legacy" / "bin" / "python"
MARK = "RESULT "

MINIMIZE_OUTSIDE_GUARD = r'''
import json
import numpy as np
import paddle.fluid as fluid


def build(main, startup, name):
    with fluid.program_guard(main, startup):
        x = fluid.data(name='x', shape=[None, 2], dtype='float32')
        y = fluid.layers.fc(x, 1, param_attr=fluid.ParamAttr(
            name=name, initializer=fluid.initializer.Constant(0.5)), bias_attr=False)
        return fluid.layers.mean(fluid.layers.square(y))


def nops(prog):
    return len(prog.global_block().ops)


def value(name):
    return np.array(fluid.global_scope().find_var(name).get_tensor()).tolist()


out = {}
exe = fluid.Executor(fluid.CPUPlace())
feed = {'x': np.array([[1.0, 2.0], [3.0, -1.0]], 'float32')}

# explicit startup program, minimize after the guard
main, startup = fluid.Program(), fluid.Program()
loss = build(main, startup, 'w1')
n_main = nops(main)
fluid.optimizer.SGD(learning_rate=0.1).minimize(loss, startup_program=startup)
out['sgd_main_grew'] = nops(main) > n_main
out['sgd_default_main_empty'] = nops(fluid.default_main_program()) == 0
exe.run(startup)
for _ in range(3):
    exe.run(main, feed=feed)
out['sgd_w'] = value('w1')

# startup_program=None: the optimizer's variables are initialized by the default startup
main, startup = fluid.Program(), fluid.Program()
loss = build(main, startup, 'w2')
n_start, n_def = nops(startup), nops(fluid.default_startup_program())
fluid.optimizer.Adam(learning_rate=0.1).minimize(loss)
out['adam_startup_grew'] = nops(startup) > n_start
out['adam_default_startup_grew'] = nops(fluid.default_startup_program()) > n_def
out['adam_default_main_empty'] = nops(fluid.default_main_program()) == 0
exe.run(startup)
exe.run(fluid.default_startup_program())
for _ in range(3):
    exe.run(main, feed=feed)
out['adam_w'] = value('w2')

# inside another guard: the loss's program, that guard's startup program
main, startup = fluid.Program(), fluid.Program()
loss = build(main, startup, 'w3')
other_main, other_startup = fluid.Program(), fluid.Program()
n_start = nops(startup)
with fluid.program_guard(other_main, other_startup):
    fluid.optimizer.Momentum(learning_rate=0.1, momentum=0.9).minimize(loss)
out['mom_startup_grew'] = nops(startup) > n_start
out['mom_other_startup_grew'] = nops(other_startup) > 0
out['mom_other_main_empty'] = nops(other_main) == 0
exe.run(startup)
exe.run(other_startup)
for _ in range(3):
    exe.run(main, feed=feed)
out['mom_w'] = value('w3')
print('RESULT ' + json.dumps(out, sort_keys=True))
'''

NAMES = r'''
import json
import numpy as np
import paddle.fluid as fluid

out = {}
exe = fluid.Executor(fluid.CPUPlace())
feed = {'x': np.array([[1.0, 2.0], [3.0, -1.0]], 'float32')}


def build(tag):
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup):
        x = fluid.data(name='x', shape=[None, 2], dtype='float32')
        h = fluid.layers.fc(x, 2, param_attr=fluid.ParamAttr(
            name=tag + '_a', initializer=fluid.initializer.Constant(0.5)), bias_attr=fluid.ParamAttr(
            name=tag + '_ab', initializer=fluid.initializer.Constant(0.1)))
        y = fluid.layers.fc(h, 1, param_attr=fluid.ParamAttr(
            name=tag + '_b', initializer=fluid.initializer.Constant(-0.5)), bias_attr=False)
        loss = fluid.layers.mean(fluid.layers.square(y))
    return main, startup, loss


def pairs(pg):
    return [[p.name, g is not None] for p, g in pg]


def train(tag, make_opt, **kw):
    main, startup, loss = build(tag)
    with fluid.program_guard(main, startup):
        kw = dict((k, v(main) if callable(v) else v) for k, v in kw.items())
        ops, pg = make_opt().minimize(loss, **kw)
    exe.run(startup)
    for _ in range(3):
        exe.run(main, feed=feed)
    vals = dict((n, np.array(fluid.global_scope().find_var(tag + n).get_tensor()).tolist())
                for n in ('_a', '_ab', '_b'))
    out[tag] = {'pairs': sorted(pairs(pg)), 'values': vals}


sgd = lambda: fluid.optimizer.SGD(learning_rate=0.1)
adam = lambda: fluid.optimizer.Adam(learning_rate=0.1)
var = lambda name: (lambda main: main.global_block().var(name))
train('pn', sgd, parameter_list=['pn_b'])
train('pn2', adam, parameter_list=['pn2_b', 'pn2_ab'])
train('pmix', sgd, parameter_list=lambda m: ['pmix_a', m.global_block().var('pmix_b')])
train('punk', sgd, parameter_list=['no_such_param'])
train('punk2', sgd, parameter_list=['no_such_param', 'punk2_a'])
train('ng', sgd, no_grad_set=set(['ng_a']))
train('ng2', adam, no_grad_set=['ng2_a', 'ng2_ab', 'no_such_var'])
train('ngmix', sgd, no_grad_set=lambda m: set(['ngmix_a', m.global_block().var('ngmix_b')]))
train('both', sgd, parameter_list=['both_a', 'both_b'], no_grad_set=set(['both_b']))

# Optimizer.backward + apply_gradients
main, startup, loss = build('bw')
with fluid.program_guard(main, startup):
    opt = fluid.optimizer.SGD(learning_rate=0.1)
    pg = opt.backward(loss, parameter_list=['bw_a', 'bw_b'], no_grad_set=set(['bw_a']))
    out['bw_pairs'] = sorted(pairs(pg))
    opt.apply_gradients(pg)
exe.run(startup)
exe.run(main, feed=feed)
out['bw_values'] = [np.array(fluid.global_scope().find_var(n).get_tensor()).tolist()
                    for n in ('bw_a', 'bw_ab', 'bw_b')]

# fluid.backward.append_backward / fluid.gradients with names
main, startup, loss = build('ab')
with fluid.program_guard(main, startup):
    pg = fluid.backward.append_backward(loss, parameter_list=['ab_a', 'ab_b'],
                                        no_grad_set=set(['ab_b']))
    x = main.global_block().var('x')
exe.run(startup)
out['ab_pairs'] = sorted(pairs(pg))
got = exe.run(main, feed=feed, fetch_list=[g for p, g in pg if g is not None])
out['ab_grads'] = [np.array(g).tolist() for g in got]

main, startup, loss = build('gr')
with fluid.program_guard(main, startup):
    x = main.global_block().var('x')
    x.stop_gradient = False
    gs = fluid.gradients([loss], [x], no_grad_set=set(['gr_a', 'gr_ab']))
exe.run(startup)
out['gr_grads'] = [np.array(g).tolist() for g in exe.run(main, feed=feed, fetch_list=gs)]
print('RESULT ' + json.dumps(out, sort_keys=True))
'''

DYGRAPH_IGNORES_LISTS = r'''
import json
import numpy as np
import paddle.fluid as fluid

out = {}


def case(tag, make_opt, call, steps=2):
    with fluid.dygraph.guard():
        a = fluid.dygraph.Linear(2, 2, param_attr=fluid.ParamAttr(
            name=tag + '_a', initializer=fluid.initializer.Constant(0.5)), bias_attr=False)
        b = fluid.dygraph.Linear(2, 1, param_attr=fluid.ParamAttr(
            name=tag + '_b', initializer=fluid.initializer.Constant(-0.5)), bias_attr=False)
        opt = make_opt(a.parameters() + b.parameters())
        x = fluid.dygraph.to_variable(np.array([[1.0, 2.0], [3.0, -1.0]], 'float32'))
        for _ in range(steps):
            loss = fluid.layers.mean(fluid.layers.square(b(a(x))))
            loss.backward()
            pg = call(opt, loss, a, b)
            a.clear_gradients()
            b.clear_gradients()
        out[tag] = {'pairs': sorted(p.name for p, g in pg),
                    'a': a.weight.numpy().tolist(), 'b': b.weight.numpy().tolist()}


sgd = lambda ps: fluid.optimizer.SGD(learning_rate=0.1, parameter_list=ps)
adam = lambda ps: fluid.optimizer.Adam(learning_rate=0.1, parameter_list=ps)
case('pn', sgd, lambda o, l, a, b: o.minimize(l, parameter_list=[b.weight.name])[1])
case('pv', adam, lambda o, l, a, b: o.minimize(l, parameter_list=b.parameters())[1])
case('nn', adam, lambda o, l, a, b: o.minimize(l, no_grad_set=set([a.weight.name]))[1])
case('nv', sgd, lambda o, l, a, b: o.minimize(l, no_grad_set=set(a.parameters()))[1])


def backward_apply(o, l, a, b):
    pg = o.backward(l, parameter_list=b.parameters(), no_grad_set=set(b.parameters()))
    o.apply_gradients(pg)
    return pg


case('bw', sgd, backward_apply)
print('RESULT ' + json.dumps(out, sort_keys=True))
'''

PROGRAMS = {
    "dygraph_ignores_lists": DYGRAPH_IGNORES_LISTS,
    "minimize_outside_guard": MINIMIZE_OUTSIDE_GUARD,
    "names": NAMES,
}


def _run(cmd, tmp_path):
    env = dict(os.environ, PYTHONPATH=str(ROOT), GLOG_minloglevel="2", PYTHONWARNINGS="ignore")
    proc = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=600,
                          cwd=str(tmp_path))
    assert proc.returncode == 0, proc.stderr[-3000:]
    lines = [l for l in proc.stdout.splitlines() if l.startswith(MARK)]
    assert len(lines) == 1, proc.stdout[-3000:]
    return json.loads(lines[0][len(MARK):])


def _legacy():
    if not LEGACY_PY.exists():
        if os.environ.get("PADDLE_UPGRADE_REQUIRE_LEGACY") == "1":
            pytest.fail(f"{LEGACY_PY} is missing [PADDLE_UPGRADE_REQUIRE_LEGACY=1]")
        pytest.skip(".venv-legacy (Paddle 1.8.5) is not installed")
    return str(LEGACY_PY)


@pytest.mark.legacy
@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_same_as_paddle_1_8_5(name, tmp_path):
    legacy = _legacy()
    prog = tmp_path / (name + ".py")
    prog.write_text(PROGRAMS[name])
    golden = _run([legacy, str(prog)], tmp_path)
    got = _run([sys.executable, "-m", "compat", str(prog)], tmp_path)
    assert got == golden
