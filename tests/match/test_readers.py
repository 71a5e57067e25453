"""Reading logs: pipes that print each line promptly, named pipes, compressed and damaged input, following files."""

from __future__ import annotations

import bz2
import gzip
import json
import lzma
import os
import select
import subprocess
import sys
import threading
from pathlib import Path

import pytest

import errdex
from errdex.match import readers
from errdex.match.run import MatchSummary, match_files

PACKAGE_ROOT = Path(errdex.__file__).resolve().parents[1]  # the toolkit under test
SEED_MESSAGE = "CreateOS process creation could not be confirmed; destroy the lease before reusing it."


@pytest.fixture(scope="module")
def kb() -> errdex.KnowledgeBase:
    return errdex.load()


def _errdex(*args: str, stdin: int | None = None, setup: str = "") -> subprocess.Popen[bytes]:
    """errdex in a child process (``setup``: Python run first, e.g. to shorten a limit)."""
    code = f"{setup}\nfrom errdex.cli import main\nmain({list(args)!r})"
    env = {**os.environ, "PYTHONPATH": str(PACKAGE_ROOT)}
    return subprocess.Popen([sys.executable, "-c", code], stdin=stdin, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            env=env)


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
        out, err = child.communicate(timeout=30)
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
    assert result.exit_code == 0 and [json.loads(l)["line"] for l in result.stdout.splitlines()] == [1, 2, 3]
    path = tmp_path / "x.log.packed"
    path.write_bytes(data)
    assert [json.loads(l)["line"] for l in cli("match", str(path), "--format", "jsonl").stdout.splitlines()] == [1, 2, 3]


def _texts(follower: readers.Follower, **options: bool) -> list[str]:
    return [line for line, _ in follower.poll(**options)]


def test_follow_reads_whole_lines_and_survives_truncation(tmp_path: Path) -> None:
    log = tmp_path / "app.log"
    log.write_bytes(b"one\ntw")
    follower = readers.Follower(log)
    assert _texts(follower) == ["one"]  # "tw" is not finished
    with log.open("ab") as handle:
        handle.write(b"o\nthree")
    assert _texts(follower) == ["two"]
    log.write_bytes(b"new\n")  # copy-and-truncate rotation: the unfinished "three" is gone
    assert _texts(follower) == []  # this look sees the truncation
    assert _texts(follower) == ["new"]
    follower.close()


def test_follow_switches_to_the_new_file_after_a_rename_rotation(tmp_path: Path) -> None:
    log = tmp_path / "app.log"
    log.write_bytes(b"old 1\n")
    follower = readers.Follower(log)
    assert _texts(follower) == ["old 1"]
    with log.open("ab") as handle:
        handle.write(b"old 2\nold last")
    log.rename(tmp_path / "app.log.1")
    assert _texts(follower) == ["old 2"]  # the rest of the old file first
    assert _texts(follower) == []  # no new file yet
    log.write_bytes(b"new 1\n")
    assert _texts(follower) == ["old last"]  # the old file is done: its last line, then the new file
    assert _texts(follower) == ["new 1"]
    follower.close()


def test_follow_reads_every_file_it_is_given(tmp_path: Path, kb: errdex.KnowledgeBase,
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(readers, "FOLLOW_INTERVAL", 0.01)
    first, second = tmp_path / "a.log", tmp_path / "b.log"
    first.write_text(f"a1 {SEED_MESSAGE}\n")
    second.write_text("b1\n")
    steps = [lambda: second.write_text(f"b1\nb2 {SEED_MESSAGE}\n"),
             lambda: first.write_text(f"a1 {SEED_MESSAGE}\na2 {SEED_MESSAGE}\n")]

    def stop() -> bool:  # one step of the script each time the follower looks
        if steps:
            steps.pop(0)()
            return False
        return True

    found = [(f.source, f.number) for f in match_files([first, second], kb=kb, follow=True, stop=stop)]
    assert sorted(found) == [(str(first), 1), (str(first), 2), (str(second), 2)]
    assert [index for index, _, _ in readers.follow_files([readers.Follower(second)], stop=lambda: True)] == [0, 0]


def test_follow_of_nothing_readable_ends_at_once_and_says_why(tmp_path: Path) -> None:
    typo = tmp_path / "typo.log"
    child = _errdex("match", "--follow", str(typo), str(tmp_path))
    try:
        _, err = child.communicate(timeout=30)  # it used to wait for ever, printing nothing
    finally:
        child.kill()
    assert child.returncode == 1
    assert err.decode().splitlines() == [f"errdex: error: {typo}: cannot read: no such file or folder",
                                         f"errdex: error: {tmp_path}: is a folder, not a log file",
                                         "0 of 0 line(s) matched a record"]


def test_follow_says_at_once_which_files_it_cannot_follow(tmp_path: Path) -> None:
    log, typo = tmp_path / "app.log", tmp_path / "typo.log"
    log.write_text("")
    child = _errdex("match", "--follow", str(log), str(typo), setup="from errdex.match import readers\n"
                    "readers.FOLLOW_INTERVAL = 0.01")
    try:
        assert child.stderr is not None
        ready, _, _ = select.select([child.stderr], [], [], 30)  # while the other file is still followed
        assert ready and child.stderr.readline().decode() == f"errdex: error: {typo}: cannot read: no such file or folder\n"
        assert child.poll() is None
        with log.open("a") as handle:
            handle.write(f"x {SEED_MESSAGE}\n")
        assert child.stdout is not None
        ready, _, _ = select.select([child.stdout], [], [], 30)
        assert ready and child.stdout.readline().decode().startswith(f"{log}:1: x ")
    finally:
        child.terminate()
        child.communicate(timeout=30)


def test_follow_reads_a_compressed_file_a_block_at_a_time(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # The whole decompressed file was held in one list: a small gzip bomb under --follow took gigabytes.
    monkeypatch.setattr(readers, "BLOCK_BYTES", 1024)
    path = tmp_path / "app.log.gz"
    lines = [f"line {i} {SEED_MESSAGE}" for i in range(2_000)]
    path.write_bytes(gzip.compress(("\n".join(lines) + "\n").encode()))
    follower = readers.Follower(path)
    polls = []
    while not follower.finished:
        polls.append([text for text, _ in follower.poll()])
    follower.close()
    assert [text for poll in polls for text in poll if text] == lines
    assert max(len(poll) for poll in polls) < 20
