"""Where each page of the site lives, and links between pages that work from any sub-path.

Every internal link is relative: a page at depth N reaches the site root
with ``../`` N times, so the folder can be served under any path prefix or
opened as it is.
"""

from __future__ import annotations

import re
from typing import Any

from errdex.records.paths import page_path, path_segment

__all__ = ["page_root", "record_json_path", "record_path", "safe_url", "segment"]


def segment(text: str) -> str:
    """A path segment of URL-safe characters that no other text maps to (an owner, a repository or a slug)."""
    return path_segment(text)


def record_path(record: dict[str, Any]) -> str:
    """A record's page, relative to the site root: ``records/OWNER/REPO/SLUG.html``.

    A file, not a folder of its own: at 10,000 records, creating a folder per
    page cost more than rendering the pages. One page per repository (without
    case, as GitHub compares) and slug: see :mod:`errdex.records.paths`."""
    return page_path(str(record["repo"]), str(record["slug"]))


def record_json_path(record: dict[str, Any]) -> str:
    """The record's JSON in the site's API, relative to the site root (one file per id)."""
    return f"api/records/{path_segment(str(record['id']))}.json"


def page_root(path: str) -> str:
    """From the page at ``path`` (relative to the root; ``""`` or ``x/`` folders, or a file) back to the root."""
    depth = path.count("/")
    return "../" * depth if depth else "./"


def safe_url(value: object) -> str | None:
    """The URL when it may become a link (http or https only), else None: ``javascript:`` and the like stay text."""
    if not isinstance(value, str):
        return None
    text = value.strip()
    return text if re.match(r"(?i)^https?://[^\s<>\"']+$", text) else None
