"""Every validation check, looked up by code, name or reading-problem kind; and the README's table of them.

Each check class declares its code, name, severity, summary and rule once, in
its module; this module imports every check module, so what it returns is
complete. To add a check, write a class with ``@register`` in the module of
its subject (or a new module listed in ``_MODULES``), then regenerate the
README's table::

    python -m errdex.checks.registry --readme README.md           # rewrite the table
    python -m errdex.checks.registry --readme README.md --check   # exit 1 when it is stale
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

from errdex._files import replace_marked, rewrite_marked
from errdex.checks import (
    anchored,
    identity,
    lifecycle,
    metadata,
    parse,
    pattern,
    scenario,
    source,
)
from errdex.checks.base import Check, registered
from errdex.records.problems import ProblemKind

__all__ = ["README_END", "README_START", "all_checks", "for_kind", "get", "lookup", "main", "problem_label",
           "readme_table", "registry", "sync_readme"]

#: The modules that declare checks: importing them registers their classes.
_MODULES = (parse, identity, pattern, source, anchored, metadata, lifecycle, scenario)

README_START = "<!-- checks:start -->"
README_END = "<!-- checks:end -->"


def registry() -> dict[str, type[Check]]:
    """Every check by code, in code order."""
    return registered()


def all_checks() -> list[type[Check]]:
    """Every check class, in code order (each has ``code``, ``name``, ``severity``, ``summary``, ``rule``)."""
    return list(registered().values())


def lookup(key: str) -> type[Check] | None:
    """The check with this code (``EDX123``) or name (``pattern-backtracking``), in any case; None when none has."""
    checks = registered()
    found = checks.get(key.strip().upper())
    if found is None:
        wanted = key.strip().lower()
        found = next((cls for cls in checks.values() if cls.name == wanted), None)
    return found


def get(key: str) -> type[Check]:
    """The check with this code or name (any case); KeyError naming ``key`` when there is none."""
    found = lookup(key)
    if found is None:
        raise KeyError(key)
    return found


def for_kind(kind: ProblemKind) -> type[Check]:
    """The check that reports reading problems of this kind."""
    return _BY_KIND[kind]


def problem_label(kind: ProblemKind) -> str:
    """How a reading problem of this kind is shown: its check's code and name (``EDX004 duplicate-key``)."""
    cls = for_kind(kind)
    return f"{cls.code} {cls.name}"


def _by_kind() -> dict[ProblemKind, type[Check]]:
    found = {cls.kind: cls for cls in registered().values() if cls.kind is not None}
    missing = set(ProblemKind) - set(found)
    if missing:  # a kind no check reports would have no code to be shown with
        raise RuntimeError(f"no check reports {', '.join(sorted(kind.value for kind in missing))}")
    return found


_BY_KIND = _by_kind()


def readme_table() -> str:
    """The Markdown table of every check (code, name, rule), as README.md holds it between the markers."""
    rows = ["| code | name | what it checks |", "|---|---|---|"]
    rows.extend(f"| {cls.code} | {cls.name} | {cls.rule.replace('|', chr(92) + '|')} |" for cls in all_checks())
    return "\n".join(rows) + "\n"


def sync_readme(text: str) -> str:
    """``text`` (a README) with the block between the markers replaced by :func:`readme_table`."""
    return replace_marked(text, README_START, README_END, readme_table())


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m errdex.checks.registry --readme README.md [--check]``: rewrite (or check) the table."""
    parser = argparse.ArgumentParser(prog="python -m errdex.checks.registry", description=main.__doc__)
    parser.add_argument("--readme", type=Path, required=True, help="the README whose table to rewrite")
    parser.add_argument("--check", action="store_true", help="change nothing; exit 1 when the table is stale")
    args = parser.parse_args(argv)
    return rewrite_marked(args.readme, README_START, README_END, readme_table(), check=args.check,
                          stale=f"{args.readme}: the checks table differs from the registry; "
                                f"run python -m errdex.checks.registry --readme {args.readme}")


if __name__ == "__main__":
    sys.exit(main())
