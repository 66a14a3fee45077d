"""Module scans that stop early or walk less give the answers of the full walks: the
static/dynamic mode survey (fixers/static_dropout.py, stops once both modes are seen)
against the same survey walking the whole module, and PU207's weight-tying scan
(fixers/optimizer_methods.py ``_tied_guards``) against a reference that collects every
function's literal names and walks each ``program_guard`` block twice."""
import ast
import collections
import random
import types
from pathlib import Path

from upgrader.engine import upgrade_source
from upgrader.fixers import optimizer_methods, static_dropout

ROOT = Path(__file__).resolve().parent.parent
SOURCES = sorted(ROOT.glob("fixtures/PU*/*.in.py")) + sorted((ROOT / "fixtures" / "programs").glob("*.py")) \
    + sorted((ROOT / "tests" / "data" / "stability").glob("*.py"))


def _surveys(monkeypatch, stop: bool):
    monkeypatch.setattr(static_dropout, "_STOP_WHEN_DECIDED", stop)
    seen = []
    survey = static_dropout._survey

    def spy(up):
        got = survey(up)
        seen.append(got)
        return got

    monkeypatch.setattr(static_dropout, "_survey", spy)
    out = []
    for p in SOURCES:
        code = p.read_text()
        for fix, unsafe in ((False, False), (True, False), (True, True)):
            seen.clear()
            r = upgrade_source(code, fix=fix, unsafe_fixes=unsafe)
            out.append((p.name, fix, unsafe, list(seen), r.code, [f.to_dict() for f in r.findings]))
    return out


def test_mode_survey_stops_with_the_same_answer(monkeypatch):
    fast = _surveys(monkeypatch, True)
    full = _surveys(monkeypatch, False)
    assert fast == full
    answers = [a for row in full for a in row[3]]
    assert (True, True) in answers and (True, False) in answers  # both paths are exercised


def _reference_tied(source: str) -> dict:
    out = {}
    if "program_guard" not in source:
        return out
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return out

    looped = set()  # calls in a loop body or a comprehension run repeatedly: counted twice
    for n in ast.walk(tree):
        if isinstance(n, (ast.For, ast.AsyncFor, ast.While)):
            looped.update(id(c) for st in n.body for c in ast.walk(st) if isinstance(c, ast.Call))
        elif isinstance(n, (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)):
            looped.update(id(c) for c in ast.walk(n) if isinstance(c, ast.Call))

    def times(call):
        return 2 if id(call) in looped else 1

    def tally_block(stmts, functions=None):
        """A statement list; after an else-less if that ends in return / raise, the rest
        of the list runs only when the if's body did not: one of the two (the larger)."""
        got = collections.Counter()
        for i, st in enumerate(stmts):
            if isinstance(st, ast.If) and not st.orelse and st.body and i + 1 < len(stmts) \
                    and isinstance(st.body[-1], (ast.Return, ast.Raise)):
                a = tally_block(st.body, functions)
                b = tally_block(stmts[i + 1:], functions)
                return got + tally(st.test, functions) + (a | b)
            got += tally(st, functions)
        return got

    def tally(node, functions=None):
        """Counter of literal names the node creates; one branch of an if runs (the larger)."""
        if isinstance(node, (ast.If, ast.IfExp)):
            body = node.body if isinstance(node, ast.If) else [node.body]
            orelse = node.orelse if isinstance(node, ast.If) else [node.orelse]
            a = tally_block(body, functions)
            b = tally_block(orelse, functions)
            return tally(node.test, functions) + (a | b)
        got = collections.Counter()
        if isinstance(node, ast.Call):
            for name in optimizer_methods._literal_names(node):
                got[name] += times(node)
            if functions is not None and isinstance(node.func, ast.Name) and node.func.id in functions:
                for name, c in functions[node.func.id].items():
                    got[name] += c * times(node)
        for child in ast.iter_child_nodes(node):
            got += tally(child, functions)
        return got

    functions = {f.name: tally_block(f.body)
                 for f in ast.walk(tree) if isinstance(f, (ast.FunctionDef, ast.AsyncFunctionDef))}
    for w in ast.walk(tree):
        if not isinstance(w, ast.With) or not any(
                isinstance(i.context_expr, ast.Call) and "program_guard" in ast.dump(i.context_expr.func)
                for i in w.items):
            continue
        counts = tally_block(w.body, functions)
        names = {n for n, c in counts.items() if c > 1}
        if names:
            out[(w.lineno, w.end_lineno)] = names
    return out


_PIECES = [
    "def f(x):\n    return fluid.layers.fc(x, 4, param_attr='w')\n",
    "def f(x):\n    return fluid.layers.fc(x, 4, param_attr=fluid.ParamAttr(name='v'))\n",
    "def f(x):\n    return 1\n",
    "class A:\n    def f(self, x):\n        return fluid.layers.fc(x, 4, bias_attr='b')\n",
    "def g(x):\n    def f(y):\n        return fluid.layers.fc(y, 2, param_attr='w')\n    return f(x) + f(x)\n",
    "async def h(x):\n    return fluid.layers.fc(x, 4, param_attr=ParamAttr('w'))\n",
    "if flag:\n    def f(x):\n        return fluid.layers.fc(x, 4, param_attr='z')\n",
    "with fluid.program_guard(main, startup):\n    a = f(x)\n    b = f(x)\n    c = g(x)\n",
    "with fluid.program_guard(main):\n    a = fluid.layers.fc(x, 4, param_attr='w')\n"
    "    with fluid.program_guard(m2):\n        b = h(x); c = f(x); d = fluid.layers.fc(x, 3, param_attr='w')\n",
    "with program_guard(main), other():\n    a = fluid.layers.fc(x, 4, param_attr=ParamAttr(name='q'))\n"
    "    b = fluid.layers.fc(x, 4, param_attr=ParamAttr('q', 'x'))\n",
    "with fluid.program_guard(main):\n    for i in range(2):\n        f(x); g(x)\n",
    "with fluid.program_guard(main):\n    for w in ws:\n        e = fluid.layers.embedding(w, [9, 2], param_attr='t')\n",
    "with fluid.program_guard(main):\n    es = [fluid.layers.fc(w, 2, param_attr='u') for w in ws]\n",
    "with fluid.program_guard(main):\n    if a:\n        y = f(x)\n    else:\n        y = f(x) * 2\n",
    "with fluid.program_guard(main):\n    if a:\n        y = fluid.layers.fc(x, 2, param_attr='w')\n"
    "    elif b:\n        y = g(x)\n    else:\n        y = fluid.layers.fc(x, 2, param_attr='w') + f(x)\n",
    "def k(x):\n    if x:\n        return fluid.layers.fc(x, 2, param_attr='v')\n"
    "    return fluid.layers.fc(x, 3, param_attr='v') if x else f(x)\n",
    "with fluid.program_guard(main):\n    y = k(x) if a else fluid.layers.fc(x, 2, param_attr='v')\n",
    "def s(x, first):\n    if first:\n        return fluid.layers.fc(x, 2, param_attr='w')\n"
    "    y = fluid.layers.fc(x, 2, param_attr='w')\n    return fluid.layers.fc(y, 2, param_attr='u')\n",
    "with fluid.program_guard(main):\n    if a:\n        raise ValueError(a)\n"
    "    y = s(x, a) + fluid.layers.fc(x, 2, param_attr='u')\n",
]


def _tied(source: str) -> dict:
    return optimizer_methods._tied_guards(types.SimpleNamespace(source=source))


def test_tied_scan_matches_the_reference():
    sources = [p.read_text() for p in SOURCES]
    rng = random.Random(0)
    sources += ["".join(rng.choice(_PIECES) for _ in range(rng.randint(1, 7))) for _ in range(400)]
    sources.append("with fluid.program_guard(main):\n    x = (\n")  # a syntax error
    found = 0
    for src in sources:
        want = _reference_tied(src)
        if "program_guard" in src and not optimizer_methods._LITERAL_NAME.search(src):
            assert not want  # the text pre-check skips only modules with nothing tied
        assert list(_tied(src).items()) == list(want.items()), src
        found += bool(want)
    assert found > 10
