"""The command-line conventions, one row per command: the table the README's conventions section is made from
and ``tests/cli/test_conventions.py`` walks (a command not in it fails that test).

Every command takes ``-q/--quiet`` and ``-h/--help`` (with an Example); the rest is per command::

    python -m errdex.cli.conventions --readme README.md           # rewrite the README's section
    python -m errdex.cli.conventions --readme README.md --check   # exit 1 when it is stale
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from errdex._files import replace_marked, rewrite_marked

__all__ = ["CONVENTIONS", "README_END", "README_START", "Conventions", "main", "readme_table", "sync_readme"]

README_START = "<!-- conventions:start -->"
README_END = "<!-- conventions:end -->"


@dataclass(frozen=True)
class Conventions:
    """What one command promises; ``why`` says why a convention does not apply to it."""

    #: Where ``-`` is stdin (or stdout): argument metavars and option names.
    dash: tuple[str, ...] = ()
    #: Takes ``--records PATH`` (repeatable): the records it uses.
    records: bool = True
    #: ``--format`` choices (always the output's format; empty: the command has one output).
    formats: tuple[str, ...] = ()
    #: Takes ``--color auto|always|never`` (the commands that color their text).
    color: bool = False
    #: Shows progress on stderr, on a terminal, when it runs over a second.
    progress: bool = False
    #: Says on a terminal that it is reading stdin when given no input.
    stdin_notice: bool = False
    why: str = ""


CONVENTIONS: dict[str, Conventions] = {
    "match": Conventions(dash=("FILE", "--records"), formats=("text", "jsonl", "json"), color=True,
                         stdin_notice=True),
    "explain": Conventions(dash=("WHAT", "--records"), formats=("text", "json"), color=True),
    "validate": Conventions(dash=("PATH", "--records"), formats=("text", "json", "github", "sarif"), color=True,
                            progress=True),
    "fmt": Conventions(dash=("PATH", "--records"), formats=("text", "json")),
    "schema": Conventions(records=False, why="prints the schema of the format; reads no records"),
    "prove": Conventions(dash=("--records",), formats=("text", "json"), color=True, progress=True),
    "index": Conventions(dash=("--records",), formats=("text", "json"), progress=True),
    "query": Conventions(dash=("SQL", "--records"), formats=("text", "json", "csv")),
    "executor serve": Conventions(records=False, why="serves a fake CreateOS; reads no records"),
    "site build": Conventions(dash=("--records",), progress=True, why="writes a folder, so no --format"),
    "site serve": Conventions(dash=("--records",), why="serves a folder, so no --format"),
    "migrate": Conventions(why="rewrites files in place, so '-' is refused"),
    "release": Conventions(why="cuts one records folder: --records is given once (default ./records)"),
    "diff": Conventions(dash=("OLD", "NEW"), records=False, formats=("text", "json"),
                        why="compares the two datasets it is given"),
    "import": Conventions(dash=("BUNDLE",), formats=("text", "json"),
                          why="imports into one records folder: --records is given once"),
    "export": Conventions(dash=("--output", "--records"),
                          why="--to names the file type (--format is its old, deprecated name)"),
    "harvest": Conventions(records=False, formats=("text", "json"), progress=True,
                           why="reads code; writes drafts to --out or --bundle"),
    "drift": Conventions(dash=("--records",), formats=("text", "json", "github"), progress=True),
    "sync": Conventions(dash=("--records",), formats=("text", "json"), progress=True),
    "spark-match": Conventions(dash=("--records",), formats=("text", "json"),
                               why="INPUT is what Spark reads (paths, globs, hdfs://): never stdin; Spark logs its "
                                   "own progress"),
}


def _mark(value: bool) -> str:
    return "yes" if value else "-"


def readme_table() -> str:
    """The Markdown table of :data:`CONVENTIONS`, as README.md holds it between the markers."""
    rows = ["| command | `-` (stdin/stdout) | `--records` | `--format` | `--color` | progress | note |",
            "|---|---|---|---|---|---|---|"]
    for name, c in CONVENTIONS.items():
        dash = ", ".join(f"`{where}`" for where in c.dash) or "-"
        formats = " ".join(c.formats) or "-"
        note = "; ".join(filter(None, ["says it reads stdin" if c.stdin_notice else "", c.why]))
        rows.append(f"| `{name}` | {dash} | {_mark(c.records)} | {formats} | {_mark(c.color)} | "
                    f"{_mark(c.progress)} | {note} |")
    return "\n".join(rows) + "\n"


def sync_readme(text: str) -> str:
    """``text`` (a README) with the block between the markers replaced by :func:`readme_table`."""
    return replace_marked(text, README_START, README_END, readme_table())


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m errdex.cli.conventions --readme README.md [--check]``: rewrite (or check) the table."""
    parser = argparse.ArgumentParser(prog="python -m errdex.cli.conventions", description=main.__doc__)
    parser.add_argument("--readme", type=Path, required=True, help="the README whose table to rewrite")
    parser.add_argument("--check", action="store_true", help="change nothing; exit 1 when the table is stale")
    args = parser.parse_args(argv)
    return rewrite_marked(args.readme, README_START, README_END, readme_table(), check=args.check,
                          stale=f"{args.readme}: the conventions table differs from errdex.cli.conventions; "
                                f"run python -m errdex.cli.conventions --readme {args.readme}")


if __name__ == "__main__":
    sys.exit(main())
