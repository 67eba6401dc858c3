"""Route the scenarios of one ``run`` call to the join modules and number their outputs."""

from __future__ import annotations

from collections.abc import Callable
from importlib import import_module

from pyspark.sql import DataFrame, SparkSession
from pyspark.sql import functions as F

from kjoin.conformance.candidates.reference.frames import attach_behaviour, number

__all__ = ["run_reference"]


_MODULES = {
    "stream-stream": ("stream_stream", "stream_stream_emissions"),
    "stream-table": ("stream_table", "stream_table_emissions"),
    "table-table": ("table_table", "table_table_emissions"),
    "fk": ("foreign_key", "foreign_key_emissions"),
    "stream-globaltable": ("global_table", "global_table_emissions"),
    "self-join": ("self_join", "self_join_emissions"),
}
"""route (the join kind, or ``self-join`` for a stream joined with itself) -> (module in this package,
function from records-with-spec-and-flags to emissions)"""


_ADDED_SPEC_COLUMNS: dict[str, bool | str] = {
    "legacy": False,
    "self_join": False,
    "optimization": "none",
    "key_mapper": "key",
}
"""SPEC_SCHEMA columns added after its first release -> the value that means what a spec without it meant."""


def _emissions_for(route: str) -> Callable[[DataFrame], DataFrame]:
    module, function = _MODULES[route]
    emissions: Callable[[DataFrame], DataFrame] = getattr(
        import_module(f"kjoin.conformance.candidates.reference.{module}"), function
    )
    return emissions


def run_reference(spark: SparkSession, inputs: DataFrame, specs: DataFrame) -> DataFrame:
    """All outputs of all scenarios in ``inputs``: OUTPUT_SCHEMA columns plus ``idx`` and ``seq``.

    One small driver-side collect (the distinct ``(join or self-join, kafka, intended)`` of ``specs``)
    decides which join modules run and which Behaviour flags they see; the returned DataFrame is lazy.
    """
    # an older SPEC_SCHEMA: without the deprecated of().grace() flag, self-joins or key mappers
    for column, default in _ADDED_SPEC_COLUMNS.items():
        if column not in specs.columns:
            specs = specs.withColumn(column, F.lit(default))
    route = F.when(F.col("self_join"), F.lit("self-join")).otherwise(F.col("join"))
    combos = specs.select(route.alias("route"), "kafka", "intended").distinct().collect()
    routes = sorted({row["route"] for row in combos})
    specs = attach_behaviour(spark, specs, {(row["kafka"], bool(row["intended"])) for row in combos})
    partitions = int(spark.conf.get("spark.sql.shuffle.partitions") or 4)
    # one shuffle by scenario: the join modules' windows and groupings all partition by scenario_id (plus
    # more columns), which this partitioning already satisfies, so they add no further shuffles
    records = inputs.join(F.broadcast(specs), "scenario_id").repartition(partitions, "scenario_id")
    emissions = None
    for name in routes:
        part = _emissions_for(name)(records.filter(route == name))
        emissions = part if emissions is None else emissions.unionByName(part)
    if emissions is None:
        raise ValueError("run_reference: no scenarios in specs")
    return number(emissions)
