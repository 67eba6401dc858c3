"""The commit-points level on real Spark (system tier): a micro-batch port of a table-table join, written
as Structured Streaming jobs usually are (a streaming aggregation in ``update`` mode: one row per changed key
per micro-batch), fed two processing steps per micro-batch through ``streaming_candidate``. The exact level
rejects it (it never emits the updates merged inside a batch), ``commit-points`` accepts it and names the
commit points; a port that keeps a key's first value instead of its newest drops the final update and is
rejected with the output Kafka still emits (docs/semantics/commit-points.md)."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from pyspark.sql import Column, DataFrame, SparkSession
from pyspark.sql import functions as F

from kjoin.conformance.catalogue import Case
from kjoin.conformance.checker import Emitted
from kjoin.conformance.documents.outcomes import CaseOutcome, Equivalence, checked
from kjoin.conformance.harness.outcomes import HarnessRun
from kjoin.conformance.protocol import Claim
from kjoin.conformance.streaming import JobShape, streaming_candidate
from kjoin.oracle.records import Output
from support.report_documents import make_case

pytestmark = [pytest.mark.system, pytest.mark.xdist_group("spark-streaming")]

CLAIM = Claim(
    joins=frozenset({"table-table"}), variants=frozenset({"inner"}), kafka=("3.9",), commit_points=True
)
ROWS = [
    ("left", "k1", "A", 1),
    ("right", "k1", "a", 2),  # micro-batch 1 ends: k1 is A - a
    ("left", "k1", "B", 3),
    ("left", "k1", "C", 4),  # micro-batch 2 ends: B merged into C
    ("right", "k2", "x", 5),
    ("left", "k2", "X", 6),  # micro-batch 3 ends
]


Pick = Callable[[Column, Column], Column]


def table_port(pick: Pick) -> Callable[[DataFrame, DataFrame, JobShape], DataFrame]:
    """An inner table-table join as a streaming aggregation: per key, each side's value chosen by ``pick``
    (``max_by``: the newest by processing step), joined when both sides have one."""

    def job(left: DataFrame, right: DataFrame, spec: JobShape) -> DataFrame:
        rows = left.withColumn("side", F.lit("left")).unionByName(right.withColumn("side", F.lit("right")))

        def side(name: str) -> Column:
            mine = F.col("side") == name
            return pick(F.when(mine, F.struct("value", "ts")), F.when(mine, F.col("idx")))

        tables = rows.groupBy("scenario_id", "key").agg(
            side("left").alias("l"), side("right").alias("r"), F.max("idx").alias("idx")
        )
        joined = tables.where(F.col("l.value").isNotNull() & F.col("r.value").isNotNull())
        return joined.select(
            "scenario_id",
            "key",
            F.col("l.value").alias("left"),
            F.col("r.value").alias("right"),
            F.greatest("l.ts", "r.ts").alias("ts"),
            "idx",
        )

    return job


@pytest.fixture(scope="module")
def case() -> Case:
    return make_case("tt-micro-batch", ROWS, join="table-table", variant="inner")


def outcome_of(spark: SparkSession, name: str, pick: Pick, case: Case, level: Equivalence) -> CaseOutcome:
    """The port's outcome at ``level`` (one streaming query, two processing steps per micro-batch)."""
    candidate = streaming_candidate(
        name, table_port(pick), CLAIM, flush=False, output_mode="update", steps_per_batch=2
    )
    return HarnessRun(candidate, lambda: spark, equivalence=level).outcome(case)


def test_a_micro_batch_port_fails_exact_and_passes_commit_points(spark: SparkSession, case: Case) -> None:
    found = outcome_of(spark, "update-mode-port", F.max_by, case, "auto")
    assert isinstance(found.answer, Emitted) and found.expected is not None
    assert [o[:3] for o in found.answer.outputs] == [
        ("k1", ("A", "a"), 2),
        ("k1", ("C", "a"), 4),
        ("k2", ("X", "x"), 6),
    ]
    exact = checked(found.expected, found.answer, "exact", case)
    assert exact.status == "fail"
    assert [(d.kind, d.expected) for d in exact.divergences] == [
        ("missing-output", Output("k1", ("B", "a"), 3, 2))  # Kafka without a cache emits the merged update
    ]
    assert (found.mode, found.status) == ("commit-points", "pass")  # the claim makes auto compare so
    # one schedule that explains it: a commit after #1 and the end (C - a and X - x in one flush); the
    # port's own batches, (1, 3, 5), explain it too
    assert found.verdict is not None and found.verdict.commit_points == (1, 5)


def test_a_port_that_drops_the_final_update_fails_commit_points(spark: SparkSession, case: Case) -> None:
    found = outcome_of(spark, "first-value-port", F.min_by, case, "commit-points")
    assert found.status == "fail"
    assert found.verdict is not None
    [divergence] = found.verdict.divergences
    assert divergence.kind == "missing-output" and divergence.expected is not None
    assert divergence.expected[:3] == ("k1", ("C", "a"), 4)  # k1's last update, which the port never emits
