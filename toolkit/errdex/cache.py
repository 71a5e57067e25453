"""Where errdex keeps what it can rebuild: compiled pattern verdicts, indexes."""

from __future__ import annotations

import os
from pathlib import Path

__all__ = ["cache_dir"]


def cache_dir() -> Path:
    """``$ERRDEX_CACHE_DIR``, else ``$XDG_CACHE_HOME/errdex``, else ``~/.cache/errdex``."""
    explicit = os.environ.get("ERRDEX_CACHE_DIR")
    if explicit:
        return Path(explicit)
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "errdex"
