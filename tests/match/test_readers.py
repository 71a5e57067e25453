"""Reading logs: pipes that print each line promptly, named pipes, compressed and damaged input."""

from __future__ import annotations

import bz2
import gzip
import json
import lzma
import os
import select
import subprocess
import threading
from pathlib import Path

import pytest

import errdex
from errdex.match import readers
from errdex.match.run import MatchSummary, match_files
from tests.match.helpers import SEED_MESSAGE
from tests.match.helpers import errdex_child as _errdex


@pytest.fixture(scope="module")
def kb() -> errdex.KnowledgeBase:
    return errdex.load()


def test_a_live_pipe_gets_each_result_as_soon_as_its_line_is_written() -> None:
    child = _errdex("match", "-", "--format", "jsonl", stdin=subprocess.PIPE)
    try:
        assert child.stdin is not None and child.stdout is not None
        for number in (1, 2):
            child.stdin.write(f"job {number} failed: {SEED_MESSAGE}\n".encode())
            child.stdin.flush()
            ready, _, _ = select.select([child.stdout], [], [], 20)  # the pipe stays open: no end of input
            assert ready, "no result while the pipe is still open"
            assert json.loads(child.stdout.readline())["line"] == number
    finally:
        child.kill()
        child.wait()


def test_a_named_pipe_without_a_writer_is_refused_after_a_wait(tmp_path: Path) -> None:
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    child = _errdex("match", str(fifo), setup="import errdex.match.readers as r; r.FIFO_WAIT_SECONDS = 0.3")
    try:
        _out, err = child.communicate(timeout=30)
    finally:
        child.kill()
    assert child.returncode == 1
    assert f"errdex: error: {fifo}: a named pipe that no program writes to (waited 0.3 s)" in err.decode()


def test_a_named_pipe_is_read_once_a_writer_comes(tmp_path: Path, kb: errdex.KnowledgeBase) -> None:
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)

    def writer() -> None:
        with open(fifo, "wb") as handle:  # blocks until the reader has opened it
            handle.write(f"x {SEED_MESSAGE}\n".encode())

    thread = threading.Thread(target=writer, daemon=True)
    thread.start()
    assert [f.number for f in match_files([fifo], kb=kb)] == [1]
    thread.join(10)


def test_devices_that_never_end_are_refused(kb: errdex.KnowledgeBase) -> None:
    summary = MatchSummary()
    assert list(match_files(["/dev/zero", os.devnull], kb=kb, summary=summary)) == []
    assert summary.problems == ["/dev/zero: not a regular file, pipe or terminal; reading it might never end"]
    assert summary.lines == 0


def _log(lines: int) -> bytes:
    return b"".join(f"{i} x {SEED_MESSAGE}\n".encode() for i in range(lines))


def test_a_truncated_gzip_matches_the_lines_before_the_damage(tmp_path: Path, kb: errdex.KnowledgeBase) -> None:
    packed = gzip.compress(_log(2000))
    damaged = tmp_path / "x.log.gz"
    damaged.write_bytes(packed[: len(packed) // 2])
    summary = MatchSummary()
    found = [f.number for f in match_files([damaged], kb=kb, summary=summary)]
    assert len(found) > 100 and found == list(range(1, len(found) + 1))
    assert summary.problems == [f"{damaged}: damaged gzip data (the data ends early); "
                                "the lines before the damage were matched"]
    garbled = tmp_path / "y.log.gz"
    garbled.write_bytes(packed[:30] + b"\x00" * 64 + packed[94:])
    summary = MatchSummary()
    list(match_files([garbled], kb=kb, summary=summary))
    assert len(summary.problems) == 1 and summary.problems[0].startswith(f"{garbled}: damaged gzip data (")


@pytest.mark.parametrize("compress", [gzip.compress, bz2.compress, lzma.compress], ids=["gzip", "bzip2", "xz"])
def test_compressed_stdin_and_files_are_decompressed(cli, tmp_path: Path, compress) -> None:
    data = compress(_log(3))
    result = cli("match", "-", "--format", "jsonl", input=data)
    assert result.exit_code == 0 and [json.loads(row)["line"] for row in result.stdout.splitlines()] == [1, 2, 3]
    path = tmp_path / "x.log.packed"
    path.write_bytes(data)
    rows = cli("match", str(path), "--format", "jsonl").stdout.splitlines()
    assert [json.loads(row)["line"] for row in rows] == [1, 2, 3]


def _utmp_like() -> bytes:
    """What /var/log/btmp holds: fixed-size records, mostly NUL bytes, with a few names and an address."""
    return (b"\x06\x00\x00\x00" + b"\x00" * 4 + b"ssh:notty" + b"\x00" * 23 + b"root" + b"\x00" * 28
            + f"{SEED_MESSAGE}\n".encode() + b"\x00" * 300) * 3


@pytest.mark.parametrize("packing", ["plain", "gzip", "stdin", "jobs"])
def test_binary_data_is_skipped_unless_read_as_text(tmp_path: Path, packing: str) -> None:
    # /var/log/btmp was matched silently, as 3 lines of text.
    data = _utmp_like()
    path = tmp_path / ("btmp.gz" if packing == "gzip" else "btmp")
    path.write_bytes(gzip.compress(data) if packing == "gzip" else data)
    name = "<stdin>" if packing == "stdin" else str(path)
    source = "-" if packing == "stdin" else str(path)
    setup = "from errdex.match import run; run.MIN_PART_BYTES = 64" if packing == "jobs" else ""
    for extra in ([], ["--format", "jsonl"], ["--format", "json"], ["--summary"]):
        child = _errdex("match", source, "--jobs", "3", *extra, stdin=subprocess.PIPE, setup=setup)
        out, err = child.communicate(data if packing == "stdin" else b"", timeout=60)
        assert (child.returncode, out) == (1, b""), extra
        assert err.decode().splitlines() == [f"errdex: error: {name}: binary data (a NUL byte in its first 32 KiB): "
                                             "skipped (--text matches it as text)"], extra
    child = _errdex("match", source, "--text", "--format", "jsonl", stdin=subprocess.PIPE, setup=setup)
    out, err = child.communicate(data if packing == "stdin" else b"", timeout=60)
    assert child.returncode == 0 and [json.loads(row)["line"] for row in out.splitlines()] == [1, 2, 3], err


def test_text_is_binary_only_by_its_start(tmp_path: Path, kb: errdex.KnowledgeBase) -> None:
    late = tmp_path / "late.log"  # control bytes after the first 32 KiB: matched as text
    late.write_bytes(b"x\n" * (readers.SNIFF_BYTES // 2) + b"\x01\x02" * 64 + b"\n\xff\xfe " + SEED_MESSAGE.encode()
                     + b"\n")
    latin = tmp_path / "latin.log"  # bytes that are not UTF-8 (a Latin-1 name in a real log) are text, replaced
    latin.write_bytes(b"caf\xe9 " + SEED_MESSAGE.encode() + b"\n")
    controls = tmp_path / "controls.log"  # mostly control characters, as a database file or a core dump is
    controls.write_bytes(b"\x01\x02\x03 " * 50 + SEED_MESSAGE.encode() + b"\n")
    summary = MatchSummary()
    found = list(match_files([late, latin, controls], kb=kb, summary=summary))
    assert [(f.source, f.number) for f in found] == [(str(late), readers.SNIFF_BYTES // 2 + 2), (str(latin), 1)]
    assert found[0].text.startswith("\ufffd\ufffd ") and found[1].text.startswith("caf\ufffd ")
    assert summary.problems == [f"{controls}: binary data (mostly control characters in its first 32 KiB): skipped "
                                "(--text matches it as text)"]


def test_a_missing_input_alone_prints_its_error_and_nothing_else(tmp_path: Path) -> None:
    # 'errdex match nosuchfile.log' printed a summary of 0 lines after its error.
    missing = tmp_path / "nosuchfile.log"
    for extra in ([], ["--each"], ["--summary"], ["--format", "json"], ["--format", "jsonl"], ["--follow"]):
        child = _errdex("match", str(missing), *extra)
        out, err = child.communicate(timeout=60)
        assert (child.returncode, out) == (1, b""), extra
        assert err.decode().splitlines() == [f"errdex: error: {missing}: cannot read: no such file or folder"], extra
    # beside a readable input, the summary still comes, and the error line
    log = tmp_path / "x.log"
    log.write_text(f"x {SEED_MESSAGE}\n")
    child = _errdex("match", str(missing), str(log), "--format", "json")
    out, err = child.communicate(timeout=60)
    assert child.returncode == 1 and json.loads(out)["lines"] == 1 and err.decode().count("errdex: error:") == 1


def test_stdin_that_never_ends_is_refused_even_as_text() -> None:
    # `errdex match - --text < /dev/zero` read for ever (a named /dev/zero was refused already).
    with open("/dev/zero", "rb") as zero:
        child = _errdex("match", "-", "--text", stdin=zero.fileno())
        out, err = child.communicate(timeout=60)
    assert (child.returncode, out) == (1, b"")
    assert err.decode().splitlines() == ["errdex: error: <stdin>: not a regular file, pipe or terminal; "
                                         "reading it might never end"]
