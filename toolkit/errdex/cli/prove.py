"""``errdex prove``: a thin wrapper over :func:`errdex.prove`."""

from __future__ import annotations

import json

import click

from errdex.cli._common import (
    busy,
    color_enabled,
    color_option,
    echo,
    echo_text,
    format_option,
    quiet_option,
    records_option,
    stderr_line,
)
from errdex.errors import UsageError
from errdex.prove import Leftovers, ProofReport, cleanup, prove
from errdex.terminal import safe


def _text(report: ProofReport, color: bool) -> str:
    """The report for a terminal: what a record or a server put in it has its control characters escaped."""
    def mark(ok: bool) -> str:
        word = "pass" if ok else "FAIL"
        return f"\x1b[{'32' if ok else '1;31'}m{word}\x1b[0m" if color else word

    lines = []
    for record in report.records:
        lines.append(f"{mark(record.passed)}  {record.slug}  ({record.id})")
        if record.problem:
            lines.append(f"        {safe(record.problem, newlines=False)}")
        for scenario in record.scenarios:
            observed = scenario.observed
            if observed.get("outcome") == "raises":
                seen = f"{observed['errorClass']}: {observed['message']}"
            elif observed.get("outcome") == "returns":
                result = observed["result"]
                seen = "returned " + ", ".join(f"{k}={result[k]!r}" for k in ("exitCode", "timedOut") if k in result)
            else:
                seen = observed.get("outcome", "?")
            lines.append(f"  {mark(scenario.passed)}  {safe(scenario.id, newlines=False):<34} "
                         f"{scenario.seconds * 1000:6.0f} ms  {safe(seen, newlines=False)}")
            for failure in scenario.failures:
                lines.append(f"        {safe(failure, newlines=False)}")
    return "\n".join(lines) + "\n"


def _cleanup(fmt: str, quiet: bool) -> int:
    found: Leftovers = cleanup()
    if fmt == "json":
        echo(json.dumps({"removed": found.removed, "kept": found.kept, "failed": found.failed}, indent=2,
                        ensure_ascii=False) + "\n")
    else:
        lines = ([f"removed {what}" for what in found.removed] + [f"kept {what}" for what in found.kept]
                 + [f"FAILED {what}" for what in found.failed])
        echo_text("".join(line + "\n" for line in lines))
        if not quiet and not lines:
            stderr_line("nothing was left by a killed errdex prove")
    return 1 if found.failed else 0


@click.command("prove")
@click.argument("only", nargs=-1, metavar="[RECORD ...]")
@records_option
@format_option("text", "json")
@click.option("--timeout", type=click.FloatRange(min=0, min_open=True, max=3600), default=None, metavar="SECONDS",
              help="Fail a scenario still running after this long (default: what its own times need, plus 5 s).")
@click.option("--cleanup", "cleanup_only", is_flag=True,
              help="Only remove what a killed prove left (its sshd, test account, folders), then exit.")
@color_option
@quiet_option
def prove_command(only: tuple[str, ...], records: tuple[str, ...], fmt: str, timeout: float | None,
                  cleanup_only: bool, quiet: bool) -> int:
    """Run every trigger scenario of every record against a fresh fake CreateOS server.

    RECORD is a record id or slug (default: every record). A scenario passes
    when the reference executor raises the recorded error class with a message
    the record's own messagePattern matches (or returns what is expected) and
    the server's ledger shows the expected facts. A scenario still running
    after its time limit fails as "timed out" and its fake server is stopped.
    Exit 1 when a scenario fails or a record has none.

    sshd records run against the real sshd (as root) with a test account. A
    prove stopped by SIGTERM, SIGHUP or Ctrl-C removes them before it exits;
    what one killed by SIGKILL left, the next prove removes first, or
    --cleanup alone (it prints what it removed and what it left alone; exit 1
    when something could not be removed).

    \b
    Example:
      errdex prove
      errdex prove createos-process-creation-could-not-be-confirmed-destroy-the
      errdex prove --format json > proofs.json
      errdex prove --cleanup
    """
    if cleanup_only:
        if only or records or timeout is not None:
            raise UsageError("--cleanup runs no proofs; give it no records and no --timeout")
        return _cleanup(fmt, quiet)
    with busy("proving", quiet=quiet):
        report = prove(list(records) or None, only=list(only) or None, timeout=timeout)
    if not quiet:
        for what in report.leftovers:
            stderr_line(f"errdex: removed what a killed prove left: {what}")
    if fmt == "json":
        echo(json.dumps(report.as_dict(), indent=2, ensure_ascii=False) + "\n")
    else:
        echo(_text(report, color_enabled()))
    if not quiet and fmt == "text":
        s = report.summary()
        stderr_line(
            f"{s['scenariosPassed']}/{s['scenarios']} scenario(s) passed; "
            f"{s['recordsPassed']}/{s['records']} record(s) proved "
            f"in {s['seconds']:.1f} s"
        )
    return 0 if report.passed and report.records else 1
