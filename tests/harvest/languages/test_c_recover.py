"""C files tree-sitter cannot parse whole: every site is still read, at its exact line, in its function."""

from __future__ import annotations

from errdex.harvest.languages import TreeFacts, finder_for
from errdex.harvest.languages.c_recover import variants
from errdex.harvest.sinks import Sink, parse_levels
from errdex.harvest.sites import Text

FINDER = finder_for("a.c")

SOURCE = b'''#include "log.h"

static int
before(int x)
{
	error("before %d", x);
	return 0;
}

#if (HAVE_VARIADIC)
void
emit(int level, const char *fmt, ...)
#else
void
emit(level, fmt, va_alist)
#endif
{
	error("inside %d", level);
}

struct table dispatch[] = {
#ifdef WITH_OPENSSL
    {MONITOR_REQ_MODULI, MON_ONCE, mm_answer_moduli},
#endif
    {MONITOR_REQ_SIGN, MON_ONCE, mm_answer_sign},
    {0, 0, NULL}
};

static int
after(int x)
{
	if (x
#if HAVE_C
		&& x > 2
#else
		&& x > 3
#endif
		)
		error("after %d", x);
	return 0;
}
'''


def _text(site: object) -> str:
    return "".join(part.text for part in getattr(site, "template", ()) if isinstance(part, Text))


def test_sites_before_inside_and_after_a_parse_failure_keep_line_and_function() -> None:
    assert FINDER is not None
    found = FINDER.find(SOURCE, "emit.c", sinks=(Sink("error", 0, "error"),), levels=parse_levels("all"),
                        facts=TreeFacts())
    lines = SOURCE.decode().splitlines()
    got = {_text(site).strip(): (site.line, site.function) for site in found.sites}
    assert got == {"before": (6, "before"), "inside": (18, "emit"), "after": (39, "after")}
    for site in found.sites:
        assert f'error("{_text(site).strip()} %d"' in lines[site.line - 1]
    assert found.parse_error == "syntax error at line 12; 2 site(s) recovered"
    after = next(site for site in found.sites if site.function == "after")
    assert after.guards == ("x && x > 2",)


def test_variants_keep_every_byte_offset() -> None:
    first, last = variants(SOURCE)
    assert len(first) == len(last) == len(SOURCE)
    assert [i for i, c in enumerate(first) if c == 10] == [i for i, c in enumerate(SOURCE) if c == 10]
    assert b"emit(int level" in first and b"emit(level, fmt" not in first
    assert b"emit(level, fmt" in last and b"emit(int level" not in last
    assert b"#if" not in first and b"#endif" not in last


def test_a_file_with_no_conditional_has_no_variant() -> None:
    assert variants(b"int f(void) { return 0 }\n") == []


def test_nested_and_unclosed_conditionals_keep_offsets() -> None:
    source = b"#if A\n#ifdef B\nb();\n#elif C\nc();\n#else\nd();\n#endif\n#else\ne();\n#endif\n#if OPEN\nf();\n"
    first, last = variants(source)
    assert first.split() == [b"b();", b"f();"]
    assert last.split() == [b"e();", b"f();"]
    assert len(first) == len(last) == len(source)


def test_a_call_the_whole_parse_did_not_read_as_one_is_recovered() -> None:
    source = b'''static void
wrap_key(struct sshkey *k)
{
	if (k->type == KEY_RSA)
		RSA_set_method(k->rsa, helper_rsa);
#if defined(OPENSSL_HAS_ECC)
	else if (k->type == KEY_ECDSA)
		EC_KEY_set_method(k->ecdsa, helper_ecdsa);
#endif
	else
		fatal("unknown key type");
}
'''
    assert FINDER is not None
    found = FINDER.find(source, "wrap.c", sinks=(Sink("fatal", 0, "fatal"),), levels=parse_levels("all"),
                        facts=TreeFacts())
    assert [(site.line, site.function, _text(site)) for site in found.sites] == [(11, "wrap_key", "unknown key type")]
