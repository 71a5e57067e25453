"""The files a harvest reads: a folder (or one file), or a git repository at a revision, filtered.

A git repository (bare or not) named with ``--rev`` is read through git itself, without a checkout:
``git rev-parse REV^{commit}`` gives the commit, ``git ls-tree -r -z -l`` its files and ``git cat-file
--batch`` their bytes. A folder is walked in sorted order without following symbolic links; its commit is
``--sha`` or, inside a git work tree that tracks it, that tree's HEAD (paths are then relative to the work tree's
top). A folder no repository tracks (an installed package: outside any work tree, or ignored by the one it
sits in) borrows no commit: its files are read with no commit (``sha`` None), paths relative to the folder, and
the release it holds is read from its packaging metadata when there is one (:func:`package_version`).
``--path-prefix DIR`` names the folder's own path inside its repository (a copy of one folder, or one file,
taken out of the repository): it is put in front of every file's path, in place of the work tree's.

Skipped by default (each counted under a reason): test code (``tests/``, ``test_*.py``, ``*_test.go``,
``*.spec.ts``...), vendored and build folders (``node_modules/``, ``vendor/``, ``third_party/``, ``build/``,
``dist/``, virtual environments: ``.venv/``, ``venv/``, ``.tox/``, ``site-packages/``, ``dist-packages/``, each
only below the folder given: the folder itself, or one above it, is what was asked for), generated files (a
``Code generated ... DO NOT EDIT`` first line, ``*.pb.go``, ``*_pb2.py``) and minified JavaScript; symbolic
links, submodules (in a folder: a sub-folder holding a ``.git``, the work tree of another repository), and
files over :data:`MAX_FILE_BYTES`. A file whose path no record may name
(:func:`~errdex.records.source_paths.unsafe_path`) is skipped as ``undecodable-name`` (not UTF-8) or
``unsafe-path`` (a ``..`` entry of a git tree, control characters, a backslash...).
"""

from __future__ import annotations

import fnmatch
import functools
import os
import re
import stat
import subprocess
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

from errdex._git import run_git
from errdex.errors import InputError, UsageError, from_oserror
from errdex.records.source_paths import NOT_UTF8, shown_path, unsafe_path

__all__ = ["MAX_FILE_BYTES", "Source", "SourceFile", "folder_file", "path_prefix_of", "read_source",
           "skip_reason"]

#: A source file larger than this is skipped ("too-large"): real code files are far smaller.
MAX_FILE_BYTES = 4 * 1024 * 1024
_SHA = re.compile(r"[0-9a-f]{40}")
_TEST_DIRS = frozenset({"tests", "test", "__tests__"})
_VENDOR_DIRS = frozenset({"node_modules", "vendor", "third_party", ".venv", "venv", ".tox", ".nox",
                          "site-packages", "dist-packages"})
_BUILD_DIRS = frozenset({"build", "dist"})
_TEST_FILES = ("test_*.py", "*_test.py", "*_test.go", "*.test.ts", "*.test.tsx", "*.test.js", "*.test.jsx",
               "*.spec.ts", "*.spec.tsx", "*.spec.js", "*.spec.jsx")
_GENERATED_FILES = ("*.pb.go", "*_pb2.py", "*.min.js", "*.min.mjs", "*.min.cjs")
_GENERATED_LINE = re.compile(rb"Code generated .* DO NOT EDIT")
_JS = (".js", ".mjs", ".cjs", ".jsx", ".ts", ".tsx")


@dataclass(frozen=True)
class SourceFile:
    """One file to harvest: ``path`` relative to the repository root (``/``-separated), and its bytes."""

    path: str
    data: bytes


@dataclass
class Source:
    """The files of a source at one commit, and what was skipped (reason -> paths, in order)."""

    sha: str | None
    files: list[SourceFile] = field(default_factory=list)
    skipped: dict[str, list[str]] = field(default_factory=dict)
    #: The release a folder with no commit holds (``jinja2 3.1.6``), when its packaging metadata names it.
    version: str | None = None

    def skip(self, reason: str, path: str) -> None:
        self.skipped.setdefault(reason, []).append(path)


def _minified(path: str, data: bytes) -> bool:
    """JavaScript whose lines are very long on average (a bundler's output)."""
    return path.endswith(_JS) and len(data) > 2048 and len(data) > 500 * (data.count(b"\n") + 1)


@functools.lru_cache(maxsize=64)
def _globs(globs: tuple[str, ...]) -> Callable[[str], object]:
    """One compiled test for "the name matches one of ``globs``" (as :func:`fnmatch.fnmatchcase`): a regex
    per glob tried in turn is most of the cost of reading a tree of many small files."""
    if not globs:
        return lambda name: None
    return re.compile("|".join(f"(?:{fnmatch.translate(glob)})" for glob in globs)).match


_GENERATED_NAME = _globs(_GENERATED_FILES)
_TEST_NAME = _globs(_TEST_FILES)


def skip_reason(path: str, *, include_tests: bool = False, exclude: Sequence[str] = ()) -> str | None:
    """Why a file is left out by its path alone (``test``, ``vendored``, ``build``, ``generated``,
    ``excluded``), or None."""
    plain = "//" not in path and "/." not in path and not path.startswith((".", "/")) and not path.endswith("/")
    parts = path.split("/") if plain else PurePosixPath(path).parts  # the same parts, without pathlib's cost
    folders, name = parts[:-1], parts[-1]
    if exclude:
        excluded = _globs(tuple(exclude))
        if excluded(path) or excluded(name):
            return "excluded"
        for depth in range(1, len(folders) + 1):
            if excluded("/".join(folders[:depth])):
                return "excluded"
    if any(folder in _VENDOR_DIRS for folder in folders):
        return "vendored"
    if any(folder in _BUILD_DIRS for folder in (folders[:1] if name.endswith(".py") else folders)):
        return "build"  # Python builds into the project's own build/; a nested build/ is a package (pip's)
    if _GENERATED_NAME(name):
        return "generated"
    if not include_tests and (any(folder in _TEST_DIRS for folder in folders) or _TEST_NAME(name)):
        return "test"
    return None


def _content_reason(path: str, data: bytes) -> str | None:
    """Why a file is left out by what it holds (``generated``, ``minified``), or None."""
    first = data[:512].split(b"\n", 1)[0]
    if _GENERATED_LINE.search(first):
        return "generated"
    if _minified(path, data):
        return "minified"
    return None


def _keep(source: Source, path: str, data: bytes) -> None:
    reason = _content_reason(path, data)
    if reason is None:
        source.files.append(SourceFile(path, data))
    else:
        source.skip(reason, path)


def _git(repo: Path, *args: str, check: bool = True) -> subprocess.CompletedProcess[bytes]:
    return run_git(repo, *args, check=check, reader="harvest")


def _git_dir(folder: Path) -> bool:
    """Whether ``folder`` is a git repository itself (bare, or the top of a work tree)."""
    done = _git(folder, "rev-parse", "--is-bare-repository", "--show-prefix", check=False)
    if done.returncode != 0:
        return False
    bare, _, prefix = done.stdout.decode("utf-8", "replace").partition("\n")
    return bare.strip() == "true" or prefix.strip() == ""


def _commit(repo: Path, rev: str) -> str:
    done = _git(repo, "rev-parse", "--verify", "--quiet", "--end-of-options", f"{rev}^{{commit}}", check=False)
    if done.returncode != 0:
        raise UsageError(f"{repo}: no commit {rev!r} in this repository")
    return done.stdout.decode("ascii").strip()


def _tree(repo: Path, sha: str) -> Iterator[tuple[str, str, str, int]]:
    """(mode, object, path, size) of every entry of the commit's tree, in git's (sorted) order."""
    out = _git(repo, "ls-tree", "-r", "-z", "-l", "--full-tree", sha).stdout
    for entry in filter(None, out.split(b"\0")):
        meta, _, raw_path = entry.partition(b"\t")
        mode, kind, obj, size = meta.split()
        path = raw_path.decode("utf-8", "surrogateescape")
        if kind == b"blob":
            yield mode.decode(), obj.decode(), path, int(size)
        else:
            yield mode.decode(), obj.decode(), path, -1


def _blobs(repo: Path, objects: Sequence[str]) -> Iterator[bytes]:
    """The bytes of each blob, in order, from one ``git cat-file --batch``: one request, then its answer."""
    if not objects:
        return
    try:
        process = subprocess.Popen(["git", "-c", "safe.directory=*", "-C", str(repo), "cat-file", "--batch"],
                                   stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    except OSError as exc:
        raise from_oserror(exc, repo, action="run git cat-file in") from exc
    assert process.stdin is not None and process.stdout is not None  # both were asked for as pipes
    try:
        for obj in objects:
            process.stdin.write(obj.encode("ascii") + b"\n")
            process.stdin.flush()
            header = process.stdout.readline().split()
            if len(header) != 3:
                raise InputError(f"{repo}: git cat-file cannot read object {obj}")
            data = process.stdout.read(int(header[2]))
            process.stdout.read(1)  # the newline after the content
            yield data
    finally:
        process.stdin.close()
        process.stdout.close()
        process.wait()


def _from_git(repo: Path, rev: str, keep: Callable[[str], str | None]) -> Source:
    sha = _commit(repo, rev)
    source = Source(sha)
    wanted: list[str] = []
    objects: list[str] = []
    for mode, obj, path, size in _tree(repo, sha):
        reason = "symlink" if mode == "120000" else "submodule" if mode == "160000" else keep(path)
        if reason is None and size > MAX_FILE_BYTES:
            reason = "too-large"
        if reason is None:
            wanted.append(path)
            objects.append(obj)
        elif reason != "unsupported":
            source.skip(reason, path)
    for path, data in zip(wanted, _blobs(repo, objects), strict=True):
        _keep(source, path, data)
    return source


def _is_submodule(folder: str) -> bool:
    """Whether ``folder`` (below the source's top) is the work tree of another repository: a submodule, or a
    repository cloned inside this one. Its files are that repository's, at its own commit."""
    return os.path.lexists(os.path.join(folder, ".git"))


def _walk(root: Path) -> Iterator[tuple[str, Path | None]]:
    """(relative path, path) of every entry below ``root`` that is not a folder, sorted, links not followed; a
    submodule's folder is given once with the path None, and not entered."""
    pending = [(root, "")]
    while pending:
        folder, prefix = pending.pop()
        try:
            entries = sorted(os.scandir(folder), key=lambda entry: entry.name)
        except OSError as exc:
            raise from_oserror(exc, folder, action="read the folder") from exc
        folders = []
        for entry in entries:
            relative = f"{prefix}{entry.name}"
            if entry.is_dir(follow_symlinks=False):
                if entry.name == ".git":
                    continue
                if _is_submodule(entry.path):
                    yield relative, None
                else:
                    folders.append((Path(entry.path), relative + "/"))
            else:
                yield relative, Path(entry.path)
        pending.extend(reversed(folders))


def folder_file(root: Path, path: str) -> Path | None:
    """The regular file at ``path`` (``/``-separated, relative) below the folder ``root``, as a harvest of the
    folder reads it: None when a part of it is a symbolic link (which may lead anywhere, outside the folder
    too), a submodule's folder, or missing, or when the file is not a regular file (a FIFO, a device)."""
    parts = [part for part in path.split("/") if part]
    if not parts or any(part in (".", "..") for part in parts):
        return None
    current = str(root)
    for number, part in enumerate(parts):
        current = os.path.join(current, part)
        try:
            info = os.lstat(current)
        except (OSError, ValueError):  # missing, or a NUL in the name
            return None
        last = number == len(parts) - 1
        if not (stat.S_ISREG(info.st_mode) if last else stat.S_ISDIR(info.st_mode)):
            return None
        if not last and _is_submodule(current):
            return None
    return Path(current)


def _read_file(path: Path) -> bytes | str:
    """The file's bytes, or why it is skipped (``symlink``, ``not-regular``, ``too-large``)."""
    info = os.lstat(path)
    if stat.S_ISLNK(info.st_mode):
        return "symlink"
    if not stat.S_ISREG(info.st_mode):
        return "not-regular"
    if info.st_size > MAX_FILE_BYTES:
        return "too-large"
    try:
        return path.read_bytes()
    except OSError as exc:
        raise from_oserror(exc, path, action="read") from exc


def _work_tree(folder: Path) -> tuple[str, str] | None:
    """(HEAD commit, folder's path inside the work tree with a final ``/`` or "") when ``folder`` lies in a git
    work tree with a commit that tracks files in it; None otherwise: a folder the work tree ignores or does not
    track (a virtual environment's installed package inside a project) is not that repository's."""
    done = _git(folder, "rev-parse", "--show-prefix", "HEAD^{commit}", check=False)
    lines = done.stdout.decode("utf-8", "surrogateescape").splitlines()
    if done.returncode != 0 or len(lines) != 2 or not _SHA.fullmatch(lines[1].strip()):
        return None
    tracked = _git(folder, "ls-tree", "--name-only", "HEAD", "--", ".", check=False)
    if tracked.returncode != 0 or not tracked.stdout.strip():
        return None  # HEAD holds nothing here: the folder is not at that commit
    return lines[1].strip(), lines[0]


_METADATA_VERSION = re.compile(r"^Version:[ \t]*(\S+)[ \t]*$", re.MULTILINE)
_METADATA_NAME = re.compile(r"^Name:[ \t]*(\S+)[ \t]*$", re.MULTILINE)


def package_version(folder: Path) -> str | None:
    """The release an installed package (or an unpacked sdist) holds, as ``NAME VERSION``: from the
    ``*.dist-info/METADATA`` (or ``*.egg-info/PKG-INFO``) beside the folder that names it as a top-level
    package, or the folder's own ``PKG-INFO``; None when none says."""
    candidates = [folder / "PKG-INFO"]
    try:
        siblings = sorted(os.scandir(folder.parent), key=lambda entry: entry.name)
    except OSError:
        siblings = []
    for entry in siblings:
        if entry.name.endswith((".dist-info", ".egg-info")) and entry.is_dir(follow_symlinks=False):
            top = Path(entry.path) / "top_level.txt"
            name = entry.name.rsplit(".", 1)[0].rsplit("-", 1)[0]  # NAME-VERSION.dist-info
            try:
                tops = top.read_text(encoding="utf-8").split() if top.is_file() else []
            except (OSError, UnicodeDecodeError):
                tops = []
            if folder.name in tops or name.replace("-", "_").lower() == folder.name.lower():
                candidates.append(Path(entry.path) / ("METADATA" if entry.name.endswith(".dist-info")
                                                      else "PKG-INFO"))
    for candidate in candidates:
        try:
            head = candidate.read_bytes()[:8192].decode("utf-8", "replace")
        except OSError:
            continue
        number, named = _METADATA_VERSION.search(head), _METADATA_NAME.search(head)
        if number is not None:
            return f"{named.group(1) if named else folder.name} {number.group(1)}"
    return None


def path_prefix_of(given: str) -> str:
    """``given`` as a folder path inside a repository: ``/``-separated, with a final ``/`` ("" for none).

    An absolute path, a ``..`` part or a backslash is refused: the result is joined to repository paths and
    URLs as it is."""
    if "\\" in given:
        raise UsageError(f"--path-prefix {given!r}: separate folders with '/'")
    if given.startswith("/"):
        raise UsageError(f"--path-prefix {given!r} is absolute: give the folder's path inside its repository")
    parts = [part for part in given.split("/") if part not in ("", ".")]
    if ".." in parts:
        raise UsageError(f"--path-prefix {given!r} climbs out with '..': give the folder's path inside its "
                         "repository")
    unsafe = unsafe_path("/".join(parts)) if parts else None
    if unsafe is not None:  # every file's path would hold it: none could be harvested
        raise UsageError(f"--path-prefix {shown_path(given)!r} {unsafe}")
    return "".join(f"{part}/" for part in parts)


def _from_folder(root: Path, sha: str | None, keep: Callable[..., str | None],
                 path_prefix: str | None = None) -> Source:
    single = root.is_file()
    folder = root.parent if single else root
    prefix = path_prefix or ""
    version = None
    if sha is None:
        found = _work_tree(folder)
        if found is not None:
            sha = found[0]
            if path_prefix is None:
                prefix = found[1]
        else:  # no repository holds the folder: no commit to name, the release it holds if it says
            version = package_version(folder)
    source = Source(sha, version=version)
    entries: Iterable[tuple[str, Path | None]] = [(root.name, root)] if single else _walk(root)
    for relative, path in entries:
        repo_path = prefix + relative
        if path is None:
            source.skip("submodule", repo_path)
            continue
        reason = keep(repo_path, relative)
        if reason is not None:
            if reason != "unsupported":
                source.skip(reason, repo_path)
            continue
        data = _read_file(path)
        if isinstance(data, str):
            source.skip(data, repo_path)
        else:
            _keep(source, repo_path, data)
    return source


def read_source(root: Path, *, rev: str | None = None, sha: str | None = None, exclude: Sequence[str] = (),
                include_tests: bool = False, supported: Callable[[str], bool] = lambda path: True,
                path_prefix: str | None = None) -> Source:
    """The files of ``root`` to harvest, sorted by path (see the module's docstring).

    ``rev``: read the git repository ``root`` at that revision; otherwise ``root`` is a folder (or one file)
    read as it is, at ``sha`` or its work tree's HEAD. ``path_prefix``: the folder's path inside its
    repository, put in front of every file's path (folder mode only; it replaces the work tree's).
    ``supported(path)`` says whether a file's language is harvested at all (files it refuses are not read, and
    not counted as skipped).
    """
    root = Path(root)
    if rev is not None and sha is not None:
        raise UsageError("give --rev (a git revision to read) or --sha (the commit a folder holds), not both")
    if rev is not None and path_prefix is not None:
        raise UsageError("--path-prefix is for a folder; --rev reads a whole repository from its top")
    prefix = None if path_prefix is None else path_prefix_of(path_prefix)
    if sha is not None and not _SHA.fullmatch(sha):
        raise UsageError(f"--sha {sha!r} is not a full commit id (40 lowercase hexadecimal digits)")
    if not root.exists():
        raise InputError(f"{root}: no such file or folder")

    def keep(path: str, below: str | None = None) -> str | None:
        """Why ``path`` is not read; ``below``: its path below the folder given, the part where a vendored
        folder counts (a package inside ``site-packages/`` is what the user asked for when it is the folder)."""
        if not supported(path):
            return "unsupported"
        unsafe = unsafe_path(path)
        if unsafe is not None:
            return "undecodable-name" if unsafe == NOT_UTF8 else "unsafe-path"
        reason = skip_reason(path, include_tests=include_tests, exclude=exclude)
        if reason == "vendored" and below is not None and below != path:
            return skip_reason(below, include_tests=include_tests, exclude=exclude)
        return reason

    if rev is None and root.is_dir() and sha is None and _git(root, "rev-parse", "--is-bare-repository",
                                                              check=False).stdout.strip() == b"true":
        rev = "HEAD"  # a bare repository has no files to walk: read its HEAD
    if rev is not None:
        if prefix is not None:
            raise UsageError(f"{root} is a bare git repository: --path-prefix is for a folder")
        if not root.is_dir() or not _git_dir(root):
            raise UsageError(f"{root} is not a git repository; --rev reads one (a folder takes --sha)")
        return _from_git(root, rev, keep)
    return _from_folder(root, sha, keep, prefix)
