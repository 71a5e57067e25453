"""Records in and out of the dataset as bundles: ``import_bundle`` and ``export_dataset``.

A service over the layers below it: importing validates with :mod:`errdex.checks` and compares by
:mod:`errdex.records.hashing`; exporting writes JSONL, Parquet, or the :mod:`errdex.index` database.
Nothing below imports this package.

- :mod:`.importing`: :func:`import_bundle`, a bundle of envelopes into a records folder;
- :mod:`.existing`: the records already in that folder;
- :mod:`.exporting`: :func:`export_dataset`, :func:`parquet_columns`;
- :mod:`.reports`: what an import or an export reports.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from errdex._lazy import lazy_names

__all__ = [
    "EXPORT_FORMATS",
    "VOLATILE_FIELDS",
    "ExportReport",
    "ImportEntry",
    "ImportReport",
    "content_hash",
    "export_dataset",
    "import_bundle",
    "parquet_columns",
]

# Names load their module on first use: an import never loads DuckDB, an export never loads the checks.
__getattr__ = lazy_names("errdex.bundles", {
    "EXPORT_FORMATS": "errdex.bundles.exporting", "export_dataset": "errdex.bundles.exporting",
    "parquet_columns": "errdex.bundles.exporting", "import_bundle": "errdex.bundles.importing",
    "ExportReport": "errdex.bundles.reports", "ImportEntry": "errdex.bundles.reports",
    "ImportReport": "errdex.bundles.reports",
    "VOLATILE_FIELDS": "errdex.records.hashing", "content_hash": "errdex.records.hashing",
}, globals())

if TYPE_CHECKING:
    from errdex.bundles.exporting import EXPORT_FORMATS, export_dataset, parquet_columns
    from errdex.bundles.importing import import_bundle
    from errdex.bundles.reports import ExportReport, ImportEntry, ImportReport
    from errdex.records.hashing import VOLATILE_FIELDS, content_hash
