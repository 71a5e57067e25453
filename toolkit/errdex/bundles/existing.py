"""The records folder an import writes into: its records by id, by repository and slug, and by file."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from errdex.errors import DataError, ErrdexError, InputError, UsageError
from errdex.records.envelope import unwrap
from errdex.records.problems import ProblemKind
from errdex.records.sources import Document, is_bundle, iter_documents, record_files

__all__ = ["Dataset", "Existing", "read_dataset", "unreadable"]


@dataclass(frozen=True)
class Existing:
    """A record already in the records folder."""

    path: Path
    record: dict[str, Any]

    @property
    def in_file(self) -> bool:
        """True for a record file of its own (a record inside a bundle cannot be replaced by import)."""
        return not is_bundle(self.path.name)


@dataclass
class Dataset:
    """The records of a records folder, by id, by (repo, slug) and by file."""

    by_id: dict[str, Existing] = field(default_factory=dict)
    by_slug: dict[tuple[str, str], str] = field(default_factory=dict)
    by_path: dict[Path, str] = field(default_factory=dict)


def _located(doc: Document, line: int, column: int, message: str) -> str:
    return f"{doc.path}:{line}:{column}: {message}"


def unreadable(doc: Document) -> ErrdexError | None:
    """The error for a document that cannot be read or parsed at all, else None."""
    for problem in doc.problems:
        if problem.kind is ProblemKind.UNREADABLE_INPUT:
            return InputError(_located(doc, problem.line, problem.column, problem.message))
    if not doc.parsed.parsed:
        problem = doc.problems[0]
        return DataError(_located(doc, problem.line, problem.column, problem.message))
    return None


def read_dataset(records_dir: Path) -> Dataset:
    """Every record in the records folder (a missing folder is an empty dataset)."""
    dataset = Dataset()
    if not records_dir.exists():
        return dataset
    if not records_dir.is_dir():
        raise UsageError(f"records folder {records_dir} is not a folder")
    files = record_files([records_dir]) or []
    for doc in iter_documents(files) if files else ():
        error = unreadable(doc)
        if error is not None:
            raise type(error)(f"{error} (the records folder must be readable to import into it)")
        value = doc.value
        record, _ = unwrap(value)
        if not isinstance(record, dict) or not isinstance(record.get("id"), str) or doc.fs_path is None:
            continue
        rid = record["id"]
        dataset.by_id.setdefault(rid, Existing(doc.fs_path, record))
        repo, slug = record.get("repo"), record.get("slug")
        if isinstance(repo, str) and isinstance(slug, str):
            dataset.by_slug.setdefault((repo.lower(), slug.lower()), rid)  # without case, as GitHub and EDX115
        dataset.by_path.setdefault(doc.fs_path, rid)
    return dataset
