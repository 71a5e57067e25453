"""errdex: an error-knowledge dataset and the toolkit that keeps it true.

The public API; the ``errdex`` command line is a thin wrapper over it.
"""

from errdex._version import __version__
from errdex.checks.base import Check, Finding, registry
from errdex.checks.config import ValidationConfig, load_config
from errdex.checks.runner import ValidationReport, validate
from errdex.match import KnowledgeBase, LineMatch, Match, load
from errdex.errors import ConfigError, DataError, ErrdexError, FormatError, InputError, RecordNotFound, UsageError
from errdex.records.canonical import FmtResult, canonical_text, fmt
from errdex.records.models import EnvelopeV2, RecordV2
from errdex.records.slug import derive_slug
from errdex.records.sources import Document, bundled_records_dir, iter_documents

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
    "bundled_records_dir",
    "canonical_text",
    "derive_slug",
    "fmt",
    "iter_documents",
    "load",
    "load_config",
    "registry",
    "validate",
]
