"""What a sync did (or, with ``--check``, would do): the lines ``errdex sync`` prints, text or JSON."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

__all__ = ["Change", "Kept", "SyncReport"]


@dataclass(frozen=True)
class Change:
    """A record rewritten: its id, kind (moved, unchanged, reworded, vanished), file, fields, old and new place;
    ``renamed_from``: the file it was in, when its new slug moved it to ``path``."""

    record_id: str
    kind: str
    path: str
    fields: tuple[str, ...]
    old: str
    new: str
    renamed_from: str | None = None

    def as_dict(self) -> dict[str, Any]:
        found = {"id": self.record_id, "kind": self.kind, "path": self.path, "fields": list(self.fields),
                 "old": self.old, "new": self.new}
        return found | ({"renamedFrom": self.renamed_from} if self.renamed_from is not None else {})


@dataclass(frozen=True)
class Kept:
    """A record drift found changed that sync leaves as it is, and the flag that would change it ("" when
    none would: a record in a file that failed to parse)."""

    record_id: str
    kind: str
    flag: str
    detail: str

    def as_dict(self) -> dict[str, Any]:
        return {"id": self.record_id, "kind": self.kind, "flag": self.flag, "detail": self.detail}


_VERBS = {False: {"moved": "moved", "unchanged": "resynced", "reworded": "reworded", "vanished": "retired",
                  "new": "added"},
          True: {"moved": "would move", "unchanged": "would resync", "reworded": "would reword",
                 "vanished": "would retire", "new": "would add"}}


@dataclass
class SyncReport:
    """The outcome of :func:`errdex.sync.sync`.

    ``changes``: records rewritten (or that would be, with ``check``), in id order; ``added``: (id, file or
    bundle) of new sites added as drafts; ``kept``: records drift found changed that no flag asked to
    change; ``new_sites``: how many sites no record covers (added only with ``add_new``); ``unchanged``:
    records already right at the commit. ``changed`` is what ``--check`` exits 1 on.
    """

    repo: str
    rev: str
    sha: str
    check: bool = False
    changes: list[Change] = field(default_factory=list)
    added: list[tuple[str, str]] = field(default_factory=list)
    kept: list[Kept] = field(default_factory=list)
    new_sites: int = 0
    unchanged: int = 0
    notes: list[str] = field(default_factory=list)

    @property
    def changed(self) -> bool:
        return bool(self.changes or self.added)

    def lines(self) -> list[str]:
        """One line per record rewritten or added, then per record kept as it is."""
        verbs = _VERBS[self.check]
        out = [f"{verbs[item.kind]:<14} {item.record_id} {item.path}: {', '.join(item.fields)} "
               f"({item.old} -> {item.new})" + (f", file renamed from {item.renamed_from}" if item.renamed_from
                                                 else "") for item in self.changes]
        out += [f"{verbs['new']:<14} {key} {where}" for key, where in self.added]
        out += [f"{'kept ' + item.kind:<14} {item.record_id} {item.detail}" + (f" (give {item.flag})" if item.flag
                                                                                  else "") for item in self.kept]
        return out

    def summary_lines(self) -> list[str]:
        rewritten = "would rewrite" if self.check else "rewrote"
        added = "would add" if self.check else "added"
        line = (f"sync {self.repo} to {self.sha[:12]} ({self.rev}): {rewritten} {len(self.changes)}, "
                f"{added} {len(self.added)} of {self.new_sites} new sites, kept {len(self.kept)} as they are, "
                f"{self.unchanged} already right")
        return [*self.notes, line]

    def as_dict(self) -> dict[str, Any]:
        return {"repo": self.repo, "rev": self.rev, "sha": self.sha, "check": self.check, "changed": self.changed,
                "changes": [item.as_dict() for item in self.changes],
                "added": [{"id": key, "path": where} for key, where in self.added],
                "kept": [item.as_dict() for item in self.kept], "newSites": self.new_sites,
                "unchanged": self.unchanged, "notes": self.notes}
