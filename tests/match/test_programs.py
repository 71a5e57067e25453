"""Records that write the same words in different programs: the line's syslog tag, log4j class or --program
picks the one that wrote it, the same way in ``errdex match`` and the index's ``errdex_match``."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import duckdb
import pytest

import errdex
from errdex.index import build_index
from tests.conftest import ROOT, write_envelope
from tests.processes import run

_SOURCE = ROOT / "records" / "paperclipai" / "paperclip" / "createos-returned-invalid-json.json"
MESSAGE = "Connection closed by remote host"
#: id -> (file, build); ids in the order a tie by id alone would give.
RECORDS: dict[str, tuple[str, dict[str, Any] | None]] = {
    "00000000000b0001": ("regress/netcat.c", {"programs": [], "platform": None, "role": "test"}),
    "00000000000b0002": ("ssh-keyscan.c", {"programs": ["ssh-keyscan"], "platform": None, "role": "main"}),
    "00000000000b0003": ("contrib/win32/sshd_win.c", {"programs": ["sshd"], "platform": "win32", "role": "main"}),
    "00000000000b0004": ("sshd.c", {"programs": ["sshd"], "platform": None, "role": "main"}),
    "00000000000b0005": ("src/java/org/apache/hadoop/dfs/DataNode.java", None),
    "00000000000b0006": ("src/java/org/apache/hadoop/dfs/NameNode.java", None),
}
SSHD, KEYSCAN, WIN32, REGRESS = "00000000000b0004", "00000000000b0002", "00000000000b0003", "00000000000b0001"
#: A line and the id every matcher ranks first.
LINES = {
    f"Dec 10 06:55:46 LabSZ sshd[24200]: {MESSAGE}": SSHD,
    f"Dec 10 06:55:46 LabSZ ssh-keyscan[1]: {MESSAGE}": KEYSCAN,
    f"{MESSAGE}": SSHD,  # no name: main code, every platform, before tests, win32 and the rest by id
    # the regression helper's pattern is the most specific (``error: ...``), but test code ranks after main code
    f"error: {MESSAGE}": KEYSCAN,
    "081109 203518 143 INFO dfs.DataNode$PacketResponder: Block received from host": "00000000000b0005",
    "081109 203518 143 INFO o.a.h.d.NameNode: Block received from host": "00000000000b0006",
    "081109 203518 143 INFO dfs.DataNode.PacketResponder: Block received from host": "00000000000b0005",
}


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("programs") / "records"
    envelope = json.loads(_SOURCE.read_text(encoding="utf-8"))
    for number, (ident, (path, build)) in enumerate(RECORDS.items(), start=1):
        twin: dict[str, Any] = copy.deepcopy(envelope)
        record = twin["record"]
        java = path.endswith(".java")
        message = "Block received from host" if java else MESSAGE
        pattern = f"(.*): {MESSAGE}" if ident == KEYSCAN else message  # the key scanner's prefix: more specific
        pattern = f"error: {MESSAGE}" if ident == REGRESS else pattern  # the most specific of all
        record.update(id=ident, slug=f"connection-closed-by-remote-host-{number}", errorMessage=message,
                      messagePattern=pattern, filePath=path, lineNumber=10 * number, scenarios=[])
        if build is not None:
            record["build"] = build
        record["schemaVersion"] = 4  # the format with the build field
        write_envelope(out, twin)
    return out


def test_the_line_names_the_program_or_class_in_every_matcher(folder: Path, tmp_path: Path) -> None:
    kb = errdex.load([folder])
    con = duckdb.connect(str(build_index([folder], db=tmp_path / "p.duckdb").path), read_only=True)
    try:
        for line, expected in LINES.items():
            cli = [m.view["id"] for m in kb.match(line)]
            sql = [row[0] for row in con.execute("SELECT record_id FROM errdex_match($1) ORDER BY rank", [line])
                   .fetchall()]
            assert cli[0] == expected and cli == sql, line
    finally:
        con.close()


def test_a_record_of_another_program_ranks_after_even_when_more_specific(folder: Path) -> None:
    """The key scanner's pattern holds more literal text, but the line says sshd wrote it."""
    kb = errdex.load([folder])
    assert kb.match(f"error: {MESSAGE}")[0].view["id"] == KEYSCAN  # nothing named: specificity
    found = [m.view["id"] for m in kb.match(f"host sshd[7]: error: {MESSAGE}")]
    assert found[0] == SSHD and found[-1] == KEYSCAN


def test_program_and_platform_options(folder: Path) -> None:
    kb = errdex.load([folder])
    kb.prefer(program="ssh-keyscan")
    assert kb.match(f"error: {MESSAGE}")[0].view["id"] == KEYSCAN
    kb.prefer(program="sshd")
    assert kb.match(f"error: {MESSAGE}")[0].view["id"] == SSHD
    kb.prefer(program="sshd", platform="win32")
    assert kb.match(MESSAGE)[0].view["id"] == WIN32
    kb.prefer(program="sshd", platform="linux")
    found = [m.view["id"] for m in kb.match(f"error: {MESSAGE}")]
    assert found[0] == SSHD and found.index(WIN32) > found.index(REGRESS)  # win32 cannot run on linux


def test_the_cli_options(folder: Path, tmp_path: Path) -> None:
    log = tmp_path / "x.log"
    log.write_text(f"error: {MESSAGE}\n", encoding="utf-8")
    done = run("match", str(log), "--records", str(folder), "--format", "jsonl", "--program", "sshd", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["matches"][0]["id"] == SSHD
    done = run("match", str(log), "--records", str(folder), "--program", " ", cwd=tmp_path)
    assert done.returncode != 0 and "--program names nothing" in done.stderr
