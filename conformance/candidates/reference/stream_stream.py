"""KStream-KStream windowed joins (spec SS-1) for many scenarios at once, on Spark DataFrames.

Set-based parts (window functions and array functions over ``(scenario_id, ...)`` partitions):

* each side's window-store time (max ts put into that store before a record, spec SS-7, SS-9) and the shared
  stream time (spec SS-17) are running maxima over ``(scenario_id)`` in processing order;
* the matches of a record (the probe) are the earlier records of the other side with the same key that lie in
  its window (both bounds inclusive) and that the other side's store still returns when the probe fetches
  (spec SS-7, SS-8, SS-9, in-memory or RocksDB rules). They are collected with a window over ``(scenario_id,
  key)`` and filtered and sorted in fetch order (ts, then insertion) with array functions; each match is one
  joined result with ts ``max(left ts, right ts)`` from 2.3 (spec SS-4);
* a left/outer probe without any match is emitted at once (``joiner(v, null)``, spec SS-13), unless the
  spurious-free rules (spec SS-14, SS-20, 3.1+ with a grace) hold it back; null-key records of the preserved
  side are forwarded at once from 3.7 (spec SS-10).

Sequential part: when the held records are emitted. The emission pass of spec SS-23, SS-24 depends on the
state the previous passes left behind (the shared ``minTime`` with the 3.8+ "last visited" quirk, and the
outer store's iteration order), so it is a per-scenario state machine run with ``applyInPandas``
(``outer_store.emit_held_records``). It receives only facts computed set-based here: stream time, which
records trigger a pass, which are emitted at once if unmatched, and every record's matches.
"""

from __future__ import annotations

from pyspark.sql import Column, DataFrame, Window
from pyspark.sql import functions as F

from kjoin.conformance.candidates.reference.frames import by_scenario, emission, running_max_before, side_is
from kjoin.conformance.candidates.reference.outer_store import (
    HELD_INPUT_COLUMNS,
    HELD_OUTPUT_SCHEMA,
    emit_held_records,
)

__all__ = ["PROBE_COLUMNS", "retained_sql", "store_retention", "stream_stream_emissions"]

PROBE_COLUMNS = (
    "scenario_id",
    "idx",
    "key",
    "ts",
    "before",
    "after",
    "memory",
    "retention",
    "obs_left",
    "obs_right",
    "rocksdb_window_expiry_is_exact",
    "rocksdb_segments_expire_by_retention",
)
"""What a probe takes into the bucketed range join (``_with_matches``, and the self-join's
``self_join._with_partners``): which record it is, its time and window, and what ``retained_sql`` reads of
the store it fetches from."""

DAY_MS = 24 * 60 * 60 * 1000
MIN_SEGMENT_INTERVAL_MS = 60_000

# order of the outputs of one input record (spec SS-18: the emission pass runs before the record's own
# results)
_PASS, _JOINED, _UNJOINED = 0, 1, 2


def stream_stream_emissions(rec: DataFrame) -> DataFrame:
    """All outputs of the stream-stream scenarios in ``rec`` (emission layout of ``frames``)."""
    probes = _with_matches(_annotated(rec))
    rows = probes.select("*", F.posexplode_outer("matches").alias("position", "match")).filter(
        F.col("match").isNotNull() | (F.col("outer_side") & F.col("immediate"))
    )
    joined = F.col("match").isNotNull()
    left_side = side_is("left")
    own, other = F.col("value"), F.col("match.value")
    direct = emission(
        rows,
        key=F.col("key"),
        left=F.when(left_side, own).when(joined, other),
        right=F.when(~left_side, own).when(joined, other),
        ts=F.when(joined & F.col("stream_join_ts_is_max_of_inputs"), F.greatest("ts", "match.ts")).otherwise(
            F.col("ts")
        ),
        idx=F.col("idx"),
        o1=F.when(joined, _JOINED).otherwise(_UNJOINED),
        o2=F.coalesce(F.col("position"), F.lit(0)),
    )
    # the state machine only needs the spurious-free scenarios: select them before the windows run again
    held_probes = _with_matches(_annotated(rec.filter(_spurious_free())))
    held = _held_emissions(held_probes.filter(F.col("key").isNotNull()))
    return direct.unionByName(held)


def _spurious_free() -> Column:
    """spec SS-14: a left/outer join built with ``ofTimeDifferenceAndGrace`` (a grace and not the deprecated
    ``of().grace()``) on 3.1+ holds non-joined results back; every other join emits them at once."""
    return (
        F.col("has_spurious_free_outer_joins")
        & F.col("grace").isNotNull()
        & ~F.col("legacy")
        & (F.col("variant") != "inner")
    )


def _annotated(rec: DataFrame) -> DataFrame:
    """Per-record facts: store times before the record, stream time after it, and the record's role."""
    left, right = side_is("left"), side_is("right")
    keyed, valued = F.col("key").isNotNull(), F.col("value").isNotNull()
    memory = (F.col("stores") == "memory") & F.col("stream_joins_can_use_in_memory_stores")
    # spec SS-9: a null value reaches the store's put; in-memory stores (and RocksDB before KAFKA-9921)
    # advance
    # their observed time with it although nothing is stored
    advances = keyed & (valued | memory | ~F.col("rocksdb_join_stores_skip_null_values"))
    # spec SS-17: stream time counts every record from 3.7, before that only the joinable ones
    counts = F.col("null_records_advance_stream_time") | (keyed & valued)
    variant = F.col("variant")
    outer_side = (variant == "outer") | ((variant == "left") & left)
    spurious_free = _spurious_free()
    join_after = F.when(left, F.col("after")).otherwise(F.col("before"))
    stream_time = F.max(F.when(counts, F.col("ts"))).over(
        by_scenario().rowsBetween(Window.unboundedPreceding, 0)
    )
    # spec SS-10: from 3.7 a null-key record of a preserved side is forwarded at once; before, it is dropped
    null_key_forwarded = ~keyed & valued & F.col("left_joins_forward_null_keys") & outer_side
    return rec.withColumns(
        {
            "memory": memory,
            "stored": keyed & valued,
            "probes": (
                keyed
                & (valued | F.col("null_stream_values_are_joined"))
                & (left | (variant != "left") | F.col("left_join_is_symmetric"))
            )
            | null_key_forwarded,
            "outer_side": outer_side,
            "retention": store_retention(),
            "obs_left": running_max_before(F.when(left & advances, F.col("ts"))),
            "obs_right": running_max_before(F.when(right & advances, F.col("ts"))),
            "st": stream_time,
            "spurious_free": spurious_free,
            # spec SS-20: timeTo = max(0, ts + joinAfter) already behind stream time -> emitted at once
            "immediate": ~spurious_free
            | (F.greatest(F.col("ts") + join_after, F.lit(0)) < stream_time)
            | null_key_forwarded,
            # spec SS-18: only a joinable, in-order record runs the emission pass
            "trigger": spurious_free & keyed & valued & (F.col("ts") == stream_time),
        }
    )


def store_retention() -> Column:
    """Window-store retention: before + after + grace (2.1+, legacy grace from ``of()`` on 3.0+), else
    ``max(1 day, before + after)`` (spec SS-6, SS-15)."""
    size = F.col("before") + F.col("after")
    legacy_grace = F.greatest(F.lit(DAY_MS) - 2 * F.col("before"), F.lit(0))
    return (
        F.when(F.col("grace").isNotNull() & F.col("join_windows_have_grace"), size + F.col("grace"))
        .when(F.col("legacy_join_grace_is_set_by_of"), size + legacy_grace)
        .otherwise(F.greatest(F.lit(DAY_MS), size))
    )


def _with_matches(rec: DataFrame) -> DataFrame:
    """The probing records, each with ``matches``: the earlier stored records it joins, in fetch order.

    A stored record ``e`` matches probe ``p`` iff same key, other side, earlier index, ``left.ts - before <=
    right.ts <= left.ts + after`` and ``e`` is still returned by its store's fetch (spec SS-2, SS-7).

    A range join without a cross product per key: time is cut into buckets one window wide
    (``before + after + 1``), so the partners of a probe lie in at most two buckets, and the probe meets only
    the stored records of those buckets (an equi-join on scenario, key and bucket) before the exact
    predicate. Cost grows with the records and their actual partners, not with the square of a key's
    records.
    """
    width = F.col("before") + F.col("after") + F.lit(1)
    probes = rec.filter("probes")
    # the partner window of a probe: [ts - before, ts + after] for a left record, mirrored for a right one
    low = F.when(side_is("left"), F.col("ts") - F.col("before")).otherwise(F.col("ts") - F.col("after"))
    high = F.when(side_is("left"), F.col("ts") + F.col("after")).otherwise(F.col("ts") + F.col("before"))
    wanted = probes.filter(F.col("key").isNotNull()).select(
        *PROBE_COLUMNS,
        "side",
        F.explode(F.sequence(F.floor(low / width), F.floor(high / width))).alias("bucket"),
    )
    stored = rec.filter("stored").select(
        "scenario_id",
        "key",
        F.floor(F.col("ts") / width).alias("bucket"),
        F.struct("ts", "idx", "side", "value").alias("e"),
    )
    found = (
        wanted.join(stored, ["scenario_id", "key", "bucket"])
        .filter(F.expr(f"e.idx < idx AND {_joins('e')}"))
        .groupBy("scenario_id", "idx")
        # struct field order (ts, idx, ...) makes sort_array give the fetch order
        .agg(F.sort_array(F.collect_list("e")).alias("matches"))
    )
    empty = F.array().cast("array<struct<ts:bigint,idx:bigint,side:string,value:string>>")
    return probes.join(found, ["scenario_id", "idx"], "left").withColumn(
        "matches", F.coalesce(F.col("matches"), empty)
    )


def _joins(e: str) -> str:
    """SQL predicate: stored record ``e`` (a struct) joins the current probe row."""
    left_ts = f"(CASE WHEN side = 'left' THEN ts ELSE {e}.ts END)"
    right_ts = f"(CASE WHEN side = 'left' THEN {e}.ts ELSE ts END)"
    return (
        f"{e}.side <> side AND {right_ts} >= {left_ts} - before AND {right_ts} <= {left_ts} + after"
        f" AND {retained_sql(e)}"
    )


def retained_sql(e: str) -> str:
    """SQL predicate: stored record ``e`` is still returned by its store's fetch at probe time (spec SS-7,
    SS-8).

    In-memory stores, and RocksDB stores from 3.4, filter exactly: ``ts > observed - retention``. Older
    RocksDB stores drop whole segments (interval ``max(retention / 2, 60 s)``): from 2.1 the segments
    before ``(observed - retention) / interval``, before 2.1 all but the newest three. ``div`` truncates
    towards zero like Java's long division.
    """
    observed = f"(CASE WHEN {e}.side = 'left' THEN obs_left ELSE obs_right END)"
    interval = f"greatest(retention div 2, {MIN_SEGMENT_INTERVAL_MS})"
    return (
        f"(CASE WHEN memory OR rocksdb_window_expiry_is_exact THEN {e}.ts > {observed} - retention"
        f" WHEN rocksdb_segments_expire_by_retention"
        f" THEN {e}.ts div {interval} >= ({observed} - retention) div {interval}"
        f" ELSE {e}.ts div {interval} >= {observed} div {interval} - 2 END)"
    )


def _held_emissions(probes: DataFrame) -> DataFrame:
    """Run the spec SS-23, SS-24 emission passes of the spurious-free scenarios (sequential, see module
    docstring)."""
    rows = probes.withColumn("matched", F.transform("matches", lambda m: m["idx"])).select(
        *HELD_INPUT_COLUMNS
    )
    out = rows.groupBy("scenario_id").applyInPandas(emit_held_records, HELD_OUTPUT_SCHEMA)
    return emission(
        out,
        key=F.col("key"),
        left=F.col("left"),
        right=F.col("right"),
        ts=F.col("ts"),
        idx=F.col("idx"),
        o1=_PASS,
        o2=F.col("position"),
    )
