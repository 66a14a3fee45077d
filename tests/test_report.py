"""Output formats: text (plain / rich), json (contract keys), sarif 2.1.0 (schema-valid),
github workflow commands, statistics."""
import json
import re
from pathlib import Path

import jsonschema
import pytest

from upgrader import report
from upgrader.runner import FileResult, RunReport

SCHEMA = json.loads((Path(report.__file__).parent / "data" / "sarif-schema-2.1.0.json")
                    .read_text(encoding="utf-8"))
KEYS = ["path", "line", "column", "end_line", "end_column", "code", "rule", "message",
        "legacy", "replacement", "fix"]


def finding(path="pkg/a.py", line=3, column=5, code="PU101", fix="safe", **kw):
    d = {"path": path, "line": line, "column": column, "end_line": line,
         "end_column": column + 10, "code": code, "rule": "legacy-api",
         "message": "`fluid.layers.fc` → `paddle.static.nn.fc`", "legacy": "paddle.fluid.layers.fc",
         "replacement": "paddle.static.nn.fc", "fix": fix}
    d.update(kw)
    return d


def make_report(mode="check", findings=None, errors=None, **kw):
    findings = findings if findings is not None else [
        finding(), finding(line=7, code="PU102", fix="manual", replacement=""),
        finding(path="nb.ipynb", line=2, column=1, cell=3),
        finding(path="odd, name:1%.py", line=1, code="PU103", fix="unsafe",
                message="multi\nline 100%")]
    files = {}
    for f in findings:
        fr = files.setdefault(f["path"], FileResult(path=f["path"]))
        fr.findings.append(f)
        fr.remaining.append(f)
    for e in errors or []:
        files.setdefault(e["path"], FileResult(path=e["path"])).errors.append(e)
    return RunReport(mode=mode, files=list(files.values()), **kw)


ERR = {"path": "old.py", "line": 2, "column": 7, "message": "cannot parse: bad input "
       "(Python 2 syntax? this tool needs Python 3 code; run 2to3 first)"}


def test_plain_text_lines_and_summary():
    out = report.render(make_report(errors=[ERR]), fmt="text", color=False)
    lines = out.splitlines()
    assert "pkg/a.py:3:5: PU101 `fluid.layers.fc` → `paddle.static.nn.fc` [*]" in lines
    assert "pkg/a.py:7:5: PU102 `fluid.layers.fc` → `paddle.static.nn.fc`" in lines
    assert any(l.startswith("nb.ipynb:cell 3:2:1: PU101") for l in lines)
    assert "old.py:2:7: error: cannot parse: bad input (Python 2 syntax? this tool needs " \
           "Python 3 code; run 2to3 first)" in lines
    assert "\x1b[" not in out
    assert re.search(r"Found 4 legacy API use\(s\) in 3 file\(s\)", out)


def test_no_color_env_and_non_tty_give_plain_text(monkeypatch):
    monkeypatch.setenv("NO_COLOR", "1")
    assert "\x1b[" not in report.render(make_report(), fmt="text")
    monkeypatch.delenv("NO_COLOR")
    assert not report.use_color(open("/dev/null", "w"))


def test_rich_text_on_a_terminal_has_a_summary_table():
    out = report.render(make_report(), fmt="text", color=True)
    assert "\x1b[" in out
    plain = re.sub(r"\x1b\[[0-9;]*m", "", out)
    assert "pkg/a.py:3:5: PU101" in plain
    assert re.search(r"count.*code.*rule", plain)


def test_json_has_exactly_the_contract_keys():
    data = json.loads(report.render(make_report(errors=[ERR]), fmt="json"))
    assert set(data) == {"findings", "errors", "summary"}
    for f in data["findings"]:
        expected = KEYS + (["cell"] if f["path"].endswith(".ipynb") else [])
        assert list(f) == expected
    assert data["errors"] == [ERR]
    s = data["summary"]
    assert s["findings"] == 4 and s["errors"] == 1 and s["by_code"]["PU101"] == 2
    assert s["by_fix"] == {"safe": 2, "unsafe": 1, "manual": 1}


def test_sarif_is_valid_against_the_official_schema():
    log = json.loads(report.render(make_report(errors=[ERR]), fmt="sarif"))
    jsonschema.validate(log, SCHEMA, format_checker=jsonschema.FormatChecker())
    run = log["runs"][0]
    ids = [r["id"] for r in run["tool"]["driver"]["rules"]]
    assert ids == sorted(set(ids)) == ["PU101", "PU102", "PU103"]
    for r in run["tool"]["driver"]["rules"]:
        assert r["help"]["text"] and r["help"]["markdown"] and r["shortDescription"]["text"]
    for res in run["results"]:
        assert ids[res["ruleIndex"]] == res["ruleId"]
    nb = [r for r in run["results"] if r["properties"].get("cell") == 3]
    assert nb and nb[0]["message"]["text"].startswith("cell 3:")
    assert not run["invocations"][0]["executionSuccessful"]
    assert run["invocations"][0]["toolExecutionNotifications"][0]["message"]["text"] == ERR["message"]


def test_sarif_of_a_clean_run_is_valid():
    log = report.sarif_log(make_report(findings=[]))
    jsonschema.validate(log, SCHEMA)
    assert log["runs"][0]["results"] == [] and log["runs"][0]["invocations"][0]["executionSuccessful"]


def test_sarif_schema_is_the_official_one():
    assert SCHEMA["title"].startswith("Static Analysis Results Format (SARIF) Version 2.1.0")
    assert SCHEMA["properties"]["version"]["enum"] == ["2.1.0"]
    assert "result" in SCHEMA["definitions"] and "reportingDescriptor" in SCHEMA["definitions"]


def test_github_annotations_escape_properties_and_data():
    out = report.render(make_report(errors=[ERR]), fmt="github").splitlines()
    assert "::error file=pkg/a.py,line=3,col=5,endLine=3,endColumn=15,title=PU101 legacy-api::" \
           "`fluid.layers.fc` → `paddle.static.nn.fc`" in out
    odd = [l for l in out if "odd" in l][0]
    assert "file=odd%2C name%3A1%25.py" in odd and odd.endswith("::multi%0Aline 100%25")
    nb = [l for l in out if "nb.ipynb" in l][0]
    assert "line=" not in nb.split("::")[1] and "cell 3, line 2" in nb
    assert "::error file=old.py,line=2,title=paddle-upgrade error::cannot parse" in "\n".join(out)


def test_statistics_counts_per_rule():
    out = report.render(make_report(), fmt="text", statistics=True, color=False)
    stats = [l for l in out.splitlines() if re.match(r"\s+\d+\s+PU\d{3}", l)]
    assert stats[0].split()[:2] == ["2", "PU101"]
    assert {l.split()[1] for l in stats} == {"PU101", "PU102", "PU103"}


def test_quiet_prints_only_errors():
    out = report.render(make_report(errors=[ERR]), fmt="text", quiet=True, color=False)
    assert out.splitlines() == [f"old.py:2:7: error: {ERR['message']}"]


def test_fix_mode_summary_and_interrupt_message():
    rep = make_report(mode="fix", findings=[finding(code="PU102", fix="manual")])
    rep.files[0].written = True
    rep.files[0].fixed = 2
    rep.interrupted = True
    out = report.render(rep, fmt="text", color=False)
    assert "Fixed 2 finding(s) in 1 file(s); 1 left for manual follow-up" in out
    assert "Interrupted: 1 file(s) had been written: pkg/a.py" in out


def test_diff_mode_prints_diffs():
    rep = make_report(mode="diff", findings=[])
    rep.files = [FileResult(path="a.py", diff="--- a/a.py\n+++ b/a.py\n@@ -1 +1 @@\n-x\n+y\n",
                            changed=True)]
    out = report.render(rep, fmt="text", color=False)
    assert out.startswith("--- a/a.py\n+++ b/a.py\n")


@pytest.mark.parametrize("fmt", ["text", "json", "sarif", "github"])
def test_every_format_renders_an_empty_report(fmt):
    assert report.render(make_report(findings=[]), fmt=fmt, color=False)
