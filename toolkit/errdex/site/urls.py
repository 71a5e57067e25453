"""Where each page of the site lives, and links between pages that work from any sub-path.

Every internal link is relative: a page at depth N reaches the site root
with ``../`` N times, so the folder can be served under any path prefix or
opened as it is.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Any
from urllib.parse import quote

__all__ = ["page_root", "record_json_path", "record_path", "safe_url", "segment"]

_UNSAFE = re.compile(r"[^A-Za-z0-9._~-]+")


def segment(text: str) -> str:
    """A path segment made of URL-safe characters only (an owner, a repository name or a slug)."""
    cleaned = _UNSAFE.sub("-", text).strip("-.")
    return cleaned or "-"


def record_path(record: dict[str, Any]) -> str:
    """A record's page, relative to the site root: ``records/OWNER/REPO/SLUG.html``.

    A file, not a folder of its own: at 10,000 records, creating a folder per
    page cost more than rendering the pages."""
    return _record_path(str(record["repo"]), str(record["slug"]))


@lru_cache(maxsize=1 << 17)
def _record_path(repo: str, slug: str) -> str:
    owner, _, name = repo.partition("/")
    return f"records/{segment(owner)}/{segment(name)}/{segment(slug)}.html"


def record_json_path(record: dict[str, Any]) -> str:
    """The record's JSON in the site's API, relative to the site root."""
    return f"api/records/{quote(segment(str(record['id'])))}.json"


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
