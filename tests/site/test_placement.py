"""The site's in-browser matcher breaks a tie for first place as ``errdex match`` and the index's
``errdex_match`` do: all three give the same top-1 on lines that name where they were written."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import duckdb
import pytest
from playwright.sync_api import Browser, Page, expect

import errdex
from errdex import build_site
from errdex.index import build_index
from errdex.site.serve import SiteServer, running_site
from tests.match.twins import LINES, TWINS, write_twins


@pytest.fixture(scope="module")
def twins(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_twins(tmp_path_factory.mktemp("twins") / "records")


@pytest.fixture(scope="module")
def twin_site(twins: Path, site_cache: Path) -> Iterator[SiteServer]:
    out = twins.parent / "site"
    build_site(out, records=[twins], search=False)
    with running_site(out) as server:
        yield server


def _shown_slug(page: Page, line: str) -> str:
    page.fill("#matcher-input", line)
    page.click("#matcher button")
    link = page.locator(".match-result").first.locator("h3 a")
    expect(link).to_be_visible()
    return str(link.get_attribute("href")).rsplit("/", 1)[-1].removesuffix(".html")


def test_the_three_matchers_agree_on_the_placed_twin(browser: Browser, twin_site: SiteServer, twins: Path,
                                                      tmp_path: Path) -> None:
    kb = errdex.load([twins])
    con = duckdb.connect(str(build_index([twins], db=tmp_path / "twins.duckdb").path), read_only=True)
    slug_of = {ident: kb.get(ident)["slug"] for ident in TWINS}
    page = browser.new_context().new_page()
    try:
        page.goto(twin_site.url + "index.html")
        for line, expected in LINES.items():
            cli = kb.match(line)[0].view["id"]
            sql = con.execute("SELECT record_id FROM errdex_match($1) WHERE rank = 1", [line]).fetchone()
            assert (cli, sql and sql[0], _shown_slug(page, line)) == (expected, expected, slug_of[expected]), line
    finally:
        page.context.close()
        con.close()
