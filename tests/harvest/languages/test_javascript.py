"""The JavaScript and TypeScript finders: throws, error classes' messages, console and logger calls."""

from __future__ import annotations

import os
import re
import textwrap
from pathlib import Path

import pytest

from errdex.harvest.languages import FileSites, TreeFacts, finder_for
from errdex.harvest.languages.javascript import FINDERS
from errdex.harvest.pattern import build, display
from errdex.harvest.sinks import DEFAULT_LEVELS, LEVELS, Sink
from errdex.harvest.sites import Choice, Hole, Text
from errdex.patterns import python_regex, refusal

SHARED = Path(__file__).resolve().parents[3].parent / "shared"
CLIENT = SHARED / "data" / "sources" / "paperclip-createos" / "client.ts"
PROTOCOL = SHARED / "reference" / "createos-protocol.md"


def _find(source: str, path: str = "src/a.ts", *, levels: frozenset[str] = DEFAULT_LEVELS,
          sinks: tuple[Sink, ...] = ()) -> FileSites:
    finder = finder_for(path)
    assert finder is not None
    return finder.find(textwrap.dedent(source).encode(), path, sinks=sinks, levels=levels, facts=TreeFacts())


def test_finders_by_extension() -> None:
    assert finder_for("x.ts") is FINDERS["typescript"] and finder_for("x.tsx") is FINDERS["typescript"]
    assert finder_for("x.mjs") is FINDERS["javascript"] and finder_for("x.jsx") is FINDERS["javascript"]
    assert FINDERS["javascript"].survey(b"const A = 'x';") == TreeFacts()


def test_throws_with_literals_templates_and_concatenation() -> None:
    found = _find('''
        function check(x: string, n: number) {
          if (!x) throw new Error("x is " + 'required\\n');
          throw TypeError(`bad ${x} at ${n}: ${n > 1 ? `many ${x}` : "one"}`);
        }
        ''')
    first, second = found.sites
    assert (first.kind, first.line, first.error_class, first.function, first.guards) == (
        "throw", 3, "Error", "check", ("!x",))
    assert first.template == (Text("x is required\n"),)
    assert second.template == (
        Text("bad "), Hole("${x}"), Text(" at "), Hole("${n}", "float"), Text(": "),
        Choice(((Text("many "), Hole("${x}")), (Text("one"),))))
    assert display(second.template) == "bad ${x} at ${n}: many ${x}"
    pattern = build(second.template)
    assert refusal(pattern, browser=True) is None
    assert python_regex(pattern).search("bad a at 2: many b")
    assert python_regex(pattern).search("bad a at 1: one")


def test_error_subclass_messages_are_sites_where_they_are_written() -> None:
    found = _find('''
        export class ApiError extends Error {
          constructor(readonly status: number, op?: string) {
            super(`API failed (HTTP ${status})${op ? ` during ${op}` : ""}.`);
          }
        }
        class Plain extends Base { constructor() { super("not an error class"); } }
        ''')
    (site,) = found.sites
    assert (site.line, site.error_class, site.function) == (4, "ApiError", "ApiError.constructor")
    assert site.template == (Text("API failed (HTTP "), Hole("${status}", "float"), Text(")"),
                             Choice(((Text(" during "), Hole("${op}")), ())), Text("."))


def test_log_calls_console_pino_and_printf_arguments() -> None:
    found = _find('''
        const log = pino();
        console.error("failed to load %s (%d)", name, code);
        logger.error({ err }, "request failed");
        this.logger.warn(`slow ${ms}ms`);
        console.info("kept only when asked");
        console.error(err);
        console.error("100% sure");
        api.error("not a logger name");
        ''', "src/a.js")
    by_line = {s.line: s for s in found.sites}
    assert sorted(by_line) == [3, 4, 5, 8]
    assert by_line[3].template == (Text("failed to load "), Hole("%s"), Text(" ("), Hole("%d", "float"), Text(")"))
    assert (by_line[3].level, by_line[3].error_class, by_line[3].language) == ("error", "console", "javascript")
    assert by_line[4].template == (Text("request failed"),)
    assert (by_line[5].level, by_line[5].error_class) == ("warn", "this.logger")
    assert by_line[8].template == (Text("100% sure"),)  # no arguments: nothing is formatted
    appended = _find('console.warn("failed:", err.message, code); log.warn("no append", x);')
    assert [s.template for s in appended.sites] == [
        (Text("failed: "), Hole("${err.message}"), Text(" "), Hole("${code}")), (Text("no append"),)]
    every = _find('console.info("a"); log.debug("b"); console.log("c");', levels=frozenset(LEVELS))
    assert [s.level for s in every.sites] == ["info", "debug", "log"]


def test_loggers_the_file_makes_and_errors_not_thrown_where_built() -> None:
    found = _find('''
        const audit = pino({ name: "audit" });
        this.out = parent.child({ part: "x" });
        audit.error("denied");
        this.out.warn("careful");
        function load(cb) {
          if (!ok) return Promise.reject(new TypeError(`cannot load ${name}`));
          cb(new Error("callback error"));
          const e = new Map();
          throw new Error("thrown");
        }
        ''')
    assert [(s.line, s.kind, s.error_class) for s in found.sites] == [
        (4, "log", "audit"), (5, "log", "this.out"), (7, "return-error", "TypeError"),
        (8, "return-error", "Error"), (10, "throw", "Error")]
    assert found.sites[2].guards == ("!ok",) and found.sites[2].function == "load"


def test_constants_locals_i18n_and_skips() -> None:
    found = _find('''
        export const PREFIX = "Storage error";
        const run = async (n) => {
          let detail = "disk full";
          if (n && ready) { throw new Error(PREFIX + ": " + detail + ` at ${n}`); }
          throw new Error(t("translated message"));
        };
        function f(e) { throw new Error(MISSING); }
        function g(e) { throw new Error(e.message); }
        const h = (msg) => { throw new Error(msg); };
        ''')
    assert found.sites[0].template == (Text("Storage error: disk full at "), Hole("${n}"))
    assert found.sites[0].function == "run" and found.sites[0].guards == ("n && ready",)
    assert found.sites[1].template == (Text("translated message"),)
    assert [(s.line, s.reason) for s in found.skipped] == [
        (8, "unresolved-constant"), (9, "no-literal"), (10, "no-literal")]


def test_guards_of_else_ternaries_and_and() -> None:
    found = _find('''
        function h(a, b) {
          while (a) {
            if (a > 1) { x(); } else if (b) { throw new Error("b"); } else { throw new Error("none"); }
          }
          a && log.error("and-guard");
          const v = b ? fail("x") : log.error("ternary else");
        }
        ''')
    guards = {display(s.template): s.guards for s in found.sites}
    assert guards["b"] == ("a", "!(a > 1)", "b")
    assert guards["none"] == ("a", "!(a > 1)", "!(b)")
    assert guards["and-guard"] == ("a",)
    assert guards["ternary else"] == ("!(b)",)


def test_tsx_and_a_projects_own_sink() -> None:
    found = _find('''
        const C = () => <div>{x}</div>;
        report("fatal: %s", x);
        ''', "src/c.tsx", sinks=(Sink("report", level="fatal"),))
    assert found.parse_error is None
    assert [(s.line, s.level) for s in found.sites] == [(3, "fatal")]


def test_npm_style_titles_and_levels() -> None:
    """proc-log and npmlog write the title, a space, then ``util.format`` of the rest; their own levels count."""
    found = _find('''
        const { log } = require('proc-log')
        log.verbose('cli', process.argv.slice(0, 2).join(' '))
        log.info('using', 'npm@%s', npm.version)
        log.silly('logfile', 'done cleaning log files')
        log.notice('', `name: ${tarball.name}`)
        log.http('fetch', 'GET', res.status, url)
        log.warn('config', { extra: 1 })
        log.notice('Tarball Contents')
        ''', "lib/a.js", levels=frozenset(LEVELS))
    by_line = {s.line: s for s in found.sites}
    assert by_line[3].template == (Text("cli "), Hole("${process.argv.slice(0, 2).join(' ')}"))
    assert by_line[4].template == (Text("using npm@"), Hole("%s"))
    assert (by_line[5].template, by_line[5].level) == ((Text("logfile done cleaning log files"),), "trace")
    assert by_line[6].template == (Text("name: "), Hole("${tarball.name}"))  # an empty title writes nothing
    assert by_line[7].template == (Text("fetch GET "), Hole("${res.status}"), Text(" "), Hole("${url}"))
    assert by_line[8].template == (Text("config"),)  # an object of fields is no message
    assert by_line[9].template == (Text("Tarball Contents"),)
    assert python_regex(build(by_line[4].template)).search("1 info using npm@11.19.1")
    assert [s.line for s in _find("log.silly('x', 'y')", "lib/a.js").sites] == []  # silly: not by default
    plain = _find("const log = pino(); log.warn('kept', x)", "lib/b.js")
    assert [s.template for s in plain.sites] == [(Text("kept"),)]  # no title outside proc-log and npmlog


def test_debug_module_loggers_winston_levels_and_appended_arguments() -> None:
    found = _find('''
        const debug = require('debug')('app:server')
        const createDebug = require("debug")
        const dbg = createDebug('app:db')
        const section = require('util').debuglog('http')
        debug('listening on %s', port)
        dbg(`query took ${ms}ms`, rows)
        section('socket closed')
        logger.log('warn', 'disk %s low', disk)
        console.log(`took ${ms}ms`, extra)
        notALogger('nothing')
        ''', "src/server.js", levels=frozenset(LEVELS))
    by_line = {s.line: s for s in found.sites}
    assert sorted(by_line) == [6, 7, 8, 9, 10]
    assert (by_line[6].template, by_line[6].level) == ((Text("listening on "), Hole("%s")), "debug")
    assert by_line[7].template == (Text("query took "), Hole("${ms}"), Text("ms "), Hole("${rows}"))
    assert by_line[8].template == (Text("socket closed"),)
    assert (by_line[9].template, by_line[9].level) == ((Text("disk "), Hole("%s"), Text(" low")), "warning")
    assert by_line[10].template == (Text("took "), Hole("${ms}"), Text("ms "), Hole("${extra}"))
    imported = _find("import createDebug from 'debug'\nconst d = createDebug('x')\nd('imported %d', n)",
                     "src/m.mjs", levels=frozenset(LEVELS))
    assert [(s.line, s.level) for s in imported.sites] == [(3, "debug")]
    assert _find("debug('not bound to the debug module')", "src/x.js", levels=frozenset(LEVELS)).sites == []
    formatted = _find("console.error(util.format('failed %s after %dms', name, ms, extra))", "src/f.js")
    assert [s.template for s in formatted.sites] == [(Text("failed "), Hole("%s"), Text(" after "), Hole("%d", "float"),
                                                      Text("ms "), Hole("${extra}"))]


def test_reassigned_names_and_function_returns() -> None:
    found = _find('''
        class Publish {
          describe () {
            if (this.files.length) return `log in ${this.files}`
            return 'no log files'
          }
          run (dryRun) {
            let msg = `Publishing to ${registry}`
            if (dryRun) {
              msg = `${msg} (dry-run)`
            }
            console.warn(msg)
            console.error(this.npm.describe())
            console.error(value.toString())
          }
        }
        ''', "lib/p.js")
    by_line = {s.line: s for s in found.sites}
    assert sorted(by_line) == [12, 13]
    published = python_regex(build(by_line[12].template))
    assert published.fullmatch("Publishing to http://r/ (dry-run)") and published.fullmatch("Publishing to r")
    described = python_regex(build(by_line[13].template))
    assert described.fullmatch("log in a.log") and described.fullmatch("no log files")


def test_function_returns_of_other_files_through_the_survey() -> None:
    finder = FINDERS["javascript"]
    assert finder.offers_constants
    facts = finder.survey(b"exitErrorMessage () {}\nfunction exitErrorMessage () { return `see ${this.f}` }")
    assert facts.returns == {"exitErrorMessage": [(Text("see "), Hole("${this.f}"))]}
    found = finder.find(b"console.error(npm.exitErrorMessage())", "b.js", sinks=(), levels=DEFAULT_LEVELS,
                        facts=facts)
    assert [s.template for s in found.sites] == [(Text("see "), Hole("${this.f}"))]
    assert finder.survey(b"const a = 1") == TreeFacts()


def _shared(path: Path) -> Path:
    if not path.exists():
        reason = f"{path} not found: the shared data lives in ../shared next to the checkout"
        if os.environ.get("CI") == "true":
            pytest.fail(reason)
        pytest.skip(reason)
    return path


def _protocol_rows() -> list[tuple[str, str, int]]:
    """C1-C8 of the protocol: id, message, line (the first number of the line column)."""
    rows = []
    for line in _shared(PROTOCOL).read_text(encoding="utf-8").splitlines():
        m = re.match(r"\| (C[1-8]) \| `(.+?)` \| [^|]+ \| ([0-9]+)", line)
        if m:
            rows.append((m[1], m[2].replace("\\|", "|"), int(m[3])))
    return rows


def test_createos_client_every_c1_to_c8_message_at_its_line() -> None:
    source = _shared(CLIENT).read_bytes()
    found = FINDERS["typescript"].find(source, "client.ts", sinks=(), levels=DEFAULT_LEVELS, facts=TreeFacts())
    assert found.parse_error is None
    rows = _protocol_rows()
    assert [r[0] for r in rows] == [f"C{i}" for i in range(1, 9)]
    samples = {"status": "404", "operation": "sandbox lifecycle"}
    by_line = {s.line: s for s in found.sites}
    for name, message, line in rows:
        site = by_line.get(line)
        assert site is not None, f"{name}: no site at line {line}"
        placeholders = re.findall(r"\{([^}]+)\}", message)
        example = re.sub(r"\{([^}]+)\}", lambda m: samples.get(m[1], m[1].split("|")[0]), message)
        matched = python_regex(build(site.template)).fullmatch(example)
        assert matched is not None, f"{name}: {build(site.template)!r} does not match {example!r}"
        captured = [g for g in matched.groups() if g is not None]
        assert len(captured) == len(placeholders), name
        assert captured == [samples.get(p, p.split("|")[0]) for p in placeholders], name
    c1 = by_line[10]
    assert display(c1.template) == "CreateOS request failed (HTTP ${status}) during ${operation}."
    assert python_regex(build(c1.template)).fullmatch("CreateOS request failed (HTTP 500).")
    # the throw at 67 builds C1 without text of its own: its class's constructor writes it (line 10)
    assert found.skipped == []
    assert by_line[126].guards[-1] == '!["creating", "pausing", "resuming"].includes(sandbox.status!)'


def test_an_error_thrown_through_a_helper_is_a_site_at_each_caller() -> None:
    finder = FINDERS["javascript"]
    files = {"src/parser.js": b'''class Parser {
  fail(message, pos) {
    throw new SyntaxError(message);
  }
  error(message) {
    return new ParseError(message, this.pos);
  }
  parse(token) {
    if (!token) {
      this.fail("Unexpected end of input", this.pos);
    }
    throw this.error(`Unexpected token ${token}`);
  }
}
''', "src/use.js": b'''function read(parser) {
  parser.fail("Unterminated string constant");
}
'''}
    facts = TreeFacts()
    for source in files.values():
        facts.add(finder.survey(source))
    found = {path: finder.find(source, path, sinks=(), levels=DEFAULT_LEVELS, facts=facts)
             for path, source in files.items()}
    parser = found["src/parser.js"]
    assert [(s.line, s.template, s.error_class, s.guards) for s in parser.sites] == [
        (10, (Text("Unexpected end of input"),), "SyntaxError", ("!token",)),
        (12, (Text("Unexpected token "), Hole("${token}")), "ParseError", ()),
    ]
    # fail's own throw and the error its maker returns: no text of their own
    assert [(s.line, s.reason) for s in parser.skipped] == [(3, "no-literal"), (6, "no-literal")]
    assert [(s.line, s.template) for s in found["src/use.js"].sites] == [(2, (Text("Unterminated string constant"),))]
