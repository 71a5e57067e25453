"""Matched lines as ``errdex match --format jsonl`` writes them, each record's part formatted once.

The text is exactly ``json.dumps(line.as_dict(), ensure_ascii=False)``: the
fields of a record (id, slug, repo, errorClass, severity, score) are the same
in every match of it, so they are turned into JSON on its first match only;
each line adds its file, number, text, spans and groups.

A block's matched lines are written from the engine's plain tuples
(:meth:`JsonLines.block`) as ``(line numbers, tails)``: a line's text after its
number, so a worker process that does not know where its piece of a file
starts can write them, and the process that knows joins each number to its
tail (:func:`joined`).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Sequence

from errdex.match.engine import Capped, Found, Match, Matcher, rest_of
from errdex.records.vocabulary import SEVERITY_RANK

__all__ = ["JsonLines", "joined", "line_prefix"]

#: A string as ``json.dumps(text, ensure_ascii=False)`` writes it (the function it calls, without its set-up).
_string: Callable[[str], str] = json.encoder.encode_basestring


def _match_json(head: str, start: int, end: int, groups: tuple[str | None, ...]) -> str:
    """One match's JSON: its record's part (``head``, up to ``"span"``), then its span and groups."""
    values = ", ".join(["null" if g is None else _string(g) for g in groups]) if groups else ""
    return f'{head}"span": [{start}, {end}], "groups": [{values}]}}'


def _rest(more: int, unchecked: int) -> str:
    """What a line's JSON says after its matches when they leave some out (:class:`~errdex.match.engine.Capped`)."""
    return f', "moreMatches": {more}, "unchecked": {unchecked}' if more or unchecked else ""


def line_prefix(source: str) -> str:
    """What every jsonl line of ``source`` starts with, up to its line number."""
    return f'{{"file": {_string(source)}, "line": '


def joined(prefix: str, base: int, numbers: Sequence[int], tails: Sequence[str]) -> str:
    """The jsonl text of a block written by :meth:`JsonLines.block` (numbers counted from ``base``), each line
    ended by a line break."""
    return "".join([f"{prefix}{base + number}{tail}\n" for number, tail in zip(numbers, tails, strict=True)])


class JsonLines:
    """The JSON text of matched lines, for the records of one matcher."""

    def __init__(self, matcher: Matcher) -> None:
        self._matcher = matcher
        self._records = matcher.records
        self._heads: dict[int, str] = {}  # record index -> its Match.as_dict as JSON up to "span", with ", "
        self._ranks: dict[int, int] = {}  # record index -> the rank of its severity
        self._source, self._source_json = "", '""'  # the last file named, and its JSON

    def _head(self, index: int) -> str:
        head = self._heads.get(index)
        if head is None:
            match = self._matcher.rebuild(index, (0, 0), ())
            head = self._heads[index] = self._head_of(match)
            self._ranks[index] = SEVERITY_RANK.get(match.view["severity"], 0)
        return head

    @staticmethod
    def _head_of(match: Match) -> str:
        view = match.view
        return json.dumps({"id": view["id"], "slug": view["slug"], "repo": view["repo"],
                           "errorClass": view["errorClass"], "severity": view["severity"],
                           "score": match.score}, ensure_ascii=False)[:-1] + ", "

    def match(self, match: Match) -> str:
        """``json.dumps(match.as_dict(), ensure_ascii=False)``."""
        index = match.index
        if 0 <= index < len(self._records) and self._records[index] is match.view:  # a match of this matcher's
            head = self._head(index)
        else:
            head = self._head_of(match)
        return _match_json(head, *match.span, match.groups)

    def line(self, source: str, number: int, text: str, matches: Sequence[Match]) -> str:
        """A matched line (``LineMatch.as_dict`` as JSON, no line break)."""
        found = ", ".join(self.match(m) for m in matches)
        if source != self._source:
            self._source, self._source_json = source, _string(source)
        rest = _rest(*rest_of(matches))
        return (f'{{"file": {self._source_json}, "line": {number}, "text": {_string(text)}, "matches": [{found}]'
                f'{rest}}}')

    def block(self, block: bytes, lines: Iterable[tuple[int, int, int, list[Found]]], first: int = 1,
              limit: int | None = None) -> tuple[list[int], list[str], int]:
        """``(numbers, tails, worst)`` of a block's matched lines: ``lines`` as
        :meth:`KnowledgeBase.found_block <errdex.match.knowledge.KnowledgeBase.found_block>` gives them, each
        numbered ``first`` + its index; a tail is the line's JSON after its number (:func:`joined` puts them
        together); ``worst``: the highest severity rank among the matches (-1 when none).

        ``limit``: stop once the lines taken hold this many matches (the rest of an iterator ``lines`` is left
        for the next call), so the text held stays bounded however many records each line matches."""
        numbers: list[int] = []
        tails: list[str] = []
        heads, ranks, head_of, string, match_json = self._heads, self._ranks, self._head, _string, _match_json
        worst = -1
        numbered, tailed = numbers.append, tails.append
        left = limit
        for number, start, end, found in lines:
            parts = []
            for index, low, high, groups in found:
                parts.append(match_json(heads.get(index) or head_of(index), low, high, groups))
                if ranks[index] > worst:  # known once the record's head is
                    worst = ranks[index]
            numbered(first + number)
            text = string(block[start:end].decode("utf-8", "replace"))
            rest = _rest(found.more, found.unchecked) if isinstance(found, Capped) else ""
            tailed(f', "text": {text}, "matches": [{parts[0] if len(parts) == 1 else ", ".join(parts)}]{rest}}}')
            if left is not None:
                left -= len(found)
                if left <= 0:
                    break
        return numbers, tails, worst
