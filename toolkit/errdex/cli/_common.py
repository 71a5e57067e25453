"""Conventions every command shares: output, color, progress, common options."""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Callable, Iterable, Iterator
from typing import Any, TypeVar

import click

from errdex.terminal import safe

T = TypeVar("T")

__all__ = ["color_enabled", "echo", "echo_text", "format_option", "no_dash", "progress", "quiet_option",
           "records_option", "stderr_line"]


def color_enabled(stream: Any = None) -> bool:
    """Color only on a terminal, never when NO_COLOR is set or TERM is dumb."""
    stream = stream or sys.stdout
    if os.environ.get("NO_COLOR") or os.environ.get("TERM") == "dumb":
        return False
    return bool(getattr(stream, "isatty", lambda: False)())


def echo(text: str) -> None:
    """Write data output to stdout as is."""
    sys.stdout.write(text)
    sys.stdout.flush()


def echo_text(text: str) -> None:
    """Write human-readable output to stdout, control characters escaped (a record, a value or a file name can
    hold them); JSON and CSV output go through :func:`echo` as they are."""
    echo(safe(text))


def stderr_line(text: str) -> None:
    """A message on stderr, control characters escaped (a file name or a record can hold them)."""
    sys.stderr.write(safe(text.rstrip("\n")) + "\n")


def progress(label: str, *, quiet: bool) -> Callable[[Iterable[T]], Iterator[T]]:
    """A counter on stderr that appears once the work has taken a second, on a terminal only."""

    def wrap(items: Iterable[T]) -> Iterator[T]:
        show = not quiet and sys.stderr.isatty()
        start = last = time.monotonic()
        shown = False
        for count, item in enumerate(items, start=1):
            yield item
            if show:
                now = time.monotonic()
                if now - start >= 1.0 and now - last >= 0.1:
                    sys.stderr.write(f"\r{label}: {count:,}")
                    sys.stderr.flush()
                    shown, last = True, now
        if shown:
            sys.stderr.write("\r\x1b[K")
            sys.stderr.flush()

    return wrap


def no_dash(ctx: click.Context, param: click.Parameter, value: Any) -> Any:
    """Option callback: refuse ``-`` where a path must name a real file or folder (a database, a site folder),
    instead of creating one named ``-``."""
    if value is not None and str(value) == "-":
        raise click.BadParameter("'-' (stdin/stdout) cannot be used here; name a file or folder", ctx, param)
    return value


def records_option(func: Callable[..., Any]) -> Callable[..., Any]:
    return click.option(
        "--records",
        "records",
        multiple=True,
        metavar="PATH",
        help="Records to use: a folder, a record file or a JSONL bundle (repeatable; default: the bundled dataset).",
    )(func)


def quiet_option(func: Callable[..., Any]) -> Callable[..., Any]:
    return click.option("-q", "--quiet", is_flag=True, help="Print nothing but the data output and errors.")(func)


def format_option(*choices: str, default: str = "text") -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    def decorate(func: Callable[..., Any]) -> Callable[..., Any]:
        return click.option(
            "--format",
            "fmt",
            type=click.Choice(choices),
            default=default,
            show_default=True,
            help="Output format.",
        )(func)

    return decorate
