"""The DuckDB index of a dataset: records and their lists in documented tables.

Tables (one row per record unless said otherwise):

- ``records``: every scalar field of a record in snake_case (``id``,
  ``slug``, ``repo``, ``error_message``, ``message_pattern``, ``error_class``,
  ``severity``, ``http_status``, ``file_path``, ``line_number``, ...), plus
  ``dataset_version``, ``source_path`` (the file it was read from),
  ``pattern_re2`` (the pattern as RE2/DuckDB runs it), ``literal_chars`` and
  ``variable_parts`` (the ranking keys: more literal characters first, then
  fewer variable parts), ``placement`` (the expression of a line naming the
  record's file and line, which breaks a tie for first place:
  :func:`errdex.records.placement.placement_pattern`).
- ``solutions`` and ``prevention_tips``: ``record_id``, ``position`` (1-based), ``text``.
- ``tags``: ``record_id``, ``position``, ``tag``.
- ``scenarios``: ``record_id``, ``position``, ``scenario_id``, ``summary``,
  ``operation``, ``outcome``, ``error_class``, ``definition`` (the scenario as JSON).
- ``metadata``: ``key``, ``value`` with ``dataset_version``, ``content_hash``,
  ``errdex_version``, ``index_format``, ``built_at`` and ``record_count``.

The database is written to a temporary file next to its target and renamed,
so a crash never leaves a broken index. ``ensure_index`` rebuilds it only
when the records' content hash, errdex's version or the index format changed.
"""


from errdex.index.building import (
    IndexInfo,
    build_index,
    dataset_fingerprint,
    default_index_path,
    ensure_index,
)
from errdex.index.querying import (
    QUERY_MEMORY_BYTES,
    QUERY_ROW_LIMIT,
    QUERY_TIMEOUT_S,
    QueryResult,
    query,
)
from errdex.index.tables import INDEX_FORMAT, SQL_MAX_GROUPS

__all__ = [
    "INDEX_FORMAT",
    "QUERY_MEMORY_BYTES",
    "QUERY_ROW_LIMIT",
    "QUERY_TIMEOUT_S",
    "SQL_MAX_GROUPS",
    "IndexInfo",
    "QueryResult",
    "build_index",
    "dataset_fingerprint",
    "default_index_path",
    "ensure_index",
    "query",
]
