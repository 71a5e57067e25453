"""errdex message patterns: parsing, the portable subset, analysis and translation.

A record's ``messagePattern`` is a JavaScript regular expression (compiled
with the ``u`` flag in the browser) that is also run by Python ``re`` (with
``re.ASCII``), RE2 (google-re2 and DuckDB's ``regexp_*``) and hyperscan.
Matching means "occurs anywhere in the line" (unanchored search); validation
also checks that the pattern matches the whole ``errorMessage``.  Lines never
contain line terminators (``\\n``, ``\\r``, U+2028, U+2029).

The portable subset
-------------------
Allowed (and translated for every engine by :mod:`.translate`):

* literal characters, including any non-ASCII character (except lone
  surrogates); metacharacters escaped with a backslash (``\\^ \\$ \\\\ \\. \\*
  \\+ \\? \\( \\) \\[ \\] \\{ \\} \\|``, and ``\\/``); ``\\t \\n \\r \\f \\v``;
  ``\\xHH``;
* ``.`` (one character; lines hold no line terminator, so the engines agree);
* classes ``[...]`` / ``[^...]`` with characters, ranges (``a-z``), escapes
  as above plus ``\\-`` and ``\\b`` (backspace), and ``\\d \\D \\w \\W`` --
  ASCII-only in every engine; the same shorthands outside classes;
* capturing groups ``(...)`` and non-capturing groups ``(?:...)``;
  alternation ``|``;
* quantifiers ``* + ? {n} {n,} {n,m}``, greedy or lazy (``?`` suffix), with
  every bound <= 1000, the product of nested counts <= 1000 (RE2's limits),
  and no ``{0}``/``{0,0}`` (hyperscan rejects them);
* anchors ``^`` and ``$`` only where nothing can be consumed before (``^``) or
  after (``$``) them (hyperscan rejects embedded anchors); ``\\b`` and ``\\B``
  where they can match at all.

Rejected, each with a one-line message that says what to write instead
(see :func:`portability_problems`):

* every JavaScript syntax error under ``u`` (including ``(?i)``, ``(?P<n>``,
  ``(?>...)``, ``a++``, ``\\A``, ``\\Z``, ``\\z``, ``\\G``, ``{,3}``, lone
  ``]``/``}``/``{``, ``[[:alpha:]]``, useless escapes such as ``\\:`` or ``\\-``
  outside a class, octal escapes, ``\\x{..}``);
* lookahead/lookbehind; backreferences (``\\1``, ``\\k<n>``); named groups;
* ``\\uXXXX``/``\\u{...}``, ``\\p{...}``/``\\P{...}``, ``\\cX``, ``\\0``;
* ``\\s`` and ``\\S`` anywhere (Python and JavaScript treat NBSP and other
  Unicode spaces as ``\\s``; RE2 and hyperscan do not) -- use ``[ \\t]`` or `` +``;
* ``[]`` and ``[^]``, and classes that match no character (``[^\\d\\D]``);
* patterns that can match the empty string (they would match every line;
  hyperscan rejects them);
* capturing groups inside a repeat that can iterate more than once when an
  iteration may skip the group or match empty (``(?:(a)|b)+``, ``(?:(a)?b)+``,
  ``(a*)+``), and inside an optional part that can match empty (``(a*)?``):
  JavaScript resets such groups on every iteration and refuses empty optional
  iterations, and Python differs from RE2 on empty iterations;
  ``(?:(\\w+)\\.)+`` and ``(\\d+)?`` are fine;
* groups nested more than 50 deep.

Capture groups keep their numbers in every translation.

Besides portability, :func:`backtracking_problems` reports shapes that
backtrack catastrophically in Python and browsers,
:func:`compile_problems` compiles every pattern in every engine, and
:func:`refusal` says why a matcher will not run a pattern (one rule for the
CLI matcher, the SQL index and the in-browser matcher).  What is learnt
about a pattern is kept between runs in :class:`.facts.PatternFacts`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from errdex._lazy import lazy_names

# Loaded at once: the function has its submodule's name, which importing the submodule would bind here instead.
from .re2_options import re2_options

# Each name loads its module on first use: a cached `errdex match` start needs none of the analyses
# (parsing, portability, engines), only what planning a new set of patterns needs imports them.
_LAZY = {
    "backtracking_problems": "errdex.patterns.backtracking", "ENGINES": "errdex.patterns.engines",
    "CompileReport": "errdex.patterns.engines", "EngineProblem": "errdex.patterns.engines",
    "compile_problems": "errdex.patterns.engines", "linear_time": "errdex.patterns.linear",
    "exact_text": "errdex.patterns.literals", "group_count": "errdex.patterns.literals",
    "literal_chars": "errdex.patterns.literals", "required_literals": "errdex.patterns.literals",
    "variable_parts": "errdex.patterns.literals", "refusal": "errdex.patterns.matchable",
    "Alternation": "errdex.patterns.nodes", "Anchor": "errdex.patterns.nodes", "Any": "errdex.patterns.nodes",
    "Backreference": "errdex.patterns.nodes", "CharClass": "errdex.patterns.nodes",
    "ClassEscape": "errdex.patterns.nodes", "ClassItem": "errdex.patterns.nodes",
    "ClassProperty": "errdex.patterns.nodes", "ClassRange": "errdex.patterns.nodes",
    "Group": "errdex.patterns.nodes", "Literal": "errdex.patterns.nodes", "Lookaround": "errdex.patterns.nodes",
    "Node": "errdex.patterns.nodes", "Note": "errdex.patterns.nodes", "Pattern": "errdex.patterns.nodes",
    "PatternSyntaxError": "errdex.patterns.nodes", "Repeat": "errdex.patterns.nodes",
    "Sequence": "errdex.patterns.nodes", "class_set": "errdex.patterns.nodes", "parse": "errdex.patterns.parser",
    "EMPTY_MATCH": "errdex.patterns.portability", "MAX_DEPTH": "errdex.patterns.portability",
    "MAX_REPEAT": "errdex.patterns.portability", "is_portable": "errdex.patterns.portability",
    "matches_every_line": "errdex.patterns.portability", "portability_problems": "errdex.patterns.portability",
    "PatternProblem": "errdex.patterns.problem",
    "MAX_EXPANSION": "errdex.patterns.size", "MAX_LENGTH": "errdex.patterns.size",
    "size_problems": "errdex.patterns.size", "HS_FLAG_UTF8": "errdex.patterns.translate",
    "HYPERSCAN_FLAGS": "errdex.patterns.translate", "PYTHON_FLAGS": "errdex.patterns.translate",
    "NonPortablePatternError": "errdex.patterns.translate", "normalize_escapes": "errdex.patterns.translate",
    "python_regex": "errdex.patterns.translate", "to_hyperscan": "errdex.patterns.translate",
    "to_hyperscan_existence": "errdex.patterns.translate", "to_js": "errdex.patterns.translate",
    "to_python": "errdex.patterns.translate", "to_re2": "errdex.patterns.translate",
}

__getattr__ = lazy_names("errdex.patterns", _LAZY, globals())

if TYPE_CHECKING:
    from .backtracking import backtracking_problems
    from .engines import ENGINES, CompileReport, EngineProblem, compile_problems
    from .linear import linear_time
    from .literals import (
        exact_text,
        group_count,
        literal_chars,
        required_literals,
        variable_parts,
    )
    from .matchable import refusal
    from .nodes import (
        Alternation,
        Anchor,
        Any,
        Backreference,
        CharClass,
        ClassEscape,
        ClassItem,
        ClassProperty,
        ClassRange,
        Group,
        Literal,
        Lookaround,
        Node,
        Note,
        Pattern,
        PatternSyntaxError,
        Repeat,
        Sequence,
        class_set,
    )
    from .parser import parse
    from .portability import (
        EMPTY_MATCH,
        MAX_DEPTH,
        MAX_REPEAT,
        is_portable,
        matches_every_line,
        portability_problems,
    )
    from .problem import PatternProblem
    from .size import MAX_EXPANSION, MAX_LENGTH, size_problems
    from .translate import (
        HS_FLAG_UTF8,
        HYPERSCAN_FLAGS,
        PYTHON_FLAGS,
        NonPortablePatternError,
        normalize_escapes,
        python_regex,
        to_hyperscan,
        to_hyperscan_existence,
        to_js,
        to_python,
        to_re2,
    )

__all__ = [
    "EMPTY_MATCH", "ENGINES", "HS_FLAG_UTF8", "HYPERSCAN_FLAGS", "MAX_DEPTH", "MAX_EXPANSION", "MAX_LENGTH",
    "MAX_REPEAT", "PYTHON_FLAGS", "Alternation", "Anchor", "Any", "Backreference", "CharClass", "ClassEscape",
    "ClassItem", "ClassProperty", "ClassRange", "CompileReport", "EngineProblem", "Group", "Literal", "Lookaround",
    "Node", "NonPortablePatternError", "Note", "Pattern", "PatternProblem", "PatternSyntaxError", "Repeat",
    "Sequence", "backtracking_problems", "class_set", "compile_problems", "exact_text", "group_count",
    "is_portable", "linear_time", "literal_chars", "matches_every_line", "normalize_escapes", "parse",
    "portability_problems", "python_regex", "re2_options", "refusal", "required_literals", "size_problems",
    "to_hyperscan", "to_hyperscan_existence", "to_js", "to_python", "to_re2", "variable_parts",
]
