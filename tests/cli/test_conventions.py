"""Every command keeps the conventions its row of :data:`errdex.cli.conventions.CONVENTIONS` promises; a command
not in the table fails here until it is added."""

from __future__ import annotations

import inspect
import io
import json
import os
import pty
import subprocess
import sys
import time
from pathlib import Path

import click
import pytest

from errdex.cli import COMMANDS, _common
from errdex.cli import cli as root
from errdex.cli._common import FORMAT_HELP, QUIET_HELP, RECORDS_HELP, StdinNoticeCommand
from errdex.cli.conventions import CONVENTIONS, Conventions, sync_readme
from tests.conftest import ROOT, SEED_PATH

SEED_SLUG = SEED_PATH.stem
#: The seed record as one JSONL line: a record file, a bundle and a log line at once.
SEED_LINE = json.dumps(json.loads(SEED_PATH.read_text(encoding="utf-8")), ensure_ascii=False) + "\n"


def _walk() -> dict[str, click.Command]:
    """Every command a person can run, by its path under ``errdex`` ("site build")."""
    found: dict[str, click.Command] = {}
    ctx = click.Context(root)
    for name in COMMANDS:
        command = root.get_command(ctx, name)
        assert command is not None, name
        if isinstance(command, click.Group):
            for sub in command.list_commands(ctx):
                found[f"{name} {sub}"] = command.get_command(ctx, sub)  # type: ignore[assignment]  # listed
        else:
            found[name] = command
    return found


ALL = _walk()


def _option(command: click.Command, flag: str) -> click.Option | None:
    return next((p for p in command.params if isinstance(p, click.Option) and flag in p.opts), None)


def test_every_command_is_in_the_table() -> None:
    assert set(ALL) == set(CONVENTIONS), "add the command to errdex.cli.conventions.CONVENTIONS"


@pytest.mark.parametrize("name", sorted(ALL))
def test_quiet_and_an_example_everywhere(name: str) -> None:
    command = ALL[name]
    quiet = _option(command, "--quiet")
    assert quiet is not None and "-q" in quiet.opts and quiet.is_flag and quiet.help == QUIET_HELP
    assert "Example:" in (command.help or "")


@pytest.mark.parametrize("name", sorted(ALL))
def test_records_is_repeatable_with_one_meaning(name: str) -> None:
    option = _option(ALL[name], "--records")
    if not CONVENTIONS[name].records:
        assert option is None, f"{name} takes --records: say so in the table"
        return
    assert option is not None and option.opts == ["--records"] and option.multiple and option.metavar == "PATH"
    assert (option.help or "").startswith(RECORDS_HELP) and "repeatable" in (option.help or "")


@pytest.mark.parametrize("name", sorted(ALL))
def test_format_is_always_the_output_format(name: str) -> None:
    option = _option(ALL[name], "--format")
    formats = CONVENTIONS[name].formats
    if not formats:
        assert option is None or option.hidden, f"{name}: --format must mean the output format"
        return
    assert option is not None and not option.hidden and isinstance(option.type, click.Choice)
    assert tuple(option.type.choices) == formats and (option.help or "").startswith(FORMAT_HELP)


@pytest.mark.parametrize("name", sorted(ALL))
def test_color_progress_and_stdin_notice_as_the_table_says(name: str) -> None:
    command, row = ALL[name], CONVENTIONS[name]
    color = _option(command, "--color")
    assert (color is not None) == row.color
    if color is not None:
        assert isinstance(color.type, click.Choice) and tuple(color.type.choices) == ("auto", "always", "never")
    source = inspect.getsource(command.callback) if command.callback else ""
    assert ("busy(" in source or "progress(" in source) == row.progress
    assert isinstance(command, StdinNoticeCommand) == row.stdin_notice


@pytest.mark.parametrize("name", sorted(ALL))
def test_dash_places_exist(name: str) -> None:
    command = ALL[name]
    for where in CONVENTIONS[name].dash:
        if where.startswith("--"):
            assert _option(command, where) is not None, (name, where)
        else:
            assert any(isinstance(p, click.Argument) and where in (p.metavar or p.name or "").upper()
                       for p in command.params), (name, where)


#: One run per command that takes '-': its arguments, with SEED_LINE on stdin.
DASH_RUNS: dict[str, list[str]] = {
    "match": ["match", "-"],
    "explain": ["explain", "-"],
    "validate": ["validate", "-"],
    "fmt": ["fmt", "-"],
    "prove": ["prove", "--records", "-"],
    "index": ["index", "--records", "-", "--db", "{tmp}/x.duckdb"],
    "query": ["query", "-"],
    "site build": ["site", "build", "--records", "-", "--out", "{tmp}/site", "--no-search"],
    "site serve": [],  # serves until interrupted: --records - is the loader's, as for site build
    "diff": ["diff", "-", str(SEED_PATH)],
    "import": ["import", "-", "--records", "{tmp}/target", "--check"],
    "export": ["export", "--to", "jsonl", "--output", "-", "--records", "-"],
    "drift": [],  # needs a repository: --records - is the loader's, as for validate
    "sync": [],  # as drift
    "spark-match": [],  # needs Java and a Spark session: --records - is the loader's, as for validate
}


def test_every_dash_command_has_a_run() -> None:
    assert set(DASH_RUNS) == {name for name, row in CONVENTIONS.items() if row.dash}


@pytest.mark.parametrize("name", sorted(name for name, args in DASH_RUNS.items() if args))
def test_dash_reads_stdin(cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str) -> None:
    monkeypatch.chdir(tmp_path)
    stdin = "SELECT 1\n" if name == "query" else SEED_LINE
    result = cli(*(arg.replace("{tmp}", str(tmp_path)) for arg in DASH_RUNS[name]), input=stdin)
    assert result.exit_code in (0, 1), result.stderr
    assert "Traceback" not in result.stderr and not (tmp_path / "-").exists()
    if name in ("fmt", "export"):
        assert json.loads(result.stdout.split("\n", 1)[0] if name == "export" else result.stdout)["record"]["id"] \
            == json.loads(SEED_LINE)["record"]["id"]


def test_import_from_stdin_names_it(cli, tmp_path: Path) -> None:
    result = cli("import", "-", "--records", str(tmp_path / "target"), "--check", input=SEED_LINE)
    assert result.exit_code == 0, result.stderr
    assert "would add" in result.stdout and result.stderr.startswith("<stdin>: 1 record(s): 1 new")
    bad = cli("import", "-", "--records", str(tmp_path / "target"), input="{nope\n")
    assert bad.exit_code != 0 and "<stdin>" in bad.stderr and "errdex-import-" not in bad.stderr


@pytest.mark.parametrize("group", [[], ["site"], ["executor"]])
def test_help_lists_whole_sentences(cli, group: list[str]) -> None:
    result = cli(*group, "--help")
    assert result.exit_code == 0
    listed = result.stdout.split("Commands:", 1)[1]
    assert "..." not in listed
    flat = " ".join(listed.split())
    for name in (line.split()[0] for line in listed.splitlines() if line.startswith("  ") and line[2] != " "):
        first = " ".join(cli(*group, name, "--help").stdout.split("\n\n", 2)[1].split()).split(". ")[0]
        assert first.rstrip(".") in flat, name  # each command's first sentence, whole


@pytest.mark.parametrize("group", [[], ["site"]])
def test_bare_errdex_prints_the_help(cli, group: list[str]) -> None:
    result = cli(*group)
    assert result.exit_code == 2 and result.stdout == cli(*group, "--help").stdout
    assert result.stderr == ""


def test_match_on_a_terminal_says_it_reads_stdin(tmp_path: Path) -> None:
    main, child = pty.openpty()
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT / "toolkit"), str(ROOT)])}
    done = subprocess.Popen([sys.executable, "-m", "errdex", "match"], stdin=child, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, cwd=tmp_path, env=env)
    os.close(child)
    try:
        first = done.stderr.readline().decode() if done.stderr else ""  # the notice comes before any read
        os.write(main, b"a line\n\x04")  # then Ctrl-D: the end of input
        out, rest = done.communicate(timeout=60)
    finally:
        os.close(main)
    assert first.startswith("errdex match: reading log lines from stdin (end with Ctrl-D")
    assert done.returncode == 0 and "1 line(s) read, 0 matched" in out.decode() and "stdin" not in rest.decode()


def test_match_from_a_pipe_says_nothing_extra(cli) -> None:
    result = cli("match", input="hello\n")
    assert result.stderr == "" and result.stdout.startswith("1 line(s) read, 0 matched")


@pytest.mark.parametrize(("args", "env", "colored"), [
    ([], {}, False),
    ([], {"FORCE_COLOR": "1"}, True),
    ([], {"FORCE_COLOR": "1", "NO_COLOR": "1"}, False),
    (["--color", "always"], {"NO_COLOR": "1"}, True),
    (["--color", "never"], {"FORCE_COLOR": "1"}, False),
])
def test_color_choice_and_environment(cli, monkeypatch: pytest.MonkeyPatch, args: list[str], env: dict[str, str],
                                      colored: bool) -> None:
    for name in ("FORCE_COLOR", "NO_COLOR"):
        monkeypatch.delenv(name, raising=False)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    result = cli("explain", SEED_SLUG, *args)
    assert result.exit_code == 0 and ("\x1b[" in result.stdout) == colored


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_progress_counts_against_a_total(monkeypatch: pytest.MonkeyPatch) -> None:
    stderr = _Terminal()
    monkeypatch.setattr(sys, "stderr", stderr)
    clock = iter(range(0, 1000))
    monkeypatch.setattr(_common.time, "monotonic", lambda: float(next(clock)))
    assert list(_common.progress("validating", quiet=False)([1, 2, 3])) == [1, 2, 3]
    assert "validating: 2/3" in stderr.getvalue() and stderr.getvalue().endswith("\r\x1b[K")


def test_busy_shows_elapsed_time_on_a_terminal_only(monkeypatch: pytest.MonkeyPatch) -> None:
    stderr = _Terminal()
    monkeypatch.setattr(sys, "stderr", stderr)
    with _common.busy("proving", quiet=False):
        deadline = time.monotonic() + 10
        while "proving…" not in stderr.getvalue() and time.monotonic() < deadline:
            time.sleep(0.05)
    assert "proving… 1 s" in stderr.getvalue() and stderr.getvalue().endswith("\r\x1b[K")
    quiet = _Terminal()
    monkeypatch.setattr(sys, "stderr", quiet)
    with _common.busy("proving", quiet=True):
        time.sleep(0.01)
    assert quiet.getvalue() == ""


def test_export_format_is_a_deprecated_alias_of_to(cli) -> None:
    new = cli("export", "--to", "jsonl", "--output", "-")
    old = cli("export", "--format", "jsonl", "--output", "-")
    assert new.exit_code == old.exit_code == 0 and new.stdout == old.stdout
    assert old.stderr.startswith("errdex: warning: export --format is deprecated")
    assert cli("export", "--to", "jsonl", "--format", "parquet", "--output", "-").exit_code == 2
    assert "export needs --to" in cli("export", "--output", "-").stderr


def test_import_records_dir_is_a_deprecated_alias(cli, tmp_path: Path) -> None:
    bundle = tmp_path / "one.jsonl"
    bundle.write_text(SEED_LINE, encoding="utf-8")
    result = cli("import", str(bundle), "--records-dir", str(tmp_path / "target"), "--check")
    assert result.exit_code == 0 and "--records-dir is deprecated" in result.stderr


@pytest.mark.parametrize("command", [["release", "--check"], ["import", "x.jsonl"]])
def test_one_folder_commands_refuse_two_records(cli, command: list[str]) -> None:
    result = cli(*command, "--records", "a", "--records", "b")
    assert result.exit_code == 2 and "give --records once" in result.stderr


def test_the_readme_conventions_table_is_current() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert sync_readme(readme) == readme, "run: python -m errdex.cli.conventions --readme README.md"


def test_a_row_without_records_says_why() -> None:
    for name, row in CONVENTIONS.items():
        assert row.records or row.why, name
    assert Conventions().records
