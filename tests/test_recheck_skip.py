"""``fix`` does not check its output again when the legacy names left in it are only words
of comments and docstrings (``runner._left_to_check``): what it reports as left is still
exactly a fresh check of the written code, and a TODO the rewrite wrote (a structural
rule that sees modern code too) or a ``noqa`` directive keeps the check."""
from __future__ import annotations

from pathlib import Path

import pytest

from upgrader import config as cfg
from upgrader import runner

ROOT = Path(__file__).resolve().parent.parent

DOC_ONLY = '''"""Trains with fluid.layers.relu and fluid.dygraph.guard (Paddle 1.8)."""
import paddle.fluid as fluid


def step(x):
    """Calls fluid.layers.relu."""
    # fluid.layers.relu was the 1.8 name
    return fluid.layers.relu(x)
'''


def _sources():
    out = [DOC_ONLY]
    for pattern in ("fixtures/PU*/*.in.py", "fixtures/programs/*.py"):
        out += [p.read_text(encoding="utf-8") for p in sorted(ROOT.glob(pattern))]
    return out


def test_code_text_drops_comments_and_docstrings_only():
    text = runner._code_text('"""doc fluid"""\nx = "paddle.fluid"  # fluid\n"a" "b"\ny = 1\n')
    assert text.splitlines() == ['x = "paddle.fluid"', "y = 1"]
    assert runner._code_text('x = (\n') is None  # does not tokenize: the check runs


def test_words_in_comments_and_docstrings_do_not_need_a_check(monkeypatch):
    s = cfg.Settings()
    out = runner.upgrade_python(DOC_ONLY, s, "x.py", True)
    assert out.changed and "fluid" in out.new_text
    assert "fluid" not in runner._code_text(out.new_text)
    assert not runner._left_to_check(out.new_text, False)
    assert runner._left_to_check(out.new_text + "# noqa: PU101\n", True)
    assert runner._left_to_check(out.new_text + "# TODO(paddle-upgrade): PU208 x\n", False)
    calls = []
    real = runner._check
    monkeypatch.setattr(runner, "_check", lambda *a, **k: calls.append(a[3]) or real(*a, **k))
    out = runner.upgrade_python(DOC_ONLY, s, "x.py", True)
    assert calls == [True]  # the first pass only
    assert out.remaining == [] == runner.upgrade_python(out.new_text, s, "x.py", False).findings


@pytest.mark.parametrize("settings", [cfg.Settings(), cfg.Settings(unsafe_fixes=True),
                                      cfg.Settings(report_unused_noqa=True)],
                         ids=["default", "unsafe", "noqa"])
def test_skipped_checks_report_what_a_fresh_check_reports(settings):
    skipped = 0
    for text in _sources():
        out = runner.upgrade_python(text, settings, "x.py", True)
        if not out.changed:
            continue
        if runner.is_candidate(out.new_text, runner.legacy_markers(),
                               noqa=settings.report_unused_noqa) \
                and not runner._left_to_check(out.new_text, settings.report_unused_noqa):
            skipped += 1
            assert out.remaining == []
            assert runner.upgrade_python(out.new_text, settings, "x.py", False).findings == []
    assert skipped
