"""errdex.spark.batches.match_arrow (Spark's workers and DuckDB's function): each value gets what
``KnowledgeBase.match`` gives it as one line, however the Arrow array is laid out. No Spark needed."""

from __future__ import annotations

import random
from typing import Any

import pyarrow as pa
import pytest

from errdex.match import KnowledgeBase, load
from errdex.match.lines import normalised
from errdex.spark.batches import MATCH_TYPE, MATCHES_TYPE, match_arrow, struct_of
from tests.benchmarks.generate import generate

SSHD = "sshd[7]: error: kex_exchange_identification: Connection closed by remote host"


def _expected(kb: KnowledgeBase, values: list[Any], all_matches: bool) -> list[Any]:
    """The reference: each value matched alone, as ``errdex match`` matches a file of that one line."""
    out: list[Any] = []
    for value in values:
        if value is None:
            out.append(None)
            continue
        data = value if isinstance(value, bytes) else value.encode("utf-8", "surrogatepass")
        found = [struct_of(m, rank) for rank, m in enumerate(kb.match(normalised(data).decode("utf-8")), 1)]
        out.append(found if all_matches else (found[0] if found else None))
    return out


def _tricky() -> list[Any]:
    """Lines of every shape a batch may hold: JSON lines, carriage returns, line breaks inside a value,
    characters past ASCII, nulls and empty values, among lines that match nothing."""
    return [SSHD, "nothing to see", None, "", f"{SSHD}\r", f"héllo {SSHD}", f"noise\n{SSHD}",
            '{"message": "kex_exchange_identification: Connection closed by remote host", "level": "error"}',
            '  \t{"msg": "Connection closed by remote host"}', "a {brace} not at the start", f"{SSHD}\r\r",
            "ünïcode only", None, f"{SSHD} {SSHD}"]


@pytest.fixture(scope="module")
def bundled() -> KnowledgeBase:
    return load()


@pytest.mark.parametrize("all_matches", [True, False])
def test_every_shape_of_value_as_each_line_alone(bundled: KnowledgeBase, all_matches: bool) -> None:
    values = _tricky() * 3
    got = match_arrow(bundled, pa.array(values, pa.string()), all_matches=all_matches)
    assert got.type == (MATCHES_TYPE if all_matches else MATCH_TYPE)
    assert got.to_pylist() == _expected(bundled, values, all_matches)
    assert any(got.to_pylist())


def test_slices_chunks_large_strings_and_binary(bundled: KnowledgeBase) -> None:
    values = _tricky() * 4
    whole = pa.array(values, pa.string())
    expected = _expected(bundled, values, True)
    for start, length in ((0, 7), (3, 20), (17, len(values) - 17), (len(values), 0)):
        assert match_arrow(bundled, whole.slice(start, length)).to_pylist() == expected[start:start + length]
    chunked = pa.chunked_array([whole.slice(0, 10), whole.slice(10)])
    assert match_arrow(bundled, chunked).to_pylist() == expected
    assert match_arrow(bundled, whole.cast(pa.large_string())).to_pylist() == expected
    raw = [b"\xff\xfe " + SSHD.encode(), None, SSHD.encode(), b"\xc3"]
    assert match_arrow(bundled, pa.array(raw, pa.binary())).to_pylist() == _expected(bundled, raw, True)


def test_generated_records_and_many_matches_a_batch() -> None:
    envelopes = generate(300)
    kb = KnowledgeBase([e["record"] for e in envelopes])
    rng = random.Random(5)
    values = [f"2026-11-30T10:00:00Z worker[{i}] ERROR {rng.choice(envelopes)['record']['errorMessage']}"
              if rng.random() < 0.3 else f"INFO step {i} done" for i in range(3000)]
    values[17] = '{"message": "' + envelopes[4]["record"]["errorMessage"] + '"}'
    got = match_arrow(kb, pa.array(values, pa.string())).to_pylist()
    assert got == _expected(kb, values, True)
    assert sum(1 for found in got if found) > 800
