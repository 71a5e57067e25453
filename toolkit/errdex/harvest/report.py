"""What a harvest found and did: the summary ``errdex harvest`` prints (text or JSON)."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from errdex.harvest.sites import Skipped
from errdex.records.source_paths import shown_path, unsafe_path

__all__ = ["HarvestReport"]


@dataclass
class HarvestReport:
    """The outcome of :func:`errdex.harvest.run.harvest`.

    ``sites``: language -> site kind -> count. ``new``/``updated``: (id, file written or None for a bundle);
    ``gone``: (id, filePath, lineNumber) of harvested records whose site is no longer found.
    ``skipped_files``: reason -> paths; ``skipped``: messages that could not be harvested;
    ``unparsed``: files read but not parsed, for they name no sink (nor ``throw``/``raise``...), so they hold
    no site; ``parse_failures``: (path, why) of the files parsed.
    ``changed``: whether the output differs (what ``--check`` exits 1 on). ``no_bundle``: a bundle was asked
    for and no record is there to write: none is written.
    """

    source: str
    repo: str
    sha: str | None
    output: str
    check: bool = False
    files: int = 0
    lines: int = 0
    sites: dict[str, Counter[str]] = field(default_factory=dict)
    new: list[tuple[str, str | None]] = field(default_factory=list)
    updated: list[tuple[str, str | None, list[str]]] = field(default_factory=list)
    unchanged: int = 0
    gone: list[tuple[str, str, int]] = field(default_factory=list)
    in_bundle: list[str] = field(default_factory=list)
    skipped_files: dict[str, list[str]] = field(default_factory=dict)
    skipped: list[Skipped] = field(default_factory=list)
    unparsed: int = 0
    parse_failures: list[tuple[str, str]] = field(default_factory=list)
    elapsed_s: float = 0.0
    changed: bool = False
    no_bundle: bool = False
    #: The release a source with no commit holds (``jinja2 3.1.6``), when its packaging metadata says.
    version: str | None = None

    @property
    def site_count(self) -> int:
        return sum(sum(kinds.values()) for kinds in self.sites.values())

    @property
    def lines_per_second(self) -> float:
        return self.lines / self.elapsed_s if self.elapsed_s > 0 else 0.0

    def skipped_reasons(self) -> dict[str, int]:
        return dict(sorted(Counter(item.reason for item in self.skipped).items()))

    def as_dict(self) -> dict[str, Any]:
        return {
            "source": self.source, "repo": self.repo, "analyzedSha": self.sha,
            **({"analyzedVersion": self.version} if self.sha is None else {}), "output": self.output,
            "check": self.check, "changed": self.changed, "files": self.files, "lines": self.lines,
            "sites": {language: dict(sorted(kinds.items())) for language, kinds in sorted(self.sites.items())},
            "records": {
                "new": [{"id": key, "path": path} for key, path in self.new],
                "updated": [{"id": key, "path": path, "fields": fields} for key, path, fields in self.updated],
                "unchanged": self.unchanged,
                "gone": [{"id": key, "filePath": path, "lineNumber": line} for key, path, line in self.gone],
                "inBundle": self.in_bundle,
            },
            "skippedFiles": {reason: len(paths) for reason, paths in sorted(self.skipped_files.items())},
            "skippedMessages": [{"path": item.path, "line": item.line, "reason": item.reason, "detail": item.detail}
                                for item in self.skipped],
            "unparsedFiles": self.unparsed,
            "parseFailures": [{"path": path, "error": error} for path, error in self.parse_failures],
            "elapsedSeconds": round(self.elapsed_s, 3),
            "linesPerSecond": round(self.lines_per_second),
        }

    def summary_lines(self) -> list[str]:
        """The text summary, one line each (what the command prints on stderr)."""
        kinds = Counter[str]()
        for counts in self.sites.values():
            kinds.update(counts)
        by_language = ", ".join(f"{language} {sum(counts.values())}" for language, counts in sorted(self.sites.items()))
        by_kind = ", ".join(f"{kind} {count}" for kind, count in sorted(kinds.items()))
        verb = "would write" if self.check else "wrote"
        lines = [
            f"{self.source} at {self.sha[:12] if self.sha else self.version or 'no commit'}: "
            f"{self.files:,} file(s), {self.lines:,} line(s), "
            f"{self.site_count:,} site(s)" + (f" ({by_language}; {by_kind})" if self.site_count else ""),
            f"records in {self.output}: {len(self.new)} new, {len(self.updated)} updated, {self.unchanged} "
            f"unchanged; {verb} {len(self.new) + len(self.updated)}" + (
                f"; {len(self.gone)} gone (site no longer found, kept)" if self.gone else ""),
        ]
        if self.no_bundle:
            lines.append(f"no record to hold: {self.output} is not written (a bundle holds one record or more)")
        if self.in_bundle:
            lines.append(f"{len(self.in_bundle)} record(s) to refresh sit in a bundle of the folder: not written")
        if self.skipped:
            reasons = ", ".join(f"{reason} {count}" for reason, count in self.skipped_reasons().items())
            lines.append(f"{len(self.skipped)} message(s) not harvested: {reasons}")
        if self.skipped_files:
            reasons = ", ".join(f"{reason} {len(paths)}" for reason, paths in sorted(self.skipped_files.items()))
            lines.append(f"files skipped: {reasons}")
        for path in (*self.skipped_files.get("undecodable-name", ()), *self.skipped_files.get("unsafe-path", ())):
            lines.append(f"skipped {shown_path(path)}: its path {unsafe_path(path)}")  # no record may name it
        if self.unparsed:
            lines.append(f"{self.unparsed:,} file(s) read but not parsed (no sink name)")
        for path, error in self.parse_failures:  # a finder that read the file in parts says how many sites
            whole = f"failed to parse whole: {path} ({error})"
            lines.append(whole if error.endswith(" recovered") else f"failed to parse {path}: {error}")
        lines.append(f"{self.elapsed_s:.2f} s, {self.lines_per_second:,.0f} source lines/s")
        return lines
