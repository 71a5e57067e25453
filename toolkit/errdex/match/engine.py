"""The compiled matcher: which records' patterns occur in a line, ranked, with captured values.

Hyperscan scans a whole block of lines once for every pattern at the same
time (linear in the text, whatever the patterns), looking for each
pattern's rarest piece of literal text; the few patterns without one are
looked for in each line by RE2 sets (:class:`errdex.match.prefilter.LineSets`:
hyperscan's full-expression mode misses matches on some machines). Each
candidate is then confirmed on its own line, by a substring search for
plain-text patterns and by RE2 (:mod:`errdex.match.regexes`), which also extracts the span and groups, for
the others. No backtracking engine ever runs a record's pattern over a log
line. The compiled database and each pattern's analysis are cached on disk,
keyed by the patterns, so a later start only loads them; for many keys the
database is compiled only once an input needs it (a small one is searched by
:mod:`~errdex.match.key_index`), then cached too.

Blocks are bytes of valid UTF-8 (the readers replace invalid sequences),
lines separated by ``\n``. Spans are character offsets into the decoded line.
"""

from __future__ import annotations

import itertools
import marshal
import sys
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import hyperscan

from errdex import patterns
from errdex._files import write_atomic
from errdex._version import __version__
from errdex.cache import read_marshal, sha256
from errdex.match import prefilter
from errdex.match.lines import line_start
from errdex.match.placement import NO_PREFERENCE, prefer_placed, rank_key, rank_of
from errdex.match.plan import FLAGS, compile_keys, make_plan, patterns_of
from errdex.match.regexes import SHORT_LINE, Regexes
from errdex.records.views import Views

__all__ = ["LINE_WORK_BYTES", "MAX_LINE_MATCHES", "Capped", "Found", "Match", "Matcher", "found_of", "prefer_placed",
           "rank_key", "rest_of"]  # the last two from .placement

#: One confirmed match as plain data: ``(record index, span start, span end, groups)`` (what :class:`Match`
#: holds, less the record).
Found = tuple[int, int, int, tuple[str | None, ...]]

#: Bump when the cached plan's shape changes.
_PLAN_FORMAT = "11"
#: Candidates (a line and a record that may match it) held at once while a block is matched.
MAX_CANDIDATES = 100_000
#: While the database of keys is left for later (:data:`errdex.match.plan.LATER_KEYS`), this many bytes are
#: scanned by a :class:`~errdex.match.key_index.KeyIndex` (about 0.1 s a MiB) before it is compiled.
SMALL_INPUT_BYTES = 256 << 10
#: Matches reported per line at most: the best by rank; how many more there are is counted (:class:`Capped`).
MAX_LINE_MATCHES = 20
#: Bytes of line that the candidates of one line may make RE2 read, in all (each reads the line once): a line
#: of 200 bytes may try 5,000 of them, one of 40 KB 26, a longer one :data:`MIN_LINE_TRIES`. So the work per
#: line stays linear in the line however many records' literal text it holds (RE2 extracts a group spanning a
#: 64 MiB line in seconds); the candidates left are counted as unchecked. Tried in rank order, the best first.
LINE_WORK_BYTES = 1 << 20
#: Candidates of a line tried, however long it is.
MIN_LINE_TRIES = 4


class Capped(list[Any]):
    """A line's matches (or :data:`Found` tuples), best first, when they leave some out: at most
    :data:`MAX_LINE_MATCHES`, with ``more``, other records that match the line too, and ``unchecked``, records
    whose literal text the line holds but that were not tried (the line's budget, :data:`LINE_WORK_BYTES`,
    was spent)."""

    more: int = 0
    unchecked: int = 0

    def __init__(self, items: Iterable[Any] = (), more: int = 0, unchecked: int = 0) -> None:
        super().__init__(items)
        self.more, self.unchecked = more, unchecked


def rest_of(items: Sequence[Any]) -> tuple[int, int]:
    """``(more, unchecked)`` of a line's matches: what the list leaves out (:class:`Capped`), ``(0, 0)`` when
    it holds every match."""
    return (items.more, items.unchecked) if isinstance(items, Capped) else (0, 0)


def _keeping(items: Sequence[Any], result: list[Any]) -> list[Any]:
    """``result`` with the counts of what ``items`` leaves out (:func:`rest_of`)."""
    return Capped(result, items.more, items.unchecked) if isinstance(items, Capped) else result


@dataclass(frozen=True)
class Match:
    """One record whose pattern occurs in a line.

    ``view`` holds the record's identifying fields (id, slug, repo,
    errorClass, severity, messagePattern); ``record`` is the whole record,
    read when first asked for.
    """

    view: dict[str, Any]
    span: tuple[int, int]
    groups: tuple[str | None, ...]
    literal_chars: int
    variable_parts: int
    index: int = field(default=-1, compare=False, repr=False)  # the record's position in its matcher
    resolve: Callable[[dict[str, Any]], dict[str, Any]] | None = field(default=None, compare=False, repr=False)

    @property
    def record(self) -> dict[str, Any]:
        """The whole record."""
        return self.resolve(self.view) if self.resolve is not None else self.view

    @property
    def score(self) -> int:
        """Higher is more specific: literal characters first, then fewer variable parts."""
        return self.literal_chars * 1000 - self.variable_parts

    def as_dict(self) -> dict[str, Any]:
        view = self.view
        return {
            "id": view["id"],
            "slug": view["slug"],
            "repo": view["repo"],
            "errorClass": view["errorClass"],
            "severity": view["severity"],
            "score": self.score,
            "span": list(self.span),
            "groups": list(self.groups),
        }


def found_of(matches: list[Match]) -> list[Found]:
    """Matches as :meth:`Matcher.confirm_found`'s plain tuples (with what the list leaves out, :func:`rest_of`)."""
    return _keeping(matches, [(m.index, m.span[0], m.span[1], m.groups) for m in matches])


class Matcher:
    """Every portable pattern of a set of records, compiled for scanning lines.

    A hyperscan database of literal keys (each pattern's rarest piece of
    literal text, see :mod:`errdex.match.prefilter`) finds the candidates of
    a block; RE2 sets find, line by line, those of the few patterns without a
    usable key. The database, with each pattern's analysis, is cached in one
    file per set of patterns.
    """

    def __init__(self, records: Sequence[dict[str, Any]], *, cache_dir: Path | None = None,
                 resolve: Callable[[dict[str, Any]], dict[str, Any]] | None = None) -> None:
        """``records``: dicts with at least id, slug, repo, errorClass, severity and messagePattern;
        ``resolve``: from such a dict to the whole record (for :attr:`Match.record`)."""
        self.resolve = resolve
        self.preference = NO_PREFERENCE  # errdex match --program/--platform: see prefer_placed
        hyperscan_version: str = hyperscan.__version__  # type: ignore[attr-defined]  # hyperscan's stubs omit it
        sources = patterns_of(records)
        digest = sha256(
            "\0".join([_PLAN_FORMAT, hyperscan_version, str(FLAGS), __version__, sys.version, *sources])
            .encode("utf-8", "surrogatepass")
        ).hexdigest()[:32]
        path = cache_dir / f"{digest}.marshal" if cache_dir is not None else None
        plan = self._load(path, len(records)) or self._plan(records, cache_dir, sources)
        # Column by column: a cached start at 100,000 records is a few list copies, not a loop. ``kept`` holds
        # increasing positions, so as many as the records are every one of them.
        kept: list[int] = plan["kept"]
        self.records: Sequence[dict[str, Any]] = records if len(kept) == len(records) else \
            records.take(kept) if isinstance(records, Views) else [records[i] for i in kept]
        self.skipped: list[tuple[dict[str, Any], str]] = [(records[i], message) for i, message in plan["skipped"]]
        self._re2_sources: list[str] = plan["re2"]
        self._exact: list[bytes | None] = plan["exact"]  # plain-text patterns: found by a substring search, no regex
        self._keys: list[tuple[int, int]] = plan["ranks"]  # (literal characters, variable parts)
        self._key_targets: list[list[int]] = plan["key_targets"]  # literal key id -> record indexes
        self._always: list[int] = plan["always"]  # patterns that can match the empty string: every line
        # record index -> other literal text every match holds: a candidate line without one of them is refused
        # by a substring search, before RE2 runs (lines that share a message's start but not its end)
        self._extras: dict[int, list[bytes]] = plan["extras"]
        self._literal_db = plan["literal_db"]  # None while it is left for later: see ensure_database
        self._key_bytes: list[bytes] = plan["keys"]  # literal key id -> the key
        self._regexes = Regexes(self._re2_sources, self._refused)  # compiled by RE2 on the first hit
        self._literal_scratch = hyperscan.Scratch(self._literal_db) if self._literal_db is not None else None
        self._order: list[int] | None = None  # record index -> its place in rank order, made when first needed
        self._key_index: Any = None  # finds the keys in small inputs until the database is compiled
        self._scanned = 0  # bytes scanned without the database
        # where to cache the plan again once its database is compiled
        self._later = (path, plan) if self._literal_db is None and self._key_bytes else None
        # The patterns without a key, looked for in every line (a fresh options object: the sets raise its memory).
        self._unkeyed = prefilter.LineSets([(i, self._re2_sources[i]) for i in plan["unkeyed"]], patterns.re2_options())
        for index in self._unkeyed.refused:
            self._regexes.get(index)  # RE2 refuses it: noted in skipped, with RE2's reason
        if plan.pop("fresh", False):
            self._save(path, plan)

    def _plan(self, records: Sequence[dict[str, Any]], cache_dir: Path | None = None,
              sources: list[str] | None = None) -> dict[str, Any]:
        """:func:`errdex.match.plan.make_plan` (a method, so a test can see that a cached start never plans)."""
        return make_plan(records, cache_dir, sources)

    @staticmethod
    def _load(path: Path | None, count: int) -> dict[str, Any] | None:
        if path is None:
            return None
        try:
            plan: dict[str, Any] = read_marshal(path)
            if plan["count"] != count:
                return None
            if plan["literal_db"] is not None:
                plan["literal_db"] = hyperscan.loadb(plan["literal_db"], hyperscan.HS_MODE_BLOCK)
            return plan
        except (OSError, ValueError, EOFError, TypeError, KeyError, hyperscan.error):
            return None

    def _save(self, path: Path | None, plan: dict[str, Any]) -> None:
        if path is None:
            return
        # The records this plan was made for: a refused expression is in both kept and skipped, and must not make
        # the count differ (a plan that never loads is a failure paid again at every start).
        stored = {**plan, "count": len(plan["kept"]) + len({i for i, _ in plan["skipped"]} - set(plan["kept"]))}
        if stored["literal_db"] is not None:
            stored["literal_db"] = hyperscan.dumpb(stored["literal_db"])
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            write_atomic(path, marshal.dumps(stored, 2), durable=False)
        except OSError:
            pass  # a cache that cannot be written only costs time

    def ensure_database(self) -> None:
        """Compile the database of keys if it was left for later (and cache the plan with it), as before a large
        input or before forking workers, which would each compile it."""
        if self._literal_db is not None or not self._key_bytes:
            return
        database = compile_keys(self._key_bytes)
        self._literal_db, self._literal_scratch, self._key_index = database, hyperscan.Scratch(database), None
        if self._later is not None:
            path, plan = self._later
            self._later = None
            plan["literal_db"] = database
            self._save(path, plan)

    def _refused(self, index: int, message: str) -> None:
        self.skipped.append((self.records[index], message))

    def _hits(self, block: bytes) -> dict[int, set[int]]:
        """Line start offset -> indexes of the keyed records that may match that line; one scan of the keys."""
        return self._scan_hits(block, None)[0]

    def _scan_hits(self, block: bytes, budget: int | None) -> tuple[dict[int, set[int]], int, dict[int, int]]:
        """``(hits, stop, ends)``: line start offset -> indexes of the keyed records that may match that line, for
        the lines before ``stop``, and line start -> where that line ends; one scan of the keys (the unkeyed
        patterns are found line by line, by the caller).

        ``budget``: when the candidates noted pass it at a line after the first, the scans stop there (``stop``
        is that line's start, else ``len(block)``), so the candidates held stay bounded however many records
        match each line. Patterns cannot cross a line break (``.`` and negated classes exclude it), and every
        candidate is confirmed by RE2 on its own line, so scanning many lines at once never changes a result.
        """
        found: dict[int, set[int]] = {}
        ends: dict[int, int] = {}
        stop = [len(block)]
        if not block:
            return found, 0, ends
        noted = [0]

        if self._literal_db is None:
            if not self._key_bytes:
                return found, len(block), ends
            from errdex.match import key_index  # here: only a start that left the database for later needs it

            self._scanned += len(block)
            if self._scanned > SMALL_INPUT_BYTES:
                self.ensure_database()
            elif self._scanned > key_index.TINY_BYTES and self._key_index is None:
                self._key_index = key_index.KeyIndex(self._key_bytes)
        # Each line's bounds are found once (hits come in order), and a target already noted on the line is
        # not added again: the cost stays linear however often a message repeats in a line. The callback runs
        # once per hit, so it holds its state in its own variables (no helper object, no call per hit).
        targets_of = self._key_targets
        size = len(block)
        begin, after, last = 0, -1, -1  # the current line [begin, after) (after: its break), the last id noted

        def on_hit(ident: int, start: int, end: int, flags: int, context: Any) -> bool | None:
            nonlocal begin, after, last
            if end > after or end <= begin:  # the hit's last byte is on another line
                if end <= begin:  # before the current line (hits come in order of their end: never, in practice)
                    begin = line_start(block, end)
                else:
                    begin = block.rfind(b"\n", max(after, 0), end) + 1
                after = block.find(b"\n", begin)
                if after < 0:
                    after = size
                last = -1
            elif ident == last:
                return None
            last = ident
            targets = targets_of[ident]
            hit = found.get(begin)
            if hit is None:
                if budget is not None and noted[0] > budget and begin > 0:
                    stop[0] = begin
                    return True
                found[begin] = set(targets)
                ends[begin] = after
            else:
                hit.update(targets)
            noted[0] += len(targets)
            return None

        try:
            if self._literal_db is not None:
                self._literal_db.scan(block, scratch=self._literal_scratch, match_event_handler=on_hit)
            elif self._key_index is not None:
                self._key_index.scan(block, on_hit)
            else:  # a line or two: each key searched for, no index built
                key_index.scan_each(self._key_bytes, block, on_hit)
        except hyperscan.ScanTerminated:
            pass  # stopped on purpose, at ``stop``
        return found, stop[0], ends

    def confirm(self, line: bytes, indexes: set[int] | list[int]) -> list[Match]:
        """The candidates RE2 confirms on the line (UTF-8 bytes), with spans and groups, best first (a tie for
        first place broken by where the line says it was written: :func:`prefer_placed`)."""
        return self.matches_of(self.confirm_found(line, indexes))

    def confirm_found(self, line: bytes, indexes: set[int] | list[int]) -> list[Found]:
        """:meth:`confirm` as plain tuples ``(record index, span start, span end, groups)``, best first: what
        the jsonl writer and the worker processes carry, with no :class:`Match` built per line."""
        found: list[Found] = []
        ascii_only = line.isascii()
        short = len(line) <= SHORT_LINE
        groups: tuple[str | None, ...]
        exact_of, held, regex_of, extras_of = self._exact, self._regexes.held, self._regexes.get, self._extras.get
        tries = budget = None  # candidates that may still be tried: counted only on a line with many, or long
        if len(indexes) > MAX_LINE_MATCHES or len(indexes) * (len(line) + 1) > LINE_WORK_BYTES:
            indexes = self._in_rank_order(indexes)
            tries = budget = max(MIN_LINE_TRIES, LINE_WORK_BYTES // (len(line) + 1))
        for index in indexes:
            if tries is not None:
                if not tries:
                    break
                tries -= 1
            exact = exact_of[index]
            if exact is not None:
                start = line.find(exact)
                if start < 0:
                    continue
                end, groups = start + len(exact), ()
            else:
                extra = extras_of(index)
                if extra is not None and not all(map(line.__contains__, extra)):
                    continue
                regex, anchor, first = held(index * 2 + short) or regex_of(index, short)
                spans = regex.Match(anchor, line, 0, len(line))
                start, end = spans[first]
                if start < 0:  # a candidate RE2 does not confirm (e.g. a pattern with a line break)
                    continue
                groups = () if len(spans) == first + 1 else tuple(
                    [None if s[0] < 0 else line[s[0]:s[1]].decode("utf-8", "replace") for s in spans[first + 1:]])
            if not ascii_only:  # byte offsets to character offsets
                start, end = len(line[:start].decode("utf-8", "replace")), len(line[:end].decode("utf-8", "replace"))
            found.append((index, start, end, groups))
        if tries is not None and budget is not None:
            return self._capped(found, line, len(indexes) - (budget - tries))
        if len(found) > 1:
            found = self._ranked(found, line)
        return found

    def _in_rank_order(self, indexes: set[int] | list[int]) -> list[int]:
        """The candidates by their rank (:func:`rank_of`), best first: a confirmed candidate is then never
        outranked by one tried after it (but for a tie for first place, :func:`prefer_placed`)."""
        order = self._order
        if order is None:  # once, on the first line with more candidates than it may try
            keys, records = self._keys, self.records
            ranked = sorted(range(len(keys)), key=lambda i: rank_of(keys[i][0], keys[i][1], records[i]["id"]))
            order = self._order = [0] * len(ranked)
            for place, index in enumerate(ranked):
                order[index] = place
        return sorted(indexes, key=order.__getitem__)

    def _capped(self, found: list[Found], line: bytes, unchecked: int) -> list[Found]:
        """The best :data:`MAX_LINE_MATCHES` of a line's confirmed candidates (tried in rank order), with the
        count of the other confirmed ones and of the ``unchecked`` ones, never tried."""
        shown = found[:MAX_LINE_MATCHES]
        if len(shown) > 1:
            shown = self._ranked(shown, line)
        more = len(found) - len(shown)
        if not more and not unchecked:
            return shown
        return Capped(shown, more, unchecked)

    def _ranked(self, found: list[Found], line: bytes) -> list[Found]:
        """Several confirmed candidates of one line, best first (:func:`rank_key`, then :func:`prefer_placed`)."""
        keys, records = self._keys, self.records
        found.sort(key=lambda f: rank_of(keys[f[0]][0], keys[f[0]][1], records[f[0]]["id"]))
        if (not self.preference.given and b"]: " not in line
                and all(keys[a[0]] != keys[b[0]] for a, b in itertools.pairwise(found))):
            return found  # no tie, no program named: what the line says of where it was written cannot matter
        return found_of(prefer_placed(self.matches_of(found), line, self.preference))

    def matches_of(self, found: list[Found]) -> list[Match]:
        """The :class:`Match` of each of :meth:`confirm_found`'s tuples."""
        rebuild = self.rebuild
        return _keeping(found, [rebuild(index, (start, end), groups) for index, start, end, groups in found])

    def rebuild(self, index: int, span: tuple[int, int], groups: tuple[str | None, ...]) -> Match:
        """The match of the record at ``index`` (a :attr:`Match.index`) with this span and groups."""
        literal, variable = self._keys[index]
        return Match(self.records[index], span, groups, literal, variable, index, self.resolve)

    def match(self, line: str) -> list[Match]:
        """Every record whose pattern occurs in the line, best first."""
        data = line.encode("utf-8", "replace")  # a lone surrogate becomes '?', one character for one
        candidates = set().union(*self._hits(data).values(), self._unkeyed.find(data)) if data else set()
        return self.confirm(data, candidates.union(self._always))

    def match_block(self, block: bytes) -> Iterator[tuple[int, int, list[Match]]]:
        """``(line start, line end, matches)`` for each line of the block that matches, in order.

        ``block``: lines of valid UTF-8 separated by ``\\n``. The block is scanned in parts that each hold
        at most about :data:`MAX_CANDIDATES` candidates, so memory stays bounded when every line matches
        many records.
        """
        for start, end, found in self.found_block(block):
            yield start, end, self.matches_of(found)

    def found_block(self, block: bytes) -> Iterator[tuple[int, int, list[Found]]]:
        """:meth:`match_block` with each line's matches as :meth:`confirm_found` gives them."""
        base = 0
        confirm = self.confirm_found
        while True:
            part = block if base == 0 else block[base:]
            hits, stop, ends = self._scan_hits(part, MAX_CANDIDATES)
            if self._always or self._unkeyed:  # every line may hold a candidate the keys do not show
                start, find = 0, self._unkeyed.find
                for line in (part[: stop - 1] if stop < len(part) else part).split(b"\n"):
                    found = confirm(line, hits.get(start, set()).union(self._always, find(line)))
                    if found:
                        yield base + start, base + start + len(line), found
                    start += len(line) + 1
            else:
                for start in sorted(hits):
                    end = ends[start]
                    found = confirm(part[start:end], hits.pop(start))
                    if found:
                        yield base + start, base + end, found
            if stop >= len(part):
                return
            base += stop
