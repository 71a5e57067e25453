"""How a record's slug is derived from its message."""

from __future__ import annotations

import re

__all__ = ["SLUG_MAX", "derive_slug", "slug_variants"]

SLUG_MAX = 60
_NON_ALNUM = re.compile(r"[^a-z0-9]+")


def derive_slug(message: str) -> str:
    """The message lowercased, runs of characters other than a-z0-9 as '-', at most 60 characters."""
    slug = _NON_ALNUM.sub("-", message.lower()).strip("-")
    return slug[:SLUG_MAX].rstrip("-")


def slug_variants(message: str, number: int) -> str:
    """The slug with a numeric suffix, for a second record whose message shares the first 60 characters."""
    suffix = f"-{number}"
    return derive_slug(message)[: SLUG_MAX - len(suffix)].rstrip("-") + suffix
