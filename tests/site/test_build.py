"""The built site from the outside: pages, API files, links, sitemap, escaping, valid HTML, atomic builds."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import urllib.request
from dataclasses import dataclass
from html.parser import HTMLParser
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlsplit

import jinja2
import pytest
from jinja2 import nodes

import errdex
from errdex import build_site, parallel
from errdex.errors import DataError, InputError
from errdex.harvest.run import harvest
from errdex.records.loader import load_records
from errdex.releases import cut_release
from errdex.site import build as build_module
from errdex.site import pages
from errdex.site.build import build_site as build_pages
from errdex.site.build import site_dir
from tests.site.conftest import HOSTILE_SLUG, PROVED, RECORDS

NODE_TOOLS = Path(__file__).resolve().parent / "node"
BUNDLED = [item.record for item in load_records([RECORDS])]


class _Links(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.links: list[str] = []
        self.ids: set[str] = set()
        self.scripts: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = dict(attrs)
        for name in ("href", "src"):
            if values.get(name):
                self.links.append(values[name] or "")
        if values.get("id"):
            self.ids.add(values["id"] or "")
        if tag == "script":
            self.scripts.append(values.get("src") or "(inline)")


def _parse(path: Path) -> _Links:
    parser = _Links()
    parser.feed(path.read_text(encoding="utf-8"))
    return parser


def _html_files(folder: Path) -> list[Path]:
    return sorted(folder.rglob("*.html"))


def test_a_page_per_record_at_a_stable_url(built_site: Path) -> None:
    for record in BUNDLED:
        owner, repo = record["repo"].split("/")
        page = built_site / "records" / owner / repo / f"{record['slug']}.html"
        assert page.is_file(), record["slug"]
        text = page.read_text(encoding="utf-8")
        assert f'<code class="message">{record["errorMessage"]}' in text.replace("&#39;", "'").replace("&#34;", '"')


def test_api_files(built_site: Path) -> None:
    listing = json.loads((built_site / "api" / "records.json").read_text())
    assert {r["id"] for r in listing["records"]} == {r["id"] for r in BUNDLED}
    for entry in listing["records"]:
        assert (built_site / entry["url"]).is_file()
        stored = json.loads((built_site / entry["json"]).read_text())
        original = next(r for r in BUNDLED if r["id"] == entry["id"])
        assert stored["record"] == original and stored["datasetVersion"]
    patterns = json.loads((built_site / "api" / "patterns.json").read_text())
    assert len(patterns["patterns"]) == len(BUNDLED) and patterns["refused"] == []
    keys = [(-p["literalChars"], p["variableParts"], p["id"]) for p in patterns["patterns"]]
    assert keys == sorted(keys)  # in ranking order, as the CLI ranks


def test_every_internal_link_and_fragment_resolves(built_site: Path) -> None:
    checked = 0
    for page in _html_files(built_site):
        parsed = _parse(page)
        for link in parsed.links:
            parts = urlsplit(link)
            if parts.scheme in ("http", "https", "data", "mailto"):
                continue
            assert not parts.scheme, f"{page}: unexpected link {link}"
            base = built_site if parts.path.startswith("/") else page.parent  # only the 404 page links from the root
            target = (base / unquote(parts.path).lstrip("/")).resolve() if parts.path else page
            if target.is_dir():
                target = target / "index.html"
            assert target.is_file(), f"{page.relative_to(built_site)}: broken link {link}"
            if parts.fragment and target.suffix == ".html":
                assert parts.fragment in _parse(target).ids, (
                    f"{page.relative_to(built_site)}: no #{parts.fragment} in {link}")
            checked += 1
    assert checked > 500


def test_no_request_leaves_the_site(built_site: Path) -> None:
    for page in _html_files(built_site):
        parsed = _parse(page)
        for source in parsed.scripts:
            assert not urlsplit(source).scheme, f"{page}: external script {source}"
        for link in parsed.links:
            if urlsplit(link).scheme in ("http", "https"):
                assert link.startswith("https://github.com/"), f"{page}: {link}"  # links out, never loaded


def test_sitemap_and_404(built_site: Path, tmp_path: Path, site_cache: Path) -> None:
    sitemap = (built_site / "sitemap.xml").read_text()
    locations = re.findall(r"<loc>([^<]+)</loc>", sitemap)
    # records, home, browse, quality, schema, changelog, and a page per repository, tag, class and severity
    facets = ({r["repo"] for r in BUNDLED}, {t for r in BUNDLED for t in r.get("tags", [])},
              {r["errorClass"] for r in BUNDLED}, {r["severity"] for r in BUNDLED})
    assert len(locations) == len(set(locations)) == len(BUNDLED) + 5 + sum(len(f) for f in facets)
    assert (built_site / "404.html").is_file()
    out = tmp_path / "published"
    build_site(out, records=[RECORDS / "paperclipai/paperclip/createos-returned-invalid-json.json"],
               base_url="https://errors.example.org/docs/", search=False)
    record_url = "https://errors.example.org/docs/records/paperclipai/paperclip/createos-returned-invalid-json.html"
    assert f"<loc>{record_url}</loc>" in (out / "sitemap.xml").read_text()
    assert 'href="https://errors.example.org/docs/index.html"' in (out / "404.html").read_text()


def test_proof_status_comes_from_the_proofs(built_site: Path) -> None:
    proved = (built_site / "records/paperclipai/paperclip" / f"{PROVED[0]}.html").read_text()
    assert "proof-passed" in proved and "proof-not-proven" not in proved
    other = (built_site / "records/paperclipai/paperclip/createos-connection-failed.html").read_text()
    assert "proof-not-proven" in other
    quality = (built_site / "quality" / "index.html").read_text()
    assert quality.count('class="proof proof-passed"') == len(PROVED)


def test_hostile_record_is_escaped(hostile_site: Path) -> None:
    page = hostile_site / "records/paperclipai/paperclip" / f"{HOSTILE_SLUG}.html"
    text = page.read_text(encoding="utf-8")
    assert "window.__xss" in text  # the text is shown...
    parsed = _parse(page)
    assert parsed.scripts == ["../../../assets/errdex.js"]  # ...but no script of the record's
    assert not any(link.lower().lstrip().startswith("javascript:") for link in parsed.links)
    for raw in ("<script>window", "<img src=x", "<iframe", "<svg onload", '" onmouseover="', "' onfocus='", "<b>bold"):
        assert raw not in text, raw
    for page in _html_files(hostile_site):  # the record's text also reaches listing pages
        assert "<script>window" not in page.read_text(encoding="utf-8"), page


def _template_fields(template: str) -> set[str]:
    environment = jinja2.Environment(loader=jinja2.FileSystemLoader(site_dir() / "templates"))
    source = environment.loader.get_source(environment, template)[0]  # type: ignore[union-attr]  # the site sets a loader
    tree = environment.parse(source)
    return {node.attr for node in tree.find_all(nodes.Getattr)
            if isinstance(node.node, nodes.Name) and node.node.name == "page"}


@pytest.mark.parametrize(("template", "kind"), [
    ("base.html", pages.Page), ("home.html", pages.HomePage), ("record.html", pages.RecordPage),
    ("browse.html", pages.BrowsePage), ("quality.html", pages.QualityPage), ("schema.html", pages.SchemaPage),
    ("404.html", pages.NotFoundPage), ("changelog.html", pages.ChangelogPage), ("listing.html", pages.ListingPage),
])
def test_templates_use_only_the_fields_of_their_page_kind(template: str, kind: type) -> None:
    used = _template_fields(template) | _template_fields("base.html")
    known = set(kind.__dataclass_fields__)
    assert used <= known, f"{template} reads {sorted(used - known)}, which {kind.__name__} does not have"
    assert used


def test_pages_are_valid_html(built_site: Path, hostile_site: Path) -> None:
    validator = NODE_TOOLS / "node_modules" / ".bin" / "html-validate"
    if not validator.exists():
        reason = "html-validate is not installed: run 'bash .ci/setup'"
        if os.environ.get("CI") == "true":
            pytest.fail(reason)
        pytest.skip(reason)
    files = [str(p) for folder in (built_site, hostile_site) for p in _html_files(folder)]
    done = subprocess.run([str(validator), "--config", str(NODE_TOOLS / ".htmlvalidate.json"), *files],
                          capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stdout + done.stderr


def test_a_failed_build_leaves_the_old_site(built_site: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                            site_cache: Path) -> None:
    out = tmp_path / "site"
    shutil.copytree(built_site, out)
    before = sorted(p.relative_to(out) for p in out.rglob("*"))

    def broken(*args: object) -> None:
        raise DataError("the search index could not be built (simulated)")

    monkeypatch.setattr(build_module, "_index_search", broken)
    with pytest.raises(DataError):
        build_site(out)
    assert sorted(p.relative_to(out) for p in out.rglob("*")) == before
    assert [p.name for p in tmp_path.iterdir()] == ["site"]  # no half-built folder left beside it


def test_bad_input_is_one_clear_line(cli: Any, tmp_path: Path, built_site: Path) -> None:
    not_json = tmp_path / "proofs.json"
    not_json.write_text("{not json")
    result = cli("site", "build", "--out", str(tmp_path / "a"), "--proofs", str(not_json))
    assert result.exit_code == 1 and result.stderr.count("\n") == 1
    assert "proofs.json:1:2: not valid JSON" in result.stderr
    for url in ("javascript:alert(1)", "notaurl"):  # a usage error: exit 2, and nothing written
        result = cli("site", "build", "--out", str(tmp_path / "b"), "--base-url", url)
        assert result.exit_code == 2 and result.stderr.count("\n") == 1 and "expected an http(s) URL" in result.stderr
    assert not (tmp_path / "b").exists()
    other = tmp_path / "notes"
    other.mkdir()
    (other / "keep.txt").write_text("mine")
    result = cli("site", "build", "--out", str(other), "--no-search")
    assert result.exit_code == 1 and "is not a site built by errdex" in result.stderr
    assert (other / "keep.txt").read_text() == "mine"
    with pytest.raises(InputError):
        build_site(tmp_path / "c", proofs=tmp_path / "missing.json")


@pytest.mark.parametrize("text", [
    "[" * 100_000,                                            # deeper than any JSON parser recurses
    '{"records": [{"id": "x", "scenarios": "passed"}]}',      # scenarios not a list
    '{"records": [{"id": "x", "scenarios": [5]}]}',           # a scenario not an object
    '{"records": [{"id": "x", "scenarios": [{"id": "s", "failures": "abc"}]}]}',
    '{"records": [7]}',
    '{"records": [{"id": "x", "scenarios": [{"id": []}]}]}',   # a scenario id that is not a string
])
def test_a_hostile_proofs_file_is_one_clear_line(cli: Any, tmp_path: Path, text: str) -> None:
    proofs = tmp_path / "proofs.json"
    proofs.write_text(text, encoding="utf-8")
    result = cli("site", "build", "--out", str(tmp_path / "site"), "--proofs", str(proofs), "--no-search")
    assert result.exit_code == 1, result.stderr
    assert result.stderr.count("\n") == 1 and "proofs.json" in result.stderr and "internal error" not in result.stderr
    assert not (tmp_path / "site").exists()


def _tree(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def test_building_in_several_processes_gives_the_same_site(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                          site_cache: Path, single_threaded: bool,
                                                          forks: list[int]) -> None:
    if not single_threaded:
        return

    one = tmp_path / "one"
    build_site(one, search=True)
    monkeypatch.setattr(build_module, "MIN_PARALLEL_RECORDS", 5)
    monkeypatch.setattr(parallel, "available_cpus", lambda: 3)
    monkeypatch.setattr(build_module, "CHUNK_RECORDS", 3)  # nine chunks shared by three processes
    several = tmp_path / "several"
    build_site(several, search=True)
    assert len(forks) == 3  # validation, then two pieces of record pages
    assert _tree(several) == _tree(one)


def test_a_failing_child_only_costs_time(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, site_cache: Path,
                                         single_threaded: bool) -> None:
    if not single_threaded:
        return

    one = tmp_path / "one"
    build_site(one, search=False)
    monkeypatch.setattr(build_module, "MIN_PARALLEL_RECORDS", 5)
    monkeypatch.setattr(build_module, "CHUNK_RECORDS", 3)
    original = parallel.start_child
    monkeypatch.setattr(parallel, "start_child", lambda work: original(lambda out: os._exit(3)))
    broken = tmp_path / "broken"
    build_site(broken, search=False)  # children that die at once
    assert _tree(broken) == _tree(one)
    monkeypatch.setattr(parallel, "start_child", original)
    parent, render = os.getpid(), build_module._render_records
    calls = []

    def dies_after_one_chunk(*args: Any) -> list[str]:
        if os.getpid() != parent:
            calls.append(1)
            if len(calls) == 2:  # takes a second chunk, then dies before reporting it
                os._exit(3)
        return render(*args)

    monkeypatch.setattr(build_module, "_render_records", dies_after_one_chunk)
    midway = tmp_path / "midway"
    build_site(midway, search=False)
    assert _tree(midway) == _tree(one)


def test_cli_build_with_proofs_run_now(cli: Any, tmp_path: Path, site_cache: Path) -> None:
    record = RECORDS / "paperclipai/paperclip/a-sandbox-command-is-required.json"
    out = tmp_path / "site"
    result = cli("site", "build", "--records", str(record), "--out", str(out), "--prove")
    assert result.exit_code == 0, result.stderr
    assert "built 14 pages for 1 record in" in result.stderr  # with its repository's, tags', class's, severity's
    page = (out / "records/paperclipai/paperclip/a-sandbox-command-is-required.html").read_text()
    assert "proof-passed" in page and "proof-not-proven" not in page
    assert cli("site", "build", "--prove", "--proofs", "x.json").exit_code == 2


def test_cli_serve_answers_over_http(built_site: Path) -> None:
    command = [str(Path(sys.executable).with_name("errdex")), "site", "serve", "--dir", str(built_site), "--port", "0"]
    server = subprocess.Popen(command, stderr=subprocess.PIPE, text=True)
    try:
        line = server.stderr.readline()  # type: ignore[union-attr]  # opened with a pipe
        url = re.search(r"http://127\.0\.0\.1:\d+/", line)
        assert url, line
        with urllib.request.urlopen(url.group(0) + "index.html", timeout=5) as answer:
            assert answer.status == 200 and b"Paste a log line" in answer.read()
        try:
            urllib.request.urlopen(url.group(0) + "missing/page", timeout=5)
        except urllib.error.HTTPError as error:
            assert error.code == 404 and b"Page not found" in error.read()
        else:
            raise AssertionError("a missing page answered 200")
    finally:
        server.terminate()
        server.wait(timeout=5)


def test_changelog_release_history_and_lifecycle_notice(tmp_path: Path, site_cache: Path) -> None:
    records = tmp_path / "records"
    shutil.copytree(RECORDS, records, ignore=shutil.ignore_patterns(".releases"))
    cut_release(records, version="2026-12-01T00:00:00Z", out=tmp_path / "r1")
    path = records / "paperclipai/paperclip/createos-returned-invalid-json.json"
    envelope = json.loads(path.read_text())
    envelope["record"].update(status="superseded", statusReason="Merged into the response record.",
                              supersededBy="4360e8268e33e618")
    path.write_text(json.dumps(envelope, indent=2) + "\n")
    cut_release(records, version="2026-12-08T00:00:00Z", out=tmp_path / "r2")
    out = tmp_path / "site"
    build_site(out, records=[records], search=False)
    changelog = (out / "changelog/index.html").read_text()
    assert changelog.index("2026-12-08T00:00:00Z") < changelog.index("2026-12-01T00:00:00Z")
    assert "status, statusReason, supersededBy" in changelog and "<h3>Superseded</h3>" in changelog
    page = (out / "records/paperclipai/paperclip/createos-returned-invalid-json.html").read_text()
    assert "This record is superseded: Merged into the response record." in page
    assert 'See <a href="../../../records/paperclipai/paperclip/createos-returned-an-invalid-response.html">' in page
    assert "added in 2026-12-01T00:00:00Z, content last changed in 2026-12-08T00:00:00Z" in page
    other = (out / "records/paperclipai/paperclip/createos-connection-failed.html").read_text()
    assert "added in 2026-12-01T00:00:00Z (" in other
    # the browser matcher skips the superseded record, as errdex match does
    patterns = json.loads((out / "api/patterns.json").read_text())
    assert patterns["retired"] == [envelope["record"]["id"]]
    assert envelope["record"]["id"] not in {p["id"] for p in patterns["patterns"]}

    found = errdex.load([records]).match("CreateOS returned invalid JSON.")
    assert envelope["record"]["id"] not in {m.view["id"] for m in found}


def test_patterns_that_backtrack_badly_are_left_out_of_the_browser_matcher(tmp_path: Path, site_cache: Path) -> None:
    records = tmp_path / "records"
    shutil.copytree(RECORDS, records, ignore=shutil.ignore_patterns(".releases"))
    path = records / "paperclipai/paperclip/createos-returned-invalid-json.json"
    envelope = json.loads(path.read_text())
    envelope["record"]["messagePattern"] = "CreateOS returned (a|aa)+ invalid JSON\\."  # exponential in a backtracker
    path.write_text(json.dumps(envelope, indent=2) + "\n")
    out = tmp_path / "site"
    build_site(out, records=[records], search=False)
    patterns = json.loads((out / "api/patterns.json").read_text())
    assert patterns["refused"] == [envelope["record"]["id"]]
    assert envelope["record"]["id"] not in {p["id"] for p in patterns["patterns"]}
    page = (out / "records/paperclipai/paperclip/createos-returned-invalid-json.html").read_text()
    assert "(not used by the in-browser matcher)" in page
    assert "EDX123" in page  # validation's finding is shown on the page too


def _record_in(folder: Path, repo: str, record_id: str) -> dict[str, Any]:
    envelope = json.loads((RECORDS / "paperclipai/paperclip/createos-returned-invalid-json.json").read_text())
    envelope["record"].update(repo=repo, id=record_id, documentation=f"The record of {repo}.")
    target = folder / repo / "createos-returned-invalid-json.json"
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(json.dumps(envelope, indent=2) + "\n")
    return envelope["record"]


def test_every_record_gets_a_page_of_its_own(tmp_path: Path, site_cache: Path) -> None:
    records = tmp_path / "records"
    repos = ("evil/repo", "evil/-repo", "evil/repo-")
    made = [_record_in(records, repo, f"00000000000000a{n}") for n, repo in enumerate(repos)]
    out = tmp_path / "site"
    build_site(out, records=[records], search=False)
    listing = json.loads((out / "api/records.json").read_text())["records"]
    assert len({entry["url"] for entry in listing}) == len(made)
    for entry in listing:
        record = next(r for r in made if r["id"] == entry["id"])
        assert f"The record of {record['repo']}." in (out / entry["url"]).read_text()


def test_records_that_would_share_a_page_are_refused(tmp_path: Path, site_cache: Path, cli: Any) -> None:
    records = tmp_path / "records"
    _record_in(records, "Evil/Repo", "00000000000000a1")
    _record_in(records, "evil/repo", "00000000000000a2")
    result = cli("site", "build", "--records", str(records), "--out", str(tmp_path / "site"), "--no-search")
    assert result.exit_code == 1 and result.stderr.count("\n") == 1, result.stderr
    assert "would share the page records/evil/repo/createos-returned-invalid-json.html" in result.stderr
    assert [p.name for p in tmp_path.iterdir()] == ["records"]


def test_a_proofs_file_that_is_a_fifo_a_device_or_too_deep_is_refused_at_once(cli: Any, tmp_path: Path) -> None:
    fifo = tmp_path / "fifo.json"
    os.mkfifo(fifo)
    deep = tmp_path / "deep.json"
    deep.write_text("[" * 100_000 + "]" * 100_000)
    broken = tmp_path / "bytes.json"
    broken.write_bytes(b"\xff{}")
    for proofs, expected in ((fifo, "not a regular file"), ("/dev/zero", "not a regular file"),
                             (deep, "1:65: arrays and objects nest more than 64"),
                             (broken, "1:1: byte 0xff is not valid UTF-8")):
        # a FIFO waited forever, /dev/zero was read until memory ran out, deep nesting was an internal error
        result = cli("site", "build", "--out", str(tmp_path / "site"), "--proofs", str(proofs))
        assert result.exit_code == 1 and result.stderr.count("\n") == 1, result.stderr
        assert (f"{proofs}: {expected}" in result.stderr or f"{proofs}:{expected}" in result.stderr) \
            and "codec" not in result.stderr
    assert not (tmp_path / "site").exists()
def test_a_site_is_not_built_inside_its_records_folder(cli: Any, tmp_path: Path, site_cache: Path) -> None:
    """Its api/records/*.json are envelopes: inside the records folder, the next build and validate read them as
    records (and failed on every one of them)."""
    records = tmp_path / "records"
    shutil.copytree(RECORDS, records, ignore=shutil.ignore_patterns(".releases"))
    for out in (records / "site", records / "paperclipai" / "site"):
        result = cli("site", "build", "--records", str(records), "--out", str(out), "--no-search")
        assert result.exit_code == 2 and result.stderr.count("\n") == 1, result.stderr
        assert f"is inside the records folder {records}" in result.stderr and not out.exists()
    assert cli("validate", str(records)).exit_code == 0


def test_the_site_shows_the_findings_it_is_given_and_none_without(tmp_path: Path, site_cache: Path) -> None:
    """The site imports no checks: the findings come in as an argument (errdex.build_site joins validation in)."""
    @dataclass(frozen=True)
    class Found:
        code: str
        name: str
        severity: str
        message: str
        pointer: str
        record_id: str | None

    source = RECORDS / "paperclipai/paperclip/createos-returned-invalid-json.json"
    record_id = json.loads(source.read_text())["record"]["id"]
    page = "records/paperclipai/paperclip/createos-returned-invalid-json.html"
    given = [Found("EDX999", "made-up", "warning", "a finding made for this test", "/record/slug", record_id),
             Found("EDX998", "nowhere", "error", "a finding of no record", "", None)]
    build_pages(tmp_path / "with", records=[source], search=False, findings=lambda: given)
    shown = (tmp_path / "with" / page).read_text()
    assert "EDX999" in shown and "a finding made for this test" in shown and "EDX998" not in shown
    build_pages(tmp_path / "without", records=[source], search=False)
    assert "EDX999" not in (tmp_path / "without" / page).read_text()
    assert "EDX" not in (tmp_path / "without" / "quality/index.html").read_text()


def test_a_source_link_names_its_file_percent_encoded_and_a_path_out_of_the_repository_has_none(
        tmp_path: Path, site_cache: Path) -> None:
    code = 'def f():\n    raise ValueError("MESSAGE")\n'
    folder = tmp_path / "app"
    folder.mkdir()
    (folder / "pct%20and#hash?.py").write_text(code.replace("MESSAGE", "an encoded name failed"))
    (folder / "plain.py").write_text(code.replace("MESSAGE", "a climbing path failed"))
    bundle = tmp_path / "drafts.jsonl"
    harvest(folder, repo="acme/app", sha="c" * 40, bundle=bundle)
    lines = [json.loads(line) for line in bundle.read_text(encoding="utf-8").splitlines()]
    climbing = next(envelope for envelope in lines if envelope["record"]["filePath"] == "plain.py")
    climbing["record"].update(filePath="../plain.py", githubUrl=f"https://github.com/acme/app/blob/{'c' * 40}/"
                                                                 "../plain.py#L1-L2")
    bundle.write_text("".join(json.dumps(envelope) + "\n" for envelope in lines), encoding="utf-8")
    out = tmp_path / "site"
    build_site(out, records=[bundle], search=False)
    pages_ = {page.name: page.read_text(encoding="utf-8") for page in (out / "records/acme/app").glob("*.html")}
    encoded = pages_["an-encoded-name-failed.html"]
    assert f'href="https://github.com/acme/app/blob/{"c" * 40}/pct%2520and%23hash%3F.py#L1-L2"' in encoded
    assert "github.com" not in pages_["a-climbing-path-failed.html"].split("<code>../plain.py</code>", 1)[1] \
        .split("</p>", 1)[0]
