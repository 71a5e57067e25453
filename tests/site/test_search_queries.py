"""Thirty searches a person debugging a failure would type, in the browser, against errdex's index and Pagefind.

The queries were written from the records' meaning (the record a person expects in the top three), not from
what an index returns: words, inflections (another form of a word than the record's), numbers, codes
(identifiers, class names, option names) and typos. errdex's own index must place every expected record in
its top three, and do at least as well as Pagefind (its Python API, over the record pages of the same built
site, searched with its own browser script), which is why the site keeps its own index (see
``errdex.site.search``).
"""

from __future__ import annotations

import asyncio
import shutil
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page, expect

from errdex.site.serve import SiteServer, running_site

Query = tuple[str, str, str]  # (kind, what is typed, the expected record's slug)

QUERIES: list[Query] = [
    ("words", "invalid json", "createos-returned-invalid-json"),
    ("words", "sequence gap", "createos-process-output-has-a-sequence-gap"),
    ("words", "frame too large", "createos-process-frame-is-too-large"),
    ("words", "shadow information", "could-not-get-shadow-information-for-nouser"),
    ("words", "environment variable", "invalid-sandbox-environment-variable"),
    ("words", "connection reset by peer", "read-connection-reset-by-peer"),
    ("inflections", "timed out before authenticating", "timeout-before-authentication-for-203-0-113-7-port-52814"),
    ("inflections", "cancelling a command", "createos-command-was-cancelled"),
    ("inflections", "output evicted", "createos-process-output-was-evicted-before-it-could-be-read"),
    ("inflections", "refusing root logins", "root-login-refused-from-203-0-113-7-port-52814-preauth"),
    ("inflections", "authentication attempt exceeds maximum",
     "maximum-authentication-attempts-exceeded-for-invalid-user-ad"),
    ("inflections", "stream ends without exit statuses", "createos-process-stream-ended-without-an-exit-status"),
    ("numbers", "HTTP 404", "createos-request-failed-http-404-during-sandbox-lifecycle"),
    ("numbers", "HTTP 502", "createos-process-creation-could-not-be-confirmed-destroy-the"),
    ("numbers", "HTTP 410", "createos-process-output-was-evicted-before-it-could-be-read"),
    ("numbers", "HTTP 204", "createos-returned-an-empty-process-stream"),
    ("numbers", "protocol versions 2 vs 1", "protocol-major-versions-differ-2-vs-1"),
    ("numbers", "port 22 rdomain", "connection-from-203-0-113-7-port-52814-on-192-0-2-1-port-22"),
    ("codes", "ED25519", "accepted-key-ed25519-sha256-m5yfrscmob0qolaga1xjvmoulxfyhpds"),
    ("codes", "CreateosApiError", "createos-request-failed-http-404-during-sandbox-lifecycle"),
    ("codes", "ssh-rsa", "signature-algorithm-ssh-rsa-not-in-pubkeyacceptedalgorithms"),
    ("codes", "PubkeyAcceptedAlgorithms", "signature-algorithm-ssh-rsa-not-in-pubkeyacceptedalgorithms"),
    ("codes", "DenyUsers", "user-deploy-from-203-0-113-7-not-allowed-because-listed-in-d"),
    ("codes", "LoginGraceTime", "timeout-before-authentication-for-203-0-113-7-port-52814"),
    ("codes", "GET / HTTP/1.1", "client-sent-invalid-protocol-identifier-get-http-1-1"),
    ("typos", "sandbx identity", "createos-sandbox-identity-or-state-is-invalid"),
    ("typos", "shadw information", "could-not-get-shadow-information-for-nouser"),
    ("typos", "sequnece gap", "createos-process-output-has-a-sequence-gap"),
    ("typos", "evcited output", "createos-process-output-was-evicted-before-it-could-be-read"),
    ("typos", "negotaite", "unable-to-negotiate-with-203-0-113-7-port-52814-no-matching"),
]

#: The top three record URLs of a query, by errdex's search script (the page's own functions).
OWN_TOP3 = """async (q) => { const found = await search(q);
  return (await documents(found.ranked, found.meta, 0, 3)).map((d) => d.url); }"""
#: The same by Pagefind's browser script.
PAGEFIND_TOP3 = """async (q) => { const pagefind = await import(new URL("pagefind/pagefind.js", siteBase).href);
  const found = await pagefind.search(q);
  return Promise.all(found.results.slice(0, 3).map(async (result) => (await result.data()).url)); }"""


def _slug(url: str) -> str:
    return url.rstrip("/").rsplit("/", 1)[-1].removesuffix(".html")


def _hits(page: Page, script: str, name: str) -> int:
    """How many queries have their expected record in the top three; prints each miss and the hit rate."""
    hits = 0
    for kind, query, slug in QUERIES:
        top = [_slug(url) for url in page.evaluate(script, query)]
        if slug in top:
            hits += 1
        else:
            print(f"{name}: {kind} {query!r}: expected {slug}, top 3 {top}")
    print(f"{name}: {hits}/{len(QUERIES)} queries with the expected record in the top 3 ({hits / len(QUERIES):.0%})")
    return hits


@pytest.fixture
def home(browser: Browser, served: SiteServer) -> Iterator[Page]:
    context = browser.new_context(viewport={"width": 1200, "height": 900})
    page = context.new_page()
    page.goto(served.url + "index.html")
    yield page
    context.close()


def test_every_query_finds_its_record_in_the_top_three(home: Page) -> None:
    assert len(QUERIES) == 30 and {kind for kind, _, _ in QUERIES} == {
        "words", "inflections", "numbers", "codes", "typos"}
    assert _hits(home, OWN_TOP3, "errdex") == len(QUERIES)


async def _pagefind_index(site: Path) -> None:
    from pagefind.index import IndexConfig, PagefindIndex  # the test dependency, only for this comparison

    async with PagefindIndex(IndexConfig(output_path=str(site / "pagefind"))) as index:
        await index.add_directory(str(site), glob="records/**/*.html")


def test_errdex_search_does_at_least_as_well_as_pagefind(built_site: Path, tmp_path: Path, browser: Browser,
                                                         home: Page) -> None:
    pytest.importorskip("pagefind.index", reason="pagefind[bin] (a test dependency) is not installed")
    site = tmp_path / "site"
    shutil.copytree(built_site, site)
    # Playwright's sync API runs an event loop in this thread: Pagefind's runs in another.
    indexing = threading.Thread(target=asyncio.run, args=(_pagefind_index(site),))
    indexing.start()
    indexing.join()
    assert (site / "pagefind" / "pagefind.js").is_file()
    own = _hits(home, OWN_TOP3, "errdex")
    with running_site(site) as server:
        context = browser.new_context()
        page = context.new_page()
        page.goto(server.url + "index.html")
        theirs = _hits(page, PAGEFIND_TOP3, "Pagefind")
        context.close()
    assert own >= theirs


def test_search_box_corrects_a_typo_says_so_and_pages_through_results(home: Page) -> None:
    home.fill("#search-input", "sandbx identity")
    expect(home.locator("#search-hint")).to_have_text(
        "No record has “sandbx”; showing results for “sandbox”.")
    expect(home.locator("#search-results li a").first).to_have_text("CreateOS sandbox identity or state is invalid.")
    home.fill("#search-input", "createos")
    status = home.locator("#search-status")
    expect(status).to_contain_text("records found; 20 shown")
    expect(home.locator("#search-results li")).to_have_count(20)
    expect(home.locator("#search-hint")).to_have_text("")
    home.click("#search-more")
    expect(home.locator("#search-more")).to_be_hidden()
    total = int(status.inner_text().split()[0])
    assert total > 20
    expect(home.locator("#search-results li")).to_have_count(total)
