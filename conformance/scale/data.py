"""The input of a scale check: one row per record, ``side, partition, offset, key, value, ts``
(``RECORD_COLUMNS``), either generated inside Spark or read from a snapshot of two Kafka topics.

Generated data is deterministic by seed: ``spark.range`` with a fixed number of slices and seeded
``rand`` columns give the same records on every run and every cluster. A snapshot is what Spark's own
Kafka source reads (``key, value, topic, partition, offset, timestamp``), saved as Parquet, JSON or CSV:
the user names the left and the right topic.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from kjoin.conformance.harness.system_failures import one_line
from kjoin.errors import KjoinError

if TYPE_CHECKING:
    from pyspark.sql import Column, DataFrame, SparkSession

__all__ = [
    "KAFKA_COLUMNS",
    "RECORD_COLUMNS",
    "DataError",
    "Generated",
    "generate",
    "read_snapshot",
    "unreadable_input",
    "write_snapshot",
]

RECORD_COLUMNS = ("side", "partition", "offset", "key", "value", "ts")
KAFKA_COLUMNS = ("key", "value", "topic", "partition", "offset", "timestamp")
"""The columns of Spark's Kafka source that a snapshot must have (``headers`` and the rest may be there)."""

_SLICES = 16
"""``spark.range`` slices for generated data: fixed, so the seeded ``rand`` columns do not depend on the
cluster's parallelism."""


class DataError(KjoinError, ValueError):
    """The input cannot be read or lacks what the check needs; the message names the file and column."""


_UNREADABLE = re.compile(
    r"FAILED_READ_FILE|CANNOT_READ_FILE_FOOTER|Could not read footer|is not a Parquet file|"
    r"MALFORMED_RECORD_IN_PARSING|Malformed records are detected"
)
_CONDITION = re.compile(r"\[([A-Z][A-Z_.]+)\]")
_FILE = re.compile(r"(?:reading file|file) (file:\S+?|/\S+?)\.?(?:\s|$)")


def unreadable_input(error: BaseException) -> str | None:
    """Why Spark could not read an input file (corrupt, not of its format), naming the file, in one line;
    ``None`` when ``error`` is not about an input file."""
    text = str(error)
    if not _UNREADABLE.search(text):
        return None
    found, condition = _FILE.search(text), _CONDITION.search(text)
    where = found.group(1).removeprefix("file:") if found else "an input file"
    why = condition.group(1) if condition else one_line(error)
    return f"{where}: cannot be read: corrupt, or not the format it is read as (Spark: {why})"


@dataclass(frozen=True, slots=True)
class Generated:
    """How to generate a workload (``kjoin scale``): ``records`` over ``keys`` keys and ``partitions``
    partitions. Event time moves ``step_ms`` per record; a ``late_share`` of records is late by up to
    ``max_lateness_ms``; ``null_share`` of values and a tenth of that of keys are null; ``skew`` above 1
    makes low-numbered keys hot (key index ``floor(u ** skew * keys)``)."""

    records: int
    keys: int
    partitions: int
    seed: int = 20_241_125
    step_ms: int = 1
    late_share: float = 0.1
    max_lateness_ms: int = 200
    null_share: float = 0.02
    skew: float = 1.0


def generate(spark: SparkSession, workload: Generated) -> DataFrame:
    """The workload's records (``RECORD_COLUMNS``), generated inside Spark."""
    from pyspark.sql import Window
    from pyspark.sql import functions as F

    w = workload
    seed = w.seed

    def uniform(salt: int) -> Column:
        return F.rand(seed * 31 + salt)

    rows = spark.range(0, w.records, 1, _SLICES)
    side = F.when(uniform(1) < 0.5, F.lit("left")).otherwise(F.lit("right"))
    key_index = F.floor(F.pow(uniform(2), F.lit(w.skew)) * w.keys).cast("long")
    key = F.when(uniform(3) < w.null_share / 10, F.lit(None).cast("string")).otherwise(
        F.concat(F.lit("k"), key_index.cast("string"))
    )
    lateness = F.floor(uniform(5) * (w.max_lateness_ms + 1)).cast("long")
    base = F.col("id") * w.step_ms
    ts = F.when(uniform(4) < w.late_share, F.greatest(base - lateness, F.lit(0))).otherwise(base)
    value = F.when(uniform(6) < w.null_share, F.lit(None).cast("string")).otherwise(
        F.concat(
            F.when(F.col("side") == "left", F.lit("L")).otherwise(F.lit("R")), F.col("id").cast("string")
        )
    )
    records = rows.select(F.col("id"), side.alias("side"), key.alias("key"), ts.alias("ts")).withColumn(
        "value", value
    )
    partition = F.when(F.col("key").isNull(), F.pmod(F.col("id"), F.lit(w.partitions))).otherwise(
        F.pmod(F.xxhash64("key"), F.lit(w.partitions))
    )
    records = records.withColumn("partition", partition.cast("int"))
    offset = F.row_number().over(Window.partitionBy("side", "partition").orderBy("id")) - 1
    return records.withColumn("offset", offset.cast("long")).select(*RECORD_COLUMNS)


def write_snapshot(
    records: DataFrame, path: Path, left_topic: str = "left", right_topic: str = "right"
) -> None:
    """``RECORD_COLUMNS`` records saved as a Parquet snapshot of two topics (Spark's Kafka source columns,
    ``KAFKA_COLUMNS``): what ``read_snapshot`` and ``kjoin replay`` read. Overwrites ``path``."""
    from pyspark.sql import functions as F

    topic = F.when(F.col("side") == "left", F.lit(left_topic)).otherwise(F.lit(right_topic))
    records.select(
        F.col("key").cast("binary").alias("key"),
        F.col("value").cast("binary").alias("value"),
        topic.alias("topic"),
        "partition",
        "offset",
        F.timestamp_millis("ts").alias("timestamp"),
    ).write.mode("overwrite").parquet(str(path))


def read_snapshot(
    spark: SparkSession, paths: Sequence[Path], left_topic: str, right_topic: str, fmt: str | None = None
) -> DataFrame:
    """A snapshot of the two input topics (Spark's Kafka source columns) as ``RECORD_COLUMNS``: key and value
    as UTF-8 text, ``timestamp`` as epoch milliseconds. Raises ``DataError`` naming what is wrong."""
    from pyspark.errors import AnalysisException
    from pyspark.sql import functions as F

    missing = [str(path) for path in paths if not path.exists()]
    if missing:
        raise DataError(f"no such file: {', '.join(missing)}")
    kind = fmt or _format_of(paths[0])
    reader = (
        spark.read.option("header", "true").option("inferSchema", "true") if kind == "csv" else spark.read
    )
    try:
        frame = reader.format(kind).load([str(path) for path in paths])
    except AnalysisException as error:
        raise DataError(f"{paths[0]}: cannot read as {kind}: {one_line(error)}") from None
    except Exception as error:  # a corrupt file: Spark's Java error, in one line naming the file
        problem = unreadable_input(error)
        if problem is None:
            raise
        raise DataError(problem) from None
    absent = [column for column in KAFKA_COLUMNS if column not in frame.columns]
    if absent:
        raise DataError(
            f"{paths[0]}: column(s) {', '.join(absent)} missing; a snapshot has the columns of Spark's Kafka "
            f"source ({', '.join(KAFKA_COLUMNS)})"
        )
    types = dict(frame.dtypes)

    def text(name: str) -> Column:
        return F.col(name).cast("string") if types[name] != "binary" else F.decode(F.col(name), "UTF-8")

    ts = F.col("timestamp")
    # exact milliseconds (a double round trip would turn 1.001 s into 1000 ms)
    millis = F.expr("unix_millis(timestamp)") if types["timestamp"] == "timestamp" else ts.cast("long")
    side = F.when(F.col("topic") == left_topic, F.lit("left")).when(
        F.col("topic") == right_topic, F.lit("right")
    )
    records = frame.select(
        side.alias("side"),
        F.col("partition").cast("int").alias("partition"),
        F.col("offset").cast("long").alias("offset"),
        text("key").alias("key"),
        text("value").alias("value"),
        millis.alias("ts"),
        F.col("topic"),
    )
    topics = {
        row["topic"]
        for row in records.filter(F.col("side").isNull()).select("topic").distinct().limit(5).collect()
    }
    if topics:
        raise DataError(
            f"{paths[0]}: records of topic(s) {', '.join(sorted(map(str, topics)))} are neither the left "
            f"topic {left_topic!r} nor the right topic {right_topic!r}"
        )
    return records.drop("topic")


def _format_of(path: Path) -> str:
    probe = next(iter(sorted(path.rglob("*.*"))), path) if path.is_dir() else path
    suffix = probe.suffix.lower().lstrip(".")
    return {"jsonl": "json", "json": "json", "csv": "csv"}.get(suffix, "parquet")
