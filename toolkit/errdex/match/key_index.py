"""Finding the literal keys in a small input without hyperscan's database of them.

That database costs seconds to compile at 100,000 keys (about 2 s) and pays
back only on megabytes of log; a first start that matches a line or two
need not wait for it. :class:`KeyIndex` reports every place a key ends in a
block, in order of the end and to the same callback, as hyperscan's scan of
the keys does, so what follows (the candidates, their confirmation) is the
same. Each position of the block costs a dictionary lookup of the bytes
before it, so the index serves small inputs only
(:data:`errdex.match.engine.SMALL_INPUT_BYTES`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

__all__ = ["TAIL", "TINY_BYTES", "KeyIndex", "scan_each"]

#: Keys are looked up by their last this many bytes (every key the prefilter chooses has at least 4).
TAIL = 4
#: Blocks up to this size are searched key by key (:func:`scan_each`), with no index to build: a line or two
#: costs about 8 ms at 100,000 keys, where building the index costs 60 ms.
TINY_BYTES = 4096

#: hyperscan's callback: ``(id, start, end, flags, context)``; a true result stops the scan.
OnHit = Callable[[int, int, int, int, Any], "bool | None"]


class KeyIndex:
    """The keys (``keys[i]`` has the id ``i``) by their last :data:`TAIL` bytes."""

    def __init__(self, keys: Sequence[bytes]) -> None:
        index: dict[bytes, list[tuple[int, bytes]]] = {}
        for ident, key in enumerate(keys):
            index.setdefault(key[-TAIL:], []).append((ident, key))
        self._index = index

    @staticmethod
    def serves(keys: Sequence[bytes]) -> bool:
        """Whether an index can stand for the database of these keys (none shorter than :data:`TAIL`)."""
        return all(len(key) >= TAIL for key in keys)

    def scan(self, block: bytes, on_hit: OnHit) -> bool:
        """Call ``on_hit`` for every occurrence of every key, in order of where it ends (overlapping ones too);
        True when ``on_hit`` stopped the scan."""
        get = self._index.get
        for end in range(TAIL, len(block) + 1):
            entries = get(block[end - TAIL:end])
            if entries is None:
                continue
            for ident, key in entries:
                start = end - len(key)
                if start >= 0 and block.startswith(key, start) and on_hit(ident, start, end, 0, None):
                    return True
        return False


def scan_each(keys: Sequence[bytes], block: bytes, on_hit: OnHit) -> bool:
    """:meth:`KeyIndex.scan` without an index: each key searched for in the block, the places it ends
    reported in order (for a block of a few lines)."""
    find = block.find
    hits: list[tuple[int, int]] = []
    for ident, key in enumerate(keys):
        at = find(key)
        while at >= 0:
            hits.append((at + len(key), ident))
            at = find(key, at + 1)
    hits.sort()
    return any(on_hit(ident, end - len(keys[ident]), end, 0, None) for end, ident in hits)
