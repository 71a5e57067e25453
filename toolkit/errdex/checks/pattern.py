"""Checks of messagePattern: portable, safe in backtracking engines, true to the message."""

from __future__ import annotations

import functools
from collections.abc import Iterable
from typing import Any

import re2

from errdex.checks.base import Check, Problem, RecordContext, register
from errdex import patterns


@functools.lru_cache(maxsize=4096)
def _re2_regex(pattern: str) -> Any:
    """A linear-time engine for the full-message match: a record's own pattern must not hang validation."""
    return re2.compile(patterns.to_re2(pattern))


def _portable_pattern(ctx: RecordContext) -> str | None:
    pattern = ctx.text("messagePattern")
    if pattern is None or ctx.extra.setdefault("pattern-problems", patterns.portability_problems(pattern)):
        return None
    return pattern


@register
class PatternPortable(Check):
    code, name = "EDX121", "pattern-portable"
    summary = (
        "messagePattern stays in the subset on which JavaScript, Python re, RE2/DuckDB and hyperscan agree "
        "(no lookaround, backreferences, named groups, inline flags, \\A \\Z \\u, \\s)."
    )

    def check(self, ctx: RecordContext) -> Iterable[Problem]:
        pattern = ctx.text("messagePattern")
        if pattern is None:
            return
        problems = ctx.extra.setdefault("pattern-problems", patterns.portability_problems(pattern))
        for problem in problems:
            yield Problem("messagePattern", f"at offset {problem.offset}: {problem.message}")


@register
class PatternEngines(Check):
    code, name = "EDX122", "pattern-engines"
    summary = "messagePattern compiles in every engine errdex runs it in."

    def __init__(self) -> None:
        self.by_pattern: dict[str, list[RecordContext]] = {}

    def check(self, ctx: RecordContext) -> Iterable[Problem]:
        pattern = _portable_pattern(ctx)
        if pattern is not None:
            self.by_pattern.setdefault(pattern, []).append(ctx)
        return ()

    def finalize(self) -> Iterable[tuple[RecordContext, Problem]]:
        if not self.by_pattern:
            return
        from errdex.cache import cache_dir

        verdicts = patterns.compile_problems(list(self.by_pattern), cache_dir=cache_dir() / "patterns")
        for pattern, problems in verdicts.items():
            for problem in problems:
                for ctx in self.by_pattern.get(pattern, ()):
                    yield ctx, Problem(
                        "messagePattern", f"{problem.engine} cannot compile it: {problem.message}; keep to the portable subset"
                    )


@register
class PatternBacktracking(Check):
    code, name = "EDX123", "pattern-backtracking"
    summary = "messagePattern has no shape that backtracks catastrophically (nested or adjacent overlapping repeats)."

    def check(self, ctx: RecordContext) -> Iterable[Problem]:
        pattern = _portable_pattern(ctx)
        if pattern is None:
            return
        for problem in patterns.backtracking_problems(pattern):
            yield Problem("messagePattern", f"at offset {problem.offset}: {problem.message}")


@register
class PatternMatchesMessage(Check):
    code, name = "EDX124", "pattern-matches-message"
    summary = "messagePattern matches the whole errorMessage."

    def check(self, ctx: RecordContext) -> Iterable[Problem]:
        pattern, message = _portable_pattern(ctx), ctx.text("errorMessage")
        if pattern is None or message is None:
            return
        if _re2_regex(pattern).fullmatch(message) is None:
            yield Problem(
                "messagePattern",
                "messagePattern does not match the whole errorMessage; escape metacharacters and cover every part",
            )
