"""Programs and platforms from nginx's ``auto/`` scripts (``auto/sources``, ``auto/modules``, ``auto/options``).

nginx builds one program (``sbin/NAME`` in ``auto/options``, ``nginx`` by default); every source a shell
variable ending in ``SRCS`` names (``CORE_SRCS``, ``HTTP_SRCS``, ``ngx_module_srcs``...) is built into it. The
variable's name says the platform of the sources only it names: ``WIN32_SRCS`` and ``IOCP_SRCS`` win32,
``LINUX_*`` and ``EPOLL_SRCS`` linux, ``FREEBSD_*`` freebsd, ``SOLARIS_*``, ``DEVPOLL_SRCS`` and
``EVENTPORT_SRCS`` solaris, ``DARWIN_*`` darwin, ``UNIX_SRCS`` and ``POSIX_*`` unix.
"""

from __future__ import annotations

import re

__all__ = ["AUTO_NAMES", "programs_of_auto"]

AUTO_NAMES = frozenset({"auto/sources", "auto/modules", "auto/options"})
_ASSIGN = re.compile(r"^\s*([A-Za-z_][A-Za-z0-9_]*(?:SRCS|srcs))=(\"[^\"]*\"|'[^']*'|\S*)", re.MULTILINE)
_SBIN = re.compile(r"NGX_SBIN_PATH:-sbin/([A-Za-z0-9_.-]+)")
_SOURCE = re.compile(r"^[A-Za-z0-9_./-]+\.(?:c|cc|cpp|m|h)$")
_PLATFORMS = (("WIN32", "win32"), ("IOCP", "win32"), ("LINUX", "linux"), ("EPOLL", "linux"),
              ("FREEBSD", "freebsd"), ("KQUEUE", "freebsd"), ("SOLARIS", "solaris"), ("DEVPOLL", "solaris"),
              ("EVENTPORT", "solaris"), ("DARWIN", "darwin"), ("UNIX", "unix"), ("POSIX", "unix"))


def _platform(variable: str) -> str | None:
    head = variable.upper()
    return next((platform for prefix, platform in _PLATFORMS if head.startswith(prefix)), None)


def programs_of_auto(texts: dict[str, str]) -> tuple[dict[str, set[str]], dict[str, str]]:
    """(source stem -> programs, source stem -> platform) of the ``auto/`` scripts given (path -> text). A
    source several platforms' variables name (``UNIX_SRCS`` holds ``CORE_SRCS``) keeps the platform of the
    narrowest variable: one naming it by its own file rather than through another variable."""
    options = texts.get("auto/options", "")
    found = _SBIN.search(options)
    program = found.group(1) if found else "nginx"
    stems: dict[str, set[str]] = {}
    platforms: dict[str, str] = {}
    for name in sorted(texts):
        for assign in _ASSIGN.finditer(texts[name]):
            variable, value = assign.group(1), assign.group(2).strip("\"'")
            platform = _platform(variable)
            for word in value.split():
                if not _SOURCE.match(word):
                    continue  # $OTHER_SRCS: the other variable is read by itself
                stem = word.rsplit(".", 1)[0]
                stems.setdefault(stem, set()).add(program)
                if platform is not None and (stem not in platforms or platforms[stem] == "unix"):
                    platforms[stem] = platform
    return stems, platforms
