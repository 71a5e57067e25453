"""Produce examples/worker.log: a worker that runs commands through the CreateOS provider.

Each job runs the reference executor against the fake CreateOS server with a
fault (or none) and logs what a worker would log. Timestamps are synthetic
and fixed so that the file is reproducible:

    .venv/bin/python examples/make_worker_log.py > examples/worker.log
"""

from __future__ import annotations

import sys
from datetime import UTC, datetime, timedelta
from typing import Any

from errdex.executor.createos import CreateosClient, CreateosError, FakeCreateos, execute

RUNNING = [{"output": [{"stream": "stdout", "text": "building...\n"}], "exit": None}]
DONE = [{"output": [{"stream": "stdout", "text": "ok\n"}], "exit": {"exit_code": 0}}]

JOBS: list[tuple[str, list[str], dict[str, Any]]] = [
    ("npm", ["test"], {"programs": DONE}),
    ("npm", ["run", "build"],
     {"programs": RUNNING, "faults": [{"on": "create-process", "action": "drop-after-handling"}]}),
    ("pytest", ["-q"],
     {"faults": [{"on": "create-process", "action": "respond", "status": 502, "body": {"status": "error"}}]}),
    ("make", ["all"],
     {"programs": DONE, "faults": [{"on": "connect", "action": "respond", "status": 410, "body": {}}]}),
    ("git", ["status"], {"programs": DONE}),
    ("cargo", ["build"],
     {"programs": RUNNING,
      "faults": [{"on": "terminate", "action": "terminate-response", "data": {"tree_exited": False}}]}),
    ("ls", ["-la"],
     {"faults": [{"on": "create-process", "action": "respond", "status": 400, "body": {"status": "error"}}]}),
    ("node", ["server.js"],
     {"programs": DONE,
      "faults": [{"on": "connect", "action": "stream", "frames": [{"type": "progress"}], "then": "end"}]}),
]


def main() -> None:
    clock = datetime(2026, 11, 30, 9, 0, 0, tzinfo=UTC)

    def log(level: str, text: str) -> None:
        nonlocal clock
        clock += timedelta(milliseconds=1375)
        stamp = clock.strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z"
        sys.stdout.write(f"{stamp} {level:<5} worker[4211] {text}\n")

    log("INFO", "worker starting; provider=createos concurrency=1")
    for number, (command, args, server) in enumerate(JOBS, start=1):
        with FakeCreateos(plan=server.get("faults"), programs=server.get("programs")) as fake:
            client = CreateosClient(fake.url, "example-key", timeout_ms=1500, pace_ms=0,
                                    poll_interval_ms=20, reconnect_delay_ms=20)
            log("INFO", f"job={number} lease=sbx-1 running: {command} {' '.join(args)}")
            try:
                result = execute(client, "sbx-1", command, args=args, timeout_ms=1000)
            except CreateosError as exc:
                log("ERROR", f"job={number} lease=sbx-1 failed: {exc}")
                if exc.error_class == "CreateosCleanupError":
                    log("WARN", f"job={number} lease=sbx-1 marked for destruction")
                continue
            if result.timed_out:
                log("WARN", f"job={number} lease=sbx-1 timed out; partial output {len(result.stdout)} chars")
            else:
                log("INFO", f"job={number} lease=sbx-1 exited with {result.exit_code}")
    log("ERROR", "metrics exporter failed: connection refused (127.0.0.1:9100)")
    log("INFO", "worker idle")


if __name__ == "__main__":
    main()
