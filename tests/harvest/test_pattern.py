"""Message templates to portable patterns: escaped text, shaped groups, choices, and no backtracking."""

from __future__ import annotations

import re

import pytest

from errdex import patterns
from errdex.harvest.drafts import message_text
from errdex.harvest.pattern import (
    NoLiteralText,
    PatternRefused,
    build,
    display,
    draftable,
    first_line,
    has_literal,
    specific,
)
from errdex.harvest.sites import Choice, Hole, Shape, Template, Text

CREATEOS: Template = (
    Text("CreateOS request failed (HTTP "), Hole("${status}", "any"), Text(")"),
    Choice(((Text(" during "), Hole("${operation}")), ())), Text("."))


def _sound(pattern: str) -> None:
    """Runs everywhere, including the browser matcher (no EDX123 shape)."""
    assert patterns.refusal(pattern) is None
    assert patterns.refusal(pattern, browser=True) is None
    assert patterns.backtracking_problems(pattern) == []


def _search(pattern: str, line: str) -> tuple[str | None, ...] | None:
    found = patterns.python_regex(pattern).search(line)
    return None if found is None else found.groups()


def test_createos_message_with_its_conditional_part() -> None:
    pattern = build(CREATEOS)
    _sound(pattern)
    assert pattern == r"\bCreateOS request failed \(HTTP (.+)\)(?: during (.+))?\."
    assert _search(pattern, "CreateOS request failed (HTTP 404) during sandbox lifecycle.") == (
        "404", "sandbox lifecycle")
    assert _search(pattern, "CreateOS request failed (HTTP 500).") == ("500", None)
    assert display(CREATEOS) == "CreateOS request failed (HTTP ${status}) during ${operation}."


def test_every_literal_is_escaped() -> None:
    text = r"a.b*c+d?e(f)g[h]i{j}k|l^m$n\o/p-q"
    pattern = build((Text(text),))
    _sound(pattern)
    assert pattern.startswith("\\b") and pattern.endswith("\\b")  # its first and last words whole
    assert patterns.exact_text(pattern[2:-2]) == text
    assert _search(pattern, f"x {text} y") == ()
    assert build((Text("tab\there\x01"),)) == r"\btab\there\x01"
    assert build((Text("ünïcode ✓"),)) == "ünïcode ✓"


def test_holes_by_shape() -> None:
    cases: dict[Shape, tuple[str, str]] = {
        "int": ("-42", "x"), "uint": ("42", "-4"), "hex": ("dEadBeef", "xyz"), "char": ("q", ""),
        "float": ("-1.5e+3", "e"), "word": ("host.example", ""), "quoted": ('"a \\" b"', "'a'"),
    }
    for shape, (good, bad) in cases.items():
        pattern = build((Text("v="), Hole("x", shape), Text(";")), placeholders=False)
        _sound(pattern)
        assert _search(pattern, f"v={good};") == (good,), shape
        assert _search(pattern, f"v={bad};") is None, shape
    assert build((Text("got "), Hole("%d", "int")), placeholders=False) == r"\bgot (-?[0-9]+)"
    assert build((Text("got "), Hole("%d", "int"))) == r"\bgot (-?[0-9]+|%d)"


def test_adjacent_holes_are_one_group() -> None:
    template: Template = (Text("id "), Hole("${a}"), Hole("${b}", "int"), Text(" end"))
    pattern = build(template)
    assert pattern == r"\bid (.+) end\b"
    assert display(template) == "id ${a}${b} end"
    assert build((Text("n "), Hole("%x", "hex"), Hole("%x", "hex")), placeholders=False) == r"\bn ([0-9A-Fa-f]+)"


def test_alternations_keep_group_order() -> None:
    template: Template = (
        Text("Failed "), Hole("%s", "word"),
        Choice(((Text(" at "), Hole("a", "int")), (Text(" in "), Hole("b", "word")))), Text(" now"))
    pattern = build(template)
    _sound(pattern)
    assert patterns.group_count(pattern) == 3
    assert _search(pattern, "Failed x at 3 now") == ("x", "3", None)
    assert _search(pattern, "Failed x in y now") == ("x", None, "y")
    assert display(template) == "Failed %s at a now"


def test_a_choice_without_text_is_one_hole() -> None:
    template: Template = (Text("mode "), Choice(((Hole("a"),), (Hole("b"),))), Text("!"))
    assert build(template) == r"\bmode (.+)!"
    assert build((Text("x"), Choice(((), ())), Text("y"))) == r"\bxy\b"


def test_separators_between_free_holes_do_not_backtrack() -> None:
    templates: list[Template] = [
        (Text("a "), Hole("x"), Text(" b "), Hole("y"), Text(" c")),
        (Text("x "), Hole("x"), Text(" y "), Hole("y"), Text(" z "), Hole("z"), Text(".")),
        (Text("open "), Hole("%s"), Text(": "), Hole("%s"), Text(" (errno "), Hole("%d", "int"), Text(")")),
        (Text("k="), Hole("a"), Text(", v="), Hole("b"), Text(", w="), Hole("c"), Text(".")),
        (Text("Failed "), Hole("%s"), Choice(((Text(" at "), Hole("x")), (Text(" in "), Hole("y")))),
         Text(" now "), Hole("z"), Text("!")),
    ]
    for template in templates:
        _sound(build(template))
    pattern = build(templates[2])
    assert pattern == r"\bopen ([^:]+): (.+) \(errno (-?[0-9]+|%d)\)"  # the colon goes, not the space
    assert _search(pattern, "open /etc/my file: No such file (errno 2)") == ("/etc/my file", "No such file", "2")
    assert _search(build(templates[3]), "k=1 2, v=x y, w=z.") == ("1 2", "x y", "z")


def test_line_terminators_at_the_ends_are_dropped() -> None:
    assert build((Text("\nbad input "), Hole("%s"), Text("\n"))) == r"\bbad input (.+)"


def test_no_literal_text_is_refused() -> None:
    for template in [(Hole("%s"),), (Hole("%s"), Text(": "), Hole("%s")), (Choice(((Text("x"),), ())),), ()]:
        assert not has_literal(template)
        with pytest.raises(NoLiteralText):
            build(template)
    assert has_literal((Choice(((Text("x"),), (Text("y"),))),))


def test_a_lone_surrogate_cannot_be_written() -> None:
    with pytest.raises(ValueError, match="surrogate"):
        build((Text("bad \ud800 text"),))


def test_placeholders_let_a_draft_pattern_match_its_error_message() -> None:
    templates: list[Template] = [
        CREATEOS,
        (Text("port "), Hole("%d", "int"), Text(" char "), Hole("%c", "char"), Text(" q "), Hole("%q", "quoted")),
        (Text("open "), Hole("{str(self)}"), Text(": "), Hole("%s"), Text(" (errno "), Hole("%d", "int"),
         Text(")")),
    ]
    for template in templates:
        pattern = build(template)
        _sound(pattern)
        assert patterns.python_regex(pattern).fullmatch(display(template)), pattern
    pattern = build(templates[1])
    assert pattern.startswith(r"\bport (-?[0-9]+|%d) char (.|%c)")
    assert _search(pattern, 'port -2 char x q "y"') == ("-2", "x", '"y"')
    # without placeholders the shapes stay strict
    assert patterns.python_regex(build(templates[1], placeholders=False)).fullmatch(display(templates[1])) is None


def test_a_pattern_the_matchers_would_not_run_is_refused() -> None:
    with pytest.raises(PatternRefused) as refused:
        build((Text("x" * 5000),))
    assert refused.value.reason == "too-large"
    with pytest.raises(PatternRefused) as refused:
        build((Text("bad \ud800 text"),))
    assert refused.value.reason == "not-portable"


def test_a_drafts_error_message_is_what_its_pattern_matches() -> None:
    templates: list[Template] = [
        CREATEOS, (Text("fatal: "), Hole("%s"), Text(" at "), Hole("%d", "int"), Text("\n")),
        (Text("\r\nstarting "), Hole("{name}"), Text("...")),
    ]
    for template in templates:
        assert message_text(template) == display(template)
        assert patterns.python_regex(build(template)).fullmatch(message_text(template))


@pytest.mark.parametrize("template", [
    (Text("worker 7 failed with "), Hole("%s", "any")),
    (Text("negative id "), Hole("%d", "int"), Text(" for "), Hole("%c", "char"), Text(".")),
    (Hole("{}", "uint"), Text(" ms: a.b*c+d?e(f)g[h]i{j}k|l^m$n\\o/p-q\t\x00\x7f é 𝄞")),
    (Text("at "), Hole("%x", "hex"), Text(" in "), Hole("%s", "word")),
])
def test_a_plain_pattern_skips_analyses_that_would_find_nothing(template: Template) -> None:
    """The shortcut of build() (no choice, one repeat-bearing hole): the analyses it skips find nothing."""
    pattern = build(template)
    _sound(pattern)
    assert patterns.portability_problems(pattern) == []
    assert patterns.size_problems(pattern) == []


def test_a_narrowed_class_never_leaves_out_a_letter_or_what_the_value_holds() -> None:
    # OpenSSH's "Starting session: %s for %s from %.200s port %d": the first hole once read as [^f]+
    session: Template = (Text("Starting session: "), Hole("%s"), Text(" for "), Hole("%s", "word"),
                         Text(" from "), Hole("%s"), Text(" port "), Hole("%d", "int"))
    # pip's "Could not fetch URL %s: %s - skipping": the URL's part once read as [^:]+
    url: Template = (Text("Could not fetch URL "), Hole("%s"), Text(": "), Hole("%s"), Text(" - skipping"))
    # ZooKeeper's PrepRequestProcessor: an object's toString() holds colons and spaces
    request: Template = (Text("Got user-level KeeperException when processing "), Hole("request.toString()"),
                         Text(" Error Path:"), Hole("e.getPath()"), Text(" Error:"), Hole("e.getMessage()"))
    # ZooKeeper's ClientCnxn: "... with err " + replyHdr.getErr() + " expected Xid ...", once [^X]+
    xid: Template = (Text("Xid out of order. Got Xid "), Hole("replyHdr.getXid()"), Text(" with err "),
                     Hole("+ replyHdr.getErr()"), Text(" expected Xid "), Hole("packet.requestHeader.getXid()"),
                     Text(" for a packet with details: "), Hole("packet"))
    for template in (session, url, request, xid):
        for placeholders in (True, False):
            pattern = build(template, placeholders=placeholders)
            _sound(pattern)
            for body in re.findall(r"\[\^([^\]]*)\]", pattern):
                assert not any(c.isalnum() or c == "_" for c in body), pattern
    assert _search(build(url), "Could not fetch URL https://pypi.org/simple/x/: connection error - skipping") \
        == ("https://pypi.org/simple/x/", "connection error")
    line = ("Got user-level KeeperException when processing sessionid:0x13 type:create cxid:0x2 zxid:0x5 "
            "Error Path:/zookeeper/quota Error:KeeperErrorCode = NodeExists for /zookeeper/quota")
    assert _search(build(request), line) == ("sessionid:0x13 type:create cxid:0x2 zxid:0x5", "/zookeeper/quota",
                                            "KeeperErrorCode = NodeExists for /zookeeper/quota")


def test_a_message_is_cut_at_its_first_line_break() -> None:
    """``"Failed:\\n" + e`` writes ``Failed:`` on the line, the exception on the lines after."""
    assert build((Text("Exception in receiveBlock:\n"), Hole("e"))) == r"\bException in receiveBlock:"
    assert display((Text("Exception in receiveBlock:\n"), Hole("e"))) == "Exception in receiveBlock:"
    assert first_line((Text("a\r\nb"),)) == (Text("a"),)
    # a first line of no literal text gives way to the first line that has enough
    assert build((Hole("%s"), Text("\nUsage: "), Hole("%s"))) == r"\bUsage: (.+)"


def _printf(text: str) -> Template:
    """``text`` with each ``%`` conversion a hole."""
    return tuple(Hole(piece) if piece.startswith("%") else Text(piece)
                 for piece in re.split(r"(%[0-9]*[a-z])", text) if piece)


def test_constants_of_no_letters_are_not_specific() -> None:
    for generic in ["1", "0.20.1", "v%s", "[%s]", "%s:%d", "\\x%02x", "#%d: %s"]:
        assert not specific(_printf(generic)), generic
    for enough in ["ok", "EOF", "OS: %s %s", "x=%d, y=%d", '%s://%s:%s "%s %s %s" %s %s', "Layout of %s"]:
        assert specific(_printf(enough)), enough


def test_an_address_a_path_or_an_exception_keeps_its_colons() -> None:
    """A hole an address, a path or an exception fills is not narrowed to ``[^:]+``."""
    cases = [
        ((Text("Connected to "), Hole("server"), Text(": session "), Hole("id"), Text(" of "), Hole("peer")),
         "Connected to [fe80::1%eth0]:2181: session 7 of /10.0.0.1:50010"),
        ((Text("Cannot read "), Hole("path"), Text(": "), Hole("reason")), r"Cannot read C:\data\edits: gone"),
        ((Text("Failed "), Hole("e"), Text(": retrying "), Hole("n")), "Failed java.io.IOException: x: retrying 3"),
        ((Text("Receiving block "), Hole("block"), Text(" src: "), Hole("inAddr"), Text(" dest: "),
          Hole("myAddr")), "Receiving block blk_1 src: /10.250.19.102:54106 dest: /10.250.19.102:50010"),
    ]
    for template, line in cases:
        pattern = build(template)
        _sound(pattern)
        assert _search(pattern, line) is not None, (pattern, line)


def test_holes_no_class_can_part_are_joined_never_left_to_backtrack() -> None:
    """The real messages whose drafts EDX123 rejected: a letter, a hex digit or only optional parts between
    two holes."""
    templates: list[Template] = [
        (Text("Layout of "), Hole("{nrows}"), Text("x"), Hole("{ncols}"), Text(" must be larger than required "
                                                                             "size "), Hole("{nplots}")),
        (Text('userid cookie "%V='), *[part for _ in range(4) for part in (Hole("%08X", "hex"), Text("D"))],
         Text('" was reset')),
        (Choice(((Hole("__func__"),), ())), Choice(((Text(": "),), ())), Hole("%s"), Text(":"),
         Hole("%ld", "int"), Text(": invalid known_hosts entry")),
        (Text("ASSERT_"), Hole("%s"), Text("_"), Hole("%s"), Text("("), Hole("%s"), Text(", a2) failed:")),
    ]
    for template in templates:
        pattern = build(template)
        _sound(pattern)
        assert patterns.python_regex(pattern).fullmatch(display(template)), pattern
    assert build(templates[0]) == r"\bLayout of (.+) must be larger than required size (.+)"
    assert _search(build(templates[1]), 'userid cookie "%V=0A0B0C0D0E0F0A0B0C0D" was reset') is not None


def test_a_message_that_starts_with_free_text_needs_words_of_its_own() -> None:
    # OpenSSH's privilege-separated child forwards every line as "%s [preauth]": as a draft it would be found in
    # lines of every kind (a quarter of a real sshd log), written by other statements
    assert not draftable((Hole("%s"), Text(" [preauth]")))
    assert not draftable((Hole("%s"), Text(": failed")))
    assert draftable((Hole("%s"), Text(" could not be opened")))  # words enough of its own
    assert draftable((Text("Saved "), Hole("%s")))  # its first word names the line
    urllib3 = (Hole("%s"), Text("://"), Hole("%s"), Text(":"), Hole("%s"), Text(' "'), Hole("%s"), Text(" "),
               Hole("%s"), Text(" "), Hole("%s"), Text('" '), Hole("%s"), Text(" "), Hole("%s"))
    assert draftable(urllib3)  # its punctuation names the line
    assert specific((Hole("%s"), Text(" [preauth]")))  # what build() accepts is unchanged


def test_a_message_is_found_as_whole_words() -> None:
    # regress/netcat.c's err(1, "connect") is not in sshd's "Received disconnect from ...": a draft's first and last
    # words are whole words of the line
    pattern = build((Text("connect"),))
    assert _search(pattern, "Received disconnect from 10.0.0.1: 11: Bye Bye") is None
    assert _search(pattern, "nc: connect: Connection refused") == ()
    assert _search(build((Text("Saved "), Hole("%s"))), "Unsaved file.txt") is None
    assert build((Hole("%s"), Text(": done."))) == r"(.+): done\."  # punctuation at an end: nothing to bound


def test_a_prefix_written_before_another_message_is_no_draft() -> None:
    # dnsmasq's log.c writes fprintf(stderr, "dnsmasq%s: ", func) before every message it echoes to stderr
    assert not draftable((Text("dnsmasq"), Choice(((), (Text("-dhcp"),))), Text(": ")))
    assert not draftable((Text("error:"),))
    assert draftable((Text("Fatal error in the configuration file:"),))  # words enough of its own


def test_a_short_message_of_several_free_parts_is_no_draft() -> None:
    # ssh-pkcs11-helper's debug "check %s %s %s" was top-1 on PAM's "check pass; user unknown" lines of a real log
    assert not draftable((Text("check "), Hole("%s"), Text(" "), Hole("%s"), Text(" "), Hole("%s")))
    assert draftable((Text("rename "), Hole("%s"), Text(" to "), Hole("%s")))  # eight letters
    assert draftable((Text("os "), Hole("type"), Text(" "), Hole("release")))  # npm's: two free parts
    assert draftable((Text("port "), Hole("%d", "int"), Text(" char "), Hole("%s")))  # one free part
