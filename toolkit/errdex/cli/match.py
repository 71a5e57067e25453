"""``errdex match`` and ``errdex explain``: thin wrappers over :mod:`errdex.match`."""

from __future__ import annotations

import json
import sys
from typing import Any

import click

from errdex.cli._common import (
    color_enabled,
    echo,
    quiet_option,
    records_option,
    stderr_line,
)
from errdex.cli._pages import site_page
from errdex.errors import RecordNotFound, UsageError
from errdex.match.knowledge import KnowledgeBase, load
from errdex.match.render import drafts_text, explain_text, match_text
from errdex.match.run import MatchSummary, match_files
from errdex.records.vocabulary import LOG_MESSAGE_FIELDS, SEVERITY_RANK, is_draft
from errdex.terminal import safe


def _summary_text(summary: MatchSummary, kb: KnowledgeBase) -> str:
    data = summary.as_dict()
    lines = [f"{data['matchedLines']} of {data['lines']} line(s) matched a record"]
    for entry in data["records"]:
        first, last = entry["first"], entry["last"]
        lines.append(
            f"  {entry['count']:>6}  {entry['errorClass']:<22} {entry['slug']}  "
            f"(first {first['file']}:{first['line']}, last {last['file']}:{last['line']})"
        )
    lines.append(f"{data['unclassified']} error-looking line(s) matched no record")
    for sample in data["unclassifiedSamples"][:20]:
        lines.append(f"  {sample['file']}:{sample['line']}: {sample['text'][:160]}")
    drafts = {entry["id"]: kb.get(entry["id"]) for entry in data["records"]
              if is_draft(kb.store.views[kb.position(entry["id"])])}
    return safe("\n".join(lines)) + "\n" + drafts_text(data["records"], drafts)


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


def _report_totals(totals: MatchSummary, kb: KnowledgeBase, *, fmt: str, summary: bool) -> None:
    """The summary (``--format json`` or ``--summary``) once every input is read."""
    if fmt == "json":
        echo(json.dumps(totals.as_dict(), indent=2, ensure_ascii=False) + "\n")
    elif summary:
        (stderr_line if fmt == "jsonl" else echo)(_summary_text(totals, kb))


def _report_problems(totals: MatchSummary, *, shown: int, fmt: str, summary: bool, quiet: bool) -> None:
    """Warnings, the problems not printed yet (the first ``shown`` were, while following) and the count line."""
    if not quiet:
        for warning in totals.warnings:
            stderr_line(f"errdex: warning: {warning}")
        if totals.unshown_warnings:
            stderr_line(f"errdex: warning: {totals.unshown_warnings} more warning(s) like these")
    for problem in totals.problems[shown:]:
        stderr_line(f"errdex: error: {problem}")
    if not quiet and fmt == "text" and not summary:
        stderr_line(f"{totals.matched_lines} of {totals.lines} line(s) matched a record")


@click.command("match")
@click.argument("files", nargs=-1, metavar="[FILE ... | -]")
@records_option
@click.option("--format", "fmt", type=click.Choice(["text", "jsonl", "json"]), default="text", show_default=True,
              help="text for people; jsonl: one object per matched line; json: the summary as one object.")
@click.option("--summary", is_flag=True, help="Counts per record, first and last line, unclassified error lines, "
                                              "and the drafts that matched most (document these first).")
@click.option("--fail-on", type=click.Choice(list(SEVERITY_RANK)), default=None,
              help="Exit 1 when a match at or above this severity is found (for CI gating).")
@click.option("--follow", is_flag=True, help="Keep reading growing files, by name like tail -F (stop with Ctrl-C).")
@click.option("--field", "fields", multiple=True, metavar="NAME",
              help="JSON log field to match besides the raw line "
                   f"(repeatable; default: {', '.join(LOG_MESSAGE_FIELDS)}).")
@click.option("--include-retired", is_flag=True, help="Also match withdrawn and superseded records.")
@click.option("--jobs", "-j", type=click.IntRange(min=1), default=None, metavar="N",
              help="Processes for one large file (default: the CPUs available; the output does not depend on it).")
@quiet_option
def match_command(files: tuple[str, ...], records: tuple[str, ...], fmt: str, summary: bool, fail_on: str | None,
                  follow: bool, fields: tuple[str, ...], include_retired: bool, jobs: int | None, quiet: bool) -> int:
    """Match log lines to records: every record whose messagePattern occurs in a line, best first.

    FILE may be plain or compressed (gzip, bzip2, xz); - (or nothing) reads
    stdin as a stream, each line matched as soon as it arrives. Ranking:
    most literal characters in the pattern, then fewest variable parts, then
    record id.

    \b
    Example:
      errdex match examples/worker.log
      errdex match app.log.gz --format jsonl
      kubectl logs pod/worker | errdex match - --summary --fail-on error
    """
    _refuse_conflicts(files, records, follow, fields)
    kb = _load_knowledge(records, fields, include_retired, quiet)
    skipped_before = _warn_skipped(kb, 0, quiet)
    color = color_enabled()
    totals = MatchSummary()
    shown: list[str] = []  # problems already printed as they were met
    if follow:
        def report(problem: str) -> None:
            stderr_line(f"errdex: error: {problem}")
            shown.append(problem)

        totals.on_problem = report
    worst = -1
    for found in match_files(list(files) or ["-"], kb=kb, summary=totals, follow=follow,
                             unclassified=summary or fmt == "json", jobs=jobs):
        worst = max(worst, max(SEVERITY_RANK.get(m.view["severity"], 0) for m in found.matches))
        if fmt == "jsonl":
            echo(kb.jsonl(found) + "\n")
        elif fmt == "text" and not summary:
            best = found.matches[0]
            echo(match_text(found.source, found.number, found.text, best, len(found.matches) - 1,
                            page=site_page(best.record), color=color))
    _report_totals(totals, kb, fmt=fmt, summary=summary)
    _warn_skipped(kb, skipped_before, quiet)
    _report_problems(totals, shown=len(shown), fmt=fmt, summary=summary, quiet=quiet)
    if fail_on is not None and worst >= SEVERITY_RANK[fail_on]:
        return 1
    return 1 if totals.problems else 0


#: The longest log line or id ``explain`` takes (from the command line or stdin).
EXPLAIN_MAX_CHARS = 1 << 20


@click.command("explain")
@click.argument("what")
@records_option
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True)
def explain_command(what: str, records: tuple[str, ...], fmt: str) -> int:
    """Print a record: by id, by slug, or the best record for a log line.

    \b
    Example:
      errdex explain createos-process-creation-could-not-be-confirmed-destroy-the
      errdex explain 2715d7d48ff9726c
      errdex explain "ERROR CreateOS request failed (HTTP 502) during process creation."
      tail -n 1 app.log | errdex explain -    # the line from stdin
    """
    if what == "-":
        if "-" in records:
            raise UsageError("--records - and the line both read stdin; give the line as an argument")
        what = sys.stdin.buffer.read(EXPLAIN_MAX_CHARS * 4 + 1).decode("utf-8", "replace").strip("\r\n")
        if not what.strip():
            raise UsageError("explain -: stdin held no line to explain")
        if "\n" in what:
            raise UsageError("explain -: stdin holds several lines; explain takes one (errdex match - takes many)")
    if len(what) > EXPLAIN_MAX_CHARS:
        raise UsageError(f"explain takes one log line, id or slug of at most {EXPLAIN_MAX_CHARS:,} characters")
    kb = load(list(records) or None, include_retired=True)
    try:
        record = kb.get(what)
    except RecordNotFound:
        matches = kb.match(what)
        if not matches:
            shown = what if len(what) <= 200 else what[:200] + "..."
            raise RecordNotFound(
                f"no record with id or slug {shown!r}, and no record matches it as a log line") from None
        record = matches[0].record
    if fmt == "json":
        echo(json.dumps(record, indent=2, ensure_ascii=False) + "\n")
    else:
        from errdex.releases import (  # here: only text output shows the history
            history_folder,
            record_releases,
        )

        folder = history_folder(list(records) or None)
        history = record_releases(folder) if folder else {}
        dataset_version = kb.store.dataset_versions[kb.position(record["id"])]
        echo(explain_text(record, color=color_enabled(), dataset_version=dataset_version,
                          releases=history.get(record["id"])))
    return 0
