"""A message template to its ``messagePattern`` (errdex's portable subset) and its ``errorMessage``.

:func:`build` escapes every literal and makes every dynamic part a capture group shaped by what it prints
(``int``: ``(-?[0-9]+)``, ``any``: ``(.+)``...). Adjacent holes (no text between them) become one group: no
engine could tell where one ends and the next begins. A :class:`~errdex.harvest.sites.Choice` becomes an
optional group or an alternation, non-capturing, so group numbers follow the holes in order.

Two ``(.+)`` with a separator between them backtrack polynomially when a match fails late (EDX123, and the
in-browser matcher refuses the pattern). :func:`build` runs the analysis EDX123 runs
(:func:`errdex.patterns.backtracking_problems`, the one rule) on what it wrote and, for each hole it names,
takes one character of the separator that follows the hole out of the hole's class (``([^)]+)\\)`` instead
of ``(.+)\\)``), choosing closing brackets, quotes and punctuation before spaces and letters, and never a
character the hole's value may hold (:func:`_may_hold`: ``:`` of an address, a host:port or a path). When no
hole can be narrowed, the two holes and what lies between them become one ``(.+)``; a pattern the analysis
still faults is refused, never returned: no draft fails EDX123.

A log line is one line: a message is cut at its first line break (:func:`first_line`; ``"Failed:\\n" + e``
writes ``Failed:`` on the line, the exception on the next ones), and line breaks at either end dropped.

A template whose required literal text holds no letter or digit (``%s: %s``) is refused with
:class:`NoLiteralText`; one whose pattern the matchers would not run (over the size bounds, EDX125) with
:class:`PatternRefused`. A draft also needs :func:`specific` literal text, at least :data:`MIN_LETTERS` letters
(or :data:`PUNCTUATION_ENOUGH` punctuation marks): a version ``"0.20.1"`` or a ``"1"`` would match lines of
any kind. The harvest skips a site without it
as ``too-generic``, and :func:`build` refuses so (:class:`PatternRefused` ``too-generic``) a pattern whose
holes it had to join until too little was left.

A draft's errorMessage shows its holes as the code writes them (``HTTP ${status}``), which a shaped group
(``(-?[0-9]+)``) does not match; so by default each such group also accepts its own placeholder
(``(-?[0-9]+|%d)``) and the draft's pattern matches its whole errorMessage (EDX124). A contributor
who gives the record a real example message drops that alternative. ``placeholders=False``: shapes only.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Literal

from errdex.harvest.sites import Choice, Hole, Part, Shape, Template, Text
from errdex.patterns import PatternProblem, backtracking_problems, portability_problems, size_problems
from errdex.patterns.size import MAX_ALTERNATIONS, MAX_LENGTH

__all__ = [
    "FREE_PART_LETTERS",
    "MIN_LETTERS",
    "PUNCTUATION_ENOUGH",
    "SHAPE_PATTERNS",
    "NoLiteralText",
    "PatternRefused",
    "build",
    "display",
    "first_line",
    "has_literal",
    "specific",
]

#: The group body of each shape (``any`` and ``word`` are classes: :func:`build` may narrow them).
SHAPE_PATTERNS: dict[Shape, str] = {
    "any": ".+",
    "int": "-?[0-9]+",
    "uint": "[0-9]+",
    "hex": "[0-9A-Fa-f]+",
    "float": r"-?[0-9]+(?:\.[0-9]+)?(?:[eE][-+]?[0-9]+)?",
    "char": ".",
    "word": "[^ ]+",
    "quoted": r'"(?:[^"\\]|\\.)*"',
}

#: The same, compiled (ASCII) to test whether a hole's own source text is a value of its shape.
_SHAPE_MATCHES = {shape: re.compile(body, re.ASCII).fullmatch for shape, body in SHAPE_PATTERNS.items()}
_METACHARACTERS = frozenset("\\^$.*+?()[]{}|/")
_ESCAPES = {"\t": r"\t", "\n": r"\n", "\r": r"\r", "\f": r"\f", "\v": r"\v"}
_CLASS_SPECIAL = frozenset("\\]^-[")
# Characters to take out of a hole's class, best first: values rarely hold closing brackets and quotes.
_PREFERENCE = ")]}>\"'`:=;,|@#<([{/!?.*+&%$~^-_ \t"
_MAX_REPAIRS = 32
#: A hole the text before it names as a URL or link (``Could not fetch URL %s``), or whose code names one
#: (``{url}``): its value holds these, so its class never leaves them out.
_URL_NAMED = re.compile(r"(?i)(?:\bur[il]s?|links?|href|location|redirect(?:ed)?(?: to)?|endpoint)\W*$")
_URL_CODE = re.compile(r"(?i)ur[il]|link|href")
_URL_CHARACTERS = frozenset(":/?#&=@%+.~-")
#: A hole whose code or the text before it names an address, a host, a path or a file (``" src: " + inAddr``,
#: ``connected to %s``, ``{path}``): its value holds an address's and a path's separators (``/10.0.0.1:50010``,
#: ``[fe80::1%eth0]:2181``, ``C:\\data``), so its class never leaves them out.
_PLACE_NAMED = re.compile(r"(?i)(?:\b(?:addr(?:ess)?|host(?:name)?|server|peer|remote|endpoint|socket|ip|src|"
                          r"source|dest(?:ination)?|target|path|file(?:name)?|dir(?:ectory)?|folder)\W*"
                          r"|\b(?:to|from|at|connect(?:ed|ing)? to|listening on|bound to)\W*)$")
_PLACE_CODE = re.compile(r"(?i)addr|host|server|peer|remote|endpoint|sock|(?:^|[^a-z])ip|inet|src|dest|target|"
                         r"path|file|dir|folder|location|node")
_PLACE_CHARACTERS = frozenset(":/.%[]\\-~@")
#: An exception's text (``+ e``, ``+ ioe``, ``e.getMessage()``, ``{exc}``) may hold any separator.
_ERROR_CODE = re.compile(r"(?i)^(?:e|ex|exc|ioe|ie|t|th|err|error|cause|exception|\w*Exception)$"
                         r"|get(?:Localized)?Message\(\)|stringifyException|[{(]exc?\b")
#: An object's text may hold these: a Java object's whole ``toString()`` (``sessionid:0x1 type:create``) all
#: four, a Python repr or str (``{x!r}``, ``%r``, ``str(x)``) ``:`` and ``=``.
_OBJECT_TEXT = re.compile(r"\.toString\(\)\}?$")
_OBJECT_CHARACTERS = frozenset(":=, ")
_REPR = re.compile(r"!r\}$|^%r$|^\{?(?:str|repr)\(")
_REPR_CHARACTERS = frozenset(":=")
_AT = re.compile(r"\(at ([0-9]+)\)")
#: Shapes whose group holds one repeat of a class (or of ``.``), and ``char``, which holds none.
_ONE_REPEAT: frozenset[Shape] = frozenset({"any", "int", "uint", "hex", "word"})


class NoLiteralText(ValueError):
    """The template has no required literal text with a letter or digit in it."""


class PatternRefused(ValueError):
    """The pattern of a template is one the matchers would not run; ``reason`` is the :class:`Skipped` reason
    (``too-large`` or ``not-portable``) and the message says why."""

    def __init__(self, reason: Literal["too-large", "not-portable", "too-generic"], why: str) -> None:
        super().__init__(why)
        self.reason: Literal["too-large", "not-portable", "too-generic"] = reason


def _escape_table() -> dict[int, str]:
    table = {ord(ch): "\\" + ch for ch in _METACHARACTERS}
    table.update({code: f"\\x{code:02x}" for code in (*range(0x20), 0x7F)})
    table.update({ord(ch): escaped for ch, escaped in _ESCAPES.items()})
    return table


#: What :func:`_escape` writes for each character it does not keep as it is.
_ESCAPE_TABLE = _escape_table()
_SURROGATE = re.compile("[\ud800-\udfff]")


def _escape(text: str) -> str:
    """``text`` as pattern literals: metacharacters after a backslash, controls as ``\\t`` or ``\\xHH``."""
    if _SURROGATE.search(text):
        raise ValueError("the message holds a lone surrogate, which no portable pattern can match")
    return text.translate(_ESCAPE_TABLE)


def _class_char(ch: str) -> str:
    if ch in _ESCAPES:
        return _ESCAPES[ch]
    return "\\" + ch if ch in _CLASS_SPECIAL else ch


def _required_text(parts: tuple[Part, ...]) -> str:
    """The literal text every way of writing ``parts`` writes."""
    out = []
    for part in parts:
        if isinstance(part, Text):
            out.append(part.text)
        elif isinstance(part, Choice) and part.options and all(_required_text(o) for o in part.options):
            out.append(min((_required_text(o) for o in part.options), key=len))
    return "".join(out)


def has_literal(template: Template) -> bool:
    """Whether :func:`build` accepts the template: its required literal text has a letter or a digit, or
    punctuation enough to be specific (five characters or more besides spaces: urllib3's
    ``'%s://%s:%s "%s %s %s" %s %s'``; not ``"%s: %s"``)."""
    required = _required_text(_trim(template))
    return any(ch.isalnum() for ch in required) or len("".join(required.split())) >= PUNCTUATION_ENOUGH


#: How many non-space characters of punctuation alone make a message's literal text specific.
PUNCTUATION_ENOUGH = 5
#: The fewest letters the literal text every way of writing a message writes must hold (digits do not count:
#: a version ``0.20.1`` or a ``"1"`` matches lines of any kind; npm's ``log.info('ok')`` and ``OS: %s`` write
#: real lines and keep their drafts).
MIN_LETTERS = 2


def specific(template: Template) -> bool:
    """Whether a template's required literal text (line breaks at either end dropped) is enough for a draft:
    at least :data:`MIN_LETTERS` letters, or :data:`PUNCTUATION_ENOUGH` punctuation marks (not spaces, not
    digits: urllib3's ``'%s://%s:%s "%s %s %s" %s %s'``)."""
    required = _required_text(_trim(template))
    letters = sum(ch.isalpha() for ch in required)
    marks = sum(not ch.isalnum() and not ch.isspace() for ch in required)
    return letters >= MIN_LETTERS or marks >= PUNCTUATION_ENOUGH


def draftable(template: Template) -> bool:
    """Whether a site's message says enough to become a draft: :func:`specific`, and at least
    :data:`FREE_PART_LETTERS` letters of literal text when it starts with a part that may print any text
    (``%s [preauth]``, ``%s: failed``: another message with a word added, which a pattern would find in lines of
    every kind; ``Saved %s`` names its line by its first word, urllib3's ``%s://%s:%s "%s %s %s" %s %s`` by
    its punctuation), that ends in ``:`` (``dnsmasq%s: ``, a prefix written before another message), or that
    has three such parts (``check %s %s %s``, which PAM's ``check pass; user unknown`` holds; npm's
    ``os ${type} ${release}`` writes real lines with two)."""
    trimmed = _trim(template)
    last = trimmed[-1] if trimmed else None
    prefix = isinstance(last, Text) and last.text.rstrip().endswith(":")
    free = sum(isinstance(part, Hole) and part.shape == "any" for part in trimmed)
    if trimmed and (_free(trimmed[:1]) or prefix or free >= 3):
        required = _required_text(trimmed)
        marks = sum(not ch.isalnum() and not ch.isspace() for ch in required)
        if sum(ch.isalpha() for ch in required) < FREE_PART_LETTERS and marks < PUNCTUATION_ENOUGH:
            return False
    return specific(template)


#: The fewest letters of literal text a message needs when it starts with a part that may print any text, ends in
#: ``:``, or has three parts that may print any text (:func:`draftable`).
FREE_PART_LETTERS = 8


def _free(parts: tuple[Part, ...]) -> bool:
    """Whether a part may print any text (a hole shaped ``any``, also inside a choice)."""
    return any((isinstance(part, Hole) and part.shape == "any")
               or (isinstance(part, Choice) and any(_free(option) for option in part.options)) for part in parts)


_BREAKS = "\r\n\v\f\x1c\x1d\x1e\x85\u2028\u2029"  # str.splitlines()'s line boundaries


def first_line(template: Template) -> Template:
    """The line a message writes first, as a log line holds it: line breaks at the start dropped, cut at the
    first line break of its text (``"Failed:\\n" + e``: ``Failed:``). When that first line has too little
    literal text (:func:`specific`) and a later line has enough, that line (``"%s\\nUsage: %s"``)."""
    lines: list[list[Part]] = [[]]
    for part in template:
        if isinstance(part, Text) and any(ch in _BREAKS for ch in part.text):
            pieces = part.text.splitlines()
            for i, piece in enumerate(pieces or [""]):
                if i:
                    lines.append([])
                if piece:
                    lines[-1].append(Text(piece))
            if part.text[-1] in _BREAKS:
                lines.append([])
        else:
            lines[-1].append(part)
    if len(lines) == 1:
        return template
    kept = [tuple(line) for line in lines if line]
    return next((line for line in kept if specific(line)), kept[0] if kept else ())


def _trim(template: Template) -> Template:
    """Line terminators at either end dropped: a log line never holds one (``"...\\n"`` in C)."""
    parts = list(template)
    if parts and isinstance(parts[0], Text):
        parts[0] = Text(parts[0].text.lstrip("\r\n"))
    if parts and isinstance(parts[-1], Text):
        parts[-1] = Text(parts[-1].text.rstrip("\r\n"))
    return tuple(p for p in parts if not (isinstance(p, Text) and not p.text))


def _merge(parts: tuple[Part, ...]) -> list[Part]:
    """Adjacent holes as one; a choice without any literal text is a hole too; adjacent texts joined."""
    out: list[Part] = []
    for part in parts:
        if isinstance(part, Choice) and not any(_has_text(o) for o in part.options):
            if not any(part.options):
                continue
            hole = Hole(display((part,)), "any")
            part = Choice(((hole,), ())) if not all(part.options) else hole  # optional when it may be nothing
        if isinstance(part, Text):
            if not part.text:
                continue
            if out and isinstance(out[-1], Text):
                out[-1] = Text(out[-1].text + part.text)
                continue
        if isinstance(part, Hole) and out and isinstance(out[-1], Hole):
            prev = out[-1]
            shape: Shape = prev.shape if prev.shape == part.shape and part.shape in ("uint", "hex", "word") \
                else "any"
            out[-1] = Hole(prev.source + part.source, shape)
            continue
        out.append(part)
    return out


def _has_text(parts: tuple[Part, ...]) -> bool:
    return any(bool(p.text) if isinstance(p, Text) else isinstance(p, Choice) and any(map(_has_text, p.options))
               for p in parts)


#: Where a part stands: its sequence, its index there, and where that sequence stands (the choice it is an
#: option of; None at the top).
_Place = tuple[list[Part], int, "_Place | None"]


@dataclass
class _Writer:
    """Writes the pattern, remembering where each narrowable hole's body starts and where it stands (its
    sequence, its index in it and what follows that sequence: :meth:`follow` reads the text after it only for
    the few holes a repair narrows, so that writing stays linear in the parts)."""

    exclusions: dict[int, str] = field(default_factory=dict)
    placeholders: bool = False
    sources: dict[int, str] = field(default_factory=dict)
    offsets: dict[int, int] = field(default_factory=dict)
    places: dict[int, _Place] = field(default_factory=dict)
    befores: dict[int, str] = field(default_factory=dict)
    shapes: dict[int, Shape] = field(default_factory=dict)
    #: Where each hole's group ends, and the index of the top-level part that holds it.
    ends: dict[int, int] = field(default_factory=dict)
    tops: dict[int, int] = field(default_factory=dict)
    top: int = 0
    chunks: list[str] = field(default_factory=list)
    length: int = 0
    holes: int = 0

    def put(self, text: str) -> None:
        self.chunks.append(text)
        self.length += len(text)

    def follow(self, number: int) -> str:
        """The literal text that can come right after hole ``number``."""
        parts, index, after = self.places[number]
        return _follow(parts, index + 1, after)

    def sequence(self, parts: list[Part], after: _Place | None) -> None:
        for i, part in enumerate(parts):
            if after is None:
                self.top = i
            if isinstance(part, Text):
                self.put(_escape(part.text))
            elif isinstance(part, Hole):
                previous = parts[i - 1] if i else None
                self.befores[self.holes] = previous.text if isinstance(previous, Text) else ""
                self.places[self.holes] = (parts, i, after)
                self.hole(part)
            else:
                self.choice(part, (parts, i, after))

    def hole(self, hole: Hole) -> None:
        number = self.holes
        self.holes += 1
        self.tops[number] = self.top
        self.shapes[number] = hole.shape
        self.sources[number] = hole.source
        self.put("(")
        self.offsets[number] = self.length
        excluded = self.exclusions.get(number, "")
        body = SHAPE_PATTERNS[hole.shape]
        matches = _SHAPE_MATCHES[hole.shape]
        if hole.shape in ("any", "word") and excluded:
            base = " " if hole.shape == "word" else ""
            body = "[^" + "".join(_class_char(c) for c in base + excluded) + "]+"
            matches = re.compile(body, re.ASCII).fullmatch
        if self.placeholders and matches(hole.source) is None:
            body += "|" + _escape(hole.source)  # the errorMessage writes the hole as the code does
        self.put(body)
        self.ends[number] = self.length
        self.put(")")

    def choice(self, choice: Choice, place: _Place) -> None:
        options = [_merge(o) for o in choice.options]
        filled = [o for o in options if o]
        self.put("(?:")
        for i, option in enumerate(filled):
            if i:
                self.put("|")
            self.sequence(option, place)  # what follows each option is what follows the choice
        self.put(")?" if len(filled) < len(options) else ")")


def _follow(parts: list[Part], start: int, after: _Place | None) -> str:
    """The literal text that can come right after ``parts[start - 1]``: the next text, or the first text of
    each option of the next choice and what follows that choice, or (at the end) what follows the enclosing
    choice. A loop over the choices in a row, not a call per choice (a message may hold thousands)."""
    found: list[str] = []
    place: _Place | None = (parts, start - 1, after)
    while place is not None:
        parts, index, place = place
        for part in parts[index + 1:]:
            if isinstance(part, Text):
                found.append(part.text)
                return "".join(found)
            if isinstance(part, Choice):
                found.extend(_follow(_merge(o), 0, None) for o in part.options)
    return "".join(found)


def _write(parts: list[Part], exclusions: dict[int, str], placeholders: bool) -> _Writer:
    writer = _Writer(exclusions=dict(exclusions), placeholders=placeholders)
    writer.sequence(parts, None)
    return writer


def _narrow(writer: _Writer, offsets: list[int], exclusions: dict[int, str]) -> bool:
    """Take one more separator character out of the first hole at one of ``offsets`` (the repeats a problem
    names, left one first) that can be narrowed; False when none can."""
    by_offset = {start: number for number, start in writer.offsets.items()}
    rank = {c: i for i, c in enumerate(_PREFERENCE)}
    for number in (by_offset[o] for o in offsets if o in by_offset):
        if writer.shapes[number] not in ("any", "word"):
            continue
        taken = exclusions.get(number, "")
        held = _may_hold(writer.sources[number], writer.befores.get(number, ""))
        candidates = [c for c in dict.fromkeys(writer.follow(number)) if c not in taken and c not in held
                      and not c.isalnum() and c != "_"]
        if writer.shapes[number] == "word":
            candidates = [c for c in candidates if c != " "]
        if candidates:
            source = writer.sources[number]
            best = min(candidates, key=lambda c: (c in source, rank.get(c, len(rank)), c))
            exclusions[number] = taken + best
            return True
    return False


#: What an exception's text may hold: any separator :func:`_narrow` would choose.
_EVERYTHING = frozenset(_PREFERENCE)


def _may_hold(source: str, before: str) -> frozenset[str]:
    """Separators a hole's value may hold by what it is (besides letters, digits and ``_``, which no class
    leaves out): a URL's (named so by the text before it or by its code), an address's or a path's (named
    so likewise), an object's text's; an exception's text holds them all."""
    if _ERROR_CODE.search(source.strip("{}$%")):
        return _EVERYTHING
    held: frozenset[str] = frozenset()
    if _URL_NAMED.search(before) or _URL_CODE.search(source):
        held |= _URL_CHARACTERS
    if _PLACE_NAMED.search(before) or _PLACE_CODE.search(source):
        held |= _PLACE_CHARACTERS
    if _OBJECT_TEXT.search(source):
        held |= _OBJECT_CHARACTERS
    elif _REPR.search(source):
        held |= _REPR_CHARACTERS
    return held


def _joined(writer: _Writer, parts: list[Part], offsets: list[int]) -> list[Part] | None:
    """``parts`` with the top-level parts from the first hole ``offsets`` names to the last made one hole
    ``(.+)`` (optional when each of them may write nothing), so that no two repeats split the text between
    them; None when the offsets name no hole."""
    numbers = sorted({n for o in offsets for n, start in writer.offsets.items() if start <= o < writer.ends[n]})
    if not numbers:
        return None
    first, last = writer.tops[numbers[0]], writer.tops[numbers[-1]]
    span = parts[first:last + 1]
    hole = Hole("".join(display((part,)) for part in span), "any")
    optional = all(isinstance(part, Choice) and any(not option for option in part.options) for part in span)
    return _merge((*parts[:first], Choice(((hole,), ())) if optional else hole, *parts[last + 1:]))


def _named_offsets(problem: PatternProblem) -> list[int]:
    """The repeats a backtracking problem names: the left one (``at N`` in its message), then its own."""
    named = [int(m) for m in _AT.findall(problem.message)]
    return [*named, problem.offset]


def _plain(parts: list[Part]) -> bool:
    """Whether the pattern written for ``parts`` is known to have no backtracking and no portability
    problem without analysing it: there is no choice and at most one group with a repeat, of a shape in
    :data:`_ONE_REPEAT`. Escaped text holds no repeat, anchor, flag or escape the portable subset refuses
    (:func:`_escape` writes controls as ``\\xHH``, never ``\\0``), a lone unbounded repeat over a class
    splits text against nothing, the only other repeat (``-?`` of ``int``) is neither nullable eight times
    in a row nor wide, and the groups sit in no repeat. Most messages have one hole: the analyses (a parse
    and the facts of every node, twice) are then not needed."""
    repeats = 0
    for part in parts:
        if isinstance(part, Choice):
            return False
        if isinstance(part, Hole) and part.shape != "char":
            if part.shape not in _ONE_REPEAT:
                return False
            repeats += 1
    return repeats <= 1


def _may_be_too_large(pattern: str) -> bool:
    """False when the size analysis cannot find anything: a pattern :func:`build` writes has no counted
    repeat (only ``+``, ``*`` and ``?``), so only its length and its alternations (at most one per ``|``)
    can be over the bounds."""
    return len(pattern) > MAX_LENGTH or pattern.count("|") > MAX_ALTERNATIONS


def _refuse_too_large(pattern: str) -> None:
    too_large = size_problems(pattern) if _may_be_too_large(pattern) else []
    if too_large:
        raise PatternRefused("too-large", too_large[0].message)


def build(template: Template, *, placeholders: bool = True) -> str:
    """The portable ``messagePattern`` of ``template``.

    ``placeholders`` (the default, for drafts): each group whose shape cannot match its hole as
    :func:`display` writes it also accepts that (``(-?[0-9]+|%d)``), so the pattern matches the draft's whole
    errorMessage (EDX124, an error) though its groups are shaped; False: the groups as their shapes only.

    Raises :class:`NoLiteralText` when the template has no literal text :func:`has_literal` accepts, and
    :class:`PatternRefused` when the pattern falls outside what the matchers run (too large; a lone
    surrogate in the text).
    """
    trimmed = _trim(first_line(template))
    if not has_literal(trimmed):
        raise NoLiteralText("the message has no literal text")
    parts = _merge(trimmed)
    exclusions: dict[int, str] = {}
    try:
        writer = _write(parts, exclusions, placeholders)
    except ValueError as error:
        raise PatternRefused("not-portable", str(error)) from None
    pattern = "".join(writer.chunks)
    _refuse_too_large(pattern)  # before any analysis: a repair only makes the pattern longer
    plain = _plain(parts)
    repairs = 0
    problems = [] if plain else backtracking_problems(pattern)
    while problems:
        offsets = _named_offsets(problems[0])
        if repairs < _MAX_REPAIRS and _narrow(writer, offsets, exclusions):
            repairs += 1
        else:  # no hole can leave the separator out: the holes and what lies between them as one
            joined = _joined(writer, parts, offsets)
            if joined is None or joined == parts:
                raise PatternRefused("not-portable", f"{pattern}: {problems[0].message}")
            parts, exclusions, repairs = joined, {}, 0
            if not specific(tuple(parts)):
                raise PatternRefused("too-generic", "the message's literal text lies between parts that "
                                     "backtrack, and what is left is too little")
        writer = _write(parts, exclusions, placeholders)
        pattern = "".join(writer.chunks)
        _refuse_too_large(pattern)
        problems = backtracking_problems(pattern)
    unportable = [] if plain else portability_problems(pattern)
    if unportable:
        raise PatternRefused("not-portable", unportable[0].message)
    return _whole_words(pattern, parts)


def _word_end(char: str) -> bool:
    return char.isascii() and (char.isalnum() or char == "_")


def _whole_words(pattern: str, parts: Sequence[Part]) -> str:
    """The pattern with ``\\b`` where the message starts or ends in an ASCII letter, digit or ``_``: a line
    holds the message's first and last words whole (regress/netcat.c's ``connect`` is not found in sshd's
    ``Received disconnect``). Every matcher reads ``\\b`` alike next to ASCII text."""
    first, last = parts[0], parts[-1]
    if isinstance(first, Text) and _word_end(first.text[:1]):
        pattern = "\\b" + pattern
    if isinstance(last, Text) and _word_end(last.text[-1:]):
        pattern += "\\b"
    return pattern


def display(template: Template) -> str:
    """The ``errorMessage`` of a template: text as written (without line terminators at either end, as
    :func:`build` drops them), each hole as the code writes it, each choice as its longest option."""
    out = []
    for part in _trim(first_line(template)):
        if isinstance(part, Text):
            out.append(part.text)
        elif isinstance(part, Hole):
            out.append(part.source)
        else:
            out.append(max((display(o) for o in part.options), key=len, default=""))
    return "".join(out)

