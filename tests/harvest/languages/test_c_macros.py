"""C sinks that are macros of the tree, read with no configuration: the format, the level, and what the
macro and its core function write before and after the message."""

from __future__ import annotations

from errdex.harvest.languages import FileSites, TreeFacts, finder_for
from errdex.harvest.pattern import build
from errdex.harvest.sinks import Sink, parse_levels
from errdex.harvest.sites import Hole, Site, Text

FINDER = finder_for("a.c")

LOG_H = b'''
typedef enum { SYSLOG_LEVEL_FATAL, SYSLOG_LEVEL_ERROR, SYSLOG_LEVEL_INFO } LogLevel;
void corelog(const char *, const char *, int, int, LogLevel, const char *, const char *, ...)
    __attribute__((format(printf, 7, 8)));
#define error(...)	corelog(__FILE__, __func__, __LINE__, 0, SYSLOG_LEVEL_ERROR, NULL, __VA_ARGS__)
#define error_f(...)	corelog(__FILE__, __func__, __LINE__, 1, SYSLOG_LEVEL_ERROR, NULL, __VA_ARGS__)
#define fatal_fr(r, ...) corelog(__FILE__, __func__, __LINE__, 1, SYSLOG_LEVEL_FATAL, strerr(r), __VA_ARGS__)
#define say_f(level, ...) do { \\
	corelog(__FILE__, __func__, __LINE__, 1, level, NULL, __VA_ARGS__); \\
} while (0)
#define oops(fmt, ...)	error_f("oops: " fmt, __VA_ARGS__)
#define whine(...)	if (!quiet) error(__VA_ARGS__)

struct xlog { int lvl; };
void xlog_core(int level, struct xlog *log, int err, const char *fmt, ...);
#define xlog(level, log, ...) if ((log)->lvl >= level) xlog_core(level, log, __VA_ARGS__)
#define xlog_debug(log, ...) if ((log)->lvl > 7) xlog_core(XLOG_DEBUG, log, __VA_ARGS__)
#define store_error(buf, ...) snprintf(buf, sizeof(buf), __VA_ARGS__)
'''

LOG_C = b'''
#include "log.h"

static void
emit(LogLevel level, const char *suffix, const char *fmt, va_list args)
{
	char msgbuf[1024], fmtbuf[1024];

	vsnprintf(msgbuf, sizeof(msgbuf), fmt, args);
	if (suffix != NULL) {
		snprintf(fmtbuf, sizeof(fmtbuf), "%s: %s", msgbuf, suffix);
		strlcpy(msgbuf, fmtbuf, sizeof(msgbuf));
	}
	write_out(level, msgbuf);
}

void
corelogv(const char *file, const char *func, int line, int showfunc, LogLevel level, const char *suffix,
    const char *fmt, va_list args)
{
	char fmt2[1024];

	if (showfunc)
		snprintf(fmt2, sizeof(fmt2), "%s: %s", func, fmt);
	else
		strlcpy(fmt2, fmt, sizeof(fmt2));
	emit(level, suffix, fmt2, args);
}

void
corelog(const char *file, const char *func, int line, int showfunc, LogLevel level, const char *suffix,
    const char *fmt, ...)
{
	va_list args;

	va_start(args, fmt);
	corelogv(file, func, line, showfunc, level, suffix, fmt, args);
	va_end(args);
}
'''

USE_C = b'''
#include "log.h"

static int
open_thing(struct xlog *log, int r)
{
	error_f("cannot open %s", "x");
	fatal_fr(r, "read");
	say_f(SYSLOG_LEVEL_INFO, "said %d", r);
	oops("bad %d", r);
	whine("plain whine");
	xlog(XLOG_WARN, log, 0, "careful %d", r);
	xlog_debug(log, 0, "debugging %d", r);
	error("no prefix");
	store_error(buf, "not a log %d", r);
	return 0;
}
'''


def _facts(*sources: bytes) -> TreeFacts:
    assert FINDER is not None
    facts = TreeFacts()
    for source in sources:
        facts.add(FINDER.survey(source))
    return facts


def _find(source: bytes = USE_C, facts: TreeFacts | None = None, sinks: tuple[Sink, ...] | None = None) -> FileSites:
    assert FINDER is not None
    return FINDER.find(source, "use.c", sinks=FINDER.default_sinks if sinks is None else sinks,
                       levels=parse_levels("all"), facts=_facts(LOG_C, LOG_H) if facts is None else facts)


def _site(text: str, found: FileSites | None = None) -> Site:
    found = found or _find()
    return next(site for site in found.sites
                if text in "".join(p.text for p in site.template if isinstance(p, Text)))


def test_func_and_a_flag_on_in_the_macro_prefix_the_calling_function_name() -> None:
    site = _site("cannot open")
    assert site.template == (Text("open_thing: cannot open x"),)
    assert (site.level, site.error_class) == ("error", "error_f")


def test_the_same_core_with_the_flag_off_writes_no_prefix() -> None:
    assert _site("no prefix").template == (Text("no prefix"),)


def test_a_suffix_the_macro_passes_is_written_after_the_message() -> None:
    site = _site("read")
    assert site.template == (Text("open_thing: read: "), Hole("%s"))
    assert site.level == "fatal"
    assert build(site.template, placeholders=False) == r"\bopen_thing: read: (.+)"


def test_the_level_is_the_macro_argument_at_each_call_through_a_do_while_body() -> None:
    site = _site("said")
    assert site.level == "info"
    assert site.template[0] == Text("open_thing: said ")


def test_a_macro_over_a_macro_keeps_its_prefix_and_adds_its_own_literals() -> None:
    site = _site("oops")
    assert site.template[0] == Text("open_thing: oops: bad ")
    assert (site.level, site.error_class) == ("error", "oops")


def test_a_macro_over_a_macro_in_an_if_body() -> None:
    site = _site("plain whine")
    assert site.template == (Text("plain whine"),) and site.level == "error"


def test_a_level_parameter_and_the_format_after_va_args_are_mapped_to_the_core() -> None:
    site = _site("careful")
    assert site.level == "warning"
    assert site.template == (Text("careful "), Hole("%d", "int"))


def test_a_level_constant_in_the_body_is_the_level() -> None:
    assert _site("debugging").level == "debug"


def test_a_macro_over_a_string_builder_is_no_sink() -> None:
    assert not any("not a log" in str(site.template) for site in _find().sites)


def test_without_the_core_definition_the_macro_is_still_a_sink_without_prefix() -> None:
    site = _site("cannot open", _find(facts=_facts(LOG_H)))
    assert site.template == (Text("cannot open x"),)


def test_a_config_sink_says_its_prefix_and_suffix() -> None:
    source = b'void f(int e) {\n\treport_f("disk full", strerror(e));\n}\n'
    sinks = (Sink("report_f", 0, "error", prefix="{function}: ", suffix=": %s"),)
    site = _find(source, TreeFacts(), sinks).sites[0]
    assert site.template == (Text("f: disk full: "), Hole("%s"))
    outside = _find(b'int x = report_f("at load");\n', TreeFacts(), sinks).sites[0]
    assert outside.template == (Hole("__func__", "word"), Text(": at load: "), Hole("%s"))


OTHER_C = b'''
void conf_log_error(int level, struct conf *cf, int err, const char *fmt, ...);
#define ERROR(...) { \\
	char __buf[1024]; \\
	snprintf(__buf, sizeof(__buf), __VA_ARGS__); \\
	snprintf(error, sizeof(error), "0x%16llx: %s", (long long)epos, __buf); \\
}
#define debugf(...) printf(__VA_ARGS__)

static int
parse(struct conf *cf)
{
	conf_log_error(CONF_LOG_EMERG, cf, 0, "unknown directive \\"%s\\"", name);
	ERROR("Expected prefix '%c'", c);
	debugf("node %p", n);
	return 0;
}
'''


def test_a_logging_printf_like_function_with_a_handle_before_its_format_is_a_sink() -> None:
    found = _find(OTHER_C, _facts(OTHER_C))
    site = _site("unknown directive", found)
    assert (site.level, site.error_class) == ("fatal", "conf_log_error")


def test_a_macro_that_builds_into_its_own_buffer_keeps_the_name_it_logs_by() -> None:
    found = _find(OTHER_C, _facts(OTHER_C))
    assert _site("Expected prefix", found).error_class == "ERROR"
    assert _site("node", found).level == "debug"


FORWARD_C = b'''
void conf_log_error(int level, struct conf *cf, int err, const char *fmt, ...);

int
connection_error(struct conn *c, int err, char *text)
{
	int level = err == ECONNRESET ? LOG_INFO : LOG_ERR;
	conf_log_error(level, c->cf, err, text);
	return -1;
}

static int
keep(const char *name)
{
	printf("%s\\n", name);
	return 0;
}

static void
upstream(struct conn *c)
{
	connection_error(c, errno, "connect() failed");
	keep("not a format");
}
'''


def test_a_function_that_hands_its_text_parameter_to_a_sink_format_is_a_sink() -> None:
    found = _find(FORWARD_C, _facts(FORWARD_C))
    site = _site("connect() failed", found)
    assert (site.error_class, site.level, site.function) == ("connection_error", "error", "upstream")
    assert not any("not a format" in str(s.template) for s in found.sites)
