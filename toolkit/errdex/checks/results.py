"""What the checks of one record found, kept between runs by the record's text: a warm validation re-checks only
the records that changed.

Every check that looks at one record at a time (no ``finalize``), and the
schema, finds what it finds from the document's text, where it lies (its path
and first line: EDX113 and EDX114 read the file's name and folder) and the
code of errdex and of the libraries it validates with. A run keeps, for each
record, the findings those checks gave *before* any configuration is applied
(code, pointer, message, line, column); a later run over the same text, in
the same place, with the same checks selected replays them through the same
filters (``--strict``, per-record ignores), so its report is the one a full
run gives. Checks across records (uniqueness, successors, engine verdicts)
always run. The cache is dropped whole when errdex's checks, records or
patterns (or the libraries they validate with) changed on disk.
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import os
from pathlib import Path
from typing import Any

from errdex._files import write_atomic
from errdex._version import __version__
from errdex.records.jsontext import ParsedDocument, parse_document

__all__ = ["RESULTS_FILE", "Emit", "RecordResults"]

#: The cache file's name in the cache folder (see :func:`errdex.cache.usable_cache`).
RESULTS_FILE = "validate-results.json"

#: Bump when what an entry holds changes.
_FORMAT = "1"

#: Entries kept at most: the records of a few large datasets; the ones used last are kept first.
MAX_ENTRIES = 250_000

#: One finding as a check gave it: code, pointer, message, line, column.
Emit = tuple[str, str, str, int, int]

#: Libraries whose code decides what the record checks find (the schema's validator, its models, the pattern
#: engine of EDX124), besides errdex's own.
_LIBRARIES = ("jsonschema_rs", "re2", "_re2", "pydantic", "pydantic_core")

#: The parts of errdex the record checks are made of (and the modules at its top, which any of them may use).
_PARTS = ("checks", "records", "patterns")


def _stamps(folder: str, parts: list[str]) -> None:
    """The name, size and modification time of every file under ``folder``, in name order."""
    try:
        entries = sorted(os.scandir(folder), key=lambda entry: entry.name)
    except OSError:
        return
    for entry in entries:
        if entry.name == "__pycache__":
            continue
        if entry.is_dir(follow_symlinks=False):
            _stamps(entry.path, parts)
            continue
        try:
            info = entry.stat()
        except OSError:
            continue
        parts.append(f"{entry.path}:{info.st_size}:{info.st_mtime_ns}")


def _fingerprint() -> str:
    """What the findings of the record checks are a function of, besides the records: errdex's version, its
    checks, records and patterns packages and top-level modules as they are on disk, and the libraries'.

    Files on disk rather than the modules loaded: errdex loads the analyses on first use, and a run early in a
    process must give the key a later one does."""
    parts = [__version__, _FORMAT]
    package = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    for name in sorted(os.listdir(package)):
        if name.endswith(".py"):
            _stamp(os.path.join(package, name), parts)
    for part in _PARTS:
        _stamps(os.path.join(package, part), parts)
    for name in _LIBRARIES:
        try:
            spec = importlib.util.find_spec(name)  # where it is, without importing it (loaded or not, one key)
        except (ImportError, ValueError):
            spec = None
        if spec is not None and spec.origin:
            _stamp(spec.origin, parts)
    return hashlib.blake2b("\n".join(parts).encode("utf-8", "surrogateescape"), digest_size=16).hexdigest()


def _stamp(file: str, parts: list[str]) -> None:
    try:
        info = os.stat(file)
    except OSError:
        return
    parts.append(f"{file}:{info.st_size}:{info.st_mtime_ns}")


def _valid(entry: Any) -> bool:
    return isinstance(entry, list) and all(
        isinstance(item, list) and len(item) == 5 and all(isinstance(s, str) for s in item[:3])
        and all(type(n) is int for n in item[3:]) for item in entry)


class RecordResults:
    """The per-record findings of earlier runs, for the checks ``codes`` (the enabled record checks)."""

    def __init__(self, cache_file: Path | None, codes: list[str]) -> None:
        self.cache_file = cache_file
        self.fingerprint = _fingerprint()
        self.selection = ",".join(sorted(codes))
        self.entries: dict[str, list[Any]] = {}
        self.used: dict[str, list[Any]] = {}
        self.fresh: list[str] = []
        #: The digests of texts that parsed with no problem, and whether they write a decimal number.
        self.clean: dict[str, bool] = {}
        self.clean_used: dict[str, bool] = {}
        self.changed = False
        if cache_file is not None:
            try:
                data = json.loads(cache_file.read_bytes())
                if (isinstance(data, dict) and data.get("fingerprint") == self.fingerprint
                        and isinstance(data.get("entries"), dict) and isinstance(data.get("clean"), dict)):
                    self.entries, self.clean = data["entries"], data["clean"]
            except (OSError, ValueError):
                pass  # absent or damaged: every record is checked

    def parse(self, data: bytes) -> ParsedDocument:
        """:func:`~errdex.records.jsontext.parse_document` of a record file, sooner for a text that parsed with
        no problem before: then the plain ``json.loads`` gives the same value (no duplicate key, constant,
        number out of range, lone surrogate or deep nesting is there for the strict hooks to note)."""
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError:
            return parse_document(data)
        text = text[1:] if text.startswith("\ufeff") else text
        digest = hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=16).hexdigest()
        decimals = self.clean.get(digest)
        if type(decimals) is bool:
            try:
                value = json.loads(text)
            except (ValueError, RecursionError):
                pass  # not what the cache said: the strict parse says what is wrong
            else:
                self.clean_used[digest] = decimals
                return ParsedDocument(value, [], text, 0, has_decimals=decimals)
        parsed = parse_document(data)
        if not parsed.problems and parsed.parsed:
            self.clean_used[digest] = parsed.has_decimals
            self.changed = True
        return parsed

    def key(self, text: str, path: str, fs_path: Path | None, line_offset: int) -> str:
        """The key of a document: its text, where it lies, and the checks selected."""
        where = f"{path}\0{fs_path}\0{line_offset}\0{self.selection}\0".encode("utf-8", "surrogatepass")
        digest = hashlib.blake2b(where, digest_size=16)
        digest.update(text.encode("utf-8", "surrogatepass"))
        return digest.hexdigest()

    def has(self, key: str) -> bool:
        """Whether findings are kept for the key (:meth:`get` may still find the entry damaged)."""
        return key in self.used or key in self.entries

    def get(self, key: str) -> list[Emit] | None:
        """The findings kept for the key, or None when there are none (or a damaged entry)."""
        entry = self.used.get(key)
        if entry is None:
            entry = self.entries.get(key)
        if entry is None or not _valid(entry):
            return None
        self.used[key] = entry
        return [(e[0], e[1], e[2], e[3], e[4]) for e in entry]

    def put(self, key: str, emits: list[Emit]) -> None:
        self.used[key] = [list(e) for e in emits]
        self.fresh.append(key)
        self.changed = True

    def learnt(self) -> dict[str, list[Any]]:
        """The entries put since the last call, for another process to :meth:`absorb` (a forked child's)."""
        found = {key: self.used[key] for key in self.fresh}
        self.fresh = []
        return found

    def absorb(self, entries: dict[str, list[Any]]) -> None:
        """Take the entries another process put."""
        if entries:
            self.used.update(entries)
            self.changed = True

    def save(self) -> None:
        """Write the cache back (atomically) when this run checked a record it did not know."""
        if self.cache_file is None or not self.changed:
            return
        document = {"fingerprint": self.fingerprint, "entries": _kept(self.entries, self.used),
                    "clean": _kept(self.clean, self.clean_used)}
        try:
            self.cache_file.parent.mkdir(parents=True, exist_ok=True)
            write_atomic(self.cache_file, json.dumps(document, separators=(",", ":")).encode())
        except OSError:
            pass  # a cache that cannot be written only costs time


def _kept(old: dict[str, Any], used: dict[str, Any]) -> dict[str, Any]:
    """The entries to write: those used in this run, after as many older ones as leave room (the latest kept)."""
    room = max(MAX_ENTRIES - len(used), 0)
    kept = [(k, v) for k, v in old.items() if k not in used][-room:] if room else []
    return {**dict(kept), **used}
