"""Helpers for the file/runner/report/notebook tests.

``fake_engine`` stands in for ``upgrade_source`` where a test is about the layer around the
engine (files, notebooks, noqa, cache, reports), not about rules: ``fluid.NAME(`` becomes
``paddle.NAME(`` (code PU101, safe); ``fluid.manual_NAME(`` is reported as manual and left;
``fluid.unsafe_NAME(`` is unsafe (rewritten only with unsafe_fixes). Code that does not
compile raises the engine's ParseError.

``real_snippet`` picks a simple safe rename from the real rule book, so that tests against
the real engine do not hard-code which rules exist.
"""
from __future__ import annotations

import re

from upgrader.engine import Finding, ParseError, Result

_CALL = re.compile(r"\bfluid\.(\w+)\(")


def fake_engine(code, *, fix=True, unsafe_fixes=False, select=None, ignore=None):
    try:
        compile(code, "<fake>", "exec", dont_inherit=True)
    except SyntaxError as exc:
        raise ParseError(exc.msg, exc.lineno or 1, (exc.offset or 1) - 1) from None

    def enabled(c):
        if select and not any(c.startswith(s) for s in select):
            return False
        return not (ignore and any(c.startswith(s) for s in ignore))

    findings = []
    out_lines = []
    for no, line in enumerate(code.splitlines(keepends=True), 1):
        new = line
        for m in _CALL.finditer(line):
            name = m.group(1)
            kind = "manual" if name.startswith("manual_") else (
                "unsafe" if name.startswith("unsafe_") else "safe")
            code_ = {"safe": "PU101", "unsafe": "PU103", "manual": "PU102"}[kind]
            if not enabled(code_):
                continue
            applied = kind == "safe" or (kind == "unsafe" and unsafe_fixes)
            f = Finding(no, m.start() + 1, no, m.end(), code_, "legacy-api",
                        f"`fluid.{name}` -> `paddle.{name}`", f"paddle.fluid.{name}",
                        f"paddle.{name}" if kind != "manual" else "", kind)
            f.applied = applied and fix
            findings.append(f)
            if fix and applied:
                new = new.replace(f"fluid.{name}(", f"paddle.{name}(", 1)
        out_lines.append(new)
    new_code = "".join(out_lines) if fix else code
    return Result(new_code, findings, new_code != code)


def real_snippet():
    """``(legacy_code, legacy_dotted, target)`` for a simple safe rule of the real book,
    or None when the book has none."""
    from upgrader import rulebook
    for e in rulebook.load():
        if (e.safety == "safe" and e.target and not e.structural and not e.args
                and not e.extra and not e.wrap and e.signature == "()"
                and e.name.startswith("paddle.fluid.") and e.name.count(".") == 2):
            short = e.name[len("paddle."):]
            code = f"import paddle.fluid as fluid\n\nthing = {short}()\n"
            return code, e.name, e.target
    return None
