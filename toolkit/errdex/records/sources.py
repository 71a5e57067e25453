"""Reading record documents from files, folders, JSONL bundles and stdin.

A *document* is one JSON value with its origin: a ``.json`` file holds one, a
bundle (``.jsonl``, ``.ndjson``, optionally gzipped) holds one per non-blank
line. Reading never stops at a broken input: problems travel with the
document so that validation can report every one of them.
"""

from __future__ import annotations

import io
import os
import stat
import sys
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, BinaryIO, Protocol

from errdex._journal import JOURNAL
from errdex.errors import os_reason

if TYPE_CHECKING:  # the parser is imported where a document is read: a cached start only walks (start-up time)
    from errdex.records.jsontext import ParsedDocument
    from errdex.records.problems import ParseProblem

__all__ = [
    "Document", "bundled_records_dir", "files_outside", "is_bundle", "iter_documents", "record_files", "walked_folders",
]

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
    #: True for a file found in a folder through a symbolic link that leaves that folder: it is read like the
    #: others but never rewritten (fmt, migrate), so a command never writes out of the tree it was given.
    outside: bool = False

    @property
    def value(self) -> Any:
        return self.parsed.value


def is_bundle(name: str) -> bool:
    return name.lower().endswith(_BUNDLE_SUFFIXES)


def _problem_document(path: str, fs_path: Path | None, message: str) -> Document:
    from errdex.records.jsontext import ParsedDocument  # only when a document is read (start-up time)
    from errdex.records.problems import ParseProblem, ProblemKind

    problem = ParseProblem(ProblemKind.UNREADABLE_INPUT, message, 1, 1)
    return Document(path, fs_path, ParsedDocument(None, [problem]), [problem])


if TYPE_CHECKING:  # in annotations only, so ParsedDocument is not needed at import (start-up time)
    #: What parses a document's bytes (:func:`~errdex.records.jsontext.parse_document`, or a caller's that gives
    #: the same document sooner: validate's for files it knows parse cleanly).
    Parser = Callable[[bytes], ParsedDocument]


def _document(path: str, fs_path: Path | None, data: bytes | str, line_offset: int = 0,
              parse: Parser | None = None) -> Document:
    from errdex.records.jsontext import parse_document  # only when a document is read (start-up time)

    parsed = parse(data) if parse is not None and isinstance(data, bytes) else parse_document(
        data, line_offset=line_offset)
    return Document(path, fs_path, parsed, list(parsed.problems))


class _LineReader(Protocol):
    def readline(self, size: int = -1, /) -> bytes: ...


def _bundle_lines(path: str, fs_path: Path | None, stream: _LineReader) -> Iterator[Document]:
    """One document per non-blank line; a line longer than a record file may be is refused, and read past in
    pieces (a gzip bomb or a sparse file of one endless line must not be held in memory)."""
    from errdex.records.jsontext import ParsedDocument  # only when a bundle is read (start-up time)
    from errdex.records.problems import ParseProblem, ProblemKind

    number = found = 0
    while True:
        raw = stream.readline(MAX_DOCUMENT_BYTES + 1)
        if not raw:
            if not found:  # as for an empty record file: a bundle of blank lines is a mistake, not a dataset
                problem = ParseProblem(ProblemKind.EMPTY_FILE, "the bundle holds no record (only blank lines, or "
                                       "nothing); write one record envelope as JSON per line", max(number, 1), 1)
                yield Document(path, fs_path, ParsedDocument(None, [problem], "", 0), [problem])
            return
        found += 1 if raw.strip() else 0
        if len(raw) > MAX_DOCUMENT_BYTES and not raw.endswith(b"\n"):
            size = len(raw)
            while raw and not raw.endswith(b"\n"):
                raw = stream.readline(1 << 20)
                size += len(raw)
            problem = ParseProblem(ProblemKind.UNREADABLE_INPUT,
                                   f"line is longer than {MAX_DOCUMENT_BYTES} bytes ({size} bytes); a bundle line "
                                   "holds one record of a few kilobytes", number + 1, 1)
            yield Document(path, fs_path, ParsedDocument(None, [problem], "", number), [problem])
        elif raw.strip():
            yield _document(path, fs_path, raw.rstrip(b"\r\n"), line_offset=number)
        number += 1


def _read_bundle(path: Path, display: str) -> Iterator[Document]:
    if not path.is_file():
        yield _problem_document(display, path, "not a regular file")
        return
    import gzip  # only for a bundle (start-up time)
    import zlib

    try:
        opener = gzip.open if path.name.lower().endswith(".gz") else open
        with opener(path, "rb") as stream:
            yield from _bundle_lines(display, path, stream)
    except (OSError, EOFError, zlib.error) as exc:
        yield _problem_document(display, path, f"cannot read bundle: {os_reason(exc)}")




#: What other files people hand errdex as records look like (their first bytes), and what they are.
_FOREIGN = ((0, b"PAR1", "a Parquet file"), (8, b"DUCK", "a DuckDB database"),
            (0, b"SQLite format 3\0", "an SQLite database"),
            (0, b"\x1f\x8b", "gzip-compressed data (name a gzipped bundle .jsonl.gz)"),
            (0, b"PK\x03\x04", "a ZIP archive"))


def foreign_format(head: bytes) -> str | None:
    """What a file that starts with ``head`` is when it is a known binary format and no record text, else None."""
    for offset, magic, what in _FOREIGN:
        if head[offset:offset + len(magic)] == magic:
            return what
    return None


def _foreign_document(display: str, path: Path | None, what: str) -> Document:
    return _problem_document(display, path, f"this is {what}, not records: errdex reads record files (.json) and "
                                            "JSONL bundles (.jsonl, .ndjson, .jsonl.gz); "
                                            "'errdex export --to jsonl' writes a bundle")


def _read_file(path: Path, display: str, parse: Parser | None = None) -> Iterator[Document]:
    if is_bundle(path.name):
        yield from _read_bundle(path, display)
        return
    try:
        # O_NONBLOCK: opening a FIFO must not wait for a writer; fstat then refuses it.
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    except OSError as exc:
        yield _problem_document(display, path, f"cannot read file: {os_reason(exc)}")
        return
    with os.fdopen(fd, "rb") as handle:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            yield _problem_document(display, path, "not a regular file")
            return
        data, failure = _contents(handle, info.st_size)
        try:  # its first bytes: those read already (a record file), else read for the test alone
            what = foreign_format(data[:32] if data is not None else os.pread(fd, 32, 0))
        except OSError:
            what = None  # reading it reports the problem
        if what is not None:
            yield _foreign_document(display, path, what)
            return
        if info.st_size > MAX_DOCUMENT_BYTES:
            yield _problem_document(display, path, f"file is {info.st_size} bytes; "
                                                   "a record file holds one record of a few kilobytes")
            return
        if data is None:  # within the size, so the read failed
            yield _problem_document(display, path, f"cannot read file: {os_reason(failure or OSError())}")
            return
    yield _document(display, path, data, parse=parse)


def _contents(handle: BinaryIO, size: int) -> tuple[bytes | None, OSError | None]:
    """The whole file when it may be a record file (at most :data:`MAX_DOCUMENT_BYTES` by its stat), with
    no error; else (None, why it could not be read, or None when it was too large to try)."""
    if size > MAX_DOCUMENT_BYTES:
        return None, None
    try:
        return handle.read(), None
    except OSError as exc:
        return None, exc


def _read_stdin(stream: BinaryIO) -> Iterator[Document]:
    from errdex.records.jsontext import parse_document  # only when records come on stdin (start-up time)

    data = stream.read()
    what = foreign_format(data[:32])
    if what is not None:
        yield _foreign_document("<stdin>", None, what)
        return
    lines = [line for line in data.splitlines() if line.strip()]
    if len(lines) > 1 and parse_document(lines[0]).parsed:
        yield from _bundle_lines("<stdin>", None, io.BytesIO(data))
    else:
        yield _document("<stdin>", None, data)


@dataclass
class _Walk:
    """What walking a folder found: record files in path order, the files reached through a symbolic link that
    leaves the folder, and folder links that were not followed (a loop, or a folder read already)."""

    files: list[str] = field(default_factory=list)
    outside: set[str] = field(default_factory=set)
    skipped: list[tuple[str, str]] = field(default_factory=list)
    #: Every folder read, in the order read (what the loader's cache watches for changes).
    folders: list[str] = field(default_factory=list)
    #: The folders that hold the journal of a change a killed run left (finished before the walk is used).
    journals: list[str] = field(default_factory=list)


def _inside(path: str, root: str) -> bool:
    return path == root or path.startswith(root.rstrip(os.sep) + os.sep)


class _Walker:
    """The state of one walk: the folders known by (st_dev, st_ino), the folders still to read, and the links to
    folders, followed once the real folders are read."""

    def __init__(self, folder: Path, info: os.stat_result) -> None:
        self.walk = _Walk()
        self.real_root = os.path.realpath(folder)
        self.seen = {(info.st_dev, info.st_ino)}
        self.stack: list[tuple[str, bool]] = [(str(folder), False)]
        self.links: list[tuple[str, bool, str]] = []  # (link, outside, the folder holding it)

    def run(self) -> _Walk:
        while self.stack or self.links:
            if self.stack:
                self._read_folder(*self.stack.pop())
            else:
                self.links.sort()
                self._follow(*self.links.pop(0))
        # The order of Path objects (part by part), without building them: a separator sorts before any character.
        self.walk.files.sort(key=lambda name: name.replace(os.sep, "\0"))
        return self.walk

    def _follow(self, link: str, outside: bool, holder: str) -> None:
        """Read the folder a link names, unless it is one read already (or a loop)."""
        try:
            target = os.stat(link)
        except OSError:
            return
        real = os.path.realpath(link)
        if (target.st_dev, target.st_ino) in self.seen:
            kind = "a loop" if _inside(os.path.realpath(holder), real) else "a folder read already"
            self.walk.skipped.append((link, f"symbolic link to {kind} ({real}); not followed"))
            return
        self.seen.add((target.st_dev, target.st_ino))
        self.stack.append((link, outside or not _inside(real, self.real_root)))

    def _read_folder(self, current: str, outside: bool) -> None:
        """Note the record files of one folder, and queue its subfolders (real ones first) and folder links."""
        self.walk.folders.append(current)
        try:
            with os.scandir(current) as entries:
                listed = sorted(entries, key=lambda entry: entry.name)
        except OSError:
            return  # vanished or unreadable while walking: the files found elsewhere still count
        prefix = current if current.endswith(os.sep) else current + os.sep
        folders: list[tuple[str, bool]] = []
        for entry in listed:
            if entry.name.startswith("."):
                if entry.name == JOURNAL:
                    self.walk.journals.append(current)
                continue
            name = prefix + entry.name
            try:
                is_dir, is_link = entry.is_dir(), entry.is_symlink()
            except OSError:
                is_dir = is_link = False
            if is_dir and is_link:
                self.links.append((name, outside, current))
            elif is_dir:
                try:
                    target = entry.stat()
                except OSError:
                    continue
                if (target.st_dev, target.st_ino) not in self.seen:  # a bind mount can show one folder twice
                    self.seen.add((target.st_dev, target.st_ino))
                    folders.append((name, outside))
            elif entry.name.lower().endswith(_RECORD_SUFFIXES):
                self.walk.files.append(name)
                if outside or (is_link and not _inside(os.path.realpath(name), self.real_root)):
                    self.walk.outside.add(name)
        self.stack.extend(reversed(folders))


def _walk(folder: Path) -> _Walk:
    """Every record file under ``folder``, following links to folders, each real folder once.

    A real folder is known by its (st_dev, st_ino). Real subfolders are read
    first, then the links to folders, so a folder is read under its own name
    when it is in the tree; a link to a folder above it (a loop) or to one
    read already is skipped and noted, so the walk ends and no file is read
    twice. Hidden files and folders are skipped.
    """
    try:
        info = os.stat(folder)
    except OSError:
        return _Walk()
    walk = _Walker(folder, info).run()
    pending = [*_pending_above(folder), *walk.journals]
    if pending and _finish_pending(pending):
        walk = _Walker(folder, info).run()  # what the finished change left
    return walk


def _pending_above(path: Path) -> list[str]:
    """The folders above ``path`` that hold a journal of this user's (a change of a records folder that holds
    ``path``); another user's journal above (in a shared /tmp) is no change of these records, and ignored."""
    found = []
    for folder in Path(os.path.abspath(path)).parents:
        try:
            owner = os.lstat(os.path.join(folder, JOURNAL)).st_uid
        except OSError:
            continue
        if owner == os.getuid():
            found.append(str(folder))
    return found


def _finish_pending(folders: Iterable[str | Path]) -> bool:
    """Finish a change a killed run left in any of these folders (the one place every read of records passes:
    no command reads a change half made); whether one was."""
    from errdex._locks import finish_pending  # only when a journal is there (start-up time)

    return finish_pending(folders)


def _settle_beside(path: Path, settled: set[str]) -> None:
    """For a file named on its own: finish a change pending in its folder or one above (once per folder)."""
    folder = os.path.dirname(os.path.abspath(path))
    if folder not in settled:
        settled.add(folder)
        pending = _pending_above(Path(folder, path.name))
        if pending:
            _finish_pending(pending)


def files_outside(folder: str | Path) -> list[str]:
    """The record files under ``folder`` reached through a symbolic link that leaves it (never to be rewritten)."""
    return sorted(_walk(Path(folder)).outside)


def record_files(paths: Iterable[str | Path] | None = None, *,
                 folders: list[str] | None = None) -> list[str] | None:
    """Every record file the paths name (folders walked), or None when one is stdin or missing; ``folders``,
    when given, receives every folder walked."""
    found: list[str] = []
    settled: set[str] = set()
    for target in list(paths) if paths else [bundled_records_dir()]:
        if str(target) == "-":
            return None
        path = Path(target)
        if path.is_dir():
            walk = _walk(path)
            found.extend(walk.files)
            if folders is not None:
                folders.extend(walk.folders)
        elif path.is_file():
            _settle_beside(path, settled)
            found.append(str(path))
        else:
            return None
    return found


def _read_already(path: str | Path, read: set[tuple[int, int]]) -> bool:
    """Whether this file was read already in this run (the same file named twice, through a link to it or to
    its folder): one file is one set of records, never a duplicate of itself. Notes the file as read."""
    try:
        info = os.stat(path)
    except OSError:
        return False  # reading it reports the problem
    key = (info.st_dev, info.st_ino)
    if key in read:
        return True
    read.add(key)
    return False


def walked_folders(paths: Iterable[str | Path] | None = None) -> dict[str, _Walk]:
    """The walk of each folder the paths name (default: the bundled dataset), by ``str`` of the path: for
    :func:`iter_documents` in the processes of a split load, walked once before they fork."""
    return {str(target): _walk(Path(target)) for target in (list(paths) if paths else [bundled_records_dir()])
            if str(target) != "-" and Path(target).is_dir()}


def iter_documents(paths: Iterable[str | Path] | None = None, *, stdin: BinaryIO | None = None,
                   parse: Parser | None = None, files: range | None = None,
                   walks: dict[str, _Walk] | None = None) -> Iterator[Document]:
    """Every document in the given files, folders, bundles or ``-`` (stdin); default: the bundled dataset.
    ``parse`` reads each record file's bytes (bundles and stdin are always read with ``parse_document``).

    ``files``: only the documents of the record files at these positions (counting each file read once, in
    order), for a load split over processes; the documents of no file (a problem) come with position 0.
    ``walks``: :func:`walked_folders` of these paths, made just before (each folder is walked here otherwise).
    """
    targets = list(paths) if paths else [bundled_records_dir()]
    settled: set[str] = set()
    for target in targets:  # a file named on its own: its folder may hold a change half made (folders: _walk)
        if str(target) != "-" and Path(target).is_file():
            _settle_beside(Path(target), settled)
    read: set[tuple[int, int]] = set()
    stdin_read = False
    position = -1  # of the last record file met

    def past() -> bool:
        """Whether no later record file is in the part asked for (what is left to read there is problems)."""
        return files is not None and position + 1 >= files.stop

    def mine(file: bool = False) -> bool:
        """Whether the next record file (``file``) or problem document is in the part asked for."""
        nonlocal position
        position += file
        return files is None or (position if file else 0) in files
    for target in targets:
        if str(target) == "-":
            if not stdin_read:  # a second '-' would find stdin at its end: an empty document that is not there
                stdin_read = True
                yield from _read_stdin(stdin or sys.stdin.buffer)
            continue
        path = Path(target)
        display = str(target) if paths else "records"
        if path.is_dir():
            walk = walks[str(target)] if walks is not None and str(target) in walks else _walk(path)
            if not walk.files and mine():
                yield _problem_document(display, path, "folder holds no record files (*.json, *.jsonl)")
            cut = len(str(path).rstrip(os.sep)) + 1
            for link, message in walk.skipped if mine() else ():
                yield _problem_document(os.path.join(display, link[cut:]), Path(link), message)
            for file in walk.files:
                if past():
                    break  # no stat of the files that are another process' part
                if _read_already(file, read) or not mine(True):
                    continue
                for doc in _read_file(Path(file), os.path.join(display, file[cut:]), parse):
                    doc.outside = file in walk.outside
                    yield doc
        elif path.exists():
            if not past() and not _read_already(path, read) and mine(True):
                yield from _read_file(path, display, parse)
        elif mine():
            yield _problem_document(display, path, "no such file or folder")
