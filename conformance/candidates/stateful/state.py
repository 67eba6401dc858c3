"""A Kafka task's state stores as Spark state variables, and the working copy one micro-batch uses.

Spark keeps state per grouping key; the grouping key here is the Kafka task, so each state variable below
holds what one of the task's stores holds. A micro-batch reads a store into a ``StoreView`` (a dict),
the join processors read and change the dict, and the changes (not the whole store) are written back at
the end of the batch: Spark's state store then checkpoints them like any other operator state.

Why not read the state store record by record? Kafka's window store answers range queries
(``fetch(key, from, to)``) and its outer store is iterated in key order; Spark's ``MapState`` has neither a
range scan nor an order, so a store is loaded once per batch and indexed in Python. For stores much larger
than a batch, key the map by what the range query needs (the record key) and load only the keys the batch
touches.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

__all__ = ["CLOCK_SCHEMA", "NO_TIMESTAMP", "Entry", "StoreView", "load_clock", "store_clock"]

Entry = tuple[Any, ...]
"""A state key or value: a row of the variable's schema."""

CLOCK_SCHEMA = "stream_time long, min_time long, left_observed long, right_observed long, next_seq long"
"""The task's clocks (one row): the shared stream time and ``minTime`` of a stream-stream join's outer store
(``min_time`` null is Kafka's ``Long.MAX_VALUE``), the observed stream time of each window store and the
insertion counter that orders records with equal timestamps (Kafka's window store ``seqnum``)."""

CLOCK_FIELDS = tuple(field.split()[0] for field in CLOCK_SCHEMA.split(", "))
"""The clock row's field names, in order."""

NO_TIMESTAMP = -1
"""Kafka's ``ConsumerRecord.NO_TIMESTAMP``: the stream time of a store that has seen nothing."""


def load_clock(state: Any) -> dict[str, Any]:
    """The clock row of the current task as a dict (fresh clocks for a new task)."""
    row = state.get() if state.exists() else None
    if row is None:
        return {"stream_time": NO_TIMESTAMP, "min_time": None, "left_observed": NO_TIMESTAMP,
                "right_observed": NO_TIMESTAMP, "next_seq": 0}  # fmt: skip
    return {
        name: (None if value is None else int(value)) for name, value in zip(CLOCK_FIELDS, row, strict=True)
    }


def store_clock(state: Any, clock: dict[str, Any]) -> None:
    """Write the clock row back."""
    state.update(tuple(clock[name] for name in CLOCK_FIELDS))


class StoreView:
    """A ``MapState`` read into a dict for one micro-batch; ``write_back`` applies what changed.
    ``normalise`` turns a key as the state returns it into the tuple the join code uses."""

    __slots__ = ("_removed", "_state", "_written", "entries")

    def __init__(self, state: Any, normalise: Callable[[Entry], Entry] = tuple) -> None:
        self._state = state
        self.entries: dict[Entry, Entry] = {normalise(key): tuple(value) for key, value in state.iterator()}
        self._written: set[Entry] = set()
        self._removed: set[Entry] = set()

    def __iter__(self) -> Iterator[Entry]:
        return iter(self.entries)

    def __len__(self) -> int:
        return len(self.entries)

    def get(self, key: Entry) -> Entry | None:
        return self.entries.get(key)

    def put(self, key: Entry, value: Entry) -> None:
        self.entries[key] = value
        self._written.add(key)
        self._removed.discard(key)

    def remove(self, key: Entry) -> None:
        if self.entries.pop(key, None) is not None:
            self._removed.add(key)
            self._written.discard(key)

    def write_back(self) -> None:
        """Apply this batch's puts and removals to the state variable."""
        for key in self._removed:
            self._state.removeKey(key)
        for key in self._written:
            self._state.updateValue(key, self.entries[key])
