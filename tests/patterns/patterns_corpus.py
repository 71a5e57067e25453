"""Deterministic generator of realistic errdex ``messagePattern`` values (for tests and benchmarks)."""

from __future__ import annotations

import random
import re

_WORDS = (
    "CreateOS request failed process creation could not be confirmed destroy the lease before "
    "reusing it connection refused timeout while waiting for response from upstream server "
    "invalid token expired session unknown field missing required property cannot read "
    "undefined null value of type object is not iterable failed to parse JSON at position "
    "unexpected end of input permission denied for user database relation does not exist "
    "column duplicate key violates unique constraint module not found resolve import path "
    "sandbox provider returned status code retry limit exceeded after attempts rate limited "
    "quota bucket deadline exceeded stream closed socket hang up certificate has expired "
    "ECONNRESET ENOENT EACCES EPIPE worker exited with signal heap out of memory"
).split()

_SLOTS = (r"(\d+)", r"(.+)", r"(.*?)", r"([^ ]+)", r"([A-Za-z_][\w.]*)", r"(\w+)", r"([0-9a-f]{8})",
          r"\d+", r"(?:GET|POST|PUT|DELETE)", r"([^']*)", r"(\d+(?:\.\d+)?)", r'([^"]+)')
_PUNCT = (r"\.", r":", r";", r",", r" -", r" \(", r"\)", r"'", '"', r" =", r"\[", r"\]", r"/", r"@", r"#")


def realistic_patterns(n: int, seed: int = 7) -> list[str]:
    """Return ``n`` distinct pattern sources shaped like errdex log templates."""
    rng = random.Random(seed)
    out: list[str] = []
    seen: set[str] = set()
    while len(out) < n:
        parts: list[str] = []
        for i in range(rng.randint(3, 12)):
            r = rng.random()
            if r < 0.62 or i == 0:
                word = rng.choice(_WORDS)
                if rng.random() < 0.1:
                    word = word.capitalize()
                parts.append((" " if parts else "") + re.escape(word).replace("\\ ", " "))
            elif r < 0.85:
                parts.append(" " + rng.choice(_SLOTS))
            else:
                parts.append(rng.choice(_PUNCT))
        if rng.random() < 0.2:
            parts.insert(0, "^")
        if rng.random() < 0.5:
            parts.append(r"\.")
        if rng.random() < 0.03:
            parts.append(" " + str(len(out)))  # some numeric suffix variety
        if rng.random() < 0.15:
            parts.append("$")
        pattern = "".join(parts)
        if pattern not in seen:
            seen.add(pattern)
            out.append(pattern)
    return out
