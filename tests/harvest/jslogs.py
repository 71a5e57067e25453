"""A real JavaScript workload and its real logs: npm itself, with the stack's record of which statement logged.

npm (Debian's ``/usr/lib/node_modules/npm``, or ``ERRDEX_NPM``) runs a fixed set of offline commands in a
temporary folder (``init -y``, ``pack``, ``install`` of a local folder and of a local tarball, ``ls``, ``config
list``, ``run`` a script, ``cache verify``, an ``install`` of a package no cache holds...) at ``--loglevel
silly`` with its cache, prefix and home in that folder and its registry on a closed port of 127.0.0.1. npm
writes every log event to a debug log in its cache's ``_logs/`` (``N level title message``, one line each and
each line of a message prefixed). A preload (``tests/harvest/npm_truth.js``, through ``NODE_OPTIONS``) wraps
``process.emit`` and writes, for each ``log`` event, the first stack frame outside ``proc-log``: the
statement that logged it. Each log line is paired with its event in order (same level and title).

    PYTHONPATH=toolkit:. .venv/bin/python -m tests.harvest.jslogs OUT_DIR
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

__all__ = ["NPM", "PRELOAD", "Event", "LogLine", "npm_folder", "pair", "run_npm_workload"]

NPM = Path(os.environ.get("ERRDEX_NPM", "/usr/lib/node_modules/npm"))
PRELOAD = Path(__file__).resolve().with_name("npm_truth.js")
_LINE = re.compile(r"^(\d+) (\S+) ?(.*)$")


def npm_folder() -> Path | None:
    """npm's folder when node and npm are both here, else None."""
    node = shutil.which("node")
    return NPM if node is not None and (NPM / "bin" / "npm-cli.js").is_file() else None


@dataclass(frozen=True)
class Event:
    """One log event as the preload saw it: its level and title, and the frame that logged it."""

    level: str
    title: str | None
    file: str
    line: int
    column: int


@dataclass(frozen=True)
class LogLine:
    """The first line npm wrote for an event to the combined log (``number``, 1-based) and its event."""

    number: int
    text: str
    event: Event


def _commands(work: Path) -> list[tuple[str, list[str]]]:
    """(folder to run in, npm arguments) for each command of the workload."""
    project, dep = str(work / "project"), str(work / "dep")
    return [
        (dep, ["init", "-y"]),
        (dep, ["pack"]),
        (project, ["init", "-y"]),
        (project, ["install", "../dep"]),
        (project, ["install", "../dep/errdex-dep-1.0.0.tgz"]),
        (project, ["ls", "--all"]),
        (project, ["ls", "--json"]),
        (project, ["config", "list"]),
        (project, ["config", "get", "cache"]),
        (project, ["run", "hello"]),
        (project, ["run", "missing-script"]),
        (project, ["cache", "verify"]),
        (project, ["pkg", "get", "name"]),
        (project, ["explain", "errdex-dep"]),
        (project, ["outdated"]),
        (project, ["install", "no-such-package-errdex"]),
        (project, ["install", "--dry-run", "../dep"]),
        (project, ["ci"]),
        (project, ["rebuild"]),
        (project, ["dedupe"]),
        (project, ["query", ":root > *"]),
        (project, ["sbom"]),
        (project, ["fund"]),
        (project, ["config", "set", "errdex-demo", "on", "--location", "project"]),
        (project, ["config", "delete", "errdex-demo", "--location", "project"]),
        (project, ["version", "patch", "--no-git-tag-version"]),
        (project, ["pack", "--dry-run"]),
        (project, ["publish", "--dry-run"]),
        (project, ["view", "errdex-dep"]),
        (project, ["audit"]),
        (project, ["link", "../dep"]),
        (project, ["exec", "--", "node", "-e", "1"]),
        (project, ["run", "hello", "--if-present"]),
        (project, ["set-script"]),
        (project, ["uninstall", "errdex-dep"]),
        (project, ["prune"]),
        (project, ["cache", "clean", "--force"]),
    ]


def _prepare(work: Path) -> None:
    (work / "dep").mkdir(parents=True, exist_ok=True)
    (work / "dep" / "package.json").write_text(json.dumps(
        {"name": "errdex-dep", "version": "1.0.0", "main": "index.js", "license": "MIT"}) + "\n")
    (work / "dep" / "index.js").write_text("module.exports = 1\n")
    (work / "project").mkdir(parents=True, exist_ok=True)
    (work / "project" / "package.json").write_text(json.dumps(
        {"name": "errdex-project", "version": "1.0.0", "license": "MIT",
         "scripts": {"hello": "node -e \"console.log('hello')\""}}) + "\n")


def run_npm_workload(work: Path, npm: Path = NPM) -> list[LogLine]:
    """Run the npm commands in ``work``; the combined log at ``work/npm.log`` and each line's event."""
    _prepare(work)
    cache, home = work / "cache", work / "home"
    home.mkdir(exist_ok=True)
    env = {key: value for key, value in os.environ.items() if not key.lower().startswith("npm_")}
    env.update({"HOME": str(home), "npm_config_cache": str(cache), "npm_config_prefix": str(work / "prefix"),
                "npm_config_userconfig": str(home / ".npmrc"), "npm_config_globalconfig": str(work / "npmrc"),
                "npm_config_registry": "http://127.0.0.1:9/", "npm_config_offline": "true",
                "npm_config_loglevel": "silly", "npm_config_logs_max": "1000", "npm_config_update_notifier": "false",
                "npm_config_fund": "false", "npm_config_audit": "false", "NO_COLOR": "1", "CI": "",
                "NODE_OPTIONS": f"--require {PRELOAD}"})
    lines: list[LogLine] = []
    written: list[str] = []
    for number, (folder, arguments) in enumerate(_commands(work)):
        truth = work / f"truth-{number:02}.jsonl"
        logs = cache / "_logs"
        before = set(logs.iterdir()) if logs.is_dir() else set()
        subprocess.run(["node", str(npm / "bin" / "npm-cli.js"), *arguments], cwd=folder,
                       env={**env, "ERRDEX_TRUTH": str(truth)}, stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL, check=False, timeout=120)
        new = sorted(set(logs.iterdir()) - before) if logs.is_dir() else []
        events = [json.loads(row) for row in truth.read_text(encoding="utf-8").splitlines()] \
            if truth.is_file() else []
        for log in new:
            raw = log.read_text(encoding="utf-8", errors="replace").splitlines()
            lines.extend(pair(raw, events, len(written)))
            written.extend(raw)
    (work / "npm.log").write_text("".join(f"{line}\n" for line in written), encoding="utf-8")
    return lines


def pair(raw: list[str], events: list[dict[str, object]], offset: int = 0) -> list[LogLine]:
    """Each event's first line in ``raw`` (a debug log) with its event, in order: a line ``N level title ...``
    starts event N when its level and title are the next unpaired event's; the lines after it in the same
    event (a message of several lines) are not counted."""
    found: list[LogLine] = []
    cursor, seen = 0, -1
    for index, line in enumerate(raw):
        m = _LINE.match(line)
        if m is None or int(m[1]) == seen:
            continue
        seen = int(m[1])
        while cursor < len(events):
            event = events[cursor]
            cursor += 1
            title = event.get("title")
            at = event.get("at")
            if event.get("level") == m[2] and (not title or m[3].startswith(str(title))):
                if isinstance(at, dict):
                    found.append(LogLine(offset + index + 1, line, Event(
                        str(event["level"]), None if title is None else str(title), str(at["file"]),
                        int(at["line"]), int(at["column"]))))
                break
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path)
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    lines = run_npm_workload(args.out.resolve())
    inside = sum(1 for line in lines if "/node_modules/npm/lib/" in line.event.file)
    print(f"{len(lines)} lines paired, {inside} logged by npm's own lib/")


if __name__ == "__main__":
    main()
