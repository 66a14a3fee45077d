"""The bundled AI Studio-style 1.x tutorial notebook, upgraded through the CLI."""
import json
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
NB = ROOT / "fixtures" / "notebooks" / "fit_a_line_tutorial.ipynb"


def _cli(*args, cwd):
    return subprocess.run([sys.executable, "-m", "upgrader.cli", *args], capture_output=True,
                          text=True, cwd=cwd)


def test_legacy_notebook_upgraded_with_outputs_intact(tmp_path):
    nb = tmp_path / NB.name
    shutil.copy(NB, nb)
    before = json.loads(nb.read_text(encoding="utf-8"))
    chk = _cli("check", "--no-cache", "--format", "json", nb.name, cwd=tmp_path)
    assert chk.returncode == 1
    cells = {f.get("cell") for f in json.loads(chk.stdout)["findings"]}
    assert {3, 5, 6} <= cells  # positions are reported per cell
    assert _cli("fix", "--no-cache", nb.name, cwd=tmp_path).returncode == 0
    after = json.loads(nb.read_text(encoding="utf-8"))
    assert after["metadata"] == before["metadata"]
    assert len(after["cells"]) == len(before["cells"])
    for b, a in zip(before["cells"], after["cells"]):
        assert a["cell_type"] == b["cell_type"] and a["metadata"] == b["metadata"]
        if b["cell_type"] == "markdown":
            assert a["source"] == b["source"]
        else:
            assert a["outputs"] == b["outputs"] and a["execution_count"] == b["execution_count"]
    code = ["".join(c["source"]) for c in after["cells"] if c["cell_type"] == "code"]
    assert code[0] == "!pip install paddlepaddle==1.8.5\n%matplotlib inline"  # magics kept
    assert code[3].startswith("%%time\n")
    assert code[4] == "fluid.layers.fc?"  # help escape left alone
    joined = "\n".join(code)
    assert "import paddle.fluid" not in joined and "paddle.static.nn.fc(x=x, size=1" in joined
    assert joined.count("paddle.enable_static()") == 1
    again = nb.read_bytes()
    assert _cli("fix", "--no-cache", nb.name, cwd=tmp_path).returncode == 0
    assert nb.read_bytes() == again  # idempotent
