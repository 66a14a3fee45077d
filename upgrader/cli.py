"""The ``paddle-upgrade`` command line: a thin click layer over the runner and engine."""
from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import click

from upgrader import __version__

EPILOG_FIX = """\b
Examples:
  paddle-upgrade fix --diff src/          # show what would change
  paddle-upgrade fix src/ train.py        # rewrite in place
  paddle-upgrade fix --unsafe-fixes src/  # also apply rewrites marked unsafe
Exit: 0 all done; 1 manual follow-ups remain; 2 error (unparseable file, bad usage)."""

EPILOG_CHECK = """\b
Examples:
  paddle-upgrade check src/
  paddle-upgrade check --format json src/ > findings.json
  paddle-upgrade check --format github .   # annotations in GitHub Actions
Exit: 0 clean; 1 legacy API found; 2 error."""


def _common(f):
    opts = [
        click.option("--select", help="Only these rule codes or prefixes (comma-separated), e.g. PU1,PU201."),
        click.option("--extend-select", help="Add rule codes to the selection."),
        click.option("--ignore", help="Skip these rule codes or prefixes (comma-separated)."),
        click.option("--exclude", "exclude", multiple=True, help="Glob of paths to skip (repeatable)."),
        click.option("--jobs", "-j", type=int, default=None, help="Worker processes (default: CPU count)."),
        click.option("--no-cache", is_flag=True, help="Do not read or write .paddle_upgrade_cache/."),
        click.option("--config", type=click.Path(dir_okay=False, path_type=Path),
                     help="pyproject.toml to read [tool.paddle-upgrade] from."),
        click.option("--quiet", "-q", is_flag=True, help="Only errors and the exit status."),
        click.option("--no-progress", is_flag=True, help="No progress bar."),
    ]
    for o in reversed(opts):
        f = o(f)
    return f


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="paddle-upgrade")
def main() -> None:
    """Bring PaddlePaddle 1.x (paddle.fluid) code to today's Paddle.

    \b
      fix      rewrite files in place (or --diff to preview)
      check    report legacy API usage (the CI gate)
      run      run an unmodified legacy script on today's Paddle
      rules    list/search the rule database
      explain  show one rule: what, why, example, fix safety
    """


def _settings(paths, select, extend_select, ignore, exclude, config, **kw):
    from upgrader import config as cfg
    try:
        return cfg.resolve(paths, select=cfg.split_codes(select),
                           extend_select=cfg.split_codes(extend_select) or (),
                           ignore=cfg.split_codes(ignore) or (), exclude=list(exclude), config=config, **kw)
    except cfg.ConfigError as exc:
        click.echo(f"error: {exc}", err=True)
        sys.exit(2)


def _run(mode: str, paths, *, fmt="text", statistics=False, exit_zero=False, quiet=False,
         no_progress=False, jobs=None, no_cache=False, backup=None, require_clean=False,
         settings=None, output=None) -> int:
    from upgrader import report, runner
    rep = runner.run([str(p) for p in paths], mode=mode, settings=settings, jobs=jobs,
                     use_cache=not no_cache, backup_dir=backup, require_clean=require_clean,
                     progress=not (quiet or no_progress or fmt != "text"))
    text = report.render(rep, fmt=fmt, mode=mode, statistics=statistics, quiet=quiet)
    if text:
        click.echo(text, nl=not text.endswith("\n"), file=output)
    code = rep.exit_code
    if exit_zero and code == 1:
        return 0
    return code


@main.command(epilog=EPILOG_FIX)
@click.argument("paths", nargs=-1, required=True, type=click.Path(path_type=Path))
@click.option("--diff", is_flag=True, help="Print a unified diff; write nothing.")
@click.option("--unsafe-fixes", is_flag=True, default=None, help="Also apply rewrites marked unsafe.")
@click.option("--backup", type=click.Path(file_okay=False, path_type=Path),
              help="Copy each original to this directory before writing.")
@click.option("--require-clean", is_flag=True,
              help="Refuse to write inside a git work tree with uncommitted changes.")
@_common
def fix(paths, diff, unsafe_fixes, backup, require_clean, select, extend_select, ignore, exclude,
        jobs, no_cache, config, quiet, no_progress):
    """Rewrite legacy Paddle code in place (.py and .ipynb files and trees)."""
    s = _settings(paths, select, extend_select, ignore, exclude, config, unsafe_fixes=unsafe_fixes)
    sys.exit(_run("diff" if diff else "fix", paths, quiet=quiet, no_progress=no_progress,
                  jobs=jobs, no_cache=no_cache, backup=backup, require_clean=require_clean,
                  settings=s))


@main.command(epilog=EPILOG_CHECK)
@click.argument("paths", nargs=-1, required=True, type=click.Path(path_type=Path))
@click.option("--format", "fmt", type=click.Choice(["text", "json", "sarif", "github"]),
              default="text", show_default=True, help="Output format.")
@click.option("--statistics", is_flag=True, help="Counts per rule.")
@click.option("--exit-zero", is_flag=True, help="Exit 0 even when legacy API is found.")
@click.option("--report-unused-noqa", is_flag=True, default=None,
              help="Report `# noqa` comments that suppress nothing.")
@_common
def check(paths, fmt, statistics, exit_zero, report_unused_noqa, select, extend_select, ignore,
          exclude, jobs, no_cache, config, quiet, no_progress):
    """Report legacy Paddle API usage; write nothing."""
    s = _settings(paths, select, extend_select, ignore, exclude, config,
                  report_unused_noqa=report_unused_noqa)
    sys.exit(_run("check", paths, fmt=fmt, statistics=statistics, exit_zero=exit_zero,
                  quiet=quiet, no_progress=no_progress, jobs=jobs, no_cache=no_cache, settings=s))


@main.command(context_settings={"ignore_unknown_options": True, "allow_interspersed_args": False},
              epilog="""\b
Examples:
  paddle-upgrade run train.py --epochs 2
  paddle-upgrade run --nproc_per_node 2 train_dp.py
  PADDLE_COMPAT_DEVICE=strict paddle-upgrade run train.py""")
@click.option("--nproc_per_node", "--nproc-per-node", "nproc", type=int, default=None,
              help="Launch N processes with paddle.distributed.launch (shim in every worker).")
@click.argument("script", type=click.Path(exists=True, dir_okay=False))
@click.argument("args", nargs=-1, type=click.UNPROCESSED)
def run(nproc, script, args):
    """Run an unmodified legacy script on today's Paddle through compat."""
    try:
        import compat  # noqa: F401
    except ImportError as exc:  # pragma: no cover
        click.echo(f"error: the compat runtime is not available ({exc}); "
                   "install paddle-upgrade[runtime]", err=True)
        sys.exit(2)
    if nproc:
        from compat import launch
        sys.exit(launch.launch(script, list(args), nproc))
    from compat import run_script
    sys.exit(run_script(script, list(args)))


@main.command(epilog="""\b
Examples:
  paddle-upgrade rules               # every rule
  paddle-upgrade rules dropout       # search names, targets and notes
  paddle-upgrade rules PU102 --format json""")
@click.argument("query", required=False)
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text")
def rules(query, fmt):
    """List or search the rule database."""
    from upgrader.rulebook import load
    book = load()
    entries = book.search(query) if query else list(book)
    if fmt == "json":
        from upgrader.explain import modern, removes_call
        # "target" is the entry's modern namespace; "modern" is what a use becomes
        # ("(call removed)" for rules whose rewrite deletes the call statement)
        click.echo(json.dumps([{"legacy": e.name, "target": e.target, "modern": modern(e),
                                "removes_call": removes_call(e), "code": e.code,
                                "safety": e.safety, "aliases": e.aliases, "note": e.note,
                                "file": e.file} for e in entries], indent=2))
        return
    from rich.console import Console
    from rich.table import Table
    console = Console(no_color=bool(os.environ.get("NO_COLOR")) or None)
    t = Table(show_lines=False)
    for col in ("code", "legacy", "modern", "fix"):
        t.add_column(col)
    from upgrader.explain import modern
    for e in entries:
        t.add_row(e.code, e.short, modern(e) or "—", e.safety)
    console.print(t)
    console.print(f"{len(entries)} of {len(book)} rules")


@main.command(epilog="""\b
Examples:
  paddle-upgrade explain fluid.layers.cross_entropy
  paddle-upgrade explain PU201""")
@click.argument("code_or_api")
def explain(code_or_api):
    """Show one rule: what it does, why, an example, and how safe the fix is."""
    from upgrader import explain as ex
    from upgrader.rulebook import load
    book = load()
    doc = ex.code_doc(code_or_api, book) if code_or_api.upper().startswith("PU") else None
    if doc is None:
        e = ex.find_entry(book, code_or_api)
        if e is None:
            click.echo(f"error: no rule for {code_or_api!r}; try `paddle-upgrade rules {code_or_api}`", err=True)
            sys.exit(2)
        doc = ex.entry_doc(e, book)
    from rich.console import Console
    from rich.markdown import Markdown
    console = Console(no_color=bool(os.environ.get("NO_COLOR")) or None)
    title = f"{doc['code']} {doc['rule']}" + (f" — {doc['legacy']}" if doc.get("legacy") else "")
    md = [f"# {title}", "## What it does", doc["what"], "## Why is this bad?", doc["why"]]
    if doc.get("example"):
        ex_text = doc["example"]
        if "Before:" in ex_text:
            before, after = ex_text.split("After:", 1)
            before = before.replace("Before:", "").strip()
            ex_text = f"Before:\n\n```python\n{before}\n```\n\nAfter:\n\n```python\n{after.strip()}\n```"
        md += ["## Example", ex_text]
    md += ["## Fix safety", doc["fix_safety"]]
    console.print(Markdown("\n\n".join(md)))


if __name__ == "__main__":  # pragma: no cover
    main()
