"""The in-browser matcher against adversarial patterns and lines: it answers within its budget and the page stays
responsive, over HTTP (in a worker the page stops) and from a file (in the page, only patterns proven linear)."""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page, expect

from errdex import build_site
from errdex.site.serve import running_site
from tests.site.conftest import RECORDS

#: Patterns the first backtracking check let through (now refused at build), and one it still lets through that is
#: quadratic in a backtracker because it starts with a lazy repeat.
ADVERSARIAL = {
    "token": ("Token (?:[a-z]{1,30}){1,30}!", "Token abc!"),
    "config": ("Config (.*?)=(.*?)=(.*?);", "Config a=b=c;"),
    "wide": ("Job a failed at .{0,1000}\\.", "Job a failed at x."),
    "quadratic": ("(.*?) timed out after (\\d+) ms", "x timed out after 5 ms"),
}
#: Stands for a pattern that slipped past every check (a site built by an older errdex, a hand-edited file):
#: exponential in a backtracker, so one exec on a line of 40 "a" never ends in practice.
SLIPPED = {"id": "00000000badbadba", "slug": "slipped-past-the-checks", "repo": "acme/api", "errorClass": "Error",
           "severity": "error", "url": "records/acme/api/slipped-past-the-checks.html", "source": "(a|aa)+b",
           "flags": "u", "literalChars": 1000, "variableParts": 0, "linear": False, "meaning": "m", "fix": "f"}
NORMAL = "CreateOS returned invalid JSON."
WITHDRAWN = "CreateOS connection failed."


@pytest.fixture(scope="module")
def adversarial_site(tmp_path_factory: pytest.TempPathFactory, site_cache: Path) -> Path:
    root = tmp_path_factory.mktemp("adversarial")
    records = root / "records"
    shutil.copytree(RECORDS, records, ignore=shutil.ignore_patterns(".releases"))
    template = json.loads((records / "paperclipai/paperclip/createos-returned-invalid-json.json").read_text())
    for number, (slug, (pattern, message)) in enumerate(ADVERSARIAL.items()):
        envelope = json.loads(json.dumps(template))
        envelope["record"].update(id=f"{number + 1:016x}", slug=slug, repo="acme/api", errorMessage=message,
                                  messagePattern=pattern, scenarios=[])
        (records / "acme/api").mkdir(parents=True, exist_ok=True)
        (records / f"acme/api/{slug}.json").write_text(json.dumps(envelope, indent=2), encoding="utf-8")
    withdrawn = records / "paperclipai/paperclip/createos-connection-failed.json"
    envelope = json.loads(withdrawn.read_text())
    envelope["record"].update(status="withdrawn", statusReason="Folded into another record.")
    withdrawn.write_text(json.dumps(envelope, indent=2), encoding="utf-8")
    out = root / "site"
    build_site(out, records=[records], search=False)
    data = json.loads((out / "api/patterns.json").read_text())
    data["patterns"].insert(0, SLIPPED)
    (out / "api/patterns.json").write_text(json.dumps(data), encoding="utf-8")
    (out / "api/patterns.js").write_text("self.errdexPatterns = " + json.dumps(data) + ";\n", encoding="utf-8")
    return out


def test_the_shapes_that_froze_the_page_are_refused_at_build(adversarial_site: Path) -> None:
    data = json.loads((adversarial_site / "api/patterns.json").read_text())
    shipped = {p["slug"]: p for p in data["patterns"]}
    assert not {"token", "config", "wide"} & set(shipped)
    assert len(data["refused"]) == 3
    assert shipped["quadratic"]["linear"] is False
    assert shipped["createos-returned-invalid-json"]["linear"] is True


def _lines() -> list[str]:
    return [
        NORMAL,
        "a" * 40,                                     # the slipped exponential pattern
        "Token " + "abcdefghij" * 90 + "?",           # nested bounded repeats
        "Config " + "=" * 5000,                       # overlapping lazy groups
        "Job a failed at " + "x" * 5000,
        *(["y" * 10_000] * 40),                       # quadratic for the leading lazy repeat, 40 times
        WITHDRAWN,
    ]


def _paste(page: Page, lines: list[str]) -> None:
    page.fill("#matcher-input", "\n".join(lines))
    page.click("#matcher button")
    expect(page.locator(".match-result").first).to_be_attached(timeout=10_000)  # many lines: collapsed


def _results(page: Page) -> list[str]:
    """Each line's answer as text, ending with the page of the record it names (its slug), if any."""
    return page.eval_on_selector_all(".match-result", "boxes => boxes.map(b => b.textContent + ' ' + "
                                     "((b.querySelector('h3 a') || {}).href || ''))")


@pytest.fixture
def page(browser: Browser) -> Iterator[Page]:
    context = browser.new_context()
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    yield page
    context.close()
    assert errors == []


def test_over_http_the_worker_is_stopped_at_the_budget(page: Page, adversarial_site: Path) -> None:
    with running_site(adversarial_site) as server:
        page.goto(server.url + "index.html")
        _paste(page, _lines())
        assert page.workers, "the matcher runs in a web worker: the page's main thread is never the one matching"
        results = _results(page)
        assert "createos-returned-invalid-json" in results[0]
        assert "Stopped:" in page.locator("#matcher-output").inner_text()
        assert any("Stopped:" in text and "before" in text for text in results[1:])
        assert not any("No record matches" in text for text in results[1:2])  # the stopped line is not "no match"
        # a stopped worker is replaced: the next paste is answered in full
        _paste(page, [NORMAL, WITHDRAWN, "x timed out after 5 ms"])
        results = _results(page)
        assert "createos-returned-invalid-json" in results[0]
        assert "No record matches this line." in results[1]  # withdrawn: skipped, as errdex match does
        assert "quadratic" in results[2]
        assert "Stopped" not in page.locator("#matcher-output").inner_text()


def test_from_a_file_only_linear_patterns_run_in_the_page(page: Page, adversarial_site: Path) -> None:
    page.goto((adversarial_site / "index.html").as_uri())
    _paste(page, _lines())
    results = _results(page)
    assert "createos-returned-invalid-json" in results[0]
    assert all("No record matches this line." in text for text in results[1:])  # slow patterns were not run
    output = page.locator("#matcher-output").inner_text()
    assert "were not tried: this page cannot start a worker here" in output


def test_a_new_paste_while_one_is_stuck_is_answered_at_once(page: Page, adversarial_site: Path) -> None:
    """Pressing Match again while the worker is stuck on a line ends that paste: the new one is answered in full,
    and the old one's timers cannot overwrite the answer later."""
    with running_site(adversarial_site) as server:
        page.goto(server.url + "index.html")
        page.fill("#matcher-input", "a" * 40)  # the slipped exponential pattern: the worker never ends this line
        page.click("#matcher button")
        page.fill("#matcher-input", NORMAL)
        page.click("#matcher button")
        expect(page.locator(".match-result h3 a")).to_have_text(NORMAL, timeout=4_000)
        output = page.locator("#matcher-output")
        assert "Stopped" not in output.inner_text()
        assert page.locator(".match-result").count() == 1


def test_a_line_cut_to_the_limit_does_not_claim_no_record_matches_it(page: Page, adversarial_site: Path) -> None:
    """The message past the 10,000 characters the page matches: the page says it read only part of the line."""
    with running_site(adversarial_site) as server:
        page.goto(server.url + "index.html")
        _paste(page, ["x" * 10_050 + " " + NORMAL, NORMAL])
        results = _results(page)
        assert "No record matches the first 10,000 characters of this line" in results[0]
        assert "errdex match reads all of it" in results[0]
        assert "createos-returned-invalid-json" in results[1]
