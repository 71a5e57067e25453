"""The site lists drafts apart from documented records, and a draft's page shows what is known, no empty prose."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from errdex import build_site
from tests.conftest import ROOT, write_envelope
from tests.records.drafts import draft_envelope


@pytest.fixture(scope="module")
def draft_site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("draft-records") / "records"
    shutil.copytree(ROOT / "records", folder, ignore=shutil.ignore_patterns(".releases"))
    write_envelope(folder, draft_envelope(1))
    out = folder.parent / "site"
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("ERRDEX_CACHE_DIR", str(folder.parent / "cache"))
        build_site(out, records=[folder])
    return out


SLUG = draft_envelope(1)["record"]["slug"]


def _page(site: Path) -> str:
    return (site / "records" / "paperclipai" / "paperclip" / f"{SLUG}.html").read_text(encoding="utf-8")


def test_a_draft_page_says_it_is_a_draft_and_shows_the_code(draft_site: Path) -> None:
    page = _page(draft_site)
    assert "This record is a draft, harvested from the code and not documented yet." in page
    assert "raised in renew() when lease.expiresAt &lt; now()" in page
    assert 'class="throwing"' in page and "src/lease.ts" in page


def test_a_draft_page_leaves_out_its_empty_prose(draft_site: Path) -> None:
    page = _page(draft_site)
    for anchor in ("meaning", "situations", "solutions", "prevention"):
        assert f'aria-labelledby="{anchor}"' not in page
    assert 'aria-labelledby="triggers"' in page and 'aria-labelledby="source"' in page


def test_browse_lists_drafts_apart_from_documented_records(draft_site: Path) -> None:
    browse = (draft_site / "browse" / "index.html").read_text(encoding="utf-8")
    drafts_at = browse.index('id="drafts"')
    assert browse.count(f"{SLUG}.html") == 1 and browse.index(f"{SLUG}.html") > drafts_at
    home = (draft_site / "index.html").read_text(encoding="utf-8")
    assert SLUG not in home


def test_the_in_browser_matcher_matches_drafts(draft_site: Path) -> None:
    found = [path for path in draft_site.rglob("*.json") if "patterns" in path.name]
    data = json.loads(found[0].read_text(encoding="utf-8"))
    assert SLUG in {entry["slug"] for entry in data["patterns"]}
