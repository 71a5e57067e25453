"""The browse pages: every record on one filterable, paginated list, and a page per repository, tag, class and
severity, each cut into pages of :data:`~errdex.site.paging.PAGE_SIZE` so none grows with the dataset.

The filters (severity, class, repository, status, draft, words of the message) are a script
(``assets/browse.js``) over ``api/browse.json``, one short row per record; without the script the
pages and their page links still list every record.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from typing import Any, Protocol

from errdex.records.vocabulary import DEFAULT_STATUS, SEVERITIES, STATUSES, is_draft, status_of
from errdex.site import pages as p
from errdex.site.paging import (
    PAGE_SIZE,
    class_base,
    file_anchor,
    page_count,
    page_file,
    repo_base,
    repo_order,
    severity_base,
    tag_base,
)
from errdex.site.records import RecordFacts
from errdex.site.urls import page_root, record_path

__all__ = ["PageWriter", "browse_json", "record_entry", "write_browse_pages"]


class PageWriter(Protocol):
    def page(self, template: str, page: p.Page) -> None: ...


def _status(record: dict[str, Any]) -> str:
    return status_of(record) or DEFAULT_STATUS


def record_entry(record: dict[str, Any], root: str, group: str = "", group_anchor: str = "") -> p.RecordEntry:
    """A record as a list shows it, linked from a page ``root`` away from the site root."""
    return p.RecordEntry(record["errorMessage"], root + record_path(record), record["severity"],
                         record["errorClass"], record["repo"], is_draft(record), _status(record), group, group_anchor)


class _Entries:
    """:func:`record_entry` for one build's listings: each record's path, draft and status found once, not once
    a list (a record is on five or more)."""

    def __init__(self) -> None:
        self._known: dict[str, tuple[str, bool, str]] = {}

    def __call__(self, record: dict[str, Any], root: str, group: str = "", group_anchor: str = "") -> p.RecordEntry:
        known = self._known.get(record["id"])
        if known is None:
            known = self._known[record["id"]] = (record_path(record), is_draft(record), _status(record))
        return p.RecordEntry(record["errorMessage"], root + known[0], record["severity"], record["errorClass"],
                             record["repo"], known[1], known[2], group, group_anchor)


def _pager(base: str, number: int, total: int) -> p.Pager:
    """The page links of a listing in folder ``base``, relative to a page in the same folder."""
    folder = len(base)
    pages = tuple(p.Link(str(n), page_file(base, n)[folder:]) for n in range(1, page_count(total) + 1))
    first = (number - 1) * PAGE_SIZE + 1
    return p.Pager(number, pages, first, min(first + PAGE_SIZE - 1, total), total)


def _info(info: p.SiteInfo, path: str, title: str, description: str, kind: str) -> dict[str, Any]:
    return {"site": info, "path": path, "root": page_root(path), "title": title, "description": description,
            "kind": kind}


def _facets(counts: Counter[str], base: Callable[[str], str],
            order: Sequence[str] | None = None) -> tuple[p.Facet, ...]:
    names = [n for n in order if counts[n]] if order is not None else sorted(counts)
    return tuple(p.Facet(name, "../" + base(name) + "index.html", counts[name]) for name in names)


def write_browse_pages(writer: PageWriter, facts: RecordFacts, info: p.SiteInfo) -> None:
    """The browse pages and every repository's, tag's, class's and severity's pages."""
    documented = [r for r in facts.records if not is_draft(r)]
    drafts = [r for r in facts.records if is_draft(r)]
    everything = documented + drafts
    entry = _Entries()
    # The filters are the same on every page: counted once, not once a page (which grew with the square of the
    # records).
    repositories = _facets(Counter(r["repo"] for r in facts.records), repo_base)
    tags = _facets(Counter(t for r in documented for t in r.get("tags", [])), tag_base)
    classes = _facets(Counter(r["errorClass"] for r in documented), class_base)
    severities = _facets(Counter(r["severity"] for r in documented), severity_base, SEVERITIES)
    present = {_status(r) for r in facts.records}
    statuses = tuple(s for s in STATUSES if s in present)
    for number in range(1, page_count(len(everything)) + 1):
        path = page_file("browse/", number)
        start = (number - 1) * PAGE_SIZE
        shown = everything[start : start + PAGE_SIZE]
        first_draft = len(documented) - start
        writer.page("browse.html", p.BrowsePage(
            **_info(info, path, "Browse records" + (f", page {number}" if number > 1 else ""),
                    "Every record, filterable by severity, class, repository, status and draft.", "browse"),
            entries=tuple(entry(r, page_root(path)) for r in shown),
            pager=_pager("browse/", number, len(everything)),
            drafts_from=first_draft if 0 <= first_draft < len(shown) else -1,
            repositories=repositories, tags=tags, classes=classes, severities=severities, statuses=statuses,
        ))
    by_repo: dict[str, list[dict[str, Any]]] = {}
    for record in facts.records:
        by_repo.setdefault(record["repo"], []).append(record)
    for repo, records in sorted(by_repo.items()):
        _write_facet(writer, info, entry, repo_base(repo), f"Records of {repo}", "repository", repo_order(records),
                     grouped=True)
    for tag, records in sorted(facts.by_tag.items()):
        _write_facet(writer, info, entry, tag_base(tag), f"Records tagged {tag}", "tag", records)
    for name, records in sorted(facts.by_class.items()):
        _write_facet(writer, info, entry, class_base(name), f"Records of class {name}", "class", records)
    for severity in SEVERITIES:
        records = [r for r in documented if r["severity"] == severity]
        if records:
            _write_facet(writer, info, entry, severity_base(severity), f"Records of severity {severity}", "severity",
                         records)


def _write_facet(writer: PageWriter, info: p.SiteInfo, entry: _Entries, base: str, heading: str, what: str,
                 records: list[dict[str, Any]], grouped: bool = False) -> None:
    """The pages of one repository's (grouped by file), tag's, class's or severity's records."""
    for number in range(1, page_count(len(records)) + 1):
        path = page_file(base, number)
        root = page_root(path)
        start = (number - 1) * PAGE_SIZE
        entries = []
        for position in range(start, min(start + PAGE_SIZE, len(records))):
            record = records[position]
            file = record.get("filePath", "") if grouped else ""
            heading_here = grouped and (position == start or file != records[position - 1].get("filePath", ""))
            first_of_file = position == 0 or file != records[position - 1].get("filePath", "")
            entries.append(entry(record, root, file if heading_here else "",
                                        file_anchor(record["repo"], file) if heading_here and first_of_file else ""))
        writer.page("listing.html", p.ListingPage(
            **_info(info, path, heading + (f", page {number}" if number > 1 else ""),
                    f"{p.plural(len(records), 'record')}: {heading[0].lower()}{heading[1:]}.", what),
            heading=heading, entries=tuple(entries),
            pager=_pager(base, number, len(records)), up=p.Link("All records", root + "browse/index.html"),
        ))


def browse_json(facts: RecordFacts) -> dict[str, Any]:
    """What the browse page's filters read: one short row per record, its fields as numbers into shared lists.

    A row is ``[message, page, severity, class, repository, status, draft]``; a record's page is
    ``records/`` + ``repositoryPaths[repository]`` + ``/`` + ``page`` + ``.html``."""
    documented = [r for r in facts.records if not is_draft(r)]
    ordered = documented + [r for r in facts.records if is_draft(r)]
    lists: dict[str, list[str]] = {"severities": [], "classes": [], "repositories": [], "statuses": []}
    numbers: dict[str, dict[str, int]] = {name: {} for name in lists}
    repository_paths: list[str] = []

    def number(kind: str, value: str) -> int:
        known = numbers[kind]
        if value not in known:
            known[value] = len(lists[kind])
            lists[kind].append(value)
        return known[value]

    rows = []
    for r in ordered:
        folder, _, page = record_path(r).removeprefix("records/").removesuffix(".html").rpartition("/")
        repo = number("repositories", r["repo"])
        if repo == len(repository_paths):
            repository_paths.append(folder)
        rows.append([r["errorMessage"], page, number("severities", r["severity"]), number("classes", r["errorClass"]),
                     repo, number("statuses", _status(r)), int(is_draft(r))])
    return {"pageSize": PAGE_SIZE, **lists, "repositoryPaths": repository_paths, "records": rows}
