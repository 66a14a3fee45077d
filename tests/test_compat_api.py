"""compat.fluid offers Paddle 1.8.5's names with 1.8.5's signatures.

fixtures/goldens/compat/legacy_api.json lists the public names of the 1.8.5
``paddle.fluid`` modules with their signatures, read from the real 1.8.5 wheel by
tools/record_compat_goldens.py. Every name must resolve on compat.fluid (hand-written,
generated from the rule database, or a stub raising LegacyAPIError), and the callables
must take the same parameters in the same order with the same defaults.
"""
import ast
import json

import pytest

from _compat_support import GOLDENS, emit_source, explain, results, run_script

API = json.loads((GOLDENS / "legacy_api.json").read_text())["modules"]

PROBE = emit_source() + r'''
import importlib, inspect, json, sys, warnings
warnings.simplefilter("ignore")
import paddle.fluid
from compat import _runtime
api = json.load(open(sys.argv[1]))["modules"]
found, missing = {}, []
for mod, names in sorted(api.items()):
    cmod = importlib.import_module("compat" + mod[len("paddle"):])
    for n, info in sorted(names.items()):
        if info["kind"] == "module":
            continue
        try:
            obj = getattr(cmod, n)
        except AttributeError:
            missing.append(mod + "." + n)
            continue
        params = None
        try:
            target = obj.__init__ if inspect.isclass(obj) else obj
            sig = inspect.signature(target)
            params = [[p.name, str(p.kind), None if p.default is p.empty else repr(p.default),
                       None if p.default is p.empty else str(p.default)]
                      for p in sig.parameters.values()]
        except (TypeError, ValueError):
            pass
        found[mod + "." + n] = {"params": params,
                                "hand": getattr(obj, "__compat_legacy__", None) in _runtime.registry
                                and not getattr(obj, "__compat_source__", None)}
emit(found=found, missing=missing)
'''

ENUMS = {"VarType.FP32": ("float32",), "VarType.LOD_TENSOR": ("LOD_TENSOR", "DENSE_TENSOR")}


def _legacy_params(sig):
    fn = ast.parse("def f%s: pass" % sig).body[0]
    a = fn.args
    pos = list(getattr(a, "posonlyargs", [])) + list(a.args)
    defaults = [None] * (len(pos) - len(a.defaults)) + [ast.get_source_segment("def f%s: pass" % sig, d)
                                                        for d in a.defaults]
    out = [(p.arg, "positional", d) for p, d in zip(pos, defaults)]
    if a.vararg:
        out.append((a.vararg.arg, "var_positional", None))
    for p, d in zip(a.kwonlyargs, a.kw_defaults):
        out.append((p.arg, "keyword_only", None if d is None else ast.get_source_segment("def f%s: pass" % sig, d)))
    if a.kwarg:
        out.append((a.kwarg.arg, "var_keyword", None))
    return out


def _same_default(src, rep, text):
    if src is None or rep is None:
        return src is None and rep is None
    if src in ENUMS:
        return any(k in text or k in rep for k in ENUMS[src])
    try:
        return ast.literal_eval(src) == ast.literal_eval(rep)
    except (ValueError, SyntaxError):
        return src == rep or src == text


_KINDS = {"POSITIONAL_OR_KEYWORD": "positional", "POSITIONAL_ONLY": "positional",
          "VAR_POSITIONAL": "var_positional", "KEYWORD_ONLY": "keyword_only",
          "VAR_KEYWORD": "var_keyword"}


def _compare(legacy_sig, params):
    want = _legacy_params(legacy_sig)
    got = [(n, _KINDS[k], rep, text) for n, k, rep, text in params]
    if [w[0] for w in want] != [g[0] for g in got] or [w[1] for w in want] != [g[1] for g in got]:
        return "parameters %s != 1.8.5 %s" % ([g[0] for g in got], [w[0] for w in want])
    for (name, _, src), (_, _, rep, text) in zip(want, got):
        if not _same_default(src, rep, text):
            return "default of %s: %s != 1.8.5 %s" % (name, text, src)
    return None


@pytest.fixture(scope="module")
def probe(tmp_path_factory):
    d = tmp_path_factory.mktemp("api")
    proc = run_script(d, PROBE, args=[str(GOLDENS / "legacy_api.json")])
    assert proc.returncode == 0, explain(proc)
    return results(proc)


def test_every_1_8_5_name_resolves(probe):
    assert probe["missing"] == []
    assert len(probe["found"]) > 900


def test_hand_written_signatures_are_1_8_5(probe):
    problems = []
    for name, rec in sorted(probe["found"].items()):
        mod, _, short = name.rpartition(".")
        info = API[mod][short]
        if not rec["hand"] or info["signature"] is None or rec["params"] is None:
            continue
        if info["signature"] in ("(self, /, *args, **kwargs)", "(self, *args, **kwargs)"):
            continue
        problem = _compare(info["signature"], [p for p in rec["params"]])
        if problem:
            problems.append("%s: %s" % (name, problem))
    assert not problems, "\n".join(problems)


def test_generated_function_signatures_are_1_8_5(probe):
    """Generated wrappers take their signature from the rule entry: a difference here is a
    wrong ``signature`` in rules/*.toml."""
    problems = []
    for name, rec in sorted(probe["found"].items()):
        mod, _, short = name.rpartition(".")
        info = API[mod][short]
        if rec["hand"] or info["kind"] != "function" or info["signature"] is None or rec["params"] is None:
            continue
        if [p[1] for p in rec["params"]] == ["VAR_POSITIONAL", "VAR_KEYWORD"]:
            continue  # a pass-through to today's function (no legacy signature in the rule)
        problem = _compare(info["signature"], rec["params"])
        if problem:
            problems.append("%s: %s" % (name, problem))
    assert len(problems) <= 0, "\n".join(problems)
