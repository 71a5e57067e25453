"""Reading record documents from files, folders, JSONL bundles and stdin.

A *document* is one JSON value with its origin: a ``.json`` file holds one, a
bundle (``.jsonl``, ``.ndjson``, optionally gzipped) holds one per non-blank
line. Reading never stops at a broken input: problems travel with the
document so that validation can report every one of them.
"""

from __future__ import annotations

import gzip
import os
import stat
import sys
import zlib
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, BinaryIO

from errdex.records.jsontext import ParsedDocument, ParseProblem, parse_document

__all__ = ["Document", "bundled_records_dir", "is_bundle", "iter_documents", "record_files"]

_BUNDLE_SUFFIXES = (".jsonl", ".ndjson", ".jsonl.gz", ".ndjson.gz")
_RECORD_SUFFIXES = (".json", *_BUNDLE_SUFFIXES)
#: Refuse single record files larger than this: a record is a few kilobytes.
MAX_DOCUMENT_BYTES = 64 * 1024 * 1024


def bundled_records_dir() -> Path:
    """The dataset that ships inside the package."""
    return Path(__file__).resolve().parent.parent / "_bundled"


@dataclass
class Document:
    """One JSON document and where it came from."""

    path: str
    fs_path: Path | None
    parsed: ParsedDocument
    problems: list[ParseProblem] = field(default_factory=list)

    @property
    def value(self) -> Any:
        return self.parsed.value


def is_bundle(name: str) -> bool:
    return name.lower().endswith(_BUNDLE_SUFFIXES)


def _problem_document(path: str, fs_path: Path | None, message: str) -> Document:
    problem = ParseProblem("EDX007", "unreadable-input", message, 1, 1)
    return Document(path, fs_path, ParsedDocument(None, [problem]), [problem])


def _document(path: str, fs_path: Path | None, data: bytes | str, line_offset: int = 0) -> Document:
    parsed = parse_document(data, line_offset=line_offset)
    return Document(path, fs_path, parsed, list(parsed.problems))


def _bundle_lines(path: str, fs_path: Path | None, stream: BinaryIO) -> Iterator[Document]:
    for number, raw in enumerate(stream):
        if raw.strip():
            yield _document(path, fs_path, raw.rstrip(b"\r\n"), line_offset=number)


def _read_bundle(path: Path, display: str) -> Iterator[Document]:
    if not path.is_file():
        yield _problem_document(display, path, "not a regular file")
        return
    try:
        opener = gzip.open if path.name.lower().endswith(".gz") else open
        with opener(path, "rb") as stream:
            yield from _bundle_lines(display, path, stream)
    except (OSError, EOFError, zlib.error) as exc:
        yield _problem_document(display, path, f"cannot read bundle: {_os_reason(exc)}")


def _os_reason(exc: BaseException) -> str:
    if isinstance(exc, OSError) and exc.strerror:
        return exc.strerror.lower()
    return str(exc) or type(exc).__name__


def _read_file(path: Path, display: str) -> Iterator[Document]:
    if is_bundle(path.name):
        yield from _read_bundle(path, display)
        return
    try:
        # O_NONBLOCK: opening a FIFO must not wait for a writer; fstat then refuses it.
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    except OSError as exc:
        yield _problem_document(display, path, f"cannot read file: {_os_reason(exc)}")
        return
    with os.fdopen(fd, "rb") as handle:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            yield _problem_document(display, path, "not a regular file")
            return
        if info.st_size > MAX_DOCUMENT_BYTES:
            yield _problem_document(display, path, f"file is {info.st_size} bytes; a record file holds one record of a few kilobytes")
            return
        try:
            data = handle.read()
        except OSError as exc:
            yield _problem_document(display, path, f"cannot read file: {_os_reason(exc)}")
            return
    yield _document(display, path, data)


def _read_stdin(stream: BinaryIO) -> Iterator[Document]:
    data = stream.read()
    lines = [line for line in data.splitlines() if line.strip()]
    if len(lines) > 1 and parse_document(lines[0]).parsed:
        yield from _bundle_lines("<stdin>", None, iter(data.splitlines(keepends=True)))
    else:
        yield _document("<stdin>", None, data)


def _walk(folder: Path) -> list[str]:
    found: list[str] = []
    for root, dirs, files in os.walk(folder, followlinks=True):
        dirs[:] = sorted(d for d in dirs if not d.startswith("."))
        prefix = root if root.endswith(os.sep) else root + os.sep
        found.extend(prefix + name for name in files if name.lower().endswith(_RECORD_SUFFIXES) and not name.startswith("."))
    # The order of Path objects (part by part), without building them: a separator sorts before any character.
    found.sort(key=lambda name: name.replace(os.sep, "\0"))
    return found


def record_files(paths: Iterable[str | Path] | None = None) -> list[str] | None:
    """Every record file the paths name (folders walked), or None when one is stdin or missing."""
    found: list[str] = []
    for target in list(paths) if paths else [bundled_records_dir()]:
        if str(target) == "-":
            return None
        path = Path(target)
        if path.is_dir():
            found.extend(_walk(path))
        elif path.is_file():
            found.append(str(path))
        else:
            return None
    return found


def iter_documents(paths: Iterable[str | Path] | None = None, *, stdin: BinaryIO | None = None) -> Iterator[Document]:
    """Every document in the given files, folders, bundles or ``-`` (stdin); default: the bundled dataset."""
    targets = list(paths) if paths else [bundled_records_dir()]
    for target in targets:
        if str(target) == "-":
            yield from _read_stdin(stdin or sys.stdin.buffer)
            continue
        path = Path(target)
        display = str(target) if paths else "records"
        if path.is_dir():
            files = _walk(path)
            if not files:
                yield _problem_document(display, path, "folder holds no record files (*.json, *.jsonl)")
            cut = len(str(path).rstrip(os.sep)) + 1
            for file in files:
                yield from _read_file(Path(file), os.path.join(display, file[cut:]))
        elif path.exists():
            yield from _read_file(path, display)
        else:
            yield _problem_document(display, path, "no such file or folder")
