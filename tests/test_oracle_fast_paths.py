"""The oracle's fast stores agree with small, obviously correct formulations of the same rules.

Two stores of the stream-stream join answer by bisection and prune lazily for speed (``oracle.outer_store``,
``oracle.window_store``). Each reference below states its rule the plain way: the outer store as one sorted
list of store keys walked record by record exactly as spec SS-23, SS-24 spells out Kafka's emission loops (the
formulation the oracle used before, and the one that matched the golden traces), and the window store as every
record ever put, filtered on each fetch (spec SS-7). Hypothesis drives both with the same random operations,
built from ``kjoin.strategies``; outputs, ``minTime`` and contents must be identical.
"""

from __future__ import annotations

from bisect import insort

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kjoin.oracle import Output, Window, behaviour_for
from kjoin.oracle.behaviour import Behaviour
from kjoin.oracle.outer_store import LEFT_SIDE, RIGHT_SIDE, OuterJoinBuffer, outer_store_key_bytes
from kjoin.oracle.records import Key, StoreKind, Value
from kjoin.oracle.window_store import JoinWindowStore
from kjoin.strategies import keys, timestamps, values
from support.tiers import default_tier_keeps, smoke_ends

FAST_PATHS = settings(max_examples=150, derandomize=True, database=None, deadline=None)
"""150 examples per case, derandomized: the same examples on every run, so a failure reproduces."""

OUTER_ERAS = [("3.1", False), ("3.7", False), ("3.9", False), ("3.9", True)]
"""The three emission passes: 3.1-3.7 (processor bound), 3.8+ as shipped (stale ``minTime``) and intended."""

_StoreKey = tuple[int, int, bytes]


class _WalkedOuterStore:
    """The outer store as a dict of store keys, walked in sorted order by each pass (spec SS-21)."""

    def __init__(self, window: Window, behaviour: Behaviour) -> None:
        assert window.grace is not None
        self.before, self.after, self.grace = window.before, window.after, window.grace
        self.behaviour = behaviour
        self.lists: dict[_StoreKey, tuple[Key, list[Value]]] = {}
        self.stream_time = -1
        self.min_time: int | None = None

    def hold(self, ts: int, side: int, key: Key, value: Value) -> None:
        self.lists.setdefault((ts, side, outer_store_key_bytes(key)), (key, []))[1].append(value)
        self.min_time = ts if self.min_time is None else min(self.min_time, ts)

    def release(self, side: int, key: Key, partner_times: list[int]) -> None:
        for ts in partner_times:
            self.lists.pop((ts, side, outer_store_key_bytes(key)), None)

    def emit_closed(self, left_processor: bool, cause: int, outputs: list[Output]) -> None:
        join_after = self.after if left_processor else self.before
        if not self.behaviour.outer_join_closes_each_side_by_its_own_bound:
            look_back = self.before if left_processor else self.after
            if self.min_time is None or self.min_time >= self.stream_time - look_back - self.grace:
                return
            last_open = self.stream_time - join_after - self.grace
            self.min_time = self._walk_to_first_open(last_open, cause, outputs)
        elif self.behaviour.outer_join_min_time_is_last_visited:
            if self.min_time is None or self.min_time + join_after + self.grace >= self.stream_time:
                return
            self.min_time = self._walk_past_open(cause, outputs)
        elif any(self._closed(ts, side) for ts, side, _ in self.lists):
            self._walk_past_open(cause, outputs)

    def _closed(self, ts: int, side: int) -> bool:
        bound = self.after if side == LEFT_SIDE else self.before
        return ts + bound + self.grace < self.stream_time

    def _walk_to_first_open(self, last_open: int, cause: int, outputs: list[Output]) -> int | None:
        """3.1-3.7: emit in store order until the first record at or after ``last_open``."""
        visited = None
        for store_key in sorted(self.lists):
            visited = store_key[0]
            if store_key[0] >= last_open:
                break
            self._emit(store_key, cause, outputs)
        return visited

    def _walk_past_open(self, cause: int, outputs: list[Output]) -> int | None:
        """3.8+: emit closed records, step over open ones, stop once both sides showed an open one."""
        visited = None
        open_sides: set[int] = set()
        for store_key in sorted(self.lists):
            closed = self._closed(store_key[0], store_key[1])
            for _value in self.lists[store_key][1]:  # ListValueStore#all: one entry per value
                visited = store_key[0]
                if len(open_sides) == 2:
                    return visited
                if not closed:
                    open_sides.add(store_key[1])
            if closed:
                self._emit(store_key, cause, outputs)
        return visited

    def _emit(self, store_key: _StoreKey, cause: int, outputs: list[Output]) -> None:
        ts, side, _ = store_key
        key, held = self.lists.pop(store_key)
        for value in held:
            outputs.append(Output(key, (value, None) if side == LEFT_SIDE else (None, value), ts, cause))

    def snapshot(self) -> list[list[object]]:
        return [
            [ts, "left" if side == LEFT_SIDE else "right", self.lists[ts, side, raw][0], value]
            for ts, side, raw in sorted(self.lists)
            for value in self.lists[ts, side, raw][1]
        ]


_OUTER_KEYS = st.one_of(keys(max_keys=3), st.sampled_from(["", "é", "k10", 7, -1]))
"""Keys whose bytes order differently from their text or numbers (``k10`` < ``k2``, negative ints last)."""

_SIDES = st.sampled_from([LEFT_SIDE, RIGHT_SIDE])


@st.composite
def _outer_operations(draw: st.DrawFn) -> list[tuple[object, ...]]:
    """Holds, releases and passes on few timestamps and keys, so timestamps share keys of both sides."""
    operations: list[tuple[object, ...]] = []
    stream_time = 0
    while len(operations) < 30 and draw(st.integers(min_value=0, max_value=15)):
        kind = draw(st.sampled_from(["hold", "hold", "release", "pass"]))
        if kind == "hold":
            side = draw(_SIDES)
            value = draw(values("left" if side == LEFT_SIDE else "right", null_values=False))
            operations.append(("hold", draw(timestamps(max_value=30)), side, draw(_OUTER_KEYS), value))
        elif kind == "release":
            partner_times = draw(st.lists(timestamps(max_value=30), max_size=3))
            operations.append(("release", draw(_SIDES), draw(_OUTER_KEYS), partner_times))
        else:
            stream_time += draw(st.integers(min_value=0, max_value=8))
            operations.append(("pass", stream_time, draw(st.booleans())))
    return operations


# the default tier one era before 3.8 and the newest shipped one; CI's system tier every era (docs/testing.md)
@pytest.mark.parametrize(
    ("version", "intended"), default_tier_keeps(OUTER_ERAS, keep={("3.1", False), ("3.9", False)})
)
@FAST_PATHS
@given(
    before=st.integers(min_value=0, max_value=6),
    after=st.integers(min_value=0, max_value=6),
    grace=st.integers(min_value=0, max_value=4),
    operations=_outer_operations(),
)
def test_outer_join_buffer_emits_like_the_store_walk_for_random_operations(
    version: str, intended: bool, before: int, after: int, grace: int, operations: list[tuple[object, ...]]
) -> None:
    behaviour = behaviour_for(version, intended=intended)
    window = Window(before=before, after=after, grace=grace)
    fast, walked = OuterJoinBuffer(window, behaviour), _WalkedOuterStore(window, behaviour)
    for cause, operation in enumerate(operations):
        fast_outputs: list[Output] = []
        walked_outputs: list[Output] = []
        if operation[0] == "hold":
            _, ts, side, key, value = operation
            fast.hold(ts, side, key, value)  # type: ignore[arg-type]
            walked.hold(ts, side, key, value)  # type: ignore[arg-type]
        elif operation[0] == "release":
            _, side, key, partner_times = operation
            fast.held.release(side, key, partner_times)  # type: ignore[arg-type]
            walked.release(side, key, partner_times)  # type: ignore[arg-type]
        else:
            _, stream_time, left_processor = operation
            fast.stream_time = walked.stream_time = stream_time  # type: ignore[assignment]
            fast.emit_closed(left_processor, cause, fast_outputs)  # type: ignore[arg-type]
            walked.emit_closed(left_processor, cause, walked_outputs)  # type: ignore[arg-type]
        assert fast_outputs == walked_outputs, operation
        assert fast.min_time == walked.min_time, operation
        assert fast.held.snapshot() == walked.snapshot(), operation


class _UnprunedWindowStore:
    """Every stored record of one window store, in put order; a fetch filters them (spec SS-7, SS-8)."""

    def __init__(self) -> None:
        self.records: list[tuple[Key, int, Value]] = []

    def put(self, key: Key, value: Value, ts: int, min_live_ts: int) -> None:
        if value is not None and ts >= min_live_ts:
            self.records.append((key, ts, value))

    def fetch(self, key: Key, time_from: int, time_to: int, min_live_ts: int) -> list[tuple[int, Value]]:
        found: list[tuple[int, Value]] = []
        for stored_key, ts, value in self.records:
            if stored_key == key and time_from <= ts <= time_to and ts >= min_live_ts:
                insort(found, (ts, value), key=lambda record: record[0])  # ts order, then put order
        return found


WINDOW_STORES = [
    ("3.9", "memory"),
    ("3.9", "rocksdb"),
    ("3.3", "rocksdb"),
    ("2.0", "rocksdb"),
    ("2.4", "rocksdb"),
]
"""Exact expiry (in-memory; RocksDB 3.4+), segments by retention (2.1-3.3), by count (before 2.1), and
RocksDB before KAFKA-9921, whose null-value puts advance the observed time."""


@st.composite
def _window_operations(draw: st.DrawFn) -> list[tuple[object, ...]]:
    """Puts (some with null values) and fetches around a clock that rises by jumps, some out of order."""
    operations: list[tuple[object, ...]] = []
    clock = 0
    while len(operations) < 30 and draw(st.integers(min_value=0, max_value=15)):
        clock += draw(st.sampled_from([0, 1, 5, 40_000]))
        ts = max(0, clock - draw(timestamps(max_value=60_000)))
        key = draw(keys(max_keys=2))
        if draw(st.booleans()):
            operations.append(("put", key, draw(values("left")), ts))
        else:
            time_from = max(0, clock - draw(timestamps(max_value=250_000)))
            operations.append(("fetch", key, time_from, time_from + draw(timestamps(max_value=250_000))))
    return operations


@pytest.mark.parametrize(("version", "kind"), smoke_ends(WINDOW_STORES))
@FAST_PATHS
@given(retention=st.sampled_from([0, 3, 50_000, 200_000]), operations=_window_operations())
def test_join_window_store_fetches_like_an_unpruned_store_for_random_operations(
    version: str, kind: StoreKind, retention: int, operations: list[tuple[object, ...]]
) -> None:
    behaviour = behaviour_for(version)
    fast, unpruned = JoinWindowStore(retention, kind, behaviour), _UnprunedWindowStore()
    counts_null_values = kind == "memory" or not behaviour.rocksdb_join_stores_skip_null_values
    observed = -1
    for operation in operations:
        if operation[0] == "put":
            _, key, value, ts = operation
            fast.put(key, value, ts)  # type: ignore[arg-type]
            if value is not None or counts_null_values:
                observed = max(observed, ts)  # type: ignore[call-overload]
            assert fast.observed_time == observed
            unpruned.put(key, value, ts, fast.min_live_ts)  # type: ignore[arg-type]
        else:
            _, key, time_from, time_to = operation
            times, found, start, end = fast.fetch(key, time_from, time_to)  # type: ignore[arg-type]
            fetched = list(zip(times[start:end], found[start:end], strict=True))
            assert fetched == unpruned.fetch(key, time_from, time_to, fast.min_live_ts), operation  # type: ignore[arg-type]
