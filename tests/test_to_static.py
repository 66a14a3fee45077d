"""Dynamic-to-static rewrites: @declarative, ProgramTranslator (PU213).

End to end, fixtures/programs/to_static_control_flow.py (tensor-dependent if/while under
@declarative, training through it, enable(False), get_output) must match its 1.8.5 golden
after `fix` (tests/test_programs_proof.py); these are the rewrite's edge cases.
"""
from upgrader import upgrade_source

HEAD = "import paddle.fluid as fluid\nfrom paddle.fluid.dygraph import ProgramTranslator\n\n"


def _fix(body, **kw):
    return upgrade_source(HEAD + body, **kw)


def test_direct_calls_become_paddle_jit():
    res = _fix("ProgramTranslator().enable(False)\n"
               "fluid.dygraph.ProgramTranslator.get_instance().enable(enable_declarative=True)\n"
               "y = ProgramTranslator().get_output(f, x, *rest)\n")
    assert res.code == ("import paddle\n\n"
                        "paddle.jit.enable_to_static(False)\n"
                        "paddle.jit.enable_to_static(True)\n"
                        "y = paddle.jit.to_static(f, full_graph=True)(x, *rest)\n")
    assert {f.code for f in res.findings} == {"PU213", "PU002"}


def test_translator_variable_is_removed_when_only_used_for_rewritten_calls():
    res = _fix("def run(x):\n    pt.enable(False)\n    return x\n\n\n"
               "pt = ProgramTranslator()\npt.enable(True)\nprint(pt.get_output(g, x).numpy())\n")
    # the use inside run() is met before the translator: the variable is kept, all manual
    assert "pt = ProgramTranslator()" in res.code
    res = _fix("pt = ProgramTranslator()\n\n\ndef run(x):\n    pt.enable(False)\n    return x\n\n\n"
               "print(pt.get_output(g, x).numpy())\n")
    assert "ProgramTranslator" not in res.code
    assert "    paddle.jit.enable_to_static(False)\n" in res.code
    assert "print(paddle.jit.to_static(g, full_graph=True)(x).numpy())" in res.code


def test_translator_used_for_other_methods_stays_manual():
    res = _fix("pt = ProgramTranslator()\npt.enable(False)\ncode = pt.get_code(f)\n")
    assert "pt = ProgramTranslator()\npt.enable(False)\ncode = pt.get_code(f)\n" in res.code
    manual = [f for f in res.findings if f.fix == "manual"]
    assert [f.legacy for f in manual] == ["paddle.fluid.dygraph.ProgramTranslator"]


def test_one_line_suite_and_noqa_are_left_alone():
    res = _fix("if debug: ProgramTranslator().enable(False)\n")
    assert "ProgramTranslator().enable(False)" in res.code
    assert [f.fix for f in res.findings if f.legacy.endswith("ProgramTranslator")] == ["manual"]
    res = _fix("ProgramTranslator().enable(False)  # noqa: PU213\n")
    assert "ProgramTranslator().enable(False)  # noqa: PU213" in res.code
    res = _fix("ProgramTranslator().enable(False)\n", ignore=["PU213"])
    assert "ProgramTranslator().enable(False)" in res.code


def test_bare_declarative_decorator():
    src = ("import paddle.fluid as fluid\nfrom paddle.fluid.dygraph import declarative\n\n\n"
           "@declarative\ndef f(x):\n    return x\n\n\n@fluid.dygraph.jit.declarative\ndef g(x):\n    return x\n")
    got = upgrade_source(src).code
    # full_graph=True: 1.8 translated the source (AST); the default bytecode mode fails
    # on a module global holding a static-graph variable (mixed static/dygraph scripts)
    assert got.count("@paddle.jit.to_static(full_graph=True)\n") == 2 and "fluid" not in got


def test_get_output_of_a_lambda_keeps_the_default_mode():
    res = _fix("y = ProgramTranslator().get_output(lambda v: v + 1, x)\n")
    assert "y = paddle.jit.to_static(lambda v: v + 1)(x)\n" in res.code
