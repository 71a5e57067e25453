"""A change of many files made all or nothing, and the journal that lets the next run finish it.

Every new file is staged beside its target (:func:`~errdex._files.stage`), then a journal naming every
rename (and every file to remove) is written atomically, then the renames happen, then the removals,
then the journal goes. A run killed before the journal leaves only temporary files (cleaned up later, the
old files untouched); a run killed after it leaves a journal that the next run rolls forward.

A journal names its folder absolutely and holds paths relative to it, each checked when it is read to lie
inside that folder (no ``..``, no absolute path, no symbolic link out of it), each rename a staged file
(``.NAME.PID-XXXXXXXX.tmp``) onto the NAME beside it. A journal that lies in another folder than the one it
names (a copy of the folder, or a folder moved) is refused and nothing is touched: rolled forward there, it
would change the files of the folder it names.

A change whose files lie in more than one folder (a release's bundle folder and changelog, a sync of two
records folders) writes a *part* journal in each other folder first, then the main journal in its own
folder (the one locked for the change): the main journal is the moment the change is made. The main
journal lists the folders of its parts; a part names its main journal's folder and carries the same
token. Finishing the change finishes every part; a part whose main journal is not there is a change that
was never made (killed between the two), and goes.

A journal written before these rules (no ``folder``: absolute temporary paths, targets and removals
relative to the folder its run started in) is still finished when every path it names can be placed inside
the folder it lies in; else it is refused.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from errdex._files import alive, crash_point, read_regular, stage, write_atomic
from errdex.errors import DataError, InputError, from_oserror

__all__ = ["JOURNAL", "MAX_JOURNAL_BYTES", "Change", "Journal", "all_or_nothing", "finish", "journal_paths",
           "read_journal"]

#: The journal of a change of many files, in the folder that was locked for it.
JOURNAL = ".errdex-journal.json"
#: A journal larger than this is refused when read, and never written (some 300,000 renames).
MAX_JOURNAL_BYTES = 64 * 1024 * 1024
_VERSION = 2
_STAGED = re.compile(r"^\.(?P<name>.+)\.[0-9]+-[a-z0-9_]{8}\.tmp$")  # what :func:`stage` makes beside NAME


def _real(path: str | Path) -> str:
    return os.path.realpath(path)


def _within(path: str, folder: str) -> bool:
    return path == folder or path.startswith(folder.rstrip(os.sep) + os.sep)


@dataclass
class Journal:
    """A journal as read and checked: its renames and removals as absolute paths inside ``folder``."""

    path: Path
    folder: Path
    pid: int
    renames: list[tuple[Path, Path]]
    removes: list[Path]
    token: str = ""
    parts: list[Path] = field(default_factory=list)  # a main journal: the folders of its parts
    main: Path | None = None  # a part: the folder of its main journal

    def done_message(self, done: int, total: int) -> str:
        return (f"finished a change that process {self.pid} was killed in the middle of: "
                f"{done} of {total} file(s) were still to be renamed into place")


# ---- writing -------------------------------------------------------------------------------------------------


class Change:
    """Many files replaced all or nothing (see the module's docstring); ``journal`` is where the journal goes,
    in the folder locked for the change.

    A file can also be removed (a record moved to a new name): the removal is named in the journal and done
    after the renames, so until the journal is written the file is untouched and a rollback has nothing to
    restore; a killed run's journal finishes it. A file both removed and written in one change is written.
    """

    def __init__(self, journal: Path) -> None:
        self.journal = journal
        self.journaled = False  # from here on the change is made: a failure leaves it to be rolled forward
        self._staged: list[tuple[Path, Path]] = []
        self._removed: list[Path] = []

    def write(self, path: Path, data: bytes) -> None:
        """Stage ``data`` as the new content of ``path`` (written when the change is committed)."""
        self._staged.append((stage(path, data), path))
        crash_point("change:staged-one")

    def remove(self, path: Path) -> None:
        """Remove ``path`` when the change is committed (nothing is touched before)."""
        self._removed.append(path)

    def _records(self, removed: list[Path]) -> dict[str, dict[str, Any]]:
        """The journal of each folder the change touches, by its real path; the main one's folder first."""
        import secrets  # only when a change is written (start-up time)

        home = _real(self.journal.parent)
        token = secrets.token_hex(8)
        records: dict[str, dict[str, Any]] = {home: {}}

        def place(path: Path) -> tuple[dict[str, Any], str]:
            parent = _real(path.parent)
            folder = home if _within(parent, home) else parent
            record = records.setdefault(folder, {})
            return record, os.path.relpath(os.path.join(parent, path.name), folder)

        for tmp, target in self._staged:
            record, relative = place(tmp)
            record.setdefault("renames", []).append([relative, os.path.join(os.path.dirname(relative),
                                                                            target.name)])
        for path in removed:
            record, relative = place(path)
            record.setdefault("removes", []).append(relative)
        parts = [folder for folder in records if folder != home]
        for folder, record in records.items():
            extra = {"parts": parts} if folder == home else {"main": home}
            records[folder] = {"errdexJournal": _VERSION, "folder": folder, "pid": os.getpid(), "token": token,
                               **extra, "renames": record.get("renames", []), "removes": record.get("removes", [])}
        return records

    def commit(self) -> None:
        """Write the journals (the parts, then the main one), rename every staged file onto its target,
        remove what was to go, remove the journals (the main one last)."""
        written = {os.path.abspath(target) for _, target in self._staged}
        removed = [path for path in self._removed if os.path.abspath(path) not in written]
        if not self._staged and not removed:
            return
        records = self._records(removed)
        home = next(iter(records))
        texts = {folder: json.dumps(record, indent=1, ensure_ascii=False).encode("utf-8", "surrogateescape")
                 for folder, record in records.items()}
        if any(len(text) > MAX_JOURNAL_BYTES for text in texts.values()):
            raise OSError(f"the change is too large for one journal (over {MAX_JOURNAL_BYTES:,} bytes)")
        for folder, text in texts.items():
            if folder != home:
                write_atomic(Path(folder) / JOURNAL, text)
        crash_point("change:parts-journaled")
        write_atomic(Path(home) / JOURNAL, texts[home])
        self.journaled = True
        crash_point("change:journaled")
        for number, (tmp, target) in enumerate(self._staged, start=1):
            os.replace(tmp, target)
            if number == 1:
                crash_point("change:renamed-one")
        for path in removed:
            path.unlink(missing_ok=True)
        crash_point("change:renamed-all")
        for folder in records:
            if folder != home:
                (Path(folder) / JOURNAL).unlink()
        (Path(home) / JOURNAL).unlink()
        self._staged, self._removed = [], []

    def abandon(self) -> None:
        """Remove every staged file (the targets, and the files to remove, were never touched); nothing once the
        journal is written."""
        if self.journaled:
            return
        for tmp, _ in self._staged:
            try:
                tmp.unlink()
            except OSError:
                pass
        self._staged, self._removed = [], []


@contextmanager
def all_or_nothing(journal: Path, *, command: str, untouched: str,
                   describe: Callable[[OSError], str]) -> Iterator[Change]:
    """A :class:`Change` to stage files in, committed when the block ends.

    An OSError on the way (a full disk, a read-only folder) becomes one
    InputError: ``describe(exc)``, then whether the next ``command`` finishes
    the change (the journal was written) or ``untouched`` (it was not). Any
    failure before the journal removes what was staged.
    """
    change = Change(journal)
    try:
        yield change
        change.commit()
    except OSError as exc:
        change.abandon()
        outcome = f"the next {command} finishes the change" if change.journaled else untouched
        raise InputError(f"{describe(exc)}; {outcome}") from exc
    except BaseException:
        change.abandon()
        raise


# ---- reading -------------------------------------------------------------------------------------------------


def _refuse(journal: Path, why: str) -> DataError:
    return DataError(f"{journal}: {why}; errdex leaves the folder as it is (check the files it names, then "
                     "remove the journal to go on without the change)")


def _inside(journal: Path, here: str, relative: object) -> Path:
    """``relative`` (a path named in the journal) as an absolute path, checked to lie inside ``here``."""
    if not isinstance(relative, str) or not relative or "\0" in relative:
        raise _refuse(journal, f"names {relative!r}, which is no path")
    if os.path.isabs(relative) or ".." in Path(relative).parts:
        raise _refuse(journal, f"names {relative!r}, outside the folder it lies in")
    path = os.path.join(here, relative)
    if not _within(_real(os.path.dirname(path)), here):
        raise _refuse(journal, f"names {relative!r}, which a symbolic link takes out of the folder it lies in")
    return Path(path)


def _staged_pair(journal: Path, tmp: Path, target_name: str) -> tuple[Path, Path]:
    """A rename checked to be a staged file onto the file it was staged for, beside it."""
    found = _STAGED.match(tmp.name)
    if found is None or found["name"] != target_name:
        raise _refuse(journal, f"names a rename of {tmp.name!r} onto {target_name!r}, which errdex never stages")
    return tmp, tmp.with_name(target_name)


def _list(journal: Path, record: dict[str, Any], key: str) -> list[Any]:
    value = record.get(key, [])
    if not isinstance(value, list):
        raise _refuse(journal, f"its {key!r} is not a list")
    return value


def _pairs(journal: Path, record: dict[str, Any]) -> list[tuple[object, object]]:
    pairs = _list(journal, record, "renames")
    if not all(isinstance(pair, list) and len(pair) == 2 for pair in pairs):
        raise _refuse(journal, "a rename in it is not a pair of paths")
    return [(tmp, target) for tmp, target in pairs]


def _same_folder(journal: Path, named: object) -> None:
    """Refuse a journal that names another folder than the one it lies in (a copy, or a folder moved)."""
    if not isinstance(named, str) or not os.path.isabs(named):
        raise _refuse(journal, "it names no folder")
    try:
        same = os.path.samefile(named, journal.parent)
    except OSError:
        same = False
    if not same:
        raise DataError(f"{journal}: the journal of a change killed in the middle in {named}, not in this folder "
                        f"(a copy of it, or a folder moved); errdex touches neither: finish the change in {named} "
                        "(any errdex command on it does) and copy the folder again, or remove this journal to "
                        "keep this folder's files as they are")


def _current(journal: Path, record: dict[str, Any], here: str) -> Journal:
    _same_folder(journal, record.get("folder"))
    renames = []
    for tmp, target in _pairs(journal, record):
        if not isinstance(target, str):
            raise _refuse(journal, f"names {target!r}, which is no path")
        staged = _inside(journal, here, tmp)
        if _inside(journal, here, target) != staged.with_name(Path(target).name):
            raise _refuse(journal, f"names a rename of {tmp!r} onto {target!r}, which is not beside it")
        renames.append(_staged_pair(journal, staged, Path(target).name))
    removes = [_inside(journal, here, path) for path in _list(journal, record, "removes")]
    parts, main = _list(journal, record, "parts"), record.get("main")
    if not all(isinstance(part, str) and os.path.isabs(part) for part in parts):
        raise _refuse(journal, "a folder of its parts is not an absolute path")
    if main is not None and not (isinstance(main, str) and os.path.isabs(main)):
        raise _refuse(journal, "the folder of its main journal is not an absolute path")
    return Journal(journal, Path(here), int(record["pid"]), renames, removes, str(record.get("token", "")),
                   [Path(part) for part in parts], Path(main) if main is not None else None)


def _where_it_ran(journal: Path, pairs: list[tuple[Path, str]]) -> str | None:
    """The folder an old journal's run started in, told by a staged file's absolute path and its target's
    relative one (``/a/recs/x/.n.tmp`` for ``recs/x/n``: ``/a``); None when no rename says it."""
    found = None
    for tmp, target in pairs:
        if os.path.isabs(target):
            continue
        parts = Path(target).parent.parts
        folders = tmp.parent.parts
        if ".." in parts or (parts and folders[len(folders) - len(parts):] != parts):
            raise _refuse(journal, f"(an old journal) names {target!r}, which is not where {tmp} lies")
        start = str(Path(*folders[:len(folders) - len(parts)]))
        if found is not None and found != start:
            raise _refuse(journal, "(an old journal) names files relative to two different folders")
        found = start
    return found


def _old(journal: Path, record: dict[str, Any], here: str) -> Journal:
    """A journal of an earlier errdex: absolute staged files, targets and removals relative to its start."""
    pairs: list[tuple[Path, str]] = []
    for tmp, target in _pairs(journal, record):
        if not isinstance(tmp, str) or not os.path.isabs(tmp) or not isinstance(target, str) or not target:
            raise _refuse(journal, f"names a rename of {tmp!r} onto {target!r}, which errdex never stages")
        pairs.append((Path(tmp), target))
    for tmp, target in pairs:
        if os.path.isabs(target) and _real(os.path.dirname(target)) != _real(tmp.parent):
            raise _refuse(journal, f"names a rename of {str(tmp)!r} onto {target!r}, which is not beside it")
        if not _within(_real(tmp.parent), here):
            raise DataError(f"{journal}: the journal (of an earlier errdex) of a change killed in the middle in "
                            f"{tmp.parent}, not in this folder (a copy of it, or a folder moved); errdex touches "
                            "neither: finish the change there (any errdex command on it does) and copy the folder "
                            "again, or remove this journal to keep this folder's files as they are")
    renames = [_staged_pair(journal, Path(_real(tmp.parent)) / tmp.name, Path(target).name) for tmp, target in pairs]
    start = _where_it_ran(journal, pairs)
    removes = []
    for path in _list(journal, record, "removes"):
        if not isinstance(path, str) or not path or "\0" in path:
            raise _refuse(journal, f"names {path!r}, which is no path")
        if not os.path.isabs(path) and start is None:
            raise _refuse(journal, f"(an old journal) names {path!r} relative to a folder it does not say")
        parent = _real(os.path.dirname(os.path.join(start or "/", path)))
        if not _within(parent, here):
            raise _refuse(journal, f"names {path!r}, outside the folder it lies in")
        removes.append(Path(parent) / os.path.basename(path))
    return Journal(journal, Path(here), int(record["pid"]), renames, removes)


def read_journal(journal: Path) -> Journal | None:
    """The journal at ``journal``, read and checked (see the module's docstring); None when there is none.
    DataError (one line naming it) for one that is damaged, hostile or not in the folder it names."""
    try:
        info = os.lstat(journal)
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise from_oserror(exc, journal, action="read the journal of an interrupted change") from exc
    if not os.path.isfile(journal) or os.path.islink(journal) or info.st_size > MAX_JOURNAL_BYTES:
        what = "is not a regular file" if info.st_size <= MAX_JOURNAL_BYTES else f"is {info.st_size:,} bytes"
        raise _refuse(journal, f"{what}, not the journal of an errdex change")
    raw = read_regular(journal, limit=MAX_JOURNAL_BYTES, error=DataError, what="a journal")
    here = _real(journal.parent)
    try:
        record = json.loads(raw.decode("utf-8", "surrogateescape"))
        if not isinstance(record, dict) or not isinstance(record.get("pid"), int):
            raise ValueError("no pid")
        if record.get("errdexJournal") == _VERSION:
            return _current(journal, record, here)
        if "errdexJournal" in record or "folder" in record:
            raise ValueError("a journal of a later errdex")
        return _old(journal, record, here)
    except (ValueError, RecursionError, TypeError, KeyError) as exc:
        raise _refuse(journal, f"not the journal of an errdex change ({str(exc)[:80] or type(exc).__name__})") from exc


def journal_paths(journal: Path) -> frozenset[str]:
    """The staged files a journal still needs (empty when there is no readable journal)."""
    try:
        found = read_journal(journal)
    except (DataError, InputError):
        return frozenset()
    return frozenset(str(tmp) for tmp, _ in found.renames) if found is not None else frozenset()


# ---- finishing -----------------------------------------------------------------------------------------------


def _roll_forward(journal: Journal) -> tuple[int, int]:
    """Do what ``journal`` names (renames, then removals), then remove it; (renames done, renames named)."""
    done = 0
    for tmp, target in journal.renames:
        if os.path.isfile(tmp) and not os.path.islink(tmp):  # a staged file is a regular file, never a link
            os.replace(tmp, target)
            done += 1
            if done == 1:
                crash_point("recover:renamed-one")
    for removed in journal.removes:
        removed.unlink(missing_ok=True)
    journal.path.unlink()
    return done, len(journal.renames)


def is_part_of(part: Journal, main: Journal) -> bool:
    """Whether ``part`` is a part of the change ``main`` is the journal of."""
    return (part.main is not None and bool(part.token) and part.token == main.token
            and any(os.path.samefile(folder, part.folder) for folder in main.parts if os.path.isdir(folder)))


def finish(main: Journal) -> str:
    """Finish the change of a main journal, every part first (the caller holds the lock of its folder);
    what was done."""
    done = total = 0
    for folder in main.parts:
        part = read_journal(folder / JOURNAL)
        if part is not None and is_part_of(part, main):
            counted = _roll_forward(part)
            done, total = done + counted[0], total + counted[1]
    counted = _roll_forward(main)
    return main.done_message(done + counted[0], total + counted[1])


def drop_orphan(part: Journal) -> str:
    """Remove a part whose main journal was never written: that change was never made."""
    if part.pid != os.getpid() and alive(part.pid):
        raise InputError(f"{part.path}: process {part.pid} is still making this change; wait for it to finish")
    part.path.unlink(missing_ok=True)
    return (f"removed the journal of a change that process {part.pid} was killed before making "
            "(no file had been changed)")
