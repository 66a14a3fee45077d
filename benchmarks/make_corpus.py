"""Generate the benchmark corpus: a Python tree of a given size, ~5% legacy files.

    python benchmarks/make_corpus.py                 # 100k and 1M lines (default)
    python benchmarks/make_corpus.py --sizes 100k    # just one
    python benchmarks/make_corpus.py --force         # regenerate even if up to date

Writes ``benchmarks/corpus/<size>/`` (gitignored) with a package tree of modules and a
``MANIFEST.json`` (files, lines, legacy files and lines, generator version and seed).
Deterministic for a given seed. Three kinds of files:

* plain Python (most files): classes, dataclasses, functions, numpy code, config
  parsing, loops, comprehensions, exceptions; mentions neither ``paddle`` nor ``fluid``;
* modern Paddle code (about a fifth of the non-legacy files): ``paddle.nn.Layer``
  models, ``paddle.io`` loaders, training loops (``for batch in loader``: a word the
  prefilter has to look at twice);
* legacy files (``--legacy-fraction``, default 5% of files): the legacy sample programs
  (``fixtures/programs/*.py``) and modules assembled from the rule book's examples
  (``rules/*.toml`` ``example.code``), each example in its own function, some under
  ``with fluid.dygraph.guard():``, interleaved with plain code.

Line endings are LF only (the anchor tool refuses CRLF).
"""
from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import sys
import textwrap
from pathlib import Path
from typing import Dict, List, Tuple

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "benchmarks" / "corpus"
GENERATOR_VERSION = 3
SIZES = {"100k": 100_000, "1M": 1_000_000}

sys.path.insert(0, str(ROOT))

WORDS = ("user account order item price stock batch_size record event queue task job worker "
         "frame image pixel vector matrix tensor signal sample window buffer cache index key "
         "value node edge graph path route score weight bias grad loss metric epoch step "
         "config option flag level depth width height channel kernel stride offset count "
         "total mean std var scale shift rate ratio delta alpha beta gamma theta label target "
         "source sink stream chunk block page token word sentence doc corpus vocab embed "
         "feature mask region box anchor point line shape size dim axis rank order mode").split()
CLASS_WORDS = ("Manager Handler Processor Builder Loader Store Registry Cache Pipeline "
               "Scheduler Tracker Monitor Encoder Decoder Parser Validator Reader Writer "
               "Sampler Transformer Aggregator Collector Resolver Planner Runner").split()
NP_FUNCS = ("np.mean", "np.std", "np.sum", "np.max", "np.min", "np.abs", "np.sqrt", "np.exp",
            "np.log1p", "np.tanh", "np.cumsum", "np.sort", "np.argsort", "np.clip")


class Gen:
    """Random but plausible Python modules."""

    def __init__(self, rng: random.Random):
        self.r = rng

    # ------------------------------------------------------------------- names
    def word(self) -> str:
        return self.r.choice(WORDS)

    def ident(self, n: int = 2) -> str:
        return "_".join(self.r.sample(WORDS, n))

    def cls(self) -> str:
        w = self.r.choice(WORDS).split("_")
        return "".join(p.capitalize() for p in w) + self.r.choice(CLASS_WORDS)

    # ------------------------------------------------------------------ pieces
    def expr(self, names: List[str]) -> str:
        a = self.r.choice(names)
        b = self.r.choice(names)
        return self.r.choice([
            f"{a} + {b}", f"{a} * {self.r.randint(2, 9)}", f"{self.r.choice(NP_FUNCS)}({a})",
            f"({a} - {b}) / ({b} + 1e-6)",
            f"np.dot({a}, {b})", f"{a}[{self.r.randint(0, 3)}]", f"len({a})",
            f"abs({a} - {b})", f"min({a}, {b})", f"{a} ** 2", f"np.asarray({a}, dtype=np.float32)",
        ])

    def body_stmt(self, names: List[str], indent: str) -> List[str]:
        v = self.ident()
        k = self.r.randint(0, 11)
        e = self.expr(names)
        if k == 0:
            out = [f"for {self.word()}_i in range({self.r.randint(2, 64)}):",
                   f"    {v} = {e}", f"    if {v} is None:", "        continue"]
        elif k == 1:
            out = [f"if {self.r.choice(names)} is not None and {self.r.choice(names)}:",
                   f"    {v} = {e}", "else:", f"    {v} = {self.r.choice(['None', '0', '[]'])}"]
        elif k == 2:
            out = [f"{v} = [i * {self.r.randint(2, 5)} for i in range({self.r.randint(3, 20)}) if i % 2]"]
        elif k == 3:
            out = ["try:", f"    {v} = {e}", "except (ValueError, ZeroDivisionError) as exc:",
                   f"    logger.warning(\"{self.word()} failed: %s\", exc)", f"    {v} = None"]
        elif k == 4:
            out = [f"{v} = {{k: v for k, v in zip({self.r.choice(names)}, range(10))}}"]
        elif k == 5:
            out = [f"logger.debug(\"{self.word()}=%r {self.word()}=%r\", {self.r.choice(names)}, {self.r.choice(names)})"]
            v = None
        elif k == 6:
            out = [f"{v} = np.zeros(({self.r.randint(2, 64)}, {self.r.randint(2, 64)}), dtype=np.float32)",
                   f"{v}[:, 0] = {self.r.randint(0, 9)}"]
        elif k == 7:
            out = [f"with open(os.path.join(base_dir, \"{self.word()}.json\")) as fh:",
                   f"    {v} = json.load(fh)"]
        elif k == 8:
            out = [f"{v} = f\"{{{self.r.choice(names)}}}-{self.word()}\""]
        elif k == 9:
            out = [f"while {self.r.choice(names)} and len(stack) < {self.r.randint(4, 99)}:",
                   f"    stack.append({e})", "    break"]
            v = None
        else:
            out = [f"{v} = {e}"]
        if v:
            names.append(v)
        return [indent + line for line in out]

    def function(self, indent: str = "", method: bool = False) -> List[str]:
        name = self.ident()
        params = self.r.sample(WORDS, self.r.randint(1, 4))
        names = list(params)
        n_plain = self.r.randint(0, len(params))
        sig = ", ".join((["self"] if method else []) + params[:n_plain] +
                        [f"{p}: float = {self.r.randint(0, 9)}" for p in params[n_plain:]])
        lines = [f"{indent}def {name}({sig}):",
                 f"{indent}    \"\"\"{self.word().capitalize()} the {self.word()} by {self.word()}.\"\"\"",
                 f"{indent}    stack = []", f"{indent}    base_dir = os.getcwd()"]
        for _ in range(self.r.randint(3, 12)):
            lines += self.body_stmt(names, indent + "    ")
        lines.append(f"{indent}    return {self.r.choice(names)}")
        return lines

    def klass(self) -> List[str]:
        name = self.cls()
        fields = self.r.sample(WORDS, self.r.randint(2, 5))
        if self.r.random() < 0.3:
            lines = ["@dataclasses.dataclass", f"class {name}:",
                     f"    \"\"\"A {self.word()} {self.word()}.\"\"\""]
            for f in fields:
                lines.append(f"    {f}: {self.r.choice(['int', 'float', 'str'])} = "
                             f"{self.r.choice(['0', '1.0', repr(self.word())])}")
            lines.append("")
            lines += self.function("    ", method=True)
            return lines
        lines = [f"class {name}({self.r.choice(['object', 'Base', 'dict'])}):",
                 f"    \"\"\"{self.word().capitalize()} {self.word()} {self.word()}.\"\"\"", "",
                 f"    def __init__(self, {', '.join(fields)}):"]
        for f in fields:
            lines.append(f"        self.{f} = {f}")
        lines.append("        self._cache = {}")
        for _ in range(self.r.randint(1, 4)):
            lines.append("")
            if self.r.random() < 0.3:
                lines += ["    @property", f"    def {self.ident()}(self):",
                          f"        return self.{self.r.choice(fields)}"]
            else:
                lines += self.function("    ", method=True)
        return lines

    def header(self) -> List[str]:
        return [f"\"\"\"{self.word().capitalize()} {self.word()} utilities for the "
                f"{self.word()} {self.r.choice(CLASS_WORDS).lower()}.\"\"\"",
                "import dataclasses", "import json", "import logging", "import os",
                "from collections import defaultdict",
                "from typing import Dict, List, Optional", "", "import numpy as np", "",
                "logger = logging.getLogger(__name__)",
                f"DEFAULT_{self.word().upper()} = {self.r.randint(1, 512)}",
                "", "", "class Base(object):", "    pass", ""]

    def plain_module(self, target_lines: int) -> str:
        lines = self.header()
        while len(lines) < target_lines:
            lines += [""] + (self.klass() if self.r.random() < 0.4 else self.function()) + [""]
        if self.r.random() < 0.3:
            lines += ["", "if __name__ == \"__main__\":", f"    print({self.ident()!r})"]
        return "\n".join(lines) + "\n"

    def modern_paddle_module(self, target_lines: int) -> str:
        lines = ["\"\"\"Model and training loop.\"\"\"", "import numpy as np", "import paddle",
                 "import paddle.nn as nn", "import paddle.nn.functional as F",
                 "from paddle.io import DataLoader, Dataset", "", ""]
        while len(lines) < target_lines:
            name = self.cls().replace("Manager", "Net")
            h = self.r.choice([16, 32, 64, 128])
            lines += [
                f"class {name}(nn.Layer):",
                f"    def __init__(self, in_dim={self.r.randint(4, 64)}, hidden={h}, classes=10):",
                "        super().__init__()",
                "        self.fc1 = nn.Linear(in_dim, hidden)",
                "        self.fc2 = nn.Linear(hidden, classes)",
                f"        self.drop = nn.Dropout({self.r.choice([0.1, 0.2, 0.5])})", "",
                "    def forward(self, x):",
                "        x = F.relu(self.fc1(x))",
                "        x = self.drop(x)",
                "        return self.fc2(x)", "", "",
                f"class {name}Data(Dataset):",
                "    def __init__(self, n=256, dim=8):",
                "        self.x = np.random.rand(n, dim).astype('float32')",
                "        self.y = np.random.randint(0, 10, (n, 1)).astype('int64')", "",
                "    def __getitem__(self, i):", "        return self.x[i], self.y[i]", "",
                "    def __len__(self):", "        return len(self.x)", "", "",
                f"def train_{self.ident()}(epochs={self.r.randint(1, 5)}, lr={self.r.choice([0.1, 0.01, 1e-3])}):",
                f"    model = {name}(in_dim=8)",
                f"    loader = DataLoader({name}Data(), batch_size={self.r.choice([16, 32])}, shuffle=True)",
                "    opt = paddle.optimizer.Adam(learning_rate=lr, parameters=model.parameters())",
                "    for epoch in range(epochs):",
                "        for batch in loader:",
                "            x, y = batch",
                "            loss = F.cross_entropy(model(x), y)",
                "            loss.backward()",
                "            opt.step()",
                "            opt.clear_grad()",
                "    return model", "", ""]
            lines += self.function() + [""]
        return "\n".join(lines) + "\n"


# ----------------------------------------------------------------------------- legacy

def rule_examples() -> List[Tuple[str, dict]]:
    from upgrader.rulebook import load
    out = []
    for e in load():
        ex = e.example or {}
        if ex.get("code"):
            out.append((e.name, ex))
    return out


def fixture_programs() -> List[str]:
    progs = []
    for p in sorted((ROOT / "fixtures" / "programs").glob("*.py")):
        progs.append(p.read_text(encoding="utf-8").replace("\r\n", "\n").replace("\r", "\n"))
    return progs


def legacy_module(gen: Gen, examples: List[Tuple[str, dict]], target_lines: int) -> str:
    """Rule-book examples, each in a function (some under a dygraph guard), mixed with
    plain code."""
    r = gen.r
    alias = r.choice(["import paddle.fluid as fluid", "from paddle import fluid"])
    lines = ["\"\"\"Legacy Paddle 1.x model code.\"\"\"", "import os", "import json",
             "import logging", "", "import numpy as np", alias, "",
             "logger = logging.getLogger(__name__)", "", ""]
    i = 0
    while len(lines) < target_lines:
        if r.random() < 0.35:
            lines += gen.function() + ["", ""]
            continue
        name, ex = r.choice(examples)
        inputs = list((ex.get("inputs") or {}).keys())
        code = textwrap.dedent(ex["code"]).strip("\n")
        i += 1
        fn = f"def {name.rsplit('.', 1)[-1].lower()}_case_{i}({', '.join(inputs)}):"
        modes = ex.get("modes") or ["dygraph", "static"]
        if "dygraph" in modes and r.random() < 0.3:
            body = ["    with fluid.dygraph.guard():"] + \
                ["        " + l if l.strip() else l for l in code.splitlines()] + ["        return out"]
        else:
            body = ["    " + l if l.strip() else l for l in code.splitlines()] + ["    return out"]
        lines += [fn] + body + ["", ""]
    return "\n".join(lines) + "\n"


# ----------------------------------------------------------------------------- corpus

def build(size: str, total_lines: int, legacy_fraction: float, seed: int, force: bool) -> dict:
    out = OUT / size
    manifest_path = out / "MANIFEST.json"
    want = {"generator": GENERATOR_VERSION, "seed": seed, "target_lines": total_lines,
            "legacy_fraction": legacy_fraction}
    if manifest_path.exists() and not force:
        m = json.loads(manifest_path.read_text())
        if all(m.get(k) == v for k, v in want.items()):
            print(f"{out}: up to date ({m['lines']} lines, {m['files']} files)")
            return m
    if out.exists():
        shutil.rmtree(out)
    out.mkdir(parents=True)
    rng = random.Random(f"{seed}-{size}")
    gen = Gen(rng)
    examples = rule_examples()
    programs = fixture_programs()
    files: Dict[str, str] = {}
    legacy: List[str] = []
    lines = 0
    n = 0
    while lines < total_lines:
        pkg = f"pkg{n // 400:02d}/sub{(n // 40) % 10:02d}"
        path = f"{pkg}/module_{n:05d}.py"
        size_lines = int(rng.lognormvariate(5.0, 0.55))  # median ~150 lines, long tail
        size_lines = max(30, min(size_lines, 1500))
        if rng.random() < legacy_fraction:
            if programs and rng.random() < 0.4:
                text = rng.choice(programs)
            else:
                text = legacy_module(gen, examples, size_lines)
            legacy.append(path)
        elif rng.random() < 0.2:
            text = gen.modern_paddle_module(size_lines)
        else:
            text = gen.plain_module(size_lines)
        files[path] = text
        lines += text.count("\n")
        n += 1
    for path, text in files.items():
        p = out / path
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_bytes(text.encode("utf-8"))
    for d in {p.parent for p in out.rglob("*.py")}:
        (d / "__init__.py").touch()
    # the tree is its own project: config root and cache stay inside it
    (out / "pyproject.toml").write_text("[tool.paddle-upgrade]\n", encoding="utf-8")
    legacy_lines = sum(files[p].count("\n") for p in legacy)
    m = dict(want, files=len(files), lines=lines, legacy_files=len(legacy),
             legacy_lines=legacy_lines, bytes=sum(len(t.encode()) for t in files.values()),
             rule_examples=len(examples), fixture_programs=len(programs))
    manifest_path.write_text(json.dumps(m, indent=2) + "\n")
    print(f"{out}: {m['files']} files, {lines} lines, {len(legacy)} legacy files "
          f"({legacy_lines} lines)")
    return m


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sizes", nargs="+", default=list(SIZES), choices=list(SIZES))
    ap.add_argument("--legacy-fraction", type=float, default=0.05)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--force", action="store_true")
    a = ap.parse_args(argv)
    for s in a.sizes:
        build(s, SIZES[s], a.legacy_fraction, a.seed, a.force)
    return 0


if __name__ == "__main__":
    sys.exit(main())
