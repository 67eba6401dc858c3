"""The streaming query behind ``spark-stateful``: the stepped input, the stateful operator, a memory sink.

Each input row carries its scenario's join configuration (variant, window, store kind, ...) as columns, so
one query serves every scenario of a join kind, however their windows differ. The records are fed one
processing step per micro-batch (``conformance.streaming.feed``), grouped by task and handed to
``KafkaTaskProcessor``. On a local master the feed is Spark's own file source (one file per micro-batch):
the Python data source starts its worker with a fixed 10 s to connect back, which a loaded machine misses
(the query fails with "Python worker failed to connect back"); a query resumed from a checkpoint, or on a
cluster, reads the Python source.

``transformWithStateInPandas`` needs the RocksDB state store provider: the query is started with it (and
changelog checkpointing, which makes a micro-batch's commit cheaper) and the session's settings are put
back afterwards (a query keeps the configuration it started with).

``steps_per_batch`` consecutive processing steps make one micro-batch (default one): the processor runs a
batch's records of a task in ``idx`` order, so any size gives the same answer, and fewer micro-batches
cost less.

The grouping key is ``(scenario_id, task)``: one scenario is one Kafka task, except for a stream-globaltable
join, whose stream records are spread over ``GLOBAL_TABLE_TASKS`` tasks by key (the join needs no
co-partitioning) while every global-table record is replicated to each of them, in its place in the
processing order (each task keeps its own replica of the global table, as each Kafka application instance
does; spec GT-3). A stream record's results come from its own task, so the spread changes no answer.
"""

from __future__ import annotations

import itertools
import zlib
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

from kjoin.conformance.candidates.stateful.processor import OUTPUT_DDL, KafkaTaskProcessor
from kjoin.conformance.streaming.checkpoints import fresh_checkpoints
from kjoin.conformance.streaming.feed import STEP_SCHEMA, stepped_file_stream, stepped_stream_of_rows

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession
    from pyspark.sql.streaming.query import StreamingQuery

__all__ = [
    "GLOBAL_TABLE_TASKS",
    "QUERY_CONF",
    "SPEC_COLUMNS",
    "SPEC_DDL",
    "query_settings",
    "run_join_query",
    "with_tasks",
]

_SPEC_TYPES = {
    "kafka": "string",
    "variant": "string",
    "before": "long",
    "after": "long",
    "grace": "long",
    "legacy": "boolean",
    "stores": "string",
    "intended": "boolean",
    "left_versioned": "boolean",
    "right_versioned": "boolean",
    "history_ms": "long",
    "fk_extractor": "string",
    "key_mapper": "string",
    "self_join": "boolean",
    "optimization": "string",
}
SPEC_COLUMNS = tuple(_SPEC_TYPES)
"""The scenario's configuration, carried by each of its input rows."""
SPEC_DDL = "".join(f", {name} {kind}" for name, kind in _SPEC_TYPES.items())
"""``SPEC_COLUMNS`` as DDL columns to append to a schema (``", variant string, ..."``)."""

FEED_SCHEMA = STEP_SCHEMA + SPEC_DDL + ", task long"
"""The fed rows: the record, its scenario's configuration, the task it goes to (``with_tasks``)."""

GLOBAL_TABLE_TASKS = 2
"""The tasks a stream-globaltable scenario's stream is spread over; each gets every global-table record."""

PROVIDER = "spark.sql.streaming.stateStore.providerClass"
ROCKSDB_PROVIDER = "org.apache.spark.sql.execution.streaming.state.RocksDBStateStoreProvider"

QUERY_CONF = {
    PROVIDER: ROCKSDB_PROVIDER,
    "spark.sql.streaming.stateStore.rocksdb.changelogCheckpointing.enabled": "true",
}
"""What the candidate's queries start with (a query keeps the configuration it started with)."""

_queries = itertools.count()


@contextmanager
def query_settings(spark: SparkSession) -> Iterator[None]:
    """Start queries with ``QUERY_CONF`` (the RocksDB state store provider ``transformWithStateInPandas``
    needs), then restore the session's settings."""
    previous: dict[str, str | None] = {name: spark.conf.get(name, None) for name in QUERY_CONF}
    for name, value in QUERY_CONF.items():
        spark.conf.set(name, value)
    try:
        yield
    finally:
        for name, setting in previous.items():
            if setting is None:
                spark.conf.unset(name)
            else:
                spark.conf.set(name, setting)


def run_join_query(
    spark: SparkSession,
    join: str,
    rows: Sequence[tuple[Any, ...]],
    checkpoint: str | None = None,
    steps_per_batch: int = 1,
    plan: Mapping[str, Sequence[int]] | None = None,
    global_tasks: int = GLOBAL_TABLE_TASKS,
) -> list[tuple[Any, ...]]:
    """Run one join kind's records (``STEP_COLUMNS`` + ``SPEC_COLUMNS`` tuples) to completion; the rows
    the sink received (``OUTPUT_DDL``). With a ``checkpoint`` directory a query resumes where the last one
    on it stopped: its state and the next processing step come from the checkpoint. ``plan``: scenario ids
    fed their own micro-batches (``streaming.feed.micro_batches``); ``global_tasks``: the tasks of a
    stream-globaltable scenario (``with_tasks``)."""
    tasked = with_tasks(join, rows, global_tasks)
    if checkpoint is not None:
        stream = stepped_stream_of_rows(spark, tasked, (), FEED_SCHEMA, steps_per_batch, plan)
        return _run_resumable(spark, _stateful(stream, join), checkpoint)
    name = f"kjoin_stateful_{next(_queries)}"
    query: StreamingQuery | None = None
    with fresh_checkpoints() as checkpoints:
        if (spark.sparkContext.master or "").startswith("local"):  # no Python worker for the feed (feed.py)
            folder = checkpoints / f"{name}-input"
            stream = stepped_file_stream(spark, tasked, folder, (), FEED_SCHEMA, steps_per_batch, plan)
        else:  # the tasks may run on other machines: the feed travels inside the source
            stream = stepped_stream_of_rows(spark, tasked, (), FEED_SCHEMA, steps_per_batch, plan)
        output = _stateful(stream, join)
        try:
            with query_settings(spark):
                writer = output.writeStream.format("memory").queryName(name).outputMode("append")
                query = writer.option("checkpointLocation", str(checkpoints / name)).start()
            query.processAllAvailable()
            return [tuple(row) for row in spark.table(name).collect()]
        finally:
            if query is not None:
                query.stop()
            spark.catalog.dropTempView(name)


def _stateful(stream: DataFrame, join: str) -> DataFrame:
    """The stateful operator over the fed rows: one group per task, ``KafkaTaskProcessor`` in each."""
    return stream.groupBy("scenario_id", "task").transformWithStateInPandas(
        statefulProcessor=KafkaTaskProcessor(join),
        outputStructType=OUTPUT_DDL,
        outputMode="Append",
        timeMode="None",
    )


def with_tasks(join: str, rows: Sequence[tuple[Any, ...]], tasks: int) -> list[tuple[Any, ...]]:
    """``rows`` with the Kafka task each goes to appended: task 0 but for a stream-globaltable join, whose
    stream records go to ``crc32(key) % tasks`` (null keys by their index) and whose global-table records
    go to every task (a copy each, same ``idx``)."""
    if join != "stream-globaltable":
        return [(*row, 0) for row in rows]
    tasked: list[tuple[Any, ...]] = []
    for row in rows:
        _scenario, idx, side, key = row[:4]
        if side == "right":
            tasked.extend((*row, task) for task in range(tasks))
        else:
            spread = int(idx) if key is None else zlib.crc32(str(key).encode("utf-8"))
            tasked.append((*row, spread % tasks))
    return tasked


def _run_resumable(spark: SparkSession, output: DataFrame, checkpoint: str) -> list[tuple[Any, ...]]:
    """Run to completion on a checkpoint (the memory sink cannot recover from one: ``foreachBatch`` can);
    the rows this run's micro-batches emitted."""
    received: list[tuple[Any, ...]] = []

    def collect(batch: DataFrame, _batch_id: int) -> None:
        received.extend(tuple(row) for row in batch.collect())

    query: StreamingQuery | None = None
    try:
        with query_settings(spark):
            writer = output.writeStream.foreachBatch(collect).option("checkpointLocation", checkpoint)
            query = writer.outputMode("append").start()
        query.processAllAvailable()
        return received
    finally:
        if query is not None:
            query.stop()
