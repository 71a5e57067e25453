"""The matcher's plan: each pattern analysed, the literal keys chosen, the database of keys compiled (for
many keys, when an input first needs it: :data:`LATER_KEYS`).

Made once per set of patterns and cached by :class:`errdex.match.engine.Matcher` (a later start only loads
it). The analysis of many patterns is split over two processes (:mod:`errdex.match.split`).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import hyperscan

from errdex import patterns
from errdex.errors import DataError
from errdex.match import prefilter
from errdex.records.views import Views

if TYPE_CHECKING:
    from errdex.patterns.facts import PatternFacts

__all__ = ["EXTRA_LITERALS", "FLAGS", "LATER_KEYS", "compile_databases", "compile_keys", "make_plan", "patterns_of"]

# MULTILINE: ^ and $ hold at every line break, so a buffer of many lines scans like each line alone.
# (hyperscan's own UTF-8 flag is patterns.HYPERSCAN_FLAGS: read here, so a cached start imports no analysis.)
FLAGS = hyperscan.HS_FLAG_UTF8 | hyperscan.HS_FLAG_MULTILINE


def _analyse(pattern: str, facts: PatternFacts | None = None) -> list[Any]:
    """``[problem, literal chars, variable parts, RE2 source, exact text, required literals]`` of one pattern
    (needless escapes such as ``\\ `` read as the plain character: :func:`errdex.patterns.normalize_escapes`).

    ``facts``: the analyses ``errdex validate`` cached; a pattern found there is not analysed again.
    """
    pattern = patterns.normalize_escapes(pattern)
    known = facts.known(pattern) if facts is not None else None
    if known is not None:
        from errdex.patterns.matchable import refusal_of  # here: only planning needs it (see _plan)

        refused = refusal_of(_messages(known["size"]), _messages(known["portability"]))
        if known["size"] or known["portability"]:  # its literals were not found (its analysis stopped early)
            known = None
    else:
        refused = patterns.refusal(pattern)
    if refused is not None:
        return [refused, 0, 0, None, None, None]
    if patterns.matches_every_line(pattern):  # it occurs in every line (no prefilter can help)
        return [None, patterns.literal_chars(pattern), patterns.variable_parts(pattern),
                patterns.to_re2(pattern, allow_empty=True), None, None]
    required = known["literals"] if known is not None else patterns.required_literals(pattern)
    return [None, patterns.literal_chars(pattern), patterns.variable_parts(pattern), patterns.to_re2(pattern),
            patterns.exact_text(pattern), required]


#: From this many literal keys, their database is compiled when an input first needs it, not with the plan: a
#: compile costs seconds at 100,000 keys (2 s), and a first start that matches a line or two finds the keys
#: without it (:mod:`errdex.match.key_index`). Below it, a compile takes a fraction of a second.
LATER_KEYS = 20_000
#: Literals besides its key checked in a candidate line before RE2 confirms it (the longest first).
EXTRA_LITERALS = 3


def _extras(keys: list[bytes | None], literals: list[list[bytes]],
            exact: list[bytes | None]) -> Iterator[list[bytes]]:
    """For each pattern, up to :data:`EXTRA_LITERALS` of its required literals that neither hold its key nor
    are held by it (such a piece is in nearly every line the key is in); none for a plain-text pattern, which
    a substring search confirms anyway."""
    for key, pieces, text in zip(keys, literals, exact, strict=True):
        if text is not None or key is None:
            yield []
            continue
        rest = {piece for piece in pieces if len(piece) > 1 and piece not in key and key not in piece}
        yield sorted(rest, key=lambda p: (-len(p), p))[:EXTRA_LITERALS]


def patterns_of(records: Sequence[dict[str, Any]]) -> list[str]:
    """The records' patterns; views kept column by column give theirs without building a dict per record."""
    return records.column("messagePattern") if isinstance(records, Views) else [r["messagePattern"] for r in records]


def _messages(problems: list[Any]) -> list[str]:
    return [str(p[1]) if isinstance(p, list) and len(p) == 2 else repr(p) for p in problems]


def _existence(pattern: str) -> bytes:
    """The hyperscan expression that finds whether the pattern (read as the matcher reads it) occurs in a line."""
    return patterns.to_hyperscan_existence(patterns.normalize_escapes(pattern))


def make_plan(records: Sequence[dict[str, Any]], cache_dir: Path | None = None,
              sources: list[str] | None = None) -> dict[str, Any]:
    """Analyse every pattern (``sources``: the records' patterns; the second half in a forked child when
    there are many, :func:`errdex.match.split.split_map`), choose the keys and compile the database of keys.

    The patterns without a key are compiled by hyperscan too, only to see that it accepts them: a record is
    matched when every engine can run its pattern, and reported in :attr:`skipped` when one cannot.
    """
    from errdex.records.halves import paused_collector  # here, not at the top: a cached start never plans

    with paused_collector():
        return _make_plan(records, cache_dir, sources)


def _make_plan(records: Sequence[dict[str, Any]], cache_dir: Path | None,
               sources: list[str] | None) -> dict[str, Any]:
    """The work of :func:`make_plan`, with the collector paused."""
    # Here, not at the top: a cached start never plans, and the facts' module imports every analysis (and the
    # split, errdex.parallel and pickle).
    from errdex.match.split import split_map
    from errdex.patterns.facts import FACTS_FILE, PatternFacts

    facts = PatternFacts(cache_dir.parent / FACTS_FILE) if cache_dir is not None else None  # validate's
    kept: list[int] = []
    skipped: list[list[Any]] = []  # [record position, reason]
    re2_sources: list[str] = []
    exact: list[bytes | None] = []
    ranks: list[tuple[int, int]] = []
    literals: list[list[bytes]] = []
    always: list[int] = []
    analyses = split_map(lambda pattern: _analyse(pattern, facts), sources or patterns_of(records))
    for position, (problem, literal, variable, re2_source, text, required) in enumerate(analyses):
        if problem:
            skipped.append([position, problem])
            continue
        if required is None:  # matches every line: a candidate on each one, never in a database
            always.append(len(kept))
            required = []
        kept.append(position)
        re2_sources.append(re2_source)
        exact.append(text.encode("utf-8", "replace") if text else None)
        ranks.append((literal, variable))
        literals.append([piece.encode("utf-8", "replace") for piece in required])
    keys = prefilter.choose_keys(literals)
    extras = {index: rest for index, rest in enumerate(_extras(keys, literals, exact)) if rest}
    unique: dict[bytes, list[int]] = {}
    regex_targets: list[int] = []
    every = set(always)
    for index, key in enumerate(keys):
        if index in every:
            continue
        if key is None:
            regex_targets.append(index)
        else:
            unique.setdefault(key, []).append(index)
    pairs = [(target, _existence(records[kept[target]]["messagePattern"])) for target in regex_targets]
    try:
        literal_db, regex_db = compile_databases(_now(unique), [expression for _, expression in pairs])
    except DataError:
        # One expression hyperscan refuses must not stop the others: find it, leave it out, say why.
        refused: dict[int, str] = {}
        for target, expression in pairs:
            try:
                compile_databases([], [expression])
            except DataError as exc:
                refused[target] = str(exc).split("; run")[0]
        pairs = [(target, expression) for target, expression in pairs if target not in refused]
        regex_targets = [target for target, _ in pairs]
        skipped += [[kept[target], message] for target, message in refused.items()]
        literal_db, regex_db = compile_databases(_now(unique), [expression for _, expression in pairs])
    del regex_db  # never scanned: its misses are why the unkeyed patterns are found by RE2 sets
    return {"kept": kept, "skipped": skipped, "re2": re2_sources, "exact": exact, "ranks": ranks, "extras": extras,
            "keys": list(unique), "key_targets": list(unique.values()), "unkeyed": regex_targets, "always": always,
            "literal_db": literal_db, "fresh": True}


def _now(keys: dict[bytes, list[int]]) -> list[bytes]:
    """The keys whose database is compiled with the plan: all of them, or none when there are many (and a
    :class:`~errdex.match.key_index.KeyIndex` can find them until it is compiled)."""
    from errdex.match.key_index import KeyIndex  # here, as the split: a cached start never plans

    return [] if len(keys) >= LATER_KEYS and KeyIndex.serves(list(keys)) else list(keys)


def compile_keys(keys: list[bytes]) -> Any:
    """The database of literal keys (pure-literal mode; a key's id is its position); DataError when hyperscan
    refuses them."""
    database = hyperscan.Database(mode=hyperscan.HS_MODE_BLOCK)
    try:
        database.compile(expressions=keys, ids=list(range(len(keys))), flags=[0] * len(keys), literal=True)
    except hyperscan.error as exc:
        raise DataError(f"hyperscan cannot compile the patterns' keys: {exc}; run 'errdex validate'") from exc
    return database


def compile_databases(keys: list[bytes], expressions: list[bytes]) -> tuple[Any, Any]:
    """The database of literal keys (None without keys) and the one of full expressions (None when empty)."""
    try:
        literal_db = compile_keys(keys) if keys else None
        regex_db = None
        if expressions:
            regex_db = hyperscan.Database(mode=hyperscan.HS_MODE_BLOCK)
            regex_db.compile(expressions=expressions, ids=list(range(len(expressions))),
                             flags=[FLAGS] * len(expressions))
    except hyperscan.error as exc:
        raise DataError(f"hyperscan cannot compile the patterns: {exc}; run 'errdex validate'") from exc
    return literal_db, regex_db
