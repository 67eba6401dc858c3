"""A job's own output as the candidate of ``kjoin replay --output PATH``: the team's Spark job already ran
on the snapshot and wrote its result; no code of theirs runs here.

The file (Parquet, JSON or CSV) has one row per output record with ``partition, key, left, right, ts`` and
optionally ``tombstone`` (default: both sides null): the Kafka partition it belongs to (the task, spec TK-1)
and the joined pair as two columns. It is compared as a multiset per task (no emitting input is known).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from kjoin.conformance.protocol import Claim, DeclaredDifference
from kjoin.conformance.scale.data import DataError
from kjoin.oracle.records import JOIN_KINDS, STORE_KINDS, VARIANTS

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession

__all__ = ["OUTPUT_COLUMNS", "OutputFile"]

OUTPUT_COLUMNS = ("partition", "key", "left", "right", "ts")


@dataclass(frozen=True)
class OutputFile:
    """A candidate whose answer is a file: claims every join, version and store kind it is asked about."""

    path: Path
    kafka: str
    fmt: str | None = None
    name: str = field(init=False)
    claim: Claim = field(init=False)
    declared_differences: tuple[DeclaredDifference, ...] = ()

    def __post_init__(self) -> None:
        object.__setattr__(self, "name", f"output file {self.path}")
        claim = Claim(
            joins=frozenset(JOIN_KINDS),
            variants=frozenset(VARIANTS),
            kafka=(self.kafka,),
            stores=frozenset(STORE_KINDS),
            versioned=True,
            stream_table_grace=True,
        )
        object.__setattr__(self, "claim", claim)

    def run(self, spark: SparkSession, inputs: DataFrame, specs: DataFrame) -> DataFrame:
        from pyspark.sql import functions as F

        from kjoin.conformance.scale.data import _format_of

        if not self.path.exists():
            raise DataError(f"no such file: {self.path}")
        kind = self.fmt or _format_of(self.path)
        reader = (
            spark.read.option("header", "true").option("inferSchema", "true") if kind == "csv" else spark.read
        )
        frame = reader.format(kind).load(str(self.path))
        absent = [name for name in OUTPUT_COLUMNS if name not in frame.columns]
        if absent:
            raise DataError(
                f"{self.path}: column(s) {', '.join(absent)} missing; expected {', '.join(OUTPUT_COLUMNS)}"
            )
        tombstone: Any = (
            F.col("tombstone").cast("boolean")
            if "tombstone" in frame.columns
            else F.col("left").isNull() & F.col("right").isNull()
        )
        task = F.concat(F.lit("task-"), F.lpad(F.col("partition").cast("int").cast("string"), 5, "0"))
        return frame.select(
            task.alias("scenario_id"),
            F.col("key").cast("string").alias("key"),
            F.col("left").cast("string").alias("left"),
            F.col("right").cast("string").alias("right"),
            tombstone.alias("tombstone"),
            F.col("ts").cast("long").alias("ts"),
        )
