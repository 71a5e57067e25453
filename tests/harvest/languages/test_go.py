"""The Go finder on small sources: error values, panics, log, slog and common loggers."""

from __future__ import annotations

from errdex.harvest.languages import FileSites, TreeFacts, finder_for
from errdex.harvest.sinks import DEFAULT_LEVELS, Sink, parse_levels
from errdex.harvest.sites import Hole, Site, Text

FINDER = finder_for("a.go")
SOURCE = b'''package srv

const prefix = "srv: "

var ErrClosed = errors.New(prefix + "server closed")

func (s *Server) Start(port int) error {
	if port <= 0 {
		return fmt.Errorf("bad port %d: %w", port, ErrClosed)
	} else if port > 65535 {
		panic(fmt.Sprintf("port %d out of range", port))
	}
	log.Printf("listening on %q", s.addr)
	log.Println("started", port)
	slog.Error("start failed", "port", port)
	s.logger.WithError(err).Errorf("oops %v", err)
	switch port {
	case 80:
		logger.Warn(`raw "text"`)
	}
	foo.Error("not a logger")
	panic(err)
	return nil
}
'''


def _find(source: bytes = SOURCE, sinks: tuple[Sink, ...] | None = None, levels: frozenset[str] | None = None,
          facts: TreeFacts | None = None) -> FileSites:
    assert FINDER is not None
    return FINDER.find(source, "srv/server.go", sinks=FINDER.default_sinks if sinks is None else sinks,
                       levels=parse_levels("all") if levels is None else levels, facts=facts or TreeFacts())


def _at(sites: list[Site], line: int) -> Site:
    return next(site for site in sites if site.line == line)


def test_a_package_error_value_with_a_constant() -> None:
    site = _at(_find().sites, 5)
    assert (site.kind, site.error_class, site.function) == ("return-error", "errors.New", None)
    assert site.template == (Text("srv: server closed"),)


def test_a_returned_errorf_with_its_method_and_guard() -> None:
    site = _at(_find().sites, 9)
    assert site.kind == "return-error" and site.level is None
    assert site.function == "Server.Start"
    assert site.guards == ("port <= 0",)
    assert site.template[0] == Text("bad port ") and site.template[2] == Text(": ")
    assert [type(p) for p in site.template] == [Text, Hole, Text, Hole]


def test_a_panic_of_a_sprintf_is_one_site() -> None:
    sites = _find().sites
    assert [s.kind for s in sites if s.line == 11] == ["panic"]
    assert _at(sites, 11).guards == ("!(port <= 0)", "port > 65535")
    assert _at(sites, 11).template[0] == Text("port ")


def test_standard_log_println_and_slog() -> None:
    sites = _find().sites
    assert _at(sites, 13).template == (Text("listening on "), Hole("%q", "quoted"))
    assert _at(sites, 14).template == (Text("started "), Hole("port"))
    assert (_at(sites, 15).template, _at(sites, 15).level) == ((Text("start failed"),), "error")


def test_logger_chains_and_raw_strings() -> None:
    sites = _find().sites
    assert _at(sites, 16).error_class == "logger" and _at(sites, 16).level == "error"
    site = _at(sites, 19)
    assert (site.template, site.level, site.guards) == ((Text('raw "text"'),), "warning", ("case 80",))


def test_other_receivers_are_not_loggers_and_a_panic_of_a_value_is_skipped() -> None:
    result = _find()
    assert 21 not in {site.line for site in result.sites}
    assert [(item.line, item.reason) for item in result.skipped] == [(22, "no-literal")]


def test_levels_below_those_asked_are_left_out_but_errors_stay() -> None:
    lines = {site.line for site in _find(levels=DEFAULT_LEVELS).sites}
    assert {5, 9, 11, 15, 16, 19} <= lines
    assert not {13, 14} & lines


def test_tree_constants_and_a_project_sink() -> None:
    assert FINDER is not None
    facts = FINDER.survey(b'package a\nconst (\n\tA = "a"\n\tB = A + "b"\n)\n')
    assert facts.constants == {"A": "a", "B": "ab"}
    source = b'package a\nfunc f() { report(B + "!") }\n'
    sites = _find(source, sinks=(Sink("report", 0, "error", "plain"),), facts=facts).sites
    assert [(s.template, s.level) for s in sites] == [((Text("ab!"),), "error")]
