"""Where errdex keeps what it can rebuild: compiled pattern verdicts, indexes."""

from __future__ import annotations

import os
from pathlib import Path

__all__ = ["cache_dir"]

_cleaned: set[str] = set()


def cache_dir() -> Path:
    """``$ERRDEX_CACHE_DIR``, else ``$XDG_CACHE_HOME/errdex``, else ``~/.cache/errdex``.

    The first time a process asks, the temporary files that killed runs left
    in the cache (and in its folders one level down) are removed.
    """
    explicit = os.environ.get("ERRDEX_CACHE_DIR")
    if explicit:
        root = Path(explicit)
    else:
        base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
        root = Path(base) / "errdex"
    if str(root) not in _cleaned:
        _cleaned.add(str(root))
        _clean(root)
    return root


def _clean(root: Path) -> None:
    from errdex._files import clean_leftovers

    clean_leftovers(root)
    try:
        folders = [entry.path for entry in os.scandir(root) if entry.is_dir(follow_symlinks=False)]
    except OSError:
        return
    for folder in folders:
        clean_leftovers(Path(folder))
