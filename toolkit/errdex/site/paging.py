"""Where the listing pages live and how they are cut into pages (no import of the record facts: both use it)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from errdex.records.text import anchor
from errdex.records.vocabulary import is_draft
from errdex.site.urls import segment

__all__ = [
    "PAGE_SIZE",
    "class_base",
    "file_anchor",
    "file_pages",
    "page_count",
    "page_file",
    "repo_base",
    "repo_order",
    "severity_base",
    "tag_base",
]

#: Records per listing page: at 10,000 records a page stays near 100 kB of HTML, whatever the dataset's size.
PAGE_SIZE = 200


def page_file(base: str, number: int) -> str:
    """Page ``number`` (from 1) of the listing in folder ``base`` (``browse/`` or ``browse/tags/x/``)."""
    return f"{base}index.html" if number == 1 else f"{base}page-{number}.html"


def page_count(entries: int) -> int:
    return max(1, -(-entries // PAGE_SIZE))


def repo_base(repo: str) -> str:
    return f"browse/repos/{segment(repo)}/"


def tag_base(tag: str) -> str:
    return f"browse/tags/{segment(tag)}/"


def class_base(name: str) -> str:
    return f"browse/classes/{segment(name)}/"


def severity_base(severity: str) -> str:
    return f"browse/severities/{segment(severity)}/"


def file_anchor(repo: str, path: str) -> str:
    return f"file-{anchor(repo + '-' + path)}"


def repo_order(records: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
    """A repository's records as its page lists them: by file, documented before drafts, then by slug."""
    return sorted(records, key=lambda r: (r.get("filePath", ""), is_draft(r), r["slug"], r["id"]))


def file_pages(records: Iterable[dict[str, Any]]) -> dict[tuple[str, str], str]:
    """(repo, file) -> the page and fragment (from the site root) where the repository's page lists that file."""
    by_repo: dict[str, list[dict[str, Any]]] = {}
    for record in records:
        by_repo.setdefault(record["repo"], []).append(record)
    out: dict[tuple[str, str], str] = {}
    for repo, listed in by_repo.items():
        for position, record in enumerate(repo_order(listed)):
            key = (repo, record.get("filePath", ""))
            if key not in out:
                page = page_file(repo_base(repo), position // PAGE_SIZE + 1)
                out[key] = f"{page}#{file_anchor(*key)}"
    return out
