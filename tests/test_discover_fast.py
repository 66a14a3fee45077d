"""``files.discover`` (one precompiled regex, ``os.scandir``, real paths from the root)
finds exactly what the straightforward walk finds: ``os.walk`` + ``is_excluded`` on every
path + ``realpath`` on every file, the implementation it replaced (kept here as the
reference)."""
import os
import random
from pathlib import Path

import pytest

from upgrader.files import (DEFAULT_EXCLUDES, NOTEBOOK_SUFFIX, PYTHON_SUFFIXES, SHELL_SUFFIX,
                            SUFFIXES, FileError, _has_python_shebang, _inside, discover,
                            is_excluded)


def reference_discover(paths, exclude=None, extend_exclude=(), *, config_root=None):
    dir_patterns = tuple(DEFAULT_EXCLUDES if exclude is None else exclude) + tuple(extend_exclude)
    user_patterns = (tuple(exclude) if exclude is not None else ()) + tuple(extend_exclude)
    extra_roots = [config_root] if config_root else []
    files, errors, seen = [], [], set()
    paths = [Path(p) for p in paths]
    real_roots = [os.path.realpath(p) for p in paths if os.path.exists(p)]

    def add(p):
        real = os.path.realpath(p)
        if real not in seen:
            seen.add(real)
            files.append(p)

    for root in paths:
        if not os.path.lexists(root):
            errors.append(FileError(root, None, "no such file or directory"))
            continue
        if root.is_file():
            if is_excluded(root, user_patterns, extra_roots):
                continue
            if root.suffix in PYTHON_SUFFIXES or root.suffix in (NOTEBOOK_SUFFIX, SHELL_SUFFIX) or (
                    not root.suffix and _has_python_shebang(root)):
                add(root)
            else:
                errors.append(FileError(root, None, "not a Python file"))
            continue
        if not root.is_dir():
            errors.append(FileError(root, None, "not a regular file or directory; skipped"))
            continue
        found = []
        for dirpath, dirnames, filenames in os.walk(root):
            d = Path(dirpath)
            dirnames[:] = sorted(n for n in dirnames if not is_excluded(
                d / n, dir_patterns, [root, *extra_roots]))
            for name in filenames:
                if not name.endswith(SUFFIXES):
                    continue
                p = d / name
                if is_excluded(p, dir_patterns, [root, *extra_roots]):
                    continue
                if p.is_symlink():
                    real = os.path.realpath(p)
                    if not os.path.isfile(real) or not _inside(real, real_roots):
                        continue
                found.append(p)
        for p in sorted(found, key=lambda q: q.parts):
            add(p)
    return files, errors


NAMES = ["a.py", "b.ipynb", "run.sh", "x.txt", "build", "dist", ".venv", ".venv-3", "src",
         "pkg", "tests", "data", "__pycache__", "foo.egg-info", "a-b.py", "a.b", "deep",
         "node_modules", "keep.py", ".venv-x.py", "venv"]
PATTERNS = [None, [], ["legacy"], ["src/*.py"], ["./build"], ["tests/data"], ["*.sh"],
            ["pkg/"], ["/abs/none"], ["a*"], ["deep/*/a.py"], ["*/pkg"]]


def make_tree(root: Path, rng: random.Random, depth: int = 0):
    for _ in range(rng.randint(1, 6)):
        name = rng.choice(NAMES)
        p = root / name
        if p.exists() or p.is_symlink():
            continue
        roll = rng.random()
        if depth < 3 and (roll < 0.35 or "." not in name):
            p.mkdir()
            make_tree(p, rng, depth + 1)
        elif roll < 0.45 and depth > 0:
            target = rng.choice([root.parent, root.parent / "a.py", root / "zz.py"])
            try:
                p.symlink_to(target)
            except OSError:
                pass
        else:
            p.write_text("import paddle.fluid as fluid\n")


@pytest.mark.parametrize("seed", range(12))
def test_discover_equals_the_straightforward_walk(tmp_path, monkeypatch, seed):
    rng = random.Random(seed)
    tree = tmp_path / "tree"
    tree.mkdir()
    make_tree(tree, rng)
    (tmp_path / "outside.py").write_text("x = 1\n")
    (tree / "out.py").symlink_to(tmp_path / "outside.py")
    subdirs = [p for p in tree.rglob("*") if p.is_dir() and not p.is_symlink()]
    monkeypatch.chdir(rng.choice([tmp_path, tree]))
    for _ in range(6):
        roots = [tree] + rng.sample(subdirs, min(len(subdirs), rng.randint(0, 2)))
        roots += rng.sample([p for p in tree.rglob("*.py")], min(1, len(list(tree.rglob("*.py")))))
        if rng.random() < 0.3:
            roots = [Path(os.path.relpath(r)) for r in roots]
        pats = rng.choice(PATTERNS)
        ext = rng.choice([(), ("pkg",), ("src/*.py",), ("*.ipynb",)])
        cfg_root = rng.choice([None, tmp_path, tree])
        got = discover(roots, pats, ext, config_root=cfg_root)
        want = reference_discover(roots, pats, ext, config_root=cfg_root)
        assert got[0] == want[0], (roots, pats, ext)
        assert [e.path for e in got[1]] == [e.path for e in want[1]]


def test_discover_on_the_repository_equals_the_straightforward_walk():
    root = Path(__file__).resolve().parent.parent
    for args in ([root / "upgrader"], [root / "fixtures", root / "tests"]):
        assert discover(args)[0] == reference_discover(args)[0]
