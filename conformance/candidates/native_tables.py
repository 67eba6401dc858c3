"""A KTable-KTable join as a Spark user ports it: a micro-batch Structured Streaming job that keeps both
tables per key and emits, for every key a micro-batch changed, the key's join row once. Used by the
``spark-native`` candidate, compared with Kafka at level ``commit-points`` (docs/semantics/commit-points.md).

The job: the two tables' update streams, grouped by ``(scenario_id, key)``, through
``applyInPandasWithState`` (update mode). Per key and micro-batch, ``batch_row`` applies the batch's updates
in processing order to the key's state (each side's latest value and timestamp, and whether the job's last
row for the key was a join row) and decides the key's one output:

* a side *changed* when its value before or after the batch is non-null: a delete of a row the table does
  not hold changes nothing (as a ``MERGE ... WHEN MATCHED THEN DELETE`` would);
* when a side changed, the key's join row as of the end of the batch, if the variant has one (inner: both
  sides; left: the left side; outer: either), stamped with the newer of the two sides' latest timestamps;
* else a tombstone, only when the job's last row for the key was a join row (a retraction: the job never
  deletes a row it did not write), stamped the same way.

Each output carries as ``idx`` the last input of the batch for its key, so the harness keeps the
micro-batches in order. The records come ``STEPS_PER_BATCH`` processing steps per micro-batch
(``kjoin.conformance.streaming.feed``), every scenario in one query (the scenario id is part of the key).
"""

from __future__ import annotations

import itertools
from collections.abc import Hashable, Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import pandas as pd
    from pyspark.sql import DataFrame, SparkSession
    from pyspark.sql.streaming.state import GroupState

__all__ = ["STEPS_PER_BATCH", "KeyState", "batch_row", "port_outputs", "table_table_join"]

STEPS_PER_BATCH = 3
"""Processing steps per micro-batch: small enough that most scenarios span several micro-batches (their
keys' updates merged within each), large enough that most micro-batches merge some."""

_OUTPUT_DDL = (
    "scenario_id string, key string, left string, right string, tombstone boolean, ts long, idx long"
)
_STATE_DDL = (
    "left string, left_ts long, left_seen boolean, right string, right_ts long, right_seen boolean, "
    "joined boolean"
)
_STEP_DDL = "scenario_id string, idx long, side string, key string, value string, ts long, variant string"
_query_names = itertools.count()


@dataclass(frozen=True, slots=True)
class KeyState:
    """One key's state between micro-batches: each table's latest value (``None``: absent or deleted) and
    the timestamp of its latest update (``None``: never updated), and whether the job's last output for the
    key was a join row."""

    left: str | None = None
    left_ts: int | None = None
    right: str | None = None
    right_ts: int | None = None
    joined: bool = False


Update = tuple[str, str | None, int]
"""One input record of a key: ``(side, value, ts)``."""
Row = tuple[str | None, str | None, bool, int]
"""One output: ``(left, right, tombstone, ts)``."""


def _has_row(variant: str, left: str | None, right: str | None) -> bool:
    if variant == "inner":
        return left is not None and right is not None
    if variant == "left":
        return left is not None
    return left is not None or right is not None


def batch_row(variant: str, state: KeyState, updates: Sequence[Update]) -> tuple[KeyState, Row | None]:
    """The key's state after one micro-batch's ``updates`` (in processing order) and its one output, if
    any (module docstring)."""
    left, left_ts, right, right_ts = state.left, state.left_ts, state.right, state.right_ts
    for side, value, ts in updates:
        if side == "left":
            left, left_ts = value, ts
        else:
            right, right_ts = value, ts
    sides = {side for side, _, _ in updates}
    left_changed = "left" in sides and (state.left is not None or left is not None)
    right_changed = "right" in sides and (state.right is not None or right is not None)
    after = KeyState(left, left_ts, right, right_ts, state.joined)
    if not (left_changed or right_changed):
        return after, None
    stamps = (
        left_ts if left is not None or left_changed else None,
        right_ts if right is not None or right_changed else None,
    )
    ts = max(stamp for stamp in stamps if stamp is not None)
    if _has_row(variant, left, right):
        return KeyState(left, left_ts, right, right_ts, True), (left, right, False, ts)
    if state.joined:
        return KeyState(left, left_ts, right, right_ts, False), (None, None, True, ts)
    return after, None


def port_outputs(
    variant: str,
    records: Sequence[tuple[str, Hashable, str | None, int]],
    steps_per_batch: int = STEPS_PER_BATCH,
) -> list[tuple[Hashable, Row, int]]:
    """What the job emits for one scenario's records (``(side, key, value, ts)`` in processing order), fed
    ``steps_per_batch`` per micro-batch, without Spark: ``(key, row, idx)`` in the order the harness reads
    them (by ``idx``, the last input of the batch for the key)."""
    states: dict[Hashable, KeyState] = {}
    emitted: list[tuple[Hashable, Row, int]] = []
    for start in range(0, len(records), steps_per_batch):
        batch: dict[Hashable, list[tuple[int, Update]]] = {}
        for index in range(start, min(start + steps_per_batch, len(records))):
            side, key, value, ts = records[index]
            if key is not None:
                batch.setdefault(key, []).append((index, (side, value, ts)))
        for key, updates in batch.items():
            states[key], row = batch_row(variant, states.get(key, KeyState()), [u for _, u in updates])
            if row is not None:
                emitted.append((key, row, updates[-1][0]))
    return sorted(emitted, key=lambda output: output[2])


def _state_of(state: GroupState) -> KeyState:
    if not state.exists:
        return KeyState()
    left, left_ts, left_seen, right, right_ts, right_seen, joined = state.get
    return KeyState(left, left_ts if left_seen else None, right, right_ts if right_seen else None, joined)


def _stored(key_state: KeyState) -> tuple[Any, ...]:
    return (
        key_state.left,
        key_state.left_ts or 0,
        key_state.left_ts is not None,
        key_state.right,
        key_state.right_ts or 0,
        key_state.right_ts is not None,
        key_state.joined,
    )


def _per_key(
    key: tuple[Any, ...], batches: Iterator[pd.DataFrame], state: GroupState
) -> Iterator[pd.DataFrame]:
    """``applyInPandasWithState``'s function: one key's records of one micro-batch -> its one output."""
    import pandas as pd

    rows = pd.concat(list(batches)).sort_values("idx")
    scenario_id, record_key = key
    updates = [
        (side, None if pd.isna(value) else str(value), int(ts))
        for side, value, ts in zip(rows["side"], rows["value"], rows["ts"], strict=True)
    ]
    after, row = batch_row(str(rows["variant"].iloc[0]), _state_of(state), updates)
    state.update(_stored(after))
    if row is not None:
        left, right, tombstone, ts = row
        yield pd.DataFrame(
            [(scenario_id, record_key, left, right, tombstone, ts, int(rows["idx"].max()))],
            columns=["scenario_id", "key", "left", "right", "tombstone", "ts", "idx"],
        )


def table_table_join(spark: SparkSession, inputs: DataFrame, specs: DataFrame) -> DataFrame:
    """All table-table scenarios in one streaming query (module docstring); ``OUTPUT_SCHEMA`` + ``idx``."""
    from pyspark.sql import functions as F
    from pyspark.sql.streaming.state import GroupStateTimeout

    from kjoin.conformance.streaming.checkpoints import fresh_checkpoints
    from kjoin.conformance.streaming.feed import STEP_COLUMNS, stepped_file_stream, stepped_stream_of_rows

    variants = {row.scenario_id: row.variant for row in specs.select("scenario_id", "variant").collect()}
    rows = [
        (*(row[c] for c in STEP_COLUMNS), variants[row.scenario_id])
        for row in inputs.where(F.col("key").isNotNull()).select(*STEP_COLUMNS).collect()
    ]
    name = f"kjoin_native_tables_{next(_query_names)}"
    with fresh_checkpoints() as checkpoints:
        # as native_joins feeds its queries: Spark's file source with a local master (the Python source's
        # worker has a fixed 10 s to connect back, which a loaded machine misses), the Python source else
        if (spark.sparkContext.master or "").startswith("local"):
            stream = stepped_file_stream(spark, rows, checkpoints / "steps", (), _STEP_DDL, STEPS_PER_BATCH)
        else:
            stream = stepped_stream_of_rows(spark, rows, (), _STEP_DDL, STEPS_PER_BATCH)
        output = stream.groupBy("scenario_id", "key").applyInPandasWithState(
            _per_key, _OUTPUT_DDL, _STATE_DDL, "update", GroupStateTimeout.NoTimeout
        )
        writer = output.writeStream.format("memory").queryName(name).outputMode("update")
        query = writer.option("checkpointLocation", str(checkpoints / name)).start()
        try:
            query.processAllAvailable()
        finally:
            query.stop()
    answer = spark.table(name).collect()
    spark.catalog.dropTempView(name)
    return spark.createDataFrame(answer, _OUTPUT_DDL)
