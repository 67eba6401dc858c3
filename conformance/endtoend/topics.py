"""Cases as real topics: scenario i of a candidate call is partition i of its ``left`` and ``right`` topics.

Kafka processes a task's records in the order of spec TK-2 (the partition with the smaller head timestamp
first), not in a scenario's order: ``in_processing_order`` gives the case whose records are in that order,
which is what a broker-fed job must reproduce (the oracle then computes its outputs; TK-2 leaves it as it
is). Each side's records keep the scenario's order, so their offsets follow it.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING, Any

import msgspec

from kjoin.conformance.catalogue import Case
from kjoin.oracle.tasks import processing_order

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

__all__ = ["in_processing_order", "read_json_topic", "topic_records"]


def in_processing_order(case: Case) -> Case:
    """``case`` with its records in the order a Kafka task processes them when both partitions are
    buffered (spec TK-2); the file's expectation is dropped (it describes the original order)."""
    sides = [[record for record in case.records if record.side == side] for side in ("left", "right")]
    order = processing_order([[record.ts for record in side] for side in sides])
    records = tuple(sides[queue][position] for queue, position in order)
    if records == case.records:
        return case
    return msgspec.structs.replace(case, records=records, expected=None)


def topic_records(
    rows: Sequence[tuple[Any, ...]], partitions: dict[str, int], topics: dict[str, str]
) -> Iterator[dict[str, Any]]:
    """The records to produce for ``INPUT_SCHEMA`` rows ``(scenario_id, idx, side, key, value, ts)``:
    each to ``topics[side]``, partition ``partitions[scenario_id]``, in ``idx`` order per scenario."""
    for scenario_id, _idx, side, key, value, ts in sorted(rows, key=lambda row: (row[0], row[1])):
        yield {
            "topic": topics[side],
            "partition": partitions[scenario_id],
            "ts": ts,
            "key": key,
            "value": value,
        }


def read_json_topic(
    spark: SparkSession, bootstrap: str, topic: str, ddl: str, columns: Sequence[str]
) -> list[tuple[int, tuple[Any, ...]]]:
    """Every record of ``topic`` (a batch read), its JSON value parsed with ``ddl``: ``(partition, the
    value's ``columns``)`` in partition and offset order, the order the sink wrote them."""
    from pyspark.sql import functions as F

    back = (
        spark.read.format("kafka")
        .option("kafka.bootstrap.servers", bootstrap)
        .option("subscribe", topic)
        .option("startingOffsets", "earliest")
        .option("endingOffsets", "latest")
        .load()
        .select("partition", "offset", F.from_json(F.col("value").cast("string"), ddl).alias("row"))
        .orderBy("partition", "offset")
        .collect()
    )
    return [(record["partition"], tuple(record["row"][name] for name in columns)) for record in back]
