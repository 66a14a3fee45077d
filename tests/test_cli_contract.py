"""The command line as a user and an external checker see it (DESIGN.md, CLI contract):
exit codes, the JSON finding shape, errors reported per file while the others proceed."""
import json
import os
import subprocess
import sys

LEGACY = "import paddle.fluid as fluid\nx = fluid.layers.relu(y)\n"


def _cli(*args, cwd):
    return subprocess.run([sys.executable, "-m", "upgrader.cli", *args], capture_output=True,
                          text=True, cwd=cwd)


def _json(r):
    return json.loads(r.stdout)


def test_deeply_nested_code_is_an_error_of_that_file_not_a_crash(tmp_path):
    # libcst's native parser overflowed the stack (segmentation fault, the run died
    # without a report) on a few thousand nested brackets or a long operator chain
    (tmp_path / "deep.py").write_text(
        "import paddle.fluid as fluid\nx = " + "(" * 3000 + "1" + ")" * 3000 + "\n")
    (tmp_path / "chain.py").write_text(
        "import paddle.fluid as fluid\nx = " + "+".join(["a"] * 4000) + "\n")
    (tmp_path / "ok.py").write_text(LEGACY)
    for mode in (["check"], ["fix", "--diff"], ["fix"]):
        r = _cli(*mode, "--no-cache", "--format", "json", ".", cwd=tmp_path) if mode == ["check"] \
            else _cli(*mode, "--no-cache", ".", cwd=tmp_path)
        assert r.returncode == 2, (mode, r.returncode, r.stderr[-2000:])
        if mode == ["check"]:
            rep = _json(r)
            assert [e["path"] for e in rep["errors"]] == ["chain.py"]
            assert "nested too deeply" in rep["errors"][0]["message"]
            assert {f["path"] for f in rep["findings"]} >= {"ok.py", "deep.py"}
        else:
            assert "chain.py: error: code nested too deeply" in r.stdout + r.stderr
    assert (tmp_path / "chain.py").read_text().startswith("import paddle.fluid as fluid\n")
    assert "paddle.nn.functional.relu" in (tmp_path / "ok.py").read_text()


def test_unused_noqa_findings_name_their_file(tmp_path):
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "m.py").write_text(
        "import paddle.fluid as fluid\nx = fluid.layers.relu(y)  # noqa: PU999\n")
    r = _cli("check", "--no-cache", "--report-unused-noqa", "--format", "json", ".", cwd=tmp_path)
    assert r.returncode == 1
    found = _json(r)["findings"]
    assert {f["code"] for f in found} >= {"PU900"}
    assert all(f["path"] == os.path.join("pkg", "m.py") for f in found), found
    text = _cli("check", "--no-cache", "--report-unused-noqa", ".", cwd=tmp_path).stdout
    assert "pkg/m.py:2:27: PU900" in text and "-:2:27" not in text


def test_a_file_that_could_not_be_written_counts_no_fix(tmp_path):
    f = tmp_path / "ro.py"
    f.write_text(LEGACY)
    f.chmod(0o444)
    try:
        r = _cli("fix", "--no-cache", "ro.py", cwd=tmp_path)
    finally:
        f.chmod(0o644)
    assert r.returncode == 2
    assert f.read_text() == LEGACY
    assert "Fixed 0 finding(s) in 0 file(s)" in r.stdout, r.stdout
