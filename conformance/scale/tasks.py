"""Kafka's task model inside Spark: each task's records put in processing order, and the oracle run per
task, both as grouped pandas UDFs (one Python call per task; nothing is collected to the driver).

A task is one partition number (spec TK-1); ``ordered_inputs`` gives its records the candidate protocol's
columns, ``scenario_id`` = ``task-<partition>`` and ``idx`` = the position in Kafka's processing order
(spec TK-2), so that any candidate sees each task as one scenario. ``oracle_outputs`` runs the oracle over
each task in that order.

A stream-globaltable join has no co-partitioning: a task is one partition of the stream, and the global
table (every partition of its topic) is replicated to every task. Each task reads the table's partitions as
further queues of its priority queue, after the stream's, so a table update is applied between the stream
records it precedes in timestamp order (docs/scale.md, "Stream-GlobalKTable joins"; spec GT-3: the
scenarios fix one interleaving, the processing order, as the test driver does).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pandas as pd

from kjoin.oracle import JoinSpec, Record, behaviour_for, run
from kjoin.oracle.tasks import processing_order

if TYPE_CHECKING:
    from pyspark.sql import DataFrame

__all__ = ["EXPECTED_SCHEMA", "ORDERED_SCHEMA", "expected_outputs", "ordered_inputs", "task_id"]

ORDERED_SCHEMA = (
    "scenario_id string, idx long, side string, key string, value string, ts long, partition int, offset long"
)
EXPECTED_SCHEMA = (
    "scenario_id string, idx long, seq long, key string, left string, right string, tombstone boolean, "
    "ts long"
)


def task_id(partition: int) -> str:
    """The scenario id of a task: ``task-<partition>`` (zero-padded, so ids sort by partition; the output
    file candidate builds the same text in Spark)."""
    return f"task-{partition:05d}"


def _order_task(frame: pd.DataFrame) -> pd.DataFrame:
    """One task's records (both sides) in Kafka's processing order: the queues are the left partition, then
    each right partition in partition order (one for a co-partitioned join, every partition of the global
    table for a stream-globaltable join), each in offset order."""
    left = frame[frame["side"] == "left"]
    right = frame[frame["side"] == "right"]
    table_partitions = sorted(int(number) for number in right["partition"].unique())
    queues = [left] + [right[right["partition"] == number] for number in table_partitions]
    queues = [queue.sort_values("offset", kind="stable") for queue in queues]
    order = processing_order([queue["ts"].tolist() for queue in queues])
    starts = [0]
    for queue in queues[:-1]:
        starts.append(starts[-1] + len(queue))
    both = pd.concat(queues, ignore_index=True)
    ordered = both.iloc[[starts[queue] + position for queue, position in order]].reset_index(drop=True)
    task = int(frame["task"].iloc[0]) if len(frame) else 0
    return pd.DataFrame(
        {
            "scenario_id": task_id(task),
            "idx": range(len(ordered)),
            "side": ordered["side"].to_numpy(dtype=object),
            "key": ordered["key"].to_numpy(dtype=object),
            "value": ordered["value"].to_numpy(dtype=object),
            "ts": ordered["ts"].astype("int64").to_numpy(),
            "partition": ordered["partition"].astype("int32").to_numpy(),
            "offset": ordered["offset"].astype("int64").to_numpy(),
        }
    )


def ordered_inputs(records: DataFrame, join: str = "stream-stream") -> DataFrame:
    """``RECORD_COLUMNS`` rows -> ``ORDERED_SCHEMA``: every task's records in processing order. A task is a
    partition number; for a stream-globaltable ``join`` it is a partition of the stream (left), with every
    right record replicated to it (``partition`` and ``offset`` stay the record's own)."""
    from pyspark.sql import functions as F

    if join != "stream-globaltable":
        tasks = records.withColumn("task", F.col("partition"))
    else:
        stream = records.filter(F.col("side") == "left")
        numbers = stream.select(F.col("partition").alias("task")).distinct()
        table = records.filter(F.col("side") == "right").crossJoin(F.broadcast(numbers))
        tasks = stream.withColumn("task", F.col("partition")).unionByName(table)
    return tasks.groupBy("task").applyInPandas(_order_task, ORDERED_SCHEMA)


def _expected_for(spec: JoinSpec, kafka: str) -> Any:
    behaviour = behaviour_for(kafka)

    def expected(frame: pd.DataFrame) -> pd.DataFrame:
        frame = frame.sort_values("idx", kind="stable")
        records = [
            Record(
                side, None if key is None or key != key else key, None if value != value else value, int(ts)
            )
            for side, key, value, ts in zip(
                frame["side"], frame["key"], frame["value"], frame["ts"], strict=True
            )
        ]
        outputs = run(spec, records, behaviour)
        seq: list[int] = []
        last, position = -1, 0
        for output in outputs:
            position = position + 1 if output.cause == last else 0
            last = output.cause
            seq.append(position)
        scenario = frame["scenario_id"].iloc[0] if len(frame) else ""
        return pd.DataFrame(
            {
                "scenario_id": [scenario] * len(outputs),
                "idx": [o.cause for o in outputs],
                "seq": seq,
                "key": [o.key for o in outputs],
                "left": [None if o.value is None else o.value[0] for o in outputs],
                "right": [None if o.value is None else o.value[1] for o in outputs],
                "tombstone": [o.value is None for o in outputs],
                "ts": [o.ts for o in outputs],
            },
            columns=["scenario_id", "idx", "seq", "key", "left", "right", "tombstone", "ts"],
        )

    return expected


def expected_outputs(ordered: DataFrame, spec: JoinSpec, kafka: str) -> DataFrame:
    """What Kafka emits for every task (``EXPECTED_SCHEMA``): the oracle over each task, inside Spark."""
    return ordered.groupBy("scenario_id").applyInPandas(_expected_for(spec, kafka), EXPECTED_SCHEMA)
