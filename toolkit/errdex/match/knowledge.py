"""The knowledge base: records plus their compiled matcher, the Python API behind ``errdex match``."""

from __future__ import annotations

import json
from collections.abc import Generator, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from errdex.cache import usable_cache
from errdex.errors import DataError, RecordNotFound, UsageError
from errdex.match.engine import (
    MAX_LINE_MATCHES,
    Capped,
    Found,
    Match,
    Matcher,
    found_of,
    prefer_placed,
    rank_key,
    rest_of,
)
from errdex.match.jsonl import JsonLines
from errdex.match.lines import break_counter, line_end
from errdex.match.placement import Preference
from errdex.records.loader import LoadedRecord, RecordStore, load_record_store
from errdex.records.vocabulary import LOG_MESSAGE_FIELDS

__all__ = ["DEFAULT_FIELDS", "KnowledgeBase", "LineMatch", "has_json_line", "load"]

#: Fields of a JSON log line whose text is matched as well as the raw line (the vocabulary's, under the name
#: this module has always exported).
DEFAULT_FIELDS: tuple[str, ...] = LOG_MESSAGE_FIELDS
#: JSON log lines longer than this are matched as raw text only.
MAX_JSON_LINE = 1 << 20
#: What may come before the brace of a JSON line: JSON's own blanks (space, tab, carriage return), as
#: :meth:`KnowledgeBase.match` reads one line.
_JSON_BLANKS = " \t\r"
_JSON_BLANKS_BYTES = _JSON_BLANKS.encode()


def _as_text(value: object) -> str:
    """A line given to the API as text: ``str`` as is, ``bytes`` read as UTF-8 (invalid sequences replaced, as
    the readers do); anything else is refused with a plain message, not a failure deep in the matcher."""
    if isinstance(value, str):
        return value
    if isinstance(value, (bytes, bytearray, memoryview)):
        return bytes(value).decode("utf-8", "replace")
    raise TypeError(f"a log line must be str or bytes, not {type(value).__name__}")


@dataclass(frozen=True)
class LineMatch:
    """A line that matched at least one record."""

    source: str
    number: int
    text: str
    #: The best :data:`~errdex.match.engine.MAX_LINE_MATCHES` at most; :attr:`more` and :attr:`unchecked` count
    #: the rest (a :class:`~errdex.match.engine.Capped` list carries them).
    matches: list[Match] = field(default_factory=list)

    @property
    def more(self) -> int:
        """Other records that match the line, not in :attr:`matches`."""
        return rest_of(self.matches)[0]

    @property
    def unchecked(self) -> int:
        """Records whose literal text the line holds but that were not tried: the line's budget was spent."""
        return rest_of(self.matches)[1]

    def as_dict(self) -> dict[str, Any]:
        line = {"file": self.source, "line": self.number, "text": self.text,
                "matches": [m.as_dict() for m in self.matches]}
        more, unchecked = rest_of(self.matches)
        if more or unchecked:
            line |= {"moreMatches": more, "unchecked": unchecked}
        return line


def has_json_line(block: bytes) -> bool:
    """Whether a line of the block is a JSON line (a ``{`` after blanks only): the lines a knowledge base with
    message fields matches on those fields too."""
    return next(_json_starts(block), None) is not None


def _json_starts(block: bytes) -> Iterator[int]:
    """Where the block's JSON lines start (a ``{`` after blanks only), in order; a search for ``{`` (a byte most
    log lines lack) instead of a regex tried at every line break."""
    brace = block.find(b"{")
    while brace >= 0:
        start = block.rfind(b"\n", 0, brace) + 1
        if not block[start:brace].lstrip(_JSON_BLANKS_BYTES):
            yield start
        brace = block.find(b"{", line_end(block, brace))  # the next line's: only a line's first one counts


class KnowledgeBase:
    """Records and their compiled patterns.

    ``records``: a :class:`~errdex.records.loader.RecordStore` (what
    :func:`load` gives) or whole records in memory. Records that are withdrawn
    or superseded are not matched unless ``include_retired``; drafts are
    matched (they are what ``errdex harvest`` writes); :meth:`get` finds every
    record.
    """

    def __init__(self, records: RecordStore | Sequence[dict[str, Any]], *, fields: Sequence[str] = DEFAULT_FIELDS,
                 include_retired: bool = False) -> None:
        if not isinstance(records, RecordStore):
            records = RecordStore.of([LoadedRecord("<memory>", record, None) for record in records])
        self.store = records
        self.fields = tuple(fields)
        views = records.views if include_retired else records.unretired_views()
        self.matcher = Matcher(views, cache_dir=usable_cache("hyperscan"), resolve=records.full_of)
        self._by_key: dict[str, int] | None = None
        self._jsonl: JsonLines | None = None
        self._shared: dict[str, list[int]] = {}

    def position(self, key: str) -> int:
        """The store position of the record with this id, slug or OWNER/REPO/SLUG. A slug is unique only within
        its repository: one that several records hold is refused, naming them."""
        if self._by_key is None:
            views = self.store.views
            by_key: dict[str, int] = {}
            shared: dict[str, list[int]] = {}
            for i, v in enumerate(views):
                by_key[f"{v['repo']}/{v['slug']}"] = i
                shared.setdefault(v["slug"], []).append(i)
            by_key |= {slug: at[-1] for slug, at in shared.items()}
            self._shared = {slug: at for slug, at in shared.items() if len({views[i]["repo"] for i in at}) > 1}
            self._by_key = by_key | {v["id"]: i for i, v in enumerate(views)}
        if key in self._shared and self.store.views[self._by_key[key]]["id"] != key:
            names = ", ".join(f"{self.store.views[i]['repo']}/{key} ({self.store.views[i]['id']})"
                              for i in self._shared[key][:5])
            raise DataError(f"slug {key!r} is held by {len(self._shared[key])} records: {names}; "
                            "name one by id or OWNER/REPO/SLUG")
        try:
            return self._by_key[key]
        except KeyError:
            raise RecordNotFound(f"no record with id or slug {key!r}") from None

    def get(self, key: str) -> dict[str, Any]:
        """The whole record with this id or slug."""
        return self.store.full(self.position(key))

    @property
    def jsonl_writer(self) -> JsonLines:
        """The writer of this knowledge base's matched lines as jsonl (each record's part formatted once)."""
        if self._jsonl is None:
            self._jsonl = JsonLines(self.matcher)
        return self._jsonl

    def jsonl(self, line: LineMatch) -> str:
        """``json.dumps(line.as_dict(), ensure_ascii=False)``, each record's part formatted once."""
        return self.jsonl_writer.line(line.source, line.number, line.text, line.matches)

    def _json_fields(self, line: str) -> list[str]:
        if not self.fields or len(line) > MAX_JSON_LINE or not line.lstrip(_JSON_BLANKS).startswith("{"):
            return []
        try:
            value = json.loads(line)
        except (ValueError, RecursionError):
            return []
        if not isinstance(value, dict):
            return []
        return [value[name] for name in self.fields if isinstance(value.get(name), str)]

    def texts(self, line: str) -> list[str]:
        """The texts of a line that are matched: the line itself, then its JSON message fields (spans and
        groups of a match refer to one of them)."""
        return [line, *self._json_fields(line)]

    def prefer(self, *, program: str | None = None, platform: str | None = None) -> None:
        """Rank every line's matches as written by ``program`` on ``platform`` (``errdex match --program
        --platform``): a record whose file is known to be built into other programs only, or for another
        platform, ranks after every record that could have written the line; among equals, one built into
        ``program`` comes first (:func:`errdex.match.placement.prefer_placed`)."""
        for name, value in (("--program", program), ("--platform", platform)):
            if value is not None and not value.strip():
                raise UsageError(f"{name} names nothing; give a name such as sshd or linux")
        self.matcher.preference = Preference(program.strip() if program else None,
                                             platform.strip().lower() if platform else None)

    def match(self, line: str | bytes) -> list[Match]:
        """Every record whose pattern occurs in the line (or in its JSON message fields), best first.
        ``line``: ``str`` or UTF-8 ``bytes``."""
        line = _as_text(line)
        raw = self.matcher.match(line)
        best: dict[str, Match] = {m.view["id"]: m for m in raw}
        more, unchecked = rest_of(raw)
        for text in self._json_fields(line):
            found = self.matcher.match(text)
            for one in found:
                best.setdefault(one.view["id"], one)
            more, unchecked = more + rest_of(found)[0], unchecked + rest_of(found)[1]
        ranked = prefer_placed(sorted(best.values(), key=rank_key), line, self.matcher.preference)
        if len(ranked) <= MAX_LINE_MATCHES and not more and not unchecked:
            return ranked
        # what each text left out is counted once per text: a record the line and a field both match counts twice
        return Capped(ranked[:MAX_LINE_MATCHES], more + len(ranked) - min(len(ranked), MAX_LINE_MATCHES), unchecked)

    def match_block(self, block: bytes) -> Generator[tuple[int, str, list[Match]], None, int]:
        """``(line index, line text, matches)`` for each matching line of a block, in order; one scan for the block.
        The generator's value (``yield from``) is the block's count of lines.

        ``block``: lines of valid UTF-8 separated by ``\\n`` (as :func:`errdex.match.readers.read_blocks` gives).
        """
        matches_of = self.matcher.matches_of
        found_lines = self.found_block(block)
        while True:
            try:
                number, start, end, found = next(found_lines)
            except StopIteration as done:
                return int(done.value)
            yield number, block[start:end].decode("utf-8", "replace"), matches_of(found)

    def found_block(self, block: bytes) -> Generator[tuple[int, int, int, list[Found]], None, int]:
        """:meth:`match_block` as plain data: ``(line index, line start, line end, found)`` for each matching line,
        ``found`` as :meth:`Matcher.confirm_found <errdex.match.engine.Matcher.confirm_found>` gives it (the
        lines are not decoded, no :class:`Match` is built); the generator's value is the block's count of lines.
        """
        number, previous = 0, 0
        count = break_counter(block)
        for start, end, found in self._block_found(block):  # in order, one line at a time (bounded memory)
            number += count(previous, start)
            previous = start
            yield number, start, end, found
        return number + count(previous, len(block)) + 1  # the block's lines: its breaks counted in one pass

    def _block_found(self, block: bytes) -> Iterator[tuple[int, int, list[Found]]]:
        """``(start, end, found)`` of the matching lines in order: the raw scan's, and JSON lines matched on
        their message fields too (their result replaces the raw one)."""
        raw = self.matcher.found_block(block)
        if not self.fields or b"{" not in block:
            yield from raw
            return
        starts = _json_starts(block)
        following = next(starts, None)  # the start of the next JSON line
        for start, end, found in raw:
            while following is not None and following < start:
                yield from self._json_line(block, following)
                following = next(starts, None)
            if following == start:  # a JSON line the raw scan matched: its fields may add records
                yield start, end, found_of(self.match(block[start:end].decode("utf-8", "replace"))) or found
                following = next(starts, None)
            else:
                yield start, end, found
        while following is not None:
            yield from self._json_line(block, following)
            following = next(starts, None)

    def _json_line(self, block: bytes, start: int) -> Iterator[tuple[int, int, list[Found]]]:
        end = line_end(block, start)
        found = found_of(self.match(block[start:end].decode("utf-8", "replace")))
        if found:
            yield start, end, found

    def match_lines(self, lines: Iterable[str | bytes] | str | bytes, *,
                    source: str = "<lines>") -> Iterator[LineMatch]:
        """The lines that match a record, numbered from 1, with their ranked matches.

        ``lines``: lines as ``str`` or UTF-8 ``bytes`` (a file opened in text or binary mode), or one whole text
        (split at its line breaks, not read character by character)."""
        if isinstance(lines, (str, bytes, bytearray)):
            lines = _as_text(lines).split("\n")
        for number, line in enumerate(lines, start=1):
            line = _as_text(line).rstrip("\r\n")
            matches = self.match(line)
            if matches:
                yield LineMatch(source, number, line, matches)


def load(records: Sequence[str | Path] | None = None, *, fields: Sequence[str] = DEFAULT_FIELDS,
         include_retired: bool = False, partial: bool = False) -> KnowledgeBase:
    """The knowledge base of the given records (default: the bundled dataset); retired records are not matched
    unless ``include_retired``. ``partial``: also match records that do not conform to their format yet but
    have an ``id`` and a ``messagePattern`` (``kb.store.problems`` says what is wrong with them)."""
    return KnowledgeBase(load_record_store(records, partial=partial), fields=fields, include_retired=include_retired)
