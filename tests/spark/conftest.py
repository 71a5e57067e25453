"""One local Spark session (``local[2]``, bound to 127.0.0.1) for every Spark test of a run."""

from __future__ import annotations

import importlib.util
import os
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

#: The checkout: Spark's Python workers are new processes, and some tests ship functions of ``tests`` to them.
ROOT = Path(__file__).resolve().parents[2]


def _missing() -> str | None:
    if importlib.util.find_spec("pyspark") is None:
        return "PySpark is not installed (pip install 'errdex[spark]')"
    if shutil.which("java") is None and not os.environ.get("JAVA_HOME"):
        return "no Java runtime (apt-get install openjdk-17-jre-headless; .ci/setup does it)"
    return None


def require_spark() -> None:
    """A skip with the reason when PySpark or Java is missing (a failure under CI=true)."""
    reason = _missing()
    if reason is not None:
        if os.environ.get("CI") == "true":
            pytest.fail(reason)
        pytest.skip(reason)


@pytest.fixture(scope="session")
def spark() -> Iterator[Any]:
    require_spark()
    from errdex.spark import local_session  # here: PySpark may be missing (the skip above says so)

    paths = [str(ROOT), *filter(None, os.environ.get("PYTHONPATH", "").split(os.pathsep))]
    os.environ["PYTHONPATH"] = os.pathsep.join(dict.fromkeys(paths))  # the workers import tests.* too
    session = local_session("local[2]", app_name="errdex-tests")
    yield session
    session.stop()
