"""Every ``# TODO(paddle-upgrade): PUxxx`` that fix writes stays a finding: `check` of the
upgraded code, the fix summary and the exit codes count it, also where the engine can no
longer recognise the follow-up in the modern code around it (runner._todo_findings)."""
import collections
import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
OUTS = sorted(ROOT.glob("fixtures/PU*/*.out.py"))
CLI = [sys.executable, "-m", "upgrader.cli"]


def _run(*args, cwd):
    return subprocess.run(CLI + list(args), cwd=cwd, capture_output=True, text=True)


def test_every_todo_of_the_fixture_outputs_is_reported(tmp_path):
    for i, p in enumerate(OUTS):
        shutil.copy(p, tmp_path / f"{i:03d}_{p.parent.name}_{p.name}")
    res = _run("check", "--no-cache", "--format", "json", ".", cwd=tmp_path)
    data = json.loads(res.stdout)
    assert not data["errors"]
    found = collections.defaultdict(collections.Counter)
    for f in data["findings"]:
        found[Path(f["path"]).name][f["code"]] += 1
    missing = []
    for f in sorted(tmp_path.glob("*.py")):
        todos = collections.Counter(re.findall(r"TODO\(paddle-upgrade\): (PU\d+)", f.read_text()))
        for code, n in todos.items():
            if found[f.name][code] < n:
                missing.append(f"{f.name}: {n} TODO {code}, {found[f.name][code]} finding(s)")
    assert not missing, missing


LEGACY = '''import paddle.fluid as fluid
main = fluid.Program()
with fluid.program_guard(main):
    x = fluid.data(name='x', shape=[2], dtype='float32')
exe = fluid.Executor(fluid.CPUPlace())
res = exe.run(main, feed={'x': 1}, fetch_list=['xcopy'])
'''


def test_fix_counts_a_followup_only_its_todo_shows(tmp_path):
    (tmp_path / "prog.py").write_text(LEGACY)
    res = _run("fix", "--no-cache", "prog.py", cwd=tmp_path)
    assert res.returncode == 1, res.stdout + res.stderr
    assert "1 left for manual follow-up" in res.stdout + res.stderr
    text = (tmp_path / "prog.py").read_text()
    assert "TODO(paddle-upgrade): PU211" in text
    check = _run("check", "--no-cache", "prog.py", cwd=tmp_path)
    assert check.returncode == 1 and "PU211" in check.stdout
    # the follow-up done by hand (and its TODO removed): clean
    done = "\n".join(l for l in text.splitlines() if "TODO(paddle-upgrade)" not in l)
    (tmp_path / "prog.py").write_text(done.replace("['xcopy']", "[x]") + "\n")
    assert _run("check", "--no-cache", "prog.py", cwd=tmp_path).returncode == 0


def test_a_todo_the_engine_cannot_see_is_reported_at_its_statement(tmp_path):
    (tmp_path / "m.py").write_text(
        "import paddle\n\n\ndef f(opt, loss):\n"
        "    # TODO(paddle-upgrade): PU207 something to do by hand (paddle-upgrade explain PU207)\n"
        "\n    opt.minimize(loss)\n")
    res = _run("check", "--no-cache", "--format", "json", "m.py", cwd=tmp_path)
    f, = json.loads(res.stdout)["findings"]
    assert (f["line"], f["column"], f["code"], f["fix"]) == (7, 5, "PU207", "manual")
    assert f["message"].endswith("something to do by hand")
    assert res.returncode == 1
    ignored = _run("check", "--no-cache", "--ignore", "PU207", "m.py", cwd=tmp_path)
    assert ignored.returncode == 0


def test_an_unsafe_fix_applied_later_takes_its_todo_along(tmp_path):
    """fix leaves a TODO on an unsafe rewrite; fix --unsafe-fixes applies it and removes
    that TODO, and keeps the TODO of a follow-up it still cannot do."""
    src = tmp_path / "prog.py"
    src.write_text("import paddle.fluid as fluid\n"
                   "x = fluid.data('x', [None, 3])\n"
                   "y = fluid.layers.round(x)\n"
                   "z = fluid.layers.sequence_pool(x, 'sum')\n")
    assert _run("fix", "prog.py", cwd=tmp_path).returncode == 1
    first = src.read_text()
    assert "TODO(paddle-upgrade): PU103 `fluid.layers.round`" in first
    assert "TODO(paddle-upgrade): PU102 `fluid.layers.sequence_pool`" in first
    _run("fix", "--unsafe-fixes", "prog.py", cwd=tmp_path)
    second = src.read_text()
    assert "y = paddle.round(x)" in second
    assert "PU103" not in second
    assert "TODO(paddle-upgrade): PU102 `fluid.layers.sequence_pool`" in second
    res = _run("check", "--no-cache", "--format", "json", "prog.py", cwd=tmp_path)
    assert [f["code"] for f in json.loads(res.stdout)["findings"]] == ["PU102"]
