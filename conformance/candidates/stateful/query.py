"""The streaming query behind ``spark-stateful``: the stepped input, the stateful operator, a memory sink.

Each input row carries its scenario's join configuration (variant, window, store kind, ...) as columns, so
one query serves every scenario of a join kind, however their windows differ. The records are fed one
processing step per micro-batch (``conformance.streaming.feed``), grouped by task and handed to
``KafkaTaskProcessor``. ``transformWithStateInPandas`` needs the RocksDB state store provider: the query
is started with it (and changelog checkpointing, which makes a micro-batch's commit cheaper) and the
session's settings are put back afterwards (a query keeps the configuration it started with).
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

from kjoin.conformance.candidates.stateful.processor import OUTPUT_DDL, KafkaTaskProcessor
from kjoin.conformance.streaming.feed import STEP_SCHEMA, stepped_stream_of_rows

if TYPE_CHECKING:
    from pyspark.sql import SparkSession
    from pyspark.sql.streaming.query import StreamingQuery

__all__ = ["SPEC_COLUMNS", "run_join_query"]

SPEC_COLUMNS = ("variant", "before", "after", "grace", "legacy", "stores", "intended")
_SPEC_DDL = (", variant string, before long, after long, grace long, legacy boolean, stores string, "
             "intended boolean")  # fmt: skip

PROVIDER = "spark.sql.streaming.stateStore.providerClass"
ROCKSDB_PROVIDER = "org.apache.spark.sql.execution.streaming.state.RocksDBStateStoreProvider"

QUERY_CONF = {
    PROVIDER: ROCKSDB_PROVIDER,
    "spark.sql.streaming.stateStore.rocksdb.changelogCheckpointing.enabled": "true",
}
"""What the candidate's queries start with (a query keeps the configuration it started with)."""

_queries = itertools.count()


@contextmanager
def _rocksdb_state(spark: SparkSession) -> Iterator[None]:
    """Start queries with the RocksDB state store provider, then restore the session's setting."""
    previous = {name: spark.conf.get(name, None) for name in QUERY_CONF}
    for name, value in QUERY_CONF.items():
        spark.conf.set(name, value)
    try:
        yield
    finally:
        for name, value in previous.items():
            if value is None:
                spark.conf.unset(name)
            else:
                spark.conf.set(name, value)


def run_join_query(spark: SparkSession, join: str, rows: Sequence[tuple[Any, ...]]) -> list[tuple[Any, ...]]:
    """Run one join kind's records (``STEP_COLUMNS`` + ``SPEC_COLUMNS`` tuples) to completion; the rows
    the sink received (``OUTPUT_DDL``)."""
    stream = stepped_stream_of_rows(spark, rows, (), STEP_SCHEMA + _SPEC_DDL)
    output = stream.groupBy("scenario_id").transformWithStateInPandas(
        statefulProcessor=KafkaTaskProcessor(join),
        outputStructType=OUTPUT_DDL,
        outputMode="Append",
        timeMode="None",
    )
    name = f"kjoin_stateful_{next(_queries)}"
    query: StreamingQuery | None = None
    try:
        with _rocksdb_state(spark):
            query = output.writeStream.format("memory").queryName(name).outputMode("append").start()
        query.processAllAvailable()
        return [tuple(row) for row in spark.table(name).collect()]
    finally:
        if query is not None:
            query.stop()
        spark.catalog.dropTempView(name)
