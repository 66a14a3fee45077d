"""The parsed rule book is kept as a pickle in rules/__pycache__ (rulebook.load_files): the
cached book must equal the parsed one (the MISSING sentinel included), be used when nothing
changed, and be ignored when a rule file, the file set or the loader changes, or the cache
file is damaged."""
import shutil
from pathlib import Path

import pytest

from upgrader import rulebook

RULES = rulebook.rules_dir()


@pytest.fixture
def rules(tmp_path):
    d = tmp_path / "rules"
    d.mkdir()
    for p in RULES.glob("*.toml"):
        shutil.copy(p, d / p.name)
    return d


def _load(d):
    return rulebook.load_files(list(d.glob("*.toml")))


def _no_parse(*a, **k):
    raise AssertionError("parsed the TOML files although the cache was valid")


def test_cached_book_equals_the_parsed_one(rules, monkeypatch):
    first = _load(rules)
    caches = list((rules / "__pycache__").glob("rulebook-*.pickle"))
    assert len(caches) == 1
    monkeypatch.setattr(rulebook, "_load_files", _no_parse)
    second = _load(rules)
    assert second is not first
    assert second.digest == first.digest
    assert second.entries == first.entries and second.by_alias == first.by_alias
    missing = [p for e in second for p in (e.params or ()) if p.default is rulebook.MISSING]
    assert missing, "the sentinel of parameters without a default survives the cache"
    assert all(second.by_alias[a] is second.entries[e.name] for e in second for a in e.aliases)


def test_a_changed_rule_file_is_parsed_again(rules, monkeypatch):
    first = _load(rules)
    p = sorted(rules.glob("*.toml"))[0]
    p.write_text(p.read_text() + "\n# a comment changes the bytes\n")
    calls = []
    real = rulebook._load_files
    monkeypatch.setattr(rulebook, "_load_files", lambda *a: calls.append(1) or real(*a))
    second = _load(rules)
    assert calls == [1] and second.digest != first.digest
    assert len(list((rules / "__pycache__").glob("rulebook-*.pickle"))) == 2


def test_a_new_entry_is_seen(rules):
    _load(rules)
    (rules / "zz_extra.toml").write_text(
        '["paddle.fluid.layers.zz_extra"]\ntarget = "paddle.abs"\nsignature = "(x)"\n')
    assert "paddle.fluid.layers.zz_extra" in _load(rules).entries


def test_a_damaged_cache_is_ignored(rules):
    first = _load(rules)
    cache, = (rules / "__pycache__").glob("rulebook-*.pickle")
    cache.write_bytes(b"not a pickle")
    assert _load(rules).entries == first.entries


def test_an_unwritable_cache_is_ignored(rules):
    (rules / "__pycache__").write_text("a file where the directory would be")
    assert len(_load(rules)) > 700


def test_the_loader_source_is_part_of_the_key(rules, monkeypatch):
    a = rulebook._cache_file(sorted(rules.glob("*.toml")), [p.read_bytes() for p in sorted(rules.glob("*.toml"))])
    monkeypatch.setattr(rulebook, "__file__", str(Path(__file__)))
    b = rulebook._cache_file(sorted(rules.glob("*.toml")), [p.read_bytes() for p in sorted(rules.glob("*.toml"))])
    assert a != b


def test_invalid_rules_still_raise(rules):
    (rules / "bad.toml").write_text('["paddle.fluid.x"]\nkind = "nonsense"\n')
    with pytest.raises(rulebook.RuleError):
        _load(rules)
    with pytest.raises(rulebook.RuleError):
        _load(rules)  # an error is never cached
