"""The tidy checks: each record against the code it quotes, at its own commit (``errdex validate --source``).

They read the code through an :class:`AnchorSource` given to :func:`errdex.checks.runner.validate` (the
command builds one from ``--source``: :mod:`errdex.drift.anchors`); without one they do not run. A record
whose commit or file the source does not hold is not a finding: it is skipped, with a note in the report.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from errdex.checks.base import Check, Problem, RecordContext, register
from errdex.patterns.translate import python_regex
from errdex.records.source_paths import unsafe_path, url_path

__all__ = ["NOTES_KEY", "SOURCE_KEY", "AnchorSource", "AnchoredLine", "AnchoredUrl", "SourceExcerpt", "Statement"]

#: Where the runner puts the source in a record's context (``RecordContext.extra``), and the report's notes.
SOURCE_KEY = "anchor-source"
NOTES_KEY = "notes"
_URL = re.compile(r"https://github\.com/[^/]+/[^/]+/blob/([^/]+)/([^#]+)(?:#.*)?")


@dataclass(frozen=True)
class Statement:
    """A statement that raises or logs a message: its lines (1-based, inclusive), the message as the code
    writes it and, when one could be built, the pattern of what it prints (errdex's portable dialect)."""

    line: int
    end_line: int
    message: str
    pattern: str | None = None


class AnchorSource(Protocol):
    """The code the records quote, read at a commit (paths are ``/``-separated, from the repository's top)."""

    def unavailable(self, path: str, sha: str) -> str | None:
        """Why the file cannot be read at that commit (commit or file missing), or None when it can."""

    def lines(self, path: str, sha: str) -> list[str] | None:
        """The file's lines without line ends; None when it is not there."""

    def statements(self, path: str, sha: str, config: Path | None = None) -> Sequence[Statement] | None:
        """Every statement of the file that raises or logs a message; None when its language is not read.
        ``config``: the harvest configuration of the record's repository (:func:`harvest_config`), whose sinks
        count as statements too."""


#: The file beside a repository's record files that says how its code is harvested (its own sinks).
HARVEST_CONFIG = "harvest.toml"


def harvest_config(record_path: str) -> Path | None:
    """The ``harvest.toml`` beside a record's file, when there is one: the sinks its repository logs through."""
    candidate = Path(record_path).parent / HARVEST_CONFIG
    return candidate if record_path and candidate.is_file() else None


def _anchor(ctx: RecordContext) -> tuple[AnchorSource, str, str] | None:
    """(source, filePath, analyzedSha) when the record can be checked; a note when the source lacks it."""
    source = ctx.extra.get(SOURCE_KEY)
    path, sha = ctx.text("filePath"), ctx.text("analyzedSha")
    if source is None or path is None or sha is None or unsafe_path(path) is not None:
        return None  # a path outside the repository is never read (EDX130 reports it)
    reason = source.unavailable(path, sha)
    if reason is not None:
        notes = ctx.extra.get(NOTES_KEY)
        note = f"{ctx.path}: source checks skipped: {reason}"
        if isinstance(notes, list) and note not in notes:
            notes.append(note)
        return None
    return source, path, sha


@register
class SourceExcerpt(Check):
    code, name = "EDX137", "source-excerpt"
    needs_source = True
    rule = "with `--source`: `sourceCode` is the file's lines `sourceCodeStart`-`sourceCodeEnd` at `analyzedSha`"
    summary = ("With --source: sourceCode is exactly the lines sourceCodeStart-sourceCodeEnd of filePath at "
               "analyzedSha.")

    def check(self, ctx: RecordContext) -> Iterable[Problem]:
        code, start, end = ctx.text("sourceCode"), ctx.integer("sourceCodeStart"), ctx.integer("sourceCodeEnd")
        anchor = _anchor(ctx)
        if anchor is None or code is None or start is None or end is None or not 1 <= start <= end:
            return
        source, path, sha = anchor
        lines = source.lines(path, sha) or []
        if end > len(lines):
            yield Problem("sourceCodeEnd", f"sourceCodeEnd {end} is past the end of {path} at {sha[:12]} "
                                           f"({len(lines)} lines)")
            return
        quoted, real = code.split("\n"), lines[start - 1 : end]
        for number, (old, new) in enumerate(zip(quoted, real, strict=False), start):
            if old != new:
                yield Problem("sourceCode", f"sourceCode differs from {path} at {sha[:12]} at line {number}: "
                                            f"it quotes {old!r}, the file has {new!r}")
                return
        if len(quoted) != len(real):
            yield Problem("sourceCode", f"sourceCode has {len(quoted)} lines, the file's lines {start}-{end} "
                                        f"are {len(real)}; quote them as they are")


def _raises(ctx: RecordContext, statement: Statement) -> bool:
    """Whether the statement raises the record's message: its pattern matches the statement's message, its
    errorMessage is that message, or the statement's pattern matches the errorMessage."""
    pattern, message = ctx.text("messagePattern"), ctx.text("errorMessage")
    if message is not None and message == statement.message:
        return True
    for regex, text in ((pattern, statement.message), (statement.pattern, message)):
        if regex is None or text is None:
            continue
        try:
            if python_regex(regex).search(text):
                return True
        except (ValueError, re.error):  # a pattern outside the dialect is another check's finding
            continue
    return False


@register
class AnchoredLine(Check):
    code, name = "EDX138", "line-in-statement"
    needs_source = True
    rule = "with `--source`: `lineNumber` is inside the statement that raises the message, at `analyzedSha`"
    summary = "With --source: lineNumber is inside the statement that raises the record's message."

    def check(self, ctx: RecordContext) -> Iterable[Problem]:
        line = ctx.integer("lineNumber")
        anchor = _anchor(ctx)
        if anchor is None or line is None:
            return
        source, path, sha = anchor
        statements = source.statements(path, sha, harvest_config(ctx.path))
        if statements is None:
            return
        raising = [s for s in statements if _raises(ctx, s)]
        if any(s.line <= line <= s.end_line for s in raising):
            return
        if raising:
            where = ", ".join(f"{s.line}" if s.line == s.end_line else f"{s.line}-{s.end_line}" for s in raising)
            yield Problem("lineNumber", f"lineNumber {line} is not inside the statement that raises the message; "
                                        f"{path} at {sha[:12]} raises it at line {where}")
        else:
            yield Problem("lineNumber", f"no statement of {path} at {sha[:12]} raises the message; "
                                        "fix filePath, lineNumber or the message")


@register
class AnchoredUrl(Check):
    code, name = "EDX139", "url-at-commit"
    needs_source = True
    rule = "with `--source`: `githubUrl` names `analyzedSha` and `filePath`, a file there at that commit"
    summary = "With --source: githubUrl names the record's commit and file, and the file exists at that commit."

    def check(self, ctx: RecordContext) -> Iterable[Problem]:
        url = ctx.text("githubUrl")
        anchor = _anchor(ctx)
        if anchor is None or url is None:
            return
        source, path, sha = anchor
        found = _URL.fullmatch(url)
        if found is None:
            yield Problem("githubUrl", "githubUrl does not name a commit and a file (https://github.com/{repo}"
                                       "/blob/{analyzedSha}/{filePath}#L{start}-L{end})")
            return
        url_sha, url_file = found.groups()
        if url_sha != sha:
            yield Problem("githubUrl", f"githubUrl names commit {url_sha}, the record was analyzed at {sha}")
        elif url_file != url_path(path):
            yield Problem("githubUrl", f"githubUrl names file {url_file}, the record's filePath is {url_path(path)} "
                                       "(percent-encoded)")
        elif source.lines(path, url_sha) is None:
            yield Problem("githubUrl", f"githubUrl names {url_file}, which is not there at {sha[:12]}")
