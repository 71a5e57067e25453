"""Where a record goes on disk and on the site: its record file, and its page.

Record files. ``record_path`` is the one function every writer of record
files uses. It refuses, whatever the validation configuration says, any
repository or slug that could name a file outside the records folder: an
absolute path, ``..``, a separator inside a slug, NUL or other control
characters, an empty part. It then resolves the folder the file would go in
(following any symbolic link on the way) and refuses it unless it lies inside
the resolved records folder.

Pages. ``page_path`` is a one-to-one encoding of a record's repository and
slug into path segments. A segment keeps ``a-z``, ``0-9``, ``-``, ``_`` and
inner dots as they are and writes every other byte of the text's UTF-8 as
``~`` and two lowercase hex digits (``Evil`` -> ``~45vil``, ``a/b`` ->
``a~2fb``). The result is lowercase ASCII only, so it means the same on
case-insensitive filesystems, and it is never ``.``/``..``, a hidden name, a
name ending in a dot or a name Windows reserves (``con``, ``nul``,
``com1``...). Decoding reverses it, so two texts never share a segment; the
one exception is a segment over :data:`SEGMENT_MAX` characters, cut and
followed by ``~~`` and a hash of the whole text (filesystems refuse longer
names). Owner and repository names are compared without case first, as GitHub
compares them: ``Evil/Repo`` and ``evil/repo`` are one repository and get one
folder. Two records whose pages would still coincide are what check EDX115
reports, and what ``errdex site build`` refuses to build.
"""

from __future__ import annotations

import os
import re
from functools import lru_cache
from pathlib import Path

from errdex.cache import sha256
from errdex.errors import DataError

__all__ = ["SEGMENT_MAX", "UnsafeRecordPath", "decode_segment", "inside", "page_path", "path_segment", "record_path",
           "repo_key"]



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

#: The longest segment written out in full (well under the 255 bytes filesystems allow, with ``.html``).
SEGMENT_MAX = 200
_KEEP = frozenset(b"abcdefghijklmnopqrstuvwxyz0123456789-_")
_PLAIN = re.compile(r"[a-z0-9_-]([a-z0-9._-]{0," + str(SEGMENT_MAX - 2) + r"}[a-z0-9_-])?")
_RESERVED = re.compile(r"(?i)(con|prn|aux|nul|com[0-9]|lpt[0-9]|conin\$|conout\$)(\..*)?")
_ASCII_LOWER = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")
#: The segment of an empty text, and of the repository name when ``repo`` has no ``/``.
EMPTY, ABSENT = "~", "~-"


def path_segment(text: str) -> str:
    """``text`` as one path segment that no other text maps to (see the module's docstring)."""
    if not text:
        return EMPTY
    if _PLAIN.fullmatch(text) and not _RESERVED.fullmatch(text):
        return text
    data = text.encode("utf-8", "surrogatepass")
    last = len(data) - 1
    out = []
    for index, byte in enumerate(data):
        keep = byte in _KEEP or (byte == 0x2E and 0 < index < last)
        out.append(chr(byte) if keep else f"~{byte:02x}")
    encoded = "".join(out)
    if _RESERVED.fullmatch(encoded):  # starts with a kept letter, so escaping it changes the name
        encoded = f"~{data[0]:02x}{encoded[1:]}"
    if len(encoded) > SEGMENT_MAX:
        cut = encoded[: SEGMENT_MAX - 20]
        cut = cut[: cut.rfind("~")] if "~" in cut[-2:] else cut  # never half an escape
        encoded = f"{cut}~~{sha256(data).hexdigest()[:16]}"
    return encoded


def decode_segment(segment: str) -> str:
    """The text a segment of :func:`path_segment` stands for (not for cut segments, which end in a hash)."""
    if segment == EMPTY:
        return ""
    if "~~" in segment:
        raise ValueError(f"{segment!r} is a cut segment")
    data = bytearray()
    index = 0
    while index < len(segment):
        if segment[index] == "~":
            data.append(int(segment[index + 1 : index + 3], 16))
            index += 3
        else:
            data.append(ord(segment[index]))
            index += 1
    return data.decode("utf-8", "surrogatepass")


def repo_key(repo: str) -> str:
    """A repository as GitHub tells repositories apart: ASCII letters without case."""
    return repo.translate(_ASCII_LOWER)


@lru_cache(maxsize=1 << 17)
def page_path(repo: str, slug: str) -> str:
    """A record's page relative to the site root: ``records/OWNER/REPO/SLUG.html``, each part a segment."""
    owner, separator, name = repo_key(repo).partition("/")
    return f"records/{path_segment(owner)}/{path_segment(name) if separator else ABSENT}/{path_segment(slug)}.html"
