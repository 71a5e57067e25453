"""Incremental site builds: an output whose inputs did not change is carried over, not written again.

Every build writes :data:`MANIFEST` into the site: for each file, the hash
of what made it (a page: the template set and the page's context, which
holds everything the page shows; any other file: its bytes) and its size.
The next build into the same ``--out`` computes each output's key first;
where the old site has that path with the same key and size, the old file
is hard-linked into the new build folder instead of being rendered and
written, so it keeps its inode and modification time. Only what depends on
a changed record is rendered and written again: its page and JSON, the
listings and index shards that show it.

The new build is still made beside ``--out`` and renamed into place, so a
failed build leaves the old site as it was. A changed template, asset or
errdex version changes every page's key (:func:`template_salt`); a file
that cannot be linked (another filesystem, a link limit) is written.
The manifest is the same for an incremental and a full build of the same
inputs, so the two sites are equal byte for byte.
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path
from typing import Any

import jinja2

from errdex._version import __version__
from errdex.site.records import RELATED, RecordFacts

__all__ = ["LISTED_FIELDS", "MANIFEST", "Outputs", "SiteWriter", "has_previous", "template_salt"]

MANIFEST = ".errdex-build.json"
FORMAT = 1
#: What a page's lists may show of another record (a record page's related lists, its successor).
LISTED_FIELDS = ("id", "slug", "repo", "filePath", "errorClass", "errorMessage", "severity", "status",
                 "statusReason", "supersededBy", "tags")
#: A manifest larger than this is not read (and the build is a full one).
MAX_MANIFEST_BYTES = 64 << 20


def _digest(*parts: bytes) -> str:
    hasher = hashlib.blake2b(digest_size=16)
    for part in parts:
        hasher.update(len(part).to_bytes(8, "little"))
        hasher.update(part)
    return hasher.hexdigest()


def template_salt(site: Path) -> str:
    """A hash of errdex's version and every template and asset: a page's key changes with any of them."""
    parts = [__version__.encode()]
    for folder in ("templates", "assets"):
        for path in sorted((site / folder).iterdir()):
            parts += [path.name.encode(), path.read_bytes()]
    return _digest(*parts)


def _previous(out: Path, salt: str) -> dict[str, list[Any]]:
    """What the site in ``out`` was built from (empty when it has no usable manifest or another salt)."""
    try:
        with open(out / MANIFEST, "rb") as handle:
            data = json.loads(handle.read(MAX_MANIFEST_BYTES + 1))
    except (OSError, ValueError):
        return {}
    if not isinstance(data, dict) or data.get("format") != FORMAT or data.get("salt") != salt:
        return {}
    files = data.get("files")
    return files if isinstance(files, dict) else {}


def has_previous(out: Path, salt: str) -> bool:
    """Whether ``out`` holds a site built with these templates and assets (whose pages can be carried over)."""
    return bool(_previous(out, salt))


class Outputs:
    """The keys of one build's outputs, and the previous build's files to carry over when a key is unchanged.

    ``out`` is the site being replaced (None: a full build); ``folder`` the
    new build's folder. Forked children each use a copy and send back
    :attr:`keys`, merged with :meth:`merge`.
    """

    def __init__(self, folder: Path, out: Path | None, salt: str) -> None:
        self.salt = salt
        self._old_base = str(out) + os.sep if out is not None else ""
        self._new_base = str(folder) + os.sep
        self._previous = _previous(out, salt) if out is not None else {}
        self.keys: dict[str, list[Any]] = {}
        self.reused = 0
        self._record_hashes: dict[str, bytes] = {}
        self._summary_hashes: dict[str, bytes] = {}

    @property
    def incremental(self) -> bool:
        """Whether there is a previous build to carry files over from."""
        return bool(self._previous)

    def page_key(self, template: str, context: Any) -> str:
        """The key of a rendered page: its template set and its context (frozen dataclasses: a full repr)."""
        return _digest(self.salt.encode(), template.encode(), repr(context).encode("utf-8", "surrogatepass"))

    @staticmethod
    def data_key(data: bytes) -> str:
        return _digest(data)

    def _record_hash(self, record: dict[str, Any], fields: tuple[str, ...] | None = None) -> bytes:
        """A hash of the record (``fields``: of those fields only), computed once per build and process."""
        cache = self._record_hashes if fields is None else self._summary_hashes
        found = cache.get(record["id"])
        if found is None:
            shown = record if fields is None else {name: record.get(name) for name in fields}
            text = json.dumps(shown, sort_keys=True, ensure_ascii=False, default=str)
            found = cache[record["id"]] = bytes.fromhex(_digest(text.encode("utf-8", "surrogatepass")))
        return found

    def record_key(self, record: dict[str, Any], facts: RecordFacts, info: Any) -> str:
        """The key of a record's page from what it is made of, without making its context (the costly part).

        A record page shows the record, its own findings, proof, pattern
        verdict, versions and releases, the site's counts, and other records
        only through ``record_page``'s related lists (the first ``RELATED +
        1`` of its file's, class's and tags' groups) and its successor, and of
        those only what a list shows (:data:`LISTED_FIELDS`). If a record page
        comes to show more of other records, add it here (the tests comparing
        an incremental build with a full one, after a change of the
        documentation, the message and the severity, fail until then).
        """
        identity = record["id"]
        groups = [facts.by_file.get((record["repo"], record["filePath"]), []),
                  facts.by_class.get(record["errorClass"], [])]
        groups += [facts.by_tag.get(tag, []) for tag in record.get("tags", [])]
        others = [other for group in groups for other in group[: RELATED + 1]]
        successor = facts.by_id.get(record.get("supersededBy") or "")
        if successor is not None:
            others.append(successor)
        return _digest(self.salt.encode(), b"record.html", repr(info).encode(), self._record_hash(record),
                       repr((facts.findings.get(identity), facts.matchable.get(identity, False),
                             facts.proofs is not None, facts.proof_of(record), facts.versions.get(identity),
                             facts.releases.get(identity))).encode("utf-8", "surrogatepass"),
                       *(self._record_hash(other, LISTED_FIELDS) for other in others))

    def carry_over(self, path: str, key: str) -> bool:
        """Link the previous build's ``path`` into the new folder when its key is ``key``; whether it did."""
        old = self._previous.get(path)
        if not self._old_base or old is None or old[0] != key:
            return False
        source, target = self._old_base + path, self._new_base + path
        try:
            if os.stat(source, follow_symlinks=False).st_size != old[1]:
                return False
            try:
                os.link(source, target, follow_symlinks=False)
            except FileExistsError:  # linked by a child that died before reporting it: never write through it
                os.unlink(target)
                os.link(source, target, follow_symlinks=False)
        except OSError:  # gone, another filesystem, a link limit: written instead
            return False
        self.keys[path] = old
        self.reused += 1
        return True

    def wrote(self, path: str, key: str, size: int) -> None:
        self.keys[path] = [key, size]

    def merge(self, keys: dict[str, list[Any]]) -> None:
        self.keys.update(keys)

    def manifest(self) -> bytes:
        """The manifest of this build (sorted: the same for the same inputs, however they were built)."""
        return (json.dumps({"format": FORMAT, "salt": self.salt, "files": dict(sorted(self.keys.items()))},
                           separators=(",", ":")) + "\n").encode("utf-8")


class SiteWriter:
    """Writes the pages and files of one build into its folder; an output whose key is unchanged since the
    previous build is carried over from it instead. ``page`` takes a page context (``errdex.site.pages``)."""

    def __init__(self, folder: Path, environment: jinja2.Environment, outputs: Outputs) -> None:
        self.folder = folder
        self.environment = environment
        self.outputs = outputs
        self.pages: list[str] = []
        self._base = str(folder) + os.sep
        self._made: set[str] = set()

    def _folder_of(self, path: str) -> None:
        parent = os.path.dirname(self._base + path)
        if parent not in self._made:
            os.makedirs(parent, exist_ok=True)
            self._made.add(parent)

    def _write(self, path: str, data: bytes, key: str) -> None:
        fd = os.open(self._base + path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
        try:
            os.write(fd, data)
        finally:
            os.close(fd)
        self.outputs.wrote(path, key, len(data))

    def write(self, path: str, data: bytes | str) -> None:
        data = data.encode("utf-8") if isinstance(data, str) else data
        key = self.outputs.data_key(data)
        self._folder_of(path)
        if not self.outputs.carry_over(path, key):
            self._write(path, data, key)

    def page(self, template: str, page: Any, key: str | None = None) -> None:
        """Render a page (keyed by its context unless ``key`` is given), unless it is carried over."""
        key = self.outputs.page_key(template, page) if key is None else key
        self._folder_of(page.path)
        if not self.outputs.carry_over(page.path, key):
            self._write(page.path, self.environment.get_template(template).render(page=page).encode("utf-8"), key)
        self.pages.append(page.path)

    def carry_page(self, path: str, key: str) -> bool:
        """Carry the page at ``path`` over from the previous build if its key is ``key``; whether it did."""
        self._folder_of(path)
        if not self.outputs.carry_over(path, key):
            return False
        self.pages.append(path)
        return True
