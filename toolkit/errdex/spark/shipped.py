"""The matcher as bytes: compiled once where a job starts, loaded once in each process that matches.

A :class:`Shipped` holds the views of the records to match (their identifying
fields and pattern) and the matcher's compiled plan as the engine caches it
(hyperscan's own serialisation of its database plus each pattern's analysis,
written by :class:`errdex.match.Matcher` with ``cache_dir``). No hyperscan
object is ever pickled: a worker writes the plan into its own cache folder
and builds a :class:`~errdex.match.KnowledgeBase` over the views, which then
only loads the database. A plan made by another Python, hyperscan or errdex,
or one hyperscan cannot load (another CPU), is not used: the worker compiles
the patterns itself and says so with a :class:`RebuiltWarning`.

:func:`knowledge` keeps one knowledge base per process, keyed by the bytes'
hash, so the tasks a reused worker runs share one matcher and one scratch.
"""

from __future__ import annotations

import hashlib
import marshal
import sys
import threading
import warnings
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import hyperscan

from errdex._files import scratch, write_atomic
from errdex._version import __version__
from errdex.cache import usable_cache
from errdex.match import KnowledgeBase, Matcher
from errdex.records.loader import LoadedRecord, RecordStore, load_record_store
from errdex.records.vocabulary import is_retired

__all__ = ["RebuiltWarning", "Shipped", "builds", "cached", "knowledge", "ship"]

#: Bump when the shipped shape changes.
_FORMAT = 1
_lock = threading.Lock()
_loaded: dict[str, KnowledgeBase] = {}
#: How many times this process built the knowledge base of each key (once, unless the cache was cleared).
builds: Counter[str] = Counter()


class RebuiltWarning(RuntimeWarning):
    """The shipped plan could not be used here: the patterns were compiled again (slower start, same results)."""


@dataclass(frozen=True)
class Shipped:
    """The bytes a job sends to its workers, and their hash (the key of each worker's cache)."""

    data: bytes
    key: str


def _hyperscan_version() -> str:
    version: str = hyperscan.__version__  # type: ignore[attr-defined]  # hyperscan's stubs omit it
    return version


def _views(records: RecordStore | Sequence[dict[str, Any]] | Sequence[str | Path] | None,
           include_retired: bool) -> list[dict[str, Any]]:
    """The views a knowledge base matches: of a store, of records in memory, or of record files (default: the
    bundled dataset); retired records left out unless ``include_retired`` (as :class:`KnowledgeBase` does)."""
    if isinstance(records, RecordStore):
        store = records
    elif records and all(isinstance(r, dict) for r in records):
        store = RecordStore.of([LoadedRecord("<memory>", r, None) for r in records if isinstance(r, dict)])
    else:
        store = load_record_store([r for r in records or () if isinstance(r, (str, Path))] or None)
    return [dict(v) for v in store.views if include_retired or not is_retired(v)]


def ship(records: RecordStore | Sequence[dict[str, Any]] | Sequence[str | Path] | None = None, *,
         include_retired: bool = False) -> Shipped:
    """Compile the matcher of ``records`` (a store, records in memory, record files or folders; default: the
    bundled dataset) and pack it with the records' views."""
    views = _views(records, include_retired)
    with scratch("ship") as folder:
        Matcher(views, cache_dir=folder).ensure_database()  # the workers' inputs are large
        plans = sorted(folder.iterdir())
        name, plan = (plans[0].name, plans[0].read_bytes()) if plans else ("", b"")
    data = marshal.dumps({"format": _FORMAT, "views": views, "name": name, "plan": plan,
                          "built": [sys.version, _hyperscan_version(), __version__]})
    return Shipped(data, hashlib.sha256(data).hexdigest())


def _usable_plan(payload: dict[str, Any]) -> str | None:
    """Why the shipped plan cannot be loaded in this process, or None when it can."""
    if not payload["plan"]:
        return "the plan could not be written where it was compiled"
    here = [sys.version, _hyperscan_version(), __version__]
    if payload["built"] != here:
        return f"it was compiled by Python/hyperscan/errdex {payload['built']}, this worker runs {here}"
    try:
        plan = marshal.loads(payload["plan"])
        if plan.get("literal_db") is not None:
            hyperscan.loadb(plan["literal_db"], hyperscan.HS_MODE_BLOCK)
    except (ValueError, EOFError, TypeError, AttributeError, hyperscan.error) as exc:
        return f"hyperscan cannot load its database here ({str(exc) or type(exc).__name__})"
    return None


def _build(data: bytes) -> KnowledgeBase:
    payload = marshal.loads(data)
    if not isinstance(payload, dict) or payload.get("format") != _FORMAT:
        raise ValueError("not a matcher shipped by this errdex (format differs)")
    problem = _usable_plan(payload)
    folder = usable_cache("hyperscan")
    if problem is None and folder is not None:
        target = folder / payload["name"]
        if not target.exists():
            write_atomic(target, payload["plan"])
    elif problem is not None:
        warnings.warn(f"errdex: the shipped matcher cannot be used on this worker: {problem}; "
                      f"compiling its {len(payload['views'])} patterns here", RebuiltWarning, stacklevel=3)
    return KnowledgeBase(payload["views"], include_retired=True)  # the views are those to match already


def cached(key: str) -> KnowledgeBase | None:
    """The knowledge base this process already built from the shipped bytes with this hash, if any."""
    return _loaded.get(key)


def knowledge(shipped: Shipped | bytes, key: str | None = None) -> KnowledgeBase:
    """The knowledge base of shipped bytes, built once per process (keyed by their hash) and reused."""
    data = shipped.data if isinstance(shipped, Shipped) else shipped
    key = key or (shipped.key if isinstance(shipped, Shipped) else hashlib.sha256(data).hexdigest())
    kb = _loaded.get(key)
    if kb is None:
        with _lock:
            kb = _loaded.get(key)
            if kb is None:
                kb = _loaded[key] = _build(data)
                builds[key] += 1
    return kb
