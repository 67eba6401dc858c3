"""Spark's own Structured Streaming joins, with only the thin adapter a user porting a Kafka Streams join
would write. Used by the ``spark-native`` candidate.

* KStream-KStream -> a stream-stream join on ``(scenario_id, key)`` with an event-time range condition
  ``l.ts - before <= r.ts <= l.ts + after`` (inner, left outer, full outer), both sides watermarked.
  Records with a null value are filtered out first (Kafka ignores them since KIP-77), and a joined row
  carries ``max(l.ts, r.ts)`` (Kafka 2.3+).
* KStream-KTable -> a stream-static join: the table is a static table of versions, each valid from the
  processing step of its update to the next update of its key (what a stream-static join sees of a
  table that another job keeps updating between micro-batches); inner or left outer, output ts = the
  stream record's.

Both queries are fed one processing step per micro-batch (``kjoin.conformance.streaming.feed``) and
serve all scenarios at once: the scenario id is part of the join key.

Why the watermark delay is huge and a flush follows the input: Spark's watermark is one value per query
(Kafka's stream time is per partition), so the scenarios that share the query would push each other's
records behind the watermark. The delay is therefore longer than any scenario (nothing is late, no state
expires during the run), and after the last step one sentinel record per side moves the watermark past
everything (and a second one lets a micro-batch apply it), so that Spark emits each left/outer join's
unmatched rows, as it eventually would.
"""

from __future__ import annotations

import itertools
from typing import TYPE_CHECKING

from pyspark.sql import Column, Window
from pyspark.sql import functions as F

from kjoin.conformance.streaming.checkpoints import fresh_checkpoints
from kjoin.conformance.streaming.feed import stepped_stream

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession

__all__ = ["GENEROUS_DELAY_MS", "stream_stream_join", "stream_table_join"]

GENEROUS_DELAY_MS = 10**13
"""Watermark delay and range slack (about 317 years): longer than any scenario's timestamps."""

_FLUSH_TS = 3 * GENEROUS_DELAY_MS
_EPOCH_SHIFT_MS = 1
_FLUSH_ID = "__kjoin_watermark_flush__"
_SPARK_JOIN_TYPES = {"inner": "inner", "left": "left_outer", "outer": "full_outer"}
_OUTPUT_COLUMNS = ("scenario_id", "key", "left", "right", "tombstone", "ts")
_query_names = itertools.count()


def _side(stream: DataFrame, side: str, prefix: str) -> DataFrame:
    """One side's records with their event time. Spark's watermark starts at the epoch and a join drops
    rows at or below it as late; scenario timestamps start at 0 (real ones do not), hence the 1 ms shift
    (the join condition itself uses the unshifted ``ts``)."""
    columns = ("scenario_id", "idx", "key", "value", "ts")
    return stream.where(F.col("side") == side).select(
        *(F.col(name).alias(f"{prefix}{name}") for name in columns),
        F.timestamp_millis(F.col("ts") + _EPOCH_SHIFT_MS).alias(f"{prefix}ets"),
    )


def _run_to_frame(spark: SparkSession, output: DataFrame) -> DataFrame:
    """Run a streaming query to the end of its input and return what it emitted as a batch DataFrame."""
    name = f"kjoin_native_{next(_query_names)}"
    with fresh_checkpoints() as checkpoints:
        writer = output.writeStream.format("memory").queryName(name).outputMode("append")
        query = writer.option("checkpointLocation", str(checkpoints / name)).start()
        try:
            query.processAllAvailable()
        finally:
            query.stop()
    rows = spark.table(name).collect()
    spark.catalog.dropTempView(name)
    return spark.createDataFrame(rows, output.schema)


def stream_stream_join(spark: SparkSession, inputs: DataFrame, specs: DataFrame) -> DataFrame:
    """All stream-stream scenarios in one streaming query (one join per variant, unioned)."""
    too_late = inputs.where(F.col("ts") >= GENEROUS_DELAY_MS).limit(1).collect()
    if too_late:
        raise ValueError(f"timestamps must stay below {GENEROUS_DELAY_MS} ms, got {too_late[0].ts}")
    # two flush steps: the first moves the watermark, the second is the data batch that applies it (a
    # no-data batch would do too, but processAllAvailable() may return before it runs). No null field:
    # Spark pushes the join's inferred "key is not null" filters below the watermark.
    flush = [(_FLUSH_ID, 0, side, _FLUSH_ID, "flush", _FLUSH_TS) for side in ("left", "right")]
    stream = stepped_stream(spark, inputs, extra_steps=[flush, flush]).where(F.col("value").isNotNull())
    windows = F.broadcast(specs.select("scenario_id", "variant", "before", "after"))
    delay = f"{GENEROUS_DELAY_MS} milliseconds"
    left = _side(stream, "left", "l_").withWatermark("l_ets", delay)
    right = _side(stream, "right", "r_").withWatermark("r_ets", delay)
    left = left.join(windows.withColumnsRenamed({"scenario_id": "l_scenario_id"}), "l_scenario_id")
    right = right.join(
        windows.select(F.col("scenario_id").alias("r_scenario_id"), F.col("variant").alias("r_variant")),
        "r_scenario_id",
    )
    slack = F.expr(f"INTERVAL {GENEROUS_DELAY_MS // 1000} SECONDS")
    condition: Column = (
        (F.col("l_scenario_id") == F.col("r_scenario_id"))
        & (F.col("l_key") == F.col("r_key"))
        & F.col("r_ts").between(F.col("l_ts") - F.col("before"), F.col("l_ts") + F.col("after"))
        & F.col("r_ets").between(F.col("l_ets") - slack, F.col("l_ets") + slack)
    )
    variants = sorted({row.variant for row in specs.select("variant").distinct().collect()})
    joined = [
        left.where(F.col("variant") == variant).join(
            right.where(F.col("r_variant") == variant), condition, _SPARK_JOIN_TYPES[variant]
        )
        for variant in variants
    ]
    union = joined[0]
    for frame in joined[1:]:
        union = union.unionByName(frame)
    output = union.select(
        F.coalesce("l_scenario_id", "r_scenario_id").alias("scenario_id"),
        F.coalesce("l_key", "r_key").alias("key"),
        F.col("l_value").alias("left"),
        F.col("r_value").alias("right"),
        F.lit(False).alias("tombstone"),
        F.greatest("l_ts", "r_ts").alias("ts"),
    )
    return _run_to_frame(spark, output)


def stream_table_join(spark: SparkSession, inputs: DataFrame, specs: DataFrame) -> DataFrame:
    """All stream-table scenarios in one streaming query: the stream joined with a static version table."""
    updates = inputs.where((F.col("side") == "right") & F.col("key").isNotNull())
    later = F.lead("idx").over(Window.partitionBy("scenario_id", "key").orderBy("idx"))
    versions = (
        updates.withColumn("valid_to", later)
        .where(F.col("value").isNotNull())
        .select(
            F.col("scenario_id").alias("t_scenario_id"),
            F.col("key").alias("t_key"),
            F.col("value").alias("t_value"),
            F.col("idx").alias("valid_from"),
            "valid_to",
        )
    )
    stream = stepped_stream(spark, inputs.where(F.col("side") == "left"))
    records = stream.where(F.col("value").isNotNull()).join(
        F.broadcast(specs.select("scenario_id", "variant")), "scenario_id"
    )
    condition = (
        (F.col("scenario_id") == F.col("t_scenario_id"))
        & (F.col("key") == F.col("t_key"))
        & (F.col("valid_from") < F.col("idx"))
        & (F.col("valid_to").isNull() | (F.col("idx") < F.col("valid_to")))
    )
    variants = sorted({row.variant for row in specs.select("variant").distinct().collect()})
    joined = [
        records.where(F.col("variant") == variant).join(versions, condition, _SPARK_JOIN_TYPES[variant])
        for variant in variants
    ]
    union = joined[0]
    for frame in joined[1:]:
        union = union.unionByName(frame)
    output = union.select(
        "scenario_id",
        "key",
        F.col("value").alias("left"),
        F.col("t_value").alias("right"),
        F.lit(False).alias("tombstone"),
        "ts",
    )
    return _run_to_frame(spark, output)
