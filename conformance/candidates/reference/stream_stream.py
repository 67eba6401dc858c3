"""KStream-KStream windowed joins (SEMANTICS.md §1) for many scenarios at once, on Spark DataFrames.

Set-based parts (window functions and joins, no per-record loop):

* each side's window-store time (max ts put into that store before a record, §1.1-§1.2) and the shared
  stream time (§1.7 step 1) are running maxima over ``(scenario_id, idx)``;
* every joined result is one row of a self-join of the records on ``(scenario_id, key)``: a later record
  (the probe) meets an earlier record of the other side that lies in its window (both bounds inclusive)
  and is still retained by that side's store when the probe fetches (§1.2, in-memory or RocksDB rules).
  Its ts is ``max(left ts, right ts)`` from 2.3 (§1.3); rows of one probe come in fetch order (ts, index);
* a left/outer probe without any match is emitted at once (``joiner(v, null)``, §1.6), unless the
  spurious-free rules (§1.7, 3.1+ with a grace) hold it back; null-key records of the preserved side are
  forwarded at once from 3.7 (§1.4).

Sequential part: when the held records are emitted. The emission pass of §1.7 depends on the state the
previous passes left behind (the shared ``minTime`` with the 3.8+ "last visited" quirk, and the outer store's
iteration order), so it is a per-scenario state machine run with ``applyInPandas``
(``outer_store.emit_held_records``). It receives only facts computed set-based above: which records hold,
which trigger a pass, and at which index each held record is first matched (and so deleted).
"""

from __future__ import annotations

from pyspark.sql import Column, DataFrame, Window
from pyspark.sql import functions as F

from conformance.candidates.reference.frames import (
    by_scenario,
    emission,
    running_max_before,
    side_is,
)
from conformance.candidates.reference.outer_store import HELD_INPUT_COLUMNS, HELD_OUTPUT_SCHEMA, emit_held_records

__all__ = ["stream_stream_emissions"]

DAY_MS = 24 * 60 * 60 * 1000
MIN_SEGMENT_INTERVAL_MS = 60_000

# order of the outputs of one input record (§1.7: the emission pass runs before the record's own results)
_PASS, _JOINED, _UNJOINED = 0, 1, 2


def stream_stream_emissions(rec: DataFrame) -> DataFrame:
    """All outputs of the stream-stream scenarios in ``rec`` (emission layout of ``frames``)."""
    rec = _annotated(rec)
    pairs = _matches(rec)
    joined = emission(
        pairs,
        key=F.col("key"),
        left=F.when(F.col("p_side") == "left", F.col("p_value")).otherwise(F.col("e_value")),
        right=F.when(F.col("p_side") == "left", F.col("e_value")).otherwise(F.col("p_value")),
        ts=F.when(F.col("p_max_ts"), F.greatest("p_ts", "e_ts")).otherwise(F.col("p_ts")),
        idx=F.col("p_idx"),
        o1=_JOINED,
        o2=F.col("e_ts"),
        o3=F.lpad(F.col("e_idx").cast("string"), 19, "0"),
    )
    matched = pairs.select("scenario_id", F.col("p_idx").alias("idx")).distinct()
    unmatched = rec.filter(F.col("probes") & F.col("outer_side")).join(matched, ["scenario_id", "idx"], "left_anti")
    eager = emission(
        unmatched.filter(F.col("immediate")),
        key=F.col("key"),
        left=F.when(side_is("left"), F.col("value")),
        right=F.when(side_is("right"), F.col("value")),
        ts=F.col("ts"),
        idx=F.col("idx"),
        o1=_UNJOINED,
    )
    null_keys = emission(
        rec.filter(F.col("key").isNull() & F.col("value").isNotNull())
        .filter(F.col("left_joins_forward_null_keys") & F.col("outer_side")),
        key=F.col("key"),
        left=F.when(side_is("left"), F.col("value")),
        right=F.when(side_is("right"), F.col("value")),
        ts=F.col("ts"),
        idx=F.col("idx"),
        o1=_UNJOINED,
    )
    held = _held_emissions(rec, pairs, unmatched)
    return joined.unionByName(eager).unionByName(null_keys).unionByName(held)


def _annotated(rec: DataFrame) -> DataFrame:
    """Per-record facts: store times before the record, stream time after it, and the record's role."""
    left, right = side_is("left"), side_is("right")
    keyed, valued = F.col("key").isNotNull(), F.col("value").isNotNull()
    memory = (F.col("stores") == "memory") & F.col("stream_joins_can_use_in_memory_stores")
    # §1.1: a null value reaches the store's put; in-memory stores (and RocksDB before KAFKA-9921) advance
    # their observed time with it although nothing is stored
    advances = keyed & (valued | memory | ~F.col("rocksdb_join_stores_skip_null_values"))
    # §1.7 step 1: stream time counts every record from 3.7, before that only the joinable ones
    counts = F.col("null_records_advance_stream_time") | (keyed & valued)
    variant = F.col("variant")
    outer_side = (variant == "outer") | ((variant == "left") & left)
    join_after = F.when(left, F.col("after")).otherwise(F.col("before"))
    spurious_free = F.col("has_spurious_free_outer_joins") & F.col("grace").isNotNull() & (variant != "inner")
    annotated = rec.withColumns(
        {
            "memory": memory,
            "stored": keyed & valued,
            "probes": keyed
            & (valued | F.col("null_stream_values_are_joined"))
            & (left | (variant != "left") | F.col("left_join_is_symmetric")),
            "outer_side": outer_side,
            "retention": _retention(),
            "obs_left": running_max_before(F.when(left & advances, F.col("ts"))),
            "obs_right": running_max_before(F.when(right & advances, F.col("ts"))),
            "st": F.max(F.when(counts, F.col("ts"))).over(by_scenario().rowsBetween(Window.unboundedPreceding, 0)),
            "spurious_free": spurious_free,
            "join_after": join_after,
        }
    )
    return annotated.withColumns(
        {
            # §1.7 step 5: timeTo = max(0, ts + joinAfter) already behind stream time -> emit at once
            "immediate": ~F.col("spurious_free") | (F.greatest(F.col("ts") + F.col("join_after"), F.lit(0)) < F.col("st")),
            # §1.7 step 3: only a joinable, in-order record runs the emission pass
            "trigger": F.col("spurious_free") & keyed & valued & (F.col("ts") == F.col("st")),
        }
    )


def _retention() -> Column:
    """Window-store retention: before + after + grace (2.1+, legacy grace from ``of()`` on 3.0+), else
    ``max(1 day, before + after)`` (SEMANTICS.md §1.2, §1.8)."""
    size = F.col("before") + F.col("after")
    legacy_grace = F.greatest(F.lit(DAY_MS) - 2 * F.col("before"), F.lit(0))
    return (
        F.when(F.col("grace").isNotNull() & F.col("join_windows_have_grace"), size + F.col("grace"))
        .when(F.col("legacy_join_grace_is_set_by_of"), size + legacy_grace)
        .otherwise(F.greatest(F.lit(DAY_MS), size))
    )


def _matches(rec: DataFrame) -> DataFrame:
    """Every (probe, stored record) pair that joins: same key, other side, earlier index, inside the
    window and still retained by the stored record's store at fetch time (SEMANTICS.md §1.2)."""
    probe = rec.filter("probes").select(
        "scenario_id",
        "key",
        F.col("idx").alias("p_idx"),
        F.col("side").alias("p_side"),
        F.col("value").alias("p_value"),
        F.col("ts").alias("p_ts"),
        F.col("obs_left").alias("p_obs_left"),
        F.col("obs_right").alias("p_obs_right"),
        F.col("stream_join_ts_is_max_of_inputs").alias("p_max_ts"),
        "before",
        "after",
        "retention",
        "memory",
        "rocksdb_window_expiry_is_exact",
        "rocksdb_segments_expire_by_retention",
    )
    stored = rec.filter("stored").select(
        "scenario_id",
        "key",
        F.col("idx").alias("e_idx"),
        F.col("side").alias("e_side"),
        F.col("value").alias("e_value"),
        F.col("ts").alias("e_ts"),
    )
    left_ts = F.when(F.col("p_side") == "left", F.col("p_ts")).otherwise(F.col("e_ts"))
    right_ts = F.when(F.col("p_side") == "left", F.col("e_ts")).otherwise(F.col("p_ts"))
    in_window = (right_ts >= left_ts - F.col("before")) & (right_ts <= left_ts + F.col("after"))
    return probe.join(stored, ["scenario_id", "key"]).where(
        (F.col("e_idx") < F.col("p_idx")) & (F.col("e_side") != F.col("p_side")) & in_window & _retained()
    )


def _retained() -> Column:
    """Whether the stored record ``e`` is still returned by its store's fetch at probe time (§1.2).

    In-memory stores, and RocksDB stores from 3.4, filter exactly: ``ts > observed - retention``. Older
    RocksDB stores drop whole segments (interval ``max(retention / 2, 60 s)``): from 2.1 the segments
    before ``(observed - retention) / interval``, before 2.1 all but the newest three. ``div`` truncates
    towards zero like Java's long division.
    """
    observed = "(CASE WHEN e_side = 'left' THEN p_obs_left ELSE p_obs_right END)"
    interval = f"greatest(retention div 2, {MIN_SEGMENT_INTERVAL_MS})"
    return F.expr(
        f"""CASE WHEN memory OR rocksdb_window_expiry_is_exact THEN e_ts > {observed} - retention
        WHEN rocksdb_segments_expire_by_retention
        THEN e_ts div {interval} >= ({observed} - retention) div {interval}
        ELSE e_ts div {interval} >= {observed} div {interval} - 2 END"""
    )


def _held_emissions(rec: DataFrame, pairs: DataFrame, unmatched: DataFrame) -> DataFrame:
    """Run the §1.7 emission passes of the spurious-free scenarios (sequential, see module docstring)."""
    first_match = pairs.groupBy("scenario_id", F.col("e_idx").alias("idx")).agg(F.min("p_idx").alias("matched_at"))
    held = unmatched.filter(~F.col("immediate")).select("scenario_id", "idx", F.lit(True).alias("held"))
    rows = (
        rec.filter("spurious_free")
        .join(held, ["scenario_id", "idx"], "left")
        .join(first_match, ["scenario_id", "idx"], "left")
        .select(*HELD_INPUT_COLUMNS)
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
