"""The bundled ``spark-reference`` candidate agrees with the oracle on every claimed case of the catalogue.

This is the main job (``kjoin run --candidate spark-reference``) as a test: one harness run on a local
SparkSession, one candidate call per join kind, every claimed case of every scenario file (seed tables, edge
cases, golden traces, Kafka's own tests, regressions) compared at the exact level. A failure prints the
first failing cases with their first divergence, why Kafka emits what it emits, and the input trace.

Every test here is in the system tier (``--tier system``, run by CI and ``nox -s system``): the whole
catalogue, the same test on a representative slice (``support.catalogue_slice``: every hand-written case and
every 16th golden-trace scenario, which keeps every join kind, era and store in one call per join kind), and
the batches with one versioned side. The default tier's spark-reference check is its golden traces
(tests/test_spark_reference.py); the oracle's own check of every stated case is
tests/test_catalogue_expectations.py and ``pytest conformance``.
"""

from __future__ import annotations

from collections import Counter
from typing import TYPE_CHECKING

import pytest

from kjoin.conformance.catalogue import Case, load_cases
from kjoin.conformance.harness.outcomes import HarnessRun
from kjoin.conformance.harness.text import render_outcome
from kjoin.conformance.protocol import load_candidate
from kjoin.scenarios import CATALOGUE_ROOT
from support.catalogue_slice import bundled_catalogue, catalogue_slice
from support.tiers import spark_group

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

# the system tier (tests/conftest.py), in the spark-reference group: golden traces, catalogue, fuzzing
pytestmark = [pytest.mark.system, spark_group("spark")]


def _agrees(spark: SparkSession, cases: tuple[Case, ...]) -> Counter[str]:
    """Run ``cases`` through spark-reference (one call per claimed join kind): none fails, every call ran;
    the statuses counted."""
    harness = HarnessRun(load_candidate("spark-reference"), lambda: spark)
    outcomes = harness.outcomes(cases)
    counts = Counter(outcome.status for outcome in outcomes)
    failing = [outcome for outcome in outcomes if outcome.failing]
    shown = "\n\n".join(render_outcome(outcome) for outcome in failing[:5])
    assert not failing, f"{len(failing)} failing cases ({dict(counts)}):\n\n{shown}"
    # one call per join kind: stream-stream (self-joins included), stream-table, table-table, fk,
    # stream-globaltable
    assert len(harness.batches) == 5 and all(call.status == "ok" for call in harness.batches)
    return counts


def test_spark_reference_agrees_with_the_oracle_on_the_whole_catalogue(spark: SparkSession) -> None:
    loaded = load_cases()
    assert loaded.errors == ()
    counts = _agrees(spark, loaded.cases)
    assert counts["pass"] > 2000, counts


def test_spark_reference_agrees_with_the_oracle_on_a_slice_of_the_catalogue(spark: SparkSession) -> None:
    loaded = bundled_catalogue()
    assert loaded.errors == ()
    cases = catalogue_slice(loaded.cases)
    hand_written = {case.id for case in loaded.cases if not case.source.startswith("scenarios/golden/")}
    assert hand_written <= {case.id for case in cases} and len(cases) < len(loaded.cases) // 4
    assert {case.kafka for case in cases if case.source.startswith("scenarios/golden/")} == {
        case.kafka for case in loaded.cases if case.source.startswith("scenarios/golden/")
    }
    counts = _agrees(spark, cases)
    assert counts["pass"] > 600, counts


ONE_SIDE_VERSIONED = [
    "table_table/versioned-left-only-drops-its-out-of-order-update.toml",
    "table_table/kip914-mixed-right-versioned.toml",
    "foreign_key/versioned-left-drops-out-of-order-update.toml",
    "foreign_key/versioned-right-drops-out-of-order-update.toml",
]
"""Scenario files whose versioned tables are on one side only."""


@pytest.mark.parametrize("name", ONE_SIDE_VERSIONED)
def test_a_batch_with_one_versioned_side_takes_the_versioned_path(spark: SparkSession, name: str) -> None:
    """Each file alone is the whole batch of its join kind (as ``kjoin run FILE`` makes it): spark-reference's
    fast path for batches without versioned tables must not take it (``with_latest_flag``'s guard reads each
    side's flag; a guard that wanted both sides versioned passed the catalogue as one batch)."""
    loaded = load_cases([CATALOGUE_ROOT / name])
    assert loaded.errors == () and loaded.cases
    assert any(case.spec.versioned is not None for case in loaded.cases)
    outcomes = HarnessRun(load_candidate("spark-reference"), lambda: spark).outcomes(loaded.cases)
    failing = [outcome for outcome in outcomes if outcome.failing]
    assert not failing, "\n\n".join(render_outcome(outcome) for outcome in failing[:3])
    assert any(outcome.status == "pass" for outcome in outcomes)
