"""The bundled ``spark-stateful`` candidate: Kafka Streams joins as a Structured Streaming job.

The blueprint for a port (docs/stateful.md): ``transformWithStateInPandas`` grouped by Kafka task, the
task's state stores as Spark state variables, Kafka's join processors in ``handleInputRows``, fed
``steps_per_batch`` processing steps per micro-batch (default 8: a task's records within a micro-batch run
in processing order, its stores carry over to the next). It implements the stream-stream, stream-table,
table-table, foreign-key (KIP-213) and stream-globaltable joins and self-joins (with and without the 3.4+
single-store rewrite) of every era of Kafka Streams from 3.1 (spurious-free left/outer joins) to the
newest, with in-memory and RocksDB stores, versioned tables (KIP-914), stream-table grace (KIP-923), and
the intended runs (bug flags off) as well as the shipped ones. Not yet ported, and reported as not claimed:
eras before 3.1. Nor are record caches: on a table-table scenario under a record cache it emits Kafka's
changelog as if it committed after every record, cache drops aside, so it claims those scenarios at level
``commit-points`` (``Claim.record_caches``) and declares the drops.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from importlib import import_module
from typing import TYPE_CHECKING, Any

from kjoin.conformance.protocol import Claim, DeclaredDifference
from kjoin.oracle.behaviour import one_release_per_era

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession

__all__ = ["CLAIM", "DECLARED", "STEPS_PER_BATCH", "SparkStateful", "candidate"]

ERAS = one_release_per_era(since="3.1")
"""One release per era of ``oracle.behaviour`` from 3.1 (spurious-free joins) to the newest."""

PACKAGE = "kjoin.conformance.candidates.stateful"
"""The port's own modules (see ``SparkStateful.package``)."""

STEPS_PER_BATCH = 8
"""Processing steps per micro-batch: inputs longer than this span micro-batches (state carried over), the
rest run within one (records in processing order); one step per batch gives the same answers, slower."""

CLAIM = Claim(
    joins=frozenset({"stream-stream", "stream-table", "table-table", "fk", "stream-globaltable"}),
    variants=frozenset({"inner", "left", "outer"}),
    kafka=ERAS,
    stores=frozenset({"memory", "rocksdb"}),
    versioned=True,
    stream_table_grace=True,
    self_joins=True,
    record_caches=True,
)

NO_RECORD_CACHE = (
    "no record cache: a delete of a key the table does not hold, which Kafka's cache flush never forwards "
    "(spec PR-6), still reaches the join, which emits a tombstone or repeats the key's last result; no "
    "commit points make Kafka emit it"
)
DECLARED: tuple[DeclaredDifference, ...] = tuple(
    DeclaredDifference(scenario, NO_RECORD_CACHE, joins=frozenset({"table-table"}), strict=True)
    for scenario in (
        "tt-record-cache-drops-delete-of-absent-key",
        "tt-record-cache-drops-repeat-of-previous-result",
    )
)
"""Where the catalogue's cached table-table scenarios show the missing cache (strict: they must differ)."""


@dataclass(frozen=True)
class SparkStateful:
    """Kafka Streams joins on Structured Streaming's arbitrary stateful API (see the module docstring)."""

    name: str = "spark-stateful"
    claim: Claim = CLAIM
    declared_differences: tuple[DeclaredDifference, ...] = DECLARED
    steps_per_batch: int = STEPS_PER_BATCH
    micro_batch_plan: Mapping[str, tuple[int, ...]] = field(default_factory=dict, compare=False)
    """Scenario ids fed their own micro-batches: the record indices that begin one (``with_micro_batches``;
    docs/streaming.md#micro-batch-splits); the others get ``steps_per_batch`` steps per micro-batch."""
    package: str = PACKAGE
    """The package holding the port's modules (``query``, ``processor``, ...): another copy of it, e.g. one
    with a mutation (tools/mutation.py --candidate spark-stateful), runs as this candidate."""

    def with_micro_batches(self, plan: Mapping[str, tuple[int, ...]]) -> SparkStateful:
        """The same candidate feeding each scenario id of ``plan`` its own micro-batches."""
        return replace(self, micro_batch_plan=dict(plan))

    def run(self, spark: SparkSession, inputs: DataFrame, specs: DataFrame) -> DataFrame:
        """Feed every scenario to one streaming query per join kind; OUTPUT_SCHEMA + ``idx`` + ``seq``."""
        from kjoin.conformance.streaming.feed import STEP_COLUMNS

        query = import_module(f"{self.package}.query")
        output_ddl: str = import_module(f"{self.package}.processor").OUTPUT_DDL

        spec_rows = {row.scenario_id: row for row in specs.collect()}
        by_join: dict[str, list[tuple[Any, ...]]] = {}
        for row in inputs.select(*STEP_COLUMNS).collect():
            spec = spec_rows[row.scenario_id]
            by_join.setdefault(spec.join, []).append((*row, *(spec[c] for c in query.SPEC_COLUMNS)))
        answer: list[tuple[Any, ...]] = []
        for join, rows in sorted(by_join.items()):
            answer.extend(
                query.run_join_query(
                    spark, join, rows, steps_per_batch=self.steps_per_batch, plan=self.micro_batch_plan
                )
            )
        return spark.createDataFrame(answer, output_ddl)


candidate = SparkStateful()
