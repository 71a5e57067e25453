"""errdex's matcher on Apache Spark (``pip install 'errdex[spark]'``).

:func:`match` adds the matches of a DataFrame's log lines; :func:`match_files`
matches files into Parquet (what ``errdex spark-match`` runs);
:func:`local_session` starts a local Spark bound to 127.0.0.1. PySpark is
imported only when one of them is first used, so importing this package
costs nothing without it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from errdex._lazy import lazy_names

if TYPE_CHECKING:
    from errdex.spark.files import local_session, match_files
    from errdex.spark.frames import MATCH_SCHEMA, match

__all__ = ["MATCH_SCHEMA", "local_session", "match", "match_files"]

__getattr__ = lazy_names(__name__, {"MATCH_SCHEMA": "errdex.spark.frames", "match": "errdex.spark.frames",
                                    "local_session": "errdex.spark.files", "match_files": "errdex.spark.files"},
                         globals())
