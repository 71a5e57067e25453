"""The canonical form of record files, and ``fmt`` that rewrites files into it.

A record file is the envelope as JSON with two-space indentation, keys in the
order of the format (envelope: record, datasetVersion; record: the order of
the schema's fields, unknown keys after them), non-ASCII characters as they
are, and one final newline. A bundle holds one envelope per line in the same
key order, without spaces.
"""

from __future__ import annotations

import gzip
import io
import json
import zlib
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from errdex._files import write_atomic
from errdex._locks import records_lock
from errdex.errors import UsageError, from_oserror
from errdex.records.envelope import document_shape, unwrap
from errdex.records.models import RECORD_MODELS
from errdex.records.problems import ProblemKind
from errdex.records.sources import (
    Document,
    bundled_records_dir,
    is_bundle,
    iter_documents,
)

__all__ = ["FmtResult", "FmtText", "canonical_text", "canonical_value", "fmt", "fmt_text", "write_atomic"]

_ENVELOPE_ORDER = ("record", "datasetVersion")


def _record_order() -> list[str]:
    order: list[str] = []
    for version in sorted(RECORD_MODELS):
        order.extend(name for name in RECORD_MODELS[version].model_fields if name not in order)
    return order


_RECORD_ORDER = _record_order()


def _ordered(obj: dict[str, Any], order: list[str] | tuple[str, ...]) -> dict[str, Any]:
    result = {key: obj[key] for key in order if key in obj}
    result.update((key, value) for key, value in obj.items() if key not in result)
    return result


def canonical_value(value: Any) -> Any:
    """The value with envelope and record keys in canonical order."""
    if not isinstance(value, dict):
        return value
    record, prefix = unwrap(value)
    if prefix:
        value = _ordered(value, _ENVELOPE_ORDER)
        if isinstance(record, dict):
            value["record"] = _ordered(record, _RECORD_ORDER)
        return value
    return _ordered(value, _RECORD_ORDER)


def _dumps(value: Any, **options: Any) -> str:
    text = json.dumps(value, ensure_ascii=False, **options)
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:  # lone surrogates from \ud800-style escapes stay escaped
        text = json.dumps(value, ensure_ascii=True, **options)
    return text


def canonical_text(value: Any, *, bundle_line: bool = False) -> str:
    """The canonical text of one document (a file's whole text, or one bundle line without newline)."""
    value = canonical_value(value)
    if bundle_line:
        return _dumps(value, separators=(",", ":"))
    return _dumps(value, indent=2) + "\n"


@dataclass
class FmtResult:
    """What ``fmt`` did or would do."""

    changed: list[str] = field(default_factory=list)
    unchanged: list[str] = field(default_factory=list)
    failed: list[tuple[str, int, int, str]] = field(default_factory=list)


def _format_file(path: Path, docs: list[Document]) -> bytes:
    """The canonical bytes of a file whose documents all parsed cleanly."""
    if is_bundle(path.name):
        return "".join(canonical_text(doc.value, bundle_line=True) + "\n" for doc in docs).encode("utf-8")
    return canonical_text(docs[0].value).encode("utf-8")


def _kind_name(kind: ProblemKind) -> str:
    return kind.value


def _refusals(docs: list[Document], label: Callable[[ProblemKind], str]) -> list[tuple[int, int, str]]:
    """Why these documents cannot be formatted: every parse problem (what ``validate`` reports as EDX001-EDX009:
    formatting would resolve a duplicate key, turn 1e999 into Infinity or NaN into a number, and so change data),
    each named by ``label`` (the CLI passes the check registry's code and name)."""
    refused = [(p.line, p.column, f"{label(p.kind)}: {p.message}") for doc in docs for p in doc.problems]
    if not refused:  # a JSON file that holds no record is not errdex's to rewrite (validate: not-a-record)
        refused = [(doc.parsed.line_offset + 1, 1, "not a record: its top level is neither an envelope "
                    '{"record": {...}, ...} nor a record; left as it is') for doc in docs
                   if document_shape(doc.value) is None]
    return refused


@dataclass
class FmtText:
    """``fmt`` of a text (stdin): the canonical form, or why there is none."""

    text: str | None
    changed: bool
    failed: list[tuple[int, int, str]] = field(default_factory=list)


def fmt_text(data: bytes, *, label: Callable[[ProblemKind], str] = _kind_name) -> FmtText:
    """The canonical form of one document or of JSONL bundle lines given as bytes (what ``fmt -`` reads)."""
    docs = list(iter_documents(["-"], stdin=io.BytesIO(data)))
    failed = _refusals(docs, label)
    if failed:
        return FmtText(None, False, failed)
    if len(docs) > 1:
        text = "".join(canonical_text(doc.value, bundle_line=True) + "\n" for doc in docs)
    else:
        text = canonical_text(docs[0].value)
    return FmtText(text, text.encode("utf-8", "surrogatepass") != data)


def fmt(paths: list[str | Path] | None = None, *, check: bool = False,
        label: Callable[[ProblemKind], str] = _kind_name) -> FmtResult:
    """Rewrite record files into canonical form (``check``: only report which would change).

    Files with a parse problem (invalid JSON or UTF-8, a duplicate key, a
    non-finite or out-of-range number, a lone surrogate) are left untouched
    and reported in ``failed``, as are files found through a symbolic link
    that leaves the folder given. Gzipped bundles are compared and rewritten
    uncompressed text to text (written back gzipped, zero timestamp); for
    stdin use :func:`fmt_text`. While it rewrites, the folders are locked (a
    release or migration there waits, and so does a second fmt).
    """
    if paths and any(str(path) == "-" for path in paths):
        raise UsageError("fmt rewrites files; '-' (stdin) is formatted to stdout on its own: errdex fmt -")
    if check:
        return _fmt(paths, check=True, label=label)
    with records_lock(list(paths) if paths else [bundled_records_dir()], what="fmt"):
        return _fmt(paths, check=False, label=label)


def _fmt(paths: list[str | Path] | None, *, check: bool, label: Callable[[ProblemKind], str]) -> FmtResult:
    result = FmtResult()
    by_file: dict[Path, list[Document]] = {}
    order: list[tuple[Path, str]] = []
    seen: set[tuple[Path, int]] = set()  # a file named twice (a folder and a file in it) is formatted once
    for doc in iter_documents(paths):
        if doc.fs_path is None:
            continue
        place = (doc.fs_path.resolve(), doc.parsed.line_offset)
        if place in seen:
            continue
        seen.add(place)
        if doc.fs_path not in by_file:
            by_file[doc.fs_path] = []
            order.append((doc.fs_path, doc.path))
        by_file[doc.fs_path].append(doc)
    for path, display in order:
        docs = by_file[path]
        broken = _refusals(docs, label)
        if broken:
            result.failed.extend((display, line, column, message) for line, column, message in broken)
            continue
        gzipped = path.name.lower().endswith(".gz")
        wanted = _format_file(path, docs)
        try:
            current = path.read_bytes()
            if gzipped:  # its documents were read from it already: the text is known to fit
                current = gzip.decompress(current)
        except (OSError, EOFError, gzip.BadGzipFile, zlib.error) as exc:
            reason = from_oserror(exc, display) if isinstance(exc, OSError) and not isinstance(exc, gzip.BadGzipFile) \
                else f"{display}: not a whole gzip file"
            result.failed.append((display, 1, 1, str(reason)))
            continue
        if current == wanted:
            result.unchanged.append(display)
            continue
        if any(doc.outside for doc in docs):
            result.failed.append((display, 1, 1, "reached through a symbolic link that leaves the folder given; "
                                                 "not rewritten (name the file itself to format it)"))
            continue
        result.changed.append(display)
        if not check:
            try:
                # resolved: a link inside the tree keeps pointing at the rewritten file (as migrate does)
                write_atomic(path.resolve(), gzip.compress(wanted, compresslevel=9, mtime=0) if gzipped else wanted)
            except OSError as exc:
                raise from_oserror(exc, display) from exc
    return result
