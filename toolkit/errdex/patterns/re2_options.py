"""The RE2 options errdex compiles with: RE2 reports errors as values, never as lines of its own on stderr.

By default RE2 logs from C++ to fd 2 ("DFA out of memory: pattern length
70000, ..." when a large pattern exhausts the DFA's memory and RE2 falls back
to a slower engine, "Error parsing ..." for a syntax error it also raises);
those lines would land in the middle of errdex's own output. With
``log_errors`` off RE2 still falls back and still raises, silently.
"""

from __future__ import annotations

from typing import Any

__all__ = ["re2_options"]


def re2_options() -> Any:
    """Fresh ``re2.Options`` with logging off (raises ImportError without google-re2)."""
    import re2  # here: errdex.patterns imports without google-re2; only running RE2 needs it

    options = re2.Options()
    options.log_errors = False
    return options
