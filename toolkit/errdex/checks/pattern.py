"""Checks of messagePattern: portable, safe in backtracking engines, true to the message."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from errdex import patterns
from errdex.checks.base import Check, Problem, RecordContext, register
from errdex.patterns.facts import PatternFacts


def _facts(ctx: RecordContext) -> PatternFacts:
    facts = ctx.extra.get("pattern-facts")
    if facts is None:
        facts = ctx.extra["pattern-facts"] = PatternFacts()
    return facts


def pattern_analysis(ctx: RecordContext) -> dict[str, Any] | None:
    pattern = ctx.text("messagePattern")
    return None if pattern is None else _facts(ctx).analysis(pattern)


def _portable_pattern(ctx: RecordContext) -> str | None:
    """The pattern when engines may compile it: portable and within the size bounds."""
    analysis = pattern_analysis(ctx)
    if analysis is None or analysis["portability"] or analysis["size"]:
        return None
    return ctx.text("messagePattern")


@register
class PatternPortable(Check):
    code, name = "EDX121", "pattern-portable"
    rule = "`messagePattern` stays in the portable subset"
    summary = (
        "messagePattern stays in the subset on which JavaScript, Python re, RE2/DuckDB and hyperscan agree "
        "(no lookaround, backreferences, named groups, inline flags, \\A \\Z \\u, \\s)."
    )

    def check(self, ctx: RecordContext) -> Iterable[Problem]:
        analysis = pattern_analysis(ctx)
        for offset, message in analysis["portability"] if analysis else ():
            yield Problem("messagePattern", f"at offset {offset}: {message}")


@register
class PatternEngines(Check):
    code, name = "EDX122", "pattern-engines"
    rule = "`messagePattern` compiles in Python `re`, RE2, DuckDB, hyperscan and JavaScript"
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
        facts = _facts(next(iter(self.by_pattern.values()))[0])
        verdicts: dict[str, list[list[str]]] = {}
        unknown = []
        for pattern in self.by_pattern:
            known = facts.engine_problems(pattern)
            if known is None:
                unknown.append(pattern)
            else:
                verdicts[pattern] = known
        if unknown:
            verdicts.update(_verdicts(facts, unknown))
        for pattern, problems in verdicts.items():
            for engine, message in problems:
                for ctx in self.by_pattern.get(pattern, ()):
                    yield ctx, Problem("messagePattern",
                                       f"{engine} cannot compile it: {message}; keep to the portable subset")


def _compiled(facts: PatternFacts, unknown: list[str]) -> dict[str, list[list[str]]]:
    """Each pattern's (engine, message) problems from compiling it in every engine, kept when every engine ran."""
    report = patterns.compile_problems(unknown)
    complete = set(report.engines) == set(patterns.ENGINES)
    verdicts = {}
    for pattern, complaints in report.items():
        verdicts[pattern] = [[p.engine, p.message] for p in complaints]
        if complete:
            facts.remember_engine_problems(pattern, verdicts[pattern])
    return verdicts


def _verdicts(facts: PatternFacts, unknown: list[str]) -> dict[str, list[list[str]]]:
    """The engine verdicts of patterns not seen before, through their shapes (:func:`pattern_shape`): a shape
    that compiles everywhere clears each of its patterns; the patterns of any other shape are compiled."""
    by_shape: dict[str, list[str]] = {}
    for pattern in unknown:
        by_shape.setdefault(facts.shape(pattern), []).append(pattern)
    shapes = {shape: facts.engine_problems(shape) for shape in by_shape}
    new = [shape for shape, known in shapes.items() if known is None and _compilable(facts, shape)]
    complete = True
    if new:
        report = patterns.compile_problems(new)
        complete = set(report.engines) == set(patterns.ENGINES)
        for shape in new:
            shapes[shape] = problems = [[p.engine, p.message] for p in report[shape]]
            if complete:
                facts.remember_engine_problems(shape, problems)
    verdicts: dict[str, list[list[str]]] = {}
    exact = []
    for shape, members in by_shape.items():
        if shapes[shape] != []:
            exact += members
            continue
        for pattern in members:
            verdicts[pattern] = []
            if complete:
                facts.remember_engine_problems(pattern, [])
    if exact:
        verdicts.update(_compiled(facts, exact))
    return verdicts


def _compilable(facts: PatternFacts, shape: str) -> bool:
    """Whether a shape is itself portable and within the size bounds (as its patterns are): else its patterns
    are compiled one by one."""
    analysis = facts.analysis(shape)
    return not analysis["portability"] and not analysis["size"]


@register
class PatternBacktracking(Check):
    code, name = "EDX123", "pattern-backtracking"
    rule = ("no nested or adjacent overlapping repeats (unbounded, iterating often or with a wide count), "
            "nor two around a separator both can match, nor 8 or more overlapping optional parts in a row "
            "(`[0-9]?[0-9]?...`, `(?:a?){8}`: write `[0-9]{0,8}`)")
    summary = "messagePattern has no shape that backtracks catastrophically (nested or adjacent overlapping repeats)."

    def check(self, ctx: RecordContext) -> Iterable[Problem]:
        analysis = pattern_analysis(ctx)
        for offset, message in analysis["backtracking"] if analysis else ():
            yield Problem("messagePattern", f"at offset {offset}: {message}")


@register
class PatternSize(Check):
    code, name = "EDX125", "pattern-size"
    rule = (f"`messagePattern` is at most {patterns.MAX_LENGTH:,} characters, holds at most "
            f"{patterns.size.MAX_ALTERNATIONS} alternations (`a|b`), and its counted repeats expand to at most "
            f"{patterns.MAX_EXPANSION:,} positions")
    summary = (
        f"messagePattern is at most {patterns.MAX_LENGTH:,} characters, holds at most "
        f"{patterns.size.MAX_ALTERNATIONS} alternations, and its counted repeats expand to at most "
        f"{patterns.MAX_EXPANSION:,} character positions, so every engine compiles it in bounded time "
        "(larger patterns are analysed and compiled no further)."
    )

    def check(self, ctx: RecordContext) -> Iterable[Problem]:
        analysis = pattern_analysis(ctx)
        for offset, message in analysis["size"] if analysis else ():
            yield Problem("messagePattern", f"at offset {offset}: {message}")


@register
class PatternMatchesMessage(Check):
    code, name = "EDX124", "pattern-matches-message"
    rule = "`messagePattern` matches the whole `errorMessage`"
    summary = "messagePattern matches the whole errorMessage."

    def check(self, ctx: RecordContext) -> Iterable[Problem]:
        pattern, message = _portable_pattern(ctx), ctx.text("errorMessage")
        if pattern is None or message is None:
            return
        if not _facts(ctx).full_match(pattern, message):
            yield Problem(
                "messagePattern",
                "messagePattern does not match the whole errorMessage; escape metacharacters and cover every part",
            )
