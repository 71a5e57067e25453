"""An empty path ('' from an unset variable in a script) is refused in one line wherever a path is taken; never
read as the current folder (``--bundle ''`` wrote at '.')."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import click
import pytest

from errdex.cli import cli
from errdex.cli._common import PATH_TEXT, PathType

#: Parameters that hold a path as text (not a click.Path: '-' or several of them are taken there).
TEXT_PATHS = {"files", "paths", "records", "inputs", "bundle"}


def _commands(group: click.Group, ctx: click.Context, prefix: tuple[str, ...] = ()) -> Iterator[
        tuple[tuple[str, ...], click.Command]]:
    for name in group.list_commands(ctx):
        command = group.get_command(ctx, name)
        assert command is not None
        if isinstance(command, click.Group):
            yield from _commands(command, ctx, (*prefix, name))
        else:
            yield (*prefix, name), command


def _path_parameters() -> list[tuple[tuple[str, ...], click.Parameter]]:
    ctx = click.Context(cli)
    return [(words, param) for words, command in _commands(cli, ctx) for param in command.params
            if isinstance(param.type, click.Path) or param.name in TEXT_PATHS]


def test_every_path_parameter_refuses_an_empty_value() -> None:
    found = _path_parameters()
    assert len(found) > 30  # the walk reaches the commands (lazily loaded) and their parameters
    lax = [(" ".join(words), param.name) for words, param in found
           if not isinstance(param.type, PathType) and param.type is not PATH_TEXT]
    assert lax == []


@pytest.mark.parametrize("args", [
    ["match", ""], ["match", "--records", "", "x.log"], ["validate", ""], ["fmt", ""], ["import", ""],
    ["export", "--output", ""], ["index", "--db", ""], ["harvest", ".", "--repo", "a/b", "--bundle", ""],
    ["site", "build", "--out", ""], ["spark-match", "", "--output", "out"],
], ids=" ".join)
def test_an_empty_path_is_refused_in_one_line(cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                              args: list[str]) -> None:
    monkeypatch.chdir(tmp_path)
    result = cli(*args)
    assert result.exit_code == 2, (result.stdout, result.stderr)
    assert result.stderr.count("\n") == 1 and "an empty path names no file or folder" in result.stderr
    assert list(tmp_path.iterdir()) == []
