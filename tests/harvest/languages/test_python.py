"""The Python finder: raise and log sites, their messages, enclosing functions and guards."""

from __future__ import annotations

import textwrap

import tree_sitter
import tree_sitter_python

from errdex.harvest.languages import FileSites, TreeFacts, finder_for
from errdex.harvest.languages._pymessages import MAX_CHOICES, MAX_NESTING, Messages
from errdex.harvest.languages.python import FINDER
from errdex.harvest.pattern import build, display
from errdex.harvest.sinks import DEFAULT_LEVELS, LEVELS, Sink
from errdex.harvest.sites import Choice, Hole, Text
from errdex.harvest.source import skip_reason
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


ALL = frozenset(LEVELS)


def test_a_name_assigned_in_branches_is_a_choice_of_its_values() -> None:
    found = _find('''
        def prepare(link, cached):
            if link.is_file and not cached:
                message = "Processing %s"
            else:
                message = "Collecting %s"
            logger.info(message, link)
            note = None
            if cached:
                note = f"cached {link!r}"
            logger.info("%s: %r", note, link)
        ''', levels=ALL)
    first, second = found.sites
    assert first.template == (Choice(((Text("Processing "), Hole("%s")), (Text("Collecting "), Hole("%s")))),)
    assert python_regex(build(first.template)).fullmatch("Collecting pip==1.0")
    assert second.template == (Text("cached "), Hole("{link!r}"), Text(": "), Hole("%r"))


def test_an_assignment_that_always_runs_hides_the_earlier_ones() -> None:
    found = _find('''
        def run(x):
            message = "first %s"
            message = "second %s"
            logger.warning(message, x)
        ''')
    assert found.sites[0].template == (Text("second "), Hole("%s"))


def test_join_of_a_list_literal_and_more_items() -> None:
    found = _find('''
        def show(project, locations):
            lines = [f"{len(locations)} location(s) to search for versions of {project}:"] + locations
            logger.debug("\\n".join(lines))
            logger.debug(", ".join(["a", "b"]))
        ''', levels=ALL)
    first, second = found.sites
    pattern = python_regex(build(first.template))
    assert pattern.fullmatch("0 location(s) to search for versions of pip:")
    assert pattern.search("1 location(s) to search for versions of pip:\n* https://x")
    assert second.template == (Text("a, b"),)


def test_a_name_bound_to_a_logger_method_is_a_sink_at_its_level() -> None:
    found = _find('''
        def handle(link, reason, meth=None):
            if meth is None:
                meth = logger.debug
            meth("Could not fetch URL %s: %s - skipping", link, reason)
        ''', levels=ALL)
    (site,) = found.sites
    assert (site.level, site.line) == ("debug", 5)
    assert site.template[0] == Text("Could not fetch URL ")


def test_raise_with_the_instance_first_reads_the_message_after_it() -> None:
    (site,) = _find('''
        def get(self):
            raise ClosedPoolError(self, "Pool is closed.")
        ''').sites
    assert site.template == (Text("Pool is closed."),)


def test_module_wrappers_of_a_logger_are_sinks_for_the_whole_tree() -> None:
    offered = FINDER.survey(textwrap.dedent('''
        def write_output(msg: Any, *args: Any) -> None:
            # a comment
            logger.info(msg, *args)

        def not_a_wrapper(msg, *args):
            print(msg, *args)
        ''').encode())
    assert list(offered.sinks) == ["write_output"]
    found = FINDER.find(b'write_output("Successfully installed %s", names)\n', "pkg/cmd.py", sinks=(),
                        levels=DEFAULT_LEVELS | {"info"}, facts=offered)
    (site,) = found.sites
    assert (site.level, site.template) == ("info", (Text("Successfully installed "), Hole("%s")))


def test_punctuation_enough_is_a_message() -> None:
    (site,) = _find('''
        def sent(self, method, url, status):
            log.debug('%s://%s:%s "%s %s %s" %s %s', self.scheme, self.host, self.port, method, url, 1, status, 0)
            log.debug("%s: %s", method, url)
        ''', levels=ALL).sites
    assert python_regex(build(site.template)).fullmatch('http://127.0.0.1:80 "GET / HTTP/1.1" 200 397')


def test_a_nested_build_package_of_python_files_is_source() -> None:
    assert skip_reason("pip/_internal/operations/build/build_tracker.py") is None
    assert skip_reason("build/lib/pkg/mod.py") == "build"
    assert skip_reason("packages/app/dist/index.js") == "build"


def test_a_message_of_several_lines_is_found_by_its_first_line() -> None:
    found = _find('''
        def f(x, h):
            logger.error("first line %s\\nsecond %s", x, x)
            logger.error("""Something failed.
                Details: %s""", x)
            logger.error("%s:\\n--hash=%s", x, h)
            logger.error("done\\n")
        ''')
    first, second, third, fourth = (s.template for s in found.sites)
    assert first == (Text("first line "), Hole("%s"))
    assert second == (Text("Something failed."),)
    assert third == (Hole("%s"), Text(":\n--hash="), Hole("%s"))  # its first line has no text of its own
    assert fourth == (Text("done\n"),)


def test_a_class_constant_named_through_self_cls_or_the_class() -> None:
    found = _find('''
        class Pool:
            CLOSED = "Pool %s is closed"
            def get(self, name):
                logger.warning(self.CLOSED, name)
                logger.warning(Pool.CLOSED, name)
                logger.warning(self.other.CLOSED_TOO, name)
        ''')
    assert [s.template for s in found.sites] == [(Text("Pool "), Hole("%s"), Text(" is closed"))] * 2


_RETURNS = '''
    import logging
    logger = logging.getLogger(__name__)

    def summary(installed):
        if not installed:
            return ""
        return f"Successfully installed {' '.join(installed)}"

    class Scope:
        def locations(self):
            lines = []
            if self.indexes:
                lines.append("Looking in indexes: {}".format(", ".join(self.indexes)))
            if self.links:
                lines.append("Looking in links: {}".format(", ".join(self.links)))
            return "\\n".join(lines)

        def describe(self):
            return "scope of %d" % self.n

    def run(scope, x):
        found = scope.locations()
        if found:
            logger.info(found)
        if text := summary(x):
            logger.info(text)
        logger.debug(scope.describe())
        logger.warning(elsewhere())
        logger.warning(ambiguous())
    '''


def test_a_message_a_function_returns_is_the_log_calls_own() -> None:
    source = textwrap.dedent(_RETURNS).encode()
    facts = FINDER.survey(source)
    assert sorted(facts.returns) == ["describe", "locations", "summary"]
    facts.add(TreeFacts(returns={"elsewhere": [(Text("from another file"),)], "ambiguous": [(Text("one"),)]}))
    facts.add(TreeFacts(returns={"ambiguous": [(Text("two"),)]}))  # two functions of that name disagree
    found = FINDER.find(source, "pkg/mod.py", sinks=(), levels=frozenset(LEVELS), facts=facts)
    by_line = {site.line: site.template for site in found.sites}
    rest = Choice(((Text("\n"), Hole("{lines}")), ()))
    assert by_line[25] == (Choice(((Text("Looking in indexes: "), Hole("{}")),
                                   (Text("Looking in links: "), Hole("{}")))), rest)
    assert by_line[27] == (Text("Successfully installed "), Hole("{' '.join(installed)}"))
    assert by_line[28] == (Text("scope of "), Hole("%d", "int"))
    assert by_line[29] == (Text("from another file"),)
    assert 30 not in by_line
    pattern = python_regex(build(by_line[25]))
    assert pattern.search("Looking in links: /tmp/wheels") and pattern.search("Looking in indexes: http://x/")


def test_a_method_that_takes_the_level_and_the_message_is_a_sink_for_the_tree() -> None:
    source = textwrap.dedent('''
        import logging
        from logging import DEBUG, INFO

        class Transport:
            def _log(self, level, msg, *args):
                if isinstance(msg, list):
                    for m in msg:
                        self.logger.log(level, m)
                else:
                    self.logger.log(level, msg, *args)

            def run(self, parsed):
                self._log(INFO, "Connected (version %s)", parsed.version)
                for prefix, value in (("kex algos", parsed.kex), ("server key", parsed.keys)):
                    self._log(DEBUG, "{}: {}".format(prefix, ", ".join(value)))

        class Client:
            def _log(self, level, msg):
                self._transport._log(level, msg)
        ''').encode()
    facts = FINDER.survey(source)
    assert facts.sinks["_log"] == Sink("_log", format_arg=1, level=None, level_arg=0, style="python-percent")
    found = FINDER.find(source, "pkg/transport.py", sinks=(), levels=frozenset(LEVELS), facts=facts)
    assert [(s.line, s.level, s.template) for s in found.sites] == [
        (14, "info", (Text("Connected (version "), Hole("%s"), Text(")"))),
        (16, "debug", (Choice(((Text("kex algos"),), (Text("server key"),))), Text(": "),
                       Hole("{}"))),
    ]


def test_a_message_grown_by_plus_equals_and_a_parameter_its_callers_fill() -> None:
    found = _find('''
        class Transport:
            def _log_agreement(self, which, local, remote):
                msg = "{}: ".format(which)
                if local == remote:
                    msg += local
                else:
                    msg += "local={}, remote={}".format(local, remote)
                logger.debug(msg)

            def agree(self, keys, ciphers):
                self._log_agreement("HostKey", keys[0], keys[0])
                self._log_agreement("Cipher", ciphers[0], ciphers[1])
        ''', levels=frozenset(LEVELS))
    (site,) = found.sites
    assert site.template == (Choice(((Text("HostKey"),), (Text("Cipher"),))), Text(": "),
                             Choice(((Hole("{local}"),), (Text("local="), Hole("{}"), Text(", remote="), Hole("{}")))))
    pattern = python_regex(build(site.template))
    assert pattern.search("HostKey: rsa-sha2-512") and pattern.search("Cipher: local=aes128-ctr, remote=aes256-ctr")


def test_a_parameter_its_callers_fill_with_a_name_and_a_list_grown_before_its_join() -> None:
    found = _find('''
        class Loop:
            def _log_subprocess(self, msg, stdin):
                info = [msg]
                if stdin is not None:
                    info.append(f"stdin={stdin}")
                logger.debug(" ".join(info))

            def subprocess_exec(self, program, stdin):
                debug_log = f"execute program {program!r}"
                self._log_subprocess(debug_log, stdin)
        ''', levels=frozenset(LEVELS))
    (site,) = found.sites
    assert site.template == (Text("execute program "), Hole("{program!r}"),
                             Choice(((Text(" "), Hole("{info}")), ())))


def _pathological(branches: int, chain: int, forwards: int) -> str:
    """A file of the shapes that once made the finder super-linear (node-gyp's ``input.py``: a parameter
    each caller passes on from its own parameter, read once per path through the callers) or overflow the
    stack (its ``MSVSUtil.py``): many branches assigning one name, a long chain of names each built from the
    one before, a value that holds itself, and ``forwards`` functions each calling the next four times."""
    lines = ["def build(kind, name):", '    msg = "start"']
    for number in range(branches):
        lines += [f"    if kind == {number}:", f'        msg = msg + " branch {number}"',
                  f'        msg += " more {number}"']
    lines.append('    step0 = "chain"')
    lines += [f'    step{n + 1} = step{n} + " link {n}" + step{n}' for n in range(chain)]
    lines += ['    parts = "{} for {!r}".format(parts, name)', '    parts = "#".join(parts)',
              '    logging.error(msg)', f"    logging.error(step{chain})", "    logging.error(parts)"]
    for number in range(forwards):
        lines += [f"def forward{number}(text):"] + [f"    forward{number + 1}(text)"] * 4
    lines += [f"def forward{forwards}(text):", "    raise ValueError(text)", 'forward0("from the top")']
    return "\n".join(lines) + "\n"


def _first_argument(call: tree_sitter.Node) -> tree_sitter.Node:
    arguments = call.child_by_field_name("arguments")
    assert arguments is not None
    return arguments.named_children[0]


def test_pathological_names_are_read_in_bounded_operations_and_choices() -> None:
    source = _pathological(branches=60, chain=300, forwards=6).encode()
    root = tree_sitter.Parser(tree_sitter.Language(tree_sitter_python.language())).parse(source).root_node
    messages = Messages(root, {})
    body = root.children[0].child_by_field_name("body")
    assert body is not None
    calls = [s.named_children[0] for s in body.named_children[-3:]]  # the three logging.error(...)
    last = root.children[-2].child_by_field_name("body")
    assert last is not None
    calls.append(last.named_children[0].named_children[0])  # forward6's ``raise ValueError(text)``
    uses = [_first_argument(call) for call in calls]
    templates = [messages.message(use) for use in uses]
    assert templates[-1] == (Text("from the top"),)
    statements = sum(1 for line in source.splitlines() if line.strip())
    # linear in the function's size: every expression is read a bounded number of times, not once per path
    assert messages.operations <= 20 * statements, (messages.operations, statements)

    def widest(template: tuple[object, ...], nested: int = 0) -> int:
        assert nested <= MAX_NESTING
        return max([len(p.options) for p in template if isinstance(p, Choice)]
                   + [widest(o, nested + 1) for p in template if isinstance(p, Choice) for o in p.options] + [0])

    assert all(widest(t) <= MAX_CHOICES for t in templates)
    # the whole file through the finder: no RecursionError, every log call listed (a site or a skip)
    found = FINDER.find(source, "gen.py", sinks=(), levels=DEFAULT_LEVELS, facts=FINDER.survey(source))
    assert found.parse_error is None
    # the three logs, forward6's raise (of its parameter: no text of its own) and the call that passes the text
    assert len(found.sites) + len(found.skipped) == 5
    assert found.sites[-1].template == (Text("from the top"),)
    assert found.sites[-1].line == source.count(b"\n")  # the call on the last line, through six raisers


def _tree(files: dict[str, str]) -> dict[str, FileSites]:
    """Each file's sites, with what the first pass learns from all of them (as a harvest merges it)."""
    facts = TreeFacts()
    sources = {path: textwrap.dedent(text).encode() for path, text in files.items()}
    for source in sources.values():
        facts.add(FINDER.survey(source))
    return {path: FINDER.find(source, path, sinks=(), levels=DEFAULT_LEVELS, facts=facts)
            for path, source in sources.items()}


def test_an_exception_raised_through_a_helper_is_a_site_at_each_caller() -> None:
    found = _tree({"pkg/parser.py": '''
        class Parser:
            def fail(self, msg, lineno=None, exc=TemplateSyntaxError):
                raise exc(msg, lineno, self.name)

            def fail_eof(self, msg, lineno):
                self.fail(msg, lineno)

            def _error(self, message):
                return ParseError(message, self.line)

            def parse(self, token):
                if token is None:
                    self.fail("tag name expected", token.lineno)
                self.fail(f"unexpected {token!r}", exc=TemplateAssertionError)
                self.fail_eof("unclosed block", 3)
                raise self._error("bad token")
        ''', "pkg/ext.py": '''
        def parse(parser, lineno):
            parser.fail("pluralize without variables", lineno)


        def prefixed(msg):
            msg = f"ext: {msg}"  # what it raises is not what its callers pass: not a helper
            raise ValueError(msg)


        prefixed("unknown option")
        '''})
    parser = found["pkg/parser.py"]
    assert [(s.line, s.template, s.error_class) for s in parser.sites] == [
        (14, (Text("tag name expected"),), "TemplateSyntaxError"),
        (15, (Text("unexpected "), Hole("{token!r}")), "TemplateAssertionError"),
        (16, (Text("unclosed block"),), "TemplateSyntaxError"),
        (17, (Text("bad token"),), "ParseError"),
    ]
    assert [(s.line, s.reason) for s in parser.skipped] == [(4, "no-literal")]  # fail's own raise: no text
    assert [(s.line, s.template) for s in found["pkg/ext.py"].sites] == [
        (3, (Text("pluralize without variables"),)), (8, (Text("ext: "), Hole("{msg}")))]


def test_a_message_built_by_the_exception_or_its_owner() -> None:
    found = _tree({"pkg/exc.py": '''
        class MissingError(Exception):  # a file of exception classes only: no raise, no return
            def __init__(self, name):
                super().__init__(f"{name!r} is missing")
        ''', "pkg/errors.py": '''
        class Undefined:
            @property
            def _undefined_message(self):
                if self._hint:
                    return self._hint
                if self._obj is None:
                    return f"{self._name!r} is undefined"
                return f"{type(self._obj).__name__!r} has no attribute {self._name!r}"

            def _fail(self):
                raise self._exception(self._undefined_message)


        class Failure:
            def __init__(self, message, cls=SyntaxError):
                self.message = message
                self.error_class = cls

            def __call__(self, lineno):
                raise self.error_class(self.message, lineno)


        RULES = [Failure("Missing end of comment tag"), Failure("Missing end of raw directive")]
        ''', "pkg/use.py": '''
        def load(name):
            raise MissingError(name)
        '''})
    errors = found["pkg/errors.py"]
    assert [(s.line, s.template) for s in errors.sites] == [
        (12, (Choice(((Hole("{self._name!r}"), Text(" is undefined")),
                      (Hole("{type(self._obj).__name__!r}"), Text(" has no attribute "), Hole("{self._name!r}")))),)),
        (21, (Choice(((Text("Missing end of comment tag"),), (Text("Missing end of raw directive"),))),)),
    ]
    assert [(s.line, s.template) for s in found["pkg/use.py"].sites] == [
        (3, (Hole("{name!r}"), Text(" is missing")))]
