"""What a file's path says of its build where no build file does: the platform and the role.

The platform: a folder named for a platform (``win32/``, ``windows/``, ``solaris/``...) or a word of the file's
name (``ngx_win32_init.c``, ``port-aix.c``, ``sandbox-solaris.c``); a folder whose name only holds a platform's
name among other words (``openbsd-compat/``, code *for* other systems) says nothing. The role: ``test`` under a
test folder (``regress/``, ``tests/``, ``unittests/``, ``fuzz/``...) or for a test file's name, ``contrib`` under
``contrib/``, ``examples/``, ``demo/``, else ``main``."""

from __future__ import annotations

import re

__all__ = ["PLATFORMS", "platform_of_path", "role_of_path"]

#: Words of a path -> the platform they name.
PLATFORMS = {
    "win32": "win32", "win64": "win32", "windows": "win32", "mingw": "win32", "msvc": "win32", "cygwin": "cygwin",
    "solaris": "solaris", "sunos": "solaris", "illumos": "solaris", "aix": "aix", "darwin": "darwin",
    "macos": "darwin", "osx": "darwin", "linux": "linux", "freebsd": "freebsd", "openbsd": "openbsd",
    "netbsd": "netbsd", "hpux": "hpux", "irix": "irix", "unix": "unix", "posix": "unix", "android": "android",
}
_TEST_FOLDERS = frozenset({"regress", "test", "tests", "testing", "unittests", "unittest", "unit-tests", "fuzz",
                           "fuzzing", "fuzzers", "__tests__", "testsuite", "test-suite", "benchmarks", "bench"})
_CONTRIB_FOLDERS = frozenset({"contrib", "examples", "example", "demo", "demos", "samples", "sample"})
_WORD = re.compile(r"[A-Za-z0-9]+")
_TEST_NAME = re.compile(r"^(?:test[_-].*|.*[_-]test|.*[_-]tests|.*Test|.*Tests|.*_spec)$")


def platform_of_path(path: str) -> str | None:
    """The platform a path names (see the module's docstring), or None."""
    *folders, name = path.split("/")
    for folder in reversed(folders):
        if folder.lower() in PLATFORMS:
            return PLATFORMS[folder.lower()]
    words = [PLATFORMS[w.lower()] for w in _WORD.findall(name.rsplit(".", 1)[0]) if w.lower() in PLATFORMS]
    return words[0] if words else None


def role_of_path(path: str) -> str:
    """``test``, ``contrib`` or ``main`` (see the module's docstring)."""
    *folders, name = path.split("/")
    lowered = [folder.lower() for folder in folders]
    if any(folder in _TEST_FOLDERS for folder in lowered) or _TEST_NAME.match(name.rsplit(".", 1)[0]):
        return "test"
    if any(folder in _CONTRIB_FOLDERS for folder in lowered):
        return "contrib"
    return "main"
