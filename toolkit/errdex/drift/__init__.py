"""Records that follow their code: where each record's statement is at another commit (unchanged, moved,
reworded, vanished), and the sites no record covers yet.

``errdex.drift.drift(source, rev=..., records=[...]) -> DriftReport`` (:mod:`.run`); the shapes it reports are
in :mod:`.outcomes`. ``drift`` loads on first use, so that importing :mod:`.outcomes` does not load the
harvest.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from errdex._lazy import lazy_names

if TYPE_CHECKING:  # for type checkers only: at run time the name loads on first use
    from errdex.drift.run import drift

__all__ = ["drift"]

__getattr__ = lazy_names("errdex.drift", {"drift": "errdex.drift.run"}, globals())
