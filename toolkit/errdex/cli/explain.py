"""``errdex explain``: a thin wrapper over :func:`errdex.match.explaining.find` and
:func:`errdex.match.explain_page.explain_page`."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import click

from errdex.cli._common import (
    Command,
    color_enabled,
    color_option,
    echo,
    format_option,
    quiet_option,
    records_option,
)
from errdex.cli._pager import page
from errdex.errors import DataError, UsageError, from_oserror
from errdex.match.explain_page import explain_page
from errdex.match.explaining import Found, ProofStatus, find, proof_status
from errdex.match.knowledge import KnowledgeBase, load

__all__ = ["EXPLAIN_MAX_CHARS", "explain_command"]

#: The longest log line or id ``explain`` takes (from the command line or stdin).
EXPLAIN_MAX_CHARS = 1 << 20


def _read_line(records: tuple[str, ...], proofs: str | None) -> str:
    """The one line ``explain -`` reads from stdin."""
    if "-" in records or proofs == "-":
        raise UsageError("--records - or --proofs - and the line both read stdin; give the line as an argument")
    what = sys.stdin.buffer.read(EXPLAIN_MAX_CHARS * 4 + 1).decode("utf-8", "replace").strip("\r\n")
    if not what.strip():
        raise UsageError("explain -: stdin held no line to explain")
    if "\n" in what:
        raise UsageError("explain -: stdin holds several lines; explain takes one (errdex match - takes many)")
    return what


def _read_proofs(path: str) -> dict[str, Any]:
    """A proof report written by ``errdex prove --format json`` (``-``: stdin)."""
    try:
        text = sys.stdin.read() if path == "-" else Path(path).read_text(encoding="utf-8")
    except OSError as exc:
        raise from_oserror(exc) from None
    try:
        report = json.loads(text)
    except ValueError as exc:
        raise DataError(f"{path}: not a proof report of 'errdex prove --format json' ({exc})") from None
    if not isinstance(report, dict):
        raise DataError(f"{path}: not a proof report of 'errdex prove --format json' (not an object)")
    return report


def _proof(found: Found, records: tuple[str, ...], prove: bool, proofs: str | None) -> ProofStatus:
    """The record's proof status: from a run now (``--prove``), from a report file, or none."""
    if proofs is not None:
        return proof_status(_read_proofs(proofs), found.record["id"], source=proofs)
    if not prove:
        return ProofStatus(None, None)
    from errdex.prove import prove as run_proofs  # here: start-up time (it loads the executors)

    report = run_proofs(list(records) or None, only=[found.record["id"]])
    return proof_status(report.as_dict(), found.record["id"], source="this run")


def _history(kb: KnowledgeBase, found: Found, records: tuple[str, ...]) -> dict[str, Any]:
    from errdex.releases import history_folder, record_releases  # here: start-up time (only text shows it)

    folder = history_folder(list(records) or None)
    history = record_releases(folder) if folder else {}
    return {"dataset_version": kb.store.dataset_versions[kb.position(found.record["id"])],
            "releases": history.get(found.record["id"])}


@click.command("explain", cls=Command)
@click.argument("what", metavar="WHAT")
@records_option
@format_option("text", "json", help="text for people; json: the whole record as it is stored.")
@click.option("--short", is_flag=True, help="Only the message, what it means and the fix (under 15 lines).")
@click.option("--no-pager", "no_pager", is_flag=True, help="Never page the text (it is paged only on a terminal).")
@click.option("--prove", "prove", is_flag=True, help="Run the record's scenarios now and show whether they pass.")
@click.option("--program", metavar="NAME", default=None,
              help="A log line: written by this program (e.g. sshd); records of other programs rank after.")
@click.option("--platform", metavar="NAME", default=None,
              help="A log line: the program ran on this platform (e.g. linux, win32).")
@click.option("--proofs", metavar="FILE", default=None,
              help="Read the proof status from a report of 'errdex prove --format json' (- for stdin).")
@color_option
@quiet_option
def explain_command(what: str, records: tuple[str, ...], fmt: str, short: bool, no_pager: bool, prove: bool,
                    proofs: str | None, quiet: bool, program: str | None = None,
                    platform: str | None = None) -> int:
    """Explain a log line or record, the fix first.

    WHAT is a log line (- reads it from stdin), a record id, slug,
    OWNER/REPO/SLUG, or a prefix of an id or slug that only one record has.
    For a log line: the best record, its message with the line's values, what
    it means and how to fix it first, then the rest. Proof status comes only
    from a real run (--prove, or --proofs FILE); a near-miss id or slug gets
    suggestions. On a terminal the text goes through $PAGER (less -FRX).

    \b
    Example:
      errdex explain "ERROR CreateOS request failed (HTTP 502) during process creation."
      errdex explain 2715d7d4 --short
      errdex explain createos-returned-invalid-json --prove
      tail -n 1 app.log | errdex explain -    # the line from stdin
    """
    if prove and proofs is not None:
        raise UsageError("--prove runs the proofs and --proofs reads them; give one")
    if fmt == "json" and (short or prove or proofs is not None):
        raise UsageError("--format json prints the stored record; --short, --prove and --proofs are for text")
    if what == "-":
        what = _read_line(records, proofs)
    if len(what) > EXPLAIN_MAX_CHARS:
        raise UsageError(f"explain takes one log line, id or slug of at most {EXPLAIN_MAX_CHARS:,} characters")
    kb = load(list(records) or None, include_retired=True)
    kb.prefer(program=program, platform=platform)
    found = find(kb, what)
    if fmt == "json":
        echo(json.dumps(found.record, indent=2, ensure_ascii=False) + "\n")
        return 0
    text = explain_page(found, proof=_proof(found, records, prove, proofs), short=short, color=color_enabled(),
                        **({} if short else _history(kb, found, records)))
    page(text, enabled=not no_pager)
    return 0
