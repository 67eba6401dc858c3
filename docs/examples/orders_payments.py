"""A Structured Streaming job as a porting team writes it, checked as a candidate (docs/streaming.md).

The job joins each order with the payments of the same key that arrive within the join window, the port of
``orders.leftJoin(payments, joiner, JoinWindows.ofTimeDifferenceAndGrace(before, grace))``. Only the
sources and the sink are left out: the harness feeds the inputs and reads the output.

    PYTHONPATH=docs/examples kjoin run --candidate orders_payments:candidate --report orders-report
"""

from __future__ import annotations

from pyspark.sql import DataFrame
from pyspark.sql import functions as F

from kjoin import Claim, JobShape, streaming_candidate
from kjoin.conformance.candidates.spark_native import DECLARED

SPARK_JOIN_TYPE = {"inner": "inner", "left": "left_outer", "outer": "full_outer"}


def orders_with_payments(orders: DataFrame, payments: DataFrame, spec: JobShape) -> DataFrame:
    """The job: a watermarked stream-stream join on key, payments within [order - before, order + after].

    In production ``before`` and ``after`` are constants of the job's configuration; here every scenario
    brings its own, as the columns ``o.before`` and ``o.after``. Spark's state clean-up needs a constant
    event-time bound in the join condition, so the job states one that outlasts every window."""
    o = orders.where("value IS NOT NULL").withWatermark("event_time", "365 days").alias("o")
    p = payments.where("value IS NOT NULL").withWatermark("event_time", "365 days").alias("p")
    same_key = (F.col("o.scenario_id") == F.col("p.scenario_id")) & (F.col("o.key") == F.col("p.key"))
    within_window = F.col("p.ts").between(F.col("o.ts") - F.col("o.before"), F.col("o.ts") + F.col("o.after"))
    state_bound = F.expr(
        "p.event_time BETWEEN o.event_time - INTERVAL 365 DAYS AND o.event_time + INTERVAL 365 DAYS"
    )
    joined = o.join(p, same_key & within_window & state_bound, SPARK_JOIN_TYPE[spec.variant])
    return joined.select(
        F.coalesce("o.scenario_id", "p.scenario_id").alias("scenario_id"),
        F.coalesce("o.key", "p.key").alias("key"),
        F.col("o.value").alias("left"),
        F.col("p.value").alias("right"),
        F.greatest("o.ts", "p.ts").alias("ts"),
    )


candidate = streaming_candidate(
    "orders-payments",
    orders_with_payments,
    Claim(joins=frozenset({"stream-stream"}), variants=frozenset({"inner", "left", "outer"}), kafka=("3.9",)),
    # Spark's own stream-stream join differs from Kafka's as spark-native declares (unmatched rows are
    # emitted when the watermark passes, not when stream time does; store retention)
    [difference for difference in DECLARED if not difference.strict],
)
