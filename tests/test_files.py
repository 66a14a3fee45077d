"""Discovery, reading with the file's own encoding, atomic writes that never lose code."""
import hashlib
import os
import stat
from pathlib import Path

import pytest

from upgrader.files import (TEMP_SUFFIX, FileError, decode_python, discover, read_source,
                            write_source)


def touch(p: Path, text="x = 1\n"):
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_text(text)
    return p


# ------------------------------------------------------------------------ discovery

def test_discover_finds_py_and_ipynb_and_skips_default_excludes(tmp_path):
    touch(tmp_path / "a.py")
    touch(tmp_path / "pkg" / "b.py")
    touch(tmp_path / "nb.ipynb", "{}")
    touch(tmp_path / "README.md")
    for skipped in (".venv/lib/x.py", ".git/hooks/h.py", "pkg/__pycache__/c.py",
                    "build/lib/d.py", "node_modules/e.py", "dist/f.py", "x.egg-info/g.py",
                    ".ipynb_checkpoints/nb-checkpoint.ipynb", ".tox/py/h.py"):
        touch(tmp_path / skipped)
    files, errors = discover([tmp_path])
    rel = sorted(p.relative_to(tmp_path).as_posix() for p in files)
    assert rel == ["a.py", "nb.ipynb", "pkg/b.py"]
    assert errors == []


def test_exclude_replaces_defaults_extend_exclude_adds(tmp_path):
    touch(tmp_path / "build" / "a.py")
    touch(tmp_path / "legacy" / "old.py")
    touch(tmp_path / "src" / "new.py")
    files, _ = discover([tmp_path], extend_exclude=["legacy"])
    assert {p.name for p in files} == {"new.py"}
    files, _ = discover([tmp_path], exclude=["legacy"])
    assert {p.name for p in files} == {"a.py", "new.py"}
    files, _ = discover([tmp_path], extend_exclude=["src/*.py"])
    assert {p.name for p in files} == {"old.py"}


def test_explicit_file_is_processed_even_in_a_default_excluded_dir(tmp_path):
    f = touch(tmp_path / "build" / "keep.py")
    files, errors = discover([f])
    assert files == [f] and errors == []
    files, _ = discover([f], extend_exclude=["keep.py"])
    assert files == []


def test_missing_path_is_an_error_and_others_proceed(tmp_path):
    a = touch(tmp_path / "a.py")
    files, errors = discover([tmp_path / "nope.py", a])
    assert files == [a]
    assert len(errors) == 1 and "no such file" in errors[0].message
    assert errors[0].path.endswith("nope.py")


def test_same_file_given_twice_or_via_symlink_is_processed_once(tmp_path):
    a = touch(tmp_path / "a.py")
    (tmp_path / "link.py").symlink_to(a)
    files, _ = discover([a, tmp_path, a])
    assert len(files) == 1


def test_symlinks_pointing_outside_the_roots_are_not_followed(tmp_path):
    outside = tmp_path / "outside"
    touch(outside / "secret.py")
    root = tmp_path / "root"
    touch(root / "mine.py")
    (root / "ext.py").symlink_to(outside / "secret.py")
    (root / "extdir").symlink_to(outside, target_is_directory=True)
    files, errors = discover([root])
    assert [p.name for p in files] == ["mine.py"]
    assert errors == []


def test_explicit_non_python_file_is_reported(tmp_path):
    f = touch(tmp_path / "notes.txt")
    files, errors = discover([f])
    assert files == [] and "not a Python file" in errors[0].message


def test_explicit_script_without_suffix_but_python_shebang(tmp_path):
    f = touch(tmp_path / "train", "#!/usr/bin/env python\nimport os\n")
    assert discover([f])[0] == [f]


# --------------------------------------------------------------------------- reading

def test_utf8_bom_is_detected_and_removed_from_text(tmp_path):
    f = tmp_path / "a.py"
    f.write_bytes(b"\xef\xbb\xbfx = '\xc3\xa9'\n")
    sf = read_source(f)
    assert sf.bom and sf.encoding == "utf-8" and sf.text == "x = 'é'\n"
    assert sf.digest == hashlib.sha256(f.read_bytes()).hexdigest()


@pytest.mark.parametrize("cookie,codec,sample", [
    ("# -*- coding: gbk -*-", "gbk", "# 中文注释：定义网络\n"),
    ("# coding=latin-1", "iso8859-1", "# café à la crème\n"),
    ("# vim: set fileencoding=gb2312 :", "gb2312", "# 训练\n"),
])
def test_pep263_cookie_decides_the_encoding(tmp_path, cookie, codec, sample):
    f = tmp_path / "a.py"
    text = f"{cookie}\n{sample}x = 1\n"
    f.write_bytes(text.encode(codec))
    sf = read_source(f)
    assert sf.text == text and not sf.bom
    assert sf.encoding.replace("_", "").replace("-", "") == codec.replace("-", "")


def test_cookie_on_second_line_after_shebang(tmp_path):
    f = tmp_path / "a.py"
    text = "#!/usr/bin/env python\n# -*- coding: gbk -*-\n# 模型\n"
    f.write_bytes(text.encode("gbk"))
    assert read_source(f).text == text


def test_undecodable_file_names_path_and_line(tmp_path):
    f = tmp_path / "a.py"
    f.write_bytes("x = 1\n# 中文\n".encode("gbk"))  # no cookie: decoded as UTF-8
    with pytest.raises(FileError) as ei:
        read_source(f)
    assert ei.value.line == 2 and ei.value.path == str(f)
    assert "coding" in ei.value.message


def test_unknown_cookie_is_reported(tmp_path):
    f = tmp_path / "a.py"
    f.write_bytes(b"# -*- coding: nosuchcodec -*-\nx = 1\n")
    with pytest.raises(FileError) as ei:
        read_source(f)
    assert ei.value.line == 1 and "encoding" in ei.value.message


def test_binary_and_huge_files_are_skipped_with_a_message(tmp_path):
    b = tmp_path / "b.py"
    b.write_bytes(b"\x00\x01\x02binary")
    with pytest.raises(FileError, match="binary"):
        read_source(b)
    h = tmp_path / "h.py"
    h.write_bytes(b"x = 1\n" * 2000)
    with pytest.raises(FileError, match="too large"):
        read_source(h, max_bytes=1000)


def test_crlf_and_mixed_newlines_are_kept_in_text(tmp_path):
    f = tmp_path / "a.py"
    f.write_bytes(b"a = 1\r\nb = 2\nc = 3\r")
    assert read_source(f).text == "a = 1\r\nb = 2\nc = 3\r"


def test_decode_python_no_cookie_is_utf8():
    assert decode_python("x", "x = 'é'\n".encode()) == ("x = 'é'\n", "utf-8", False)


# --------------------------------------------------------------------------- writing

def roundtrip(tmp_path, raw: bytes, new_text_fn):
    f = tmp_path / "a.py"
    f.write_bytes(raw)
    sf = read_source(f)
    write_source(sf, new_text_fn(sf.text))
    return f.read_bytes()


def test_write_keeps_bom_and_encoding(tmp_path):
    raw = "\ufeff# 中文\nx = fluid\n".encode("utf-8")
    out = roundtrip(tmp_path, raw, lambda t: t.replace("fluid", "paddle"))
    assert out == "\ufeff# 中文\nx = paddle\n".encode("utf-8")
    raw = "# -*- coding: gbk -*-\n# 中文\r\nx = fluid\r\n".encode("gbk")
    out = roundtrip(tmp_path, raw, lambda t: t.replace("fluid", "paddle"))
    assert out == "# -*- coding: gbk -*-\n# 中文\r\nx = paddle\r\n".encode("gbk")


def test_write_is_atomic_and_keeps_mode(tmp_path):
    f = tmp_path / "a.py"
    f.write_text("x = 1\n")
    os.chmod(f, 0o751)
    sf = read_source(f)
    write_source(sf, "x = 2\n")
    assert f.read_text() == "x = 2\n"
    assert stat.S_IMODE(os.stat(f).st_mode) == 0o751
    assert not [p for p in tmp_path.iterdir() if p.name.endswith(TEMP_SUFFIX)]


def test_write_refuses_when_file_changed_since_read(tmp_path):
    f = tmp_path / "a.py"
    f.write_text("x = 1\n")
    sf = read_source(f)
    f.write_text("x = 1  # edited by the user meanwhile\n")
    with pytest.raises(FileError, match="changed on disk"):
        write_source(sf, "x = 2\n")
    assert f.read_text() == "x = 1  # edited by the user meanwhile\n"


def test_read_only_file_is_reported_not_replaced(tmp_path):
    f = tmp_path / "a.py"
    f.write_text("x = 1\n")
    os.chmod(f, 0o444)
    sf = read_source(f)
    with pytest.raises(FileError, match="read-only"):
        write_source(sf, "x = 2\n")
    assert f.read_text() == "x = 1\n"


def test_unencodable_rewrite_is_refused(tmp_path):
    f = tmp_path / "a.py"
    f.write_bytes(b"# -*- coding: latin-1 -*-\nx = 1\n")
    sf = read_source(f)
    with pytest.raises(FileError, match="cannot be encoded"):
        write_source(sf, "# -*- coding: latin-1 -*-\nx = '中'\n")
    assert f.read_bytes() == b"# -*- coding: latin-1 -*-\nx = 1\n"


def test_write_through_symlink_updates_target_and_keeps_link(tmp_path):
    target = tmp_path / "real.py"
    target.write_text("x = 1\n")
    link = tmp_path / "link.py"
    link.symlink_to(target)
    write_source(read_source(link), "x = 2\n")
    assert link.is_symlink() and target.read_text() == "x = 2\n"


def test_backup_keeps_the_original(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    f = touch(tmp_path / "pkg" / "a.py", "old\n")
    write_source(read_source(Path("pkg/a.py")), "new\n", backup_dir=tmp_path / "bak")
    assert f.read_text() == "new\n"
    assert (tmp_path / "bak" / "pkg" / "a.py").read_text() == "old\n"
