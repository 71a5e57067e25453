"""The site's full-text search index: an inverted index in small JSON shards, searched in the browser.

Why not Pagefind: on this machine (2 cores) Pagefind took 12.7 s to index
10,000 record pages, more than the whole build's budget, and it has to
index every page again after any change, where an incremental build has
two seconds. ``tests/site/test_search_queries.py`` runs the same 30
queries (words, inflections, numbers, codes, typos) against this index and
against Pagefind over the same built site, in the browser, and checks that
this one finds at least as many expected records in its top 3.

What a word becomes (:func:`terms`, and ``stem`` in ``assets/errdex.js``,
which must agree; a test runs both over every word of the dataset):

- words are runs of letters and digits, lowercased; single letters dropped;
- a word of letters is stemmed (:func:`stem`): plurals, ``-ed`` and
  ``-ing`` go, so "timed", "timing" and "times" are one term; words with
  digits ("502", "ed25519", "edx123") are kept whole;
- a mixed word is indexed whole and by its parts: "CreateosApiError" also
  as "createos", "api", "error"; "EDX123" as "edx" and "123";
- a phrasal compound is one term either way: "timed out" and "timeout"
  both give "timout" (and "tim", "out"), likewise ``up``, ``down``, ``off``.

Layout, under ``search/`` in the built site:

- ``meta.json``: format version, number of documents, shard width, prefix
  length and the list of shard prefixes;
- ``docs-N.json``: documents ``N * DOCS_PER_SHARD ...``: ``[url, title,
  class, excerpt]`` each;
- ``terms-PP.json``: every term starting with the shard prefix ``PP``:
  ``{"t": {term: [doc, score, ...]}, "x": {word: [doc, score, ...]},
  "w": {term: a word it stands for}}``: ``x`` holds the inflected words
  (those that are not their own stem) as written, so a query's exact form
  counts twice; ``w`` the words of stems that are not words, for the typo
  hint.

A query fetches only the shards of its words. Every word must match (the
last one also as a prefix, for search as you type); documents with every
word come first, then those with the rarer words, then by the sum of their
scores (each word's weighed by its rarity; a score is BM25's: it
saturates as a word repeats, and counts less in a longer record), where a word counts more in the message than in the
documentation (field weights below). A word no record has is replaced by
the nearest term of its shards (one or two edits), and the page says so.
"""

from __future__ import annotations

import functools
import gc
import hashlib
import json
import marshal
import re
from collections import Counter, defaultdict
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

from errdex._files import write_atomic
from errdex._version import __version__

__all__ = ["DOCS_PER_SHARD", "FIELD_WEIGHTS", "TermsCache", "build_search_index", "document_entry", "stem", "terms",
           "tokens"]

FORMAT = 2
DOCS_PER_SHARD = 1000
PREFIX = 2
#: How much one occurrence of a word counts, by the field it is in.
#: The scenarios (test machinery: calls, faults, expectations) count half as much as the prose for people.
FIELD_WEIGHTS = {
    "errorMessage": 16, "errorClass": 10, "errorCode": 12, "httpStatus": 12, "slug": 8, "tags": 8, "repo": 6,
    "filePath": 4, "documentation": 4, "triggerScenarios": 2, "commonSituations": 2, "solutions": 2,
    "preventionTips": 2, "handlingStrategy": 2, "scenarios": 1,
}
#: Words: runs of letters and digits (any script); the browser uses the same rule.
_WORD = re.compile(r"[^\W_]+", re.UNICODE)
#: The parts of a mixed word: an upper-case run, a capitalised or lower-case run, digits.
_PART = re.compile(r"[^\W\d_a-z]+(?![^\W\d_A-Z])|[^\W\d_a-z]?[^\W\d_A-Z]+|\d+|[^\W\d_]+", re.UNICODE)
#: Second words of phrasal compounds: "timed out" = "timeout".
PARTICLES = ("out", "up", "down", "off")
_VOWELS = frozenset("aeiouy")
_MAX_SCORE = 100


def tokens(text: str) -> list[str]:
    """The words of a text, lowercased, as the browser splits a query (before stemming)."""
    return [word for word in _WORD.findall(text.lower()) if len(word) > 1 or word.isdigit()]


def _strip(word: str) -> str:
    """A letters-only word without its plural, ``-ed`` or ``-ing``, trailing ``e`` and doubled last letter."""
    if len(word) <= 3:
        return word
    if word.endswith("ies") and len(word) > 4:
        word = word[:-3] + "y"
    elif word.endswith(("sses", "xes", "ches", "shes", "zes")):
        word = word[:-2]
    elif word.endswith("s") and not word.endswith(("ss", "us", "is")):
        word = word[:-1]
    for suffix in ("ing", "ed"):
        rest = word[: -len(suffix)]
        if word.endswith(suffix) and len(rest) >= 3 and any(c in _VOWELS for c in rest):
            word = rest
            break
    if len(word) > 3 and word.endswith("e"):
        word = word[:-1]
    if len(word) > 3 and word[-1] == word[-2] and word[-1] not in _VOWELS:
        word = word[:-1]
    return word


def _compound(word: str) -> tuple[str, str] | None:
    """A phrasal compound's stem and particle ("timeouts": "tim", "out"), or None."""
    if not word.isalpha() or not word.isascii():
        return None
    if word.endswith("s") and word[:-1].endswith(PARTICLES):
        word = word[:-1]
    for particle in PARTICLES:
        rest = word[: -len(particle)]
        if word.endswith(particle) and len(rest) >= 3:
            return _strip(rest), particle
    return None


def stem(word: str) -> str:
    """The term of one lowercased word: stemmed when all letters (a compound as its stem plus its particle)."""
    if not word.isalpha() or not word.isascii():
        return word
    split = _compound(word)
    return split[0] + split[1] if split is not None else _strip(word)


@functools.lru_cache(maxsize=1 << 18)
def _word(raw: str) -> tuple[str, str, tuple[str, ...]]:
    """One word as written: lowercased, its term, and the other terms it adds (parts, a compound's halves);
    ("", "", ()) for a single letter. Cached: a dataset has far fewer distinct words than words."""
    word = raw.lower()
    if len(word) < 2 and not word.isdigit():
        return "", "", ()
    extra: list[str] = []
    parts = _PART.findall(raw)
    if len(parts) > 1:
        extra += (stem(part.lower()) for part in parts if len(part) > 1 or part.isdigit())
    split = _compound(word)
    if split is not None:  # "timeout": also "tim" and "out"
        extra += split
    return word, stem(word), tuple(extra)


def terms(text: str) -> Iterator[str]:
    """Every term a text is indexed under (see the module's docstring), in order, with repeats."""
    previous = ""
    for raw in _WORD.findall(text):
        word, term, extra = _word(raw)
        if not word:
            previous = ""
            continue
        yield term
        yield from extra
        if word in PARTICLES and previous.isalpha():
            yield previous + word
        previous = term


def _text(value: Any) -> str:
    if isinstance(value, dict):
        return " ".join(_text(v) for k, v in value.items() if k not in ("covers", "id"))
    if isinstance(value, list):
        return " ".join(_text(item) for item in value)
    return "" if value is None else str(value)


def _shard(term: str) -> str:
    return term[:PREFIX]


def document_terms(record: dict[str, Any]) -> tuple[Counter[str], Counter[str], dict[str, str]]:
    """A record's terms with their scores, its inflected words (not their own stem) with theirs, and the word
    each term that is not a word came from first."""
    counts: Counter[str] = Counter()
    exact: Counter[str] = Counter()
    surface: dict[str, str] = {}
    for name, weight in FIELD_WEIGHTS.items():
        text = _text(record.get(name))
        if not text:
            continue
        prose = name in ("errorMessage", "documentation")
        previous = ""
        found: list[str] = []
        for raw in _WORD.findall(text):  # as terms() does, inlined: this loop is most of the index's time
            word, term, extra = _word(raw)
            if not word:
                previous = ""
                continue
            found.append(term)
            if extra:
                found += extra
            if word in PARTICLES and previous.isalpha():
                found.append(previous + word)
            previous = term
            if term != word:
                exact[word] += weight
                if prose:
                    surface.setdefault(term, word)
        for term in found:
            counts[term] += weight
    return counts, exact, surface


#: BM25's saturation (a weighted count of this much scores half the most) and length normalisation, against a
#: fixed length (about the bundled records' mean) rather than the dataset's mean, so that a record's scores
#: depend on that record alone and an incremental build rewrites only the shards of the record that changed.
SATURATION = 16.0
LENGTH_WEIGHT = 0.75
REFERENCE_LENGTH = 1000


#: One record's part of the index: the (term, score) pairs of its terms and of its inflected words, and the
#: words of its stems that are not words (see :func:`document_terms`).
Entry = tuple[list[list[Any]], list[list[Any]], dict[str, str]]


def _scored(counts: Counter[str], length: int) -> list[list[Any]]:
    """A document's postings: each count saturated (BM25), less in longer documents, as 1..100."""
    k = SATURATION * (1 - LENGTH_WEIGHT + LENGTH_WEIGHT * length / REFERENCE_LENGTH)
    return [[term, max(1, round(_MAX_SCORE * count / (count + k)))] for term, count in counts.items()]


def document_entry(record: dict[str, Any]) -> Entry:
    """What one record adds to the index (a function of that record alone: see ``REFERENCE_LENGTH``)."""
    counts, exact, surface = document_terms(record)
    length = counts.total()
    return _scored(counts, length), _scored(exact, length), surface


class TermsCache:
    """Each record's :data:`Entry` from the previous build, in a marshal file of the user's cache (as
    ``errdex.match`` keeps its plans: several times faster to read than JSON), by a hash of
    the fields the index reads: a rebuild tokenises only the records that changed. Only the entries of the
    last build are kept; a damaged or foreign file is ignored."""

    def __init__(self, path: Path | None) -> None:
        self.path = path
        self.previous: dict[str, Any] = {}
        self.entries: dict[str, Entry] = {}
        self.changed = False
        try:
            raw = path.read_bytes() if path is not None else None
        except OSError:
            raw = None
        collecting = gc.isenabled()
        gc.disable()  # a million small lists: the collector would scan the whole heap (the records) many times
        try:
            data = marshal.loads(raw) if raw is not None else None
        except (ValueError, EOFError, TypeError):
            data = None
        finally:
            if collecting:
                gc.enable()
        if isinstance(data, dict) and data.get("format") == (FORMAT, __version__) and isinstance(
                data.get("entries"), dict):
            self.previous = data["entries"]

    @staticmethod
    def _key(record: dict[str, Any]) -> str:
        shown = repr([record.get(name) for name in FIELD_WEIGHTS])  # JSON values: repr is exact, and fast
        return hashlib.blake2b(shown.encode("utf-8", "surrogatepass"), digest_size=16).hexdigest()

    def entry(self, record: dict[str, Any]) -> Entry:
        key = self._key(record)
        found = self.entries.get(key) or self.previous.get(key)
        if not (isinstance(found, tuple) and len(found) == 3 and isinstance(found[0], list)
                and isinstance(found[1], list) and isinstance(found[2], dict)):
            found, self.changed = document_entry(record), True
        self.entries[key] = (found[0], found[1], found[2])
        return self.entries[key]

    def save(self) -> None:
        """Write the entries of this build (atomically) when they differ from the file's."""
        if self.path is None or not (self.changed or len(self.entries) != len(self.previous)):
            return
        try:
            write_atomic(self.path, marshal.dumps({"format": (FORMAT, __version__), "entries": self.entries}))
        except OSError:
            pass  # a cache that cannot be written only costs time


def build_search_index(records: Sequence[dict[str, Any]], url_of: Callable[[dict[str, Any]], str],
                       excerpt_of: Callable[[dict[str, Any]], str],
                       cache: TermsCache | None = None) -> dict[str, str]:
    """The index files (relative path under ``search/`` -> JSON text) for the records, in site order
    (``cache``: the records' entries from earlier builds, updated)."""
    postings: dict[str, list[int]] = defaultdict(list)
    inflected: dict[str, list[int]] = defaultdict(list)
    words: dict[str, str] = {}
    docs = []
    for number, record in enumerate(records):
        scored, exact, surface = document_entry(record) if cache is None else cache.entry(record)
        for term, score in scored:
            postings[term].extend((number, score))
        for word, score in exact:
            inflected[word].extend((number, score))
        for term, word in surface.items():
            words.setdefault(term, word)
        docs.append([url_of(record), record["errorMessage"], record["errorClass"], excerpt_of(record)])
    shards: dict[str, dict[str, dict[str, Any]]] = defaultdict(lambda: {"t": {}, "x": {}, "w": {}})
    for term in sorted(postings):
        shard = shards[_shard(term)]
        shard["t"][term] = postings[term]
        if term in words:
            shard["w"][term] = words[term]
    for word in sorted(inflected):  # in its stem's shard: a stem keeps the first three letters of its word
        shards[_shard(stem(word))]["x"][word] = inflected[word]
    files = {
        "meta.json": json.dumps({"format": FORMAT, "documents": len(docs), "docsPerShard": DOCS_PER_SHARD,
                                 "prefix": PREFIX, "shards": sorted(shards)}, ensure_ascii=False),
    }
    for start in range(0, len(docs), DOCS_PER_SHARD):
        files[f"docs-{start // DOCS_PER_SHARD}.json"] = json.dumps(docs[start : start + DOCS_PER_SHARD],
                                                                   ensure_ascii=False, separators=(",", ":"))
    for prefix, shard in shards.items():
        files[f"terms-{_file_part(prefix)}.json"] = json.dumps(shard, ensure_ascii=False, separators=(",", ":"))
    return files


def _file_part(prefix: str) -> str:
    """A file-name-safe form of a shard prefix (any script): its code points in hex."""
    return "-".join(f"{ord(c):x}" for c in prefix)
