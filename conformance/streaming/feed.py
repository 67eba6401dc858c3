"""Feed input records to a Structured Streaming query one processing step per micro-batch.

A Python streaming data source (PySpark 4.2+ ``DataSourceStreamReader`` with admission control): its
offset is the micro-batch, and by default each micro-batch reads exactly one step, i.e. the record with
``idx = step`` of every scenario at once (``steps_per_batch`` steps, or a split per scenario, with
``micro_batches``: docs/streaming.md#micro-batch-splits). So all scenarios of a join kind share ONE
streaming query and as many micro-batches as the longest scenario has records (plus any ``extra_steps``),
never a query per scenario. Run the query with the default trigger and ``processAllAvailable()``
(``availableNow`` reads everything in one batch in PySpark 4.3).

The records travel inside the source (they are collected to the driver once): fine for a conformance
catalogue, and it keeps the feed independent of any shared file system. ``stepped_file_stream`` is the
same feed read by Spark's own file source (one file per step): no Python worker, so nothing for a busy
machine to time out, but its folder must be readable where the tasks run.
"""

from __future__ import annotations

import itertools
import json
import os
import time
from collections.abc import Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pyspark.sql.datasource import DataSource, DataSourceStreamReader, InputPartition
from pyspark.sql.streaming.datasource import ReadAllAvailable, ReadLimit, ReadMaxRows

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession

__all__ = [
    "STEP_COLUMNS",
    "STEP_SCHEMA",
    "micro_batches",
    "stepped_file_stream",
    "stepped_stream",
    "stepped_stream_of_rows",
]

STEP_SCHEMA = "scenario_id string, idx long, side string, key string, value string, ts long"
"""The rows of the stepped stream: ``INPUT_SCHEMA`` columns."""

STEP_COLUMNS = ("scenario_id", "idx", "side", "key", "value", "ts")

_names = itertools.count()

Step = list[tuple[Any, ...]]


class _StepPartition(InputPartition):
    """The rows of the steps one micro-batch reads."""

    def __init__(self, rows: Step) -> None:
        self.rows = rows


class _StepReader(DataSourceStreamReader):
    """Offsets are ``{"step": n}``: the number of micro-batches handed out so far; one more per
    micro-batch (``steps``: the rows of each, ``micro_batches``)."""

    def __init__(self, steps: Sequence[Step]) -> None:
        self.steps = steps

    def initialOffset(self) -> dict[str, int]:
        return {"step": 0}

    def getDefaultReadLimit(self) -> ReadLimit:
        return ReadMaxRows(1)

    def latestOffset(self, start: dict[str, int], limit: ReadLimit) -> dict[str, int]:
        if isinstance(limit, ReadAllAvailable):
            return {"step": len(self.steps)}
        return {"step": min(len(self.steps), start["step"] + 1)}

    def partitions(self, start: dict[str, int], end: dict[str, int]) -> Sequence[InputPartition]:
        rows = [row for step in self.steps[start["step"] : end["step"]] for row in step]
        return [_StepPartition(rows)] if rows else []

    def read(self, partition: InputPartition) -> Iterator[tuple[Any, ...]]:
        assert isinstance(partition, _StepPartition)
        yield from partition.rows


def _source_class(name: str, steps: Sequence[Step], schema: str) -> type[DataSource]:
    """A data source class that carries ``steps`` (pickled by value when registered)."""

    class SteppedRecords(DataSource):
        @classmethod
        def name(cls) -> str:
            return name

        def schema(self) -> str:
            return schema

        def streamReader(self, schema: Any) -> DataSourceStreamReader:
            return _StepReader(steps)

    return SteppedRecords


def stepped_stream(spark: SparkSession, inputs: DataFrame, extra_steps: Sequence[Step] = ()) -> DataFrame:
    """A streaming DataFrame of ``inputs`` that yields processing step ``n`` in micro-batch ``n``,
    followed by ``extra_steps`` (e.g. a watermark flush), one micro-batch each."""
    rows = [tuple(row[c] for c in STEP_COLUMNS) for row in inputs.orderBy("idx", "scenario_id").collect()]
    return stepped_stream_of_rows(spark, rows, extra_steps)


def stepped_stream_of_rows(
    spark: SparkSession,
    rows: Iterable[tuple[Any, ...]],
    extra_steps: Sequence[Step] = (),
    schema: str = STEP_SCHEMA,
    steps_per_batch: int = 1,
    plan: Mapping[str, Sequence[int]] | None = None,
) -> DataFrame:
    """``stepped_stream`` of records already on the driver, as ``STEP_COLUMNS`` tuples (``schema`` may add
    columns after those, which every row then carries); ``steps_per_batch`` consecutive steps make one
    micro-batch, or, for a scenario id in ``plan``, its own micro-batches: ``plan[id]`` are the steps
    that begin one (docs/streaming.md#micro-batch-splits). With more than one step per micro-batch the
    consumer must order a batch's rows by ``idx`` itself."""
    batches = micro_batches(rows, extra_steps, steps_per_batch, plan)
    name = f"kjoin_steps_{next(_names)}"
    spark.dataSource.register(_source_class(name, batches, schema))
    return spark.readStream.format(name).load()


def micro_batches(
    rows: Iterable[tuple[Any, ...]],
    extra_steps: Sequence[Step] = (),
    steps_per_batch: int = 1,
    plan: Mapping[str, Sequence[int]] | None = None,
) -> list[Step]:
    """The rows of each micro-batch in order (by ``idx``, then scenario id, within one), then
    ``extra_steps``, one micro-batch each. Micro-batch ``n`` holds every scenario's ``n``-th micro-batch:
    steps ``n * steps_per_batch ..`` or, for a scenario in ``plan``, the records from its ``n``-th start
    (empty micro-batches where no scenario has a record are kept)."""
    if steps_per_batch < 1:
        raise ValueError(f"steps_per_batch must be at least 1, got {steps_per_batch}")
    plan = plan or {}
    batches: dict[int, Step] = {}
    for row in sorted(rows, key=lambda row: (row[1], row[0])):
        starts = plan.get(row[0])
        number = row[1] // steps_per_batch if starts is None else sum(start <= row[1] for start in starts)
        batches.setdefault(number, []).append(tuple(row))
    ordered = [batches.get(number, []) for number in range(max(batches, default=-1) + 1)]
    return ordered + [list(step) for step in extra_steps]


def stepped_file_stream(
    spark: SparkSession,
    rows: Iterable[tuple[Any, ...]],
    folder: Path,
    extra_steps: Sequence[Step] = (),
    schema: str = STEP_SCHEMA,
    steps_per_batch: int = 1,
    plan: Mapping[str, Sequence[int]] | None = None,
) -> DataFrame:
    """``stepped_stream_of_rows`` read by Spark's own file source: one JSON Lines file per micro-batch in
    ``folder`` (new and empty; the caller removes it after the query), oldest first: ``steps_per_batch``
    consecutive steps of the input (or each scenario's own micro-batches in ``plan``), then each of
    ``extra_steps`` alone. No Python worker reads it: Spark starts the Python source's worker with a fixed
    10 s to connect back, which a busy machine misses ("Python worker failed to connect back"). The folder
    must be readable where the query's tasks run: a local master, or a cluster on this machine."""
    names = [column.split()[0] for column in schema.split(",")]
    folder.mkdir(parents=True)
    started = time.time()
    for number, step in enumerate(micro_batches(rows, extra_steps, steps_per_batch, plan)):
        path = folder / f"step-{number:09d}.json"
        path.write_text("".join(json.dumps(dict(zip(names, row, strict=True))) + "\n" for row in step))
        stamp = started + number  # the file source takes files by modification time, oldest first
        os.utime(path, (stamp, stamp))
    return spark.readStream.schema(schema).option("maxFilesPerTrigger", 1).json(str(folder))
