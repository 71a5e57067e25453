"""Matching log lines to records."""

from errdex.match.engine import Match, Matcher
from errdex.match.knowledge import DEFAULT_FIELDS, KnowledgeBase, LineMatch, load

__all__ = ["DEFAULT_FIELDS", "KnowledgeBase", "LineMatch", "Match", "Matcher", "load"]
