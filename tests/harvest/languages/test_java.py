"""The Java finder on small sources: throws, log calls through logger objects, messages and their context."""

from __future__ import annotations

from errdex.harvest.languages import FileSites, Parameter, TreeFacts, finder_for
from errdex.harvest.languages.java_calls import one_of
from errdex.harvest.sinks import DEFAULT_LEVELS, Sink, parse_levels
from errdex.harvest.sites import Choice, Hole, Site, Text

FINDER = finder_for("A.java")
SOURCE = b'''
package p;
class Server {
    private static final Logger AUDIT = LoggerFactory.getLogger("audit");
    static final String PREFIX = "srv: ";
    static final String CLOSED = PREFIX + "closed";

    void start(int port, Object sock) {
        if (port <= 0) {
            throw new IllegalArgumentException("bad port " + port);
        } else {
            LOG.info("listening on " + port);
        }
        try {
            open();
        } catch (IOException e) {
            LOG.warn("Cannot open " + sock + ", " + CLOSED, e);
        }
        String what = "socket";
        LOG.error("Lost " + what + " 0x" + Long.toHexString(id)
                + (sock != null ? " at " + sock : " (none)"));
        AUDIT.error("audited");
        other.error("not a logger");
        LOG.info(message);
        throw new IllegalStateException(cause);
    }
}
'''


def _find(source: bytes = SOURCE, levels: frozenset[str] | None = None, sinks: tuple[Sink, ...] | None = None,
          facts: TreeFacts | None = None) -> FileSites:
    assert FINDER is not None
    return FINDER.find(source, "p/Server.java", sinks=FINDER.default_sinks if sinks is None else sinks,
                       levels=parse_levels("all") if levels is None else levels, facts=facts or TreeFacts())


def _at(sites: list[Site], line: int) -> Site:
    return next(site for site in sites if site.line == line)


def test_a_throw_with_concatenation_is_a_site_with_its_class_function_and_guard() -> None:
    site = _at(_find().sites, 10)
    assert site.kind == "throw"
    assert site.error_class == "IllegalArgumentException"
    assert site.template == (Text("bad port "), Hole("port"))
    assert site.function == "Server.start"
    assert site.guards == ("port <= 0",)
    assert site.level is None


def test_an_else_branch_and_a_catch_are_guards() -> None:
    sites = _find().sites
    assert _at(sites, 12).guards == ("!(port <= 0)",)
    assert _at(sites, 17).guards == ("catch (IOException e)",)


def test_constants_of_the_file_resolve_and_a_trailing_exception_is_not_in_the_message() -> None:
    site = _at(_find().sites, 17)
    assert site.template == (Text("Cannot open "), Hole("sock"), Text(", srv: closed"))
    assert site.level == "warning"
    assert site.error_class == "LOG"


def test_a_local_literal_a_hex_call_and_a_ternary() -> None:
    site = _at(_find().sites, 20)
    assert site.line == 20 and site.end_line == 21
    assert site.template == (
        Text("Lost socket 0x"), Hole("Long.toHexString(id)", "hex"),
        Choice(((Text(" at "), Hole("sock")), (Text(" (none)"),))))


def test_only_logger_objects_count_and_a_static_final_logger_field_is_one() -> None:
    lines = {site.line for site in _find().sites}
    assert 22 in lines
    assert 23 not in lines


def test_messages_without_literal_text_are_skipped_with_the_reason() -> None:
    skipped = {item.line: item.reason for item in _find().skipped}
    assert skipped == {24: "no-literal", 25: "no-literal"}


def test_levels_below_those_asked_are_left_out() -> None:
    lines = {site.line for site in _find(levels=DEFAULT_LEVELS).sites}
    assert 12 not in lines and 20 in lines and 10 in lines


def test_tree_constants_resolve_as_class_dot_name() -> None:
    assert FINDER is not None
    other = FINDER.survey(b'class Messages { public static final String GONE = "gone " + "away"; }')
    assert other == TreeFacts(constants={"GONE": "gone away", "Messages.GONE": "gone away"})
    source = b'class A { void f() { throw new RuntimeException(Messages.GONE + "!"); } }'
    assert _find(source, facts=other).sites[0].template == (Text("gone away!"),)


def test_jul_levels_and_log_with_a_level_argument() -> None:
    source = b'''class A { void f() {
        logger.severe("broken");
        logger.log(Level.WARNING, "careful");
        logger.fine("detail");
    } }'''
    assert [(s.line, s.level) for s in _find(source).sites] == [(2, "error"), (3, "warning"), (4, "debug")]


def test_a_project_sink_is_any_call_of_its_name() -> None:
    source = b'class A { void f() { audit("x"); LOG.error("y"); } }'
    sites = _find(source, sinks=(Sink("audit", 0, "error", "plain"),)).sites
    assert [(s.template, s.error_class) for s in sites] == [((Text("x"),), "audit")]


def test_slf4j_placeholders_with_arguments_are_holes() -> None:
    source = b'class A { void f() { LOG.info("Got {} from {}", a, b); LOG.info("literal {}"); } }'
    first, second = _find(source).sites
    assert [type(p) for p in first.template] == [Text, Hole, Text, Hole]
    assert first.template[0] == Text("Got ") and first.template[2] == Text(" from ")
    assert second.template == (Text("literal {}"),)


def test_string_format_and_message_format() -> None:
    source = b'''class A { void f() {
        throw new IOException(String.format("port %d is busy", port));
    }
    void g() { LOG.warn(MessageFormat.format("file {0} gone", f)); } }'''
    first, second = _find(source).sites
    assert first.template[0] == Text("port ") and first.template[-1] == Text(" is busy")
    assert isinstance(first.template[1], Hole) and first.template[1].shape == "int"
    assert second.template[0] == Text("file ") and isinstance(second.template[1], Hole)


def test_a_broken_file_still_gives_its_sites() -> None:
    result = _find(b'class A { void f() { throw new E("x"); } void g( { }')
    assert [s.template for s in result.sites] == [(Text("x"),)]


def test_loggers_from_getters_locals_and_parameters_and_the_standard_streams() -> None:
    source = b'''class A {
    void f(Logger audit) {
        LoggerFactory.getLogger(A.class).warn("from a getter");
        Logger local = LoggerFactory.getLogger("x");
        local.error("from a local");
        audit.error("from a parameter");
        System.err.println("to stderr " + x);
        System.out.printf("to stdout %d%n", n);
        writer.println("to a writer");
    } }'''
    sites = _find(source).sites
    assert [(s.line, s.level) for s in sites] == [(3, "warning"), (5, "error"), (6, "error"), (7, "error"),
                                                  (8, "info")]
    assert sites[3].template == (Text("to stderr "), Hole("x"))
    assert sites[4].template[0] == Text("to stdout ")


def test_jul_parameters_are_read_as_message_format() -> None:
    source = b'class A { void f() { logger.log(Level.SEVERE, "lost {0} of {1}", new Object[] {a, b}); } }'
    template = _find(source).sites[0].template
    assert template[0] == Text("lost ") and template[2] == Text(" of ")
    assert [type(p) for p in template] == [Text, Hole, Text, Hole]


def test_a_project_sink_replaces_the_default_of_its_name() -> None:
    assert FINDER is not None
    source = b'class A { void f() { anything.info("x"); } }'
    sinks = (*FINDER.default_sinks, Sink("info", 0, "warning", "plain"))
    assert [(s.line, s.level) for s in _find(source, sinks=sinks).sites] == [(1, "warning")]


ENVIRONMENT = b'''package p;
public class Environment {
    public static void logEnv(String msg, Logger log) {
        for (Entry e : list()) {
            log.info(msg + e.toString());
        }
    }
    static void trace(Logger log, String msg) { log.trace(msg); }
    static void counted(String msg, int n) { LOG.info("n=" + n + msg); }
    void own() { trace(LOG, "traced here"); counted("not the message", 1); }
}
'''


def test_a_message_from_a_parameter_takes_the_literal_the_same_file_passes() -> None:
    sites = _find(ENVIRONMENT).sites
    # line 9: the parameter is not where the message starts, so it stays a hole
    assert [(s.line, s.template) for s in sites] == [(8, (Text("traced here"),)),
                                                     (9, (Text("n="), Hole("n"), Hole("msg")))]
    assert sites[0].function == "Environment.trace"


def test_a_message_from_a_parameter_takes_the_literals_the_tree_passes_shared_text_kept_whole() -> None:
    assert FINDER is not None
    callers = b'''class ZooKeeperServer { static { Environment.logEnv("Server environment:", LOG); } }
class ZooKeeper { static { Environment.logEnv("Client environment:", LOG); } }'''
    facts = FINDER.survey(callers)
    assert facts.constants == {}
    assert facts.passed == {Parameter("Environment", "logEnv", 2, 0): ["Server environment:", "Client environment:"]}
    site = _at(_find(ENVIRONMENT, facts=facts).sites, 5)
    assert site.template == (Choice(((Text("Client"),), (Text("Server"),))), Text(" environment:"),
                             Hole("e.toString()"))
    one = FINDER.survey(callers.splitlines()[0])
    assert _at(_find(ENVIRONMENT, facts=one).sites, 5).template == (Text("Server environment:"),
                                                                       Hole("e.toString()"))


def test_only_literals_passed_for_the_method_by_class_name_and_arity_count() -> None:
    assert FINDER is not None
    callers = b'''class B { void f() {
        Environment.logEnv(prefix, LOG);
        env.logEnv("an object: type unknown", LOG);
        Other.logEnv("another class", LOG);
        Environment.logEnv("three", LOG, 3);
    } }'''
    sites = _find(ENVIRONMENT, facts=FINDER.survey(callers)).sites
    assert [s.line for s in sites] == [8, 9]  # logEnv stays a site without literal text (skipped)
    assert any(s.line == 5 for s in _find(ENVIRONMENT, facts=FINDER.survey(callers)).skipped)


def test_literals_keep_the_text_they_share_and_choose_where_they_differ() -> None:
    assert one_of(["only"]) == [Text("only")]
    assert one_of(["sent x.", "sent y and z."]) == [Text("sent "), Choice(((Text("x"),), (Text("y and z"),))),
                                                      Text(".")]
    assert one_of(["ab", "abab"]) == [Text("ab"), Choice(((), (Text("ab"),))), Text("")]
