"""Where a person reads a record in full: the CLI joins the site's URL into what the matcher prints."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

from errdex.site.urls import record_path

__all__ = ["DEFAULT_SITE", "page_finder", "site_page"]


def site_page(record: dict[str, Any]) -> str:
    """Where the record's page is: under $ERRDEX_SITE_URL (where the team publishes the site) when set, else
    in a site built here with ``errdex site build`` (``build/site/``)."""
    base = os.environ.get("ERRDEX_SITE_URL", "").strip()
    return (base.rstrip("/") + "/" if base else "build/site/") + record_path(record)


#: Where ``errdex site build`` writes by default: ``match`` looks there when no site folder is given.
DEFAULT_SITE = "build/site"


def page_finder(site: str | None, site_url: str | None) -> Callable[[dict[str, Any]], str | None]:
    """Where each record's page is, or ``None`` when no such page is known: under ``site_url`` (or
    $ERRDEX_SITE_URL) when set, always; else in the built site folder ``site`` (default ``build/site``) when the
    record's page exists there."""
    base = (site_url if site_url is not None else os.environ.get("ERRDEX_SITE_URL", "")).strip()
    if base:
        return lambda record: base.rstrip("/") + "/" + record_path(record)
    folder = site if site is not None else DEFAULT_SITE
    known: dict[str, str | None] = {}

    def page(record: dict[str, Any]) -> str | None:
        path = record_path(record)
        if path not in known:
            known[path] = f"{folder.rstrip('/')}/{path}" if (Path(folder) / path).is_file() else None
        return known[path]

    return page
