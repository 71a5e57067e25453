"""Locks that keep two errdex runs from changing the same files at once.

A lock is an exclusive ``flock`` on a small file (``.errdex.lock`` in a
records folder, ``.NAME.lock`` beside an index). The kernel drops it when
its process dies, however it dies, so a killed run never leaves a folder
locked. The file names its holder, for the message a waiting run gives;
the holder removes it as it lets go (a run that took the lock checks that
the file it holds is still the one at that path). One process may take the
same lock again while it holds it.
"""

from __future__ import annotations

import fcntl
import os
import sys
import time
from collections.abc import Iterable, Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path

from errdex._files import clean_leftovers
from errdex._journal import JOURNAL, drop_orphan, finish, is_part_of, journal_paths, read_journal
from errdex.errors import InputError, from_oserror

__all__ = ["LOCK_FILE", "LOCK_WAIT_S", "finish_pending", "hold", "journal_for", "records_lock", "settle", "tidy"]

LOCK_FILE = ".errdex.lock"
#: How long a run waits for another to finish before it refuses (``$ERRDEX_LOCK_WAIT`` seconds overrides it).
LOCK_WAIT_S = 10.0
_POLL_S = 0.05
_held: dict[str, int] = {}  # lock file -> how many times this process holds it


def _wait_s(wait: float | None) -> float:
    if wait is not None:
        return wait
    given = os.environ.get("ERRDEX_LOCK_WAIT", "")
    try:
        return max(0.0, float(given)) if given else LOCK_WAIT_S
    except ValueError:
        return LOCK_WAIT_S


def _holder(fd: int) -> str:
    try:
        text = os.pread(fd, 512, 0).decode("utf-8", "replace").strip()
    except OSError:
        text = ""
    return text or "another errdex process"


@contextmanager
def hold(lock: Path, *, what: str, wait: float | None = None) -> Iterator[None]:
    """Hold the lock on ``lock`` (waiting up to ``wait`` seconds); InputError naming the holder otherwise."""
    key = os.path.join(os.path.realpath(lock.parent), lock.name)  # one folder however it is named (a link)
    if key in _held:
        _held[key] += 1
        try:
            yield
        finally:
            _held[key] -= 1
        return
    deadline = time.monotonic() + _wait_s(wait)
    fd = _acquire(lock, what, deadline, _wait_s(wait))
    try:
        program = os.path.basename(sys.argv[0]) if sys.argv else "errdex"
        command = " ".join(["errdex" if program in ("__main__.py", "-m", "") else program, *sys.argv[1:3]])
        note = f"errdex (pid {os.getpid()}, {what}, '{command}', since {time.strftime('%H:%M:%S')})"
        try:
            os.ftruncate(fd, 0)
            os.pwrite(fd, note.encode("utf-8", "replace"), 0)
        except OSError:  # a full disk: the note only says who holds the lock; the command says what failed
            pass
        _held[key] = 1
        try:
            yield
        finally:
            del _held[key]
            try:
                os.unlink(lock)  # while still held: a run waiting on this file sees it gone and opens the new one
            except OSError:
                pass
    finally:
        os.close(fd)  # closing the last descriptor releases the lock


def _acquire(lock: Path, what: str, deadline: float, wait: float) -> int:
    """An open descriptor of ``lock`` holding its flock; the file may be replaced meanwhile, so check it is the one."""
    while True:
        try:
            fd = os.open(lock, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW, 0o644)
        except OSError as exc:
            raise from_oserror(exc, lock, action=f"take the lock for {what}") from exc
        try:
            while True:
                try:
                    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                    break
                except BlockingIOError:
                    if time.monotonic() >= deadline:
                        raise InputError(f"{lock.parent}: {_holder(fd)} is busy with it; {what} waited "
                                         f"{wait:g} s and gave up (try again when it is done)") from None
                    time.sleep(_POLL_S)
            mine, named = os.fstat(fd), os.stat(lock, follow_symlinks=False)
            if (mine.st_dev, mine.st_ino) == (named.st_dev, named.st_ino):
                return fd
        except FileNotFoundError:
            pass  # the holder removed it as it let go: take the new one
        except BaseException:
            os.close(fd)
            raise
        os.close(fd)


def _roots(paths: Iterable[str | Path]) -> list[Path]:
    roots = set()
    for path in paths:
        path = Path(path)
        folder = path if path.is_dir() else path.parent
        roots.add(Path(os.path.abspath(folder)))
    return sorted(roots)


def journal_for(paths: Iterable[str | Path]) -> Path:
    """Where a change of these records keeps its journal: in the first folder :func:`records_lock` locks."""
    return _roots(paths)[0] / JOURNAL


def _finishing(folder: Path, what: str, wait: float | None) -> ExitStack:
    """The lock of ``folder``, to finish a change there: refused in one line when the folder cannot be written."""
    if not os.access(folder, os.W_OK):
        raise InputError(f"{folder}: a run killed in the middle of a change left its journal ({JOURNAL}) here, "
                         "and this folder cannot be written to finish it; run an errdex command on it with write "
                         "access (it finishes the change), then this one")
    stack = ExitStack()
    stack.enter_context(hold(folder / LOCK_FILE, what=what, wait=wait))
    return stack


def settle(folder: Path, *, what: str, wait: float | None = None) -> str | None:
    """Finish the change a killed run left in ``folder`` (its journal there, the main one or a part), holding the
    lock of the folder the change was made under; what was done, or None when nothing was pending.

    The journal is read and checked first (:func:`~errdex._journal.read_journal`): one that is damaged, hostile
    or not in the folder it names is refused before any lock is taken or any file touched."""
    journal = folder / JOURNAL
    found = read_journal(journal)
    if found is None:
        return None
    if found.main is None:
        with _finishing(folder, what, wait):
            found = read_journal(journal)  # again, under the lock: another run may have finished it meanwhile
            return finish(found) if found is not None else None
    main = read_journal(found.main / JOURNAL)
    if main is not None and is_part_of(found, main):
        with _finishing(found.main, what, wait):
            main, part = read_journal(found.main / JOURNAL), read_journal(journal)
            if part is None:
                return None
            if main is not None and is_part_of(part, main):
                return finish(main)
            found = part
    return drop_orphan(found)


def _say(note: str) -> None:
    from errdex.terminal import safe  # only when a change was pending (start-up time)

    sys.stderr.write(safe(f"errdex: {note}\n"))


def finish_pending(folders: Iterable[str | Path]) -> bool:
    """Finish the change pending in each of these folders (see :func:`settle`), saying so on stderr; whether one
    was. For what reads records: a folder is read as the change left it, never half made."""
    finished = False
    for folder in folders:
        note = settle(Path(folder), what="finishing an interrupted change")
        if note:
            _say(f"{folder}: {note}")
            finished = True
    return finished


def tidy(folder: Path, *, what: str, recursive: bool = False) -> None:
    """Finish (or drop) a change pending in ``folder``, then remove what killed runs left there: for a folder a
    command writes beside the records (a release's bundle folder, the changelog's)."""
    note = settle(folder, what=what)
    if note:
        _say(f"{folder}: {note}")
    clean_leftovers(folder, recursive=recursive, keep=journal_paths(folder / JOURNAL))


@contextmanager
def records_lock(paths: Iterable[str | Path], *, what: str, wait: float | None = None,
                 say: bool = True) -> Iterator[list[str]]:
    """Lock the folders of these records for a change, finish a change a killed run left, clean its leftovers.

    Yields the notes to show the user (an interrupted change that was
    finished), which are also written to stderr unless ``say`` is false (a
    caller that puts them in its report). Folders are locked in a fixed
    order, so two runs never wait for each other in a circle.
    """
    notes: list[str] = []
    with ExitStack() as stack:
        roots = _roots(paths)
        for root in roots:
            stack.enter_context(hold(root / LOCK_FILE, what=what, wait=wait))
        for root in roots:
            done = settle(root, what=what, wait=wait)
            if done:
                notes.append(f"{root}: {done}")
                if say:
                    _say(notes[-1])
        for root in roots:
            clean_leftovers(root, recursive=True, keep=journal_paths(root / JOURNAL))
        yield notes
