"""KTable-KTable equi-joins (spec TT-1) for many scenarios at once, on Spark DataFrames.

Set-based (window functions over ``(scenario_id)`` and ``(scenario_id, key)``), apart from the versioned
store's ``forget`` fold (see ``versioned``):

* an update reaches the join processor if its table applies it as the latest value: any non-null-key update of
  an unversioned table; for a versioned table only accepted puts (spec VS-3) with ``isLatest`` (spec TT-10);
* the update's old value (this side's previous latest) and the other side's current value and ts are as-of
  lookups: the last such update of each side for the key before this input index;
* the processor rules (spec TT-4 to TT-7, KIP-77 era) or the 0.10.x always-forward rules decide the output;
  the output ts is ``max(ts, other side's ts)`` from 2.3 when the other side exists (spec TT-8).
"""

from __future__ import annotations

from pyspark.sql import Column, DataFrame, Window
from pyspark.sql import functions as F

from kjoin.conformance.candidates.reference.frames import emission, side_is
from kjoin.conformance.candidates.reference.versioned import with_latest_flag

__all__ = ["table_table_emissions"]


def table_table_emissions(rec: DataFrame) -> DataFrame:
    """All outputs of the table-table scenarios in ``rec`` (emission layout of ``frames``)."""
    rec = with_latest_flag(rec)
    before = (
        Window.partitionBy("scenario_id", "key").orderBy("idx").rowsBetween(Window.unboundedPreceding, -1)
    )
    left, latest = side_is("left"), F.col("latest")
    updates = (
        rec.withColumns(
            {
                "last_left": F.last(F.when(latest & left, F.struct("value", "ts")), ignorenulls=True).over(
                    before
                ),
                "last_right": F.last(F.when(latest & ~left, F.struct("value", "ts")), ignorenulls=True).over(
                    before
                ),
            }
        )
        .filter(latest)
        .withColumns(
            {
                "old": F.when(left, F.col("last_left.value")).otherwise(F.col("last_right.value")),
                "other": F.when(left, F.col("last_right.value")).otherwise(F.col("last_left.value")),
                "other_ts": F.when(left, F.col("last_right.ts")).otherwise(F.col("last_left.ts")),
            }
        )
    )
    outcome = F.when(F.col("table_joins_forward_every_update"), _always_forwarding()).otherwise(_kip77())
    decided = updates.withColumn("outcome", outcome).filter(F.col("outcome") != _NONE)
    new, other = F.col("value"), F.col("other")
    has_max_ts = F.col("table_join_ts_is_max_of_inputs") & other.isNotNull()
    return emission(
        decided,
        key=F.col("key"),
        left=F.when(left, new).otherwise(other),
        right=F.when(left, other).otherwise(new),
        tombstone=F.col("outcome") == _TOMBSTONE,
        ts=F.when(has_max_ts, F.greatest("ts", "other_ts")).otherwise(F.col("ts")),
        idx=F.col("idx"),
    )


_NONE, _JOINED, _TOMBSTONE = "none", "joined", "tombstone"


def _kip77() -> Column:
    """The processor rules of 0.10.2+ (spec TT-4, TT-5, TT-6, TT-7)."""
    new, old, other = F.col("value"), F.col("old"), F.col("other")
    variant, left = F.col("variant"), side_is("left")
    # inner, and a left join's right side: nothing without the other side
    # left join's left side and outer join: without the other side, nothing if new = old = null
    preserved = (variant == "outer") | ((variant == "left") & left)
    alone = (
        F.when(~preserved, _NONE)
        .when(new.isNull() & old.isNull(), _NONE)
        .when(new.isNull(), _TOMBSTONE)
        .otherwise(_JOINED)
    )
    # with the other side: a left join's right side and an outer join pass a null new value to the joiner
    together = F.when(
        new.isNotNull() | (variant == "outer") | ((variant == "left") & ~left), _JOINED
    ).otherwise(_TOMBSTONE)
    return F.when(other.isNull(), alone).otherwise(together)


def _always_forwarding() -> Column:
    """0.10.0/0.10.1: every update forwards a result, a tombstone when there is nothing to join (spec
    TT-3)."""
    new, other = F.col("value"), F.col("other")
    variant, left = F.col("variant"), side_is("left")
    joins = (
        F.when(variant == "inner", new.isNotNull() & other.isNotNull())
        .when((variant == "left") & left, new.isNotNull())
        .when(variant == "left", other.isNotNull())
        .otherwise(new.isNotNull() | other.isNotNull())
    )
    return F.when(joins, _JOINED).otherwise(_TOMBSTONE)
