"""``errdex executor``: the reference executor's fake CreateOS server, for manual exploration."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from errdex.cli._common import Group, PathType, no_dash, quiet_option
from errdex.errors import InputError, UsageError


@click.group("executor", cls=Group)
def executor_group() -> None:
    """The CreateOS reference executor and its fake server.

    \b
    Example:
      errdex executor serve --port 8765
    """


def _load_plan(path: Path | None) -> dict[str, Any]:
    """The plan file's object, checked against the shape of a scenario's server (as ``prove`` reads one)."""
    if path is None:
        return {}
    # imported here, not at the top: pydantic and the models load only when a plan is given, not for --help
    from pydantic import ValidationError

    from errdex.records.jsonfile import read_json_file
    from errdex.records.models import ScenarioServer

    shape = "an object like a scenario's server: {sandboxes, programs, faults}"
    data = read_json_file(path, hint=f"expected {shape}")
    if not isinstance(data, dict):
        raise InputError(f"{path}: expected {shape}")
    try:
        ScenarioServer.model_validate(data)
    except ValidationError as exc:
        error = exc.errors()[0]
        where = "/".join(str(part) for part in error["loc"])
        raise InputError(f"{path}: /{where}: {error['msg']}") from exc
    return data


@executor_group.command("serve")
@click.option("--host", default="127.0.0.1", show_default=True, help="Address to listen on (loopback only).")
@click.option("--port", type=click.IntRange(0, 65535), default=0, show_default=True, help="Port (0: any free port).")
@click.option("--plan", "plan_path", type=PathType(dir_okay=False, path_type=Path), callback=no_dash,
              help="JSON file shaped like a scenario's server: {sandboxes, programs, faults}.")
@click.option("--api-key", default=None, help="Require this X-Api-Key (default: accept any).")
@quiet_option
def serve_command(host: str, port: int, plan_path: Path | None, api_key: str | None, quiet: bool) -> int:
    """Run the fake CreateOS server until interrupted, printing its URL.

    Point a client at it with CREATEOS_API_URL=<url> and any CREATEOS_API_KEY.
    The plan file takes the same vocabulary as a record scenario's "server".

    \b
    Example:
      errdex executor serve --port 8765
      echo '{"faults": [{"on": "create-process", "action": "drop-after-handling"}]}' > plan.json
      errdex executor serve --plan plan.json
    """
    # start-up: the executor loads only when it runs
    from errdex.executor.createos import serve

    if host not in ("127.0.0.1", "localhost", "::1"):
        raise UsageError("the fake server listens on loopback only (127.0.0.1, localhost or ::1)")
    plan = _load_plan(plan_path)
    try:
        serve(host, port, plan.get("faults"), plan.get("sandboxes"), programs=plan.get("programs"), api_key=api_key)
    except ValueError as exc:
        raise InputError(f"{plan_path}: {exc}") from exc
    return 0
