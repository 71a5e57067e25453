"""``errdex site build``: records -> a static folder of pages, API files, a sitemap and a search index.

The folder is built beside its destination and renamed into place at the
end, so a failed build never leaves half a site. It works from any
sub-path (every link is relative), and makes no request outside itself.
"""

from __future__ import annotations

import json
import os
import pickle
import time
from collections import defaultdict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Protocol
from xml.sax.saxutils import escape as xml_escape

import jinja2

from errdex import parallel
from errdex._version import __version__
from errdex.cache import usable_cache
from errdex.errors import UsageError, from_oserror
from errdex.records.loader import load_record_store
from errdex.records.text import first_sentence
from errdex.releases import (
    ReleaseChanges,
    history_folder,
    record_releases,
    release_changes,
)
from errdex.site import folder as folders
from errdex.site import pages as p
from errdex.site.browse import browse_json
from errdex.site.incremental import MANIFEST, Outputs, SiteWriter, has_previous, template_salt
from errdex.site.inputs import load_proofs, make_parent, out_folder, unique_files
from errdex.site.listings import write_changelog, write_listing_pages, write_quality_page
from errdex.site.records import RecordFacts, record_page
from errdex.site.schemaref import schema_reference
from errdex.site.search import TermsCache, build_search_index
from errdex.site.urls import record_json_path, record_path, safe_url

__all__ = ["Findings", "SiteFinding", "SiteReport", "build_site", "site_dir"]


class SiteFinding(Protocol):
    """What the quality and record pages show of a validation finding (``errdex.checks``' findings are such)."""

    @property
    def code(self) -> str: ...
    @property
    def name(self) -> str: ...
    @property
    def severity(self) -> str: ...
    @property
    def message(self) -> str: ...
    @property
    def pointer(self) -> str: ...
    @property
    def record_id(self) -> str | None: ...


#: Computes the findings of the records being built (called once, perhaps in a forked child).
Findings = Callable[[], Iterable[SiteFinding]]


@dataclass(frozen=True)
class SiteReport:
    """What a build wrote."""

    out: Path
    pages: int
    records: int
    seconds: float
    search_seconds: float


def site_dir() -> Path:
    """The templates and assets (the project's ``site/`` folder, shipped inside the package)."""
    return Path(__file__).resolve().parent.parent / "_site"


def _environment() -> jinja2.Environment:
    environment = jinja2.Environment(
        loader=jinja2.FileSystemLoader(site_dir() / "templates"),
        autoescape=True,
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    environment.filters["plural"] = p.plural  # {{ count | plural("record") }}: "1 record", "2 records"
    return environment


#: The search index's per-record entries from the last build, in the cache folder (see errdex.site.search).
SEARCH_CACHE_FILE = "site-search-terms.marshal"


def _json(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, indent=2, sort_keys=False) + "\n"


def _sitemap(paths: list[str], base_url: str | None) -> str:
    base = (base_url.rstrip("/") + "/") if base_url else "/"
    entries = "".join(
        f"  <url><loc>{xml_escape(base + path.removesuffix('index.html'))}</loc></url>\n"
        for path in sorted(paths) if path != "404.html"
    )
    return f'<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n{entries}</urlset>\n'


def _index_search(facts: RecordFacts) -> dict[str, str]:
    """The full-text search index of the record pages, in ``search/`` (see :mod:`errdex.site.search`)."""
    folder = usable_cache()
    cache = TermsCache(folder / SEARCH_CACHE_FILE if folder is not None else None)
    files = build_search_index(facts.records, lambda r: record_path(r),
                               lambda r: first_sentence(r.get("documentation", "")), cache)
    cache.save()
    return {f"search/{name}": text for name, text in files.items()}


def _data_files(facts: RecordFacts, info: p.SiteInfo, search: bool) -> tuple[dict[str, str], float]:
    """The files that show no finding (search index, API files), made while validation runs; and the search
    index's time."""
    facts.judge_patterns()
    files: dict[str, str] = {}
    started = time.perf_counter()
    if search:
        files.update(_index_search(facts))
    search_seconds = time.perf_counter() - started
    files["api/records.json"] = _json({"datasetVersion": info.dataset_version, "records": [
        {"id": r["id"], "slug": r["slug"], "repo": r["repo"], "errorClass": r["errorClass"],
         "severity": r["severity"], "url": record_path(r), "json": record_json_path(r)}
        for r in facts.records]})
    files["api/browse.json"] = json.dumps(browse_json(facts), ensure_ascii=False, separators=(",", ":")) + "\n"
    browser_patterns = _json(facts.browser_patterns())
    files["api/patterns.json"] = browser_patterns
    # The same as a script, for a page opened from a file (where fetch is refused but scripts load).
    files["api/patterns.js"] = "self.errdexPatterns = " + browser_patterns.rstrip("\n") + ";\n"
    return files, search_seconds


def build_site(
    out: str | Path = "build/site",
    *,
    records: Sequence[str | Path] | None = None,
    base_url: str | None = None,
    proofs: Path | dict[str, Any] | None = None,
    search: bool = True,
    on_wait: Callable[[], None] | None = None,
    findings: Findings | None = None,
) -> SiteReport:
    """Build the site for the records (default: the bundled dataset) into ``out``.

    ``proofs``: the output of ``errdex prove --format json`` (a path or the
    parsed object), shown as each scenario's status; without it scenarios
    say "not proven in this build". ``base_url`` makes the sitemap's and the
    404 page's links absolute. ``search=False`` skips the search index.
    ``findings``: computes the records' validation findings, shown on the
    quality and record pages (without it, the pages show none); the CLI and
    :func:`errdex.build_site` pass ``errdex.checks``' validation.

    ``out`` must be missing, empty or a site errdex built (see
    :mod:`errdex.site.folder`); while another build writes beside it, this
    one waits (``on_wait()`` is called when it starts waiting).
    """
    started = time.perf_counter()
    if base_url is not None and safe_url(base_url) is None:
        raise UsageError(f"--base-url {base_url!r}: expected an http(s) URL")
    given = Path(out)
    out = out_folder(given, records)
    proof_index = load_proofs(proofs)
    loaded = load_record_store(records).loaded()
    unique_files(loaded)
    found, validated = _validation(findings, len(loaded))  # in a child while this process gets on
    facts = RecordFacts.of(loaded, {}, proof_index)
    history = history_folder(records)
    facts.releases = record_releases(history) if history else {}
    changes = release_changes(history) if history else []
    info = facts.site_info(__version__)
    data_files, search_seconds = _data_files(facts, info, search)  # meanwhile, validation runs
    # Then, the record pages' contexts (findings are filled in later); not over a site built from the
    # same templates, where most pages are carried over without one.
    for record in () if has_previous(out, template_salt(site_dir())) else facts.records:
        if validated():
            break
        facts.contexts[record["id"]] = record_page(record, facts, info)
    make_parent(out)
    with folders.build_lock(out, on_wait=on_wait):
        folders.remove_leftovers(out)
        folders.check_out(out)  # again: another build may have written it meanwhile
        folder = folders.new_build_folder(out)
        writer, old = _write_site(folder, out, facts, found, info, changes, base_url, data_files)
    if old is not None:  # out of the lock: a removal in the background must not hold it
        _remove_old(old, background=len(facts.records) >= MIN_PARALLEL_RECORDS)
    return SiteReport(given, len(writer.pages), len(facts.records), time.perf_counter() - started, search_seconds)


def _write_site(folder: Path, out: Path, facts: RecordFacts, findings: Callable[[], dict[str, list[p.FindingView]]],
                info: p.SiteInfo, changes: list[ReleaseChanges], base_url: str | None,
                data_files: dict[str, str]) -> tuple[SiteWriter, Path | None]:
    """Write the whole site into ``folder`` (``data_files``: made already), then put it in ``out``'s place;
    the writer and the old site, moved aside for the caller to remove."""
    try:
        outputs = Outputs(folder, out if os.path.isdir(out) else None, template_salt(site_dir()))
        writer = SiteWriter(folder, _environment(), outputs)
        _copy_assets(writer)

        def without_findings() -> None:  # what shows no finding
            for path, text in data_files.items():
                writer.write(path, text)
            write_listing_pages(writer, facts, info, schema_reference(), base_url)
            write_changelog(writer, facts, info, changes)

        # Over a previous site most record pages are carried over, which is quick: the rest is written first,
        # while validation may still run. Into an empty folder the children start rendering record pages first.
        early = outputs.incremental
        if early:
            without_findings()
        facts.findings = findings()
        record_pages = _RecordPages(writer, facts, info)
        record_pages.start()
        try:
            if not early:
                without_findings()
            write_quality_page(writer, facts, info)
            record_pages.finish()
        finally:
            record_pages.stop()
        writer.write("sitemap.xml", _sitemap(writer.pages, base_url))
        writer.write(MANIFEST, outputs.manifest())
        folders.write_manifest(folder)
        old = folders.replace_folder(folder, out, remove_old=False)
    except OSError as exc:  # a full disk, a read-only folder: one line naming --out, nothing left behind
        folders.remove_tree(folder)
        raise from_oserror(exc, out, action="write the site") from exc
    except BaseException:
        folders.remove_tree(folder)
        raise
    return writer, old


def _remove_old(old: Path, *, background: bool) -> None:
    """Remove the replaced site; for a large one, in a detached grandchild (thousands of folders take a
    second or two to remove, which the build need not wait for; if it dies, the next build removes the rest)."""
    if not background or not parallel.can_fork():
        folders.remove_tree(old)
        return
    try:
        pid = os.fork()
    except OSError:
        folders.remove_tree(old)
        return
    if pid == 0:  # the child forks the remover and exits at once, so that no zombie is left
        try:
            if os.fork() == 0:
                os.setsid()
                null = os.open(os.devnull, os.O_RDWR)
                for fd in (0, 1, 2):  # a caller reading this process's output must not wait for the removal
                    os.dup2(null, fd)
                folders.remove_tree(old)
        finally:
            os._exit(0)
    os.waitpid(pid, 0)


def _copy_assets(writer: SiteWriter) -> None:
    """The site's static files, one by one (carried over from the previous build when unchanged)."""
    for source in sorted(site_dir().joinpath("assets").iterdir()):
        writer.write(f"assets/{source.name}", source.read_bytes())


#: Below this many records, everything runs in this process (a fork costs more than it saves).
MIN_PARALLEL_RECORDS = 400


def _by_record(findings: Findings | None) -> dict[str, list[p.FindingView]]:
    """The findings as the pages show them, by record id (none without ``findings``)."""
    views: dict[str, list[p.FindingView]] = defaultdict(list)
    for finding in findings() if findings is not None else ():
        if finding.record_id:
            views[finding.record_id].append(
                p.FindingView(finding.code, finding.name, finding.severity, finding.message, finding.pointer))
    return dict(views)


def _validation(findings: Findings | None,
                count: int) -> tuple[Callable[[], dict[str, list[p.FindingView]]], Callable[[], bool]]:
    """Every record's validation findings when asked for, and whether they are ready without waiting;
    computed in a forked child for many records."""
    if findings is None or count < MIN_PARALLEL_RECORDS or not parallel.can_fork():
        found = _by_record(findings)
        return (lambda: found), (lambda: True)
    child = parallel.start_child(lambda out: pickle.dump(_by_record(findings), out))

    def wait() -> dict[str, list[p.FindingView]]:
        try:
            chunks = parallel.child_items(child)
            return next(chunks) if chunks is not None else _by_record(findings)
        finally:
            parallel.stop_child(child)
    return wait, lambda: parallel.finished(child)


def _render_records(writer: SiteWriter, facts: RecordFacts, info: p.SiteInfo,
                    records: list[dict[str, Any]]) -> list[str]:
    """Each record's page and JSON; the page paths written."""
    start = len(writer.pages)
    for record in records:
        key = writer.outputs.record_key(record, facts, info)
        if not writer.carry_page(record_path(record), key):
            early = facts.contexts.get(record["id"])
            writer.page("record.html", record_page(record, facts, info) if early is None else replace(
                early, findings=tuple(facts.findings.get(record["id"], [])),
                browser_matchable=facts.matchable.get(record["id"], False)), key)
        envelope = {"record": record, "datasetVersion": facts.versions.get(record["id"])}
        writer.write(record_json_path(record), json.dumps(envelope, ensure_ascii=False) + "\n")
    return writer.pages[start:]


#: Records per task when the record pages are shared out between processes.
CHUNK_RECORDS = 50


class _RecordPages:
    """Every record's page and JSON; with many records, forked children and this process share them out.

    The records are cut into chunks taken from a shared queue by whoever is
    free: the children start at once, this process joins once it has
    written the search index and the listing pages. A child reports each
    chunk when it is done; chunks a failed child did not report are rendered
    here, so a dying child costs only time.
    """

    def __init__(self, writer: SiteWriter, facts: RecordFacts, info: p.SiteInfo) -> None:
        self.writer, self.facts, self.info = writer, facts, info
        self.children: list[Any] = []
        records = facts.records
        self.chunks = [records[i : i + CHUNK_RECORDS] for i in range(0, len(records), CHUNK_RECORDS)]
        self.queue: Any = None

    def start(self) -> None:
        """Fork the children (none for small sites)."""
        jobs = min(parallel.available_cpus(), max(1, len(self.facts.records) // MIN_PARALLEL_RECORDS))
        if jobs < 2 or not parallel.can_fork():
            return
        self.queue = parallel.WorkQueue(len(self.chunks))
        writer, facts, info, queue, chunks = self.writer, self.facts, self.info, self.queue, self.chunks

        def work(out: Any) -> None:
            child_writer = SiteWriter(writer.folder, writer.environment, writer.outputs)
            writer.outputs.keys = {}  # this child's copy: it reports only the keys of what it renders
            while (index := queue.next()) is not None:
                paths = _render_records(child_writer, facts, info, chunks[index])
                pickle.dump((index, paths, writer.outputs.keys), out)
                writer.outputs.keys = {}
                out.flush()

        for _ in range(jobs - 1):
            self.children.append(parallel.start_child(work))

    def finish(self) -> None:
        """Render the chunks left in the queue (or all of them), then collect what the children rendered."""
        try:
            if self.queue is None:
                _render_records(self.writer, self.facts, self.info, self.facts.records)
                return
            done = set()
            while (index := self.queue.next()) is not None:
                _render_records(self.writer, self.facts, self.info, self.chunks[index])
                done.add(index)
            for child in self.children:
                for index, paths, keys in parallel.partial_items(child):
                    self.writer.pages.extend(paths)
                    self.writer.outputs.merge(keys)
                    done.add(index)
            for index in sorted(set(range(len(self.chunks))) - done):  # taken by a child that died
                _render_records(self.writer, self.facts, self.info, self.chunks[index])
        finally:
            self.stop()

    def stop(self) -> None:
        if self.queue is not None:
            self.queue.close()
        for child in self.children:
            parallel.stop_child(child)
