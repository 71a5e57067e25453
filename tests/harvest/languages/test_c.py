"""The C finder on small sources: printf-family and project sinks, formats from literals and macros."""

from __future__ import annotations

import re

from errdex.harvest.languages import FileSites, TreeFacts, finder_for
from errdex.harvest.pattern import build
from errdex.harvest.sinks import DEFAULT_LEVELS, Sink, parse_levels
from errdex.harvest.sites import Choice, Hole, Site, Text

FINDER = finder_for("a.c")
SSHD = (Sink("fatal", 0, "fatal"), Sink("error", 0, "error"), Sink("logit", 0, "info"),
        Sink("debug", 0, "debug"), Sink("do_log2", 1, None, level_arg=0), Sink("authlog", 0, "info"),
        Sink("packet_disconnect", 0, "info"))

SOURCE = b'''
#include "log.h"
#define WHAT "channel"
#define GONE "lost " WHAT " %d"

static int
open_channel(int id, const char *name)
{
	void (*authlog) (const char *fmt,...) = verbose;
	if (id < 0)
		fatal("%s: bad id %d", __func__, id);
	else if (name == NULL)
		error(GONE, id);
	else
		logit("opened %s"
			" as %u", name, id);
	switch (id) {
	case 7:
		debug("seven");
		break;
	}
#ifdef USE_PAM
	authlog("%s for %s", id ? "Accepted" : "Failed", name);
#endif
	do_log2(id ? SYSLOG_LEVEL_INFO : SYSLOG_LEVEL_ERROR, "Received %s", name);
	error("%s", name);
	error(UNKNOWN_MESSAGE);
	printf("done\\n");
	return 0;
}
'''


def _find(source: bytes = SOURCE, sinks: tuple[Sink, ...] | None = None, levels: frozenset[str] | None = None,
          facts: TreeFacts | None = None) -> FileSites:
    assert FINDER is not None
    return FINDER.find(source, "chan.c", sinks=FINDER.default_sinks + SSHD if sinks is None else sinks,
                       levels=parse_levels("all") if levels is None else levels, facts=facts or TreeFacts())


def _at(sites: list[Site], line: int) -> Site:
    return next(site for site in sites if site.line == line)


def test_a_sink_call_is_a_site_with_its_function_level_and_guard() -> None:
    site = _at(_find().sites, 11)
    assert (site.kind, site.level, site.error_class) == ("log", "fatal", "fatal")
    assert site.function == "open_channel"
    assert site.guards == ("id < 0",)


def test_a_hole_fed_func_prints_the_calling_function_name() -> None:
    site = _at(_find().sites, 11)
    assert site.template[0] == Text("open_channel: bad id ")
    assert isinstance(site.template[1], Hole) and site.template[1].shape == "int"


def test_a_hole_fed_func_outside_a_function_prints_a_word() -> None:
    site = _find(b'static int x = (fatal("%s: at load", __func__), 0);\n').sites[0]
    assert site.template[0] == Hole("%s", "word")


def test_macros_of_the_file_build_the_format() -> None:
    site = _at(_find().sites, 13)
    assert site.template[0] == Text("lost channel ")
    assert site.guards == ("!(id < 0)", "name == NULL")


def test_adjacent_literals_are_one_format_and_the_call_spans_its_lines() -> None:
    site = _at(_find().sites, 15)
    assert site.end_line == 16
    assert site.template[0] == Text("opened ") and site.template[2] == Text(" as ")
    assert site.guards == ("!(id < 0)", "!(name == NULL)")


def test_case_labels_and_preprocessor_conditions_are_guards() -> None:
    sites = _find().sites
    assert _at(sites, 19).guards == ("case 7",)
    assert _at(sites, 23).guards == ("#ifdef USE_PAM",)


def test_a_string_argument_that_is_a_ternary_of_literals_is_a_choice() -> None:
    site = _at(_find().sites, 23)
    assert site.error_class == "authlog"
    assert site.template[0] == Choice(((Text("Accepted"),), (Text("Failed"),)))
    assert site.template[1] == Text(" for ")


def test_a_level_argument_gives_the_most_severe_level_it_names() -> None:
    assert _at(_find().sites, 25).level == "error"
    assert 25 in {site.line for site in _find(levels=DEFAULT_LEVELS).sites}


def test_formats_without_literal_text_and_unknown_macros_are_skipped() -> None:
    skipped = {item.line: item.reason for item in _find().skipped}
    assert skipped == {26: "no-literal", 27: "unresolved-constant"}


def test_default_sinks_and_levels() -> None:
    sites = _find().sites
    assert _at(sites, 28).template == (Text("done\n"),)
    assert _at(sites, 28).level == "info"
    assert 28 not in {site.line for site in _find(levels=DEFAULT_LEVELS).sites}


def test_macros_from_headers_of_the_tree() -> None:
    assert FINDER is not None
    header = FINDER.survey(b'#define A "a-"\n#define AB A "b"\n#define N 3\n')
    assert header == TreeFacts(constants={"A": "a-", "AB": "a-b"})
    source = b'void f(void) { error(AB " %" PRIu64, n); }'
    site = _find(source, facts=header).sites[0]
    assert site.template[0] == Text("a-b ")
    assert isinstance(site.template[1], Hole) and site.template[1].shape == "uint"


def test_syslog_takes_its_level_from_the_priority() -> None:
    source = b'void f(void) { syslog(LOG_ERR, "x %s", s); syslog(LOG_DEBUG, "y"); }'
    assert [(s.line, s.level) for s in _find(source, levels=DEFAULT_LEVELS).sites] == [(1, "error")]


def test_a_local_only_assigned_literals_is_a_choice() -> None:
    source = b'''void f(int ok) {
	const char *msg;
	if (ok) msg = "Accepted"; else msg = "Failed";
	logit("%s login", msg);
}'''
    site = _find(source).sites[0]
    assert site.template == (Choice(((Text("Accepted"),), (Text("Failed"),))), Text(" login"))


def test_without_project_sinks_the_trees_own_log_functions_are_found() -> None:
    assert FINDER is not None
    header = FINDER.survey(b'''
void log_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void _serverLog(int level, const char *fmt, ...);
#define serverLog(level, ...) do { _serverLog(level, __VA_ARGS__); } while (0)
#define LOG_ERR(fmt, ...) log_msg(LOG_ERR, fmt, __VA_ARGS__)
int xasprintf(char **out, const char *fmt, ...);
int buf_putf(struct buf *b, const char *fmt, ...);
char *mprintf(const char *fmt, ...);
void report_to(FILE *out, const char *fmt, ...);
''')
    source = b'''void f(void) {
	log_warn("low %d", n);
	serverLog(LL_WARNING, "Accepted %s", who);
	LOG_ERR("broken %s", why);
	xasprintf(&s, "built %s", x);
	buf_putf(b, "built %s", x);
	s = mprintf("built %s", x);
	report_to(stderr, "reported %s", x);
}'''
    assert sorted(header.sinks) == ["LOG_ERR", "_serverLog", "log_warn", "report_to", "serverLog"]
    sites = _find(source, sinks=FINDER.default_sinks, facts=header).sites
    assert [(s.line, s.error_class, s.level) for s in sites] == [
        (2, "log_warn", "warning"), (3, "serverLog", "warning"), (4, "LOG_ERR", "error"),
        (8, "report_to", "info")]
    assert sites[1].template[0] == Text("Accepted ")


def test_a_function_pointer_with_a_format_is_a_sink() -> None:
    source = b'''void f(int ok) {
	void (*authlog) (const char *fmt,...) = verbose;
	authlog("%s for %s", ok ? "Accepted" : "Failed", user);
}'''
    assert FINDER is not None
    sites = _find(source, sinks=FINDER.default_sinks).sites
    assert [(s.line, s.error_class) for s in sites] == [(3, "authlog")]


def test_with_project_sinks_declarations_are_not_guessed() -> None:
    source = b'void log_warn(const char *fmt, ...);\nvoid f(void) { log_warn("low"); error("x"); }'
    sites = _find(source, sinks=(Sink("error", 0, "error"),)).sites
    assert [s.error_class for s in sites] == ["error"]


def test_sshds_composed_auth_line_gets_a_pattern_that_matches_its_lines() -> None:
    source = b'''void auth_log(Authctxt *authctxt, int authenticated, const char *method, const char *submethod) {
	void (*authlog) (const char *fmt,...) = verbose;
	char *authmsg;
	if (authenticated == 1) authmsg = "Postponed"; else authmsg = authenticated ? "Accepted" : "Failed";
	authlog("%s %s%s%s for %s%.100s from %.200s port %d %s%s%s",
		authmsg, method, submethod != NULL ? "/" : "", submethod == NULL ? "" : submethod,
		authctxt->valid ? "" : "invalid user ", authctxt->user, get_remote_ipaddr(), get_remote_port(),
		compat20 ? "ssh2" : "ssh1", authctxt->info != NULL ? ": " : "",
		authctxt->info != NULL ? authctxt->info : "");
}'''
    assert FINDER is not None
    site = _find(source, sinks=FINDER.default_sinks).sites[0]
    assert site.template[:4] == (Choice(((Text("Postponed"),), (Text("Accepted"),), (Text("Failed"),))),
                                 Text(" "), Hole("%s/submethod"), Text(" for "))
    pattern = build(site.template)
    for line in ("Failed password for invalid user webmaster from 173.234.31.186 port 38926 ssh2",
                 "Accepted password for fztu from 119.137.62.142 port 49116 ssh2",
                 "Failed keyboard-interactive/pam for root from 10.0.0.1 port 22 ssh2",
                 "Postponed publickey for git from 10.0.0.1 port 22 ssh2: RSA 12:34"):
        assert re.fullmatch(pattern, line), (pattern, line)


_FORMATTER = b'''
#include <stdarg.h>
void ngx_log_error_core(ngx_uint_t level, ngx_err_t err, const char *fmt, ...);
u_char * ngx_cdecl ngx_sprintf(u_char *buf, const char *fmt, ...);
u_char *
ngx_vslprintf(u_char *buf, u_char *last, const char *fmt, va_list args)
{
    while (*fmt && buf < last) {
        if (*fmt == '%') {
            for ( ;; ) {
                switch (*fmt) {
                case 'u': sign = 0; fmt++; continue;
                case 'X': hex = 2; fmt++; continue;
                case '*': slen = va_arg(args, size_t); fmt++; continue;
                case '.': fmt++; continue;
                default: break;
                }
                break;
            }
            switch (*fmt) {
            case 'V': fmt++; continue;
            case 's': fmt++; continue;
            case 'P': break;
            case 'i': break;
            case 'd': break;
            case '%': *buf++ = '%'; fmt++; continue;
            default: *buf++ = *fmt++; continue;
            }
        }
    }
    return buf;
}
'''


def test_a_trees_own_formatter_defines_how_its_sinks_formats_read() -> None:
    assert FINDER is not None
    facts = FINDER.survey(_FORMATTER)
    assert facts.dialects == {"printf": "printf-extended:Xu:PVdis"}
    source = b'''void f(void) {
    ngx_log_error_core(NGX_LOG_NOTICE, 0, "start %s %P, excess: %ui.%03ui", name, pid, a, b);
    fprintf(stderr, "%ui and %P\\n", n);
}'''
    project, libc = _find(source, sinks=FINDER.default_sinks, facts=facts).sites
    assert project.template == (Text("start "), Hole("%s"), Text(" "), Hole("%P"), Text(", excess: "),
                                Hole("%ui", "word"), Text("."), Hole("%03ui", "word"))
    assert re.fullmatch(build(project.template), "start worker process 4943, excess: 1.000")
    # libc's fprintf reads libc's printf: %u then the letter i; %P is text
    assert libc.template == (Hole("%u", "uint"), Text("i and %P\n"))


def test_without_a_formatter_a_project_sink_reads_uppercase_conversions() -> None:
    assert FINDER is not None
    source = b'''void ngx_log_error_core(ngx_uint_t level, ngx_err_t err, const char *fmt, ...);
void f(void) { ngx_log_error_core(NGX_LOG_NOTICE, 0, "start %s %P", name, pid); }'''
    site = _find(source, sinks=FINDER.default_sinks).sites[0]
    assert site.template == (Text("start "), Hole("%s"), Text(" "), Hole("%P"))
    # a builder that knows a few letters (redis's sdscatfmt: no %d) is not a dialect
    assert FINDER.survey(b'''#include <stdarg.h>
sds sdscatfmt(sds s, char const *fmt, ...) { switch (*f) { case 's': case 'S': case 'i': break; } }''').dialects == {}


def test_a_message_held_in_a_variable_is_a_choice_of_what_it_is_given() -> None:
    # redis's loadServerConfigFromString: err starts NULL, is given literals, a built message and a buffer
    source = b'''void load(char *line) {
    char buf[64];
    const char *err = NULL;
    if (!line) { err = "Unbalanced quotes"; goto loaderr; }
    if (bad(line)) { snprintf(buf, sizeof(buf), "Error in '%s'", line); err = buf; goto loaderr; }
    if (!open(line)) { err = sdscatprintf(sdsempty(), "Can't open: %s", why); goto loaderr; }
    err = "Bad directive"; goto loaderr;
loaderr:
    fprintf(stderr, "%s\\n", err);
}'''
    assert FINDER is not None
    site = _find(source, sinks=FINDER.default_sinks).sites[0]
    assert site.template == (Choice(((Text("Unbalanced quotes"),), (Text("Error in '"), Hole("%s"), Text("'")),
                                     (Text("Can't open: "), Hole("%s")), (Text("Bad directive"),))), Text("\n"))
    assert re.fullmatch(build(site.template), "Bad directive")
    # a buffer something else writes too: what it holds is not known
    other = source.replace(b"err = buf;", b"strcpy(buf, line); err = buf;")
    assert _find(other, sinks=FINDER.default_sinks).sites[0].template[0] == Hole("%s")


def test_a_message_picked_from_a_table_of_literals_is_a_choice() -> None:
    source = b'''static char *client_errors[] = {
    /* INVALID_METHOD */
    "client sent invalid method",
    "client sent invalid request",
    NULL
};
void f(int rc) { fprintf(stderr, client_errors[rc - BASE]); fprintf(stderr, "%s: %d", client_errors[rc], rc); }'''
    assert FINDER is not None
    direct, argument = _find(source, sinks=FINDER.default_sinks).sites
    options = Choice(((Text("client sent invalid method"),), (Text("client sent invalid request"),)))
    assert direct.template == (options,)
    assert argument.template == (options, Text(": "), Hole("%d", "int"))

def test_a_precision_cuts_the_function_name_as_printf_does() -> None:
    site = _find(b'void a_long_function_name(void) {\n\tfatal("%.6s: x", __func__);\n}\n').sites[0]
    assert site.template == (Text("a_long: x"),)


def test_a_variadic_function_that_sets_a_string_is_no_sink() -> None:
    # OpenSSH's ssh_packet_set_log_preamble(ssh, "user %s", ...) stores a preamble for later lines; it writes none
    source = b'''void ssh_packet_set_log_preamble(struct ssh *ssh, const char *fmt, ...);
void log_it(const char *fmt, ...);
void f(struct ssh *ssh) {
    ssh_packet_set_log_preamble(ssh, "user %s", name);
    log_it("user %s logged in", name);
}'''
    assert FINDER is not None
    facts = FINDER.survey(source)
    sites = _find(source, sinks=FINDER.default_sinks, facts=facts).sites
    assert [site.error_class for site in sites] == ["log_it"]


def test_a_logging_function_that_writes_its_message_as_it_is_is_a_sink() -> None:
    # redis's serverLogFromHandler(int level, const char *msg): not variadic; the message a signal handler picks
    source = b'''void serverLogFromHandler(int level, const char *msg);
static void handler(int sig) {
    char *msg;
    switch (sig) {
    case 2: msg = "Received SIGINT scheduling shutdown..."; break;
    default: msg = "Received shutdown signal, 100% sure...";
    }
    serverLogFromHandler(LL_WARNING, msg);
    serverLogFromHandler(LL_WARNING, "You insist... exiting now.");
}'''
    assert FINDER is not None
    facts = FINDER.survey(source)
    first, second = _find(source, sinks=FINDER.default_sinks, facts=facts).sites
    assert (first.level, second.level) == ("warning", "warning")
    assert first.template == (Choice(((Text("Received SIGINT scheduling shutdown..."),),
                                      (Text("Received shutdown signal, 100% sure..."),))),)
    assert re.search(build(first.template), "123:M 1 Jan # Received SIGINT scheduling shutdown...")
    assert second.template == (Text("You insist... exiting now."),)


def test_a_function_whose_name_says_its_level_writes_its_message() -> None:
    # dnsmasq's die(char *message, char *arg1, int exit_code): the message's %s is arg1; no level parameter
    source = b'''void die(char *message, char *arg1, int exit_code);
int report(char *message);
void f(void) {
    die("bad command line options: %s", opt, 1);
    report("not a log line");
}'''
    assert FINDER is not None
    facts = FINDER.survey(source)
    (site,) = _find(source, sinks=FINDER.default_sinks, facts=facts).sites
    assert site.level == "fatal" and site.template[0] == Text("bad command line options: ")


def test_a_translated_message_held_in_a_local_is_read() -> None:
    # dnsmasq: char *str = _("cannot read %s: %s"); ... die(str, file, EC_FILE); s = _("..."); die(s, ...)
    source = b'''void die(char *message, char *arg1, int exit_code);
void f(char *file) {
    char *str = _("cannot read %s: %s");
    die(str, file, 3);
}
void g(int fd) {
    char *s;
    if (fd < 0)
        s = _("failed to create listening socket for %s: %s");
    else
        s = gettext("failed to bind listening socket for %s: %s");
    die(s, addr, 2);
}'''
    assert FINDER is not None
    facts = FINDER.survey(source)
    first, second = _find(source, sinks=FINDER.default_sinks, facts=facts).sites
    assert re.fullmatch(build(first.template), "cannot read /x.conf: No such file or directory")
    assert isinstance(second.template[0], Choice)
    assert re.fullmatch(build(second.template), "failed to bind listening socket for ::1: Address in use")
