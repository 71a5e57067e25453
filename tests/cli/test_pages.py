"""Where ``errdex match`` tells a person to read a record: the CLI joins the site's URL in, not the matcher."""

from __future__ import annotations

import pytest

from errdex.cli._pages import site_page

RECORD = {"repo": "Owner/Repo", "slug": "a-slug"}


def test_the_page_is_in_a_local_build_without_a_published_site(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("ERRDEX_SITE_URL", raising=False)
    assert site_page(RECORD).startswith("build/site/records/") and site_page(RECORD).endswith(".html")


def test_the_page_is_under_the_published_site(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ERRDEX_SITE_URL", " https://errors.example.org/docs/ ")
    local = site_page(RECORD).removeprefix("https://errors.example.org/docs/")
    assert site_page(RECORD).startswith("https://errors.example.org/docs/records/") and "//records" not in local
