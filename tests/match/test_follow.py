"""Following growing files like tail -F: truncation, rename rotation, many files, files that cannot be followed."""

from __future__ import annotations

import gzip
import select
from pathlib import Path

import pytest

import errdex
from errdex.match import follow, readers
from errdex.match.run import match_files
from tests.match.helpers import SEED_MESSAGE
from tests.match.helpers import errdex_child as _errdex


@pytest.fixture(scope="module")
def kb() -> errdex.KnowledgeBase:
    return errdex.load()


def _texts(follower: follow.Follower, **options: bool) -> list[str]:
    return [line for line, _ in follower.poll(**options)]


def test_follow_reads_whole_lines_and_survives_truncation(tmp_path: Path) -> None:
    log = tmp_path / "app.log"
    log.write_bytes(b"one\ntw")
    follower = follow.Follower(log)
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
    follower = follow.Follower(log)
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
    monkeypatch.setattr(follow, "FOLLOW_INTERVAL", 0.01)
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
    assert [index for index, _, _ in follow.follow_files([follow.Follower(second)], stop=lambda: True)] == [0, 0]


def test_follow_of_nothing_readable_ends_at_once_and_says_why(tmp_path: Path) -> None:
    typo = tmp_path / "typo.log"
    child = _errdex("match", "--follow", str(typo), str(tmp_path))
    try:
        _, err = child.communicate(timeout=30)  # it used to wait for ever, printing nothing
    finally:
        child.kill()
    assert child.returncode == 1
    assert err.decode().splitlines() == [f"errdex: error: {typo}: cannot read: no such file or folder",
                                         f"errdex: error: {tmp_path}: is a folder, not a log file"]


def test_follow_says_at_once_which_files_it_cannot_follow(tmp_path: Path) -> None:
    log, typo = tmp_path / "app.log", tmp_path / "typo.log"
    log.write_text("")
    child = _errdex("match", "--follow", str(log), str(typo), setup="from errdex.match import follow\n"
                    "follow.FOLLOW_INTERVAL = 0.01")
    try:
        assert child.stderr is not None
        ready, _, _ = select.select([child.stderr], [], [], 30)  # while the other file is still followed
        assert ready
        assert child.stderr.readline().decode() == f"errdex: error: {typo}: cannot read: no such file or folder\n"
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
    follower = follow.Follower(path)
    polls = []
    while not follower.finished:
        polls.append([text for text, _ in follower.poll()])
    follower.close()
    assert [text for poll in polls for text in poll if text] == lines
    assert max(len(poll) for poll in polls) < 20
