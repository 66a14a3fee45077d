"""Proof by execution: one test per automatic rule and mode.

Each rule's example, as a complete legacy program, must give what real Paddle 1.8.5 gave
(the golden in fixtures/goldens/rules/, recorded by ``make goldens-rules``) both when
rewritten by the engine and run on today's Paddle, and when run unmodified through
``python -m compat``. See proof/__init__.py.
"""
import os
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from proof import cases as proof_cases  # noqa: E402
from proof import runner  # noqa: E402

try:
    CASES, MISSING = proof_cases.collect()
    COLLECT_ERROR = None
except Exception as exc:  # a broken rule file must not abort the whole suite's collection
    CASES, MISSING, COLLECT_ERROR = [], [], f"{type(exc).__name__}: {exc}"


def test_rule_book_loads_for_the_proof():
    assert COLLECT_ERROR is None, COLLECT_ERROR


@pytest.fixture(scope="session")
def verdicts(request):
    """Verdicts for the proof cases selected in this session (one batch per engine+mode)."""
    wanted = {}
    for item in request.session.items:
        params = getattr(getattr(item, "callspec", None), "params", {})
        if getattr(item, "originalname", None) == "test_proof" and "case" in params:
            wanted[params["case"].key] = params["case"]
    return runner.prove(list(wanted.values()))


def _explain(verdict):
    lines = [f"{verdict.case.entry.name} [{verdict.case.mode}] ({verdict.case.entry.file}) "
             "is not proven:"]
    lines += [f"  - {p}" for p in verdict.problems]
    rewritten = verdict.records.get("rewrite", {}).get("program")
    if rewritten:
        body = rewritten.split("_rs = ", 1)[-1]
        lines += ["rewritten program (after the emit helper):", "_rs = " + body]
    for engine, rec in sorted(verdict.records.items()):
        if not rec.get("ok") and rec.get("error"):
            lines += [f"{engine} traceback:", rec["error"][-1500:]]
    return "\n".join(lines)


@pytest.mark.parametrize("case", CASES, ids=[c.test_id for c in CASES])
def test_proof(case, verdicts):
    verdict = verdicts[case.key]
    if case.difference:
        # An unsafe entry documents how its rewrite differs from 1.8.5 in this mode: the
        # test asserts that this run reproduces exactly that difference (the example still
        # runs everywhere; if the difference disappears the note is stale and this fails).
        assert verdict.difference_confirmed, (
            f"documented difference not reproduced ({case.difference}):\n" + _explain(verdict))
        return
    if not verdict.proven:
        pytest.fail(_explain(verdict), pytrace=False)


def _legacy_required():
    return os.environ.get("PADDLE_UPGRADE_REQUIRE_LEGACY", "") not in ("", "0")


def _reverify(version):
    from proof.record import verify

    python = runner.LEGACY_PYTHONS[version]
    mine = [c for c in CASES if not c.invalid and c.engine == version]
    if not python.exists():
        if _legacy_required() and mine:
            pytest.fail(f"PADDLE_UPGRADE_REQUIRE_LEGACY is set but {python} is missing: "
                        f"make {'legacy-venv' if version == '1.8' else 'legacy20-venv'}")
        pytest.skip(f"{python.parent.parent.name} (Paddle {version}) is not installed")
    problems = verify(mine)
    assert not problems, "\n".join(problems[:50])


def test_rule_goldens_reverify_on_real_paddle_1_8_5():
    """The committed goldens are what Paddle 1.8.5 prints today for the current examples."""
    _reverify("1.8")


def test_rule_goldens_of_2_0_names_reverify_on_real_paddle_2_0():
    """The goldens of the examples whose names first appeared in 2.0's fluid (example
    ``engine = "2.0"``) are what Paddle 2.0.2 prints today."""
    _reverify("2.0")


def test_every_golden_belongs_to_a_case():
    """Goldens of removed examples are dropped by make goldens-rules."""
    orphans = proof_cases.orphan_goldens(CASES) if COLLECT_ERROR is None else []
    assert not orphans, "orphan goldens (run make goldens-rules): " + ", ".join(
        p.name for p in orphans[:20])
