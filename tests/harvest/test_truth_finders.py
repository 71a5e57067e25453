"""The Java and C finders on real code: each truth statement of ZooKeeper and OpenSSH is a site whose template
matches the real log line.

For every Loghub line the truth files trace to a statement (``../shared/data/truth/``), there must be a site
in that file, starting at that line (ZooKeeper: the line log4j printed) or inside that span (OpenSSH), whose
template matches the message part of the line. The template is checked by itself (literal text in order,
a hole any text, a choice one of its options), so this measures the finders, not the pattern builder or the
matcher. OpenSSH lines are also tried with sshd's wrappers taken off ("error: ", "fatal: ", "Disconnecting: "
before the text; " [preauth]" after it): that is how they are counted.

    PYTHONPATH=toolkit:. .venv/bin/python -m tests.harvest.test_truth_finders
"""

from __future__ import annotations

import io
import re
import subprocess
import sys
import tarfile
import tomllib
from collections import Counter
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

from errdex.harvest.languages import FileSites, TreeFacts, finder_for
from errdex.harvest.sinks import Sink, normal_level, parse_levels
from errdex.harvest.sites import Hole, Part, Site, Text
from tests.harvest.truth import ROOT, Expected, openssh_expected, shared_data, zookeeper_expected

#: Floors a little under the rates measured (ZooKeeper 1989/2000: 11 lines log a parameter with no literal
#: text; OpenSSH 1350/1350 with the wrappers taken off).
ZOOKEEPER_FLOOR = 0.99
OPENSSH_FLOOR = 0.99
_WRAPPERS = (("", ""), ("", " [preauth]"), ("error: ", ""), ("error: ", " [preauth]"), ("fatal: ", ""),
             ("fatal: ", " [preauth]"), ("Disconnecting: ", ""), ("Disconnecting: ", " [preauth]"))
#: log4j's layout: date time - LEVEL [thread:Class@line] - message (a thread name may hold "]")
_ZOOKEEPER_LINE = re.compile(r"^\S+ \S+ - \S+\s+\[.*?@[0-9]+\] - (.*)$")
_OPENSSH_LINE = re.compile(r"^\w{3} +\d+ [\d:]+ \S+ sshd\[\d+\]: (.*)$")


def _regex(template: tuple[Part, ...]) -> str:
    out = []
    for part in template:
        if isinstance(part, Text):
            out.append(re.escape(part.text))
        elif isinstance(part, Hole):
            out.append("(?:.*?)")
        else:
            out.append("(?:" + "|".join(_regex(option) for option in part.options) + ")")
    return "".join(out)


def template_matches(site: Site, message: str) -> bool:
    return re.fullmatch(_regex(site.template), message, re.DOTALL) is not None


@dataclass
class Coverage:
    covered: int = 0
    total: int = 0
    unwrapped: Counter[str] = field(default_factory=Counter)
    misses: list[tuple[Expected, str]] = field(default_factory=list)

    @property
    def rate(self) -> float:
        return self.covered / self.total if self.total else 0.0

    def summary(self) -> str:
        lines = [f"{self.covered} of {self.total} truth lines have a matching site ({self.rate:.2%})"]
        lines += [f"  matched inside {wrapper!r}: {n} lines" for wrapper, n in sorted(self.unwrapped.items())]
        for expected, why in self.misses[:20]:
            lines.append(f"  miss line {expected.number}: {why}; {expected.line[:120]}")
        return "\n".join(lines)


def _tree(repo: Path, rev: str, suffixes: tuple[str, ...]) -> dict[str, bytes]:
    """The files of ``repo`` at ``rev`` ending with one of ``suffixes``, read from ``git archive``."""
    archive = subprocess.run(["git", "-c", "safe.directory=*", "-C", str(repo), "archive", rev],
                             check=True, capture_output=True).stdout
    files = {}
    with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
        for member in tar.getmembers():
            handle = tar.extractfile(member) if member.isfile() and member.name.endswith(suffixes) else None
            if handle is not None:
                files[member.name] = handle.read()
    return files


def _harvest(files: dict[str, bytes], sinks: tuple[Sink, ...] | None, constant_files: tuple[str, ...]
             ) -> dict[str, FileSites]:
    any_path = next(iter(files))
    finder = finder_for(any_path)
    assert finder is not None
    facts = TreeFacts()
    for path in sorted(files):
        if path.endswith(constant_files):
            facts.add(finder.survey(files[path]))
    chosen = finder.default_sinks if sinks is None else sinks
    return {path: finder.find(source, path, sinks=chosen, levels=parse_levels("all"), facts=facts)
            for path, source in sorted(files.items())}


def sshd_sinks() -> tuple[Sink, ...]:
    """The C default sinks and those of ``examples/harvest/openssh-sshd.toml``."""
    finder = finder_for("x.c")
    assert finder is not None
    config = tomllib.loads((ROOT / "examples" / "harvest" / "openssh-sshd.toml").read_text(encoding="utf-8"))
    own = tuple(Sink(item["name"], item.get("format-arg", 0),
                     None if item["level"] == "from-arg" else normal_level(item["level"]),
                     item.get("style", "printf"), item.get("level-arg"))
                for item in config["tool"]["errdex"]["harvest"]["sinks"])
    return finder.default_sinks + own


@cache
def zookeeper_coverage() -> Coverage:
    data = shared_data()
    files = _tree(data / "repos" / "zookeeper.git", "release-3.4.5", (".java",))
    sites = _harvest({p: s for p, s in files.items() if p.startswith("src/java/main/")}, None, (".java",))
    result = Coverage()
    for expected in zookeeper_expected(data):
        result.total += 1
        path, line, _ = expected.spans[0]
        found = _ZOOKEEPER_LINE.match(expected.line)
        message = found.group(1) if found else expected.line
        candidates = [s for s in sites[path].sites if s.line == line]
        if any(template_matches(site, message) for site in candidates):
            result.covered += 1
        else:
            skipped = [s.reason for s in sites[path].skipped if s.line == line]
            result.misses.append((expected, f"skipped ({skipped[0]})" if skipped else
                                  f"{len(candidates)} site(s) at {path}:{line}, none matches"))
    return result


@cache
def openssh_coverage(configured: bool = True) -> Coverage:
    """With the committed sshd sinks, or (``configured=False``) with the C defaults only, where the finder
    takes sshd's own printf-like functions from their declarations."""
    data = shared_data()
    files = _tree(data / "repos" / "openssh-portable.git", "V_6_6_P1", (".c", ".h"))
    sites = _harvest(files, sshd_sinks() if configured else None, (".h", ".c"))
    result = Coverage()
    for expected in openssh_expected(data):
        result.total += 1
        found = _OPENSSH_LINE.match(expected.line)
        message = found.group(1) if found else expected.line
        candidates = [s for path, first, last in expected.spans for s in sites[path].sites
                      if first <= s.line <= last]
        for before, after in _WRAPPERS:
            if not (message.startswith(before) and message.endswith(after)):
                continue
            inner = message[len(before):len(message) - len(after)]
            if any(template_matches(site, inner) for site in candidates):
                result.covered += 1
                if before or after:
                    result.unwrapped[f"{before}...{after}"] += 1
                break
        else:
            result.misses.append((expected, f"{len(candidates)} site(s) in the span, none matches"))
    return result


def test_zookeeper_log_calls_are_sites_whose_template_matches_their_lines() -> None:
    result = zookeeper_coverage()
    assert result.total == 2000
    assert result.rate >= ZOOKEEPER_FLOOR, result.summary()


def test_the_zookeeper_misses_are_only_messages_without_literal_text() -> None:
    result = zookeeper_coverage()
    assert all(why == "skipped (no-literal)" for _, why in result.misses), result.summary()


def test_openssh_log_calls_are_sites_whose_template_matches_their_lines() -> None:
    result = openssh_coverage()
    assert result.total == 1350
    assert result.rate >= OPENSSH_FLOOR, result.summary()


def test_openssh_without_a_sink_config_finds_sshds_own_log_functions() -> None:
    result = openssh_coverage(configured=False)
    assert result.rate >= OPENSSH_FLOOR, result.summary()


def test_openssh_lines_that_need_sshd_wrappers_taken_off_are_only_the_known_ones() -> None:
    result = openssh_coverage()
    # " [preauth]" after a final %s is part of what the %s matched, so those lines need no unwrapping here
    assert set(result.unwrapped) <= {"error: ...", "fatal: ...", "Disconnecting: ...",
                                     "error: ... [preauth]", "fatal: ... [preauth]",
                                     "Disconnecting: ... [preauth]", "... [preauth]"}, result.summary()


if __name__ == "__main__":
    print(f"zookeeper: {zookeeper_coverage().summary()}")
    print(f"openssh (examples/harvest/openssh-sshd.toml): {openssh_coverage().summary()}")
    print(f"openssh (default sinks only): {openssh_coverage(configured=False).summary()}")
    sys.exit(0)
