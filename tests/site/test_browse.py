"""The browse pages: every list shows messages, counts read right, and no listing page grows with the dataset."""

from __future__ import annotations

import json
import re
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from errdex.site import pages as p
from errdex.site.browse import browse_json, write_browse_pages
from errdex.site.build import _environment
from errdex.site.paging import PAGE_SIZE
from errdex.site.records import RecordFacts
from errdex.site.urls import record_path
from tests.benchmarks.generate import generate
from tests.site.conftest import RECORDS

#: The bound the issue sets for any one listing page, at 10,000 records.
MAX_PAGE_BYTES = 1 << 20


@dataclass
class _Loaded:
    record: dict[str, Any]
    dataset_version: str | None
    path: Path = Path("generated.json")


class _MemoryWriter:
    """Renders each page into memory: its size is what is measured."""

    def __init__(self) -> None:
        self.environment = _environment()
        self.sizes: dict[str, int] = {}
        self.texts: dict[str, str] = {}

    def page(self, template: str, page: p.Page) -> None:
        text = self.environment.get_template(template).render(page=page)
        self.sizes[page.path] = len(text.encode("utf-8"))
        self.texts[page.path] = text


def _info(count: int) -> p.SiteInfo:
    return p.SiteInfo("errdex", "2026", "test", count, 1, 0)


@pytest.fixture(scope="module")
def ten_thousand() -> tuple[_MemoryWriter, RecordFacts, float]:
    facts = RecordFacts.of([_Loaded(e["record"], e["datasetVersion"]) for e in generate(10_000)], {}, None)
    writer = _MemoryWriter()
    started = time.perf_counter()
    write_browse_pages(writer, facts, _info(len(facts.records)))
    return writer, facts, time.perf_counter() - started


def test_every_listing_page_stays_under_a_megabyte_at_10000_records(
        ten_thousand: tuple[_MemoryWriter, RecordFacts, float]) -> None:
    writer, facts, seconds = ten_thousand
    biggest = max(writer.sizes, key=lambda path: writer.sizes[path])
    print(f"\n{len(writer.sizes)} listing pages for 10,000 records in {seconds:.1f} s; the biggest, {biggest}, "
          f"is {writer.sizes[biggest] / 1024:.0f} kB; "
          f"browse/index.html {writer.sizes['browse/index.html'] / 1024:.0f} kB;"
          f" api/browse.json {len(json.dumps(browse_json(facts), separators=(',', ':'))) / 1024:.0f} kB")
    assert writer.sizes[biggest] < MAX_PAGE_BYTES, biggest
    assert writer.sizes["browse/index.html"] < MAX_PAGE_BYTES
    # every record is on the browse pages once, and on its repository's pages once
    listed = [m for path, text in writer.texts.items() if re.fullmatch(r"browse/(index|page-\d+)\.html", path)
              for m in re.findall(r'<li><a href="\.\./(records/[^"]+)"', text)]
    assert len(listed) == len(set(listed)) == 10_000
    assert "browse/page-50.html" in writer.sizes and "browse/page-51.html" not in writer.sizes
    tagged = [path for path in writer.sizes if path.startswith("browse/tags/generated/")]
    assert len(tagged) == 10_000 // PAGE_SIZE  # the tag every generated record has, paginated too


def test_the_filters_json_stays_small(ten_thousand: tuple[_MemoryWriter, RecordFacts, float]) -> None:
    _, facts, _ = ten_thousand
    data = browse_json(facts)
    size = len(json.dumps(data, ensure_ascii=False, separators=(",", ":")).encode())
    assert len(data["records"]) == 10_000 and size < 2 * MAX_PAGE_BYTES
    message, page, severity, error_class, repo, status, draft = data["records"][0]
    record = next(r for r in facts.records if r["errorMessage"] == message)
    assert f"records/{data['repositoryPaths'][repo]}/{page}.html" == record_path(record)
    assert (data["severities"][severity], data["classes"][error_class], data["repositories"][repo],
            data["statuses"][status], draft) == (record["severity"], record["errorClass"], record["repo"], "active", 0)


def test_lists_show_messages_and_counts_read_right(built_site: Path) -> None:
    browse = (built_site / "browse/index.html").read_text(encoding="utf-8")
    assert ">CreateOS returned invalid JSON.</a>" in browse
    slugs = {json.loads(path.read_text())["record"]["slug"] for path in RECORDS.rglob("*.json")
             if ".releases" not in path.parts}
    for page in [built_site / "index.html", built_site / "browse/index.html", built_site / "quality/index.html",
                 built_site / "changelog/index.html", *built_site.glob("browse/*/*/index.html"),
                 *built_site.glob("records/*/*/*.html")]:
        texts = set(re.findall(r"<a [^>]*>([^<]*)</a>", page.read_text(encoding="utf-8")))
        assert not texts & slugs, f"{page}: a link shows a slug, not the message: {sorted(texts & slugs)[:3]}"
    for page in [built_site / "index.html", built_site / "browse/index.html",
                 *built_site.glob("browse/*/*/index.html")]:
        text = page.read_text(encoding="utf-8")
        assert not re.search(r"\b1 (records|repositories|scenarios|errors|warnings)\b", text), page
        assert not re.search(r"\b(0|[2-9]|\d\d+) record\b", text), page
    single = [page for page in built_site.glob("browse/tags/*/index.html")
              if "<p>1 record.</p>" in page.read_text(encoding="utf-8")]
    assert single, "a tag with one record says '1 record'"


def test_each_repository_page_lists_its_files_and_records(built_site: Path) -> None:
    records = [json.loads(path.read_text())["record"] for path in (RECORDS / "paperclipai/paperclip").glob("*.json")]
    page = (built_site / "browse/repos/paperclipai~2fpaperclip/index.html").read_text(encoding="utf-8")
    for record in records:
        assert f'{record["slug"]}.html">' in page
    assert page.count('class="group"') == len({r["filePath"] for r in records})
