"""A user's Structured Streaming job (``streaming_candidate``) between real Kafka topics.

The job is the one ``kjoin.conformance.streaming`` runs, unchanged: ``job(left, right, spec) -> DataFrame``.
Here its ``left`` and ``right`` come from Spark's Kafka source instead of the stepped feed, with the same
columns (docs/streaming.md) built from each Kafka record:

* ``scenario_id`` and the window columns from the record's partition (scenario i is partition i of the
  configuration's topics; a small static table holds each scenario's numbers);
* ``key``, ``value`` (strings), ``ts`` (the record's timestamp, CreateTime) and ``event_time`` from it;
* ``idx`` from the record header ``kjoin-idx``: the processing step the harness gave the record (Kafka's
  order of the task, spec TK-2). Production records carry no such header: it is the test's annotation,
  as ``scenario_id`` is, and only needed to answer with ``idx``;
* ``partition`` and ``offset``, the Kafka coordinates, for a job that wants them.

What the job returns goes to the configuration's ``out`` topic as JSON, to its scenario's partition, through
Spark's Kafka sink; the harness reads the topic back in offset order: the rows the sink received.

Feeds (``FEEDS``): ``stepped`` starts the queries on empty topics and produces one processing step at a time
(the record ``idx = n`` of every scenario, acknowledged by the broker), waiting for the queries to process
it before the next, so each step is a micro-batch of its own as with the stepped feed (a step may straddle
two micro-batches: the broker does not publish several partitions atomically; a scenario never has two steps
in one). ``backlog`` produces everything first and starts the queries then: they read it all in one
micro-batch, as a job catching up after downtime. Both end with the adapter's two flush steps (unless the
candidate says ``flush=False``): one sentinel per side at ``FLUSH_TS`` in an extra partition.
"""

from __future__ import annotations

import itertools
import tempfile
from collections.abc import Iterator, Mapping, Sequence
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from kjoin.conformance.endtoend.builds import EndToEndError
from kjoin.conformance.endtoend.topics import read_json_topic
from kjoin.conformance.kafka.broker import KafkaBroker, StepProducer
from kjoin.conformance.streaming.adapter import (
    EVENT_TIME_SHIFT_MS,
    FLUSH_SCENARIO,
    FLUSH_TS,
    WINDOW_COLUMNS,
    JobShape,
    StreamingCandidate,
    output_columns,
    query_groups,
)

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, Row, SparkSession
    from pyspark.sql.streaming.query import StreamingQuery

__all__ = ["ANSWER_DDL", "FEEDS", "IDX_HEADER", "Feed", "run_streaming_through_kafka"]

Feed = Literal["stepped", "backlog"]
FEEDS: tuple[Feed, ...] = ("stepped", "backlog")

IDX_HEADER = "kjoin-idx"
"""The record header carrying the record's processing step (``idx``)."""

ANSWER_DDL = "scenario_id string, key string, left string, right string, tombstone boolean, ts long, idx long"
"""The rows read back from an ``out`` topic (``idx`` null when the job does not answer with it)."""

_INPUT_COLUMNS: tuple[str, ...] = (
    *("side", "scenario_id", "idx", "key", "value", "ts", "event_time"),
    *WINDOW_COLUMNS,
    *("partition", "offset"),
)
_ANSWER_COLUMNS = ("scenario_id", "key", "left", "right", "tombstone", "ts", "idx")
_calls = itertools.count()


@dataclass
class _Query:
    """One configuration's topics and running query."""

    spec: JobShape
    partitions: dict[str, int]
    topics: dict[str, str]
    query: StreamingQuery | None = None
    has_idx: bool = False

    @property
    def flush_partition(self) -> int:
        return len(self.partitions)


def run_streaming_through_kafka(
    spark: SparkSession,
    broker: KafkaBroker,
    candidate: StreamingCandidate,
    rows: Sequence[tuple[Any, ...]],
    specs: Sequence[Row],
    feed: Feed = "stepped",
) -> tuple[list[tuple[Any, ...]], bool]:
    """Run ``candidate``'s job over ``rows`` (``INPUT_SCHEMA`` tuples) between real topics, one query per
    configuration as the adapter groups them; the rows its sinks received (``ANSWER_DDL``) and whether the
    job answers with ``idx``."""
    if feed not in FEEDS:
        raise EndToEndError(f"feed must be one of {', '.join(FEEDS)}, got {feed!r}")
    call = next(_calls)
    queries = []
    for number, (spec, scenario_ids) in enumerate(query_groups(specs, candidate.isolation)):
        prefix = f"kjoin-job-{call}-{number}"
        topics = {side: f"{prefix}-{side}" for side in ("left", "right", "out")}
        queries.append(_Query(spec, {sid: i for i, sid in enumerate(scenario_ids)}, topics))
    broker.create_topics({topic: len(q.partitions) + 1 for q in queries for topic in q.topics.values()})
    numbers = {str(spec["scenario_id"]): tuple(spec[column] for column in WINDOW_COLUMNS) for spec in specs}
    steps = _steps(rows, queries)
    with ExitStack() as stack, broker.watched(lambda: _stop(queries)), broker.producer() as producer:
        checkpoints = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="kjoin-e2e-job-")))
        try:
            if feed == "backlog":
                for step in steps:
                    producer.send(step)
                producer.flush()
            for query in queries:
                _start(spark, broker, candidate, query, numbers, checkpoints / query.topics["out"])
            if feed == "stepped":
                for step in steps:
                    _feed_step(producer, queries, step)
            if candidate.flush:
                for _ in range(2):
                    _feed_step(producer, queries, list(_flush_records(queries)))
            _wait(queries)
        finally:
            _stop(queries)
    answer = [row for query in queries for row in _read_back(spark, broker, query)]
    return answer, any(query.has_idx for query in queries)


def _steps(rows: Sequence[tuple[Any, ...]], queries: Sequence[_Query]) -> list[list[dict[str, Any]]]:
    """The records to produce, one list per processing step (``idx``), each to its configuration's topic
    and its scenario's partition, with its step in the ``kjoin-idx`` header."""
    where = {sid: query for query in queries for sid in query.partitions}
    steps: dict[int, list[dict[str, Any]]] = {}
    for scenario_id, idx, side, key, value, ts in sorted(rows, key=lambda row: (row[1], row[0])):
        query = where.get(scenario_id)
        if query is None:
            raise EndToEndError(f"scenario {scenario_id!r} has records but no join configuration")
        if ts >= FLUSH_TS:
            raise EndToEndError(f"scenario {scenario_id!r}: timestamp {ts} is not below the flush time")
        steps.setdefault(idx, []).append(
            {
                "topic": query.topics[side],
                "partition": query.partitions[scenario_id],
                "ts": ts,
                "key": key,
                "value": value,
                "headers": {IDX_HEADER: str(idx)},
            }
        )
    return [steps[idx] for idx in sorted(steps)]


def _flush_records(queries: Sequence[_Query]) -> Iterator[dict[str, Any]]:
    for query in queries:
        for side in ("left", "right"):
            yield {
                "topic": query.topics[side],
                "partition": query.flush_partition,
                "ts": FLUSH_TS,
                "key": FLUSH_SCENARIO,
                "value": "flush",
                "headers": {IDX_HEADER: "0"},
            }


def _feed_step(producer: StepProducer, queries: Sequence[_Query], records: list[dict[str, Any]]) -> None:
    """Produce one step's records, have them acknowledged, and wait until every query processed them."""
    producer.send(records)
    producer.flush()
    _wait(queries)


def _stop(queries: Sequence[_Query]) -> None:
    """Stop the queries started so far (a stopped query's ``processAllAvailable`` returns)."""
    for query in queries:
        if query.query is not None:
            query.query.stop()


def _wait(queries: Sequence[_Query]) -> None:
    for query in queries:
        assert query.query is not None
        query.query.processAllAvailable()


def _inputs(
    spark: SparkSession, broker: KafkaBroker, query: _Query, numbers: Mapping[str, tuple[Any, ...]]
) -> DataFrame:
    """The job's input, both sides (``side`` column), from the configuration's topics."""
    from pyspark.sql import functions as F

    scenarios = spark.createDataFrame(
        [
            *((partition, sid, *numbers[sid]) for sid, partition in query.partitions.items()),
            (query.flush_partition, FLUSH_SCENARIO, *(None,) * len(WINDOW_COLUMNS)),
        ],
        "partition int, scenario_id string" + "".join(f", {column} long" for column in WINDOW_COLUMNS),
    )
    idx = F.expr(f"filter(headers, h -> h.key = '{IDX_HEADER}')[0].value").cast("string").cast("long")
    records = (
        spark.readStream.format("kafka")
        .option("kafka.bootstrap.servers", broker.bootstrap)
        .option("subscribe", f"{query.topics['left']},{query.topics['right']}")
        .option("startingOffsets", "earliest")
        .option("includeHeaders", "true")
        .load()
        .select(
            F.when(F.col("topic") == query.topics["left"], "left").otherwise("right").alias("side"),
            "partition",
            "offset",
            idx.alias("idx"),
            F.col("key").cast("string").alias("key"),
            F.col("value").cast("string").alias("value"),
            F.unix_millis("timestamp").alias("ts"),
        )
    )
    return (
        records.join(scenarios, "partition")
        .withColumn("event_time", F.timestamp_millis(F.col("ts") + EVENT_TIME_SHIFT_MS))
        .select(*_INPUT_COLUMNS)
    )


def _start(
    spark: SparkSession,
    broker: KafkaBroker,
    candidate: StreamingCandidate,
    query: _Query,
    numbers: Mapping[str, tuple[Any, ...]],
    checkpoint: Path,
) -> None:
    """Start the job of one configuration, its output going to the ``out`` topic."""
    from pyspark.sql import functions as F

    stream = _inputs(spark, broker, query, numbers)
    sides = [stream.where(F.col("side") == side).drop("side") for side in ("left", "right")]
    output = candidate.job(sides[0], sides[1], query.spec)
    columns = output_columns(candidate.name, output)
    query.has_idx = "idx" in columns
    tombstone = F.coalesce(F.col("tombstone"), F.lit(False)) if "tombstone" in columns else F.lit(False)
    lookup = F.create_map(*(F.lit(x) for sid, p in query.partitions.items() for x in (sid, p)))
    partition = F.coalesce(F.element_at(lookup, F.col("scenario_id")), F.lit(query.flush_partition))
    answer = output.where(~F.col("scenario_id").eqNullSafe(F.lit(FLUSH_SCENARIO))).select(
        partition.alias("partition"),
        F.to_json(
            F.struct(
                *(F.col(name) for name in ("scenario_id", "key", "left", "right")),
                tombstone.alias("tombstone"),
                F.col("ts").cast("long").alias("ts"),
                (F.col("idx") if query.has_idx else F.lit(None)).cast("long").alias("idx"),
            )
        ).alias("value"),
    )
    query.query = (
        answer.writeStream.format("kafka")
        .option("kafka.bootstrap.servers", broker.bootstrap)
        .option("topic", query.topics["out"])
        .option("checkpointLocation", str(checkpoint))
        .outputMode(candidate.output_mode)
        .start()
    )


def _read_back(spark: SparkSession, broker: KafkaBroker, query: _Query) -> list[tuple[Any, ...]]:
    """The ``out`` topic's rows in offset order per partition. A row of a known scenario must be in that
    scenario's partition; a row of an unknown scenario (in the extra partition) is kept for the check."""
    rows = []
    topic = query.topics["out"]
    for partition, row in read_json_topic(spark, broker.bootstrap, topic, ANSWER_DDL, _ANSWER_COLUMNS):
        if partition != query.partitions.get(row[0], query.flush_partition):
            raise EndToEndError(f"output for {row[0]} arrived in partition {partition}")
        rows.append(row)
    return rows
