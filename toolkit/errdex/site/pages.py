"""One typed context per page kind: everything a template may use, and nothing else.

Templates see one object, ``page``; a test checks that every ``page.NAME``
a template reads is a field of that page kind's class, and the templates
render with ``StrictUndefined``, so a misspelt name fails the build instead
of printing nothing. Record text stays plain ``str`` (jinja2 escapes it);
only HTML that errdex made itself (highlighted code) is ``Markup``.
"""

from __future__ import annotations

from dataclasses import dataclass

from markupsafe import Markup

__all__ = [
    "BrowsePage",
    "ChangelogPage",
    "CodeBlock",
    "Facet",
    "FindingView",
    "HomePage",
    "Link",
    "ListingPage",
    "NotFoundPage",
    "Page",
    "Pager",
    "QualityPage",
    "QualityRow",
    "RecordEntry",
    "RecordPage",
    "RelatedGroup",
    "ReleaseView",
    "ScenarioView",
    "SchemaPage",
    "SeverityCount",
    "SiteInfo",
    "SourceLine",
    "plural",
]


def plural(count: int, word: str, many: str | None = None) -> str:
    """``count`` and the word, in the singular for one: "1 record", "2 records", "0 records"."""
    return f"{count:,} {word if count == 1 else (many or word + 's')}"


@dataclass(frozen=True)
class SiteInfo:
    """What every page shows about the site."""

    title: str
    dataset_version: str
    errdex_version: str
    records: int
    repositories: int
    scenarios: int


@dataclass(frozen=True)
class Link:
    """A link to another page, relative to the page that shows it."""

    title: str
    url: str
    note: str = ""


@dataclass(frozen=True)
class Page:
    """What every page kind has."""

    site: SiteInfo
    path: str  # the page's file, relative to the site root
    root: str  # from this page back to the site root ("./" or "../../")
    title: str
    description: str
    kind: str


@dataclass(frozen=True)
class SeverityCount:
    severity: str
    count: int
    url: str


@dataclass(frozen=True)
class HomePage(Page):
    severities: tuple[SeverityCount, ...]
    repositories: tuple[Link, ...]
    recent: tuple[Link, ...]
    proven: int
    proofs_known: bool


@dataclass(frozen=True)
class CodeBlock:
    """A piece of code shown highlighted, with a copy button."""

    title: str
    anchor: str
    html: Markup  # the highlighted code, lines joined
    text: str  # what the copy button copies


@dataclass(frozen=True)
class SourceLine:
    number: int
    html: Markup
    throwing: bool


@dataclass(frozen=True)
class ScenarioView:
    id: str
    anchor: str
    summary: str
    steps: tuple[str, ...]
    status: str  # "passed", "failed" or "not proven"
    failures: tuple[str, ...]


@dataclass(frozen=True)
class RelatedGroup:
    title: str
    links: tuple[Link, ...]


@dataclass(frozen=True)
class FindingView:
    code: str
    name: str
    severity: str
    message: str
    pointer: str


@dataclass(frozen=True)
class RecordPage(Page):
    id: str
    slug: str
    repo: str
    repo_url: str | None
    repo_browse_url: str
    file_browse_url: str
    message: str
    pattern: str
    browser_matchable: bool
    error_class: str
    error_type: str
    error_code: str | None
    severity: str
    http_status: int | None
    meaning: tuple[str, ...]
    trigger_scenarios: str
    common_situations: str
    solutions: tuple[str, ...]
    handling_strategy: str
    code_blocks: tuple[CodeBlock, ...]
    file_path: str
    line_number: int
    analyzed_sha: str
    source_url: str | None
    source_lines: tuple[SourceLine, ...]
    scenarios: tuple[ScenarioView, ...]
    prevention_tips: tuple[str, ...]
    tags: tuple[Link, ...]
    related: tuple[RelatedGroup, ...]
    json_url: str
    findings: tuple[FindingView, ...]
    dataset_version: str | None
    analyzed_at: str
    content_changed_at: str
    lifecycle: str  # "active", or a notice such as "withdrawn: ..."
    successor: Link | None
    added_in: str | None  # the release the record was added in (from the release manifests)
    changed_in: str | None  # the release its content last changed in
    draft: bool = False  # harvested from the code, prose not written yet: empty prose sections are left out
    built_into: str = ""  # the record's build field in words: "built into sshd; for win32; test code", or ""
    analyzed_version: str = ""  # with no commit (an installed package harvested): the release it held


@dataclass(frozen=True)
class RecordEntry:
    """One record in a list: its message as the link's text (the slug is in the link's target)."""

    message: str
    url: str
    severity: str
    error_class: str
    repo: str
    draft: bool
    status: str
    group: str = ""  # a heading this entry starts (a file on a repository's page), or ""
    group_anchor: str = ""


@dataclass(frozen=True)
class Facet:
    """A page of records that share one value (a repository, tag, class or severity), with its count."""

    title: str
    url: str
    count: int


@dataclass(frozen=True)
class Pager:
    """Where a page of a paginated listing sits among its pages."""

    number: int
    pages: tuple[Link, ...]  # every page of the listing, in order (title: its number)
    first: int  # the position of this page's first entry, from 1
    last: int  # the position of its last entry
    total: int  # entries in the whole listing


@dataclass(frozen=True)
class ListingPage(Page):
    """One page of a repository's, tag's, class's or severity's records."""

    heading: str
    entries: tuple[RecordEntry, ...]
    pager: Pager
    up: Link


@dataclass(frozen=True)
class BrowsePage(Page):
    """Every record, paginated, filterable by a script over ``api/browse.json``; links to the facet pages."""

    entries: tuple[RecordEntry, ...]
    pager: Pager
    drafts_from: int  # the position (in ``entries``) of the first draft, or -1 when this page shows none
    repositories: tuple[Facet, ...]
    tags: tuple[Facet, ...]
    classes: tuple[Facet, ...]
    severities: tuple[Facet, ...]
    statuses: tuple[str, ...]


@dataclass(frozen=True)
class QualityRow:
    link: Link
    severity: str
    errors: int
    warnings: int
    findings: tuple[FindingView, ...]
    proof: str  # "passed", "failed", "not proven", "no scenarios"
    scenarios_passed: int
    scenarios: int


@dataclass(frozen=True)
class QualityPage(Page):
    rows: tuple[QualityRow, ...]
    errors: int
    warnings: int
    proofs_known: bool


@dataclass(frozen=True)
class SchemaPage(Page):
    documents: tuple[Link, ...]
    fields: tuple[object, ...]  # errdex.site.schemaref.SchemaField
    envelope_fields: tuple[object, ...]


@dataclass(frozen=True)
class ReleaseView:
    version: str
    anchor: str
    summary: str
    added: tuple[Link, ...]
    changed: tuple[Link, ...]  # note: the fields that changed
    withdrawn: tuple[Link, ...]
    superseded: tuple[Link, ...]


@dataclass(frozen=True)
class ChangelogPage(Page):
    releases: tuple[ReleaseView, ...]


@dataclass(frozen=True)
class NotFoundPage(Page):
    pass

