"""``errdex prove``: a thin wrapper over :func:`errdex.prove`."""

from __future__ import annotations

import json

import click

from errdex.cli._common import (
    busy,
    color_enabled,
    color_option,
    echo,
    format_option,
    quiet_option,
    records_option,
    stderr_line,
)
from errdex.prove import ProofReport, prove
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


@click.command("prove")
@click.argument("only", nargs=-1, metavar="[RECORD ...]")
@records_option
@format_option("text", "json")
@click.option("--timeout", type=click.FloatRange(min=0, min_open=True, max=3600), default=None, metavar="SECONDS",
              help="Fail a scenario still running after this long (default: what its own times need, plus 5 s).")
@color_option
@quiet_option
def prove_command(only: tuple[str, ...], records: tuple[str, ...], fmt: str, timeout: float | None,
                  quiet: bool) -> int:
    """Run every trigger scenario of every record against a fresh fake CreateOS server.

    RECORD is a record id or slug (default: every record). A scenario passes
    when the reference executor raises the recorded error class with a message
    the record's own messagePattern matches (or returns what is expected) and
    the server's ledger shows the expected facts. A scenario still running
    after its time limit fails as "timed out" and its fake server is stopped.
    Exit 1 when a scenario fails or a record has none.

    \b
    Example:
      errdex prove
      errdex prove createos-process-creation-could-not-be-confirmed-destroy-the
      errdex prove --format json > proofs.json
    """
    with busy("proving", quiet=quiet):
        report = prove(list(records) or None, only=list(only) or None, timeout=timeout)
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
