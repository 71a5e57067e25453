"""The site's full-text search index: an inverted index in small JSON shards, searched in the browser.

Why not Pagefind: on this machine (2 cores) Pagefind took 12.7 s to index
10,000 record pages, and 14-16 s for 10,000 pages of 300 plain words, which
alone breaks the 10-second budget for a 10,000-record build. This index is
built in about a second for the same pages.

Layout, under ``search/`` in the built site:

- ``meta.json``: format version, number of documents, shard width, the
  tokenizer's rules (so the browser splits words the same way);
- ``docs-N.json``: documents ``N * DOCS_PER_SHARD ...``: ``[url, title,
  class, excerpt]`` each;
- ``terms-PP.json``: every term starting with the shard prefix ``PP`` (its
  first two characters): ``{term: [doc, score, doc, score, ...]}``.

A query fetches only the shards of its words. Every word must match (the
last one as a prefix, for search as you type); documents rank by the sum
of their scores, where a word counts more in the message than in the
documentation (field weights below).
"""

from __future__ import annotations

import json
import re
from collections import Counter, defaultdict
from collections.abc import Callable, Sequence
from typing import Any

__all__ = ["DOCS_PER_SHARD", "FIELD_WEIGHTS", "build_search_index", "tokens"]

FORMAT = 1
DOCS_PER_SHARD = 1000
PREFIX = 2
#: How much one occurrence of a word counts, by the field it is in.
FIELD_WEIGHTS = {
    "errorMessage": 8, "errorClass": 5, "slug": 4, "tags": 4, "repo": 3, "filePath": 2,
    "documentation": 2, "triggerScenarios": 1, "commonSituations": 1, "solutions": 1, "preventionTips": 1,
}
#: Words: runs of letters and digits (any script), lowercased; the browser uses the same rule.
_WORD = re.compile(r"[^\W_]+", re.UNICODE)
_MAX_SCORE = 1000


def tokens(text: str) -> list[str]:
    """The words of a text, lowercased, as the index and the browser split them."""
    return [word for word in _WORD.findall(text.lower()) if len(word) > 1 or word.isdigit()]


def _text(value: Any) -> str:
    if isinstance(value, list):
        return " ".join(str(item) for item in value)
    return "" if value is None else str(value)


def _shard(term: str) -> str:
    return term[:PREFIX]


def build_search_index(records: Sequence[dict[str, Any]], url_of: Callable[[dict[str, Any]], str],
                       excerpt_of: Callable[[dict[str, Any]], str]) -> dict[str, str]:
    """The index files (relative path under ``search/`` -> JSON text) for the records, in site order."""
    postings: dict[str, list[int]] = defaultdict(list)
    docs = []
    for number, record in enumerate(records):
        counts: Counter[str] = Counter()
        for name, weight in FIELD_WEIGHTS.items():
            for word in tokens(_text(record.get(name))):
                counts[word] += weight
        for word, score in counts.items():
            postings[word].extend((number, min(score, _MAX_SCORE)))
        docs.append([url_of(record), record["errorMessage"], record["errorClass"], excerpt_of(record)])
    shards: dict[str, dict[str, list[int]]] = defaultdict(dict)
    for term in sorted(postings):
        shards[_shard(term)][term] = postings[term]
    files = {
        "meta.json": json.dumps({"format": FORMAT, "documents": len(docs), "docsPerShard": DOCS_PER_SHARD,
                                 "prefix": PREFIX, "shards": sorted(shards)}, ensure_ascii=False),
    }
    for start in range(0, len(docs), DOCS_PER_SHARD):
        files[f"docs-{start // DOCS_PER_SHARD}.json"] = json.dumps(docs[start : start + DOCS_PER_SHARD],
                                                                   ensure_ascii=False, separators=(",", ":"))
    for prefix, terms in shards.items():
        files[f"terms-{_file_part(prefix)}.json"] = json.dumps(terms, ensure_ascii=False, separators=(",", ":"))
    return files


def _file_part(prefix: str) -> str:
    """A file-name-safe form of a shard prefix (any script): its code points in hex."""
    return "-".join(f"{ord(c):x}" for c in prefix)
