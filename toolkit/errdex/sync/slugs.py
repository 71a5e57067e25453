"""A reworded record's slug, derived again from its new message, and the file it then belongs in.

The slug follows from ``errorMessage`` by the dataset's rule (:func:`errdex.records.slug.derive_slug`, EDX111),
with harvest's numeric suffix (``-2``, ``-3``) when the repository has that slug already (:func:`free_slug`).
A slug that still follows from the new message (the same first 60 characters) is kept. The old slug stays
taken for the rest of the sync: no other record takes a name a record leaves in the same change. A record file
named after its slug (``OWNER/NAME/SLUG.json``) moves to the new name beside it; a file named otherwise, or
reached through a symbolic link, keeps its name. The id never changes.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from errdex.harvest.merge import Existing, free_slug
from errdex.records.paths import repo_key
from errdex.records.slug import derive_slug, slug_variants

__all__ = ["follows", "new_path", "resolved_slug", "taken_slugs"]

_NUMBERED = re.compile(r"-(?P<number>[0-9]+)$")


def taken_slugs(existing: Iterable[Existing]) -> set[tuple[str, str]]:
    """(repository, slug) of every record read, as harvest's merge counts them."""
    return {(repo_key(str(item.record.get("repo"))), str(item.record.get("slug")).lower()) for item in existing}


def follows(slug: str, message: str) -> bool:
    """Whether ``slug`` is the one ``message`` derives, or one of its numbered variants (EDX111's rule)."""
    if slug == derive_slug(message):
        return True
    numbered = _NUMBERED.search(slug)
    return bool(numbered and int(numbered["number"]) >= 2
                and slug == slug_variants(message, int(numbered["number"])))


def new_path(old: Existing, old_slug: str, slug: str) -> Path:
    """Where the record's file goes with its new slug (its own path when it does not move)."""
    if old.in_bundle or old.path.is_symlink() or old.path.name != f"{old_slug}.json":
        return old.path
    return old.path.with_name(f"{slug}.json")


def resolved_slug(record: dict[str, Any], old: Existing, taken: set[tuple[str, str]]) -> str:
    """The slug of the reworded ``record`` (``old`` is what the dataset holds): kept while it follows from the
    new message, else derived again, free in the repository and on disk beside the old file; taken."""
    old_slug, message, repo = str(old.record.get("slug")), str(record["errorMessage"]), str(record["repo"])
    if follows(old_slug, message):
        return old_slug
    while True:
        slug = free_slug(message, repo, taken)
        target = new_path(old, old_slug, slug)
        if target == old.path or not target.exists():  # a file no record read holds (beside a single file)
            return slug
