"""Format strings read into message parts, one style at a time."""

from __future__ import annotations

import pytest

from errdex.harvest.formats import STYLES, formatted, parts, project_printf, str_format_field
from errdex.harvest.sites import Hole, Text


def test_printf_conversions_and_their_shapes() -> None:
    assert parts("user %s port %d uid %u size %lu %llu %zu %ld", "printf") == (
        Text("user "), Hole("%s"), Text(" port "), Hole("%d", "int"), Text(" uid "), Hole("%u", "uint"),
        Text(" size "), Hole("%lu", "uint"), Text(" "), Hole("%llu", "uint"), Text(" "), Hole("%zu", "uint"),
        Text(" "), Hole("%ld", "int"))
    assert parts("%.100s|%-10s|%x|%X|%p|%c|%f|%g|%e|%i", "printf") == (
        Hole("%.100s"), Text("|"), Hole("%-10s"), Text("|"), Hole("%x", "hex"), Text("|"), Hole("%X", "hex"),
        Text("|"), Hole("%p", "word"), Text("|"), Hole("%c", "char"), Text("|"), Hole("%f", "float"), Text("|"),
        Hole("%g", "float"), Text("|"), Hole("%e", "float"), Text("|"), Hole("%i", "int"))


def test_printf_percent_width_star_and_padding() -> None:
    assert parts("100%% done", "printf") == (Text("100% done"),)
    # a space-padded width prints more than digits; zero padding prints digits only
    assert parts("[%5d] [%05d] [%*d] [%-3d] [%+d]", "printf") == (
        Text("["), Hole("%5d"), Text("] ["), Hole("%05d", "int"), Text("] ["), Hole("%*d"), Text("] ["),
        Hole("%-3d"), Text("] ["), Hole("%+d", "int"), Text("]"))
    assert parts("%n%m", "printf") == (Hole("%m"),)  # C's %n prints nothing; %m is strerror(errno)


def test_python_percent_positional_and_named() -> None:
    assert parts("Bad %s: %d (%r) %5.2f %%", "python-percent") == (
        Text("Bad "), Hole("%s"), Text(": "), Hole("%d", "int"), Text(" ("), Hole("%r"), Text(") "),
        Hole("%5.2f"), Text(" %"))
    assert parts("%(name)s is %(count)d", "python-percent") == (
        Hole("%(name)s"), Text(" is "), Hole("%(count)d", "int"))
    assert parts("%.3f", "python-percent") == (Hole("%.3f", "float"),)


def test_str_format_fields() -> None:
    assert parts("{} and {0} and {name!r:>10} {{literal}}", "str-format") == (
        Hole("{}"), Text(" and "), Hole("{0}"), Text(" and "), Hole("{name!r:>10}"), Text(" {literal}"))
    assert parts("{n:d} {x:x} {v:.2f} {w:>5d} {z:05d} {g:,d} {a.b[0]}", "str-format") == (
        Hole("{n:d}", "int"), Text(" "), Hole("{x:x}", "hex"), Text(" "), Hole("{v:.2f}", "float"), Text(" "),
        Hole("{w:>5d}"), Text(" "), Hole("{z:05d}", "int"), Text(" "), Hole("{g:,d}"), Text(" "),
        Hole("{a.b[0]}"))
    assert parts("{x:{width}}", "str-format") == (Hole("{x:{width}}"),)
    assert parts("unclosed {x", "str-format") == (Text("unclosed {x"),)


def test_str_format_field_for_fstrings() -> None:
    assert str_format_field("{count}", None, None) == Hole("{count}")
    assert str_format_field("{count:d}", None, "d") == Hole("{count:d}", "int")
    assert str_format_field("{count!r:d}", "r", "d") == Hole("{count!r:d}")


def test_slf4j_placeholders_and_escapes() -> None:
    assert parts("Got {} from {}", "slf4j") == (Text("Got "), Hole("{}"), Text(" from "), Hole("{}"))
    assert parts(r"set \{} to {}", "slf4j") == (Text("set {} to "), Hole("{}"))
    assert parts("path C:\\\\{}", "slf4j") == (Text("path C:\\"), Hole("{}"))


def test_go_verbs() -> None:
    assert parts("open %v: %+v %#v %w %q %d %s %x %T %t %%", "go") == (
        Text("open "), Hole("%v"), Text(": "), Hole("%+v"), Text(" "), Hole("%#v"), Text(" "), Hole("%w"),
        Text(" "), Hole("%q", "quoted"), Text(" "), Hole("%d", "int"), Text(" "), Hole("%s"), Text(" "),
        Hole("%x", "hex"), Text(" "), Hole("%T"), Text(" "), Hole("%t", "word"), Text(" %"))
    assert parts("%[1]d %6.2f", "go") == (Hole("%[1]d", "int"), Text(" "), Hole("%6.2f"))


def test_java_string_format() -> None:
    assert parts("Value %1$s is %2$d%n", "java-format") == (
        Text("Value "), Hole("%1$s"), Text(" is "), Hole("%2$d", "int"), Text("\n"))
    assert parts("%b %h %tY %,d %08X", "java-format") == (
        Hole("%b", "word"), Text(" "), Hole("%h", "hex"), Text(" "), Hole("%tY"), Text(" "), Hole("%,d"),
        Text(" "), Hole("%08X", "hex"))


def test_message_format() -> None:
    assert parts("File {0} has {1,number} lines", "message-format") == (
        Text("File "), Hole("{0}"), Text(" has "), Hole("{1,number}"), Text(" lines"))
    assert parts("Can''t open '{0}' {1}", "message-format") == (Text("Can't open {0} "), Hole("{1}"))
    assert parts("{0,choice,0#none|1#one {1}}", "message-format") == (Hole("{0,choice,0#none|1#one {1}}"),)


def test_node_util_format() -> None:
    assert parts("%s took %d ms (%i, %f) %j %o %O %c|%%", "util-format") == (
        Hole("%s"), Text(" took "), Hole("%d", "float"), Text(" ms ("), Hole("%i", "int"), Text(", "),
        Hole("%f", "float"), Text(") "), Hole("%j"), Text(" "), Hole("%o"), Text(" "), Hole("%O"), Text(" |%"))


def test_a_template_as_a_format_string() -> None:
    template = (Text("user "), Hole("{name}"), Text(" got %d of %s"))
    assert formatted(template, "python-percent") == (
        Text("user "), Hole("{name}"), Text(" got "), Hole("%d", "int"), Text(" of "), Hole("%s"))


def test_plain_and_unknown_styles() -> None:
    assert parts("50% {off}", "plain") == (Text("50% {off}"),)
    assert parts("", "plain") == ()
    assert set(STYLES) >= {"printf", "python-percent", "str-format", "slf4j", "go", "message-format", "plain"}
    with pytest.raises(ValueError, match="unknown format style"):
        parts("x", "cobol")


def test_a_project_printf_reads_uppercase_letters_as_conversions() -> None:
    # a tree's own formatter whose letters are not known: libc's letters, and an uppercase letter is one
    assert parts("start %s %P at %T, %d%%", "printf-extended") == (
        Text("start "), Hole("%s"), Text(" "), Hole("%P"), Text(" at "), Hole("%T"), Text(", "),
        Hole("%d", "int"), Text("%"))
    assert parts("%V", "printf") == (Text("%V"),)  # libc's printf has no %V


def test_a_project_printf_reads_its_formatters_modifiers_and_conversions() -> None:
    nginx = project_printf("Xmux", "ADLMNOPTVZcdfilprsvz")
    assert parts('excess: %ui.%03ui by zone "%V"', nginx) == (
        Text("excess: "), Hole("%ui", "word"), Text("."), Hole("%03ui", "word"), Text(' by zone "'), Hole("%V"),
        Text('"'))
    # a run of modifiers then one conversion; what follows the conversion stays text
    assert parts("%uz bytes, %*s, %sclient, %xs, %.3fs, %r:%r, %lld, %5ui", nginx) == (
        Hole("%uz", "word"), Text(" bytes, "), Hole("%*s"), Text(", "), Hole("%s"), Text("client, "), Hole("%xs"),
        Text(", "), Hole("%.3f", "float"), Text("s, "), Hole("%r"), Text(":"), Hole("%r"), Text(", "),
        Hole("%lld", "int"), Text(", "), Hole("%5ui"))
    assert "printf-extended" in STYLES
