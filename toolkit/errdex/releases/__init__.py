"""Dataset releases: stamp, hash, manifest, reproducible bundle, changelog; and ``diff`` between two datasets.

A release is cut from a records folder (one envelope per ``.json`` file):

1. every record gets a content hash: SHA-256 over its canonical JSON without
   the volatile fields (``contentChangedAt``, and the envelope's
   ``datasetVersion``), plus a hash per top-level field
   (:mod:`errdex.records.hashing`);
2. against the previous release's manifest, records are added, changed
   (with the fields that changed), withdrawn, superseded or unchanged; a
   record of the previous release that is missing refuses the release
   (records are never deleted: mark them withdrawn);
3. ``contentChangedAt`` moves to the release's version only for records
   that changed; every envelope's ``datasetVersion`` becomes the version;
4. it writes the manifest (``records/.releases/VERSION.json``: version,
   date, previous version, each record's hashes, counts, the bundle's
   SHA-256), the bundle (gzip of canonical JSONL envelopes sorted by id,
   gzip time 0, so the same records always give the same bytes) and a
   ``CHANGELOG.md`` entry (replaced when the same version is cut again).

The version is an RFC 3339 time: ``--version``, else ``$SOURCE_DATE_EPOCH``
(the reproducible-builds convention), else now.

The package, by responsibility: :mod:`.cutting` (cutting a release),
:mod:`.manifest` (reading manifests, the history they tell), :mod:`.changelog`
(what each release changed, ``CHANGELOG.md``), :mod:`.diffing` (``diff``),
:mod:`.version` (the version to stamp) and :mod:`.report` (what a cut reports).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from errdex._lazy import lazy_names

# Each name loads its module on first use: `errdex explain` reads a record's history (manifest) and must not pay
# for cutting, which imports the pydantic models through records.canonical (~300 ms of imports).
_LAZY = {
    "content_hash": "errdex.records.hashing", "field_hashes": "errdex.records.hashing",
    "ReleaseChanges": "errdex.releases.changelog", "changelog_entry": "errdex.releases.changelog",
    "release_changes": "errdex.releases.changelog", "cut_release": "errdex.releases.cutting",
    "DatasetDiff": "errdex.releases.diffing", "diff": "errdex.releases.diffing",
    "history_folder": "errdex.releases.manifest", "read_manifest": "errdex.releases.manifest",
    "record_releases": "errdex.releases.manifest", "release_history": "errdex.releases.manifest",
    "ReleaseReport": "errdex.releases.report",
}
__getattr__ = lazy_names(__name__, _LAZY, globals())

if TYPE_CHECKING:  # what the names are, for type checkers and editors
    from errdex.records.hashing import content_hash, field_hashes
    from errdex.releases.changelog import ReleaseChanges, changelog_entry, release_changes
    from errdex.releases.cutting import cut_release
    from errdex.releases.diffing import DatasetDiff, diff
    from errdex.releases.manifest import history_folder, read_manifest, record_releases, release_history
    from errdex.releases.report import ReleaseReport

__all__ = ["DatasetDiff", "ReleaseChanges", "ReleaseReport", "changelog_entry", "content_hash", "cut_release", "diff",
           "field_hashes", "history_folder", "read_manifest", "record_releases", "release_changes", "release_history"]
