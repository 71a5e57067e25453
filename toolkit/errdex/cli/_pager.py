"""A pager for long text output on a terminal, as git does it: ``$PAGER`` (default ``less -FRX``: quit when
the text fits one screen, keep colors, leave the text on the screen), never when stdout is not a terminal.

``PAGER`` set to nothing or ``cat`` turns it off; a pager that cannot be started is skipped and the text
printed as it is.
"""

from __future__ import annotations

import os
import sys

from errdex.cli._common import echo

__all__ = ["DEFAULT_PAGER", "page", "pager_command"]

DEFAULT_PAGER = "less -FRX"


def pager_command() -> list[str] | None:
    """The pager to run, or None when paging is off or stdout is not a terminal."""
    if not sys.stdout.isatty():
        return None
    import shlex  # only on a terminal: explain to a pipe or file never pages (start-up time)

    value = os.environ.get("PAGER", DEFAULT_PAGER)
    try:
        words = shlex.split(value)
    except ValueError:  # unbalanced quotes: not a command that can run
        return None
    return words if words and words != ["cat"] else None


def page(text: str, *, enabled: bool = True) -> None:
    """Show ``text`` through the pager when ``enabled`` and there is one, else write it to stdout."""
    command = pager_command() if enabled else None
    if command is None:
        echo(text)
        return
    import subprocess  # only when there is a pager to start (start-up time)

    try:
        pager = subprocess.Popen(command, stdin=subprocess.PIPE)
    except OSError:  # not installed, not executable: the text is still shown
        echo(text)
        return
    assert pager.stdin is not None  # stdin=PIPE gives one
    try:
        pager.stdin.write(text.encode(sys.stdout.encoding or "utf-8", "replace"))
        pager.stdin.close()
    except BrokenPipeError:  # the reader quit the pager before the end: nothing more to show
        pass
    pager.wait()
