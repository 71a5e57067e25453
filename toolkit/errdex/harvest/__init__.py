"""Harvest: draft records from a codebase's own throw and log sites.

- :mod:`.sites`: what a finder reports (a site and its message template), shared by every language;
- :mod:`.languages`: one module per language that finds sites in a tree-sitter tree;
- :mod:`.formats`: format strings (printf, ``%``, ``str.format``, SLF4J, Go verbs, MessageFormat) to parts;
- :mod:`.pattern`: a message template to a portable ``messagePattern`` and its ``errorMessage``;
- :mod:`.source`: the files of a folder or of a git revision, filtered;
- :mod:`.drafts`: sites to draft records, merged with what a records folder holds;
- :mod:`.run`: :func:`harvest`, the whole job.
"""
