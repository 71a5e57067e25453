"""The site's listing pages: home, browse, quality, schema, changelog and 404 (the record pages are in build)."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from typing import Any, Protocol

from errdex.records.vocabulary import SEVERITIES, is_draft
from errdex.releases import ReleaseChanges
from errdex.site import pages as p
from errdex.site.browse import write_browse_pages
from errdex.site.paging import repo_base, severity_base
from errdex.site.records import RecordFacts
from errdex.site.urls import page_root, record_path

__all__ = ["RECENT", "PageWriter", "write_changelog", "write_listing_pages", "write_quality_page"]

#: Records the home page lists as recently changed.
RECENT = 10


class PageWriter(Protocol):
    """Where a page goes: its template rendered with its context, at the page's path."""

    def page(self, template: str, page: p.Page) -> None: ...


def write_changelog(writer: PageWriter, facts: RecordFacts, info: p.SiteInfo, changes: list[ReleaseChanges]) -> None:
    """The changelog page: every release, newest first, with links to the records it touched."""
    path = "changelog/index.html"
    root = page_root(path)

    def links(entries: Sequence[tuple[Any, ...]], with_fields: bool = False) -> tuple[p.Link, ...]:
        out = []
        for entry in entries:
            record = facts.by_id.get(entry[0])
            url = root + record_path(record) if record else root + "index.html"
            title = record["errorMessage"] if record else entry[1]
            out.append(p.Link(title, url, ", ".join(entry[2]) if with_fields else ""))
        return tuple(out)

    releases = tuple(p.ReleaseView(
        c.version, "release-" + re.sub(r"[^0-9a-z]+", "-", c.version.lower()).strip("-"),
        f"{p.plural(c.counts.get('records', 0), 'record')}: {len(c.added)} added, {len(c.changed)} changed, "
        f"{len(c.withdrawn)} withdrawn, {len(c.superseded)} superseded",
        links(c.added), links(c.changed, with_fields=True), links(c.withdrawn), links(c.superseded),
    ) for c in changes)
    writer.page("changelog.html", p.ChangelogPage(
        site=info, path=path, root=root, title="Changelog", kind="changelog",
        description="Every release of the dataset: what was added, changed, withdrawn and superseded.",
        releases=releases))


def write_quality_page(writer: PageWriter, facts: RecordFacts, info: p.SiteInfo) -> None:
    """The quality report: every record's findings and proof status (the one listing that shows findings)."""
    path = "quality/index.html"
    writer.page("quality.html", p.QualityPage(
        site=info, path=path, root=page_root(path), title="Quality report",
        description="Every record's validation findings and the proof status of its trigger scenarios.",
        kind="quality",
        rows=facts.quality_rows("../"),
        errors=sum(1 for views in facts.findings.values() for f in views if f.severity == "error"),
        warnings=sum(1 for views in facts.findings.values() for f in views if f.severity == "warning"),
        proofs_known=facts.proofs is not None,
    ))


def write_listing_pages(writer: PageWriter, facts: RecordFacts, info: p.SiteInfo, reference: Any,
                          base_url: str | None) -> None:
    """The home, browse (and each repository's, tag's, class's and severity's), schema and 404 pages: none shows
    a finding (the quality page: :func:`write_quality_page`)."""
    def base(path: str, title: str, description: str, kind: str) -> dict[str, Any]:
        return {"site": info, "path": path, "root": page_root(path), "title": title, "description": description,
                "kind": kind}

    documented = [r for r in facts.records if not is_draft(r)]  # drafts are listed apart, on the browse page
    by_severity = Counter(r["severity"] for r in documented)
    repositories = Counter(r["repo"] for r in documented)
    recent = sorted(documented, key=lambda r: (r.get("contentChangedAt", ""), r["id"]), reverse=True)[:RECENT]
    writer.page("home.html", p.HomePage(
        **base("index.html", "errdex", "Error records that explain log lines: what each error means and how to fix it.",
               "home"),
        severities=tuple(p.SeverityCount(s, by_severity[s], severity_base(s) + "index.html")
                         for s in SEVERITIES if by_severity[s]),
        repositories=tuple(p.Link(repo, repo_base(repo) + "index.html", p.plural(count, "record"))
                           for repo, count in sorted(repositories.items())),
        recent=tuple(p.Link(r["errorMessage"], record_path(r), r["errorClass"]) for r in recent),
        proven=facts.proven_scenarios(),
        proofs_known=facts.proofs is not None,
    ))
    write_browse_pages(writer, facts, info)
    writer.page("schema.html", p.SchemaPage(
        **base("schema/index.html", "Record format", "Every field of the record format, its type and versions.",
               "schema"),
        documents=tuple(p.Link(d.title, f"#doc-{d.name}-v{d.version}", f"{d.file} ({d.schema_id})")
                        for d in reference.documents),
        fields=tuple(reference.fields),
        envelope_fields=tuple(reference.envelope_fields),
    ))
    not_found = base("404.html", "Page not found", "No page at this address.", "notfound")
    # A host serves this page at any depth, where relative links would point elsewhere: link from the
    # published address when it is known, else from the host's root.
    not_found["root"] = base_url.rstrip("/") + "/" if base_url else "/"
    writer.page("404.html", p.NotFoundPage(**not_found))
