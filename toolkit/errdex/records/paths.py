"""Where a record's file sits in a records folder: the one function every writer of record files uses.

``record_path`` refuses, whatever the validation configuration says, any
repository or slug that could name a file outside the records folder: an
absolute path, ``..``, a separator inside a slug, NUL or other control
characters, an empty part. It then resolves the folder the file would go in
(following any symbolic link on the way) and refuses it unless it lies inside
the resolved records folder.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from errdex.errors import DataError

__all__ = ["UnsafeRecordPath", "inside", "record_path"]

#: A part of owner/name as GitHub spells it; a leading '.' (so '.' and '..') is never one.
_REPO_PART = re.compile(r"[A-Za-z0-9_-][A-Za-z0-9_.-]{0,99}")
#: A slug as the format defines it (lowercase kebab-case, at most 60 characters).
_SLUG = re.compile(r"[a-z0-9]+(?:-[a-z0-9]+)*")
_SLUG_MAX = 60


class UnsafeRecordPath(DataError):
    """A record's repo or slug would put its file outside the records folder, or is no file name at all."""


def inside(path: Path, folder: Path) -> bool:
    """True when ``path``, resolved, is ``folder`` (resolved) or lies under it."""
    real, root = os.path.realpath(path), os.path.realpath(folder)
    return real == root or real.startswith(root.rstrip(os.sep) + os.sep)


def record_path(records_dir: Path, repo: object, slug: object) -> Path:
    """``records_dir/OWNER/NAME/SLUG.json`` for a record of ``repo`` (owner/name) with ``slug``.

    Raises :class:`UnsafeRecordPath` for a repo or slug that is not a plain
    name, or when the folder it names resolves outside ``records_dir``.
    """
    if not isinstance(repo, str) or not isinstance(slug, str):
        raise UnsafeRecordPath(f"repo {repo!r} and slug {slug!r} must be strings to name a record file")
    parts = repo.split("/")
    if len(parts) != 2 or not all(_REPO_PART.fullmatch(part) for part in parts):
        raise UnsafeRecordPath(f"repo {repo!r} is not owner/name (letters, digits, '_', '-', '.'; no leading '.'); "
                               "it cannot name a folder of the records folder")
    if len(slug) > _SLUG_MAX or not _SLUG.fullmatch(slug):
        raise UnsafeRecordPath(f"slug {slug!r} is not lowercase kebab-case of at most {_SLUG_MAX} characters; "
                               "it cannot name a record file")
    folder = Path(records_dir) / parts[0] / parts[1]
    if not inside(folder, records_dir):
        raise UnsafeRecordPath(f"{folder} leads outside the records folder {records_dir} (through a symbolic link); "
                               "a record file is never written there")
    return folder / f"{slug}.json"
