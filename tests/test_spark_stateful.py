"""The bundled ``spark-stateful`` candidate (Structured Streaming, ``transformWithStateInPandas``) agrees
with the oracle, exactly, on every claimed case of the specification's scenario files and Kafka's own table
join tests; ``nox -s stateful`` runs it over the whole catalogue, golden traces included.

It runs in its own xdist group: a streaming query per join kind, one micro-batch per processing step.
"""

from __future__ import annotations

from collections import Counter
from typing import TYPE_CHECKING

import pytest

from kjoin.conformance.catalogue import load_cases
from kjoin.conformance.harness.outcomes import HarnessRun
from kjoin.conformance.harness.text import render_outcome
from kjoin.conformance.protocol import load_candidate
from kjoin.scenarios import CATALOGUE_ROOT

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

pytestmark = pytest.mark.xdist_group("spark-stateful")

SPECIFICATION = [
    "stream_stream",
    "stream_table",
    "table_table",
    "kafka_tests/stream-table.jsonl",
    "kafka_tests/table-table.jsonl",
]
"""What the test runs: the edge cases that state one rule each, and Kafka's own table join tests (its
stream-stream tests, up to 92 records long, cost a micro-batch per record: ``nox -s stateful`` runs them
with the rest of the catalogue)."""


def test_spark_stateful_agrees_with_the_oracle_on_every_claimed_case(spark: SparkSession) -> None:
    loaded = load_cases([CATALOGUE_ROOT / folder for folder in SPECIFICATION])
    assert loaded.errors == ()
    harness = HarnessRun(load_candidate("spark-stateful"), lambda: spark)
    outcomes = harness.outcomes(loaded.cases)
    failing = [outcome for outcome in outcomes if outcome.failing]
    shown = "\n\n".join(render_outcome(outcome) for outcome in failing[:5])
    assert not failing, f"{len(failing)} failing cases:\n\n{shown}"
    passed = Counter(outcome.case.spec.join for outcome in outcomes if outcome.status == "pass")
    # every claimed join kind is exercised, and checked at the exact level (the candidate reports idx)
    assert passed["stream-stream"] >= 40 and passed["stream-table"] >= 15 and passed["table-table"] >= 15, (
        passed
    )
    assert all(outcome.mode == "exact" for outcome in outcomes if outcome.status == "pass")
    assert all(call.status == "ok" for call in harness.batches)
