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


def test_every_program_fix_cannot_finish_has_a_proven_recipe():
    """A program whose upgrade leaves manual follow-ups (fixtures/programs/expectations.toml)
    has its hand migration in fixtures/recipes/, proven above against its 1.8.5 golden."""
    import tomllib
    expectations = tomllib.loads((ROOT / "fixtures" / "programs" / "expectations.toml").read_text())
    need = sorted(n for n, e in expectations.items() if e.get("followups"))
    have = {p.stem for p in RECIPES}
    assert need and not [n for n in need if n not in have]


@pytest.mark.parametrize("recipe", RECIPES, ids=lambda p: p.stem)
def test_recipe_has_no_legacy_usage(recipe):
    from upgrader.engine import upgrade_source
    assert upgrade_source(recipe.read_text(), fix=False).findings == []
