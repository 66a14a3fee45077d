"""Recipes of manual rules (fixtures/recipes/<program>.py: the legacy program migrated by
hand as the rule's note says) reproduce the program's Paddle 1.8.5 golden."""
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
RECIPES = sorted((ROOT / "fixtures" / "recipes").glob("*.py"))
sys.path.insert(0, str(ROOT / "tools"))
import program_result as pr  # noqa: E402


@pytest.mark.parametrize("recipe", RECIPES, ids=lambda p: p.stem)
def test_recipe_matches_1_8_5_golden(recipe, tmp_path):
    golden = ROOT / "fixtures" / "programs" / "goldens" / f"{recipe.stem}.json"
    assert golden.exists(), f"a recipe migrates a bundled program: no golden for {recipe.stem}"
    text = recipe.read_text()
    assert "paddle.fluid" not in text and "import fluid" not in text, "a recipe uses no legacy API"
    env = dict(os.environ, PYTHONWARNINGS="ignore")
    proc = subprocess.run([sys.executable, str(recipe)], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]
    diffs = pr.compare(pr.load_golden(golden), pr.parse_results(proc.stdout))
    assert not diffs, "\n".join(diffs)
