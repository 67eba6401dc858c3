"""Turn a Structured Streaming job into a candidate: ``streaming_candidate(name, job, claim)``.

The job is what a porting team already has, minus its sources and sink::

    def job(left: DataFrame, right: DataFrame, spec: JobShape) -> DataFrame: ...

``left`` and ``right`` are streaming DataFrames of one side's records each, with the columns

* ``scenario_id`` (string): the scenario, i.e. one Kafka task. Records of different scenarios never
  meet: group, join and key state by ``scenario_id`` as well as by ``key``;
* ``idx`` (long): the record's processing step (its position in Kafka's processing order);
* ``key``, ``value`` (strings, either may be null) and ``ts`` (long, Kafka's timestamp in ms);
* ``event_time`` (timestamp): ``ts`` as Spark event time, for ``withWatermark`` and time-range join
  conditions, shifted by ``EVENT_TIME_SHIFT_MS`` so that timestamp 0 is not at Spark's initial watermark
  (the epoch, where a stateful operator drops a row as late). Emit Kafka's timestamp from ``ts``;
* ``before``, ``after``, ``grace``, ``history_ms`` (long, null where the join has none): the scenario's
  window and versioned-store history. They differ between the scenarios of one query, so they arrive as
  columns, where a job has constants from its configuration.

``spec`` is the rest of the join's configuration as constants (``JobShape``: join kind, variant, stores,
...), the choices that change a job's shape. The harness runs one streaming query per distinct
``JobShape`` (all at once), with every scenario of that configuration in it, fed one processing step per
micro-batch (step ``n`` is the record ``idx = n`` of every scenario; ``steps_per_batch`` consecutive steps
per micro-batch when asked, the job then orders a batch's rows by ``idx`` itself). After the input, unless
``flush=False``, two more micro-batches carry one sentinel record per side far in the future, so that
the job's watermarks pass every scenario and the job emits what it holds back until then; the sentinel
rows (``scenario_id == FLUSH_SCENARIO``) are dropped from the output.

The job returns a streaming DataFrame with ``scenario_id, key, left, right, ts`` (``left``/``right`` the
two values of a joined row, null for the missing side), and optionally ``tombstone`` (boolean, default
false) and ``idx`` (the processing step whose record emitted the row: it enables exact-order checks).
What the sink received, in the order it received it, is the candidate's answer; claims, declared
differences, equivalence levels and reports are those of any candidate.

Spark's watermark is one value per query, Kafka's stream time is one per task: a shared query lets a
scenario with later timestamps push another's records behind the watermark. Use a watermark delay
longer than any scenario's time span (scenario timestamps are small), or ``isolation="scenario"``: one
query per scenario, each with its own watermark (exact, and much slower: about a second per micro-batch).
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from kjoin.conformance.protocol import Claim, DeclaredDifference
from kjoin.conformance.streaming.checkpoints import fresh_checkpoints
from kjoin.conformance.streaming.feed import (
    STEP_COLUMNS,
    STEP_SCHEMA,
    stepped_file_stream,
    stepped_stream_of_rows,
)
from kjoin.errors import KjoinError

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, Row, SparkSession
    from pyspark.sql.streaming.query import StreamingQuery

__all__ = [
    "EVENT_TIME_SHIFT_MS",
    "FLUSH_SCENARIO",
    "FLUSH_TS",
    "WINDOW_COLUMNS",
    "JobShape",
    "StreamingCandidate",
    "StreamingJob",
    "StreamingJobError",
    "streaming_candidate",
]

EVENT_TIME_SHIFT_MS = 1
"""``event_time`` is ``ts + EVENT_TIME_SHIFT_MS`` milliseconds after the epoch."""

FLUSH_SCENARIO = "__kjoin_watermark_flush__"
"""The scenario id of the sentinel records that move the watermarks past the input."""

FLUSH_TS = 3 * 10**13
"""The sentinel records' timestamp (about the year 2920): later than any scenario and watermark delay."""

Isolation = Literal["configuration", "scenario"]

WINDOW_COLUMNS = ("before", "after", "grace", "history_ms")
"""The scenario's numbers, carried by every input row (they vary between the scenarios of one query)."""

_REQUIRED_OUTPUT = ("scenario_id", "key", "left", "right", "ts")
_query_names = itertools.count()


class StreamingJobError(KjoinError, ValueError):
    """The job's output cannot be checked (not streaming, a column missing); the message says which."""


@dataclass(frozen=True)
class JobShape:
    """The shape of one join configuration, as a job's constants: a row of ``SPEC_SCHEMA`` without the
    scenario id, the Kafka version and ``intended`` (they describe the expectation, not the job) and
    without the numbers in ``WINDOW_COLUMNS`` (columns of every input row)."""

    join: str
    variant: str
    stores: str
    left_versioned: bool
    right_versioned: bool
    fk_extractor: str
    legacy: bool
    key_mapper: str = "key"
    """A stream-globaltable join's key mapper (spec GT-2); ``key`` for the other joins."""
    self_join: bool = False
    """A stream joined with itself: every record is in ``left``, ``right`` is empty (spec SJ-1)."""
    optimization: str = "none"
    """The Kafka topology's ``topology.optimization`` (``all`` rewrites a self-join from 3.4, spec SJ-1)."""

    @classmethod
    def of(cls, row: Row) -> JobShape:
        """The configuration of one ``specs`` row."""
        return cls(**{field.name: row[field.name] for field in fields(cls)})


StreamingJob = Callable[["DataFrame", "DataFrame", JobShape], "DataFrame"]
"""``job(left, right, spec) -> output``: streaming DataFrames in and out (see the module's docstring)."""


@dataclass(frozen=True)
class StreamingCandidate:
    """A candidate that runs a Structured Streaming job over every scenario, fed step by step."""

    name: str
    job: StreamingJob
    claim: Claim
    declared_differences: tuple[DeclaredDifference, ...] = ()
    flush: bool = True
    isolation: Isolation = "configuration"
    output_mode: str = "append"
    steps_per_batch: int = 1
    static_right: bool = False
    """The job's ``right`` is a static (batch) DataFrame: the right records processed before the first
    left record of their scenario, as the right topic reads when the query starts (a stream-static join,
    the port of a GlobalKTable join; ``static_right_rows``). Only the left side is fed step by step."""
    micro_batch_plan: Mapping[str, tuple[int, ...]] = field(default_factory=dict, compare=False)
    """Scenario ids fed their own micro-batches (``with_micro_batches``;
    docs/streaming.md#micro-batch-splits)."""

    def with_micro_batches(self, plan: Mapping[str, tuple[int, ...]]) -> StreamingCandidate:
        """The same candidate feeding each scenario id of ``plan`` its own micro-batches: the record
        indices that begin one."""
        return replace(self, micro_batch_plan=dict(plan))

    def run(self, spark: SparkSession, inputs: DataFrame, specs: DataFrame) -> DataFrame:
        """Feed every scenario to the job (one query per configuration or per scenario, all running at
        once) and return what the sinks received."""
        from pyspark.sql.types import BooleanType, LongType, StringType, StructField, StructType

        spec_rows = specs.collect()
        numbers = {row.scenario_id: tuple(row[column] for column in WINDOW_COLUMNS) for row in spec_rows}
        records: dict[str, list[tuple[Any, ...]]] = {}
        for row in inputs.select(*STEP_COLUMNS).collect():
            _check_ts(row.scenario_id, row.ts)
            records.setdefault(row.scenario_id, []).append((*row, *numbers[row.scenario_id]))
        queries: list[tuple[StreamingQuery, str, bool]] = []
        answer: list[tuple[Any, ...]] = []
        with fresh_checkpoints() as checkpoints:
            try:
                for spec, scenario_ids in query_groups(spec_rows, self.isolation):
                    rows = [record for scenario_id in scenario_ids for record in records.get(scenario_id, ())]
                    queries.append(self._start_query(spark, spec, rows, checkpoints))
                for query, _, _ in queries:
                    query.processAllAvailable()
                for _, name, _ in queries:
                    answer.extend(tuple(row) for row in spark.table(name).collect())
            finally:
                for query, name, _ in queries:
                    query.stop()
                    spark.catalog.dropTempView(name)
        with_idx = any(has_idx for _, _, has_idx in queries)
        schema = StructType(
            [
                StructField("scenario_id", StringType(), False),
                *(StructField(name, StringType(), True) for name in ("key", "left", "right")),
                StructField("tombstone", BooleanType(), False),
                StructField("ts", LongType(), False),
                *([StructField("idx", LongType(), True)] if with_idx else []),
            ]
        )
        width = len(schema.fields)
        return spark.createDataFrame([row[:width] for row in answer], schema)

    def _start_query(
        self, spark: SparkSession, spec: JobShape, rows: Sequence[tuple[Any, ...]], checkpoints: Path
    ) -> tuple[StreamingQuery, str, bool]:
        """Start the job over ``rows`` (one configuration) into a memory sink: (query, sink name, has idx)."""
        from pyspark.sql import functions as F

        flush = [
            (FLUSH_SCENARIO, 0, side, FLUSH_SCENARIO, "flush", FLUSH_TS, *(None,) * len(WINDOW_COLUMNS))
            for side in ("left", "right")
        ]
        schema = STEP_SCHEMA + "".join(f", {column} long" for column in WINDOW_COLUMNS)
        extra = [flush, flush] if self.flush else []
        name = f"kjoin_streaming_{next(_query_names)}"
        batching = (self.steps_per_batch, self.micro_batch_plan)
        if (spark.sparkContext.master or "").startswith("local"):  # no Python worker for the feed (feed.py)
            folder = checkpoints / f"{name}-input"
            stream = stepped_file_stream(spark, rows, folder, extra, schema, *batching)
        else:  # the tasks may run on other machines: the feed travels inside the source
            stream = stepped_stream_of_rows(spark, rows, extra, schema, *batching)
        stream = stream.withColumn("event_time", F.timestamp_millis(F.col("ts") + EVENT_TIME_SHIFT_MS))
        sides = [stream.where(F.col("side") == side).drop("side") for side in ("left", "right")]
        if self.static_right:
            table = spark.createDataFrame(list(static_right_rows(rows)), schema)
            event_time = F.timestamp_millis(F.col("ts") + EVENT_TIME_SHIFT_MS)
            sides[1] = table.withColumn("event_time", event_time).drop("side")
        output = self.job(sides[0], sides[1], spec)
        columns = output_columns(self.name, output)
        has_idx = "idx" in columns
        tombstone = F.coalesce(F.col("tombstone"), F.lit(False)) if "tombstone" in columns else F.lit(False)
        selected = output.where(F.col("scenario_id") != F.lit(FLUSH_SCENARIO)).select(
            *(F.col(name) for name in ("scenario_id", "key", "left", "right")),
            tombstone.alias("tombstone"),
            F.col("ts").cast("long").alias("ts"),
            *([F.col("idx").cast("long").alias("idx")] if has_idx else []),
        )
        writer = selected.writeStream.format("memory").queryName(name).outputMode(self.output_mode)
        writer = writer.option("checkpointLocation", str(checkpoints / name))  # never the user's folder
        return writer.start(), name, has_idx


def static_right_rows(rows: Iterable[tuple[Any, ...]]) -> Iterator[tuple[Any, ...]]:
    """The right records (``STEP_COLUMNS`` first) that come before the first left record of their
    scenario: what a batch read of the right topic finds when the query starts."""
    listed = list(rows)
    start: dict[str, int] = {}
    for row in listed:
        if row[2] == "left":
            start[row[0]] = min(row[1], start.get(row[0], row[1]))
    for row in listed:
        if row[2] == "right" and (row[0] not in start or row[1] < start[row[0]]):
            yield row


def _check_ts(scenario_id: str, ts: int) -> None:
    if ts >= FLUSH_TS:
        problem = f"timestamp {ts} is not below the flush time {FLUSH_TS}"
        raise StreamingJobError(f"scenario {scenario_id!r}: {problem}")


def query_groups(specs: Iterable[Row], isolation: Isolation) -> list[tuple[JobShape, list[str]]]:
    """The queries to run: (configuration, its scenario ids), in a stable order (also the end-to-end
    mode's, ``endtoend.streaming_job``)."""
    groups: dict[tuple[JobShape, str], list[str]] = {}
    for row in sorted(specs, key=lambda row: row.scenario_id):
        spec = JobShape.of(row)
        query = row.scenario_id if isolation == "scenario" else ""
        groups.setdefault((spec, query), []).append(row.scenario_id)
    return [(spec, ids) for (spec, _), ids in groups.items()]


def output_columns(name: str, output: Any) -> set[str]:
    """The output's column names, after checking it is a streaming DataFrame with the required ones (a
    ``StreamingJobError`` saying what is wrong otherwise)."""
    from pyspark.sql import DataFrame

    if not isinstance(output, DataFrame):
        returned = type(output).__name__
        raise StreamingJobError(f"candidate {name!r}: the job returned {returned}, not a DataFrame")
    if not output.isStreaming:
        raise StreamingJobError(
            f"candidate {name!r}: the job returned a batch DataFrame; build it from the streaming inputs"
        )
    columns = set(output.columns)
    missing = [column for column in _REQUIRED_OUTPUT if column not in columns]
    if missing:
        raise StreamingJobError(
            f"candidate {name!r}: the job's output lacks {', '.join(missing)} "
            f"(it has {', '.join(output.columns)}; required: {', '.join(_REQUIRED_OUTPUT)})"
        )
    return columns


def streaming_candidate(
    name: str,
    job: StreamingJob,
    claim: Claim,
    declared_differences: Sequence[DeclaredDifference] = (),
    *,
    flush: bool = True,
    isolation: Isolation = "configuration",
    output_mode: str = "append",
    steps_per_batch: int = 1,
    static_right: bool = False,
) -> StreamingCandidate:
    """A candidate running ``job`` (see the module's docstring); the same claim and declared differences
    as any candidate. ``steps_per_batch`` consecutive processing steps make one micro-batch (a micro-batch
    port of a table join then merges a key's updates within it, as Kafka's record caches do between
    commits: compare it at level ``commit-points``). A run's own splits (``--steps-per-batch``) replace
    it. ``static_right`` hands the job its right side as a static DataFrame (a stream-static join)."""
    if isolation not in ("configuration", "scenario"):
        raise ValueError(f"isolation must be 'configuration' or 'scenario', got {isolation!r}")
    if steps_per_batch < 1:
        raise ValueError(f"steps_per_batch must be at least 1, got {steps_per_batch}")
    return StreamingCandidate(
        name,
        job,
        claim,
        tuple(declared_differences),
        flush,
        isolation,
        output_mode,
        steps_per_batch,
        static_right,
    )
