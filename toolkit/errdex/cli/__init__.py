"""The ``errdex`` command line: thin wrappers over the Python API.

Every command returns its exit status; ``main`` turns errdex's exceptions
into one line on stderr and a non-zero exit, and never shows a traceback
(set ERRDEX_DEBUG=1 to see one for an unexpected error).
"""

from __future__ import annotations

import os
import sys

import click

from errdex._version import __version__
from errdex.cli.executor import executor_group
from errdex.cli.fmt import fmt_command
from errdex.cli.index import index_command, query_command
from errdex.cli.match import explain_command, match_command
from errdex.cli.prove import prove_command
from errdex.cli.schema import schema_command
from errdex.cli.validate import validate_command
from errdex.errors import ErrdexError

__all__ = ["cli", "main"]


@click.group(context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100})
@click.version_option(__version__, "--version", prog_name="errdex", message="%(prog)s %(version)s")
def cli() -> None:
    """errdex: error records that explain log lines, and the tools to keep them true.

    \b
    Example:
      errdex validate                 # check the bundled dataset
      errdex validate records/ --format json
      errdex fmt --check
    """


cli.add_command(match_command)
cli.add_command(explain_command)
cli.add_command(validate_command)
cli.add_command(fmt_command)
cli.add_command(schema_command)
cli.add_command(prove_command)
cli.add_command(index_command)
cli.add_command(query_command)
cli.add_command(executor_group)


def _fail(message: str, code: int) -> None:
    sys.stderr.write(f"errdex: error: {' '.join(message.split())}\n")
    sys.exit(code)


def main(argv: list[str] | None = None) -> None:
    """Entry point of the ``errdex`` console script."""
    args = sys.argv[1:] if argv is None else argv
    try:
        code = cli.main(args=args, prog_name="errdex", standalone_mode=False)
    except click.UsageError as exc:
        where = f"errdex {exc.ctx.command_path.split(' ', 1)[1]}" if exc.ctx and " " in exc.ctx.command_path else "errdex"
        _fail(f"{exc.format_message()} (see '{where} --help')", 2)
    except click.ClickException as exc:
        _fail(exc.format_message(), exc.exit_code)
    except ErrdexError as exc:
        _fail(str(exc), exc.exit_code)
    except (KeyboardInterrupt, click.Abort):
        sys.stderr.write("errdex: interrupted\n")
        sys.exit(130)
    except BrokenPipeError:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        sys.exit(1)
    except Exception as exc:  # noqa: BLE001  (the promise: never a traceback)
        if os.environ.get("ERRDEX_DEBUG"):
            raise
        _fail(f"internal error: {type(exc).__name__}: {exc} (set ERRDEX_DEBUG=1 for a traceback)", 70)
    sys.exit(code if isinstance(code, int) else 0)
