"""Where a record lives as a page: a one-to-one encoding of its repository and slug into path segments.

A segment keeps ``a-z``, ``0-9``, ``-``, ``_`` and inner dots as they are and
writes every other byte of the text's UTF-8 as ``~`` and two lowercase hex
digits (``Evil`` -> ``~45vil``, ``a/b`` -> ``a~2fb``). The result is lowercase
ASCII only, so it means the same on case-insensitive filesystems, and it is
never ``.``/``..``, a hidden name, a name ending in a dot or a name Windows
reserves (``con``, ``nul``, ``com1``...). Decoding reverses it, so two texts
never share a segment; the one exception is a segment over
:data:`SEGMENT_MAX` characters, cut and followed by ``~~`` and a hash of the
whole text (filesystems refuse longer names).

Owner and repository names are compared without case first, as GitHub
compares them: ``Evil/Repo`` and ``evil/repo`` are one repository and get one
folder. Two records whose pages would still coincide are what check EDX115
reports, and what ``errdex site build`` refuses to build.
"""

from __future__ import annotations

import hashlib
import re
from functools import lru_cache

__all__ = ["SEGMENT_MAX", "decode_segment", "page_path", "path_segment", "repo_key"]

#: The longest segment written out in full (well under the 255 bytes filesystems allow, with ``.html``).
SEGMENT_MAX = 200
_KEEP = frozenset(b"abcdefghijklmnopqrstuvwxyz0123456789-_")
_PLAIN = re.compile(r"[a-z0-9_-]([a-z0-9._-]{0,%d}[a-z0-9_-])?" % (SEGMENT_MAX - 2))
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
        encoded = f"{cut}~~{hashlib.sha256(data).hexdigest()[:16]}"
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
