"""A finder for ``.fake`` files, so the harvest job is tested without depending on a real language's finder.

One statement a line: ``fn NAME`` opens a function, ``if COND`` guards the following statements until
``end``, ``throw CLASS "message {hole}"``, ``log LEVEL "message"``, ``const NAME "text"`` (offered to the
tree), ``throw CLASS $NAME`` (a constant), ``bad`` (the file fails to parse), ``broken`` (the finder itself
fails, as a setting its queries cannot hold made every finder fail), ``throw CLASS "{x}"`` (no text).
"""

from __future__ import annotations

import re
import sys
import types
from collections.abc import Sequence

import pytest

from errdex.harvest import languages
from errdex.harvest.languages import FileSites, TreeFacts
from errdex.harvest.sinks import Sink, normal_level
from errdex.harvest.sites import Choice, Hole, Part, Site, Skipped, Text

_STATEMENT = re.compile(r'^\s*(?P<verb>throw|log)\s+(?P<what>\S+)\s+(?:"(?P<text>[^"]*)"|\$(?P<name>\w+))\s*$')
_HOLE = re.compile(r"\{(\w+)\}|\[(\w+)\]")


def _template(text: str) -> tuple[Part, ...]:
    parts: list[Part] = []
    last = 0
    for found in _HOLE.finditer(text):
        if found.start() > last:
            parts.append(Text(text[last : found.start()]))
        if found.group(1):
            parts.append(Hole("{" + found.group(1) + "}"))
        else:
            parts.append(Choice(((Text(" during "), Hole("${" + found.group(2) + "}")), ())))
        last = found.end()
    if last < len(text):
        parts.append(Text(text[last:]))
    return tuple(parts)


class FakeFinder:
    name = "fake"
    extensions = (".fake",)
    default_sinks = (Sink("log", level="from-arg", level_arg=0),)

    def survey(self, source: bytes) -> TreeFacts:
        found = re.findall(r'^const (\w+) "([^"]*)"$', source.decode(), re.MULTILINE)
        return TreeFacts(constants=dict(found))

    def find(self, source: bytes, path: str, *, sinks: Sequence[Sink], levels: frozenset[str],
             facts: TreeFacts) -> FileSites:
        result = FileSites()
        function: str | None = None
        guards: list[str] = []
        for number, line in enumerate(source.decode().splitlines(), start=1):
            words = line.split(maxsplit=1)
            if not words:
                continue
            if words[0] == "bad":
                return FileSites(parse_error=f"syntax error at line {number}")
            if words[0] == "broken":
                raise RuntimeError(f"the finder broke at line {number}")
            if words[0] == "fn":
                function = words[1].strip()
            elif words[0] == "if":
                guards.append(words[1].strip())
            elif words[0] == "end":
                guards.pop()
            elif (found := _STATEMENT.match(line)) is not None:
                text = found["text"]
                if text is None:
                    text = facts.constants.get(found["name"])
                    if text is None:
                        result.skipped.append(Skipped(path, number, "unresolved-constant", found["name"]))
                        continue
                if found["verb"] == "log":
                    level = normal_level(found["what"])
                    if level not in levels:
                        continue
                    result.sites.append(Site(path, "fake", "log", number, number, _template(text),
                                             level=found["what"], error_class="logger", function=function,
                                             guards=tuple(guards)))
                else:
                    result.sites.append(Site(path, "fake", "throw", number, number, _template(text),
                                             error_class=found["what"], function=function, guards=tuple(guards)))
        return result


def install(monkeypatch: pytest.MonkeyPatch) -> None:
    """Register the fake finder for ``.fake`` files."""
    module = types.ModuleType("errdex.harvest.languages.fake")
    module.FINDER = FakeFinder()  # type: ignore[attr-defined]  # a module made at run time
    monkeypatch.setitem(sys.modules, "errdex.harvest.languages.fake", module)
    monkeypatch.setitem(languages.LANGUAGE_MODULES, "fake", "fake")
    monkeypatch.setitem(languages._BY_EXTENSION, ".fake", "fake")
