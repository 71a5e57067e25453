"""Records brought to a new commit: what drift found, applied to the records (mechanical fields only)."""

from __future__ import annotations

from errdex.sync.report import SyncReport
from errdex.sync.run import sync

__all__ = ["SyncReport", "sync"]
