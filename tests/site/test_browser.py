"""The site in Debian's Chromium (pytest-playwright), served over HTTP on 127.0.0.1."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from axe_playwright_python.sync_playwright import Axe
from playwright.sync_api import Browser, BrowserContext, Page, expect

import errdex
from errdex.site.serve import SiteServer, running_site
from tests.site.conftest import HOSTILE_SLUG, ROOT, watch

ARTIFACTS = ROOT / "test-artifacts"
RECORD = "records/paperclipai/paperclip/createos-process-creation-could-not-be-confirmed-destroy-the.html"
PAGE_KINDS = {
    "home": "index.html",
    "record": RECORD,
    "browse": "browse/index.html",
    "repository": "browse/repos/paperclipai~2fpaperclip/index.html",
    "tag": "browse/tags/abort-signal/index.html",
    "quality": "quality/index.html",
    "schema": "schema/index.html",
    "changelog": "changelog/index.html",
    "not found": "no/such/page.html",
}
WCAG = {"runOnly": {"type": "tag", "values": ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]},
        "resultTypes": ["violations"]}


def test_search_finds_a_record_from_words_of_its_documentation(site_page: tuple[Page, list[str]],
                                                               served: SiteServer) -> None:
    page, problems = site_page
    page.goto(served.url + "index.html")
    # from the documentation of the invalid-JSON record ("fails closed guess" alone, stemmed, ranks the
    # failed-password record first: it fails, guesses and closes more often)
    page.fill("#search-input", "top-level value envelope")
    first = page.locator("#search-results li a").first
    expect(first).to_have_text("CreateOS returned invalid JSON.")
    first.click()
    expect(page.locator("h1")).to_have_text("CreateOS returned invalid JSON.")
    assert problems == []


def _browser_match(page: Page, line: str) -> dict[str, Any]:
    page.fill("#matcher-input", line)
    page.click("#matcher button")
    result = page.locator(".match-result").first
    expect(result).to_be_visible()
    link = result.locator("h3 a")
    captured = result.locator(".captured")
    return {
        "slug": link.get_attribute("href").rsplit("/", 1)[-1].removesuffix(".html") if link.count() else None,
        "captured": captured.inner_text().removeprefix("Captured: ") if captured.count() else None,
        "text": result.inner_text(),
    }


def test_pasting_a_log_line_shows_the_record_the_cli_ranks_first(site_page: tuple[Page, list[str]],
                                                                 served: SiteServer) -> None:
    page, problems = site_page
    page.goto(served.url + "index.html")
    kb = errdex.load()
    lines = (ROOT / "examples" / "worker.log").read_text(encoding="utf-8").splitlines()
    matched = [found for found in kb.match_lines(lines)]
    assert len(matched) >= 5
    for found in matched:
        best = found.matches[0]
        shown = _browser_match(page, found.text)
        assert shown["slug"] == best.view["slug"], found.text
        groups = [g for g in best.groups]
        if any(g is not None for g in groups):
            assert shown["captured"] == ", ".join("-" if g is None else g for g in groups)
            first_fix = best.record["solutions"][0]
            if "$1" in first_fix or "{1}" in first_fix:
                assert groups[0] in shown["text"]
    shown = _browser_match(page, "nothing to see here")
    assert "No record matches this line." in shown["text"]
    assert problems == []


def test_json_log_line_matches_its_message_field(site_page: tuple[Page, list[str]], served: SiteServer) -> None:
    page, _ = site_page
    page.goto(served.url + "index.html")
    line = json.dumps({"level": "error", "msg": "\u0043reateOS returned invalid JSON."}, ensure_ascii=True)
    line = line.replace("CreateOS", "\\u0043reateOS")  # only the decoded field holds the message
    assert errdex.load().match(line)[0].view["slug"] == "createos-returned-invalid-json"
    assert _browser_match(page, line)["slug"] == "createos-returned-invalid-json"


def test_browse_to_a_record_and_its_source_link(site_page: tuple[Page, list[str]], served: SiteServer) -> None:
    page, problems = site_page
    page.goto(served.url + "browse/index.html")
    record = errdex.load().get("createos-process-creation-could-not-be-confirmed-destroy-the")
    page.get_by_role("link", name=record["errorMessage"], exact=True).first.click()
    expect(page.locator("h1")).to_contain_text("could not be confirmed")
    source = page.get_by_role("link", name="view on GitHub", exact=False)
    expected = (f"https://github.com/{record['repo']}/blob/{record['analyzedSha']}/{record['filePath']}"
                f"#L{record['sourceCodeStart']}-L{record['sourceCodeEnd']}")
    assert source.get_attribute("href") == expected
    assert page.locator("tr.throwing td.number").inner_text() == str(record["lineNumber"])
    # following the link: the request goes to GitHub at that commit and those lines (answered here, offline)
    page.route("https://github.com/**", lambda route: route.fulfill(status=200, body="<title>source</title>",
                                                                      content_type="text/html"))
    with page.expect_request(lambda r: r.url.startswith("https://github.com/")) as request:
        source.click()
    assert request.value.url == expected.split("#")[0]
    assert [p for p in problems if "outside request: https://github.com/" not in p] == []


def test_copy_button_copies_the_code(browser: Browser, served: SiteServer) -> None:
    context = browser.new_context(permissions=["clipboard-read", "clipboard-write"])
    page = context.new_page()
    page.goto(served.url + RECORD)
    block = page.locator("pre[data-copy]").first
    button = block.locator("button.copy")
    button.click()
    expect(button).to_have_text("Copied")
    record = errdex.load().get("createos-process-creation-could-not-be-confirmed-destroy-the")
    assert page.evaluate("navigator.clipboard.readText()") == record["exampleFix"]
    context.close()


def test_hostile_record_is_inert_in_the_browser(browser: Browser, hostile_site: Path) -> None:
    with running_site(hostile_site) as server:
        context = browser.new_context()
        page = context.new_page()
        dialogs: list[str] = []
        page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
        page.goto(server.url + f"records/paperclipai/paperclip/{HOSTILE_SLUG}.html")
        page.mouse.move(10, 10)
        page.keyboard.press("Tab")
        page.wait_for_timeout(200)
        assert page.evaluate("window.__xss") is None
        assert dialogs == []
        expect(page.locator("h1")).to_have_text("Hostile <script>window.__xss = 1</script> message.")
        assert page.locator("a[href^='javascript:'], iframe, svg, img").count() == 0
        page.goto(server.url + "index.html")
        page.fill("#matcher-input", "Hostile <script>window.__xss = 1</script> message.")
        page.click("#matcher button")
        expect(page.locator(".match-result h3 a")).to_have_text("Hostile <script>window.__xss = 1</script> message.")
        assert str(page.locator(".match-result h3 a").get_attribute("href")).endswith(f"/{HOSTILE_SLUG}.html")
        assert page.evaluate("window.__xss") is None and page.locator(".match-result img").count() == 0
        context.close()


@pytest.mark.parametrize("kind", list(PAGE_KINDS))
def test_each_page_kind_is_accessible_quiet_and_fits_a_phone(browser: Browser, served: SiteServer, kind: str) -> None:
    """Axe (WCAG 2.1 AA) in light and dark mode at desktop width and on a 360 px phone, a screenshot of each in
    test-artifacts/, no console error, no request outside the site, and no sideways scrolling on the phone."""
    ARTIFACTS.mkdir(exist_ok=True)
    name = kind.replace(" ", "-")
    backgrounds = {}
    for scheme, width, height, suffix in (("light", 1200, 900, "light"), ("dark", 1200, 900, "dark"),
                                          ("light", 360, 740, "360")):
        context = browser.new_context(viewport={"width": width, "height": height}, color_scheme=scheme)
        page = context.new_page()
        problems = watch(page, served)
        page.goto(served.url + PAGE_KINDS[kind])
        page.wait_for_load_state("networkidle")
        results = Axe().run(page, options=WCAG).response
        serious = [f"{v['id']} ({v['impact']}): {v['help']} at {[n['target'] for n in v['nodes']][:3]}"
                   for v in results["violations"] if v["impact"] in ("serious", "critical")]
        assert serious == [], f"{kind}, {scheme}, {width} px: {serious}"
        page.screenshot(path=str(ARTIFACTS / f"{name}-{suffix}.png"), full_page=True)
        backgrounds[suffix] = page.evaluate("getComputedStyle(document.body).backgroundColor")
        if width == 360:
            sizes = page.evaluate("[document.documentElement.scrollWidth, document.documentElement.clientWidth]")
            assert sizes[0] <= sizes[1], f"{kind} scrolls sideways on a small screen: {sizes}"
        if kind == "not found":  # the page's own address answers 404, which the console reports
            problems = [p for p in problems
                        if not p.startswith("console error: Failed to load resource") or "404" not in p]
        assert problems == [], f"{kind}, {scheme}, {width} px"
        context.close()
    assert backgrounds["light"] != backgrounds["dark"]
    assert (ARTIFACTS / f"{name}-light.png").stat().st_size > 5_000


def test_readable_without_javascript(browser: Browser, served: SiteServer) -> None:
    context: BrowserContext = browser.new_context(java_script_enabled=False)
    page = context.new_page()
    page.goto(served.url + RECORD)
    expect(page.locator("#meaning")).to_be_visible()
    expect(page.locator(".scenario summary").first).to_be_visible()  # collapsed, and opens without a script
    assert page.locator("button.copy").count() == 0
    page.goto(served.url + "index.html")
    expect(page.locator("#search")).to_be_hidden()
    assert "Search needs JavaScript." in page.inner_text("body")
    context.close()


def test_search_as_you_type_and_no_results(site_page: tuple[Page, list[str]], served: SiteServer) -> None:
    page, problems = site_page
    page.goto(served.url + "index.html")
    page.fill("#search-input", "sandbox comm")  # the last word is a prefix
    expect(page.locator("#search-results li a").first).to_have_text("A sandbox command is required.")
    expect(page.locator("#search-results mark").first).to_be_visible()
    page.fill("#search-input", "zebracorn")
    expect(page.locator("#search-status")).to_have_text("0 records found")
    assert page.locator("#search-results li").count() == 0
    assert problems == []


def test_the_matcher_bounds_its_work(site_page: tuple[Page, list[str]], served: SiteServer) -> None:
    page, problems = site_page
    page.goto(served.url + "index.html")
    huge = "x" * 500_000 + " CreateOS returned invalid JSON."  # the message lies past the 10,000 characters matched
    many = "\n".join(["CreateOS returned invalid JSON."] * 80)
    page.fill("#matcher-input", huge)
    page.click("#matcher button")
    expect(page.locator(".match-result").first).to_contain_text(
        "No record matches the first 10,000 characters of this line", timeout=5000)
    page.fill("#matcher-input", many)
    page.click("#matcher button")
    expect(page.get_by_text("Only the first 50 lines were matched.")).to_be_visible(timeout=5000)
    assert page.locator(".match-result").count() == 50
    assert problems == []
