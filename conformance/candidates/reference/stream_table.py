"""KStream-KTable joins (spec ST-1) for many scenarios at once, on Spark DataFrames.

Set-based throughout (window functions and array functions over ``(scenario_id)`` and ``(scenario_id, key)``
partitions), apart from the versioned store's ``forget`` fold (see ``versioned``):

* only stream records (``left``) produce output; the table (``right``) just changes (spec ST-1);
* the lookup is an as-of lookup by input index: the table's puts for the key before the lookup index
  (unversioned: the last one; versioned: ``get(key, stream ts)`` over the versions recorded then, spec ST-6,
  VS-9);
* with a grace period (KIP-923, 3.6+) a stream record is buffered unless it is already older than the buffer's
  time minus grace; it is joined when the buffer's time (max ts of the joinable stream records so far, a
  running max) first reaches ``ts + grace``, i.e. at the first stream record whose running max crosses that
  line (found with array functions over the following records). Evictions of one input come in (ts, key bytes,
  insertion) order, the lookup happens at the evicting index and the output keeps the stream record's ts (spec
  ST-2).
"""

from __future__ import annotations

from pyspark.sql import Column, DataFrame, Window
from pyspark.sql import functions as F

from kjoin.conformance.candidates.reference.frames import by_scenario, emission, running_max_before, side_is
from kjoin.conformance.candidates.reference.versioned import (
    accepted,
    current_sql,
    history,
    key_puts,
    store_time_before,
    versioned_get_sql,
)

__all__ = ["stream_table_emissions"]

_NOW, _EVICTED = 0, 1


def stream_table_emissions(rec: DataFrame) -> DataFrame:
    """All outputs of the stream-table scenarios in ``rec`` (emission layout of ``frames``)."""
    stream = side_is("left")
    keyed, valued = F.col("key").isNotNull(), F.col("value").isNotNull()
    versioned = F.col("right_versioned") & F.col("has_versioned_stores")
    # spec ST-4: null keys are skipped, null values joined before KIP-77 and dropped after
    joinable = stream & keyed & (valued | F.col("null_stream_values_are_joined"))
    grace_on = F.col("has_stream_table_grace") & F.col("grace").isNotNull()
    annotated = rec.withColumns(
        {
            "joinable": joinable,
            "versioned": versioned,
            "observed": store_time_before("right"),
            "buffer_time_before": running_max_before(F.when(joinable, F.col("ts"))),
            "buffer_time": F.max(F.when(joinable, F.col("ts"))).over(
                by_scenario().rowsBetween(Window.unboundedPreceding, 0)
            ),
        }
    ).withColumns(
        {
            "puts": key_puts("right", accepted("right", versioned, F.col("observed"))),
            # an empty buffer's time is -1 (no timestamp yet), so the first record is always buffered
            "buffered": grace_on
            & joinable
            & ~(F.coalesce(F.col("buffer_time_before"), F.lit(-1)) - F.col("grace") > F.col("ts")),
            "following": F.collect_list(F.when(joinable, F.struct("idx", "buffer_time", "observed"))).over(
                by_scenario().rowsBetween(0, Window.unboundedFollowing)
            ),
        }
    )
    evicting = F.expr("try_element_at(filter(following, f -> f.buffer_time >= ts + grace), 1)")
    looked_up = (
        annotated.filter("joinable")
        .withColumns(
            {
                "at": F.when(F.col("buffered"), evicting["idx"]).otherwise(F.col("idx")),
                "at_observed": F.when(F.col("buffered"), evicting["observed"]).otherwise(F.col("observed")),
                "versions": F.when(versioned, history(F.col("puts"))),
            }
        )
        .withColumn(
            "table_value",
            F.when(versioned, F.expr(versioned_get_sql("versions", "at", "ts", "at_observed"))).otherwise(
                F.expr(current_sql("puts", "at"))
            ),
        )
    )
    joined = emission(
        looked_up.filter(F.col("at").isNotNull()).filter(
            (F.col("variant") == "left") | F.col("table_value").isNotNull()
        ),
        key=F.col("key"),
        left=F.col("value"),
        right=F.col("table_value"),
        ts=F.col("ts"),
        idx=F.col("at"),
        o1=F.when(F.col("buffered"), _EVICTED).otherwise(_NOW),
        o2=F.col("ts"),
        o3=_eviction_tiebreak(),
    )
    # spec ST-4 (KIP-962, 3.7+): a left join forwards a null-key stream record with a value as joiner(v, null)
    null_keys = emission(
        rec.filter(
            stream & ~keyed & valued & F.col("left_joins_forward_null_keys") & (F.col("variant") == "left")
        ),
        key=F.col("key"),
        left=F.col("value"),
        right=None,
        ts=F.col("ts"),
        idx=F.col("idx"),
    )
    return joined.unionByName(null_keys)


def _eviction_tiebreak() -> Column:
    """Key bytes, then insertion order: the grace buffer's order for records with the same ts (spec ST-8)."""
    return F.concat(F.col("key"), F.lit("\u0000"), F.lpad(F.col("idx").cast("string"), 19, "0"))
