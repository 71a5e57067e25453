"""``errdex executor``: the reference executor's fake CreateOS server, for manual exploration."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from errdex.cli._common import no_dash
from errdex.errors import UsageError


@click.group("executor")
def executor_group() -> None:
    """The CreateOS reference executor and its fake server.

    \b
    Example:
      errdex executor serve --port 8765
    """


#: A plan is a few faults, programs and sandboxes: a larger file is refused rather than read whole.
MAX_PLAN_BYTES = 1 << 20


def _load_plan(path: Path | None) -> dict[str, Any]:
    """The plan file, read as strictly as a record (no NaN, no duplicate key, bounded size and nesting); a FIFO
    or a device is refused instead of waited on or read forever."""
    from errdex._files import read_regular
    from errdex.records.jsontext import parse_document

    if path is None:
        return {}
    data = read_regular(path, limit=MAX_PLAN_BYTES, error=UsageError, what="a plan")
    document = parse_document(data)
    if document.problems:
        problem = document.problems[0]
        raise UsageError(f"{path}:{problem.line}:{problem.column}: {problem.message}")
    plan = document.value
    if not isinstance(plan, dict):
        raise UsageError(f"{path}: expected an object like a scenario's server: {{sandboxes, programs, faults}}")
    for key, kind, shown in (("faults", list, "a list of fault rules"), ("programs", list, "a list of programs"),
                             ("sandboxes", dict, "an object of sandbox ids")):
        if plan.get(key) is not None and not isinstance(plan[key], kind):
            raise UsageError(f"{path}: '{key}' must be {shown}")
    return plan


@executor_group.command("serve")
@click.option("--host", default="127.0.0.1", show_default=True, help="Address to listen on (loopback only).")
@click.option("--port", type=click.IntRange(0, 65535), default=0, show_default=True, help="Port (0: any free port).")
@click.option("--plan", "plan_path", type=click.Path(dir_okay=False, path_type=Path), callback=no_dash,
              help="JSON file shaped like a scenario's server: {sandboxes, programs, faults}.")
@click.option("--api-key", default=None, help="Require this X-Api-Key (default: accept any).")
def serve_command(host: str, port: int, plan_path: Path | None, api_key: str | None) -> int:
    """Run the fake CreateOS server until interrupted, printing its URL.

    Point a client at it with CREATEOS_API_URL=<url> and any CREATEOS_API_KEY.
    The plan file takes the same vocabulary as a record scenario's "server".

    \b
    Example:
      errdex executor serve --port 8765
      echo '{"faults": [{"on": "create-process", "action": "drop-after-handling"}]}' > plan.json
      errdex executor serve --plan plan.json
    """
    from errdex.executor.createos import serve

    if host not in ("127.0.0.1", "localhost", "::1"):
        raise UsageError("the fake server listens on loopback only (127.0.0.1, localhost or ::1)")
    plan = _load_plan(plan_path)
    try:
        serve(host, port, plan.get("faults"), plan.get("sandboxes"), programs=plan.get("programs"), api_key=api_key)
    except ValueError as exc:
        raise UsageError(f"{plan_path}: {exc}") from exc
    return 0
