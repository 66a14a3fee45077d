"""Turn a rule entry's ``example`` into a complete legacy program, and compare results.

Runs on the legacy Python 3.7 too (the batch driver imports it there): no walrus, no
f-string ``=``, no ``ast.unparse``, no third-party imports at module level.

An example is ``{inputs = {name = "<generator>"}, code = "<legacy code assigning out>",
modes = [...]}``. Generators (evaluated in declaration order from one seeded
``np.random.RandomState``, whose streams are identical on numpy 1.19 and 2.x):

    rand(*shape, dtype='float32')        uniform [0, 1)
    randn(*shape, dtype='float32')       standard normal
    randint(low, high, shape, dtype='int64')
    softmax(<generator>, axis=-1)        computed in float64, cast back
    const(value, shape, dtype='float32')

The program prints one line ``PROOF-RESULT {json}`` holding shape, dtype and values of
``out`` (each element when it is a list or tuple) and a digest of the inputs.
"""
import ast
import hashlib
import json
import math

SEED = 2020
RESULT_PREFIX = "PROOF-RESULT "
MODES = ("dygraph", "static")
DEFAULT_RTOL = 1e-5
DEFAULT_ATOL = 1e-6

#: Emission helper pasted into every program: engine-agnostic (VarBase, Tensor, ndarray).
EMIT_SOURCE = '''\
def _emit(out, inputs=()):
    items = list(out) if isinstance(out, (list, tuple)) else [out]
    rows = []
    for item in items:
        if hasattr(item, 'numpy'):
            item = item.numpy()
        arr = np.asarray(item)
        rows.append({'shape': list(arr.shape), 'dtype': str(arr.dtype), 'values': arr.tolist()})
    digest = hashlib.sha256(b''.join(np.ascontiguousarray(a).tobytes() for a in inputs))
    print(%r + json.dumps({'sequence': isinstance(out, (list, tuple)), 'outputs': rows,
                           'inputs_digest': digest.hexdigest()[:16]}))
''' % RESULT_PREFIX

SOFTMAX_SOURCE = '''\
def _softmax(a, axis=-1):
    e = np.exp(a.astype('float64') - a.astype('float64').max(axis, keepdims=True))
    return (e / e.sum(axis, keepdims=True)).astype(a.dtype)
'''


#: Legacy APIs every program of a mode runs (see ``program``): an entry for one of them
#: needs no example of its own, the proven programs of that mode exercise it.
SCAFFOLDING = {
    "dygraph": ("paddle.fluid.dygraph.guard", "paddle.fluid.dygraph.to_variable"),
    "static": ("paddle.fluid.Program", "paddle.fluid.unique_name.guard",
               "paddle.fluid.program_guard", "paddle.fluid.data", "paddle.fluid.Executor",
               "paddle.fluid.CPUPlace"),
}


class ExampleError(ValueError):
    """An example that cannot be turned into a program (bad generator, missing code)."""


def _literal(node, src):
    try:
        return ast.literal_eval(node)
    except ValueError:
        raise ExampleError("generator %r: arguments must be literals" % src)


def _shape(args, src):
    if len(args) == 1 and isinstance(args[0], (tuple, list)):
        args = args[0]
    for a in args:
        if not isinstance(a, int) or isinstance(a, bool) or a < 0:
            raise ExampleError("generator %r: shape must be non-negative integers" % src)
    return tuple(args)


def _dtype(kwargs, default, src):
    dtype = kwargs.pop("dtype", default)
    if kwargs:
        raise ExampleError("generator %r: unknown keyword(s) %s" % (src, sorted(kwargs)))
    if not isinstance(dtype, str):
        raise ExampleError("generator %r: dtype must be a string" % src)
    return dtype


def _gen(node, src):
    """numpy source for one generator call node, plus whether it needs ``_softmax``."""
    if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)):
        raise ExampleError("generator %r: expected a call like rand(2, 3)" % src)
    name = node.func.id
    kwargs = dict((k.arg, k.value) for k in node.keywords)
    if name == "softmax":
        if len(node.args) != 1:
            raise ExampleError("generator %r: softmax takes one generator" % src)
        axis = _literal(kwargs.pop("axis"), src) if "axis" in kwargs else -1
        if kwargs:
            raise ExampleError("generator %r: unknown keyword(s) %s" % (src, sorted(kwargs)))
        inner, _ = _gen(node.args[0], src)
        return "_softmax(%s, axis=%d)" % (inner, axis), True
    args = [_literal(a, src) for a in node.args]
    kw = dict((k, _literal(v, src)) for k, v in kwargs.items())
    if name in ("rand", "randn"):
        dtype = _dtype(kw, "float32", src)
        method = "random_sample" if name == "rand" else "standard_normal"
        return "_rs.%s(%r).astype(%r)" % (method, _shape(args, src), dtype), False
    if name == "randint":
        if len(args) != 3:
            raise ExampleError("generator %r: randint(low, high, shape)" % src)
        low, high, shape = args
        shape = _shape([shape] if isinstance(shape, int) else [tuple(shape)], src)
        dtype = _dtype(kw, "int64", src)
        return "_rs.randint(%r, %r, size=%r).astype(%r)" % (low, high, shape, dtype), False
    if name == "const":
        if len(args) < 2 or len(args) > 3:
            raise ExampleError("generator %r: const(value, shape, dtype='float32')" % src)
        if len(args) == 3:
            kw["dtype"] = args[2]
        dtype = _dtype(kw, "float32", src)
        shape = _shape([args[1]] if isinstance(args[1], int) else [tuple(args[1])], src)
        return "np.full(%r, %r, dtype=%r)" % (shape, args[0], dtype), False
    raise ExampleError("generator %r: unknown generator %r (rand, randn, randint, softmax, "
                       "const)" % (src, name))


def generator_source(src):
    """numpy source text for a generator string such as ``"rand(2, 3)"``."""
    try:
        tree = ast.parse(src.strip(), mode="eval")
    except SyntaxError:
        raise ExampleError("generator %r is not a Python expression" % src)
    return _gen(tree.body, src)


def example_modes(example, entry_mode="any"):
    """The modes an example runs in: its ``modes`` or what the entry's mode allows."""
    modes = example.get("modes")
    if modes is None:
        modes = list(MODES) if entry_mode == "any" else [entry_mode]
    for m in modes:
        if m not in MODES:
            raise ExampleError("unknown mode %r (dygraph, static)" % m)
    return list(modes)


def _digest(obj):
    text = json.dumps(obj, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


#: the legacy engines an example can be recorded on (example ``engine``): Paddle 1.8.5,
#: and Paddle 2.0.2 for names that first appeared in 2.0's ``paddle.fluid``
ENGINES = ("1.8", "2.0")
DEFAULT_ENGINE = "1.8"


def example_engine(example):
    """The legacy engine an example's golden comes from (``"1.8"`` unless it says)."""
    engine = example.get("engine", DEFAULT_ENGINE)
    if engine not in ENGINES:
        raise ExampleError("unknown engine %r (%s)" % (engine, ", ".join(ENGINES)))
    return engine


def example_code(example, mode):
    """The example's legacy code in ``mode``: its ``<mode>_code`` when it has one (a mode
    where part of ``code`` has no automatic rewrite, e.g. ``BatchNorm(is_test=True)`` in a
    static program), else ``code``."""
    return example.get(mode + "_code") or example.get("code", "")


def example_digest(example, mode):
    """Digest of what an example means in one mode (a changed example = a stale golden)."""
    meaning = {"inputs": example.get("inputs", {}), "code": example_code(example, mode),
               "mode": mode}
    if example.get("engine", DEFAULT_ENGINE) != DEFAULT_ENGINE:
        meaning["engine"] = example["engine"]
    return _digest(meaning)


def program_digest(text):
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


def _indent(code, prefix):
    return "".join(prefix + line if line.strip() else line
                   for line in code.splitlines(True)).rstrip() + "\n"


def program(example, mode, title=""):
    """The complete legacy program for ``example`` in ``mode`` (``dygraph``/``static``)."""
    if mode not in MODES:
        raise ExampleError("unknown mode %r (dygraph, static)" % mode)
    code = example_code(example, mode)
    if not isinstance(code, str) or not code.strip():
        raise ExampleError("example has no code")
    inputs = example.get("inputs", {}) or {}
    lines = []
    needs_softmax = False
    for name, src in inputs.items():
        if not (isinstance(name, str) and name.isidentifier()):
            raise ExampleError("input name %r is not an identifier" % (name,))
        if not isinstance(src, str):
            raise ExampleError("input %s: generator must be a string" % name)
        expr, soft = generator_source(src)
        needs_softmax = needs_softmax or soft
        lines.append("%s_np = %s\n" % (name, expr))
    names = list(inputs)
    arrays = "(%s)" % "".join("%s_np, " % n for n in names)
    head = "# Proof program%s (%s mode), generated from the rule's example.\n" % (
        (" for " + title) if title else "", mode)
    out = [head, "import hashlib\nimport json\n\nimport numpy as np\n"
           "import paddle.fluid as fluid\n\n\n", EMIT_SOURCE, "\n\n"]
    if needs_softmax:
        out += [SOFTMAX_SOURCE, "\n\n"]
    out.append("_rs = np.random.RandomState(%d)\n" % SEED)
    out += lines
    if mode == "dygraph":
        out.append("with fluid.dygraph.guard():\n")
        for n in names:
            out.append("    %s = fluid.dygraph.to_variable(%s_np)\n" % (n, n))
        out.append(_indent(code, "    "))
        out.append("    _emit(out, %s)\n" % arrays)
    else:
        out.append("_main = fluid.Program()\n_startup = fluid.Program()\n")
        out.append("with fluid.unique_name.guard():\n")
        out.append("    with fluid.program_guard(_main, _startup):\n")
        for n in names:
            out.append("        %s = fluid.data(name=%r, shape=list(%s_np.shape), dtype=str(%s_np.dtype))\n"
                       % (n, n, n, n))
        out.append(_indent(code, "        "))
        # plain Python/numpy values in out are emitted as they are; graph values fetched
        out.append("_outs = list(out) if isinstance(out, (list, tuple)) else [out]\n")
        out.append("_plain = (bool, int, float, str, np.ndarray, np.generic)\n")
        out.append("_fetch = [o for o in _outs if not isinstance(o, _plain)]\n")
        out.append("_exe = fluid.Executor(fluid.CPUPlace())\n")
        out.append("_exe.run(_startup)\n")
        feed = "{%s}" % ", ".join("%r: %s_np" % (n, n) for n in names)
        out.append("_got = iter(_exe.run(_main, feed=%s, fetch_list=_fetch))\n" % feed)
        out.append("_vals = [o if isinstance(o, _plain) else next(_got) for o in _outs]\n")
        out.append("_emit(_vals if isinstance(out, (list, tuple)) else _vals[0], %s)\n" % arrays)
    return "".join(out)


def parse_output(text):
    """The last ``PROOF-RESULT`` payload printed in ``text``, or None."""
    found = None
    for line in text.splitlines():
        if line.startswith(RESULT_PREFIX):
            found = json.loads(line[len(RESULT_PREFIX):])
    return found


def _flat(values):
    if isinstance(values, list):
        for v in values:
            for x in _flat(v):
                yield x
    else:
        yield values


def _close(a, b, rtol, atol):
    if isinstance(a, bool) or isinstance(b, bool) or a is None or b is None:
        return a == b
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        if isinstance(a, float) and isinstance(b, float) and math.isnan(a) and math.isnan(b):
            return True
        if a == b:
            return True
        return abs(a - b) <= atol + rtol * abs(b)
    return a == b


def compare(expected, actual, rtol=DEFAULT_RTOL, atol=DEFAULT_ATOL, legacy="1.8.5"):
    """None when ``actual`` matches ``expected`` (both emission payloads), else why not;
    ``legacy`` names the engine that recorded ``expected`` in the message."""
    if expected.get("sequence") != actual.get("sequence"):
        return "out is %s on %s but %s here" % (
            "a list/tuple" if expected.get("sequence") else "a single value", legacy,
            "a list/tuple" if actual.get("sequence") else "a single value")
    exp, act = expected["outputs"], actual["outputs"]
    if len(exp) != len(act):
        return "%d outputs on %s, %d here" % (len(exp), legacy, len(act))
    if expected.get("inputs_digest") and actual.get("inputs_digest") \
            and expected["inputs_digest"] != actual["inputs_digest"]:
        return "the generated inputs differ from the recorded ones (numpy stream changed?)"
    for i, (e, a) in enumerate(zip(exp, act)):
        where = "out" if len(exp) == 1 and not expected.get("sequence") else "out[%d]" % i
        if e["shape"] != a["shape"]:
            return "%s: shape %s on %s, %s here" % (where, e["shape"], legacy, a["shape"])
        if e["dtype"] != a["dtype"]:
            return "%s: dtype %s on %s, %s here" % (where, e["dtype"], legacy, a["dtype"])
        ev, av = list(_flat(e["values"])), list(_flat(a["values"]))
        bad = [k for k, (x, y) in enumerate(zip(ev, av)) if not _close(y, x, rtol, atol)]
        if bad or len(ev) != len(av):
            k = bad[0] if bad else min(len(ev), len(av))
            return "%s: %d of %d values differ (rtol=%g, atol=%g); first at flat index %d: " \
                   "%s %r, here %r" % (where, len(bad), len(ev), rtol, atol, k, legacy,
                                          ev[k] if k < len(ev) else None,
                                          av[k] if k < len(av) else None)
    return None
