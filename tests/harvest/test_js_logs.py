"""Harvested records on a real JavaScript codebase and its real logs: npm (Debian's copy, run offline).

npm runs a fixed set of offline commands at ``--loglevel silly`` (:mod:`tests.harvest.jslogs`) while a
preload writes, for each log event, the stack frame that logged it. npm's folder is harvested with the default
sinks and ``--log-levels all``, every line of its debug logs that npm's own code (``lib/``, ``bin/``; not its
bundled ``node_modules/``, which harvest skips) logged is matched, and its top-1 record must name the statement
that logged it.
"""

from __future__ import annotations

import os
from functools import cache
from pathlib import Path

import pytest
import tree_sitter
import tree_sitter_javascript

from errdex.harvest.run import harvest
from tests.harvest.jslogs import LogLine, npm_folder, run_npm_workload
from tests.harvest.truth import Expected, Score, score

_PARSER = tree_sitter.Parser(tree_sitter.Language(tree_sitter_javascript.language()))


@cache
def _tree(path: str) -> tree_sitter.Tree:
    return _PARSER.parse(Path(path).read_bytes())


def _span(root: Path, line: LogLine) -> tuple[str, int, int] | None:
    """The statement of ``root`` (outside ``node_modules``) that logged ``line``: (relative file, first, last)."""
    try:
        relative = Path(line.event.file).resolve().relative_to(root.resolve()).as_posix()
    except ValueError:
        return None
    if "node_modules/" in relative:
        return None
    point = (line.event.line - 1, max(line.event.column - 1, 0))
    node = _tree(line.event.file).root_node.descendant_for_point_range(point, point)
    while node is not None and not node.type.endswith(("statement", "declaration")):
        node = node.parent
    if node is None:
        return relative, line.event.line, line.event.line
    return relative, node.start_point.row + 1, node.end_point.row + 1


def npm_expected(lines: list[LogLine], root: Path) -> tuple[list[Expected], int]:
    """The lines npm's own code logged, and how many its bundled packages (or node) logged."""
    expected, others = [], 0
    for line in lines:
        span = _span(root, line)
        if span is None:
            others += 1
        else:
            expected.append(Expected(line.number, line.text, (span,)))
    return expected, others


def _npm() -> Path:
    folder = npm_folder()
    if folder is None:
        reason = "node or npm (/usr/lib/node_modules/npm, or ERRDEX_NPM) is missing: the JavaScript codebase to run"
        if os.environ.get("CI") == "true":
            pytest.fail(reason)
        pytest.skip(reason)
    return folder


def measure(tmp: Path) -> tuple[Score, int]:
    npm = _npm()
    lines = run_npm_workload(tmp, npm)
    records = tmp / "records"
    records.mkdir()
    harvest(npm, repo="npm/cli", sha="0" * 40, out=records, log_levels="all")
    expected, others = npm_expected(lines, npm)
    return score(records, expected), others


def test_npm_lines_trace_to_their_log_call(tmp_path: Path) -> None:
    result, others = measure(tmp_path)
    assert result.total >= NPM_LINES and others >= OTHER_LINES, result.summary()
    assert result.rate >= NPM_FLOOR, result.summary(shown=60)


#: The lines the workload's npm logs through its own code (577 on npm 11.19.1; at least 550 are asked for, a
#: run's count varies a little with timing), and through its bundled packages (224: arborist, config, pacote...,
#: not harvested), and what is traced today, rounded down: 501 of 577 (86.8%; the issue's target is 98%). The
#: README lists the misses and why.
NPM_LINES, OTHER_LINES, NPM_FLOOR = 550, 100, 0.86
