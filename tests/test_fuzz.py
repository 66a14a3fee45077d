"""Fuzzing the engine with generated legacy programs (tests/strategies.py).

Properties, for every generated program that compiles:

* no crash: ``upgrade_source`` never raises (``ParseError`` included) on valid input;
* the output parses;
* ``fix`` is idempotent: ``fix(fix(x)) == fix(x)``;
* ``check`` after ``fix`` reports only manual findings (and unsafe ones when
  ``--unsafe-fixes`` was not given): nothing a second ``fix`` would rewrite;
* a file with no legacy usage is unchanged and has no findings.

``make test`` runs a smoke pass (150 legacy programs, fixed seed, no shrinking, well
under two minutes). ``make fuzz`` runs the long pass: ``PADDLE_UPGRADE_FUZZ_EXAMPLES``
(default 5000 there) random programs per property, with shrinking.

The regression tests at the bottom are minimised reproducers of failures the fuzzer
found; each names the property it breaks.
"""
from __future__ import annotations

import ast
import os
import re

import pytest
from hypothesis import HealthCheck, Phase, given, settings

from strategies import Program, legacy_programs, plain_programs
from upgrader.engine import upgrade_source
from upgrader.rulebook import load

LONG = int(os.environ.get("PADDLE_UPGRADE_FUZZ_EXAMPLES", "0") or 0)


def fuzz(smoke_examples: int):
    """Smoke: fixed seed, no shrinking (a slow engine makes shrinking take minutes; the
    failing program is printed whole). Long: random, with shrinking."""
    common = dict(deadline=None, print_blob=True,
                  suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                         HealthCheck.filter_too_much])
    if LONG:
        return settings(max_examples=LONG, **common)
    return settings(max_examples=smoke_examples, derandomize=True, database=None,
                    phases=[Phase.explicit, Phase.generate], **common)


# ------------------------------------------------------------------------- properties

def check_properties(code: str, unsafe_fixes: bool = False) -> None:
    compile(code, "<generated>", "exec")  # the strategy only draws valid programs
    fixed = upgrade_source(code, unsafe_fixes=unsafe_fixes)
    try:
        ast.parse(fixed.code)
    except SyntaxError as exc:
        raise AssertionError(f"fix output does not parse: {exc}\n--- output:\n{fixed.code}")
    again = upgrade_source(fixed.code, unsafe_fixes=unsafe_fixes)
    assert again.code == fixed.code, (
        "fix is not idempotent\n--- fix(x):\n" + fixed.code + "\n--- fix(fix(x)):\n" + again.code)
    allowed = ("manual",) if unsafe_fixes else ("manual", "unsafe")
    left = [f for f in upgrade_source(fixed.code, fix=False, unsafe_fixes=unsafe_fixes).findings
            if f.fix not in allowed]
    assert not left, (
        "check after fix still reports fixable findings: " +
        "; ".join(f"line {f.line} {f.code} {f.fix}: {f.message}" for f in left) +
        "\n--- fix(x):\n" + fixed.code)


def check_unchanged(code: str) -> None:
    compile(code, "<generated>", "exec")
    for fix in (True, False):
        res = upgrade_source(code, fix=fix)
        assert res.code == code and not res.changed, "a file without legacy usage changed"
        assert not res.findings, [f"{f.code} {f.message}" for f in res.findings]


@fuzz(150)
@given(legacy_programs())
def test_fix_is_safe_idempotent_and_complete(program: Program):
    check_properties(program.code)


@fuzz(30)
@given(legacy_programs(max_depth=2))
def test_unsafe_fixes_leave_only_manual_findings(program: Program):
    check_properties(program.code, unsafe_fixes=True)


@fuzz(100)
@given(plain_programs())
def test_files_without_legacy_usage_are_unchanged(program: Program):
    check_unchanged(program.code)


def test_strategies_cover_the_import_forms_and_contexts():
    """The generator reaches every import form and context it promises (not a property
    of the engine: a guard against a strategy that silently stopped drawing some)."""
    seen = set()
    wanted = {
        "import paddle.fluid as fluid": lambda c: "import paddle.fluid as fluid" in c,
        "import MOD as ALIAS": lambda c: any(l.startswith("import paddle.fluid.") and " as " in l
                                              for l in c.splitlines()),
        "from paddle import fluid": lambda c: "from paddle import fluid" in c,
        "from MOD import NAME as Y": lambda c: any(l.startswith("from paddle.fluid") and " as " in l
                                                    for l in c.splitlines()),
        "import paddle + full path": lambda c: "import paddle\n" in c and any(
            "paddle.fluid." in l and not l.startswith(("import", "from")) for l in c.splitlines()),
        "dygraph guard": lambda c: re.search(r"with [\w.]*guard\(", c) is not None,
        "lambda": lambda c: "lambda x, *a:" in c,
        "comprehension": lambda c: " for x in xs" in c,
        "decorator": lambda c: "\n@" in c or c.lstrip().startswith("@"),
        "class": lambda c: "class Net" in c,
        "function": lambda c: "def f_" in c,
        "positional and keyword args": lambda c: re.search(r"\w\(\w[^=()]*, \w+=", c) is not None,
    }

    @settings(max_examples=200, derandomize=True, database=None, deadline=None,
              phases=[Phase.generate], suppress_health_check=list(HealthCheck))
    @given(legacy_programs())
    def collect(program):
        for k, pred in wanted.items():
            if pred(program.code):
                seen.add(k)
    collect()
    assert set(wanted) - seen == set()


# ------------------------------------------------------------------------ regressions
# Minimised from fuzzer failures; the entries involved are picked from the rule book by
# the property that made them fail, not by name.

def _pick(what, pred, module_level=True):
    """The first entry (by name) that satisfies ``pred``; ``module_level``: only names
    defined in a module (not class members)."""
    for e in sorted(load(), key=lambda e: e.name):
        parent = e.name.rsplit(".", 1)[0].split(".")
        if e.name.startswith("paddle.fluid.") and pred(e) and (
                not module_level or all(p.islower() for p in parent)):
            return e
    pytest.skip(f"the rule book has no {what}")


def _short(e) -> str:
    return e.name[len("paddle."):]


def _required(e) -> str:
    return ", ".join(f"a{i}" for i, p in enumerate(e.params or [])
                     if p.kind == "positional" and not p.has_default)


GUARD = "import paddle.fluid as fluid\nwith fluid.dygraph.guard():\n    v = {}\n"


def test_regression_manual_static_call_inside_removed_guard_is_idempotent():
    """A static-only API left for a manual rewrite, called inside ``with
    fluid.dygraph.guard():`` at module level (found with ``fluid.layers.DynamicRNN()``).
    The first fix removes the guard (PU201) and inserts nothing; the second sees a static
    API at module level outside any guard and inserts ``paddle.enable_static()`` (PU202)."""
    e = _pick("manual static API callable without arguments", lambda e: (
        e.mode == "static" and e.safety == "manual" and e.kind in ("function", "class")
        and e.params is not None and all(p.has_default or p.kind != "positional" for p in e.params)))
    check_properties(GUARD.format(f"{_short(e)}()"))


def test_regression_manual_static_reference_inside_removed_guard_is_idempotent():
    """As above with a static-only API used as a value, not called (found with
    ``fluid.BuildStrategy.GradientScaleStrategy.One``)."""
    e = _pick("manual static constant/class", lambda e: (
        e.mode == "static" and e.safety == "manual" and (e.kind == "constant" or e.params is None)),
        module_level=False)
    check_properties(GUARD.format(_short(e)))


@pytest.mark.parametrize("call", ["(**kw)", "()"])
def test_regression_unrewritable_static_call_inside_removed_guard_is_idempotent(call):
    """A static-only API with an automatic rule whose call cannot be mapped (``**kw``
    unpacking, a required argument missing: reported manual) inside a removed guard
    (found with ``fluid.layers.fc(**kw)``, ``fluid.embedding()``): the second fix inserts
    ``paddle.enable_static()``."""
    e = _pick("static API with an automatic rule and required arguments", lambda e: (
        e.mode == "static" and e.safety == "safe" and e.kind == "function" and not e.structural
        and e.params is not None and _required(e)))
    check_properties(GUARD.format(_short(e) + call))


def test_regression_todo_quoting_a_rewritten_argument_is_idempotent():
    """A manual finding whose message quotes an argument (``act=<non-literal>`` of a layer
    class) when that argument holds a legacy call that gets rewritten (found with
    ``fluid.dygraph.Linear(3, 4, act=fluid.layers.relu(x))``): the first fix's TODO quoted
    the argument as it was, the second quoted it as rewritten and added a second TODO."""
    layer = _pick("layer class with act= handled by layer-act", lambda e: (
        e.kind == "class" and e.structural == "layer-act" and e.param("act") is not None))
    inner = _pick("safe one-argument function", lambda e: (
        e.kind == "function" and e.safety == "safe" and not e.structural and e.mode == "any"
        and e.params is not None and _required(e) == "a0" and not e.args and not e.wrap))
    req = _required(layer)
    call = f"{_short(layer)}({req + ', ' if req else ''}act={_short(inner)}(x))"
    check_properties(f"import paddle.fluid as fluid\nconv = {call}\n")


def test_regression_todo_above_the_first_statement_is_not_repeated():
    """A manual finding on the module's first statement (a star import from a legacy
    module, PU003) followed by another import: the TODO comment written above the first
    statement (where libcst keeps it in the module header) was not seen by the second
    fix, which added it again."""
    check_properties("from paddle.fluid import *\nimport paddle\n")


def test_regression_argument_rewritten_into_a_literal_is_idempotent():
    """``make fuzz`` (5000 examples): a layer class's ``act=`` holds a legacy call whose
    structural rewrite yields a literal (``fluid.CompiledProgram(None)`` unwraps to
    ``None``). The first fix judges ``act`` on the original (not a literal: the layer
    call is left manual) but rewrites the inner call; the second fix then sees
    ``act=None`` and rewrites the layer."""
    layer = _pick("layer class with act= handled by layer-act", lambda e: (
        e.kind == "class" and e.structural == "layer-act" and e.param("act") is not None))
    unwrap = _pick("call unwrapped to its argument", lambda e: (
        e.structural == "compiled-program" and e.params is not None), module_level=False)
    req = _required(layer)
    call = f"{_short(layer)}({req + ', ' if req else ''}act={_short(unwrap)}(None))"
    check_properties(f"import paddle.fluid as fluid\nc = {call}\n")


def test_regression_manual_module_level_statement_survives_a_removed_local_import():
    """``make fuzz``, against an intermediate engine state (not reproducible at e766f7c):
    the first fix removed a legacy import inside a function and put ``import paddle`` in
    place of the module's last statement (``fluid.ExecutionStrategy``, left manual): user
    code lost, and the second fix then removed ``import paddle.fluid as fluid``."""
    code = ("import paddle.fluid as fluid\n\n"
            "def f_v1(x, *args, **kwargs):\n"
            "    import paddle.fluid.dygraph as lf\n"
            "    v2 = lf.grad(x, x, None, retain_graph=None, create_graph=False)\n\n"
            "fluid.ExecutionStrategy\n")
    check_properties(code)
    assert "fluid.ExecutionStrategy" in upgrade_source(code).code


def test_regression_structural_call_with_arguments_is_manual():
    """``fluid.ExecutionStrategy(**kw)`` (found by the fuzz test): the exec-strategy rule
    reported it safe but did not apply it, so check after fix still saw a fixable site.
    A call its rule cannot handle is manual."""
    check_properties("import paddle.fluid as fluid\nprint(fluid.ExecutionStrategy(**kw) + 1)\n",
                     unsafe_fixes=True)
    check_properties("import paddle.fluid as fluid\nes = fluid.ExecutionStrategy(*a)\n")


def test_regression_followup_of_statement_with_hoisted_argument_is_idempotent():
    """A manual call whose argument another rewrite moves to a name before the statement
    (found with ``extend_with_decoupled_weight_decay(load_dygraph(<expr>))``): the note
    went on the new assignment, so a second fix added it again."""
    check_properties("import paddle.fluid as fluid\n\ndef f(base):\n"
                     "    fluid.contrib.extend_optimizer.extend_with_decoupled_weight_decay("
                     "fluid.dygraph.load_dygraph(base + '_m'))\n")
