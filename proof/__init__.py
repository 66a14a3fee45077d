"""Proof by execution: every automatic rule checked against real Paddle 1.8.5.

Each rule entry's ``example`` becomes a complete legacy program per mode
(:mod:`proof.snippets`). The program is run three ways and the results must agree:

(a) unmodified on real Paddle 1.8.5 (``.venv-legacy``), recorded as goldens in
    ``fixtures/goldens/rules/`` by :mod:`proof.record` (on Paddle 2.0.2, ``.venv-legacy20``,
    for the examples of names that first appeared in 2.0's fluid: ``engine = "2.0"``);
(b) rewritten by the engine (``upgrader.upgrade_source``) and run on today's Paddle;
(c) unmodified through the runtime shim (``python -m compat``).

:mod:`proof.driver` runs many programs in one interpreter (Paddle's import is slow);
:mod:`proof.runner` drives it for each engine; :mod:`proof.report` prints the summary
behind ``make proof``. Only ``snippets`` and ``driver`` run on the legacy Python 3.7.
"""
