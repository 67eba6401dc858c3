"""Shared DataFrame plumbing of the ``spark-reference`` candidate.

Every join module receives ``rec``: the input records of all scenarios of one join kind, one row per record,
already carrying the scenario's spec columns and its Behaviour flags (one boolean column per flag, read from
``oracle.behaviour.behaviour_for``), so that version differences are column predicates evaluated per row and
``scenario_id`` is part of every partitioning and join key. Each module returns *emissions*: the output
columns plus ``idx`` (the input index whose processing emitted the row) and three order columns
(``_o1``, ``_o2`` long, ``_o3`` string) that order rows emitted at the same ``idx``; ``number`` turns them
into the dense integer ``seq`` of the protocol.
"""

from __future__ import annotations

from msgspec.structs import asdict
from pyspark.sql import Column, DataFrame, SparkSession, Window
from pyspark.sql import functions as F
from pyspark.sql.types import BooleanType, StringType, StructField, StructType
from pyspark.sql.window import WindowSpec

from kjoin.oracle.behaviour import behaviour_for, flag_names

__all__ = [
    "RESULT_COLUMNS",
    "attach_behaviour",
    "by_scenario",
    "emission",
    "number",
    "running_max_before",
    "side_is",
]

RESULT_COLUMNS = ["scenario_id", "key", "left", "right", "tombstone", "ts", "idx", "seq"]
"""The protocol's OUTPUT_SCHEMA columns plus the optional ``idx`` and ``seq``."""


def attach_behaviour(spark: SparkSession, specs: DataFrame, pairs: set[tuple[str, bool]]) -> DataFrame:
    """``specs`` plus one boolean column per Behaviour flag of the scenario's ``(kafka, intended)``.

    ``pairs`` are the distinct ``(kafka, intended)`` of ``specs`` (collected by the caller); each is looked up
    with ``behaviour_for`` on the driver and joined back as a small broadcast table.
    """
    names = flag_names()
    rows = []
    for kafka, intended in sorted(pairs):
        flags = asdict(behaviour_for(kafka, intended=intended))
        rows.append((kafka, intended, *(bool(flags[name]) for name in names)))
    schema = StructType(
        [StructField("kafka", StringType(), False), StructField("intended", BooleanType(), False)]
        + [StructField(name, BooleanType(), False) for name in names]
    )
    return specs.join(F.broadcast(spark.createDataFrame(rows, schema)), ["kafka", "intended"])


def side_is(side: str) -> Column:
    """``side == 'left'`` or ``side == 'right'``."""
    return F.col("side") == F.lit(side)


def by_scenario() -> WindowSpec:
    """Processing order within one scenario."""
    return Window.partitionBy("scenario_id").orderBy("idx")


def running_max_before(value: Column) -> Column:
    """Max of ``value`` (nulls ignored) over the records processed before this one in its scenario."""
    return F.max(value).over(by_scenario().rowsBetween(Window.unboundedPreceding, -1))


def emission(
    df: DataFrame,
    *,
    key: Column,
    left: Column | None,
    right: Column | None,
    ts: Column,
    idx: Column,
    o1: Column | int = 0,
    o2: Column | int = 0,
    o3: Column | str = "",
    tombstone: Column | bool = False,
) -> DataFrame:
    """Select ``df`` into the emission layout; a tombstone row gets null ``left``/``right``."""
    dead = tombstone if isinstance(tombstone, Column) else F.lit(tombstone)
    none = F.lit(None).cast("string")
    return df.select(
        F.col("scenario_id"),
        key.cast("string").alias("key"),
        F.when(dead, none).otherwise(left if left is not None else none).alias("left"),
        F.when(dead, none).otherwise(right if right is not None else none).alias("right"),
        dead.alias("tombstone"),
        ts.cast("long").alias("ts"),
        idx.cast("long").alias("idx"),
        _as_column(o1).cast("long").alias("_o1"),
        _as_column(o2).cast("long").alias("_o2"),
        _as_column(o3).cast("string").alias("_o3"),
    )


def number(emissions: DataFrame) -> DataFrame:
    """Replace the order columns by ``seq``: 0, 1, ... within each ``(scenario_id, idx)``."""
    within = Window.partitionBy("scenario_id", "idx").orderBy("_o1", "_o2", "_o3")
    return emissions.withColumn("seq", (F.row_number().over(within) - 1).cast("long")).select(*RESULT_COLUMNS)


def _as_column(value: Column | int | str) -> Column:
    return value if isinstance(value, Column) else F.lit(value)
