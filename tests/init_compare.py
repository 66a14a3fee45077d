"""Distribution comparison of initial parameter values (tests/test_default_init.py and
tools/record_init_goldens.py --verify). Python 3.7 compatible."""
import math


def _kind(s):
    if s["std"] == 0.0:
        return "constant"
    # a uniform draw spans about 2*sqrt(3) standard deviations, a normal one far more
    return "uniform" if (s["max"] - s["min"]) / s["std"] < 4.0 else "normal"


def _match(golden_case, got_case):
    """Pairs (golden name, got name): by name when both name the same parameters, else in
    the order of shapes and names (static parameter names may be numbered differently)."""
    if set(golden_case) == set(got_case):
        return [(n, n) for n in sorted(golden_case)]
    key = lambda item: (item[1]["shape"], item[0])
    a = sorted(golden_case.items(), key=key)
    b = sorted(got_case.items(), key=key)
    return [(x[0], y[0]) for x, y in zip(a, b)]


def differences(golden, got, absent=None):
    """Lines describing each way ``got`` ({case: {param: stats}}) is not drawn like
    ``golden``: missing cases, parameter counts or shapes, constants that differ, random
    parameters of another kind (uniform / normal) or whose mean or spread differs beyond
    4 standard errors of the estimate (at least 8% for the spread). ``absent`` maps
    (case, parameter) to why a parameter 1.8.5 created (a zero constant it never used) is
    absent on purpose."""
    out = []
    absent = absent or {}
    for case in sorted(golden):
        g = dict(golden[case])
        count = g.pop("__count__", None)
        for (c, name), why in absent.items():
            if c == case and name in g:
                if _kind(g[name]) != "constant" or g[name]["min"] != 0.0:
                    out.append("%s %s: expected absent (%s), but 1.8.5's is not zero" % (c, name, why))
                del g[name]
                count = None if count is None else {"count": count["count"] - 1}
        if case not in got:
            out.append("%s: missing" % case)
            continue
        h = dict(got[case])
        got_count = h.pop("__count__", None)
        if count is not None and got_count is not None and count != got_count:
            out.append("%s: %d parameters in 1.8.5, %d here" % (case, count["count"], got_count["count"]))
            continue
        if len(g) != len(h):
            out.append("%s: %d parameters in 1.8.5 (%s), %d here (%s)"
                       % (case, len(g), sorted(g), len(h), sorted(h)))
            continue
        for gn, hn in _match(g, h):
            a, b = g[gn], h[hn]
            where = "%s %s" % (case, gn)
            if a["shape"] != b["shape"]:
                out.append("%s: shape %s in 1.8.5, %s here" % (where, a["shape"], b["shape"]))
                continue
            ka, kb = _kind(a), _kind(b)
            if ka != kb:
                out.append("%s: %s in 1.8.5 (min %.4g, max %.4g, std %.4g), %s here (min %.4g, "
                           "max %.4g, std %.4g)" % (where, ka, a["min"], a["max"], a["std"], kb,
                                                   b["min"], b["max"], b["std"]))
                continue
            if ka == "constant":
                if abs(a["min"] - b["min"]) > 1e-6 * max(1.0, abs(a["min"])):
                    out.append("%s: constant %r in 1.8.5, %r here" % (where, a["min"], b["min"]))
                continue
            n = a["n"]
            spread_tol = max(0.08, 4.0 / math.sqrt(2.0 * n))
            if abs(b["std"] - a["std"]) > spread_tol * a["std"]:
                out.append("%s: std %.4g in 1.8.5, %.4g here" % (where, a["std"], b["std"]))
            # two engines' generators: means agree to a small part of the spread (a shifted
            # loc, a one-sided draw or a constant offset is far outside)
            if abs(b["mean"] - a["mean"]) > a["std"] * (0.05 + 6.0 / math.sqrt(n)):
                out.append("%s: mean %.4g in 1.8.5, %.4g here" % (where, a["mean"], b["mean"]))
            if ka == "uniform":
                bound = max(abs(a["min"]), abs(a["max"]))
                got_bound = max(abs(b["min"]), abs(b["max"]))
                if abs(got_bound - bound) > 0.03 * bound:
                    out.append("%s: uniform bound %.4g in 1.8.5, %.4g here" % (where, bound, got_bound))
    for case in sorted(set(got) - set(golden)):
        out.append("%s: not in the golden" % case)
    return out
