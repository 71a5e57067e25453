"""What a person sees first: the fix above the fold, the browse filters, the quality report on a phone, and the
matcher's summary of a pasted log (Debian's Chromium, over HTTP on 127.0.0.1)."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Browser, Page, expect

import errdex
from errdex.site.serve import SiteServer
from tests.site.conftest import ROOT, watch

#: The record with the most trigger scenarios (14): its fix used to start 4,194 px down.
RECORD = "records/paperclipai/paperclip/createos-process-creation-could-not-be-confirmed-destroy-the.html"
ARTIFACTS = ROOT / "test-artifacts"


def _page(browser: Browser, served: SiteServer, width: int, height: int) -> tuple[Page, list[str]]:
    page = browser.new_context(viewport={"width": width, "height": height}).new_page()
    return page, watch(page, served)


@pytest.mark.parametrize(("width", "height"), [(1280, 800), (360, 740)])
def test_the_fix_is_on_the_first_screen(browser: Browser, served: SiteServer, width: int, height: int) -> None:
    page, problems = _page(browser, served, width, height)
    page.goto(served.url + RECORD)
    order = page.eval_on_selector_all(
        "h1, .badges, #solutions, #handling, #meaning, #triggers, #scenarios, #source",
        "nodes => nodes.map(n => n.id || n.className || n.tagName.toLowerCase())")
    assert order == ["h1", "badges", "solutions", "handling", "meaning", "triggers", "scenarios", "source"]
    fix = page.locator("#solutions").bounding_box()
    assert fix is not None and fix["y"] < height, f"the fix starts {fix} px down at {width} px"
    first = page.locator(".fix li").first.bounding_box()
    assert first is not None and first["y"] + first["height"] <= height, "the first fix is cut by the fold"
    page.screenshot(path=str(ARTIFACTS / f"record-first-screen-{width}.png"))
    badges = page.locator(".badges").inner_text()
    record = errdex.load().get("createos-process-creation-could-not-be-confirmed-destroy-the")
    assert record["severity"] in badges and record["errorClass"] in badges
    # the scenarios are collapsed, and a link to one opens it
    assert page.locator(".scenarios details[open]").count() == 0
    assert not page.locator(".steps li").first.is_visible()
    anchor = page.locator(".scenarios details").first.get_attribute("id")
    page.goto(served.url + RECORD + "#" + str(anchor))
    expect(page.locator(f"[id='{anchor}'] .steps li").first).to_be_visible()
    toc = page.locator("nav.toc a").all_inner_texts()
    assert toc[:2] == ["What it means", "What triggers it"] and "Scenarios (14)" in toc
    page.context.close()
    assert problems == []


def test_the_browse_filters(browser: Browser, served: SiteServer) -> None:
    page, problems = _page(browser, served, 1200, 900)
    page.goto(served.url + "browse/index.html")
    expect(page.locator("#browse-filter")).to_be_visible()
    page.select_option("#filter-repo", "openssh/openssh-portable")
    count = page.locator("#browse-count")
    expect(count).to_contain_text(" match")
    metas = page.locator("#browse-list li .meta")
    expect(metas.filter(has_not_text="openssh/openssh-portable")).to_have_count(0)  # the filter has run
    shown = metas.all_inner_texts()
    assert shown and all("openssh/openssh-portable" in text for text in shown)
    page.select_option("#filter-severity", "warning")
    expect(metas.filter(has_not_text=re.compile(r"^warning"))).to_have_count(0)
    shown = metas.all_inner_texts()
    assert shown and all(text.startswith("warning") and "openssh" in text for text in shown)
    expect(count).to_have_text(f"{len(shown)} record{'' if len(shown) == 1 else 's'} of 53 match")
    assert "repo=openssh%2Fopenssh-portable" in page.url and "severity=warning" in page.url
    page.fill("#filter-words", "zebracorn")
    expect(count).to_have_text("0 records of 53 match")
    # the address keeps the filters: reloading it shows the same choice
    page.fill("#filter-words", "")
    page.reload()
    expect(page.locator("#filter-severity")).to_have_value("warning")
    expect(count).to_contain_text(f"{len(shown)} record")
    page.locator("#browse-list li a").first.click()
    expect(page.locator(".badges")).to_contain_text("warning")
    page.context.close()
    assert problems == []


def test_the_quality_report_on_a_phone(browser: Browser, served: SiteServer) -> None:
    page, problems = _page(browser, served, 360, 740)
    page.goto(served.url + "quality/index.html")
    wrap = page.evaluate("(() => { const w = document.querySelector('.quality-wrap');"
                         " return [w.scrollWidth, w.clientWidth, document.documentElement.scrollWidth,"
                         " document.documentElement.clientWidth]; })()")
    assert wrap[0] <= wrap[1] and wrap[2] <= wrap[3], f"the quality report scrolls sideways at 360 px: {wrap}"
    first = page.locator("table.quality tbody tr").first
    box = first.locator("th a").bounding_box()
    assert box is not None and box["x"] + box["width"] <= 360  # the record's link is on screen
    expect(first.locator("td[data-label='Proof']")).to_be_visible()
    page.fill("#quality-filter-input", "sandbox")
    expect(page.locator("#quality-count")).to_contain_text(" of 53 records shown")
    page.context.close()
    assert problems == []


def test_the_matcher_summarises_many_lines(browser: Browser, served: SiteServer) -> None:
    page, problems = _page(browser, served, 1200, 900)
    page.goto(served.url + "index.html")
    lines = (["CreateOS returned invalid JSON."] * 7 + ["A sandbox command is required."] * 2
             + ["nothing to see here"] * 3 + ["something else entirely"])
    page.fill("#matcher-input", "\n".join(lines))
    page.click("#matcher button")
    overview = page.locator(".match-overview")
    expect(overview).to_be_visible()
    expect(page.locator(".match-totals")).to_have_text("13 lines: 9 matched 2 records, 4 matched none.")
    rows = page.locator(".match-summary tbody tr")
    assert rows.count() == 2
    assert rows.nth(0).locator("th a").inner_text() == "CreateOS returned invalid JSON."
    assert rows.nth(0).locator("td.count").inner_text() == "7 lines (1, 2, 3, 4, 5 and 2 more)"
    assert rows.nth(1).locator("td.count").inner_text() == "2 lines (8, 9)"
    unmatched = page.locator("details.unmatched")
    expect(unmatched.locator("summary")).to_have_text("4 lines matched no record (2 different lines)")
    assert unmatched.get_attribute("open") is None
    expect(unmatched.locator("li").first).to_be_hidden()
    unmatched.locator("summary").click()
    expect(unmatched.locator("li").first).to_have_text("line 10 (and 2 more): nothing to see here")
    each = page.locator("details.match-lines")
    assert each.get_attribute("open") is None  # more than ten lines: each line's answer is collapsed too
    assert page.locator(".match-result").count() == len(lines)
    page.screenshot(path=str(ARTIFACTS / "matcher-summary.png"), full_page=True)
    page.context.close()
    assert problems == []

