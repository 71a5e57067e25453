"""``errdex match``: a thin wrapper over :mod:`errdex.match` (``errdex explain`` is in :mod:`errdex.cli.explain`)."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import click

from errdex.cli._common import (
    PATH_TEXT,
    StdinNoticeCommand,
    color_enabled,
    color_option,
    echo,
    format_option,
    quiet_option,
    records_option,
    stderr_line,
)
from errdex.cli._pages import DEFAULT_SITE, page_finder
from errdex.errors import UsageError
from errdex.match.grouping import GroupedSummary
from errdex.match.knowledge import KnowledgeBase, load
from errdex.match.render import drafts_text, match_text
from errdex.match.render_groups import groups_text, summary_text
from errdex.match.run import MatchSummary, match_files, match_files_jsonl
from errdex.records.vocabulary import LOG_MESSAGE_FIELDS, SEVERITY_RANK, is_draft

#: Option pairs ``match`` refuses (a usage error, exit 2) rather than ignore one of them: (first, second, why).
#: The README's match section shows this table.
CONFLICTS: tuple[tuple[str, str, str], ...] = (
    ("--summary", "--format jsonl", "jsonl is one object per matched line; the summary is text (json holds it)"),
    ("--summary", "--format json", "json already is the summary"),
    ("--each", "--summary", "--each prints every line; --summary prints none"),
    ("--each", "--format jsonl", "jsonl is one object per line already"),
    ("--each", "--format json", "json is the summary, with no line"),
    ("--follow", "--summary", "a summary comes at the end, and following has none"),
    ("--follow", "--format json", "the json summary comes at the end, and following has none"),
    ("--site", "--site-url", "give the built site folder or the published URL, not both"),
)


def _refuse_pairs(given: set[str]) -> None:
    """The first pair of :data:`CONFLICTS` that is fully given, refused in one line."""
    for first, second, why in CONFLICTS:
        if first in given and second in given:
            raise UsageError(f"{first} and {second} cannot be used together: {why}")


def _warn_skipped(kb: Any, already: int, quiet: bool) -> int:
    """One warning line for the records no engine can match (skipped since ``already``); the count so far."""
    skipped = kb.matcher.skipped
    fresh = skipped[already:]
    if fresh and not quiet:
        record, reason = fresh[0]
        many = len(fresh) > 1
        stderr_line(f"errdex: warning: {len(fresh)} record{'s are' if many else ' is'} not matched: "
                    f"{'their patterns' if many else 'its pattern'} cannot run in every engine "
                    f"(first: {record['id']}: {reason}; run 'errdex validate')")
    return len(skipped)


def _refuse_conflicts(files: tuple[str, ...], records: tuple[str, ...], follow: bool, fields: tuple[str, ...]) -> None:
    """Refuse, as a usage error, options that cannot be honoured together."""
    if follow and (not files or "-" in files):
        raise UsageError("--follow needs a file, not stdin")
    if "-" in records and (not files or "-" in files):
        raise UsageError("--records - and the log both read stdin; name a log FILE or a records file")
    blank = next((name for name in fields if not name.strip()), None)
    if blank is not None:
        raise UsageError(f"--field {blank!r} names no JSON field; give a field name such as message")


def _load_knowledge(records: tuple[str, ...], fields: tuple[str, ...], include_retired: bool,
                    quiet: bool) -> KnowledgeBase:
    """The knowledge base to match with, warning about records that do not conform (they are matched anyway)."""
    kb = load(list(records) or None, fields=fields or LOG_MESSAGE_FIELDS, include_retired=include_retired, partial=True)
    if kb.store.problems and not quiet:
        count = len(kb.store.problems)
        stderr_line(f"errdex: warning: {count} record{'s do' if count > 1 else ' does'} not conform to its format and "
                    f"{'are' if count > 1 else 'is'} matched anyway (first: {kb.store.problems[0]})")
    return kb


def _drafts(totals: MatchSummary, kb: KnowledgeBase) -> str:
    """The drafts that matched, most lines first (what to document first)."""
    entries = totals.as_dict()["records"]
    drafts = {entry["id"]: kb.get(entry["id"]) for entry in entries
              if is_draft(kb.store.views[kb.position(entry["id"])])}
    return drafts_text(entries, drafts)


def _report_totals(totals: MatchSummary, kb: KnowledgeBase, *, fmt: str, layout: str,
                   page: Callable[[dict[str, Any]], str | None], color: bool) -> None:
    """What comes once every input is read: the json summary, the ``--summary`` text, or the grouped blocks
    and their closing summary."""
    if fmt == "json":
        echo(json.dumps(totals.as_dict(), indent=2, ensure_ascii=False) + "\n")
    elif not isinstance(totals, GroupedSummary):  # jsonl: its lines were the output
        return
    elif layout == "summary":
        echo(summary_text(totals) + _drafts(totals, kb))
    elif layout == "grouped":
        echo(groups_text(totals, page=page, color=color))


def _report_problems(totals: MatchSummary, *, shown: int, count_line: bool, quiet: bool) -> None:
    """Warnings, the problems not printed yet (the first ``shown`` were, while following) and the count line
    (the per-line layout's closing word; the others print their own summary)."""
    if not quiet:
        for warning in totals.warnings:
            stderr_line(f"errdex: warning: {warning}")
        if totals.unshown_warnings:
            stderr_line(f"errdex: warning: {totals.unshown_warnings} more warning(s) like these")
    for problem in totals.problems[shown:]:
        stderr_line(f"errdex: error: {problem}")
    if not quiet and count_line:
        stderr_line(f"{totals.matched_lines} of {totals.lines} line(s) matched a record")


def _given(fmt: str, summary: bool, each: bool, follow: bool, site: str | None, site_url: str | None) -> set[str]:
    """The options given, as :data:`CONFLICTS` names them."""
    flags = {"--summary": summary, "--each": each, "--follow": follow, "--site": site is not None,
             "--site-url": site_url is not None, f"--format {fmt}": fmt != "text"}
    return {name for name, on in flags.items() if on}


@click.command("match", cls=StdinNoticeCommand)
@click.argument("files", nargs=-1, metavar="[FILE ... | -]", type=PATH_TEXT)
@records_option
@format_option("text", "jsonl", "json",
               help="text for people; jsonl: one object per matched line; json: the summary as one object.")
@click.option("--each", is_flag=True, help="Text: one block per matched line, as it is read, instead of one per "
                                           "record at the end (the layout --follow always uses).")
@click.option("--summary", is_flag=True, help="Counts per record with severity, time range and fix, the "
                                              "unclassified error lines, and the drafts that matched most.")
@click.option("--fail-on", type=click.Choice(list(SEVERITY_RANK)), default=None,
              help="Exit 1 when a match at or above this severity is found (for CI gating).")
@click.option("--follow", is_flag=True, help="Keep reading growing files, by name like tail -F (stop with Ctrl-C).")
@click.option("--field", "fields", multiple=True, metavar="NAME",
              help="JSON log field to match besides the raw line "
                   f"(repeatable; default: {', '.join(LOG_MESSAGE_FIELDS)}).")
@click.option("--include-retired", is_flag=True, help="Also match withdrawn and superseded records.")
@click.option("--program", metavar="NAME", default=None,
              help="The lines were written by this program (e.g. sshd): records of other programs rank after.")
@click.option("--platform", metavar="NAME", default=None,
              help="The program ran on this platform (e.g. linux, win32): records for others rank after.")
@click.option("--text", "-a", "as_text", is_flag=True,
              help="Match an input that starts with binary data (a NUL byte or bytes that are not UTF-8 in its "
                   "first 32 KiB) as text; by default it is skipped, as grep does.")
@click.option("--jobs", "-j", type=click.IntRange(min=1), default=None, metavar="N",
              help="Processes for one large file (default: the CPUs available; the output does not depend on it).")
@click.option("--site", metavar="DIR", default=None,
              help=f"A built site folder: link each record's page there when it exists (default: {DEFAULT_SITE}).")
@click.option("--site-url", metavar="URL", default=None,
              help="Where the site is published: link every record's page under it (default: $ERRDEX_SITE_URL).")
@color_option
@quiet_option
def match_command(files: tuple[str, ...], records: tuple[str, ...], fmt: str, each: bool, summary: bool,
                  fail_on: str | None, follow: bool, fields: tuple[str, ...], include_retired: bool, as_text: bool,
                  jobs: int | None, site: str | None, site_url: str | None, quiet: bool,
                  program: str | None = None, platform: str | None = None) -> int:
    """Match log lines to records, grouped by record: message, severity, fix, count, when, which lines.

    Each record that matched gets one block (most severe first): its
    message, severity and class, its first fix, how many lines and the
    first and last timestamp among them, the first line numbers, and the
    captured values that vary; then a closing summary (lines read and
    matched, per severity, the error-looking lines no record explains, by
    shape). --each prints one block per line as it is read instead.

    FILE may be plain or compressed (gzip, bzip2, xz); - (or nothing) reads
    stdin as a stream. Ranking: a record whose file is built into other
    programs than the one the line names (its syslog tag, or --program) or
    for another platform (--platform) comes after those that could have
    written it; then most literal characters in the pattern, fewest variable
    parts; among equals, the record whose file, class or module the line
    names, one built into the named program, one for every platform or unix
    over another, main code over contrib and tests; then record id. A
    record's page is linked when the built site holds it or a site URL is
    set.

    \b
    Example:
      errdex match examples/worker.log
      errdex match app.log.gz --format jsonl
      kubectl logs pod/worker | errdex match - --summary --fail-on error
    """
    _refuse_pairs(_given(fmt, summary, each, follow, site, site_url))
    _refuse_conflicts(files, records, follow, fields)
    kb = _load_knowledge(records, fields, include_retired, quiet)
    kb.prefer(program=program, platform=platform)
    skipped_before = _warn_skipped(kb, 0, quiet)
    color = color_enabled()
    page = page_finder(site, site_url)
    # the text layout; "data" for jsonl and json (refused with --summary and --each above)
    layout = "data" if fmt != "text" else "summary" if summary else "each" if each or follow else "grouped"
    # the grouped blocks and --summary read the groups; jsonl and json only the plain counts
    totals = GroupedSummary() if layout != "data" else MatchSummary()
    shown: list[str] = []  # problems already printed as they were met
    if follow:
        def report(problem: str) -> None:
            stderr_line(f"errdex: error: {problem}")
            shown.append(problem)

        totals.on_problem = report
    if fmt == "jsonl" and not follow:  # each block's lines written by the process that matched them
        for text in match_files_jsonl(list(files) or ["-"], kb=kb, summary=totals, jobs=jobs, text=as_text):
            echo(text)
    else:
        for found in match_files(list(files) or ["-"], kb=kb, summary=totals, follow=follow,
                                 unclassified=fmt == "json" or layout in ("summary", "grouped"), jobs=jobs,
                                 text=as_text):
            if fmt == "jsonl":
                echo(kb.jsonl(found) + "\n")
            elif layout == "each":
                best = found.matches[0]
                echo(match_text(found.source, found.number, found.text, best, len(found.matches) - 1 + found.more,
                                page=page(best.record), color=color, unchecked=found.unchecked))
    read = totals.unread < totals.inputs  # else every input failed: its one-line errors are all there is to say
    if read:
        _report_totals(totals, kb, fmt=fmt, layout=layout, page=page, color=color)
    _warn_skipped(kb, skipped_before, quiet)
    _report_problems(totals, shown=len(shown), count_line=layout == "each" and read, quiet=quiet)
    if fail_on is not None and totals.worst >= SEVERITY_RANK[fail_on]:
        return 1
    return 1 if totals.problems else 0
