"""PU220: ``layer.eval()`` in a 1.8 dygraph file that trains afterwards and never calls
``train()`` (upgrader/fixers/layer_eval_mode.py). 1.8.5's eval() switched the whole tracer
to eval mode (no gradients until a train() call): the program dygraph_gru_attention shows
it on 1.8.5 (a model trained after another model's eval() keeps its loss), compat keeps it."""
from upgrader import upgrade_source

HEAD = "import numpy as np\nimport paddle.fluid as fluid\n"
TRAIN = ("    loss = fluid.layers.mean(net(x))\n    loss.backward()\n"
         "    opt.minimize(loss)\n    net.clear_gradients()\n")
SETUP = ("net = fluid.dygraph.Linear(2, 1)\n"
         "opt = fluid.optimizer.SGD(learning_rate=0.1, parameter_list=net.parameters())\n"
         "x = fluid.dygraph.to_variable(np.ones([2, 2], 'float32'))\n")


def _lines(code, fix=False):
    res = upgrade_source(HEAD + code, fix=fix)
    return [f.line - 2 for f in res.findings if f.code == "PU220"], res


def test_eval_before_training_without_train_is_reported():
    got, _ = _lines(SETUP + "net.eval()\nfor i in range(2):\n" + TRAIN)
    assert got == [4]


def test_eval_in_a_function_called_before_training():
    code = ("def check(m):\n    m.eval()\n    return m(x)\n" + SETUP +
            "check(net)\nfor i in range(2):\n" + TRAIN)
    assert _lines(code)[0] == [2]


def test_eval_inside_the_training_loop():
    code = SETUP + "for i in range(2):\n" + TRAIN + "    net.eval()\n"
    assert _lines(code)[0] == [9]


def test_a_train_call_anywhere_silences_it():
    code = SETUP + "net.eval()\nnet.train()\nfor i in range(2):\n" + TRAIN
    assert _lines(code)[0] == []


def test_eval_after_the_last_training_step_is_not_reported():
    code = SETUP + "for i in range(2):\n" + TRAIN + "net.eval()\nprint(net(x).numpy())\n"
    assert _lines(code)[0] == []


def test_no_backward_no_report_and_metric_eval_values_are_ignored():
    assert _lines(SETUP + "net.eval()\nprint(net(x).numpy())\n")[0] == []
    code = SETUP + "acc = fluid.metrics.Accuracy()\nv = acc.eval()\nfor i in range(2):\n" + TRAIN
    assert _lines(code)[0] == []


def test_modern_code_is_not_reported_and_the_todo_stays():
    code = SETUP + "net.eval()\nfor i in range(2):\n" + TRAIN
    _, res = _lines(code, fix=True)
    assert "TODO(paddle-upgrade): PU220" in res.code and "paddle.fluid" not in res.code
    again = upgrade_source(res.code)
    assert again.code == res.code and not [f for f in again.findings if f.code == "PU220"]


def test_check_of_the_upgraded_file_still_reports_the_followup(tmp_path):
    # no legacy name is left after fix: the TODO alone keeps the file a candidate
    import subprocess
    import sys
    (tmp_path / "prog.py").write_text(HEAD + SETUP + "net.eval()\nfor i in range(2):\n" + TRAIN)
    cli = [sys.executable, "-m", "upgrader.cli"]
    fixed = subprocess.run(cli + ["fix", "--no-cache", "prog.py"], cwd=tmp_path,
                           capture_output=True, text=True)
    text = (tmp_path / "prog.py").read_text()
    assert fixed.returncode == 1 and "fluid" not in text.replace("TODO", ""), fixed.stdout
    check = subprocess.run(cli + ["check", "--no-cache", "."], cwd=tmp_path,
                           capture_output=True, text=True)
    assert check.returncode == 1 and "PU220" in check.stdout, check.stdout + check.stderr
