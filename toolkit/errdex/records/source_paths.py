"""A record's place in its repository: the file paths a record may name, and the GitHub URL of one.

``filePath`` is a file's path from the top of its repository, ``/``-separated, as git's tree names it. What
:func:`unsafe_path` refuses can name no such file, or names one elsewhere when joined to a folder or a URL:
an empty path or part (``a//b``, a final ``/``), an absolute path, ``.`` or ``..`` parts, a backslash (a
separator on Windows), a name that is not UTF-8 (read with ``surrogateescape``: lone surrogates, which no JSON
reader takes), control characters (NUL, line breaks, C1), the line and paragraph separators and the
bidirectional controls that make a shown path read as another, and a path over :data:`MAX_PATH` characters.
Harvest and sync skip such files; ``validate`` reports a record naming one (EDX130); ``import`` refuses it.

:func:`github_url` is the one place a record's ``githubUrl`` is built: each part of the repository and of the
path is percent-encoded as UTF-8 (RFC 3986: everything but letters, digits, ``-._~`` and ``!$&()*+,;=:@``, which a
path segment may hold as they are), so ``%``, ``#``, ``?``, an apostrophe, spaces and non-ASCII name the file
itself.
"""

from __future__ import annotations

import re
from urllib.parse import quote

__all__ = ["MAX_PATH", "NOT_UTF8", "github_url", "shown_path", "unsafe_path", "url_path"]

#: The longest filePath taken (git has no limit; filesystems stop at 4096 bytes).
MAX_PATH = 4096
#: Control characters (C0, DEL, C1), lone surrogates, line/paragraph separators and bidirectional controls.
_UNSAFE_CHARACTER = re.compile("[\x00-\x1f\x7f-\x9f\ud800-\udfff\u2028\u2029\u200e\u200f\u202a-\u202e\u2066-\u2069]")
#: What :func:`unsafe_path` says of a name that is not UTF-8.
NOT_UTF8 = "is not UTF-8 (a byte of the file's name is no character)"
#: What a path segment keeps as it is (besides letters, digits and ``-._~``, which quote always keeps).
_SEGMENT_SAFE = "!$&()*+,;=:@"


def unsafe_path(path: object) -> str | None:
    """Why ``path`` is not a file's path inside a repository (see the module's docstring), or None."""
    if not isinstance(path, str) or not path:
        return "is empty"
    if len(path) > MAX_PATH:
        return f"is longer than {MAX_PATH} characters"
    found = _UNSAFE_CHARACTER.search(path)
    if found is not None:
        character = found.group()
        if "\ud800" <= character <= "\udfff":
            return NOT_UTF8
        return f"holds the character U+{ord(character):04X}, which no file path shown or linked may hold"
    if "\\" in path:
        return "holds a backslash; separate folders with '/'"
    if path.startswith("/"):
        return "is absolute; give the file's path from the repository's top"
    parts = path.split("/")
    if any(part in (".", "..") for part in parts):
        return "has a '.' or '..' part; give the file's path from the repository's top, without them"
    if "" in parts:
        return "has an empty part ('//' or a final '/')"
    return None


def shown_path(path: str) -> str:
    """``path`` as one line of text may show it: a name read with ``surrogateescape`` has its bytes back, and
    what is no printable character is escaped (``x\\xff.py``, ``a\\nb.py``)."""
    try:
        path = path.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")
    except UnicodeEncodeError:  # a surrogate no byte stands for: escaped as it is below
        pass
    return "".join(c if c.isprintable() else c.encode("unicode_escape").decode("ascii") for c in path)


def url_path(path: str) -> str:
    """``path`` as the path of a URL: each ``/``-separated part percent-encoded (UTF-8)."""
    return "/".join(quote(part, safe=_SEGMENT_SAFE, errors="surrogatepass") for part in path.split("/"))


def github_url(repo: str, sha: str, path: str, start: int | None = None, end: int | None = None) -> str:
    """``https://github.com/{repo}/blob/{sha}/{path}``, with ``#L{start}-L{end}`` when both are given; every
    part encoded by :func:`url_path`."""
    url = f"https://github.com/{url_path(repo)}/blob/{url_path(sha)}/{url_path(path)}"
    return url if start is None or end is None else f"{url}#L{start}-L{end}"
