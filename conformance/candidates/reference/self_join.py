"""Self-joins, a stream joined with itself (spec SJ-1 to SJ-6), for many scenarios at once, on Spark.

Every record of a self-join scenario is a ``left`` record of its one stream. Which topology runs is a
column predicate (spec SJ-1): the single-store rewrite for ``optimization = "all"`` on 3.4+, else the
two-store join.

* **Unrewritten** (spec SJ-2): the source hands each record to the left side and then to the right side, so
  the join is the two-sided stream-stream join of ``stream_stream`` over the records doubled, record ``i``
  as left record ``2i`` and right record ``2i + 1``. Its outputs are mapped back to input ``i``, those of
  ``2i`` before those of ``2i + 1``.
* **Rewritten** (spec SJ-3 to SJ-6): set-based like ``stream_stream``. Each record with a key and a value
  fetches the one store's earlier records of its key twice, over ``[t - before, t + after]`` (itself as the
  left value) and over ``[t - after, t + before]`` (as the right value), in fetch order; its pairing with
  itself joins the second list before the first partner later than ``t``, while ``t > streamTime -
  retention + 1``. Inner results only, whatever the variant.
"""

from __future__ import annotations

from pyspark.sql import Column, DataFrame, Window
from pyspark.sql import functions as F

from kjoin.conformance.candidates.reference.frames import by_scenario, emission, running_max_before
from kjoin.conformance.candidates.reference.stream_stream import (
    PROBE_COLUMNS,
    retained_sql,
    store_retention,
    stream_stream_emissions,
)

__all__ = ["self_join_emissions"]

_FIRST, _SECOND = 0, 1
_ENTRY = "array<struct<ts:bigint,idx:bigint,side:string,value:string>>"


def self_join_emissions(rec: DataFrame) -> DataFrame:
    """All outputs of the self-join scenarios in ``rec`` (emission layout of ``frames``)."""
    rewritten = (F.col("optimization") == "all") & F.col("self_join_is_rewritten_by_optimization")
    return _unrewritten(rec.filter(~rewritten)).unionByName(_rewritten(rec.filter(rewritten)))


def _unrewritten(rec: DataFrame) -> DataFrame:
    """The two-store join over the doubled records, its outputs mapped back (spec SJ-2)."""
    copy = F.col("copy")
    doubled = rec.withColumn("copy", F.explode(F.array(F.lit(0), F.lit(1)))).withColumns(
        {"idx": F.col("idx") * 2 + copy, "side": F.when(copy == 0, "left").otherwise("right")}
    )
    outputs = stream_stream_emissions(doubled)
    within = Window.partitionBy("scenario_id", "idx").orderBy("_o1", "_o2", "_o3")
    return outputs.select(
        "scenario_id",
        "key",
        "left",
        "right",
        "tombstone",
        "ts",
        F.floor(F.col("idx") / 2).cast("long").alias("idx"),
        (F.col("idx") % 2).cast("long").alias("_o1"),
        F.row_number().over(within).cast("long").alias("_o2"),
        F.lit("").alias("_o3"),
    )


def _rewritten(rec: DataFrame) -> DataFrame:
    """``KStreamKStreamSelfJoin`` (spec SJ-3 to SJ-6)."""
    probes = _with_partners(_annotated(rec))
    ts = F.col("ts")
    first = probes.select("*", F.posexplode("first").alias("position", "partner"))
    second = probes.select("*", F.posexplode("second").alias("position", "partner"))
    self_due = ts > F.col("st") - F.col("retention") + 1
    partner = F.col("partner")
    as_left = emission(
        first,
        key=F.col("key"),
        left=F.col("value"),
        right=partner["value"],
        ts=F.greatest(ts, partner["ts"]),
        idx=F.col("idx"),
        o1=_FIRST,
        o2=F.col("position"),
    )
    # spec SJ-5: the pairing with itself takes the place of the first partner later than the record
    as_right = emission(
        second,
        key=F.col("key"),
        left=partner["value"],
        right=F.col("value"),
        ts=F.greatest(ts, partner["ts"]),
        idx=F.col("idx"),
        o1=_SECOND,
        o2=F.col("position") + F.when(self_due & (partner["ts"] > ts), 1).otherwise(0),
    )
    with_itself = emission(
        probes.filter(self_due),
        key=F.col("key"),
        left=F.col("value"),
        right=F.col("value"),
        ts=ts,
        idx=F.col("idx"),
        o1=_SECOND,
        o2=F.size(F.filter("second", lambda e: e["ts"] <= ts)),
    )
    return as_left.unionByName(as_right).unionByName(with_itself)


def _annotated(rec: DataFrame) -> DataFrame:
    """The one store's observed time before each record, the processor's stream time with it (spec SJ-6:
    only records with a key and a value count), retention and the store kind."""
    keyed, valued = F.col("key").isNotNull(), F.col("value").isNotNull()
    memory = (F.col("stores") == "memory") & F.col("stream_joins_can_use_in_memory_stores")
    # spec SS-9: a null value with a key reaches the store's put and may advance its observed time
    advances = keyed & (valued | memory | ~F.col("rocksdb_join_stores_skip_null_values"))
    observed = running_max_before(F.when(advances, F.col("ts")))
    return rec.withColumns(
        {
            "memory": memory,
            "joinable": keyed & valued,
            "retention": store_retention(),
            "obs_left": observed,
            "obs_right": observed,
            "st": F.max(F.when(keyed & valued, F.col("ts"))).over(
                by_scenario().rowsBetween(Window.unboundedPreceding, 0)
            ),
        }
    )


def _in_window(e: Column, low: Column, high: Column) -> Column:
    return (e["ts"] >= low) & (e["ts"] <= high)


def _with_partners(rec: DataFrame) -> DataFrame:
    """The joinable records, each with ``first`` and ``second``: the earlier stored records of its key that
    the store still returns over each of the two fetch ranges (spec SJ-4, SJ-5), in fetch order.

    The same bucketed range join as ``stream_stream``: buckets one window wide, a probe meets the stored
    records of the buckets its wider range touches, then the exact predicates.
    """
    width = F.col("before") + F.col("after") + F.lit(1)
    reach = F.greatest(F.col("before"), F.col("after"))
    probes = rec.filter("joinable")
    wanted = probes.select(
        *PROBE_COLUMNS,
        F.explode(
            F.sequence(F.floor((F.col("ts") - reach) / width), F.floor((F.col("ts") + reach) / width))
        ).alias("bucket"),
    )
    stored = probes.select(
        "scenario_id",
        "key",
        F.floor(F.col("ts") / width).alias("bucket"),
        F.struct("ts", "idx", "side", "value").alias("e"),
    )
    e, ts, before, after = F.col("e"), F.col("ts"), F.col("before"), F.col("after")
    found = (
        wanted.join(stored, ["scenario_id", "key", "bucket"])
        .filter(F.expr(f"e.idx < idx AND {retained_sql('e')}"))
        .groupBy("scenario_id", "idx")
        # struct field order (ts, idx, ...) makes sort_array give the fetch order
        .agg(
            F.sort_array(F.collect_list(F.when(_in_window(e, ts - before, ts + after), e))).alias("first"),
            F.sort_array(F.collect_list(F.when(_in_window(e, ts - after, ts + before), e))).alias("second"),
        )
    )
    empty = F.array().cast(_ENTRY)
    return probes.join(found, ["scenario_id", "idx"], "left").withColumns(
        {"first": F.coalesce(F.col("first"), empty), "second": F.coalesce(F.col("second"), empty)}
    )
