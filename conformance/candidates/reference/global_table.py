"""KStream-GlobalKTable joins (spec GT-1 to GT-7) for many scenarios at once, on Spark DataFrames.

Set-based: the stream records (``left``) look their *mapped* key up in the global table (``right``), which
is read in processing order (spec GT-3), so a lookup is an as-of lookup by input index. Stream and table
rows are put in one window per ``(scenario_id, lookup key)`` (the table key of a table row, the mapped key
of a stream row) and each stream row takes the last table row before it: a value, or a tombstone that
deleted the key. The table is never versioned and has no grace (spec GT-1), so nothing is buffered.

Which stream records reach the lookup depends on the era (spec GT-4, GT-5): before 2.7 the stream key
decides (a null key is dropped; a null mapped key fails the join before 1.0.1, which an output DataFrame
cannot express: such a record emits nothing, and ``kjoin run`` reports the scenario the oracle refuses);
from 2.7 the mapped key does (a null one is dropped, also by a left join, until KIP-962 keeps a null-key
record and KAFKA-19208 every record of a left join).
"""

from __future__ import annotations

from pyspark.sql import Column, DataFrame, Window
from pyspark.sql import functions as F

from kjoin.conformance.candidates.reference.frames import emission, side_is

__all__ = ["global_table_emissions", "mapped_key"]


def mapped_key() -> Column:
    """The table key a stream record maps to (``key_mapper``, spec GT-2); null is a null mapped key.

    ``key``: the record's key. ``colon-prefix``: the text before the first ``:`` of the value (the whole
    value without one; an empty prefix is null). ``comma-second``: the second field of the value split at
    ``,`` with trailing empty fields dropped, as Java's ``String#split``; null without one. ``always-null``:
    null. A null value maps to null with every mapper but ``key``.
    """
    value = F.col("value")
    prefix = F.substring_index(value, ":", 1)
    fields = F.split(F.regexp_replace(value, ",+$", ""), ",")
    mapper = F.col("key_mapper")
    return (
        F.when(mapper == "key", F.col("key"))
        .when(value.isNull(), F.lit(None))
        .when(mapper == "colon-prefix", F.when(prefix != "", prefix))
        .when(mapper == "comma-second", F.when(F.size(fields) > 1, F.element_at(fields, 2)))
        .cast("string")
    )


def _kept(mapped: Column) -> Column:
    """Whether a stream record with a value reaches the lookup (spec GT-4, GT-5)."""
    keyed, is_left = F.col("key").isNotNull(), F.col("variant") == "left"
    by_stream_key = keyed & (mapped.isNotNull() | (is_left & ~F.col("null_mapped_key_fails_global_join")))
    by_mapped_key = mapped.isNotNull() | (
        is_left
        & (
            F.col("global_left_join_keeps_null_mapped_keys")
            | (~keyed & F.col("left_joins_forward_null_keys"))
        )
    )
    return F.when(F.col("global_join_drops_by_mapped_key"), by_mapped_key).otherwise(by_stream_key)


def global_table_emissions(rec: DataFrame) -> DataFrame:
    """All outputs of the stream-globaltable scenarios in ``rec`` (emission layout of ``frames``)."""
    stream, table = side_is("left"), side_is("right")
    annotated = rec.withColumn("mapped", F.when(stream, mapped_key())).withColumn(
        "lookup_key", F.when(stream, F.col("mapped")).otherwise(F.col("key"))
    )
    # spec GT-3: a table row with a key is an update (a null value deletes the key), a null-key one is skipped
    update = F.when(table & F.col("key").isNotNull(), F.struct(F.col("value").alias("value")))
    before = (
        Window.partitionBy("scenario_id", "lookup_key")
        .orderBy("idx")
        .rowsBetween(Window.unboundedPreceding, -1)
    )
    looked_up = annotated.withColumn("found", F.last(update, ignorenulls=True).over(before)).filter(
        stream & F.col("value").isNotNull() & _kept(F.col("mapped"))
    )
    # spec GT-6: the stream record's key, value and timestamp; a null mapped key finds nothing
    table_value = F.when(F.col("mapped").isNotNull(), F.col("found")["value"])
    return emission(
        looked_up.withColumn("table_value", table_value).filter(
            (F.col("variant") == "left") | F.col("table_value").isNotNull()
        ),
        key=F.col("key"),
        left=F.col("value"),
        right=F.col("table_value"),
        ts=F.col("ts"),
        idx=F.col("idx"),
    )
