"""The ``StatefulProcessor``: one Kafka task per grouping key, its records in order, its stores as state.

The grouping key is ``(scenario_id, task)`` (the end-to-end job groups by ``scenario_id`` alone): one
Kafka task of one scenario; only a stream-globaltable scenario has more than one (``query``).

Each micro-batch brings, per task, the records of a few processing steps (``steps_per_batch``; the
end-to-end job reads all it finds), which the processor sorts by ``idx``: any batch size gives the same
answer. ``handleInputRows`` loads the
task's stores (``state.StoreView``), runs Kafka's join processors over the records, writes the changes
back and yields the results with the input index that emitted them (``idx``) and their position among
that input's results (``seq``), so the check can be exact about emission order.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any, Protocol

import pandas as pd
from pyspark.sql.streaming.stateful_processor import StatefulProcessor, StatefulProcessorHandle

from kjoin.conformance.candidates.stateful.foreign_key import ForeignKeyJoinTask
from kjoin.conformance.candidates.stateful.global_table import GlobalTableTask
from kjoin.conformance.candidates.stateful.self_join import RewrittenSelfJoinTask, UnrewrittenSelfJoinTask
from kjoin.conformance.candidates.stateful.state import CLOCK_SCHEMA, StoreView, load_clock, store_clock
from kjoin.conformance.candidates.stateful.stream_stream import StreamStreamTask, WindowSpec
from kjoin.conformance.candidates.stateful.tables import StreamTableTask, TableTableTask
from kjoin.conformance.candidates.stateful.versioned import PlainTable, VersionedTable
from kjoin.oracle.behaviour import behaviour_for

__all__ = ["OUTPUT_COLUMNS", "OUTPUT_DDL", "JoinTask", "KafkaTaskProcessor"]

OUTPUT_DDL = (
    "scenario_id string, key string, left string, right string, tombstone boolean, ts long, idx long, "
    "seq long"
)
OUTPUT_COLUMNS = [field.split()[0] for field in OUTPUT_DDL.split(", ")]

WINDOW_STORE_KEY = "key string, ts long, seq long"
HELD_KEY = "ts long, side int, key string, seq long"
TABLE_KEY = "key string"
VERSION_KEY = "key string, from_ts long"
BUFFER_KEY = "ts long, key string, seq long"
SUBSCRIPTION_KEY = "fk string, pk string"


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
        elif self.join == "stream-globaltable":
            self.global_table = handle.getMapState("global_table", TABLE_KEY, "value string, ts long")
        else:
            for side in ("left", "right"):
                setattr(
                    self,
                    f"{side}_table",
                    handle.getMapState(f"{side}_table", TABLE_KEY, "value string, ts long"),
                )
                setattr(
                    self,
                    f"{side}_versions",
                    handle.getMapState(f"{side}_versions", VERSION_KEY, "value string"),
                )
                setattr(
                    self,
                    f"{side}_version_end",
                    handle.getMapState(f"{side}_version_end", TABLE_KEY, "end long"),
                )
            self.grace_buffer = handle.getMapState("grace_buffer", BUFFER_KEY, "value string")
        if self.join == "fk":
            self.subscriptions = handle.getMapState("subscriptions", SUBSCRIPTION_KEY, "hash string, ts long")

    def handleInputRows(self, key: Any, rows: Iterator[Any], timerValues: Any) -> Iterator[pd.DataFrame]:
        """Run this batch's records of one task through the join; yield what it forwards."""
        task = key[0]  # the scenario id: the output's scenario_id
        records = pd.concat(list(rows), ignore_index=True).sort_values("idx", kind="stable")
        batch: list[dict[str, Any]] = records.astype(object).where(records.notna(), None).to_dict("records")
        yield pd.DataFrame(self.process_batch(task, batch), columns=OUTPUT_COLUMNS)

    def process_batch(self, task: Any, batch: Sequence[dict[str, Any]]) -> list[tuple[Any, ...]]:
        """One micro-batch of a task, its records in ``idx`` order as dicts of input columns: load the
        stores, run the join over the records, write the changes back; the ``OUTPUT_COLUMNS`` rows."""
        clock = load_clock(self.clock)
        views, join = self._load(batch[0], clock)
        out: list[tuple[Any, ...]] = []
        for record in batch:
            emitted = join.process(record["side"], record["key"], record["value"], int(record["ts"]))
            for seq, (result_key, left, right, ts, *deleted) in enumerate(emitted):
                tombstone = bool(deleted and deleted[0])
                out.append((task, result_key, left, right, tombstone, ts, int(record["idx"]), seq))
        if isinstance(join, (StreamStreamTask, UnrewrittenSelfJoinTask)):
            join.expire()
        for view in views:
            view.write_back()
        store_clock(self.clock, clock)
        return out

    def close(self) -> None:
        pass

    def _load(self, spec: dict[str, Any], clock: dict[str, Any]) -> tuple[list[StoreView], JoinTask]:
        """The task's stores for this batch and the join that runs over them (``spec``: a record's row,
        which carries its scenario's configuration)."""
        variant = str(spec["variant"])
        era = behaviour_for(str(spec["kafka"]), intended=bool(spec["intended"]))
        if self.join == "stream-stream":
            window = WindowSpec(
                variant=variant,
                before=int(spec["before"]),
                after=int(spec["after"]),
                grace=None if spec["grace"] is None else int(spec["grace"]),
                legacy=bool(spec["legacy"]),
                stores=str(spec["stores"]),
                era=era,
            )
            stores = [StoreView(self.left_window, _window_key), StoreView(self.right_window, _window_key)]
            held = StoreView(self.held, _held_key)
            if not spec["self_join"]:
                return [*stores, held], StreamStreamTask(window, clock, stores[0], stores[1], held)
            if spec["optimization"] == "all" and era.self_join_is_rewritten_by_optimization:
                return stores, RewrittenSelfJoinTask(window, clock, stores[0], stores[1], None)
            two_stores = StreamStreamTask(window, clock, stores[0], stores[1], held)
            return [*stores, held], UnrewrittenSelfJoinTask(two_stores)
        if self.join == "stream-globaltable":
            replica = StoreView(self.global_table)
            return [replica], GlobalTableTask(variant, str(spec["key_mapper"]), PlainTable(replica), era)
        if self.join == "stream-table":
            views, table = self._table("right", spec, clock)
            grace = None if spec["grace"] is None else int(spec["grace"])
            buffer = StoreView(self.grace_buffer, _buffer_key)
            forwards_null_keys = bool(era.left_joins_forward_null_keys)
            task = StreamTableTask(variant, table, grace, buffer, clock, forwards_null_keys)
            return [*views, buffer], task
        if self.join == "fk":
            return self._foreign_key(variant, spec, clock, era)
        left_views, left = self._table("left", spec, clock)
        right_views, right = self._table("right", spec, clock)
        return [*left_views, *right_views], TableTableTask(variant, left, right)

    def _foreign_key(
        self, variant: str, spec: dict[str, Any], clock: dict[str, Any], era: Any
    ) -> tuple[list[StoreView], JoinTask]:
        """An FK join's two tables, its subscription store, and the join over them."""
        lhs_views, lhs = self._table("left", spec, clock)
        rhs_views, rhs = self._table("right", spec, clock)
        subscriptions = StoreView(self.subscriptions)
        fk_join = ForeignKeyJoinTask(variant, str(spec["fk_extractor"]), lhs, rhs, subscriptions, era)
        return [*lhs_views, *rhs_views, subscriptions], fk_join

    def _table(
        self, side: str, spec: dict[str, Any], clock: dict[str, Any]
    ) -> tuple[list[StoreView], PlainTable]:
        """One table side's stores and the table over them: versioned if the scenario says so."""
        current = StoreView(getattr(self, f"{side}_table"))
        if not spec[f"{side}_versioned"]:
            return [current], PlainTable(current)
        versions = StoreView(getattr(self, f"{side}_versions"), _version_key)
        ends = StoreView(getattr(self, f"{side}_version_end"))
        history = int(spec["history_ms"])
        table = VersionedTable(current, versions, ends, history, clock, f"{side}_observed")
        return [current, versions, ends], table


def _version_key(key: tuple[Any, ...]) -> tuple[str, int]:
    return (str(key[0]), int(key[1]))


def _buffer_key(key: tuple[Any, ...]) -> tuple[int, str, int]:
    return (int(key[0]), str(key[1]), int(key[2]))
