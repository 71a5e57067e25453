"""The folder a site is built into: which folders errdex may replace, one build at a time, no leftovers.

A build writes :data:`MARKER` into its folder, listing every file and
folder it wrote, and only a folder holding the marker and nothing the
marker does not list (or an empty or missing one) is ever replaced: a file
a user added to a built site (a ``CNAME``, notes) is never deleted; the
build is refused and names it. While it writes,
a build holds a lock on the folder's parent (``flock``, released by the
system when the process dies, however it dies), so two builds of one
``--out`` take turns instead of mixing their files. Holding that lock, a
build removes what dead builds left beside ``--out``: ``.NAME.build-*``
folders (the build in progress) and ``.NAME.old-*`` folders (the site being
replaced), when errdex made them.
"""

from __future__ import annotations

import errno
import os
import re
import secrets
import shutil
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from errdex._files import write_atomic
from errdex.errors import InputError, from_oserror
from errdex.site.incremental import MANIFEST as BUILD_MANIFEST

__all__ = ["MARKER", "build_lock", "check_out", "foreign_entries", "new_build_folder", "remove_leftovers",
           "replace_folder", "write_manifest"]

MARKER = ".errdex-site"
MARKER_TEXT = "errdex site: built by 'errdex site build'; the next build replaces this folder as a whole.\n"
#: What the top level of a built site holds: a folder holding only these names was built by errdex.
SITE_NAMES = frozenset({MARKER, BUILD_MANIFEST, "404.html", "api", "assets", "browse", "changelog", "index.html",
                        "quality", "records", "schema", "search", "sitemap.xml"})


def is_marked(folder: Path) -> bool:
    """Whether errdex built the folder: its marker is a regular file that says so."""
    try:
        with open(folder / MARKER, "rb", opener=lambda path, flags: os.open(path, flags | os.O_NOFOLLOW)) as handle:
            return handle.read(len(MARKER_TEXT)).startswith(b"errdex site:")
    except OSError:
        return False


#: Foreign entries named in a refusal, at most.
SHOWN = 3


def write_manifest(folder: Path) -> None:
    """Rewrite the marker of a finished build with the list of everything in the folder (call before it is used)."""
    entries = []
    for top, dirs, files in os.walk(folder):
        relative = os.path.relpath(top, folder)
        for name in sorted(dirs) + sorted(files):
            path = name if relative == "." else f"{relative}/{name}"
            if path != MARKER:
                entries.append(path.replace(os.sep, "/"))
    write_atomic(folder / MARKER, (MARKER_TEXT + "".join(f"{entry}\n" for entry in entries)).encode("utf-8"))


def _manifest(folder: Path) -> set[str] | None:
    """What the marker lists (None when it lists nothing: written by an errdex that kept no list, or unreadable)."""
    try:
        with open(folder / MARKER, "rb", opener=lambda path, flags: os.open(path, flags | os.O_NOFOLLOW)) as handle:
            lines = handle.read().decode("utf-8", errors="replace").splitlines()
    except OSError:
        return None
    listed = set(lines[1:])
    return listed or None


def foreign_entries(folder: Path) -> list[str]:
    """What an errdex-built folder holds that its build did not write (symbolic links are not followed)."""
    listed = _manifest(folder)
    if listed is None:  # no list: at least the top level must be a site's
        return sorted(_names(folder) - SITE_NAMES)
    foreign = []
    for top, dirs, files in os.walk(folder):
        relative = os.path.relpath(top, folder)
        for name in sorted(dirs) + sorted(files):
            path = (name if relative == "." else f"{relative}/{name}").replace(os.sep, "/")
            if path not in listed and path != MARKER:
                foreign.append(path)
        dirs[:] = [d for d in dirs if (d if relative == "." else f"{relative}/{d}").replace(os.sep, "/") in listed]
    return sorted(foreign)


def _names(folder: Path) -> set[str]:
    try:
        return {entry.name for entry in os.scandir(folder)}
    except OSError:
        return {"?"}


def _looks_built(folder: Path) -> bool:
    """A site from an errdex that wrote no marker: an ``index.html`` and nothing a site does not hold."""
    names = _names(folder)
    return "index.html" in names and names <= SITE_NAMES


def check_out(out: Path) -> None:
    """Refuse an ``--out`` a build may not replace: anything but a missing, an empty or an errdex-built folder."""
    if not out.name:
        raise InputError(f"{out}: choose a folder of its own for the site, not a root")
    if out.is_symlink():
        raise InputError(f"{out}: is a symbolic link; give --out the folder it points to, or another folder")
    if not out.exists():
        return
    if not out.is_dir():
        raise InputError(f"{out}: exists and is not a folder; choose another --out")
    try:
        empty = next(os.scandir(out), None) is None
    except OSError as exc:
        raise from_oserror(exc, out) from exc
    if empty:
        return
    if is_marked(out):
        foreign = foreign_entries(out)
        if foreign:
            shown = ", ".join(foreign[:SHOWN]) + (f" and {len(foreign) - SHOWN} more" if len(foreign) > SHOWN else "")
            raise InputError(f"{out}: holds what errdex did not write there ({shown}); a build replaces the whole "
                             "folder, so move them out first or choose another --out")
        return
    if _looks_built(out):
        raise InputError(f"{out}: looks like a site built by an older errdex (it has no {MARKER}); "
                         f"remove it by hand (rm -r {out}) or choose another --out")
    raise InputError(f"{out}: exists and is not a site built by errdex (it has no {MARKER}); "
                     "choose another --out or an empty folder")


@contextmanager
def build_lock(out: Path, *, on_wait: Callable[[], None] | None = None) -> Iterator[None]:
    """Hold the lock of ``out``'s parent folder for the block; ``on_wait()`` is called when another build has it."""
    try:  # imported here, not at the top: a system without fcntl still builds sites, unserialized
        import fcntl
    except ImportError:  # no flock on this system: builds are not serialized
        yield
        return
    parent = out.parent
    try:
        fd = os.open(parent, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    except OSError as exc:
        raise from_oserror(exc, parent) from exc
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            if on_wait is not None:
                on_wait()
            fcntl.flock(fd, fcntl.LOCK_EX)
        except OSError:  # a filesystem without flock on folders (some network ones): builds are not serialized
            pass
        yield
    finally:
        os.close(fd)  # releases the lock


def new_build_folder(out: Path) -> Path:
    """A fresh folder beside ``out`` for one build (named after its builder's pid), marked as errdex's."""
    folder = out.with_name(f".{out.name}.build-{os.getpid()}-{secrets.token_hex(4)}")
    try:
        folder.mkdir()  # not mkdtemp: the site keeps the mode the umask gives, readable by a web server
        try:
            (folder / MARKER).write_text(MARKER_TEXT, encoding="utf-8")
        except BaseException:
            remove_tree(folder)  # a full disk must not leave an empty build folder behind
            raise
    except OSError as exc:
        raise from_oserror(exc, out, action="write the site") from exc
    return folder


def remove_tree(folder: Path) -> None:
    """Remove an errdex-built folder, its marker last, so that an interrupted removal is finished next time."""
    for entry in os.scandir(folder):
        if entry.name == MARKER:
            continue
        if entry.is_dir(follow_symlinks=False):
            shutil.rmtree(entry.path, ignore_errors=True)
        else:
            try:
                os.unlink(entry.path)
            except OSError:
                pass
    removals: tuple[Callable[[], None], ...] = (lambda: os.unlink(folder / MARKER), folder.rmdir)
    for remove in removals:
        try:
            remove()
        except OSError:
            pass


def remove_leftovers(out: Path) -> list[Path]:
    """Remove what dead builds of ``out`` left beside it (call holding :func:`build_lock`); the folders removed."""
    leftover = re.compile(re.escape(f".{out.name}.") + r"(build|old)-.+")
    removed: list[Path] = []
    try:
        entries = list(os.scandir(out.parent))
    except OSError:
        return removed
    for entry in entries:
        if not leftover.fullmatch(entry.name) or not entry.is_dir(follow_symlinks=False):
            continue
        path = Path(entry.path)
        try:
            empty = next(os.scandir(path), None) is None
        except OSError:
            continue
        if empty:
            try:
                path.rmdir()
                removed.append(path)
            except OSError:
                pass
        elif is_marked(path) or _names(path) <= SITE_NAMES:  # unmarked: left by an errdex that wrote no marker
            remove_tree(path)
            removed.append(path)
    return removed


def _exchange(first: Path, second: Path) -> bool:
    """Swap two folders in one step (Linux ``renameat2`` with ``RENAME_EXCHANGE``); False where that cannot be done."""
    try:  # imported here, not at the top: only the last step of a site build needs ctypes
        import ctypes

        renameat2 = ctypes.CDLL(None, use_errno=True).renameat2
    except (OSError, AttributeError):
        return False
    at_fdcwd, rename_exchange = -100, 2
    if renameat2(at_fdcwd, os.fsencode(first), at_fdcwd, os.fsencode(second), rename_exchange) == 0:
        return True
    code = ctypes.get_errno()
    if code in (errno.ENOSYS, errno.EINVAL, errno.ENOTSUP):  # an older kernel or a filesystem without it
        return False
    raise OSError(code, os.strerror(code), str(second))


def replace_folder(folder: Path, out: Path, *, remove_old: bool = True) -> Path | None:
    """Put the new build where the old one was (call holding :func:`build_lock`), never leaving neither.

    Where the system can, the two folders trade places in one step, so ``out``
    is never missing; elsewhere the old site is renamed aside first. With
    ``remove_old=False`` the old site, beside ``out``, is returned for the
    caller to remove (a leftover the next build removes otherwise).
    """
    check_out(out)
    old = None
    try:
        if out.exists() and _exchange(folder, out):
            old = folder  # now holding the old site
        else:
            if out.exists():
                old = out.with_name(f".{out.name}.old-{os.getpid()}-{secrets.token_hex(4)}")
                out.rename(old)
            try:
                folder.rename(out)
            except OSError:
                if old is not None:
                    old.rename(out)
                raise
    except OSError as exc:
        raise from_oserror(exc, out) from exc
    if old is not None and not remove_old and is_marked(old):
        return old
    if old is not None:
        if is_marked(old):
            remove_tree(old)
        else:
            try:
                old.rmdir()  # the empty folder the build went into
            except OSError:
                pass
    return None
