"""Checks that tie a record to the source that raises it."""

from __future__ import annotations

import re
from collections.abc import Iterable

from errdex.checks.base import Check, Problem, RecordContext, register
from errdex.checks.pattern import pattern_analysis
from errdex.records.source_paths import github_url, shown_path, unsafe_path

_SHA = re.compile(r"[0-9a-f]{40}")
#: How far from lineNumber the message's text may sit (messages built over several lines).
NEAR_LINES = 6
#: Literal parts shorter than this are too common to prove anything.
MIN_LITERAL = 4
_CONCAT = re.compile(r"[\"'`]\s*\+\s*[\"'`]")
#: Literals a compiler joins (C, Python): a closing quote, white space (a line break, indentation), an opening
#: quote with its string prefix (``f"``, ``rb'``).
_ADJACENT = re.compile(r"[\"']\s+[rbfuRBFU]{0,2}[\"']")
#: The opening of a conditional part of a JavaScript template (`` `a${x ? ` b` : ""}` `` writes "a b").
_TEMPLATE_CHOICE = re.compile(r"\$\{[^`{}]*\?\s*`")


def expected_github_url(ctx: RecordContext) -> str | None:
    """The githubUrl the record's own fields give (:func:`~errdex.records.source_paths.github_url`); None when
    one is missing."""
    repo, sha, path = ctx.text("repo"), ctx.text("analyzedSha"), ctx.text("filePath")
    start, end = ctx.integer("sourceCodeStart"), ctx.integer("sourceCodeEnd")
    if repo is None or sha is None or path is None or start is None or end is None:
        return None
    return github_url(repo, sha, path, start, end)


@register
class FilePath(Check):
    code, name = "EDX130", "file-path"
    rule = ("`filePath` is a path from the repository's top: `/`-separated, not absolute, no `.`/`..` or empty "
            "part, no backslash, control or bidirectional character, UTF-8")
    summary = "filePath names a file inside the repository: no '..', absolute path, backslash or control character."

    def check(self, ctx: RecordContext) -> Iterable[Problem]:
        path = ctx.text("filePath")
        reason = unsafe_path(path) if path else None  # an empty or missing one is the schema's finding
        if reason is not None:
            yield Problem("filePath", f"filePath {shown_path(path or '')!r} {reason}")


@register
class GithubUrl(Check):
    code, name = "EDX131", "github-url"
    rule = ("`githubUrl` is `https://github.com/{repo}/blob/{analyzedSha}/{filePath}#L{start}-L{end}`, each path "
            "part percent-encoded")
    summary = ("githubUrl is https://github.com/{repo}/blob/{analyzedSha}/{filePath}#L{sourceCodeStart}-L{sourceCodeEnd}"
               ", each part of the path percent-encoded.")

    def check(self, ctx: RecordContext) -> Iterable[Problem]:
        url, expected = ctx.text("githubUrl"), expected_github_url(ctx)
        if url is not None and expected is not None and url != expected:
            yield Problem("githubUrl", f"githubUrl does not point at the excerpt; expected {expected}")


@register
class AnalyzedSha(Check):
    code, name = "EDX132", "analyzed-sha"
    rule = "`analyzedSha` is 40 lowercase hex digits"
    summary = "analyzedSha is a full commit id: 40 lowercase hexadecimal digits."

    def check(self, ctx: RecordContext) -> Iterable[Problem]:
        sha = ctx.text("analyzedSha")
        if sha is not None and not _SHA.fullmatch(sha):
            yield Problem("analyzedSha",
                          f"analyzedSha {sha!r} is not 40 lowercase hex digits; write the full commit id")


@register
class SourceRange(Check):
    code, name = "EDX133", "source-range"
    rule = "`1 <= sourceCodeStart <= lineNumber <= sourceCodeEnd`"
    summary = "1 <= sourceCodeStart <= lineNumber <= sourceCodeEnd."

    def check(self, ctx: RecordContext) -> Iterable[Problem]:
        start, line, end = ctx.integer("sourceCodeStart"), ctx.integer("lineNumber"), ctx.integer("sourceCodeEnd")
        for name, value in (("sourceCodeStart", start), ("lineNumber", line), ("sourceCodeEnd", end)):
            if value is not None and value < 1:
                yield Problem(name, f"{name} is {value}; line numbers start at 1")
        if start is not None and end is not None and start > end:
            yield Problem("sourceCodeEnd", f"sourceCodeEnd {end} is before sourceCodeStart {start}")
        elif line is not None and start is not None and end is not None and not start <= line <= end:
            yield Problem("lineNumber", f"lineNumber {line} is outside the excerpt {start}-{end}; "
                                        "widen the excerpt or fix the line")


@register
class SourceLineCount(Check):
    code, name = "EDX134", "source-line-count"
    rule = "`sourceCode` has `sourceCodeEnd - sourceCodeStart + 1` lines"
    summary = "sourceCode has exactly sourceCodeEnd - sourceCodeStart + 1 lines."

    def check(self, ctx: RecordContext) -> Iterable[Problem]:
        code, start, end = ctx.text("sourceCode"), ctx.integer("sourceCodeStart"), ctx.integer("sourceCodeEnd")
        if not code or start is None or end is None or start > end:
            return
        lines = code.count("\n") + 1
        if lines != end - start + 1:
            yield Problem(
                "sourceCode",
                f"sourceCode has {lines} lines but sourceCodeStart-sourceCodeEnd spans {end - start + 1}; "
                "make the excerpt and the range agree",
            )


@register
class MessageInSource(Check):
    code, name = "EDX135", "message-in-source"
    draft_severity = "warning"  # a harvested message may take text from a constant declared far from the call
    rule = "the message's literal text is in `sourceCode` within 6 lines of `lineNumber` (a warning in a draft)"
    summary = "The message's literal text appears in sourceCode at or near lineNumber."

    def check(self, ctx: RecordContext) -> Iterable[Problem]:
        code, pattern = ctx.text("sourceCode"), ctx.text("messagePattern")
        start, line, end = ctx.integer("sourceCodeStart"), ctx.integer("lineNumber"), ctx.integer("sourceCodeEnd")
        if not code or not pattern or start is None or line is None or end is None or not start <= line <= end:
            return
        analysis = pattern_analysis(ctx)
        if analysis is None or analysis["portability"]:
            return
        lines = code.split("\n")
        first = max(0, line - start - NEAR_LINES)
        near = "\n".join(lines[first : line - start + NEAR_LINES + 1])
        # Messages built from parts: "a " + "b", over several lines, with escaped quotes.
        joined = _TEMPLATE_CHOICE.sub("", _CONCAT.sub("", near))
        joined = joined.replace('\\"', '"').replace("\\'", "'").replace("\\\\", "\\")
        adjacent = _ADJACENT.sub("", joined)  # only looked in besides: a quote next to a line break may be text
        printed = adjacent.replace("%%", "%").replace("{{", "{").replace("}}", "}")  # format-string escapes
        for literal in analysis["literals"]:
            if len(literal.strip()) < MIN_LITERAL:
                continue
            written = literal.replace("\\", "\\\\").replace("\n", "\\n").replace("\t", "\\t")  # as escapes
            if any(text_ in place for text_ in (literal, written) for place in (near, joined, adjacent, printed)):
                continue
            where = next((start + i for i, text in enumerate(lines) if literal in text), None)
            hint = f"it appears at line {where}" if where else "it does not appear in the excerpt"
            yield Problem(
                "lineNumber" if where else "sourceCode",
                f"message text {literal!r} is not within {NEAR_LINES} lines of lineNumber {line} ({hint}); "
                "point lineNumber at the throw or fix the excerpt",
            )


@register
class EmptySource(Check):
    code, name = "EDX136", "empty-source"
    severity = "warning"
    strict_promotes = False  # 20 bundled records wait for the excerpts harvest gives; --strict must still pass
    rule = "`sourceCode` is not empty (warning, also with `--strict` for now)"
    summary = "sourceCode quotes the code that raises the error: it is not empty (a warning, also with --strict)."

    def check(self, ctx: RecordContext) -> Iterable[Problem]:
        code = ctx.text("sourceCode")
        if code is not None and not code.strip():
            yield Problem("sourceCode", "sourceCode is empty; quote the lines sourceCodeStart-sourceCodeEnd of "
                                        "filePath at analyzedSha (errdex harvest writes them)")
