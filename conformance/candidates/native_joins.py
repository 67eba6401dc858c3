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
* KStream-GlobalKTable -> the enrichment join as a Spark user writes it: the global table's topic read
  once as a static DataFrame when the query starts (the last value of each key, tombstoned keys left
  out), and the stream joined with it (inner or left outer) on the key mapper written as a column
  expression; output key and ts the stream record's. The static side is what the table holds before the
  stream's first record: later updates never reach it (``stream_global_table_join``).
* A self-join (``s.join(s, ...)``) -> the same stream-stream join with one streaming DataFrame on both
  sides: every record is a left record and a right record of the one query (``stream_self_join``).

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
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from pyspark.sql import Column, Window
from pyspark.sql import functions as F

from kjoin.conformance.streaming.checkpoints import fresh_checkpoints
from kjoin.conformance.streaming.feed import STEP_COLUMNS, Step, stepped_file_stream, stepped_stream_of_rows

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession

__all__ = [
    "GENEROUS_DELAY_MS",
    "mapped_key",
    "static_global_table",
    "stream_global_table_join",
    "stream_self_join",
    "stream_stream_join",
    "stream_table_join",
]

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


def _stepped(
    spark: SparkSession, inputs: DataFrame, folder: Path, extra_steps: Sequence[Step] = ()
) -> DataFrame:
    """``inputs`` as a stream that yields processing step ``n`` in micro-batch ``n``, then ``extra_steps``.
    With a local master Spark's own file source reads it from ``folder`` (new; the caller removes it after
    the query): no Python worker has to start and connect back within Spark's fixed 10 s, which a busy
    machine misses (docs/streaming.md, "On a busy machine"); on a cluster a Python streaming source."""
    rows = [tuple(row[c] for c in STEP_COLUMNS) for row in inputs.orderBy("idx", "scenario_id").collect()]
    if (spark.sparkContext.master or "").startswith("local"):
        return stepped_file_stream(spark, rows, folder, extra_steps)
    return stepped_stream_of_rows(spark, rows, extra_steps)


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
    return _windowed_join(spark, inputs, specs, partner_side="right")


def stream_self_join(spark: SparkSession, inputs: DataFrame, specs: DataFrame) -> DataFrame:
    """All self-join scenarios in one streaming query: the stream of each scenario's (left) records joined
    with itself, as a Spark user ports ``s.join(s, ...)``; the same join as ``stream_stream_join``, whatever
    the scenario's ``topology.optimization`` (a Kafka setting Spark has no counterpart of)."""
    return _windowed_join(spark, inputs, specs, partner_side="left")


def _windowed_join(spark: SparkSession, inputs: DataFrame, specs: DataFrame, partner_side: str) -> DataFrame:
    """The watermarked stream-stream join of each scenario's left records with its ``partner_side`` ones."""
    too_late = inputs.where(F.col("ts") >= GENEROUS_DELAY_MS).limit(1).collect()
    if too_late:
        raise ValueError(f"timestamps must stay below {GENEROUS_DELAY_MS} ms, got {too_late[0].ts}")
    # two flush steps: the first moves the watermark, the second is the data batch that applies it (a
    # no-data batch would do too, but processAllAvailable() may return before it runs). No null field:
    # Spark pushes the join's inferred "key is not null" filters below the watermark.
    flush = [(_FLUSH_ID, 0, side, _FLUSH_ID, "flush", _FLUSH_TS) for side in sorted({"left", partner_side})]
    with fresh_checkpoints() as feed:
        stream = _stepped(spark, inputs, feed / "input", [flush, flush]).where(F.col("value").isNotNull())
        return _run_to_frame(spark, _windowed_output(stream, specs, partner_side))


def _windowed_output(stream: DataFrame, specs: DataFrame, partner_side: str) -> DataFrame:
    """The streaming join of ``_windowed_join`` (see there) over the fed ``stream``."""
    windows = F.broadcast(specs.select("scenario_id", "variant", "before", "after"))
    delay = f"{GENEROUS_DELAY_MS} milliseconds"
    left = _side(stream, "left", "l_").withWatermark("l_ets", delay)
    right = _side(stream, partner_side, "r_").withWatermark("r_ets", delay)
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
    return output


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
    with fresh_checkpoints() as feed:
        stream = _stepped(spark, inputs.where(F.col("side") == "left"), feed / "input")
        return _run_to_frame(spark, _stream_table_output(stream, versions, specs))


def _stream_table_output(stream: DataFrame, versions: DataFrame, specs: DataFrame) -> DataFrame:
    """The stream-static join of ``stream_table_join`` (see there) over the fed ``stream``."""
    records = stream.where(F.col("value").isNotNull()).join(
        F.broadcast(specs.select("scenario_id", "variant")), "scenario_id"
    )
    condition = (
        (F.col("scenario_id") == F.col("t_scenario_id"))
        & (F.col("key") == F.col("t_key"))
        & (F.col("valid_from") < F.col("idx"))
        & (F.col("valid_to").isNull() | (F.col("idx") < F.col("valid_to")))
    )
    return _static_join_per_variant(records, versions, condition, specs)


def _static_join_per_variant(
    records: DataFrame, table: DataFrame, condition: Column, specs: DataFrame
) -> DataFrame:
    """Stream ``records`` (with their scenario's ``variant``) joined with a static ``table`` (``t_value``) by
    each scenario's own join type, as output rows."""
    variants = sorted({row.variant for row in specs.select("variant").distinct().collect()})
    joined = [
        records.where(F.col("variant") == variant).join(table, condition, _SPARK_JOIN_TYPES[variant])
        for variant in variants
    ]
    union = joined[0]
    for frame in joined[1:]:
        union = union.unionByName(frame)
    return union.select(
        "scenario_id",
        "key",
        F.col("value").alias("left"),
        F.col("t_value").alias("right"),
        F.lit(False).alias("tombstone"),
        "ts",
    )


def mapped_key(key_mapper: Column, key: Column, value: Column) -> Column:
    """The key mapper of a KStream-GlobalKTable join as a column expression (spec GT-2), chosen per row by
    the scenario's ``key_mapper``: ``key`` the stream key; ``colon-prefix`` the text before the first ``:``
    (all of it without one; empty is null); ``comma-second`` the second field of Java's
    ``value.split(",")``, which drops trailing empty fields (so it exists only if a non-empty field
    follows the first comma); ``always-null`` null."""
    colon_prefix = F.nullif(F.substring_index(value, ":", 1), F.lit(""))
    comma_second = F.when(value.rlike("^[^,]*,.*[^,]"), F.split(value, ",").getItem(1))
    return (
        F.when(key_mapper == "key", key)
        .when(key_mapper == "colon-prefix", colon_prefix)
        .when(key_mapper == "comma-second", comma_second)
    )


def static_global_table(inputs: DataFrame) -> DataFrame:
    """Each scenario's global table as a static DataFrame read when the query starts: the table records
    (``right``) processed before the scenario's first stream record, reduced as a compacted topic reads,
    the last value per key with tombstoned and null keys left out. Columns ``t_scenario_id, t_key,
    t_value``."""
    first_stream = (
        inputs.where(F.col("side") == "left").groupBy("scenario_id").agg(F.min("idx").alias("start"))
    )
    before_start = (
        inputs.where((F.col("side") == "right") & F.col("key").isNotNull())
        .join(first_stream, "scenario_id", "left")
        .where(F.col("start").isNull() | (F.col("idx") < F.col("start")))
    )
    newest = F.row_number().over(Window.partitionBy("scenario_id", "key").orderBy(F.col("idx").desc()))
    return (
        before_start.withColumn("newest", newest)
        .where((F.col("newest") == 1) & F.col("value").isNotNull())
        .select(
            F.col("scenario_id").alias("t_scenario_id"),
            F.col("key").alias("t_key"),
            F.col("value").alias("t_value"),
        )
    )


def stream_global_table_join(spark: SparkSession, inputs: DataFrame, specs: DataFrame) -> DataFrame:
    """All stream-globaltable scenarios in one streaming query: each stream record (null values filtered
    out, as Kafka drops them) joined on its mapped key with the static global table of its scenario."""
    table = spark.createDataFrame(
        static_global_table(inputs).collect(), "t_scenario_id string, t_key string, t_value string"
    )
    with fresh_checkpoints() as feed:
        stream = _stepped(spark, inputs.where(F.col("side") == "left"), feed / "input")
        return _run_to_frame(spark, _global_table_output(stream, table, specs))


def _global_table_output(stream: DataFrame, table: DataFrame, specs: DataFrame) -> DataFrame:
    """The stream-static join of ``stream_global_table_join`` (see there) over the fed ``stream``."""
    records = stream.where(F.col("value").isNotNull()).join(
        F.broadcast(specs.select("scenario_id", "variant", "key_mapper")), "scenario_id"
    )
    records = records.withColumn("mapped", mapped_key(F.col("key_mapper"), F.col("key"), F.col("value")))
    condition = (F.col("scenario_id") == F.col("t_scenario_id")) & (F.col("mapped") == F.col("t_key"))
    return _static_join_per_variant(records, F.broadcast(table), condition, specs)
