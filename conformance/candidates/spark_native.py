"""The ``spark-native`` candidate: Spark's own Structured Streaming joins, as a user porting a Kafka Streams
join would write them (``native_joins``), checked against Kafka Streams 3.8+.

Its declared differences are the point: they document what changes when a KStream-KStream or
KStream-KTable join moves to Spark. Table-table and foreign-key joins have no Structured Streaming
counterpart and are not claimed, nor are versioned tables (a stream-static join sees the table as of the
micro-batch, not as of the record's timestamp) or KIP-923 stream-table grace.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from conformance.candidate import Claim, DeclaredDifference

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession

__all__ = ["SparkNative", "candidate"]

CLAIM = Claim(
    joins=frozenset({"stream-stream", "stream-table"}),
    variants=frozenset({"inner", "left", "outer"}),
    kafka=("3.9",),
)

DECLARED: tuple[DeclaredDifference, ...] = ()


@dataclass(frozen=True)
class SparkNative:
    """Spark Structured Streaming stream-stream and stream-static joins."""

    name: str = "spark-native"
    claim: Claim = CLAIM
    declared_differences: tuple[DeclaredDifference, ...] = DECLARED

    def run(self, spark: SparkSession, inputs: DataFrame, specs: DataFrame) -> DataFrame:
        from conformance.candidates.native_joins import stream_stream_join, stream_table_join

        joins = {row.join for row in specs.select("join").distinct().collect()}
        if joins == {"stream-stream"}:
            return stream_stream_join(spark, inputs, specs)
        if joins == {"stream-table"}:
            return stream_table_join(spark, inputs, specs)
        raise ValueError(f"spark-native runs one claimed join kind per call, got {sorted(joins)}")


def candidate() -> SparkNative:
    """The ``spark-native`` entry point."""
    return SparkNative()
