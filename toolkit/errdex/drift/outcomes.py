"""What drift finds for each record at a new commit, the shapes drift reports and sync applies.

A record is *unchanged* (same file, same first line, same statement text), *moved* (the same message at another
line or in another file, renames followed), *reworded* (the statement is still there, its message changed) or
*vanished* (no statement writes its message any more). Sites at the new commit that no record covers are
*new*. Each relocated record carries the draft that harvest would write for its site at the new commit, so sync
copies mechanical fields from one place and never derives them a second time.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from errdex.harvest.sites import Site

__all__ = ["KINDS", "DriftReport", "Drifted", "Kind", "NewSite", "Place"]

Kind = Literal["unchanged", "moved", "reworded", "vanished"]
KINDS: tuple[Kind, ...] = ("unchanged", "moved", "reworded", "vanished")


@dataclass(frozen=True)
class Place:
    """A statement's place: file, and its first and last line (1-based)."""

    path: str
    line: int
    end_line: int


@dataclass(frozen=True)
class Drifted:
    """One record at the new commit.

    ``old``: where the record says its statement is; ``new``: where it is now (None when vanished).
    ``how``: what found it (``diff``: the git diff maps the old lines there; ``content``: the same message
    found by its text; ``fingerprint``: the same call and function with another message), for the report;
    for a vanished record, ``unparsed`` when its file at the new commit failed to parse (nothing is known).
    ``site``/``draft``: the harvested site at the new commit and the draft record harvest makes of it (None
    when vanished); for a reworded record the draft's ``errorMessage``/``messagePattern`` are the new ones.
    """

    record_id: str
    kind: Kind
    old: Place
    new: Place | None
    old_message: str
    how: str = ""
    site: Site | None = None
    draft: dict[str, Any] | None = None

    @property
    def new_message(self) -> str | None:
        return None if self.draft is None else str(self.draft["errorMessage"])

    @property
    def new_pattern(self) -> str | None:
        return None if self.draft is None else str(self.draft["messagePattern"])


@dataclass(frozen=True)
class NewSite:
    """A site at the new commit that no record covers, with the draft harvest makes of it."""

    site: Site
    draft: dict[str, Any]


@dataclass
class DriftReport:
    """Everything drift found for one repository between the records' commits and ``sha``.

    ``lines(path)`` gives the file's lines at ``sha`` (None when the file is not there), for excerpts.
    ``new_sites`` is empty unless the repository was harvested (some record of it is a harvested one).
    ``unparsed``: (path, why) of the files at ``sha`` that failed to parse (too deeply nested, too slow, or
    mostly syntax errors): their sites are unknown.
    """

    repo: str
    rev: str
    sha: str
    analyzed_at: str
    drifted: list[Drifted] = field(default_factory=list)
    new_sites: list[NewSite] = field(default_factory=list)
    lines: Callable[[str], Sequence[str] | None] = field(default=lambda path: None, repr=False)
    unparsed: list[tuple[str, str]] = field(default_factory=list)

    def of_kind(self, kind: Kind) -> list[Drifted]:
        return [item for item in self.drifted if item.kind == kind]

    @property
    def clean(self) -> bool:
        """Whether everything is unchanged and no new site was found (drift exits 0)."""
        return not self.new_sites and all(item.kind == "unchanged" for item in self.drifted)
