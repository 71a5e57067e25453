"""Where a person reads a record in full: the CLI joins the site's URL into what the matcher prints."""

from __future__ import annotations

import os
from typing import Any

from errdex.site.urls import record_path

__all__ = ["site_page"]


def site_page(record: dict[str, Any]) -> str:
    """Where the record's page is: under $ERRDEX_SITE_URL (where the team publishes the site) when set, else
    in a site built here with ``errdex site build`` (``build/site/``)."""
    base = os.environ.get("ERRDEX_SITE_URL", "").strip()
    return (base.rstrip("/") + "/" if base else "build/site/") + record_path(record)
