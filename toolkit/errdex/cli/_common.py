"""Conventions every command shares: output, color, progress, common options.

:mod:`errdex.cli.conventions` says which command follows which of these; its test walks every command.
"""

from __future__ import annotations

import contextlib
import os
import sys
import time
from collections.abc import Callable, Iterable, Iterator, Sized
from typing import Any, TypeVar

import click

from errdex.terminal import safe

T = TypeVar("T")

__all__ = ["COLOR_CHOICES", "FORMAT_HELP", "QUIET_HELP", "RECORDS_HELP", "Command", "Group", "StdinNoticeCommand",
           "busy", "color_enabled", "color_option", "echo", "echo_text", "format_option", "no_dash", "progress",
           "quiet_option", "records_option", "stderr_line"]

#: ``--color``'s values: auto (a terminal, and neither NO_COLOR nor TERM=dumb; FORCE_COLOR forces it), or always,
#: or never.
COLOR_CHOICES = ("auto", "always", "never")
#: Where ``--color`` leaves its choice for :func:`color_enabled` (the click context's ``meta``).
_COLOR_KEY = "errdex.color"
#: The start of every ``--records`` help (the same meaning on every command).
RECORDS_HELP = "Records to use: "
#: The start of every ``--format`` help: it always names the output's format.
FORMAT_HELP = "Output format"
QUIET_HELP = "Print nothing but the data output and errors."


def _env_set(name: str) -> bool:
    return bool(os.environ.get(name, ""))


def color_enabled(stream: Any = None) -> bool:
    """Whether to color what goes to ``stream`` (default stdout): ``--color always|never`` decides when given;
    otherwise (auto) never with NO_COLOR set (it wins, as in Python's own REPL), always with FORCE_COLOR set,
    else on a terminal whose TERM is not dumb."""
    ctx = click.get_current_context(silent=True)
    choice = ctx.find_root().meta.get(_COLOR_KEY, "auto") if ctx is not None else "auto"
    if choice != "auto":
        return choice == "always"
    if _env_set("NO_COLOR"):
        return False
    if _env_set("FORCE_COLOR"):
        return True
    if os.environ.get("TERM") == "dumb":
        return False
    stream = stream or sys.stdout
    return bool(getattr(stream, "isatty", lambda: False)())


def _remember_color(ctx: click.Context, param: click.Parameter, value: str | None) -> None:
    if value is not None:
        ctx.find_root().meta[_COLOR_KEY] = value


def color_option(func: Callable[..., Any]) -> Callable[..., Any]:
    """``--color auto|always|never``: read by :func:`color_enabled`, so a command's body does not change."""
    return click.option("--color", type=click.Choice(COLOR_CHOICES), default=None, metavar="WHEN",
                        expose_value=False, callback=_remember_color,
                        help="Color the output: auto (a terminal; NO_COLOR and FORCE_COLOR are heard), always or "
                             "never [default: auto].")(func)


def echo(text: str) -> None:
    """Write data output to stdout as is."""
    sys.stdout.write(text)
    sys.stdout.flush()


def echo_text(text: str) -> None:
    """Write human-readable output to stdout, control characters escaped (a record, a value or a file name can
    hold them); JSON and CSV output go through :func:`echo` as they are."""
    echo(safe(text))


def echo_line(text: str) -> None:
    """One line of human-readable output on stdout: every control character in it escaped, line feeds too (a
    file name can hold one), so that one item is always one line."""
    echo(safe(text, newlines=False) + "\n")


def stderr_line(text: str) -> None:
    """A message on stderr, on one line: control characters escaped, line feeds too (a file name or a record
    can hold them)."""
    sys.stderr.write(safe(text.rstrip("\n"), newlines=False) + "\n")


def _shows_progress(quiet: bool) -> bool:
    return not quiet and sys.stderr.isatty()


def progress(label: str, *, quiet: bool) -> Callable[[Iterable[T]], Iterator[T]]:
    """A counter on stderr (``label: 12/53`` when the items can be counted) that appears once the work has
    taken a second, on a terminal only."""

    def wrap(items: Iterable[T]) -> Iterator[T]:
        show = _shows_progress(quiet)
        total = f"/{len(items):,}" if isinstance(items, Sized) else ""
        start = last = time.monotonic()
        shown = False
        for count, item in enumerate(items, start=1):
            yield item
            if show:
                now = time.monotonic()
                if now - start >= 1.0 and now - last >= 0.1:
                    sys.stderr.write(f"\r{label}: {count:,}{total}")
                    sys.stderr.flush()
                    shown, last = True, now
        if shown:
            sys.stderr.write("\r\x1b[K")
            sys.stderr.flush()

    return wrap


@contextlib.contextmanager
def busy(label: str, *, quiet: bool) -> Iterator[None]:
    """For work with no items to count (a proof run, a site build, an index): after a second, ``label… 3 s``
    on stderr, refreshed every second, on a terminal only; erased when the work ends.

    A timer signal, not a thread: errdex forks workers only while it runs a single thread, and interval timers
    are not inherited by forked children. The handler restarts interrupted system calls."""
    import signal  # only for the commands that show a timer: match and explain never do (start-up time)

    if not _shows_progress(quiet) or not hasattr(signal, "setitimer"):
        yield
        return
    start = time.monotonic()
    shown = []

    def tick(signum: int, frame: Any) -> None:
        sys.stderr.write(f"\r{label}… {time.monotonic() - start:.0f} s")
        sys.stderr.flush()
        shown.append(1)

    previous = signal.signal(signal.SIGALRM, tick)
    signal.siginterrupt(signal.SIGALRM, False)
    signal.setitimer(signal.ITIMER_REAL, 1.0, 1.0)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
        if shown:
            sys.stderr.write("\r\x1b[K")
            sys.stderr.flush()


_EMPTY_PATH = "an empty path names no file or folder ('' is not taken for the current folder)"


class PathType(click.Path):
    """``click.Path`` that refuses an empty value: an empty string is a mistake in a script (an unset variable),
    not a way to say the current folder, and as ``.`` it would point a write at the wrong place."""

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        if isinstance(value, str) and value == "":
            self.fail(_EMPTY_PATH, param, ctx)
        return super().convert(value, param, ctx)


class _PathText(click.ParamType):
    """A path kept as the text given (``-`` for stdin included), refused when empty, as :class:`PathType`."""

    name = "path"

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        if isinstance(value, str) and value == "":
            self.fail(_EMPTY_PATH, param, ctx)
        return value


PATH_TEXT = _PathText()


def no_dash(ctx: click.Context, param: click.Parameter, value: Any) -> Any:
    """Option callback: refuse ``-`` where a path must name a real file or folder (a database, a site folder),
    instead of creating one named ``-``."""
    if value is not None and str(value) == "-":
        raise click.BadParameter("'-' (stdin/stdout) cannot be used here; name a file or folder", ctx, param)
    return value


def records_option(func: Callable[..., Any] | None = None, *, default: str = "the bundled dataset",
                   what: str = "a folder, a record file or a JSONL bundle",
                   callback: Callable[..., Any] | None = None) -> Any:
    """``--records PATH`` (repeatable), the records a command uses: ``what`` it takes, and ``default``, what it
    uses without one. Used bare (``@records_option``) or called (``@records_option(default=...)``)."""

    def decorate(target: Callable[..., Any]) -> Callable[..., Any]:
        return click.option("--records", "records", multiple=True, metavar="PATH", callback=callback, type=PATH_TEXT,
                            help=f"{RECORDS_HELP}{what} (repeatable; default: {default}).")(target)

    return decorate(func) if func is not None else decorate


def quiet_option(func: Callable[..., Any]) -> Callable[..., Any]:
    return click.option("-q", "--quiet", is_flag=True, help=QUIET_HELP)(func)


def format_option(*choices: str, default: str = "text",
                  help: str = "") -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """``--format``: always the output's format (``help`` may add what each choice prints)."""

    def decorate(func: Callable[..., Any]) -> Callable[..., Any]:
        return click.option(
            "--format",
            "fmt",
            type=click.Choice(choices),
            default=default,
            show_default=True,
            help=f"{FORMAT_HELP}{': ' + help if help else '.'}",
        )(func)

    return decorate


def _quick_short_options(parser: Any, ctx: click.Context) -> Any:
    """``parser`` (click's), reading a short option such as ``-q`` without first ranking every long option by
    its likeness to it: click tries ``-q`` as a long option, and that failure imports :mod:`difflib` and ranks
    the suggestions it then drops (about 1 ms of a one-line ``match -q``). The failure is the same exception,
    without the suggestions, and only where click discards it; a parser without these parts is left alone."""
    match_long = getattr(parser, "_match_long_opt", None)
    long_opts = getattr(parser, "_long_opt", None)
    prefixes = getattr(parser, "_opt_prefixes", None)
    if match_long is None or long_opts is None or prefixes is None:
        return parser

    def match(opt: str, explicit_value: str | None, state: Any) -> None:
        if opt not in long_opts and opt[:2] not in prefixes:  # "-q": click goes on to the short options
            raise click.NoSuchOption(opt, ctx=ctx)
        match_long(opt, explicit_value, state)

    parser._match_long_opt = match
    return parser


class Command(click.Command):
    """A command whose short options (``-q``, ``-h``) are read without click's spelling suggestions."""

    def make_parser(self, ctx: click.Context) -> Any:
        return _quick_short_options(super().make_parser(ctx), ctx)


class Group(click.Group):
    """A group whose command list shows each command's first sentence whole, never cut with "..."; short options
    are read as :class:`Command` reads them."""

    def make_parser(self, ctx: click.Context) -> Any:
        return _quick_short_options(super().make_parser(ctx), ctx)

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        rows = []
        for name in self.list_commands(ctx):
            command = self.get_command(ctx, name)
            if command is not None and not command.hidden:
                rows.append((name, command.get_short_help_str(limit=10_000)))
        if rows:
            with formatter.section("Commands"):
                formatter.write_dl(rows)


class StdinNoticeCommand(Command):
    """A command that reads stdin when given no FILE (or ``-``): on a terminal, it says so on stderr first, so
    a person who typed ``errdex match`` alone knows it waits for them (not with --quiet)."""

    def invoke(self, ctx: click.Context) -> Any:
        files = ctx.params.get("files") or ()
        if set(files) <= {"-"} and not ctx.params.get("quiet") and sys.stdin.isatty():
            stderr_line(f"errdex {ctx.info_name}: reading log lines from stdin (end with Ctrl-D, stop with Ctrl-C; "
                        f"'errdex {ctx.info_name} --help' for more)")
        return super().invoke(ctx)
