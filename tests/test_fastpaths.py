"""The fast paths must never change a result: the text prefilter and the cache.

* the prefilter (a file without a legacy marker is skipped unparsed) never skips a file
  that uses legacy API, however it is imported: a run with the prefilter gives exactly
  the report of a run without it;
* cached and uncached runs give identical reports and identical rewritten files;
* a changed rule database (its digest) or a changed option invalidates the cache.

Everything runs the real engine on snippets built from the live rule book.
"""
from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest

from upgrader import cache as cache_mod
from upgrader import config as cfg
from upgrader import rulebook, runner

ROOT = Path(__file__).resolve().parent.parent


def _entry():
    """A safe, plain ``paddle.fluid.layers.<name>`` function of the rule book with a
    short positional signature: the legacy call every file below makes."""
    for e in rulebook.load():
        parts = e.name.split(".")
        if (len(parts) == 4 and parts[:3] == ["paddle", "fluid", "layers"] and e.kind == "function"
                and e.safety == "safe" and e.target and not e.structural and e.params
                and all(p.kind == "positional" for p in e.params)
                and sum(not p.has_default for p in e.params) in (1, 2)):
            return e
    pytest.skip("the rule book has no plain safe fluid.layers function")


def _args(e) -> str:
    return ", ".join(["x", "y"][: sum(not p.has_default for p in e.params)])


def legacy_files() -> dict:
    """One file per way of reaching the legacy API (file name -> source)."""
    e = _entry()
    n = e.name.rsplit(".", 1)[1]
    a = _args(e)
    return {
        "alias_fluid.py": f"import paddle.fluid as fluid\n\nout = fluid.layers.{n}({a})\n",
        "alias_F.py": f"import paddle.fluid as F\n\nout = F.layers.{n}({a})\n",
        "from_paddle.py": f"from paddle import fluid\n\nout = fluid.layers.{n}({a})\n",
        "from_paddle_paren.py": f"from paddle import (\n    fluid,\n)\n\nout = fluid.layers.{n}({a})\n",
        "from_fluid_layers.py": f"from paddle.fluid import layers\n\nout = layers.{n}({a})\n",
        "import_layers_as.py": f"import paddle.fluid.layers as L\n\nout = L.{n}({a})\n",
        "from_layers_as.py": f"from paddle.fluid.layers import {n} as renamed\n\nout = renamed({a})\n",
        "full_path.py": f"import paddle\n\nout = paddle.fluid.layers.{n}({a})\n",
        "import_fluid_full.py": f"import paddle.fluid\n\nout = paddle.fluid.layers.{n}({a})\n",
        "in_function.py": f"def f(x, y):\n    import paddle.fluid as pf\n    return pf.layers.{n}({a})\n",
        "crlf.py": f"import paddle.fluid as fluid\r\n\r\nout = fluid.layers.{n}({a})\r\n",
        "bom_latin1.py": ("# -*- coding: latin-1 -*-\n# caf\xe9\nimport paddle.fluid as fluid\n"
                          f"out = fluid.layers.{n}({a})\n").encode("latin-1"),
        "bom_utf8.py": ("\ufeffimport paddle.fluid as fluid\n"
                        f"out = fluid.layers.{n}({a})  # \u00fc\n").encode("utf-8"),
        "notebook.ipynb": json.dumps({
            "cells": [{"cell_type": "code", "metadata": {}, "outputs": [], "execution_count": None,
                       "source": ["import paddle.fluid as fluid\n", f"out = fluid.layers.{n}({a})"]}],
            "metadata": {"kernelspec": {"name": "python3", "language": "python",
                                        "display_name": "Python 3"},
                         "language_info": {"name": "python"}},
            "nbformat": 4, "nbformat_minor": 5}),
        # dynamic imports: the engine cannot resolve them, the prefilter must not skip them
        "importlib.py": "import importlib\n\nm = importlib.import_module(\"paddle.fluid\")\n",
        "dunder_import.py": "m = __import__('paddle.fluid', fromlist=['layers'])\n",
        "batch_reader.py": "import paddle\n\nr = paddle.batch(paddle.reader.shuffle(rd, 100), 32)\n",
        "dataset.py": "import paddle\n\nds = paddle.dataset.mnist.train()\n",
    }


def _outside_fluid():
    """A rule-book name outside ``paddle.fluid`` (``paddle.dataset.mnist.train``...)."""
    names = sorted(n for e in rulebook.load() for n in [e.name, *e.aliases]
                   if not n.startswith("paddle.fluid") and n.count(".") >= 2
                   and all(p.isidentifier() for p in n.split(".")))
    return names[0] if names else None


def outside_fluid_files() -> dict:
    """Legacy names outside fluid, reached every way the engine resolves them."""
    name = _outside_fluid()
    if name is None:
        return {}
    top, rest = name.split(".")[1], ".".join(name.split(".")[2:])
    sub, last = name.rsplit(".", 1)
    return {
        "o_dotted.py": f"import paddle\n\nr = {name}(x)\n",
        "o_spaced.py": f"import paddle\n\nr = (paddle .\n     {top}.{rest})(x)\n",
        "o_continued.py": f"import paddle\n\nr = paddle.\\\n    {top}.{rest}(x)\n",
        "o_alias.py": f"import numpy as np, paddle as P\n\nr = P.{top}.{rest}(x)\n",
        "o_from.py": f"from paddle import {top}\n\nr = {top}.{rest}(x)\n",
        "o_from_as.py": f"from paddle import nn, {top} as T\n\nr = T.{rest}(x)\n",
        "o_from_paren.py": f"from paddle import (  # legacy\n    nn,\n    {top},\n)\n\nr = {top}.{rest}(x)\n",
        "o_from_cont.py": f"from paddle import nn, \\\n    {top}\n\nr = {top}.{rest}(x)\n",
        "o_import_sub.py": f"import {sub} as m\n\nr = m.{last}(x)\n",
        "o_from_sub.py": f"from {sub} import {last} as f\n\nr = f(x)\n",
        "o_dynamic.py": f"import importlib\n\nP = importlib.import_module('paddle')\nr = P.{top}\n",
    }


def modern_files_with_marker_words() -> dict:
    """Modern code that uses the legacy top-level names only as words: skipped."""
    words = [w for w in runner.legacy_markers() if w != "fluid"]
    w = words[0] if words else "batch"
    return {
        "m_loop.py": f"import paddle\nfrom paddle import nn\n\nfor {w} in loader:\n    y = nn.functional.relu({w})\n",
        "m_attr.py": f"import paddle.nn as nn\n\nself.{w} = nn.Linear(2, 3)\n",
        "m_from_io.py": f"from paddle.io import DataLoader\n\n{w} = DataLoader(ds)\n",
    }


# files whose legacy call the engine resolves by meaning: a finding names the entry
RESOLVED = ("alias_fluid.py", "alias_F.py", "from_paddle.py", "from_paddle_paren.py",
            "from_fluid_layers.py", "import_layers_as.py", "from_layers_as.py", "full_path.py",
            "import_fluid_full.py", "in_function.py", "crlf.py", "bom_latin1.py",
            "bom_utf8.py", "notebook.ipynb")

CLEAN = {
    "plain.py": "import os\n\n\ndef f(p):\n    return os.path.join(p, 'x')\n",
    "modern.py": "import paddle\nimport paddle.nn.functional as F\n\ny = F.relu(paddle.to_tensor([1.0]))\n",
    "numpy_only.py": "import numpy as np\n\nbatch_size = 32\nx = np.zeros((batch_size, 3))\n",
}


def write(root: Path, files: dict) -> Path:
    for name, text in files.items():
        p = root / name
        p.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(text, bytes):
            p.write_bytes(text)
        else:
            p.write_bytes(text.encode("utf-8"))
    return root


def run(root: Path, mode="check", settings=None, **kw):
    kw.setdefault("jobs", 1)
    kw.setdefault("use_cache", False)
    return runner.run([root], mode=mode, settings=settings or cfg.Settings(root=root), **kw)


def key_of(rep):
    """Everything a user sees of a run, per file (paths relative, order stable)."""
    out = []
    for r in rep.files:
        name = Path(r.path).name
        strip = lambda fs: sorted(json.dumps({k: v for k, v in f.items() if k != "path"},
                                             sort_keys=True) for f in fs)
        out.append((name, strip(r.findings), strip(r.remaining),
                    sorted(json.dumps({k: v for k, v in e.items() if k != "path"}, sort_keys=True)
                           for e in r.errors),
                    r.changed, r.diff.replace(str(Path(r.path).parent), "<dir>")))
    return sorted(out) + [("<run errors>", sorted(map(str, rep.errors)))]


# ------------------------------------------------------------------------- prefilter

@pytest.mark.parametrize("name", sorted(legacy_files()))
def test_prefilter_keeps_every_legacy_form(name):
    text = legacy_files()[name]
    raw = text if isinstance(text, bytes) else text.encode("utf-8")
    assert runner.is_candidate(raw), name
    if not isinstance(text, bytes):
        assert runner.is_candidate(text), name


def test_prefilter_run_equals_unfiltered_run(tmp_path):
    root = write(tmp_path, {**legacy_files(), **CLEAN})
    with_pf = run(root, prefilter=True)
    without = run(root, prefilter=False)
    skipped = {Path(r.path).name for r in with_pf.files if r.skipped}
    assert skipped & set(legacy_files()) == set()
    assert skipped == set(CLEAN)  # the fast path is taken where it may be
    assert key_of(with_pf) == key_of(without)
    e = _entry()
    found = {Path(r.path).name for r in with_pf.files
             if any(f["legacy"] == e.name for f in r.findings)}
    assert set(RESOLVED) <= found, set(RESOLVED) - found


def test_prefilter_outside_fluid_keeps_every_import_form_and_skips_modern_code(tmp_path):
    legacy = outside_fluid_files()
    if not legacy:
        pytest.skip("the rule book has no legacy name outside paddle.fluid")
    modern = modern_files_with_marker_words()
    root = write(tmp_path, {**legacy, **modern})
    with_pf, without = run(root, prefilter=True), run(root, prefilter=False)
    skipped = {Path(r.path).name for r in with_pf.files if r.skipped}
    assert skipped == set(modern)
    assert key_of(with_pf) == key_of(without)
    name = _outside_fluid()
    found = {Path(r.path).name for r in with_pf.files if any(f["legacy"] == name for f in r.findings)}
    assert set(legacy) - {"o_dynamic.py"} <= found, set(legacy) - {"o_dynamic.py"} - found


def test_prefilter_with_unused_noqa_report_keeps_noqa_only_files(tmp_path):
    root = write(tmp_path, {"noqa_only.py": "x = 1  # noqa: PU101\n", **CLEAN})
    s = cfg.Settings(root=root, report_unused_noqa=True)
    with_pf, without = run(root, settings=s), run(root, settings=s, prefilter=False)
    assert not next(r for r in with_pf.files if r.path.endswith("noqa_only.py")).skipped
    assert key_of(with_pf) == key_of(without)


def test_nfkc_spelled_import_is_found(tmp_path):
    """Identifiers are NFKC-normalised by Python: `import paddle.\uff46luid` imports paddle.fluid."""
    e = _entry()
    n = e.name.rsplit(".", 1)[1]
    code = f"import paddle.\uff46luid as F\n\nout = F.layers.{n}({_args(e)})\n"
    root = write(tmp_path, {"nfkc.py": code})
    assert any(f["legacy"] == e.name for f in run(root).findings)


# ----------------------------------------------------------------------------- cache

def test_cached_and_uncached_reports_are_identical(tmp_path):
    programs = sorted((ROOT / "fixtures" / "programs").glob("*.py"))[:3]
    files = {**legacy_files(), **CLEAN, **{p.name: p.read_bytes() for p in programs}}
    root = write(tmp_path / "t", files)
    s = cfg.Settings(root=root)
    for mode in ("check", "diff"):
        plain = run(root, mode, s)
        cold = run(root, mode, s, use_cache=True)
        warm = run(root, mode, s, use_cache=True)
        processed = [r for r in warm.files if not r.skipped and not r.errors]
        assert processed and all(r.cached for r in processed), mode
        assert key_of(plain) == key_of(cold) == key_of(warm), mode


def test_fix_from_a_warm_cache_writes_the_same_files(tmp_path):
    files = {**legacy_files(), **CLEAN}
    a = write(tmp_path / "a", files)
    b = write(tmp_path / "b", files)
    run(a, "fix", cfg.Settings(root=a))
    sb = cfg.Settings(root=b)
    run(b, "diff", sb, use_cache=True)  # fills the cache (diff and fix share entries)
    rep = run(b, "fix", sb, use_cache=True)
    assert any(r.cached for r in rep.files)
    for name in files:
        assert (a / name).read_bytes() == (b / name).read_bytes(), name


@pytest.mark.parametrize("change", [
    {"select": ["PU2"]}, {"ignore": ["PU1"]}, {"unsafe_fixes": True},
    {"report_unused_noqa": True}, {"per_file_ignores": {"alias_*.py": ["PU1"]}},
    {"extend_select": ["PU3"], "select": ["PU1"]},
])
def test_a_changed_option_invalidates_the_cache(tmp_path, change):
    root = write(tmp_path, {**legacy_files(), "noqa.py": "import paddle.fluid as fluid  # noqa\n"})
    base = cfg.Settings(root=root)
    run(root, settings=base, use_cache=True)
    assert all(r.cached for r in run(root, settings=base, use_cache=True).files if not r.skipped)
    changed = cfg.Settings(root=root, **change)
    hit = run(root, settings=changed, use_cache=True)
    fresh = run(root, settings=changed)
    affected = [r for r in hit.files if not r.skipped and (
        "per_file_ignores" not in change or Path(r.path).name.startswith("alias_"))]
    assert affected and not any(r.cached for r in affected), change
    assert key_of(hit) == key_of(fresh)


def test_the_mode_is_part_of_the_key(tmp_path):
    root = write(tmp_path, legacy_files())
    s = cfg.Settings(root=root)
    run(root, "check", s, use_cache=True)
    rep = run(root, "diff", s, use_cache=True)
    assert not any(r.cached for r in rep.files)
    assert key_of(rep) == key_of(run(root, "diff", s))


@pytest.fixture
def rules_copy(tmp_path, monkeypatch):
    """A private copy of the rule database that the engine, the cache fingerprint and
    the prefilter markers all read; every memo is dropped before and after."""
    d = tmp_path / "rules"
    shutil.copytree(rulebook.rules_dir(), d)

    def clear():
        rulebook.load.cache_clear()
        rulebook.target_api.cache_clear()
        cache_mod.tool_fingerprint.cache_clear()
        runner.legacy_markers.cache_clear()
    clear()
    monkeypatch.setenv("PADDLE_UPGRADE_RULES_DIR", str(d))
    yield d
    clear()  # the real rule book comes back with monkeypatch's undo, right after


def test_a_changed_rule_database_invalidates_the_cache(tmp_path, rules_copy):
    e = _entry()
    root = write(tmp_path / "t", {"alias_fluid.py": legacy_files()["alias_fluid.py"], **CLEAN})
    s = cfg.Settings(root=root)
    first = run(root, settings=s, use_cache=True)
    assert [f["replacement"] for f in first.findings if f["legacy"] == e.name] == [e.target]
    assert all(r.cached for r in run(root, settings=s, use_cache=True).files if not r.skipped)
    old_digest = rulebook.load().digest
    # edit the entry's target in the copy: the digest changes, so must the results
    toml = rules_copy / e.file
    text = toml.read_text(encoding="utf-8")
    head = text.index(f'["{e.name}"]\n')
    end = text.find("\n[", head + 1)
    end = len(text) if end < 0 else end
    block = re.sub(r'(?m)^target = ".*"$', 'target = "paddle.changed_target_for_test"',
                   text[head:end], count=1)
    toml.write_text(text[:head] + block + text[end:], encoding="utf-8")
    rulebook.load.cache_clear()
    cache_mod.tool_fingerprint.cache_clear()
    assert rulebook.load().digest != old_digest
    second = run(root, settings=s, use_cache=True)
    assert not any(r.cached for r in second.files)
    assert [f["replacement"] for f in second.findings if f["legacy"] == e.name] == \
        ["paddle.changed_target_for_test"]
    assert key_of(second) == key_of(run(root, settings=s))


def test_cache_key_covers_bytes_tool_rules_and_parts(tmp_path, monkeypatch):
    c = cache_mod.Cache(tmp_path)
    base = c.key(b"import paddle.fluid\n", "python", "check", "opts", "a.py")
    assert base == c.key(b"import paddle.fluid\n", "python", "check", "opts", "a.py")
    assert base != c.key(b"import paddle.fluid \n", "python", "check", "opts", "a.py")
    for i, part in enumerate(("notebook", "fix", "other", "b.py")):
        parts = ["python", "check", "opts", "a.py"]
        parts[i] = part
        assert base != c.key(b"import paddle.fluid\n", *parts)
    monkeypatch.setattr(cache_mod, "tool_fingerprint", lambda: "another-tool-or-rules")
    assert base != c.key(b"import paddle.fluid\n", "python", "check", "opts", "a.py")
