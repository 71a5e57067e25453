"""What a language finder reports: a site in the code, and the message it writes as a template of parts.

Every language module returns the same objects, so the pattern builder, the drafting of records and the
summary know no language. A template is a tuple of parts:

- :class:`Text`: literal text, exactly as the program writes it;
- :class:`Hole`: a dynamic part (an interpolated expression, a format conversion), with the *shape* of what it
  prints, so the pattern can capture it precisely (``%d``: an optional sign and digits; ``%s``: any text);
- :class:`Choice`: parts written only under a condition (a ternary in a template literal): one of several
  alternatives, the empty tuple meaning "nothing".
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

__all__ = ["SHAPES", "Choice", "Hole", "Part", "Shape", "Site", "SiteKind", "Skipped", "Template", "Text"]

#: What a dynamic part can print. ``any``: any text (``%s``, ``{}``, ``${x}``); ``int``: an optional sign and
#: digits (``%d``, ``%i``, ``%ld``); ``uint``: digits (``%u``, ``%lu``, ``%zu``); ``hex``: hex digits (``%x``,
#: ``%X``, ``%p`` without ``0x``); ``float``: a decimal number (``%f``, ``%g``, ``%e``); ``char``: one
#: character (``%c``); ``word``: text without white space (``%q`` is ``quoted``: a Go-quoted string).
Shape = Literal["any", "int", "uint", "hex", "float", "char", "word", "quoted"]
SHAPES: tuple[Shape, ...] = ("any", "int", "uint", "hex", "float", "char", "word", "quoted")

SiteKind = Literal["throw", "log", "panic", "return-error"]


@dataclass(frozen=True)
class Text:
    """Literal text of the message."""

    text: str


@dataclass(frozen=True)
class Hole:
    """A dynamic part: ``source`` is how the code writes it (``${status}``, ``%d``, ``{name}``), shown in the
    draft's errorMessage; ``shape`` is what it can print."""

    source: str
    shape: Shape = "any"


@dataclass(frozen=True)
class Choice:
    """One of ``options`` is written (each a tuple of parts; ``()`` is "nothing")."""

    options: tuple[tuple[Part, ...], ...]


Part = Text | Hole | Choice
Template = tuple[Part, ...]


@dataclass(frozen=True)
class Site:
    """One statement that raises or logs a message.

    ``line``: 1-based first line of the call or throw; ``end_line``: its last line. ``level``: the log level
    as the code names it, lowercased (``error``, ``warn``, ``fatal``...), None for a throw. ``error_class``:
    the class thrown or raised (``ValueError``), the logger for a log call (``logger``, ``LOG``) or the sink's
    name (``fatal``). ``function``: the enclosing function or method (``execute``, ``Foo.bar``), None at top
    level. ``guards``: the conditions that must hold for the site to run, innermost last, quoted from the code
    (``creationMayHaveSucceeded && !processId``; an ``else`` branch as ``not (cond)`` in the language's words).
    """

    path: str
    language: str
    kind: SiteKind
    line: int
    end_line: int
    template: Template
    level: str | None = None
    error_class: str | None = None
    function: str | None = None
    guards: tuple[str, ...] = field(default_factory=tuple)


@dataclass(frozen=True)
class Skipped:
    """A call that looks like a site whose message could not be harvested, and why (counted in the summary):
    ``no-literal`` (no literal text at all), ``unresolved-constant`` (a name whose value is not known),
    ``not-portable`` (the pattern falls outside the portable subset), ``too-large``, ``too-generic`` (less
    literal text than :func:`errdex.harvest.pattern.specific` asks: a version, a ``"1"``)."""

    path: str
    line: int
    reason: Literal["no-literal", "unresolved-constant", "not-portable", "too-large", "too-generic"]
    detail: str = ""
