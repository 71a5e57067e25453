"""The bash script of a managed process: quoting proven by running it under bash."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from errdex.executor.createos import CreateosError, build_script, shell_quote

HOSTILE = ["it's", "$(echo pwned)", "`echo pwned`", "a\nb", "; echo pwned;", '"q"', "$HOME", "*", "'", "", "\\", "-n"]


@pytest.mark.parametrize(
    ("value", "quoted"),
    [("plain", "'plain'"), ("it's", "'it'\"'\"'s'"), ("", "''"), ("'", "''\"'\"''"), ("$(x)\n", "'$(x)\n'")],
)
def test_shell_quote(value: str, quoted: str) -> None:
    assert shell_quote(value) == quoted


def test_script_layout() -> None:
    assert build_script("cmd") == "exec env 'cmd'"
    assert build_script("cmd", ["a"], cwd="/w", env={"K": "v"}, stdin_path="/tmp/in") == (
        "cd -- '/w' || exit\nexec env K='v' 'cmd' 'a' < '/tmp/in'"
    )


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"command": "a\0"}, "Sandbox command values cannot contain NUL."),
        ({"args": ["\0"]}, "Sandbox command values cannot contain NUL."),
        ({"cwd": "/\0"}, "Sandbox command values cannot contain NUL."),
        ({"env": {"K": "\0"}}, "Sandbox command values cannot contain NUL."),
        ({"stdin_path": "/tmp/\0"}, "Sandbox command values cannot contain NUL."),
        ({"command": ""}, "A sandbox command is required."),
        ({"env": {"A-B": "x"}}, "Invalid sandbox environment variable."),
        ({"env": {"": "x"}}, "Invalid sandbox environment variable."),
        ({"env": {"A": 1}}, "Invalid sandbox environment variable."),
        ({"env": {"A": None}}, "Invalid sandbox environment variable."),
    ],
)
def test_script_errors(options, message) -> None:
    arguments = {"command": "cmd"} | options
    with pytest.raises(CreateosError) as caught:
        build_script(arguments.pop("command"), **arguments)
    assert str(caught.value) == message


PROBE = "import json, os, sys; print(json.dumps([os.getcwd(), sys.argv[1:], os.environ['HOSTILE'], sys.stdin.read()]))"


def _run(script: str) -> list:
    completed = subprocess.run(["bash", "-c", script], capture_output=True, text=True, timeout=10, check=True)
    return json.loads(completed.stdout)


@pytest.mark.skipif(shutil.which("bash") is None, reason="needs bash")
def test_hostile_values_reach_the_command_unchanged(tmp_path: Path) -> None:
    workdir = tmp_path / "it's $(echo x) `y`;\nz"
    workdir.mkdir()
    stdin = tmp_path / "in 'put'"
    stdin.write_text("$(echo not run)", encoding="utf-8")
    script = build_script(
        sys.executable, ["-c", PROBE, *HOSTILE], cwd=str(workdir), env={"HOSTILE": "'; $(x) `y`\n"},
        stdin_path=str(stdin),
    )
    assert _run(script) == [str(workdir), HOSTILE, "'; $(x) `y`\n", "$(echo not run)"]


@pytest.mark.skipif(shutil.which("bash") is None, reason="needs bash")
@settings(max_examples=25, deadline=None)
@given(st.lists(st.text(st.characters(blacklist_characters="\0", blacklist_categories=("Cs",)), max_size=12),
                max_size=4))
def test_any_arguments_survive_quoting(args: list[str]) -> None:
    script = build_script(sys.executable, ["-c", "import json, sys; print(json.dumps(sys.argv[1:]))", *args])
    completed = subprocess.run(["bash", "-c", script], capture_output=True, timeout=10, check=True)
    assert json.loads(completed.stdout) == args
