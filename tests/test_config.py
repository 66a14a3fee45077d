"""``[tool.paddle-upgrade]`` in the nearest pyproject.toml, then CLI overrides."""
from pathlib import Path

import pytest

from upgrader import config as cfg


def write(p: Path, text: str) -> Path:
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_text(text)
    return p


def test_nearest_pyproject_with_the_section_wins(tmp_path):
    write(tmp_path / "pyproject.toml", '[tool.paddle-upgrade]\nignore = ["PU1"]\n')
    write(tmp_path / "sub" / "pyproject.toml", "[project]\nname = 'x'\n")  # no section
    write(tmp_path / "sub" / "deeper" / "pyproject.toml",
          '[tool.paddle-upgrade]\nselect = ["PU2"]\n')
    (tmp_path / "sub" / "deeper" / "m.py").write_text("")
    assert cfg.find_config([tmp_path / "sub" / "deeper" / "m.py"]) == \
        tmp_path / "sub" / "deeper" / "pyproject.toml"
    assert cfg.find_config([tmp_path / "sub"]) == tmp_path / "pyproject.toml"
    s = cfg.resolve([tmp_path / "sub"])
    assert s.ignore == ["PU1"] and s.select is None and s.root == tmp_path


def test_all_keys_parse(tmp_path):
    write(tmp_path / "pyproject.toml", """
[tool.paddle-upgrade]
select = ["PU1", "pu2"]
extend-select = ["PU3"]
ignore = ["PU102"]
exclude = ["third_party"]
extend-exclude = ["legacy/*"]
unsafe-fixes = true
report-unused-noqa = true

[tool.paddle-upgrade.per-file-ignores]
"tests/*" = ["PU1"]
""")
    s = cfg.resolve([tmp_path])
    assert s.select == ["PU1", "PU2"] and s.extend_select == ["PU3"]
    assert s.ignore == ["PU102"] and s.exclude == ["third_party"]
    assert s.extend_exclude == ["legacy/*"] and s.unsafe_fixes and s.report_unused_noqa
    assert s.per_file_ignores == {"tests/*": ["PU1"]}
    assert s.config_path == tmp_path / "pyproject.toml"


def test_unknown_key_names_key_file_and_suggestion(tmp_path):
    p = write(tmp_path / "pyproject.toml", '[tool.paddle-upgrade]\nselct = ["PU1"]\n')
    with pytest.raises(cfg.ConfigError) as ei:
        cfg.resolve([tmp_path])
    msg = str(ei.value)
    assert "selct" in msg and str(p) in msg and "select" in msg


@pytest.mark.parametrize("body,needle", [
    ('select = "PU1"', "list of strings"),
    ('unsafe-fixes = "yes"', "true or false"),
    ('ignore = ["E501"]', "not a paddle-upgrade rule code"),
    ('per-file-ignores = ["x"]', "table"),
])
def test_bad_values_are_clear_errors(tmp_path, body, needle):
    write(tmp_path / "pyproject.toml", f"[tool.paddle-upgrade]\n{body}\n")
    with pytest.raises(cfg.ConfigError, match=needle):
        cfg.resolve([tmp_path])


def test_invalid_toml_is_a_config_error(tmp_path):
    write(tmp_path / "pyproject.toml", "[tool.paddle-upgrade\n")
    with pytest.raises(cfg.ConfigError, match="not valid TOML"):
        cfg.resolve([tmp_path])


def test_cli_flags_override_the_file(tmp_path):
    write(tmp_path / "pyproject.toml", '[tool.paddle-upgrade]\nselect = ["PU1"]\n'
          'ignore = ["PU102"]\nunsafe-fixes = true\nextend-exclude = ["a"]\n')
    s = cfg.resolve([tmp_path], select=["PU2"], ignore=["PU201"], unsafe_fixes=False,
                    exclude=["b"])
    assert s.select == ["PU2"] and s.ignore == ["PU102", "PU201"]
    assert s.unsafe_fixes is False and s.extend_exclude == ["a", "b"]
    s = cfg.resolve([tmp_path])  # nothing given: the file stands
    assert s.select == ["PU1"] and s.unsafe_fixes is True


def test_isolated_and_explicit_config(tmp_path):
    write(tmp_path / "pyproject.toml", '[tool.paddle-upgrade]\nignore = ["PU1"]\n')
    other = write(tmp_path / "ci" / "pyproject.toml", '[tool.paddle-upgrade]\nignore = ["PU3"]\n')
    assert cfg.resolve([tmp_path], isolated=True).ignore == []
    assert cfg.resolve([tmp_path], config=other).ignore == ["PU3"]


def test_selection_by_prefix():
    assert cfg.is_selected("PU101", None, [])
    assert not cfg.is_selected("PU101", ["PU2"], [])
    assert cfg.is_selected("PU201", ["PU2"], [])
    assert not cfg.is_selected("PU102", ["PU1"], ["PU102"])
    assert cfg.is_selected("PU101", ["ALL"], ["PU102"])
    assert not cfg.is_selected("PU101", None, ["ALL"])


def test_per_file_ignores_match_relative_to_config_root(tmp_path):
    s = cfg.Settings(root=tmp_path, per_file_ignores={"tests/*": ["PU1"], "conftest.py": ["PU2"]})
    assert s.ignores_for(tmp_path / "tests" / "t.py") == ["PU1"]
    assert s.ignores_for(tmp_path / "src" / "conftest.py") == ["PU2"]
    assert s.ignores_for(tmp_path / "src" / "m.py") == []
    assert not s.selects("PU101", tmp_path / "tests" / "t.py")
    assert s.selects("PU101", tmp_path / "src" / "m.py")


def test_project_root_falls_back_to_git_then_start(tmp_path):
    (tmp_path / ".git").mkdir()
    write(tmp_path / "a" / "b.py", "")
    assert cfg.project_root([tmp_path / "a" / "b.py"]) == tmp_path


def test_split_codes():
    assert cfg.split_codes("PU101, PU2,PU3") == ["PU101", "PU2", "PU3"]
    assert cfg.split_codes(None) is None
