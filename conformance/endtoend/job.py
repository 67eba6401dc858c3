"""The ``spark-stateful`` port as a Kafka-in, Kafka-out streaming job.

The query reads a call's ``left`` and ``right`` topics with Spark's Kafka source (``startingOffsets``
earliest, trigger ``availableNow``), attaches each record's scenario configuration from a small static table
by partition (scenario i is partition i), groups by scenario (one Kafka task) and runs
``KafkaOrderedProcessor``: ``KafkaTaskProcessor`` of the port, after the job itself numbers each task's
records in Kafka's processing order from their coordinates (side, offset, timestamp: ``ordering``). What
the processor forwards goes to the output topic as JSON, to the scenario's partition; the harness reads it
back with a batch query.
"""

from __future__ import annotations

import itertools
import tempfile
from collections.abc import Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any

import pandas as pd

from kjoin.conformance.candidates.stateful.processor import OUTPUT_COLUMNS, OUTPUT_DDL, KafkaTaskProcessor
from kjoin.conformance.candidates.stateful.query import SPEC_COLUMNS, SPEC_DDL, query_settings
from kjoin.conformance.endtoend.builds import EndToEndError
from kjoin.conformance.endtoend.ordering import merge_positions
from kjoin.conformance.endtoend.topics import read_json_topic, topic_records
from kjoin.conformance.kafka.broker import KafkaBroker

if TYPE_CHECKING:
    from pyspark.sql import SparkSession
    from pyspark.sql.streaming.stateful_processor import StatefulProcessorHandle

__all__ = ["ORDER_SCHEMA", "KafkaOrderedProcessor", "run_through_kafka"]

ORDER_SCHEMA = "next_idx long, last_side string"
"""The task's position in its processing order: the next record's index, the side polled last."""

_calls = itertools.count()


class KafkaOrderedProcessor(KafkaTaskProcessor):
    """``KafkaTaskProcessor`` fed in Kafka's processing order: ``idx`` is each record's position in the
    task's two-partition merge (spec TK-2), computed here from the Kafka coordinates, across micro-batches."""

    def init(self, handle: StatefulProcessorHandle) -> None:
        super().init(handle)
        self.kafka_order = handle.getValueState("kafka_order", ORDER_SCHEMA)

    def handleInputRows(self, key: Any, rows: Iterator[Any], timerValues: Any) -> Iterator[pd.DataFrame]:
        records = pd.concat(list(rows), ignore_index=True)
        sides = {
            side: records[records["side"] == side].sort_values("offset", kind="stable").reset_index(drop=True)
            for side in ("left", "right")
        }
        stored = self.kafka_order.get() if self.kafka_order.exists() else None
        next_idx, last = (0, None) if stored is None else (int(stored[0]), stored[1])
        order = merge_positions(
            [int(ts) for ts in sides["left"]["ts"]], [int(ts) for ts in sides["right"]["ts"]], last
        )
        ordered = pd.DataFrame([sides[side].iloc[position] for side, position in order])
        ordered["idx"] = range(next_idx, next_idx + len(ordered))
        if order:
            self.kafka_order.update((next_idx + len(order), order[-1][0]))
        yield from super().handleInputRows(key, iter([ordered.reset_index(drop=True)]), timerValues)


def run_through_kafka(
    spark: SparkSession,
    broker: KafkaBroker,
    join: str,
    rows: Sequence[tuple[Any, ...]],
    specs: Sequence[Mapping[str, Any]],
) -> list[tuple[Any, ...]]:
    """Produce ``rows`` (``INPUT_SCHEMA`` tuples) of one join kind's scenarios (``specs``: their
    ``SPEC_SCHEMA`` rows as mappings) to fresh topics, run the job over them to completion, and read the
    output topic back: ``OUTPUT_DDL`` tuples."""
    from pyspark.sql import functions as F

    call = next(_calls)
    topics = {side: f"kjoin-{call}-{join}-{side}" for side in ("left", "right", "out")}
    scenarios = sorted(str(spec["scenario_id"]) for spec in specs)
    partitions = {scenario: number for number, scenario in enumerate(scenarios)}
    count = max(1, len(scenarios))
    broker.create_topics(dict.fromkeys(topics.values(), count))
    with broker.watched():  # a broker that dies ends the run at once (here and below)
        produced = broker.produce(topic_records(rows, partitions, topics))
    if produced != len(rows):
        raise EndToEndError(f"produced {produced} of {len(rows)} records")

    spec_table = spark.createDataFrame(
        [
            (partitions[str(spec["scenario_id"])], str(spec["scenario_id"]), *(spec[c] for c in SPEC_COLUMNS))
            for spec in specs
        ],
        "task_partition int, scenario_id string" + SPEC_DDL,
    )
    source = (
        spark.readStream.format("kafka")
        .option("kafka.bootstrap.servers", broker.bootstrap)
        .option("subscribe", f"{topics['left']},{topics['right']}")
        .option("startingOffsets", "earliest")
        .load()
        .select(
            F.when(F.col("topic") == topics["left"], "left").otherwise("right").alias("side"),
            F.col("partition").alias("task_partition"),
            "offset",
            F.col("key").cast("string").alias("key"),
            F.col("value").cast("string").alias("value"),
            F.unix_millis("timestamp").alias("ts"),
        )
    )
    tasks = source.join(spec_table, "task_partition").drop("task_partition")
    output = tasks.groupBy("scenario_id").transformWithStateInPandas(
        statefulProcessor=KafkaOrderedProcessor(join),
        outputStructType=OUTPUT_DDL,
        outputMode="Append",
        timeMode="None",
    )
    targets = spec_table.select("scenario_id", F.col("task_partition").alias("partition"))
    to_topic = output.join(targets, "scenario_id").select(
        "partition",
        F.col("scenario_id").alias("key"),
        F.to_json(F.struct(*OUTPUT_COLUMNS)).alias("value"),
    )
    with tempfile.TemporaryDirectory(prefix="kjoin-e2e-checkpoint-") as checkpoint:
        with query_settings(spark):
            query = (
                to_topic.writeStream.format("kafka")
                .option("kafka.bootstrap.servers", broker.bootstrap)
                .option("topic", topics["out"])
                .option("checkpointLocation", checkpoint)
                .outputMode("append")
                .trigger(availableNow=True)
                .start()
            )
        try:
            with broker.watched(query.stop):
                query.awaitTermination()
        finally:
            query.stop()
        if query.exception() is not None:
            raise EndToEndError(f"the Kafka job failed: {query.exception()}")
    return _read_back(spark, broker, topics["out"], partitions)


def _read_back(
    spark: SparkSession, broker: KafkaBroker, topic: str, partitions: Mapping[str, int]
) -> list[tuple[Any, ...]]:
    """The output topic's records (a batch query), each checked to be in its scenario's partition."""
    rows = []
    for partition, row in read_json_topic(spark, broker.bootstrap, topic, OUTPUT_DDL, OUTPUT_COLUMNS):
        if partitions.get(row[0]) != partition:
            raise EndToEndError(f"output for {row[0]} arrived in partition {partition}")
        rows.append(row)
    return rows
