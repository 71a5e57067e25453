"""Fixtures for the errdex.patterns tests: a persistent node process and hyperscan helpers."""

from __future__ import annotations

import json
import shutil
import subprocess
from collections.abc import Iterator
from typing import Any

import pytest

_NODE_SERVER = r"""
const readline = require('readline');
const rl = readline.createInterface({ input: process.stdin });
rl.on('line', (line) => {
  const req = JSON.parse(line);
  let res;
  try {
    const re = new RegExp(req.p, 'u');
    if (req.op === 'compile') {
      res = { ok: true };
    } else {
      const m = re.exec(req.s);
      res = { ok: true, match: m === null ? null : {
        index: Array.from(req.s.slice(0, m.index)).length,
        groups: Array.from(m, (x) => (x === undefined ? null : x)),
      } };
    }
  } catch (e) {
    res = { ok: false, error: String(e.message) };
  }
  process.stdout.write(JSON.stringify(res) + '\n');
});
"""


class NodeServer:
    """One long-lived node process answering compile/exec requests line by line."""

    def __init__(self, node: str) -> None:
        self.proc = subprocess.Popen([node, "-e", _NODE_SERVER], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, text=True, encoding="utf-8",
                                     bufsize=1)

    def request(self, **req: Any) -> dict[str, Any]:
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.proc.stdin.write(json.dumps(req) + "\n")
        self.proc.stdin.flush()
        return json.loads(self.proc.stdout.readline())

    def compiles(self, source: str) -> tuple[bool, str]:
        r = self.request(op="compile", p=source)
        return r["ok"], r.get("error", "")

    def exec(self, source: str, line: str) -> dict[str, Any] | None:
        r = self.request(op="exec", p=source, s=line)
        assert r["ok"], r
        return r["match"]

    def close(self) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.close()
        self.proc.wait(timeout=10)


@pytest.fixture(scope="session")
def node() -> Iterator[NodeServer | None]:
    """A node server, or None when node is not installed (JS checks are then skipped)."""
    path = shutil.which("node")
    if path is None:
        yield None
        return
    server = NodeServer(path)
    yield server
    server.close()


@pytest.fixture(scope="session")
def duck() -> Iterator[Any]:
    duckdb = pytest.importorskip("duckdb")
    con = duckdb.connect()
    yield con
    con.close()
