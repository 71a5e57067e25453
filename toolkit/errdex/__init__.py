"""errdex: an error-knowledge dataset and the toolkit that keeps it true.

The public API; the ``errdex`` command line is a thin wrapper over it.
"""

from typing import TYPE_CHECKING

from errdex._lazy import lazy_names
from errdex._version import __version__

# Names load their module on first use, so `import errdex` (and every CLI start) stays fast.
_LAZY = {
    "Check": "errdex.checks.base", "Finding": "errdex.checks.base", "registry": "errdex.checks.registry",
    "ValidationConfig": "errdex.checks.config", "load_config": "errdex.checks.config",
    "explain_check": "errdex.checks.explain",
    "ValidationReport": "errdex.checks.runner", "validate": "errdex.checks.runner",
    "KnowledgeBase": "errdex.match", "LineMatch": "errdex.match", "Match": "errdex.match", "load": "errdex.match",
    "ConfigError": "errdex.errors", "DataError": "errdex.errors", "ErrdexError": "errdex.errors",
    "FormatError": "errdex.errors", "InputError": "errdex.errors", "RecordNotFound": "errdex.errors",
    "UsageError": "errdex.errors",
    "FmtResult": "errdex.records.canonical", "canonical_text": "errdex.records.canonical",
    "fmt": "errdex.cli.fmt",  # refusals named by the check registry's codes
    "EnvelopeV2": "errdex.records.models", "RecordV2": "errdex.records.models",
    "derive_slug": "errdex.records.slug",
    "Document": "errdex.records.sources", "bundled_records_dir": "errdex.records.sources",
    "iter_documents": "errdex.records.sources",
    "cut_release": "errdex.releases", "diff": "errdex.releases",
    "migrate": "errdex.records.migrate",
    "import_bundle": "errdex.bundles", "export_dataset": "errdex.bundles",
    "build_site": "errdex.cli.site", "prove": "errdex.prove",  # the site with validation's findings joined in
    "harvest": "errdex.harvest.run", "HarvestReport": "errdex.harvest.report",
}


__getattr__ = lazy_names("errdex", _LAZY, globals())


if TYPE_CHECKING:
    from errdex.bundles import export_dataset, import_bundle
    from errdex.checks.base import Check, Finding
    from errdex.checks.config import ValidationConfig, load_config
    from errdex.checks.explain import explain_check
    from errdex.checks.registry import registry
    from errdex.checks.runner import ValidationReport, validate
    from errdex.cli.fmt import fmt
    from errdex.cli.site import build_site
    from errdex.errors import (
        ConfigError,
        DataError,
        ErrdexError,
        FormatError,
        InputError,
        RecordNotFound,
        UsageError,
    )
    from errdex.harvest.report import HarvestReport
    from errdex.harvest.run import harvest
    from errdex.match import KnowledgeBase, LineMatch, Match, load
    from errdex.prove import prove
    from errdex.records.canonical import FmtResult, canonical_text
    from errdex.records.migrate import migrate
    from errdex.records.models import EnvelopeV2, RecordV2
    from errdex.records.slug import derive_slug
    from errdex.records.sources import Document, bundled_records_dir, iter_documents
    from errdex.releases import cut_release, diff

__all__ = [
    "Check",
    "ConfigError",
    "DataError",
    "Document",
    "EnvelopeV2",
    "ErrdexError",
    "Finding",
    "FmtResult",
    "FormatError",
    "HarvestReport",
    "InputError",
    "KnowledgeBase",
    "LineMatch",
    "Match",
    "RecordNotFound",
    "RecordV2",
    "UsageError",
    "ValidationConfig",
    "ValidationReport",
    "__version__",
    "build_site",
    "bundled_records_dir",
    "canonical_text",
    "cut_release",
    "derive_slug",
    "diff",
    "explain_check",
    "export_dataset",
    "fmt",
    "harvest",
    "import_bundle",
    "iter_documents",
    "load",
    "load_config",
    "migrate",
    "prove",
    "registry",
    "validate",
]
