"""The bash script a managed process runs (step 1 of execute: E1, E2, E3)."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

from errdex.executor.createos.errors import CreateosError

__all__ = ["build_script", "shell_quote"]

_ENV_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def shell_quote(value: str) -> str:
    """``value`` in bash single quotes, each ``'`` written as ``'"'"'``; E1 for a NUL."""
    if "\0" in value:
        raise CreateosError("Sandbox command values cannot contain NUL.")
    return "'" + value.replace("'", "'\"'\"'") + "'"


def build_script(
    command: str,
    args: Sequence[str] = (),
    *,
    cwd: str | None = None,
    env: Mapping[str, object] | None = None,
    stdin_path: str | None = None,
) -> str:
    """An optional ``cd -- '<cwd>' || exit`` line, then ``exec env K='v' ... '<cmd>' '<arg>' ... [< '<stdin>']``.

    ``env`` comes from a scenario's JSON, so a value may be other than text: such a variable is refused.
    """
    if command == "":
        raise CreateosError("A sandbox command is required.")
    lines = []
    if cwd:
        lines.append(f"cd -- {shell_quote(cwd)} || exit")
    words = ["exec", "env"]
    for name, value in (env or {}).items():
        if not _ENV_NAME.fullmatch(name) or not isinstance(value, str):
            raise CreateosError("Invalid sandbox environment variable.")
        words.append(f"{name}={shell_quote(value)}")
    words.append(shell_quote(command))
    for arg in args:
        if not isinstance(arg, str):
            raise TypeError("sandbox command arguments must be strings")
        words.append(shell_quote(arg))
    if stdin_path is not None:
        words += ["<", shell_quote(stdin_path)]
    lines.append(" ".join(words))
    return "\n".join(lines)
