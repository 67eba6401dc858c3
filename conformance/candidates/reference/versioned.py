"""Versioned key-value stores (KIP-889/914, spec VS-1) as DataFrame columns.

A versioned table is described per record by ``history``: all accepted puts of that side for the record's key,
in processing order (a window over ``(scenario_id, key)``), as ``struct<ts, idx, value, forget>``.

Set-based parts: the store's observed stream time (a running max over the scenario), which puts it rejects
(``ts < observed - history_ms``; a rejected put never raises the max, so the max over all puts is the max over
accepted ones), which versions exist at a given input index (``_alive``), timestamped lookups (``get(key,
asOf)``, spec VS-9) and ``isLatest`` (spec VS-5).

Sequential part: the ``forget`` flag. A tombstone whose ts equals the ts of the key's current latest value
deletes that value without recording a tombstone; if no older version exists, the key is forgotten, so a later
put with a smaller ts counts as latest (spec VS-7). Whether a tombstone forgets depends on which earlier
tombstones forgot, so this is a fold over the key's puts; it runs in Spark SQL's ``aggregate`` (no Python). A
forgetting put records no version; with older versions left, recording a tombstone at that ts is
indistinguishable (lookups at or after it read null, later puts before it are not latest), which is what
``_alive`` does.
"""

from __future__ import annotations

from pyspark.sql import Column, DataFrame, Window
from pyspark.sql import functions as F

from kjoin.conformance.candidates.reference.frames import running_max_before, side_is

__all__ = [
    "accepted",
    "current_sql",
    "history",
    "is_latest_sql",
    "key_puts",
    "store_time_before",
    "versioned_get_sql",
    "with_latest_flag",
]

_VERSION = "struct<ts:bigint,idx:bigint,value:string,forget:boolean>"


def store_time_before(side: str) -> Column:
    """The versioned store's observed stream time before this record: max ts of that side's puts (spec
    VS-2)."""
    return running_max_before(F.when(side_is(side) & F.col("key").isNotNull(), F.col("ts")))


def accepted(side: str, versioned: Column, observed: Column) -> Column:
    """A put that the side's table applies: any non-null-key update of an unversioned table; for a versioned
    one only if ``ts >= observed - history_ms`` (spec VS-3: otherwise NOT_PUT, neither stored nor
    forwarded)."""
    in_history = observed.isNull() | (F.col("ts") >= observed - F.col("history_ms"))
    return side_is(side) & F.col("key").isNotNull() & (~versioned | in_history)


def key_puts(side: str, is_accepted: Column) -> Column:
    """All accepted puts of ``side`` for the record's key in processing order (``struct<ts, idx, value>``)."""
    every = (
        Window.partitionBy("scenario_id", "key")
        .orderBy("idx")
        .rowsBetween(Window.unboundedPreceding, Window.unboundedFollowing)
    )
    return F.collect_list(F.when(side_is(side) & is_accepted, F.struct("ts", "idx", "value"))).over(every)


def current_sql(puts: str, at: str) -> str:
    """SQL: the value of the last put before input index ``at`` (an unversioned table's lookup)."""
    return f"try_element_at(filter({puts}, p -> p.idx < {at}), -1).value"


def history(puts: Column) -> Column:
    """``key_puts`` of a versioned table with a ``forget`` flag on each put: a fold over the puts that keeps
    the current versions (ts -> value) and flags the tombstones that forget the key (spec VS-7)."""
    empty_points = F.expr("map_from_arrays(cast(array() AS array<bigint>), cast(array() AS array<string>))")

    def forgets(acc: Column, put: Column) -> Column:
        # a tombstone at the ts of the only version, which holds a value
        return (
            put["value"].isNull()
            & (F.size(acc["points"]) == 1)
            & F.try_element_at(acc["points"], put["ts"]).isNotNull()
        )

    def step(acc: Column, put: Column) -> Column:
        kept = F.map_concat(
            F.map_filter(acc["points"], lambda ts, _: ts != put["ts"]), F.create_map(put["ts"], put["value"])
        )
        version = F.struct(
            put["ts"].alias("ts"),
            put["idx"].alias("idx"),
            put["value"].alias("value"),
            forgets(acc, put).alias("forget"),
        )
        return F.struct(
            F.when(forgets(acc, put), empty_points).otherwise(kept).alias("points"),
            F.concat(acc["out"], F.array(version)).alias("out"),
        )

    start = F.struct(empty_points.alias("points"), F.expr(f"cast(array() AS array<{_VERSION}>)").alias("out"))
    return F.aggregate(puts, start, step, lambda acc: acc["out"])


def _alive(versions: str, at: str) -> str:
    """SQL: the versions recorded before input index ``at`` and not replaced (or forgotten) before it."""
    return (
        f"filter({versions}, v -> NOT v.forget AND v.idx < {at}"
        f" AND NOT exists({versions}, w -> w.ts = v.ts AND w.idx > v.idx AND w.idx < {at}))"
    )


def versioned_get_sql(versions: str, at: str, as_of: str, observed: str) -> str:
    """SQL: ``get(key, asOf)`` at input index ``at`` (spec ST-6, VS-9): the version valid at ``as_of``; if
    ``as_of`` is older than ``observed - history_ms`` only the latest version counts, if its ts <= ``as_of``.
    A tombstone version reads as null."""
    alive = _alive(versions, at)
    return (
        f"(CASE WHEN {observed} IS NULL OR {as_of} >= {observed} - history_ms"
        f" THEN array_max(filter({alive}, a -> a.ts <= {as_of})).value"
        f" WHEN array_max({alive}).ts <= {as_of} THEN array_max({alive}).value END)"
    )


def is_latest_sql(versions: str, at: str, ts: str) -> str:
    """SQL: the put at index ``at`` with timestamp ``ts`` lands at or after every version recorded so far
    (spec VS-5)."""
    return f"NOT exists({_alive(versions, at)}, a -> a.ts > {ts})"


def with_latest_flag(rec: DataFrame) -> DataFrame:
    """Add ``latest``: the update is applied as its table's latest value, so a table-table or FK join
    processes it: any non-null-key update of an unversioned table; for a versioned one, an accepted put with
    ``isLatest`` (spec TT-10, VS-5, FK-11).

    Without any versioned table in ``rec`` (one small Spark job finds out) the per-key arrays of puts are
    not built at all: every non-null-key update is the latest value, and a table of millions of updates per
    key stays linear."""
    any_versioned = (F.col("left_versioned") | F.col("right_versioned")) & F.col("has_versioned_stores")
    if rec.where(any_versioned).limit(1).count() == 0:
        return rec.withColumn("latest", F.col("key").isNotNull())
    for side in ("left", "right"):
        versioned = F.col(f"{side}_versioned") & F.col("has_versioned_stores")
        rec = rec.withColumns({f"versioned_{side}": versioned, f"observed_{side}": store_time_before(side)})
        rec = rec.withColumn(f"accepted_{side}", accepted(side, versioned, F.col(f"observed_{side}")))
        rec = rec.withColumn(
            f"versions_{side}", F.when(versioned, history(key_puts(side, F.col(f"accepted_{side}"))))
        )
    latest = F.lit(False)
    for side in ("left", "right"):
        is_latest = F.expr(is_latest_sql(f"versions_{side}", "idx", "ts"))
        latest = latest | (F.col(f"accepted_{side}") & (~F.col(f"versioned_{side}") | is_latest))
    return rec.withColumn("latest", latest)
