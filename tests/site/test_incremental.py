"""Incremental site builds: after one record changed, only what shows it is written again, and the site equals a
full build byte for byte."""

from __future__ import annotations

import json
import os
import shutil
import time
from pathlib import Path

import pytest

from errdex import build_site, parallel
from errdex.site import build as build_module
from errdex.site import incremental
from errdex.site.incremental import MANIFEST
from errdex.site.search import _file_part, terms  # the shard files' naming, to tell which a record's terms are in
from errdex.site.urls import record_json_path, record_path
from tests.site.conftest import RECORDS

RECORD = "paperclipai/paperclip/createos-returned-invalid-json.json"
#: Written by every build: the folder's marker and the build manifest.
ALWAYS = {".errdex-site", MANIFEST}


def _files(folder: Path) -> dict[str, tuple[int, int]]:
    """Each file's (inode, mtime): a file carried over keeps both; a file written again gets a new inode."""
    out = {}
    for path in folder.rglob("*"):
        if path.is_file():
            stat = path.stat()
            out[path.relative_to(folder).as_posix()] = (stat.st_ino, stat.st_mtime_ns)
    return out


def _tree(folder: Path) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def _rewritten(before: dict[str, tuple[int, int]], after: dict[str, tuple[int, int]]) -> set[str]:
    return {path for path, stamp in after.items() if before.get(path) != stamp} - ALWAYS


@pytest.fixture
def records(tmp_path: Path) -> Path:
    folder = tmp_path / "records"
    shutil.copytree(RECORDS, folder)
    return folder


def _change(records: Path, **fields: str) -> dict[str, object]:
    path = records / RECORD
    envelope = json.loads(path.read_text(encoding="utf-8"))
    envelope["record"].update(fields)
    path.write_text(json.dumps(envelope, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    return dict(envelope["record"])


def _shards_of(record: dict[str, object]) -> set[str]:
    """The search shards a record's terms are in."""
    return {f"search/terms-{_file_part(term[:2])}.json" for value in record.values() for term in terms(str(value))}


def test_one_changed_record_rewrites_only_its_pages_and_equals_a_full_build(
        tmp_path: Path, records: Path, site_cache: Path, single_threaded: bool, monkeypatch: pytest.MonkeyPatch,
        forks: list[int]) -> None:
    if not single_threaded:
        return
    monkeypatch.setattr(build_module, "MIN_PARALLEL_RECORDS", 5)  # children render (and carry over) pages too
    monkeypatch.setattr(parallel, "available_cpus", lambda: 3)
    monkeypatch.setattr(build_module, "CHUNK_RECORDS", 3)
    out = tmp_path / "site"
    build_site(out, records=[records])
    first = _files(out)
    build_site(out, records=[records])
    assert _rewritten(first, _files(out)) == set()  # nothing changed: nothing written
    assert forks, "the record pages were not shared out"

    before = json.loads((records / RECORD).read_text(encoding="utf-8"))["record"]
    record = _change(records, documentation="A CreateOS API answer was not JSON. The client fails closed.")
    build_site(out, records=[records])
    rewritten = _rewritten(first, _files(out))
    own = {record_path(record), record_json_path(record)}
    assert own <= rewritten
    search = {path for path in rewritten if path.startswith("search/")}
    assert search and search <= _shards_of(before) | _shards_of(record) | {"search/docs-0.json"}
    # The matcher's patterns show each record's first sentence; no listing shows the documentation.
    assert rewritten - own - search == {"api/patterns.json", "api/patterns.js"}

    full = tmp_path / "full"
    build_site(full, records=[records])
    assert _tree(out) == _tree(full)


def test_a_changed_message_and_severity_rewrite_the_listings_that_show_them(tmp_path: Path, records: Path,
                                                              site_cache: Path) -> None:
    out = tmp_path / "site"
    build_site(out, records=[records], search=False)
    first = _files(out)
    assert json.loads((records / RECORD).read_text(encoding="utf-8"))["record"]["severity"] != "warning"
    record = _change(records, severity="warning", errorMessage="CreateOS returned something that is not JSON.")
    build_site(out, records=[records], search=False)
    rewritten = _rewritten(first, _files(out))
    assert {record_path(record), record_json_path(record), "api/records.json", "browse/index.html",
            "index.html"} <= rewritten  # the home page counts records by severity
    unrelated = "records/openssh/openssh-portable/connection-closed-by-remote-host.html"
    assert unrelated in first and unrelated not in rewritten
    full = tmp_path / "full"
    build_site(full, records=[records], search=False)
    assert _tree(out) == _tree(full)


def test_a_tampered_file_or_a_new_template_set_is_written_again(tmp_path: Path, records: Path, site_cache: Path,
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    out = tmp_path / "site"
    build_site(out, records=[records], search=False)
    page = out / "records/openssh/openssh-portable/connection-closed-by-remote-host.html"
    original = page.read_bytes()
    os.unlink(page)  # a user's edit of the built site (never through the link the next build would share)
    page.write_bytes(original + b"<!-- edited -->")
    first = _files(out)
    build_site(out, records=[records], search=False)
    assert page.read_bytes() == original
    assert _rewritten(first, _files(out)) == {page.relative_to(out).as_posix()}

    monkeypatch.setattr(incremental, "__version__", "0.0.0-other")  # another errdex: every page again
    second = _files(out)
    build_site(out, records=[records], search=False)
    after = _files(out)
    assert all(after[path] != second[path] for path in after if path.endswith(".html"))


def test_the_caches_of_earlier_builds_change_nothing(tmp_path: Path, records: Path, site_cache: Path,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """The search entries and browser pattern facts kept in the cache give the same site as none, or damaged ones."""
    warm = tmp_path / "warm"
    build_site(warm, records=[records])
    build_site(warm, records=[records])  # from the caches the first build filled
    cold_cache = tmp_path / "cold-cache"
    monkeypatch.setenv("ERRDEX_CACHE_DIR", str(cold_cache))
    cold = tmp_path / "cold"
    build_site(cold, records=[records])
    assert _tree(warm) == _tree(cold)
    for name in (build_module.SEARCH_CACHE_FILE, "pattern-facts.json"):
        assert (cold_cache / name).is_file()
        (cold_cache / name).write_bytes(b"\x00damaged")
    damaged = tmp_path / "damaged"
    build_site(damaged, records=[records])
    assert _tree(damaged) == _tree(cold)


def test_a_large_old_site_is_removed_after_the_build(tmp_path: Path, records: Path, site_cache: Path,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(build_module, "MIN_PARALLEL_RECORDS", 1)  # "large": the old site goes in the background
    out = tmp_path / "site"
    build_site(out, records=[records], search=False)
    before = _tree(out)
    build_site(out, records=[records], search=False)
    assert _tree(out) == before
    deadline = time.monotonic() + 30
    while sorted(p.name for p in tmp_path.iterdir()) != ["records", "site"]:  # until the remover is done
        assert time.monotonic() < deadline, sorted(p.name for p in tmp_path.iterdir())
        time.sleep(0.05)
