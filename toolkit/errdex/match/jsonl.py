"""Matched lines as ``errdex match --format jsonl`` writes them, each record's part formatted once.

The text is exactly ``json.dumps(line.as_dict(), ensure_ascii=False)``: the
fields of a record (id, slug, repo, errorClass, severity, score) are the same
in every match of it, so they are turned into JSON on its first match only;
each line adds its file, number, text, spans and groups.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from typing import Any

from errdex.match.engine import Match

__all__ = ["JsonLines"]

#: A string as ``json.dumps(text, ensure_ascii=False)`` writes it (the function it calls, without its set-up).
_string: Callable[[str], str] = json.encoder.encode_basestring


class JsonLines:
    """The JSON text of matched lines, for the records of one matcher (``records``: its records, by index)."""

    def __init__(self, records: Sequence[dict[str, Any]]) -> None:
        self._records = records
        self._heads: dict[int, str] = {}  # record index -> its Match.as_dict as JSON up to "span", with ", "
        self._source, self._source_json = "", '""'  # the last file named, and its JSON

    def match(self, match: Match) -> str:
        """``json.dumps(match.as_dict(), ensure_ascii=False)``."""
        index = match.index
        head = self._heads.get(index) if index >= 0 else None
        if head is None:
            view = match.view
            head = json.dumps({"id": view["id"], "slug": view["slug"], "repo": view["repo"],
                               "errorClass": view["errorClass"], "severity": view["severity"],
                               "score": match.score}, ensure_ascii=False)[:-1] + ", "
            if 0 <= index < len(self._records) and self._records[index] is view:  # a match of this matcher's
                self._heads[index] = head
        start, end = match.span
        groups = ", ".join("null" if g is None else _string(g) for g in match.groups)
        return f'{head}"span": [{start}, {end}], "groups": [{groups}]}}'

    def line(self, source: str, number: int, text: str, matches: Sequence[Match]) -> str:
        """A matched line (``LineMatch.as_dict`` as JSON, no line break)."""
        found = ", ".join(self.match(m) for m in matches)
        if source != self._source:
            self._source, self._source_json = source, _string(source)
        return f'{{"file": {self._source_json}, "line": {number}, "text": {_string(text)}, "matches": [{found}]}}'
