"""``drift()``: every record of one repository followed from its own commit to a new one.

1. the sites at the new commit, and the draft harvest makes of each (:func:`errdex.harvest.run.harvest_sites`:
   all log levels, the source's sinks or ``config``'s, plus the defaults);
2. the records of the repository (``repo``, or those whose ``analyzedSha`` is a commit of the source);
3. per commit the records were analysed at: the git diff to the new commit (:mod:`.linemap`) and the records'
   statements at that commit (:mod:`.old`);
4. the relocation (:mod:`.relocate`), and the new sites: those no record claims, when the repository was
   harvested (one of its records is or was a harvested draft).
"""

from __future__ import annotations

import os
from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from errdex.drift.linemap import LineMap, Mapped, git_repository, has_commit, line_map, read_files
from errdex.drift.old import from_excerpt, old_statements
from errdex.drift.outcomes import Drifted, DriftReport, NewSite
from errdex.drift.relocate import Moving, SitesAt, relocate
from errdex.errors import UsageError
from errdex.harvest.config import load_harvest_config
from errdex.harvest.drafts import DRAFT_STATUS, record_id, source_lines, timestamp
from errdex.harvest.languages import finder_for
from errdex.harvest.merge import read_existing
from errdex.harvest.run import harvest_sites
from errdex.harvest.sinks import Sink, parse_levels
from errdex.records.sources import bundled_records_dir

__all__ = ["drift", "harvested"]

_MAX_ORDINAL = 100  # equal messages in one file looked at when telling a harvested id, as harvest does


def harvested(record: Mapping[str, Any]) -> bool:
    """Whether a record is a harvested draft, or was one (its id is the one harvest gives its repository,
    file and message)."""
    if record.get("status") == DRAFT_STATUS:
        return True
    repo, path, message = record.get("repo"), record.get("filePath"), record.get("errorMessage")
    if not all(isinstance(value, str) for value in (repo, path, message)):
        return False
    return any(record.get("id") == record_id(str(repo), str(path), str(message), ordinal)
               for ordinal in range(1, _MAX_ORDINAL + 1))


def _records(paths: Sequence[str | Path]) -> list[dict[str, Any]]:
    targets = [Path(path) for path in paths] or [bundled_records_dir().resolve()]
    for target in targets:
        if not target.exists():
            raise UsageError(f"--records {target}: no such file or folder")
    return [item.record for _, item in sorted(read_existing(targets).items())]


def _select(records: Iterable[dict[str, Any]], repo: str | None, git: Path | None) -> list[dict[str, Any]]:
    if repo is not None:
        return [record for record in records if record.get("repo") == repo]
    if git is None:
        raise UsageError("the source is not a git repository: give --repo OWNER/NAME to name its records")
    known: dict[str, bool] = {}
    chosen = []
    for record in records:
        sha = record.get("analyzedSha")
        if isinstance(sha, str) and sha:
            if sha not in known:
                known[sha] = has_commit(git, sha)
            if known[sha]:
                chosen.append(record)
    return chosen


def _sinks(source: Path, rev: str | None, config: str | Path | None,
           paths: Iterable[str]) -> dict[str, tuple[Sink, ...]]:
    """Language -> the sinks the old files are parsed with (the defaults and the configuration's)."""
    folder = source if rev is None and source.is_dir() else None
    settings = load_harvest_config(config=Path(config) if config else None, folder=folder)
    found: dict[str, tuple[Sink, ...]] = {}
    for path in paths:
        finder = finder_for(path)
        if finder is not None and finder.name not in found:
            found[finder.name] = (*finder.default_sinks, *settings.sinks)
    return found


def _moving(records: Sequence[dict[str, Any]], git: Path | None, sha: str, sinks_of: Any) -> list[Moving]:
    """The records to relocate, with their old statements and their lines mapped, commit by commit."""
    by_commit: dict[str, list[int]] = defaultdict(list)
    for number, record in enumerate(records):
        by_commit[str(record.get("analyzedSha") or "")].append(number)
    levels = parse_levels("all")
    moving: list[Moving | None] = [None] * len(records)
    for old_sha, numbers in by_commit.items():
        group = [records[number] for number in numbers]
        mapping: LineMap | None = None
        if git is not None and old_sha and has_commit(git, old_sha):
            mapping = line_map(git, old_sha, sha) if old_sha != sha else LineMap()
            paths = [str(record.get("filePath") or "") for record in group]
            olds = old_statements(group, read_files(git, old_sha, paths), sinks_of(paths), levels)
        else:
            olds = [from_excerpt(record) for record in group]
        for number, record, old in zip(numbers, group, olds, strict=True):
            mapped = mapping.map(old.path, old.line) if mapping is not None else Mapped(old.path, old.line, False)
            moving[number] = Moving(str(record.get("id")), str(record.get("errorMessage") or ""),
                                    str(record.get("messagePattern") or ""), old, mapped)
    return [item for item in moving if item is not None]


def _unread(drifted: list[Drifted], moving: Sequence[Moving], unparsed: Mapping[str, str]) -> list[Drifted]:
    """The records found vanished whose file at the new commit (where the diff maps them) failed to parse:
    marked ``how="unparsed"``, for nothing is known of them (sync never retires them)."""
    if not unparsed:
        return drifted
    mapped = {item.record_id: item.mapped.path for item in moving}
    return [replace(item, how="unparsed") if item.kind == "vanished" and mapped.get(item.record_id) in unparsed
            else item for item in drifted]


def drift(source: str | Path, *, rev: str | None = None, sha: str | None = None,
          records: Sequence[str | Path] = (), repo: str | None = None, config: str | Path | None = None,
          jobs: int | None = None) -> DriftReport:
    """Where every record of the repository that ``source`` holds is at ``rev`` (a git repository; default
    ``HEAD``) or in the folder ``source`` (at ``sha``), from the records folders or bundles ``records``
    (default: the project's). See the module's docstring for the steps."""
    root = Path(source)
    if not root.exists():
        raise UsageError(f"--source {root}: no such file or folder")
    git = root if git_repository(root) else None  # a bare repository without --rev is read at HEAD by harvest
    chosen = _select(_records(records), repo, git)
    name = repo or Counter(str(record.get("repo")) for record in chosen).most_common(1)[0][0] if chosen else repo
    files, pairs, unparsed = harvest_sites(root, repo=name or "", rev=rev, sha=sha, log_levels="all",
                                           config=config, jobs=jobs)
    if files.sha is None:  # records move to a commit: a folder no repository holds names none
        raise UsageError(f"{root} is not in a git work tree that holds it: pass --sha with the commit it holds")
    new_sha = files.sha
    data = {file.path: file.data for file in files.files}
    cache: dict[str, list[str] | None] = {}

    def lines(path: str) -> list[str] | None:
        if path not in cache:
            cache[path] = source_lines(data[path]) if path in data else None
        return cache[path]

    sinks_cache: dict[tuple[str, ...], dict[str, tuple[Sink, ...]]] = {}

    def sinks_of(paths: Sequence[str]) -> dict[str, tuple[Sink, ...]]:
        key = tuple(sorted({path[path.rfind("."):] for path in paths if "." in path}))
        if key not in sinks_cache:
            sinks_cache[key] = _sinks(root, rev, config, paths)
        return sinks_cache[key]

    sites = SitesAt(pairs, lines)
    moving = _moving(chosen, git, new_sha, sinks_of)
    drifted, claimed = relocate(moving, sites)
    report = DriftReport(repo=name or "", rev=rev or sha or new_sha, sha=new_sha,
                         analyzed_at=timestamp(os.environ.get("SOURCE_DATE_EPOCH")),
                         drifted=_unread(drifted, moving, dict(unparsed)), lines=lines, unparsed=unparsed)
    if any(harvested(record) for record in chosen):
        report.new_sites = [NewSite(site, draft) for index, (site, draft) in enumerate(pairs)
                            if index not in claimed]
    return report
