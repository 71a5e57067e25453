"""The ``errdex`` command line: thin wrappers over the Python API.

Every command returns its exit status; ``main`` turns errdex's exceptions
into one line on stderr and a non-zero exit, and never shows a traceback
(set ERRDEX_DEBUG=1 to see one for an unexpected error).
"""

from __future__ import annotations

import gc
import importlib
import os
import sys
from typing import Any

import click

from errdex._version import __version__
from errdex.cli._common import Group
from errdex.errors import ErrdexError, Stopped, from_oserror, out_of_memory
from errdex.terminal import safe

__all__ = ["cli", "main"]

#: Command name -> "module:attribute". A command's module is imported only when it runs (or for --help).
COMMANDS = {
    "match": "errdex.cli.match:match_command",
    "explain": "errdex.cli.explain:explain_command",
    "validate": "errdex.cli.validate:validate_command",
    "fmt": "errdex.cli.fmt:fmt_command",
    "schema": "errdex.cli.schema:schema_command",
    "prove": "errdex.cli.prove:prove_command",
    "index": "errdex.cli.index:index_command",
    "query": "errdex.cli.index:query_command",
    "executor": "errdex.cli.executor:executor_group",
    "site": "errdex.cli.site:site_group",
    "migrate": "errdex.cli.migrate:migrate_command",
    "release": "errdex.cli.release:release_command",
    "diff": "errdex.cli.release:diff_command",
    "import": "errdex.cli.bundles:import_command",
    "export": "errdex.cli.bundles:export_command",
    "harvest": "errdex.cli.harvest:harvest_command",
    "drift": "errdex.cli.drift:drift_command",
    "sync": "errdex.cli.sync:sync_command",
    "spark-match": "errdex.cli.spark:spark_match_command",
}


class _LazyGroup(Group):
    """A group whose commands are imported on first use, so starting one command never imports the others."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return list(COMMANDS)

    def get_command(self, ctx: click.Context, cmd_name: str) -> Any:
        target = COMMANDS.get(cmd_name)
        if target is None:
            return None
        module, attribute = target.split(":")
        return getattr(importlib.import_module(module), attribute)


@click.group(cls=_LazyGroup, context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100})
@click.version_option(__version__, "--version", prog_name="errdex", message="%(prog)s %(version)s")
def cli() -> None:
    """errdex: error records that explain log lines, and the tools to keep them true.

    \b
    Example:
      errdex validate                 # check the bundled dataset
      errdex validate records/ --format json
      errdex fmt --check
    """



def _fail(message: str, code: int) -> None:
    sys.stderr.write(f"errdex: error: {safe(' '.join(message.split()), newlines=False)}\n")
    sys.exit(code)


def _duckdb_out_of_memory(exc: BaseException) -> bool:
    """Whether ``exc`` is DuckDB's out-of-memory error (DuckDB is looked at only when it was loaded)."""
    duckdb = sys.modules.get("duckdb")
    kind = getattr(duckdb, "OutOfMemoryException", None)
    return isinstance(kind, type) and isinstance(exc, kind)


def main(argv: list[str] | None = None) -> None:
    """Entry point of the ``errdex`` console script (``argv``: the arguments, for a caller in this process).

    Run as the console script (no ``argv``), the objects left when the
    command ends are frozen out of the collector before the interpreter
    exits: its last collection would walk all of them, 0.6 s at 100,000
    records, only for the process to end.
    """
    if argv is not None:
        _run(argv)
        return
    try:
        _run(sys.argv[1:])
    finally:
        gc.freeze()


def _run(args: list[str]) -> None:
    try:
        code = cli.main(args=args, prog_name="errdex", standalone_mode=False)
    except click.exceptions.NoArgsIsHelpError as exc:
        # bare `errdex` (or `errdex site`): the help, on stdout as git does; exit 2, errdex's (and click's)
        # status for a usage error, so a script whose command word came out empty still fails
        sys.stdout.write(exc.ctx.get_help() + "\n")
        sys.exit(2)
    except click.UsageError as exc:
        path = exc.ctx.command_path if exc.ctx else ""
        where = f"errdex {path.split(' ', 1)[1]}" if " " in path else "errdex"
        _fail(f"{exc.format_message()} (see '{where} --help')", 2)
    except click.ClickException as exc:
        _fail(exc.format_message(), exc.exit_code)
    except ErrdexError as exc:
        _fail(str(exc), exc.exit_code)
    except Stopped as exc:  # a signal, after the run removed what it had made on the way out
        sys.stderr.write(f"errdex: {exc}; what the run had started is stopped and removed\n")
        sys.exit(128 + exc.signum)
    except (KeyboardInterrupt, click.Abort):
        sys.stderr.write("errdex: interrupted\n")
        sys.exit(130)
    except BrokenPipeError:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        sys.exit(1)
    except OSError as exc:  # one that no layer below named: still one line, in our words
        _fail(str(from_oserror(exc)), 1)
    except MemoryError:  # a limit of the system's (ulimit -v, a container): not a bug of errdex's
        _fail(out_of_memory(), 1)
    except Exception as exc:  # the promise: never a traceback
        if _duckdb_out_of_memory(exc):  # DuckDB's own, raised where no layer below expected it
            _fail(out_of_memory(), 1)
        if os.environ.get("ERRDEX_DEBUG"):
            raise
        _fail(f"internal error: {type(exc).__name__}: {exc} (set ERRDEX_DEBUG=1 for a traceback)", 70)
    sys.exit(code if isinstance(code, int) else 0)
