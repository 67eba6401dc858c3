"""The bundled ``spark-stateful`` candidate (Structured Streaming, ``transformWithStateInPandas``) agrees
with the oracle, exactly, on every claimed case of the specification's scenario files and Kafka's own join
tests; ``nox -s stateful`` runs it over the whole catalogue, golden traces of real Kafka Streams 3.1 to 4.4
included (7,713 claimed cases, 1 min 53 s), and fuzzes it.

It runs in its own xdist group: a streaming query per join kind, eight processing steps per micro-batch.
The default tier's quick check is the harness's six small scenarios (two streaming queries); the runs over
the specification, the checkpoint restart and the one-step-per-micro-batch run are system tests.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from kjoin.conformance.catalogue import load_cases
from kjoin.conformance.harness.batching import input_rows, spec_rows
from kjoin.conformance.harness.claims import at_commit_points
from kjoin.conformance.harness.outcomes import HarnessRun
from kjoin.conformance.harness.text import render_outcome
from kjoin.conformance.protocol import SPEC_SCHEMA, load_candidate
from kjoin.scenarios import CATALOGUE_ROOT
from support.harness_scenarios import SMALL_SCENARIOS, write_scenarios
from support.tiers import spark_group

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

pytestmark = spark_group("spark-stateful")

SPECIFICATION = [
    "stream_stream",
    "stream_table",
    "table_table",
    "foreign_key",
    "stream_globaltable",
    "kafka_tests",
]
"""The edge cases that state one rule each, and Kafka's own join tests (the golden traces, thousands of
cases, run under ``nox -s stateful``: the README's test command stays short)."""


def test_spark_stateful_agrees_with_the_oracle_on_the_small_harness_scenarios(
    spark: SparkSession, tmp_path: Path
) -> None:
    """The default tier's real-Spark check of spark-stateful: the harness's small scenarios (stream-stream
    inner, a legacy and a spurious-free left join; stream-table inner and left, with a tombstone), one
    streaming query per join kind, every case exact."""
    loaded = load_cases([write_scenarios(tmp_path / "small.jsonl")])
    assert loaded.errors == ()
    harness = HarnessRun(load_candidate("spark-stateful"), lambda: spark)
    outcomes = harness.outcomes(loaded.cases)
    failing = [outcome for outcome in outcomes if outcome.failing]
    assert not failing, "\n\n".join(render_outcome(outcome) for outcome in failing)
    assert {o.case.scenario for o in outcomes if o.status == "pass" and o.mode == "exact"} == {
        scenario["id"] for scenario in SMALL_SCENARIOS
    }
    assert [call.join for call in harness.batches] == ["stream-stream", "stream-table"]
    assert all(call.status == "ok" for call in harness.batches)


@pytest.mark.system  # the specification's files: a minute or two
def test_spark_stateful_agrees_with_the_oracle_on_every_claimed_case(spark: SparkSession) -> None:
    loaded = load_cases([CATALOGUE_ROOT / folder for folder in SPECIFICATION])
    assert loaded.errors == ()
    harness = HarnessRun(load_candidate("spark-stateful"), lambda: spark)
    outcomes = harness.outcomes(loaded.cases)
    failing = [outcome for outcome in outcomes if outcome.failing]
    shown = "\n\n".join(render_outcome(outcome) for outcome in failing[:5])
    assert not failing, f"{len(failing)} failing cases:\n\n{shown}"
    passed = Counter(outcome.case.spec.join for outcome in outcomes if outcome.status == "pass")
    # every claimed join kind is exercised, and checked at the exact level (the candidate reports idx), but
    # for table-table scenarios under a record cache, which it claims at level commit-points (record_caches)
    assert passed["stream-stream"] >= 60 and passed["stream-table"] >= 15 and passed["table-table"] >= 15, (
        passed
    )
    assert passed["fk"] >= 60, passed
    assert passed["stream-globaltable"] >= 20, passed
    self_joins = [o for o in outcomes if o.case.spec.self_join and o.status == "pass"]
    assert {o.case.spec.optimization for o in self_joins} == {"none", "all"}, "both topologies checked"
    assert {o.case.spec.variant for o in self_joins} == {"inner", "left", "outer"}, "every variant checked"
    claim = harness.candidate.claim
    for outcome in outcomes:
        if outcome.status in ("pass", "declared"):
            cached = at_commit_points(claim, outcome.case)
            assert outcome.mode == ("commit-points" if cached else "exact"), outcome.case.id
            assert (outcome.status == "declared") <= cached, outcome.case.id  # declared: only the cache
    assert all(call.status == "ok" for call in harness.batches)


@pytest.mark.system
def test_a_query_restarted_from_its_checkpoint_carries_on_with_the_state_spark_kept(
    spark: SparkSession, tmp_path: Path
) -> None:
    """The state lives in Spark's state store, not in the Python worker: stop the query half-way (after the
    first steps), start a new one on the same checkpoint over all the records, and the two together emit
    exactly what one uninterrupted query emits (the new query resumes at the next step, with the stores,
    held records and clocks Spark checkpointed). And one step per micro-batch emits what the candidate's
    default of several steps per micro-batch emits."""
    from kjoin.conformance.candidates.spark_stateful import STEPS_PER_BATCH
    from kjoin.conformance.candidates.stateful.query import SPEC_COLUMNS, run_join_query

    loaded = load_cases([CATALOGUE_ROOT / "kafka_tests" / "stream-stream.jsonl"])
    claimed = [case for case in loaded.cases if case.kafka.startswith("3.9")]
    assert len(claimed) >= 6, "Kafka's stream-stream tests stated for 3.9"
    cases = claimed[:6]
    names = SPEC_SCHEMA_NAMES
    specs = {row[0]: dict(zip(names, row, strict=True)) for row in spec_rows(cases)}
    rows = [(*row, *(specs[row[0]][column] for column in SPEC_COLUMNS)) for row in input_rows(cases)]
    uninterrupted = sorted(run_join_query(spark, "stream-stream", rows), key=_order)
    assert max(row[1] for row in rows) >= 2 * STEPS_PER_BATCH  # the batched run spans micro-batches too
    batched = run_join_query(spark, "stream-stream", rows, steps_per_batch=STEPS_PER_BATCH)
    assert sorted(batched, key=_order) == uninterrupted
    checkpoint = str(tmp_path / "checkpoint")
    halfway = 4
    first = run_join_query(spark, "stream-stream", [row for row in rows if row[1] < halfway], checkpoint)
    resumed = run_join_query(spark, "stream-stream", rows, checkpoint)
    assert first and resumed, "both halves emit something"
    assert all(row[6] < halfway for row in first) and all(row[6] >= halfway for row in resumed)
    assert sorted(first + resumed, key=_order) == uninterrupted


@pytest.mark.system
def test_global_table_joins_and_self_joins_agree_one_step_per_micro_batch(spark: SparkSession) -> None:
    """The stream-globaltable and self-join scenarios, each record its own micro-batch: every table update,
    replicated to each task of the scenario, and every store change crosses a micro-batch boundary through
    Spark's state store, and every claimed case still agrees exactly."""
    from kjoin.conformance.candidates.spark_stateful import SparkStateful

    self_joins = sorted((CATALOGUE_ROOT / "stream_stream").glob("self-join-*.toml"))
    loaded = load_cases([CATALOGUE_ROOT / "stream_globaltable", *self_joins])
    assert loaded.errors == () and len(self_joins) >= 8
    harness = HarnessRun(SparkStateful(steps_per_batch=1), lambda: spark)
    outcomes = harness.outcomes(loaded.cases)
    failing = [outcome for outcome in outcomes if outcome.failing]
    shown = "\n\n".join(render_outcome(outcome) for outcome in failing[:5])
    assert not failing, f"{len(failing)} failing cases:\n\n{shown}"
    passed = Counter(outcome.case.spec.join for outcome in outcomes if outcome.status == "pass")
    assert passed["stream-globaltable"] >= 20 and passed["stream-stream"] >= 8, passed
    assert all(outcome.mode == "exact" for outcome in outcomes if outcome.status == "pass")


@pytest.mark.system
def test_a_global_table_scenario_spreads_its_stream_and_replicates_its_table_to_every_task() -> None:
    """The stream records of a stream-globaltable scenario go to one task each, by key; each global-table
    record goes to every task (docs/stateful.md); other joins keep one task per scenario."""
    from kjoin.conformance.candidates.stateful.query import GLOBAL_TABLE_TASKS, with_tasks

    rows = [("s", 0, "right", "A", "a", 0)] + [("s", i, "left", f"k{i}", "x", i) for i in range(1, 9)]
    tasked = with_tasks("stream-globaltable", rows, GLOBAL_TABLE_TASKS)
    assert sorted(row[-1] for row in tasked if row[2] == "right") == list(range(GLOBAL_TABLE_TASKS))
    assert {row[-1] for row in tasked if row[2] == "left"} == set(range(GLOBAL_TABLE_TASKS))
    assert len(tasked) == len(rows) - 1 + GLOBAL_TABLE_TASKS
    assert {row[-1] for row in with_tasks("stream-table", rows, GLOBAL_TABLE_TASKS)} == {0}


SPEC_SCHEMA_NAMES = [column.split()[0] for column in SPEC_SCHEMA.split(", ")]


def _order(row: tuple[Any, ...]) -> tuple[Any, ...]:
    """Scenario, emitting input, position among its outputs."""
    return (row[0], row[6], row[7])
