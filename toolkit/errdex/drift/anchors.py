"""The code records quote, for ``errdex validate --source``: an :class:`~errdex.checks.anchored.AnchorSource`.

:func:`open_anchors` reads SOURCE as harvest does. A git repository (bare, or the top of a work tree, with
no ``--sha``) is read through git at each record's own ``analyzedSha`` (``git cat-file``, no checkout). A
folder holds one commit: ``sha``, or its work tree's ``HEAD`` (paths then count from the work tree's top).
A folder copied out of its repository (one file, or one folder of it) is matched by the tail of a record's
``filePath`` it holds (``client.ts`` for ``packages/.../src/client.ts``).

The statements of a file are harvest's sites, every level: in a git repository those of a harvest of the whole
tree at the commit (so constants from headers and the sinks of the source's ``[tool.errdex.harvest]`` or of
``config`` count, as they did when the records were harvested), else of the file alone with the language's own
sinks and ``config``'s. A throw of an error class whose constructor writes the message
(``throw new CreateosApiError(status, op)``, ``raise ConfigError(name)``) is a statement of that message too.
"""

from __future__ import annotations

import re
import subprocess
from collections.abc import Sequence
from functools import cache
from pathlib import Path, PurePosixPath

from errdex._git import run_git
from errdex.checks.anchored import AnchorSource, Statement
from errdex.errors import InputError, UsageError, from_oserror
from errdex.harvest.config import load_harvest_config
from errdex.harvest.drafts import message_text, source_lines
from errdex.harvest.languages import Unparsable, finder_for
from errdex.harvest.pattern import build
from errdex.harvest.run import harvest_sites
from errdex.harvest.sinks import Sink, parse_levels
from errdex.harvest.sites import Site
from errdex.harvest.source import folder_file
from errdex.records.source_paths import unsafe_path

__all__ = ["FolderAnchors", "GitAnchors", "open_anchors", "statements_of"]

_SHA = re.compile(r"[0-9a-f]{40}")
_LEVELS = parse_levels("all")
#: How many lines a throw of an error class may span, at most, to be taken as one statement.
MAX_THROW_LINES = 20


def _git(repo: Path, *args: str) -> subprocess.CompletedProcess[bytes]:
    return run_git(repo, *args, check=False, reader="validate --source")


def _pattern(site: Site) -> str | None:
    try:
        return build(site.template)
    except ValueError:  # no literal text, or a pattern the matchers refuse: the message text still counts
        return None


def _constructed(site: Site) -> re.Pattern[str] | None:
    """The start of a throw of the site's class when the site is that class's constructor, else None."""
    if site.function is None:
        return None
    owner, _, method = site.function.rpartition(".")
    if method == "constructor":
        return re.compile(rf"\bthrow\s+new\s+{re.escape(owner)}\s*\(")
    if method == "__init__":
        return re.compile(rf"\braise\s+{re.escape(owner)}\s*\(")
    return None


def _span(lines: Sequence[str], first: int) -> int:
    """The last line (1-based) of the statement starting at line ``first``: where its brackets close."""
    depth = 0
    for number in range(first, min(len(lines), first + MAX_THROW_LINES - 1) + 1):
        text = lines[number - 1]
        depth += text.count("(") - text.count(")")
        if depth <= 0:
            return number
    return first


def _statements(sites: Sequence[Site], data: bytes) -> list[Statement]:
    """The sites as statements, with the throws of a class whose constructor is one of them."""
    lines = source_lines(data)
    statements = []
    for site in sites:
        message, pattern = message_text(site.template), _pattern(site)
        statements.append(Statement(site.line, site.end_line, message, pattern))
        start = _constructed(site)
        if start is not None:
            statements.extend(Statement(number, _span(lines, number), message, pattern)
                              for number, text in enumerate(lines, 1) if start.search(text))
    return statements


def statements_of(path: str, data: bytes, sinks: Sequence[Sink] = ()) -> list[Statement] | None:
    """Every statement of the file that raises or logs a message (the language's sinks and ``sinks``, the
    file's own constants); None when errdex reads no such language, or the file is one its parser cannot take
    (:class:`~errdex.harvest.languages.Unparsable`: nesting, time)."""
    finder = finder_for(path)
    if finder is None:
        return None
    try:
        found = finder.find(data, path, sinks=(*finder.default_sinks, *sinks), levels=_LEVELS,
                            facts=finder.survey(data))
    except (Unparsable, RecursionError):  # a file the parser cannot take: read as a language errdex does not
        return None
    return _statements(found.sites, data)


class _Files:
    """What both sources share: a file's bytes (None when missing), read once, and its lines and statements."""

    def __init__(self, config: Path | None = None) -> None:
        self._read: dict[tuple[str, str], bytes | None] = {}
        self.config = config
        self._sinks: dict[Path | None, tuple[Sink, ...]] = {}

    def configured(self, config: Path | None) -> Path | None:
        """The harvest configuration to read statements with: the source's own (``--source-config``) first."""
        return self.config or config

    def sinks(self, config: Path | None) -> tuple[Sink, ...]:
        """The project sinks a harvest configuration names (read once)."""
        if config not in self._sinks:
            self._sinks[config] = load_harvest_config(config=config).sinks if config is not None else ()
        return self._sinks[config]

    def _data(self, path: str, sha: str) -> bytes | None:
        raise NotImplementedError

    def data(self, path: str, sha: str) -> bytes | None:
        """The file's bytes at ``sha``; None when it is not there, or when ``path`` could name a file outside the
        repository (:func:`~errdex.records.source_paths.unsafe_path`): such a path is never read."""
        if unsafe_path(path) is not None:
            return None
        key = (path, sha)
        if key not in self._read:
            self._read[key] = self._data(path, sha)
        return self._read[key]

    def unavailable(self, path: str, sha: str) -> str | None:
        raise NotImplementedError

    def lines(self, path: str, sha: str) -> list[str] | None:
        data = self.data(path, sha)
        return None if data is None else source_lines(data)

    def statements(self, path: str, sha: str, config: Path | None = None) -> list[Statement] | None:
        data = self.data(path, sha)
        return None if data is None else statements_of(path, data, self.sinks(self.configured(config)))


class GitAnchors(_Files):
    """A git repository, read at each record's own commit."""

    def __init__(self, repo: Path, config: Path | None = None) -> None:
        super().__init__(config)
        self.repo = repo
        self._has_commit = cache(self._commit)
        self._trees: dict[tuple[str, Path | None], dict[str, list[Site]]] = {}

    def _tree(self, sha: str, config: Path | None) -> dict[str, list[Site]]:
        """The sites of a harvest of the whole tree at ``sha``, by file (one harvest per commit and config)."""
        key = (sha, config)
        if key not in self._trees:
            _, found, _ = harvest_sites(self.repo, repo="validate/source", rev=sha, log_levels="all", config=config)
            by_path: dict[str, list[Site]] = {}
            for site, _draft in found:
                by_path.setdefault(site.path, []).append(site)
            self._trees[key] = by_path
        return self._trees[key]

    def statements(self, path: str, sha: str, config: Path | None = None) -> list[Statement] | None:
        data = self.data(path, sha)
        if data is None or finder_for(path) is None:
            return None
        config = self.configured(config)
        sites = self._tree(sha, config).get(path)
        if sites is None:  # a file the harvest skips (a test, a vendored folder): read alone
            return statements_of(path, data, self.sinks(config))
        return _statements(sites, data)

    def _commit(self, sha: str) -> bool:
        if not _SHA.fullmatch(sha):
            return False
        return _git(self.repo, "cat-file", "-e", f"{sha}^{{commit}}").returncode == 0

    def _data(self, path: str, sha: str) -> bytes | None:
        if not self._has_commit(sha):
            return None
        done = _git(self.repo, "cat-file", "blob", f"{sha}:{path}")
        return done.stdout if done.returncode == 0 else None

    def unavailable(self, path: str, sha: str) -> str | None:
        if not self._has_commit(sha):
            return f"commit {sha} is not in {self.repo}"
        if self.data(path, sha) is None:
            return f"{path} is not in {self.repo} at {sha[:12]}"
        return None


class FolderAnchors(_Files):
    """A folder that holds one commit; ``prefix``: the folder's path in its work tree (``""`` at the top)."""

    def __init__(self, root: Path, sha: str, prefix: str = "", config: Path | None = None) -> None:
        super().__init__(config)
        self.root, self.sha, self.prefix = root, sha, prefix

    def _file(self, path: str) -> Path | None:
        """The folder's copy of the repository's ``path``: under the prefix, else the longest tail it holds; read
        as a harvest reads the folder (:func:`~errdex.harvest.source.folder_file`: no symbolic link, which may
        lead outside the folder, and no submodule)."""
        if self.prefix and path.startswith(self.prefix):
            return folder_file(self.root, path[len(self.prefix):])
        parts = PurePosixPath(path).parts
        if ".." in parts:
            return None
        for first in range(len(parts)):
            candidate = folder_file(self.root, "/".join(parts[first:]))
            if candidate is not None:
                return candidate
        return None

    def _data(self, path: str, sha: str) -> bytes | None:
        found = self._file(path) if sha == self.sha else None
        if found is None:
            return None
        try:
            return found.read_bytes()
        except OSError as exc:
            raise from_oserror(exc, found, action="read") from exc

    def unavailable(self, path: str, sha: str) -> str | None:
        if sha != self.sha:
            return f"{self.root} holds commit {self.sha[:12]}, the record was analyzed at {sha[:12]}"
        if self._file(path) is None:
            return f"{path} is not in {self.root}"
        return None


def open_anchors(source: str | Path, *, sha: str | None = None, config: str | Path | None = None) -> AnchorSource:
    """The code at ``source`` (see the module's docstring); a usage error when it cannot be read. ``config``: a
    harvest configuration whose sinks count as statements (as ``errdex harvest --config``)."""
    sinks_file = Path(config) if config is not None else None
    root = Path(source)
    if not root.is_dir():
        raise InputError(f"{root}: no such folder (--source takes a git repository or a folder)")
    if sha is not None:
        if not _SHA.fullmatch(sha):
            raise UsageError(f"--sha {sha!r} is not a full commit id (40 lowercase hexadecimal digits)")
        return FolderAnchors(root, sha, config=sinks_file)
    done = _git(root, "rev-parse", "--is-bare-repository", "--show-prefix", "HEAD^{commit}")
    answer = done.stdout.decode("utf-8", "surrogateescape").splitlines()
    if done.returncode == 0 and len(answer) == 3:
        bare, prefix, head = answer
        if bare == "true" or not prefix:
            return GitAnchors(root, sinks_file)
        return FolderAnchors(root, head, prefix, sinks_file)
    if done.returncode == 0 and answer[:1] == ["true"]:
        return GitAnchors(root, sinks_file)  # bare, without a HEAD commit: each record's own commit is asked
    raise UsageError(f"{root} is not a git repository or in a work tree: pass --sha with the commit it holds")
