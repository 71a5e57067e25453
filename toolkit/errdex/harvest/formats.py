"""Format strings to message parts: one reader per formatting style, behind :func:`parts`.

Each reader turns a format string, as the code writes it, into a :data:`~errdex.harvest.sites.Template`:
literal text as :class:`~errdex.harvest.sites.Text`, each conversion as a :class:`~errdex.harvest.sites.Hole`
whose ``source`` is the conversion as written (``%5.2f``, ``{name!r}``) and whose ``shape`` says what it
prints (``%d``: ``int``; ``%s``: ``any``). A conversion whose output may be padded with spaces (a width
without ``0`` padding, ``%-10s``, ``{:>10}``) or grouped (``%,d``, ``{:,}``) is shaped ``any``: its digits
are not all it prints.

Styles (:data:`~errdex.harvest.sinks.FormatStyle`, plus ``java-format`` and ``util-format``):

- ``printf``: C ``printf`` (flags, width, precision, ``*``, length modifiers; ``%m`` is ``strerror``);
- ``printf-extended``: a project's own printf (nginx's ``%V``, ``%P``, ``%ui``), for a sink that is the
  tree's own function, not libc's (:func:`project_printf`);
- ``python-percent``: ``%s``, ``%(name)s``, ``%%``;
- ``str-format``: ``str.format`` fields ``{}``, ``{0}``, ``{name!r:>10}``, ``{{``/``}}``;
- ``slf4j``: ``{}`` placeholders, ``\\{}`` a literal ``{}``;
- ``go``: ``fmt`` verbs (``%v %+v %#v %w %q %d %s %x %T``, ``%[1]d``);
- ``java-format``: ``String.format`` (printf-like, ``%1$s``, ``%n``, ``%tY``);
- ``message-format``: Java ``MessageFormat`` (``{0}``, ``{1,number}``, ``'`` quoting);
- ``util-format``: Node's ``util.format`` behind ``console.*`` and most JS loggers (``%s %d %i %f %j %o %O``;
  ``%c`` prints nothing);
- ``plain``: the text as it is.

f-strings and JavaScript template literals are not strings but trees: their finders build the parts, using
:func:`str_format_field` for an f-string's ``{expr!r:spec}``.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from functools import lru_cache

from errdex.harvest.sites import Hole, Part, Shape, Template, Text

__all__ = ["PROJECT_PRINTF", "STYLES", "formatted", "join", "parts", "project_printf", "str_format_field"]


def join(items: Iterable[Part]) -> Template:
    """Parts with adjacent texts merged and empty texts dropped (the form every reader returns)."""
    out: list[Part] = []
    for item in items:
        if isinstance(item, Text):
            if not item.text:
                continue
            if out and isinstance(out[-1], Text):
                out[-1] = Text(out[-1].text + item.text)
                continue
        out.append(item)
    return tuple(out)


def _padded(flags: str, width: str | None) -> bool:
    """A width pads with spaces unless the ``0`` flag pads with zeros (and ``-`` pads after the digits)."""
    return bool(width) and ("0" not in flags or "-" in flags)


# --- printf (C), and Java's String.format built on it ---------------------------------------------------

_PRINTF_HEAD = (r"%(?P<index>[0-9]+\$)?(?P<flags>[-+ #0',(<]*)(?P<width>\*(?:[0-9]+\$)?|[0-9]+)?"
                r"(?:\.(?P<prec>\*(?:[0-9]+\$)?|[0-9]*))?")
_PRINTF = re.compile(_PRINTF_HEAD + r"(?P<length>hh|h|ll|l|L|q|j|z|Z|t|I64|I32|I)?(?P<conv>[diouxXeEfFgGaAcCsSpnm%])")
_JAVA = re.compile(_PRINTF_HEAD + r"(?P<conv>[doxXeEfgGaAcCsSbBhHn%]|[tT][a-zA-Z])")

_PRINTF_SHAPES: dict[str, Shape] = {
    "d": "int", "i": "int", "u": "uint", "o": "uint", "x": "hex", "X": "hex",
    "e": "float", "E": "float", "f": "float", "F": "float", "g": "float", "G": "float", "a": "word",
    "A": "word", "c": "char", "C": "char", "s": "any", "S": "any", "p": "word", "m": "any",
}


def _printf_like(fmt: str, *, java: bool) -> Template:
    out: list[Part] = []
    pos = 0
    for m in (_JAVA if java else _PRINTF).finditer(fmt):
        out.append(Text(fmt[pos:m.start()]))
        pos = m.end()
        conv, flags, width = m["conv"], m["flags"], m["width"]
        if conv == "%":
            out.append(Text("%"))
        elif conv == "n":
            if java:  # Java's %n is the line separator; C's %n prints nothing
                out.append(Text("\n"))
        elif conv[0] in "tT" and len(conv) == 2:
            out.append(Hole(m.group(0), "any"))  # a Java date/time conversion
        elif java and conv in "bB":
            out.append(Hole(m.group(0), "word"))
        elif java and conv in "hH":
            out.append(Hole(m.group(0), "hex"))
        else:
            shape = _PRINTF_SHAPES[conv]
            if shape != "any" and (_padded(flags, width) or "'" in flags or "," in flags):
                shape = "any"
            out.append(Hole(m.group(0), shape))
    out.append(Text(fmt[pos:]))
    return join(out)


def _printf(fmt: str) -> Template:
    return _printf_like(fmt, java=False)


def _java_format(fmt: str) -> Template:
    return _printf_like(fmt, java=True)


# --- a project's own printf ------------------------------------------------------------------------------

#: The style of a project sink's format when the tree's formatter is not known: libc's letters, and any
#: uppercase letter as a conversion.
PROJECT_PRINTF = "printf-extended"
_LIBC_MODIFIERS = "hlLqjzZt"
_LIBC_CONVERSIONS = "diouxXeEfFgGaAcCsSpnm"
_INTEGER_LETTERS = frozenset("diuoxXhlLqjzt")
_UPPER = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"


def project_printf(modifiers: str = "", conversions: str = "") -> str:
    """The style of a printf dialect: a conversion is ``%``, flags, width and precision (``*`` too), a run of
    modifier letters, then one conversion letter. The letters are libc's (``hlLqjzZt``; ``diouxX...``), every
    uppercase letter as a conversion, and the ``modifiers`` and ``conversions`` a tree's own formatter takes
    (nginx's ``ngx_vslprintf``: modifiers ``umXx``, conversions ``VvsOTMzidlDAfpcZNr``), so that ``%ui`` is
    one conversion, not ``%u`` and a literal ``i``."""
    return f"{PROJECT_PRINTF}:{modifiers}:{conversions}"


def _letters(*groups: str) -> str:
    return re.escape("".join(sorted(set("".join(groups)))))


@lru_cache(maxsize=8)
def _dialect(style: str) -> re.Pattern[str]:
    _, _, rest = style.partition(":")
    modifiers, _, conversions = rest.partition(":")
    return re.compile(_PRINTF_HEAD + rf"(?P<length>[{_letters(_LIBC_MODIFIERS, modifiers)}]*)"
                      rf"(?P<conv>[{_letters(_LIBC_CONVERSIONS, _UPPER, conversions, '%')}])")


def _dialect_shape(m: re.Match[str]) -> Shape:
    """libc's shape for a conversion libc reads the same; ``word`` for a run of integer letters (``%ui``,
    ``%Xd``: a number in some base); else ``any`` (``%V``: a string; ``%T``: a time)."""
    libc = _PRINTF.fullmatch(m.group(0))
    if libc is not None:
        return _PRINTF_SHAPES.get(libc["conv"], "any")
    if set(m["length"] + m["conv"]) <= _INTEGER_LETTERS:
        return "word"
    return "any"


def _project_printf(fmt: str, style: str) -> Template:
    out: list[Part] = []
    pos = 0
    for m in _dialect(style).finditer(fmt):
        out.append(Text(fmt[pos:m.start()]))
        pos = m.end()
        if m.group(0) == "%%":
            out.append(Text("%"))
            continue
        shape = _dialect_shape(m)
        if shape != "any" and (_padded(m["flags"], m["width"]) or "'" in m["flags"] or "," in m["flags"]):
            shape = "any"
        out.append(Hole(m.group(0), shape))
    out.append(Text(fmt[pos:]))
    return join(out)


# --- Python % formatting --------------------------------------------------------------------------------

_PERCENT = re.compile(
    r"%(?P<name>\([^)]*\))?(?P<flags>[-+ #0]*)(?P<width>\*|[0-9]+)?(?:\.(?P<prec>\*|[0-9]*))?[hlL]?"
    r"(?P<conv>[diouxXeEfFgGcrsa%])")

_PERCENT_SHAPES: dict[str, Shape] = {
    "d": "int", "i": "int", "u": "int", "o": "uint", "x": "hex", "X": "hex", "e": "float", "E": "float",
    "f": "float", "F": "float", "g": "float", "G": "float", "c": "char", "r": "any", "s": "any", "a": "any",
}


def _python_percent(fmt: str) -> Template:
    out: list[Part] = []
    pos = 0
    for m in _PERCENT.finditer(fmt):
        out.append(Text(fmt[pos:m.start()]))
        pos = m.end()
        conv = m["conv"]
        if conv == "%" and not m["name"]:
            out.append(Text("%"))
            continue
        shape = _PERCENT_SHAPES.get(conv, "any")
        if shape != "any" and _padded(m["flags"], m["width"]):
            shape = "any"
        out.append(Hole(m.group(0), shape))
    out.append(Text(fmt[pos:]))
    return join(out)


# --- str.format -----------------------------------------------------------------------------------------

_SPEC = re.compile(r"(?:(?P<fill>.)?(?P<align>[<>=^]))?(?P<sign>[-+ ])?z?#?(?P<zero>0)?(?P<width>[0-9]+)?"
                   r"(?P<group>[,_])?(?:\.[0-9]+)?(?P<type>[bcdeEfFgGnosxX%])?$", re.DOTALL)
_SPEC_SHAPES: dict[str, Shape] = {
    "b": "uint", "c": "char", "d": "int", "n": "int", "o": "uint", "x": "hex", "X": "hex",
    "e": "float", "E": "float", "f": "float", "F": "float", "g": "float", "G": "float",
}


def str_format_field(source: str, conversion: str | None, spec: str | None) -> Hole:
    """The hole of one ``str.format`` / f-string field: ``source`` as written (``{name!r:>10}``), its
    conversion (``r``, ``s``, ``a`` or None) and format spec (None when it has none)."""
    if conversion or not spec:
        return Hole(source, "any")
    m = _SPEC.match(spec)
    if m is None or m["group"] or m["type"] is None:
        return Hole(source, "any")
    if m["width"] and not (m["zero"] or (m["fill"] == "0" and m["align"] in ("=", ">"))):
        return Hole(source, "any")
    return Hole(source, _SPEC_SHAPES.get(m["type"], "any"))


def _field_end(fmt: str, start: int) -> int:
    """The index just past the ``}`` closing the field opened at ``start`` (nested ``{}`` in the spec
    counted); -1 when it is not closed."""
    depth = 0
    for i in range(start, len(fmt)):
        if fmt[i] == "{":
            depth += 1
        elif fmt[i] == "}":
            depth -= 1
            if depth == 0:
                return i + 1
    return -1


def _str_format(fmt: str) -> Template:
    out: list[Part] = []
    text: list[str] = []
    i = 0
    while i < len(fmt):
        ch = fmt[i]
        if ch in "{}" and fmt[i + 1:i + 2] == ch:
            text.append(ch)
            i += 2
            continue
        if ch != "{":
            text.append(ch)
            i += 1
            continue
        end = _field_end(fmt, i)
        if end < 0:
            text.append(fmt[i:])
            break
        body = fmt[i + 1:end - 1]
        head, _, spec = body.partition(":")
        _, bang, conversion = head.partition("!")
        out.extend((Text("".join(text)), str_format_field(fmt[i:end], conversion if bang else None,
                                                           spec if ":" in body else None)))
        text = []
        i = end
    out.append(Text("".join(text)))
    return join(out)


# --- SLF4J ----------------------------------------------------------------------------------------------

def _slf4j(fmt: str) -> Template:
    out: list[Part] = []
    pos = 0
    for m in re.finditer(r"(\\*)\{\}", fmt):
        slashes = len(m[1])
        out.append(Text(fmt[pos:m.start()]))
        pos = m.end()
        if slashes % 2 == 1:  # \{} is a literal {}; \\{} a backslash and a placeholder
            out.append(Text("\\" * (slashes // 2) + "{}"))
        else:
            out.extend((Text("\\" * (slashes // 2)), Hole("{}", "any")))
    out.append(Text(fmt[pos:]))
    return join(out)


# --- Go fmt verbs ---------------------------------------------------------------------------------------

_GO = re.compile(r"%(?P<flags>[-+# 0]*)(?:\[[0-9]+\])?(?P<width>\*|[0-9]+)?(?:\.(?:\*|[0-9]*))?(?:\[[0-9]+\])?"
                 r"(?P<verb>[a-zA-Z%])")
_GO_SHAPES: dict[str, Shape] = {
    "d": "int", "b": "uint", "o": "uint", "O": "word", "x": "hex", "X": "hex", "c": "char", "q": "quoted",
    "U": "word", "e": "float", "E": "float", "f": "float", "F": "float", "g": "float", "G": "float",
    "t": "word", "p": "word", "T": "any", "v": "any", "s": "any", "w": "any",
}


def _go(fmt: str) -> Template:
    out: list[Part] = []
    pos = 0
    for m in _GO.finditer(fmt):
        out.append(Text(fmt[pos:m.start()]))
        pos = m.end()
        verb, flags = m["verb"], m["flags"]
        if verb == "%":
            out.append(Text("%"))
            continue
        shape = _GO_SHAPES.get(verb, "any")
        if shape != "any" and (_padded(flags, m["width"]) or "#" in flags or (verb == "q" and "+" in flags)):
            shape = "any" if verb != "q" else "word"
        out.append(Hole(m.group(0), shape))
    out.append(Text(fmt[pos:]))
    return join(out)


# --- java.text.MessageFormat ----------------------------------------------------------------------------

def _message_format(fmt: str) -> Template:
    out: list[Part] = []
    text: list[str] = []
    i = 0
    while i < len(fmt):
        ch = fmt[i]
        if ch == "'":
            if fmt[i + 1:i + 2] == "'":
                text.append("'")
                i += 2
                continue
            close = fmt.find("'", i + 1)
            close = len(fmt) if close < 0 else close
            text.append(fmt[i + 1:close])  # a quoted run is literal ('' inside a run is rare: read as its end)
            i = close + 1
            continue
        if ch == "{":
            end = _field_end(fmt, i)
            if end > 0:
                out.extend((Text("".join(text)), Hole(fmt[i:end], "any")))
                text = []
                i = end
                continue
        text.append(ch)
        i += 1
    out.append(Text("".join(text)))
    return join(out)


# --- Node's util.format (console.*, pino, debug) ------------------------------------------------------

_UTIL = re.compile(r"%[sdifjoOc%]")
_UTIL_SHAPES: dict[str, Shape] = {"d": "float", "i": "int", "f": "float"}


def _util_format(fmt: str) -> Template:
    out: list[Part] = []
    pos = 0
    for m in _UTIL.finditer(fmt):
        out.append(Text(fmt[pos:m.start()]))
        pos = m.end()
        if m[0] == "%%":
            out.append(Text("%"))
        elif m[0] != "%c":  # %c takes CSS and prints nothing
            out.append(Hole(m[0], _UTIL_SHAPES.get(m[0][1], "any")))
    out.append(Text(fmt[pos:]))
    return join(out)


def _plain(fmt: str) -> Template:
    return join([Text(fmt)])


_READERS: dict[str, Callable[[str], Template]] = {
    "printf": _printf, "python-percent": _python_percent, "str-format": _str_format, "slf4j": _slf4j,
    "go": _go, "java-format": _java_format, "message-format": _message_format, "util-format": _util_format,
    "plain": _plain,
}
#: Every style :func:`parts` reads.
STYLES: tuple[str, ...] = (*_READERS, PROJECT_PRINTF)


def formatted(template: Template, style: str) -> Template:
    """A template used as a format string (an f-string or ``PREFIX + name`` given ``%`` arguments): each of
    its texts read in ``style``, its holes and choices kept (what they print is not read as a format)."""
    return join(piece for part in template
                for piece in (parts(part.text, style) if isinstance(part, Text) else (part,)))


def parts(fmt: str, style: str) -> Template:
    """The template a format string writes, read in ``style`` (one of :data:`STYLES`, or a dialect's
    :func:`project_printf`)."""
    if style == PROJECT_PRINTF or style.startswith(PROJECT_PRINTF + ":"):
        return _project_printf(fmt, style)
    try:
        reader = _READERS[style]
    except KeyError:
        raise ValueError(f"unknown format style {style!r} (styles: {', '.join(STYLES)})") from None
    return reader(fmt)

