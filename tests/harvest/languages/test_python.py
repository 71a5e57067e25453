"""The Python finder: raise and log sites, their messages, enclosing functions and guards."""

from __future__ import annotations

import textwrap

from errdex.harvest.languages import FileSites, TreeFacts, finder_for
from errdex.harvest.languages.python import FINDER
from errdex.harvest.pattern import build, display
from errdex.harvest.sinks import DEFAULT_LEVELS, LEVELS, Sink
from errdex.harvest.sites import Hole, Text
from errdex.patterns import python_regex


def _find(source: str, *, levels: frozenset[str] = DEFAULT_LEVELS, sinks: tuple[Sink, ...] = ()) -> FileSites:
    return FINDER.find(textwrap.dedent(source).encode(), "pkg/mod.py", sinks=sinks, levels=levels, facts=TreeFacts())


def test_the_finder_is_found_by_extension() -> None:
    assert finder_for("a/b.py") is FINDER
    assert FINDER.survey(b"X = 'a'") == TreeFacts()


def test_raise_with_literals_fstrings_and_concatenation() -> None:
    found = _find('''
        class Store:
            def get(self, key, n):
                if not key:
                    raise ValueError("key is " "required")
                raise KeyError(f"no key {key!r} after {n:d} tries" + " (store " + str(self) + ")")
        ''')
    first, second = found.sites
    assert (first.kind, first.line, first.error_class, first.function) == ("throw", 5, "ValueError", "Store.get")
    assert first.template == (Text("key is required"),)
    assert first.guards == ("not key",)
    assert second.template == (Text("no key "), Hole("{key!r}"), Text(" after "), Hole("{n:d}", "int"),
                               Text(" tries (store "), Hole("{str(self)}"), Text(")"))
    assert second.guards == ()
    assert display(second.template) == "no key {key!r} after {n:d} tries (store {str(self)})"
    assert python_regex(build(second.template)).search("no key 'a' after 3 tries (store <S>)")


def test_log_calls_and_their_formatting() -> None:
    found = _find('''
        import logging
        logger = logging.getLogger(__name__)
        def run(path, err):
            logger.error("cannot open %s: %d%%", path, err)
            logger.error("done 100%")
            self.logger.warning("retry {} of {}".format(1, 3))
            logging.critical("fatal: %(what)s", {"what": path})
            LOG.info("not kept at the default levels")
            logger.exception(_("translated %s"), path)
            logger.log(logging.ERROR, "via log() %s", path)
            logger.warning(f"{path}: %d bytes", size)
            print("not a sink")
        ''')
    by_line = {s.line: s for s in found.sites}
    assert sorted(by_line) == [5, 6, 7, 8, 10, 11, 12]
    assert by_line[12].template == (Hole("{path}"), Text(": "), Hole("%d", "int"), Text(" bytes"))
    assert by_line[5].template == (Text("cannot open "), Hole("%s"), Text(": "), Hole("%d", "int"), Text("%"))
    assert (by_line[5].kind, by_line[5].level, by_line[5].error_class) == ("log", "error", "logger")
    assert by_line[6].template == (Text("done 100%"),)  # no arguments: logging prints it as it is
    assert by_line[7].template == (Text("retry "), Hole("{}"), Text(" of "), Hole("{}"))
    assert by_line[7].error_class == "self.logger"
    assert by_line[8].template == (Text("fatal: "), Hole("%(what)s"))
    assert by_line[10].template == (Text("translated "), Hole("%s"))
    assert by_line[11].level == "error"
    warned = _find("import warnings\nwarnings.warn(f'{name} is deprecated', DeprecationWarning)\n")
    assert [(s.level, s.template) for s in warned.sites] == [("warning", (Hole("{name}"), Text(" is deprecated")))]
    every = _find("LOG.info('kept %s', x)\nlog.debug('dbg')\n", levels=frozenset(LEVELS))
    assert [s.level for s in every.sites] == ["info", "debug"]
    custom = _find("logger.verbose('Using %s', v)\nself.log.notice('n')\n", levels=frozenset(LEVELS))
    assert [(s.level, s.template[0]) for s in custom.sites] == [("verbose", Text("Using ")), ("notice", Text("n"))]


def test_loggers_the_file_makes() -> None:
    found = _find('''
        import logging
        audit = logging.getLogger("audit")
        class A:
            def __init__(self):
                self.out = logging.getLogger(__name__).getChild("x")
            def f(self):
                audit.error("denied %s", u)
                self.out.warning("careful")
                logging.getLogger(__name__).error("inline")
                other.error("not a logger")
        ''')
    assert [(s.line, s.error_class) for s in found.sites] == [
        (8, "audit"), (9, "self.out"), (10, "logging.getLogger(__name__)")]


def test_constants_and_local_variables() -> None:
    found = _find('''
        PREFIX = "Storage error"
        def write(n):
            detail = "disk full"
            raise OSError(PREFIX + ": " + detail + " at " + str(n))
        def later():
            raise RuntimeError(UNKNOWN)
        def empty(e):
            raise RuntimeError(str(e))
        ''')
    assert found.sites[0].template == (Text("Storage error: disk full at "), Hole("{str(n)}"))
    assert [(s.line, s.reason) for s in found.skipped] == [(7, "unresolved-constant"), (9, "no-literal")]


def test_guards_of_elif_else_and_while() -> None:
    found = _find('''
        def f(a, b):
            while a > 0:
                if a == 1:
                    pass
                elif b:
                    raise ValueError("b set")
                else:
                    raise ValueError("neither")
        ''')
    assert found.sites[0].guards == ("a > 0", "not (a == 1)", "b")
    assert found.sites[1].guards == ("a > 0", "not (a == 1)", "not (b)")


def test_a_projects_own_sink_and_bare_raises() -> None:
    found = _find('''
        def g():
            die("fatal problem %s", 1)
            raise
            raise ValueError
            raise ValueError()
            raise HTTPException(status_code=404, detail=f"Item {item_id} not found")
        ''', sinks=(Sink("die", level="fatal", style="python-percent"),))
    assert [(s.line, s.level, s.template[0]) for s in found.sites] == [
        (3, "fatal", Text("fatal problem ")), (7, None, Text("Item "))]
    assert found.skipped == []


def test_a_broken_file_is_reported_and_still_read() -> None:
    found = _find("def f(:\n    raise ValueError('still here')\n")
    assert found.parse_error is not None


def test_literals_across_lines_and_text_methods() -> None:
    found = _find('''
        import textwrap
        def f(path, reason):
            logger.warning(
                "could not read %s "
                "because %s",
                path, reason,
            )
            raise ValueError(textwrap.dedent("""
                bad value
            """).strip())
            raise ValueError(reason)
        ''')
    first, second = found.sites
    assert (first.line, first.end_line) == (4, 8)
    assert first.template == (Text("could not read "), Hole("%s"), Text(" because "), Hole("%s"))
    assert second.template == (Text("bad value"),)
    # a parameter is a value, not a constant left unresolved
    assert [(s.line, s.reason) for s in found.skipped] == [(12, "no-literal")]
