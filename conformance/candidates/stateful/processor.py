"""The ``StatefulProcessor``: one Kafka task per grouping key, its records in order, its stores as state.

Each micro-batch brings, per task, the records of one processing step (the harness feeds one step per
batch; the processor sorts by ``idx`` anyway, so larger batches work too). ``handleInputRows`` loads the
task's stores (``state.StoreView``), runs Kafka's join processors over the records, writes the changes
back and yields the results with the input index that emitted them (``idx``) and their position among
that input's results (``seq``), so the check can be exact about emission order.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any, Protocol

import pandas as pd
from pyspark.sql.streaming.stateful_processor import StatefulProcessor, StatefulProcessorHandle

from kjoin.conformance.candidates.stateful.state import CLOCK_SCHEMA, StoreView, load_clock, store_clock
from kjoin.conformance.candidates.stateful.stream_stream import StreamStreamTask, WindowSpec
from kjoin.conformance.candidates.stateful.tables import StreamTableTask, TableTableTask

__all__ = ["OUTPUT_COLUMNS", "OUTPUT_DDL", "JoinTask", "KafkaTaskProcessor"]

OUTPUT_DDL = (
    "scenario_id string, key string, left string, right string, tombstone boolean, ts long, idx long, "
    "seq long"
)
OUTPUT_COLUMNS = [field.split()[0] for field in OUTPUT_DDL.split(", ")]

WINDOW_STORE_KEY = "key string, ts long, seq long"
HELD_KEY = "ts long, side int, key string, seq long"
TABLE_KEY = "key string"


def _window_key(key: tuple[Any, ...]) -> tuple[str, int, int]:
    return (str(key[0]), int(key[1]), int(key[2]))


def _held_key(key: tuple[Any, ...]) -> tuple[int, int, str, int]:
    return (int(key[0]), int(key[1]), str(key[2]), int(key[3]))


class JoinTask(Protocol):
    """One join kind's processors over a task's loaded state."""

    def process(self, side: str, key: str | None, value: str | None, ts: int) -> Sequence[tuple[Any, ...]]:
        """The results one input record forwards: ``(key, left, right, ts[, tombstone])`` each."""
        ...


class KafkaTaskProcessor(StatefulProcessor):
    """Kafka Streams joins (``join`` kind) with a Kafka task's state per grouping key."""

    def __init__(self, join: str) -> None:
        self.join = join

    def init(self, handle: StatefulProcessorHandle) -> None:
        """Declare the task's stores for this join kind."""
        self.clock = handle.getValueState("clock", CLOCK_SCHEMA)
        if self.join == "stream-stream":
            self.left_window = handle.getMapState("left_window", WINDOW_STORE_KEY, "value string")
            self.right_window = handle.getMapState("right_window", WINDOW_STORE_KEY, "value string")
            self.held = handle.getMapState("outer_store", HELD_KEY, "value string")
        else:
            self.left_table = handle.getMapState("left_table", TABLE_KEY, "value string, ts long")
            self.right_table = handle.getMapState("right_table", TABLE_KEY, "value string, ts long")

    def handleInputRows(self, key: Any, rows: Iterator[Any], timerValues: Any) -> Iterator[pd.DataFrame]:
        """Run this batch's records of one task through the join; yield what it forwards."""
        (task,) = key
        records = pd.concat(list(rows), ignore_index=True).sort_values("idx", kind="stable")
        batch: list[dict[str, Any]] = records.astype(object).where(records.notna(), None).to_dict("records")
        clock = load_clock(self.clock)
        views, join = self._load(batch[0], clock)
        out: list[tuple[Any, ...]] = []
        for record in batch:
            emitted = join.process(record["side"], record["key"], record["value"], int(record["ts"]))
            for seq, (result_key, left, right, ts, *deleted) in enumerate(emitted):
                tombstone = bool(deleted and deleted[0])
                out.append((task, result_key, left, right, tombstone, ts, int(record["idx"]), seq))
        if isinstance(join, StreamStreamTask):
            join.expire()
        for view in views:
            view.write_back()
        store_clock(self.clock, clock)
        yield pd.DataFrame(out, columns=OUTPUT_COLUMNS)

    def close(self) -> None:
        pass

    def _load(self, spec: dict[str, Any], clock: dict[str, Any]) -> tuple[list[StoreView], JoinTask]:
        """The task's stores for this batch and the join that runs over them (``spec``: a record's row,
        which carries its scenario's configuration)."""
        variant = str(spec["variant"])
        if self.join == "stream-stream":
            window = WindowSpec(
                variant=variant,
                before=int(spec["before"]),
                after=int(spec["after"]),
                grace=None if spec["grace"] is None else int(spec["grace"]),
                legacy=bool(spec["legacy"]),
                stores=str(spec["stores"]),
                intended=bool(spec["intended"]),
            )
            left = StoreView(self.left_window, _window_key)
            right = StoreView(self.right_window, _window_key)
            held = StoreView(self.held, _held_key)
            return [left, right, held], StreamStreamTask(window, clock, left, right, held)
        if self.join == "stream-table":
            table = StoreView(self.right_table)
            return [table], StreamTableTask(variant, table)
        left, right = StoreView(self.left_table), StoreView(self.right_table)
        return [left, right], TableTableTask(variant, left, right)
