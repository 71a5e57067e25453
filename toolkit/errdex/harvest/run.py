"""The whole harvest: the files of a source, the sites in them, the drafts, merged into records and written.

1. the files of SOURCE (:mod:`.source`), with the project's settings (:mod:`.config`);
2. a first pass: every file's finder surveys what it offers the tree (C macros and log functions of the
   headers, Java ``static final String`` and callers' literals: a ``TreeFacts``), by language, in this
   process (the trees it keeps then serve the next pass in every process);
3. the sites of each file (with ``jobs`` > 1 in forked processes, the same result in the same order); a file
   that names no sink of its language (nor ``throw``...: ``Finder.site_words``) is not parsed, only counted;
   a file that fails to parse is listed, never a reason to stop (unless the finders failed on every file);
4. a draft per site (:mod:`.drafts`), its pattern from :mod:`errdex.harvest.pattern`; a message without
   literal text, or whose pattern a matcher would refuse, is counted as skipped with its reason;
5. the merge with the records folder or bundle (:mod:`.merge`), written unless ``check``.
"""

from __future__ import annotations

import os
import pickle
import re
import time
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any, BinaryIO, Literal

from errdex import parallel
from errdex.errors import DataError, UsageError
from errdex.harvest.builds import source_builds
from errdex.harvest.config import HarvestConfig, load_harvest_config
from errdex.harvest.drafts import draft_record, message_text, source_lines, timestamp
from errdex.harvest.languages import FileSites, Finder, TreeFacts, Unparsable, finder_for
from errdex.harvest.merge import (
    Merge,
    bundle_bytes,
    locked,
    merge_drafts,
    read_existing,
    write_bundle,
    write_folder,
)
from errdex.harvest.pattern import PatternRefused, draftable, first_line, has_literal
from errdex.harvest.pattern import build as build_pattern
from errdex.harvest.report import HarvestReport
from errdex.harvest.sinks import Sink, parse_levels
from errdex.harvest.sites import Site, Skipped, Template, Text
from errdex.harvest.source import Source, SourceFile, read_source
from errdex.patterns import refusal
from errdex.records.source_paths import shown_path
from errdex.records.sources import bundled_records_dir

__all__ = ["harvest", "harvest_sites"]

_ALNUM = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")
_REPO = re.compile(r"[A-Za-z0-9_-][A-Za-z0-9_.-]{0,99}/[A-Za-z0-9_-][A-Za-z0-9_.-]{0,99}")
#: Files per task handed to a forked process, at most; a task also ends once its files hold CHUNK_BYTES,
#: so that a few large files do not leave one process working alone at the end.
CHUNK_FILES = 64
CHUNK_BYTES = 64 * 1024
#: Tasks one harvest hands out, at most (the work queue's pipe holds 16,384).
_MAX_CHUNKS = 8192


def _finder(path: str, cache: dict[str, Finder | None]) -> Finder | None:
    """The file's finder; None when its language is not harvested."""
    dot = path.rfind(".")
    extension = path[dot:].lower() if dot > path.rfind("/") else ""
    if extension not in cache:
        cache[extension] = finder_for(path)
    return cache[extension]


def _find(file: SourceFile, finder: Finder, sinks: Sequence[Sink], levels: frozenset[str],
          facts: TreeFacts) -> FileSites:
    try:
        return finder.find(file.data, file.path, sinks=sinks, levels=levels, facts=facts)
    except Unparsable as exc:  # a file the parser must not see, or gave up on
        return FileSites(parse_error=str(exc), unread=True)
    except (RecursionError, MemoryError) as exc:
        return FileSites(parse_error=f"{type(exc).__name__}: the file is too deeply nested or too large",
                         unread=True)
    except Exception as exc:  # a finder's bug on one file must not stop the harvest of the tree
        return FileSites(parse_error=f"{type(exc).__name__}: {exc}", unread=True, fault=True)


#: What a file's pass returns, no more than the report needs (a child pickles it to the parent): the messages
#: its finder skipped, its parse error, per site in (line, end line) order its language, its kind, why it is
#: skipped (None when it is not) and its draft record (None when skipped), and whether the file was not read
#: at all (:attr:`FileSites.unread`): "refused" when the file could not be parsed, "fault" when errdex's finder
#: failed on it (:attr:`FileSites.fault`), None when it was read.
Found = tuple[list[Skipped], str | None,
              list[tuple[str, str, Skipped | None, dict[str, Any] | None, Site | None]], str | None]


def _chunks(sizes: Sequence[int]) -> list[range]:
    """Consecutive runs of file numbers, each of at most CHUNK_FILES files and about CHUNK_BYTES bytes."""
    budget = max(CHUNK_BYTES, sum(sizes) // _MAX_CHUNKS + 1)
    chunks: list[range] = []
    start = held = 0
    for number, size in enumerate(sizes):
        held += size
        if held >= budget or number + 1 - start >= CHUNK_FILES:
            chunks.append(range(start, number + 1))
            start, held = number + 1, 0
    if start < len(sizes):
        chunks.append(range(start, len(sizes)))
    return chunks


def _chunked_map(sizes: Sequence[int], one: Callable[[int], Any], jobs: int,
                 progress: Callable[[Iterable[Any]], Iterator[Any]] | None = None) -> list[Any]:
    """``[one(n) for n in range(len(sizes))]`` (``sizes``: each file's bytes), with ``jobs`` > 1 the later
    chunks (:func:`_chunks`) computed in forked processes: the same result in the same order. ``progress``
    wraps what this process handles."""
    shown = progress or iter
    count = len(sizes)
    chunks = _chunks(sizes)
    jobs = min(jobs, len(chunks))
    if jobs < 2 or not parallel.can_fork():
        return [one(number) for number in shown(range(count))]
    queue = parallel.WorkQueue(len(chunks))
    children: list[parallel.Child] = []

    def chunk(index: int) -> list[Any]:
        return [one(number) for number in chunks[index]]

    def work(out: BinaryIO) -> None:
        while (index := queue.next()) is not None:
            pickle.dump((index, chunk(index)), out)
            out.flush()

    results: dict[int, list[Any]] = {}
    try:
        for _ in range(jobs - 1):
            children.append(parallel.start_child(work))
        for index in shown(iter(queue.next, None)):
            results[index] = chunk(index)
        for child in children:
            for index, found in parallel.partial_items(child):
                results[index] = found
        for index in range(len(chunks)):  # a chunk taken by a child that died is found here
            if index not in results:
                results[index] = chunk(index)
    finally:
        queue.close()
        for child in children:
            parallel.stop_child(child)
    return [item for index in range(len(chunks)) for item in results[index]]


def _site_words(finder: Finder, sinks: Sequence[Sink], facts: TreeFacts) -> re.Pattern[bytes] | None:
    """What a file must hold for ``finder`` to find a site in it: the name (last dotted part) of one of its
    sinks or of the tree's own (``facts.sinks``) or of a function that raises for its callers
    (``facts.raisers``), or one of the words its other sites are built on (``Finder.site_words``:
    ``throw``, ``raise``), as a whole word; None when the finder names none (every file is parsed). The call
    a site is has its function's name as an identifier in the text: a file without one holds no site."""
    words = getattr(finder, "site_words", None)
    if words is None:
        return None
    names = {sink.name.rsplit(".", 1)[-1].encode() for sink in (*sinks, *facts.sinks.values())}
    names.update(name.encode() for name in facts.raisers)  # ``self.fail("...")`` raises through a helper
    alternatives = b"|".join(re.escape(word) for word in sorted({*names, *words}, key=lambda w: (-len(w), w)))
    return re.compile(rb"\b(?:" + alternatives + rb")\b")  # a whole identifier: err is not in error


class _Finding:
    """The sites of every file, their patterns and drafts, in file order (built where the sites are found, so
    that with ``jobs`` > 1 that work is shared by the processes too)."""

    def __init__(self, files: list[tuple[SourceFile, Finder]], sinks: Mapping[str, Sequence[Sink]],
                 levels: frozenset[str], constants: Mapping[str, TreeFacts], *, repo: str, sha: str | None,
                 analyzed_at: str, keep_sites: bool = False, version: str | None = None) -> None:
        self.files, self.sinks, self.levels, self.constants = files, sinks, levels, constants
        self.keep_sites = keep_sites  # drift needs the sites themselves; a harvest only their drafts
        self.repo, self.sha, self.analyzed_at, self.version = repo, sha, analyzed_at, version
        self.memo: dict[Template, str | tuple[SkipReason, str]] = {}
        self.words = {name: _site_words(finder, self.sinks[name], constants[name])
                      for name, finder in {finder.name: finder for _, finder in files}.items()}

    def one(self, number: int) -> Found | None:
        """The file's sites, patterns and drafts; None when the file names no sink (nor a word its finder's
        other sites need): it is not parsed."""
        file, finder = self.files[number]
        words = self.words[finder.name]
        if words is not None and words.search(file.data) is None:
            release = getattr(finder, "release", None)
            if release is not None:
                release(file.data)  # what its constants pass kept for these bytes
            return None
        sites = _find(file, finder, self.sinks[finder.name], self.levels, self.constants[finder.name])
        found: list[tuple[str, str, Skipped | None, dict[str, Any] | None, Site | None]] = []
        lines = source_lines(file.data) if sites.sites else []
        seen: Counter[str] = Counter()
        for site in sorted(sites.sites, key=lambda site: (site.line, site.end_line)):
            line = first_line(site.template)  # the line a log holds: no line break, no later lines
            if line != site.template:
                site = replace(site, template=line)
            message = message_text(site.template)
            pattern = _pattern(site, message, build_pattern, self.memo)
            if isinstance(pattern, Skipped):
                found.append((site.language, site.kind, pattern, None, None))
                continue
            seen[message] += 1
            draft = draft_record(site, repo=self.repo, sha=self.sha, analyzed_at=self.analyzed_at,
                                 lines=lines, pattern=pattern, ordinal=seen[message], version=self.version)
            found.append((site.language, site.kind, None, draft, site if self.keep_sites else None))
        unread = ("fault" if sites.fault else "refused") if sites.unread else None
        return sites.skipped, sites.parse_error, found, unread

    def run(self, jobs: int,
            progress: Callable[[Iterable[Any]], Iterator[Any]] | None = None) -> list[Found | None]:
        """Every file's sites, patterns and drafts; ``progress`` wraps the files this process handles. A
        :class:`DataError` when errdex's finders failed on every file parsed (a setting that breaks them, such
        as a sink name their queries cannot hold): what the tree holds is not known, and a harvest or a drift
        that went on would take every site for gone. Files that could not be parsed (syntax errors, a file
        the parser is not given) are listed, never a reason to stop: they are the tree's, not errdex's."""
        found = _chunked_map([len(file.data) for file, _ in self.files], self.one, jobs, progress)
        parsed = [(file.path, one[1], one[3]) for (file, _), one in zip(self.files, found, strict=True)
                  if one is not None]
        failed = [(path, error) for path, error, unread in parsed if unread == "fault"]
        if failed and len(failed) == len(parsed):
            path, error = failed[0]
            raise DataError(f"harvest failed on every file parsed ({len(failed)}; the first: {shown_path(path)}: "
                            f"{error}): "
                            "the tree's sites are unknown, nothing is written")
        return found


def _file_constants(file: SourceFile, finder: Finder) -> TreeFacts:
    try:
        return finder.survey(file.data)
    except Exception:  # the file's own parse failure is reported by find; what it offers is lost
        return TreeFacts()


def _constants(files: Sequence[tuple[SourceFile, Finder]]) -> dict[str, TreeFacts]:
    """Language -> what its files offer the tree (merged in path order: :meth:`TreeFacts.add`). A finder
    whose ``offers_constants`` is false (its constants resolve within the file) is not asked.

    Gathered in this process even with ``--jobs`` > 1: the trees a finder keeps from this pass are inherited
    by the sites pass's children, forked after it, so no file is parsed twice (in a child of this pass, half
    of them were, and its trees were lost with it); that costs some wall-clock time, less CPU time."""
    offering = [pair for pair in files if getattr(pair[1], "offers_constants", True)]
    offers = [_file_constants(file, finder) for file, finder in offering]
    found: dict[str, TreeFacts] = {finder.name: TreeFacts() for _, finder in files}
    for (_, finder), offered in zip(offering, offers, strict=True):
        found.setdefault(finder.name, TreeFacts()).add(offered)
    return found


SkipReason = Literal["no-literal", "unresolved-constant", "not-portable", "too-large", "too-generic"]


def _skip_reason(site: Site, message: str) -> SkipReason | None:
    if not any(isinstance(part, Text) and part.text.strip() for part in site.template) \
            and not has_literal(site.template):  # a choice of texts ("Processing %s" or "Collecting %s")
        return "no-literal"
    if not _ALNUM.intersection(message):
        return "no-literal"  # punctuation only: nothing to name the record by or to match on
    if not draftable(site.template):
        return "too-generic"  # a version, a "1", "user %s": its pattern would match lines of any kind
    return None


def _checked(template: Template, build: Callable[[Template], str]) -> str | tuple[SkipReason, str]:
    """The template's pattern, or why a matcher would refuse it (reason, detail)."""
    try:
        pattern = build(template)
    except PatternRefused as exc:
        return exc.reason, str(exc)
    except ValueError as exc:
        return "not-portable", str(exc)
    if build is build_pattern:
        return pattern  # it raises on every size or portability problem, the only ones refusal() names
    refused = refusal(pattern)
    if refused is not None:
        return "not-portable", f"{pattern}: {refused}"
    return pattern


def _pattern(site: Site, message: str, build: Callable[[Template], str],
             memo: dict[Template, str | tuple[SkipReason, str]] | None = None) -> str | Skipped:
    """The site's messagePattern, or why it is not harvested; ``memo`` keeps each template's outcome (a
    message written at several sites is built and checked once)."""
    reason = _skip_reason(site, message)
    if reason is not None:
        return Skipped(site.path, site.line, reason, message)
    outcome = memo.get(site.template) if memo is not None else None
    if outcome is None:
        outcome = _checked(site.template, build)
        if memo is not None:
            memo[site.template] = outcome
    return outcome if isinstance(outcome, str) else Skipped(site.path, site.line, *outcome)


def _drafts(found: Sequence[tuple[SourceFile, Found | None]], report: HarvestReport) -> list[dict[str, Any]]:
    """The draft of every harvestable site, in file and line order; the rest counted in the report (a file
    not parsed, for it names no sink, as ``unparsed``)."""
    drafts: list[dict[str, Any]] = []
    for file, one in found:
        if one is None:
            report.unparsed += 1
            continue
        skipped, parse_error, sites, _ = one
        report.skipped.extend(skipped)
        if parse_error is not None:
            report.parse_failures.append((file.path, parse_error))
        for language, kind, skip, draft, _ in sites:
            if skip is not None:
                report.skipped.append(skip)
            elif draft is not None:
                report.sites.setdefault(language, Counter())[kind] += 1
                drafts.append(draft)
    return drafts


def _settings(source: Path, rev: str | None, config: Path | None, log_levels: str | None, exclude: Sequence[str],
              include_tests: bool) -> tuple[HarvestConfig, frozenset[str], tuple[str, ...], bool]:
    settings = load_harvest_config(config=config, folder=source if rev is None and source.is_dir() else None)
    try:
        levels = parse_levels(log_levels if log_levels is not None else settings.log_levels)
    except ValueError as exc:
        raise UsageError(f"--log-levels: {exc}") from exc
    return settings, levels, (*settings.exclude, *exclude), include_tests or bool(settings.include_tests)


def harvest(source: str | Path, *, repo: str, rev: str | None = None, sha: str | None = None,
            out: str | Path | None = None, bundle: str | Path | None = None, log_levels: str | None = None,
            config: str | Path | None = None, exclude: Sequence[str] = (), include_tests: bool = False,
            jobs: int | None = None, check: bool = False, path_prefix: str | None = None,
            progress: Callable[[Iterable[Any]], Iterator[Any]] | None = None) -> HarvestReport:
    """Draft records from the throw and log sites of ``source`` (a folder or file, or a git repository read at
    ``rev``) for the GitHub repository ``repo`` (owner/name), merged into the records folder ``out``
    (default: the project's ``records/``) or the JSONL ``bundle``; ``check``: write nothing;
    ``path_prefix``: the folder's path inside ``repo``, put in front of every file's path. See the module's
    docstring for the steps and :class:`~errdex.harvest.report.HarvestReport` for what is returned."""
    started = time.monotonic()
    if out is not None and bundle is not None:
        raise UsageError("give --out (a records folder) or --bundle (a JSONL file), not both")
    if not _REPO.fullmatch(repo):
        raise UsageError(f"--repo {repo!r} is not a GitHub repository as owner/name")
    if jobs is not None and jobs < 1:
        raise UsageError(f"--jobs {jobs}: give 1 or more processes")
    files, finding = _finding(Path(source), repo=repo, rev=rev, sha=sha, log_levels=log_levels, config=config,
                              exclude=exclude, include_tests=include_tests, path_prefix=path_prefix)
    target = Path(bundle) if bundle is not None else Path(out) if out is not None else bundled_records_dir().resolve()
    report = HarvestReport(str(source), repo, files.sha, str(target), check=check, files=len(files.files),
                           skipped_files=files.skipped, version=files.version)
    pairs = finding.files
    report.lines = sum(file.data.count(b"\n") + (not file.data.endswith(b"\n") and bool(file.data))
                       for file, _ in pairs)
    found = finding.run(jobs or 1, progress)
    drafts = _drafts(list(zip((file for file, _ in pairs), found, strict=True)), report)
    builds = source_builds(Path(source), rev=rev, sha=sha, path_prefix=path_prefix)
    for draft in drafts:  # what the tree's build files say of the draft's file (match ranks by it)
        draft["build"] = builds.of(draft["filePath"]).as_field()
    _merge_and_write(drafts, report, target, bundle is not None, check, repo)
    report.elapsed_s = time.monotonic() - started
    return report


def harvest_sites(source: str | Path, *, repo: str, rev: str | None = None, sha: str | None = None,
                  log_levels: str | None = None, config: str | Path | None = None, exclude: Sequence[str] = (),
                  include_tests: bool = False, jobs: int | None = None,
                  ) -> tuple[Source, list[tuple[Site, dict[str, Any]]], list[tuple[str, str]]]:
    """What :func:`harvest` would draft from ``source``, without reading or writing any records: the files
    read, every harvestable site with its draft, in file and line order (drift's view of a commit), and the
    files that could not be read at all, with why (path, why): a file with a few syntax errors is read."""
    files, finding = _finding(Path(source), repo=repo, rev=rev, sha=sha, log_levels=log_levels, config=config,
                              exclude=exclude, include_tests=include_tests, keep_sites=True)
    found = finding.run(jobs or 1)
    failed = [(file.path, one[1]) for (file, _), one in zip(finding.files, found, strict=True)
              if one is not None and one[3] and one[1] is not None]
    return files, [(site, draft) for one in found if one is not None for *_, draft, site in one[2]
                   if draft is not None and site is not None], failed


def _finding(root: Path, *, repo: str, rev: str | None, sha: str | None, log_levels: str | None,
             config: str | Path | None, exclude: Sequence[str], include_tests: bool, path_prefix: str | None = None,
             keep_sites: bool = False) -> tuple[Source, _Finding]:
    """The files of ``root`` at ``rev`` and the finding over them, with the settings and sinks in force (the
    shared first steps of :func:`harvest` and :func:`harvest_sites`); the first pass over the tree is done."""
    settings, levels, globs, tests = _settings(root, rev, Path(config) if config else None, log_levels, exclude,
                                               include_tests)
    cache: dict[str, Finder | None] = {}
    files = read_source(root, rev=rev, sha=sha, exclude=globs, include_tests=tests,
                        supported=lambda path: _finder(path, cache) is not None, path_prefix=path_prefix)
    pairs = [(file, finder) for file in files.files if (finder := _finder(file.path, cache)) is not None]
    sinks = {finder.name: (*finder.default_sinks, *settings.sinks) for _, finder in pairs}
    return files, _Finding(pairs, sinks, levels, _constants(pairs), repo=repo, sha=files.sha,
                           analyzed_at=timestamp(os.environ.get("SOURCE_DATE_EPOCH")), keep_sites=keep_sites,
                           version=files.version)


def _merge_and_write(drafts: list[dict[str, Any]], report: HarvestReport, target: Path, to_bundle: bool,
                     check: bool, repo: str) -> None:
    def merged() -> Merge:
        merge = merge_drafts(drafts, read_existing([target]), repo=repo, folder=None if to_bundle else target)
        report.new = [(key, str(path) if path else None) for key, path in merge.new]
        report.updated = [(key, str(path) if path else None, fields) for key, path, fields in merge.updated]
        report.unchanged, report.gone, report.in_bundle = len(merge.unchanged), merge.gone, merge.in_bundle
        report.changed = merge.changed
        return merge

    if to_bundle:
        merge = merged()
        if not merge.envelopes:  # a bundle of no record is refused where bundles are read (EDX005): none written
            report.changed, report.no_bundle = False, True
            return
        data = None  # the bundle's bytes, built once (their JSON and gzip are most of the merge's cost)
        if target.exists():
            try:
                data = bundle_bytes(merge, target) if not merge.changed else None
                report.changed = merge.changed or target.read_bytes() != data
            except OSError:
                report.changed = True
        else:
            report.changed = True
        if report.changed and not check:
            write_bundle(merge, target, data)
        return
    if check:
        merged()
        return
    with locked(target):  # what is compared is what is written over: no other run in between
        merge = merged()
        if merge.writes:
            write_folder(merge, target)
