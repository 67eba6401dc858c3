"""The two window stores of a KStream-KStream join: retention, observed time and expiry per store kind.

Each side's records go into that side's own store (retained duplicates), and the other side's join
processor fetches from it (spec SS-1). What a fetch can still see depends on the store's *own*
observed stream time (the largest timestamp ever put into it), its retention and the store kind
(spec SS-7, SS-8, SS-9):

* in-memory (2.4+, KIP-479), and RocksDB since 3.4: exact, a record is visible while
  ``ts > observed - retention``;
* RocksDB 2.1-3.3: whole segments expire, a record is visible while its segment
  ``ts // interval`` is at least ``(observed - retention) // interval``;
* RocksDB before 2.1: the newest three segments are kept, ``ts // interval >= observed // interval - 2``.

The segment interval is ``max(retention // 2, 60 s)``. A null-value put is never stored, but it advances
the observed time of in-memory stores (all versions) and of RocksDB stores before KAFKA-9921 (2.5.1).

Visibility is a pure function of a record's ts and the observed time, which only grows, so a record
that is invisible once stays invisible: puts of already-expired records are dropped, a fetch starts at
the smallest live timestamp, and a put prunes expired records from the front of the key's list before it
adds one (so a list holds at most its live records and those expired since its last put; a key whose
records all expired keeps its two empty lists). The whole store is per-key lists kept sorted by
(ts, insertion order), the window store's iteration order (key | ts | seqnum).
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections.abc import Callable

from kjoin.oracle.behaviour import DAY_MS, Behaviour
from kjoin.oracle.errors import UnsupportedJoinError
from kjoin.oracle.records import Key, StoreKind, Value, Window

__all__ = ["MIN_SEGMENT_INTERVAL_MS", "JoinWindowStore", "join_store_retention", "segment_interval"]

MIN_SEGMENT_INTERVAL_MS = 60_000
"""Smallest RocksDB segment interval (``Stores.persistentWindowStore``; 0.10.x ``MIN_SEGMENT_INTERVAL``)."""

_SEGMENTS_KEPT_BEFORE_2_1 = 3
"""0.10.x-2.0 ``Windows#segments`` default: the newest segment and the two before it stay alive."""

_NOTHING_OBSERVED = -1
"""Observed time of a store nothing has been put into (``ConsumerRecord.NO_TIMESTAMP``)."""

_NO_RECORDS: tuple[list[int], list[Value], int, int] = ([], [], 0, 0)
"""What a fetch returns for a key without live records (never mutated)."""


def join_store_retention(window: Window, behaviour: Behaviour) -> int:
    """Retention of both join window stores, ``before + after + grace`` (spec SS-6, SS-15).

    With no grace given (the legacy ``JoinWindows.of(before)`` API) the grace is the legacy default:
    ``max(24 h - 2 * before, 0)`` since 3.0 (fixed by ``of`` and kept by ``.after()``), and before that
    ``max(1 day, before + after) - (before + after)`` (``maintainMs - size``), i.e. a retention of
    ``max(1 day, before + after)``. A grace can only be given from 2.1 (KIP-328).
    """
    size = window.before + window.after
    if window.grace is not None:
        if not behaviour.join_windows_have_grace:
            raise UnsupportedJoinError(
                f"JoinWindows#grace needs Kafka 2.1+ (KIP-328); era {behaviour.era} has no grace period, "
                "its join stores retain max(1 day, before + after): give grace=None (legacy of())"
            )
        return size + window.grace
    if behaviour.legacy_join_grace_is_set_by_of:
        return size + max(DAY_MS - 2 * window.before, 0)
    return max(DAY_MS, size)


def segment_interval(retention: int) -> int:
    """RocksDB segment length: ``max(retention / 2, 60 s)`` in every version (spec SS-8)."""
    return max(retention // 2, MIN_SEGMENT_INTERVAL_MS)


def _exact_expiry(retention: int) -> Callable[[int], int]:
    """In-memory stores and RocksDB 3.4+: visible iff ``ts > observed - retention`` (spec SS-7)."""
    return lambda observed: observed - retention + 1


def _segment_expiry_by_retention(retention: int) -> Callable[[int], int]:
    """RocksDB 2.1-3.3: segments before ``segmentId(observed - retention)`` are dropped (spec SS-8).

    Java's truncating division only differs from ``//`` for negative numerators, where every real segment
    (ts >= 0) is live either way, hence the ``max(..., 0)``.
    """
    interval = segment_interval(retention)
    return lambda observed: max(observed - retention, 0) // interval * interval


def _segment_expiry_by_count(retention: int) -> Callable[[int], int]:
    """RocksDB before 2.1: only the newest ``3`` segments are kept (spec SS-8)."""
    interval = segment_interval(retention)
    return lambda observed: (observed // interval - (_SEGMENTS_KEPT_BEFORE_2_1 - 1)) * interval


class JoinWindowStore:
    """One side's join window store: per key, timestamps and values sorted by (ts, insertion order)."""

    __slots__ = ("_counts_null_values", "_min_live_for", "_records", "min_live_ts", "observed_time")

    def __init__(self, retention: int, kind: StoreKind, behaviour: Behaviour) -> None:
        if kind == "memory" and not behaviour.stream_joins_can_use_in_memory_stores:
            raise UnsupportedJoinError(
                f"a stream-stream join can only use in-memory stores from Kafka 2.4 (KIP-479 StreamJoined); "
                f"era {behaviour.era} always uses RocksDB: give stores='rocksdb'"
            )
        if kind == "memory" or behaviour.rocksdb_window_expiry_is_exact:
            self._min_live_for = _exact_expiry(retention)
        elif behaviour.rocksdb_segments_expire_by_retention:
            self._min_live_for = _segment_expiry_by_retention(retention)
        else:
            self._min_live_for = _segment_expiry_by_count(retention)
        self._counts_null_values = kind == "memory" or not behaviour.rocksdb_join_stores_skip_null_values
        self._records: dict[Key, tuple[list[int], list[Value]]] = {}
        self.observed_time = _NOTHING_OBSERVED
        self.min_live_ts = -(2**63)
        """Smallest timestamp a fetch can still return (derived from ``observed_time``)."""

    def put(self, key: Key, value: Value, ts: int) -> None:
        """``KStreamJoinWindow`` puts every non-null-key record of its side, after the join processor
        saw it (spec SS-1, SS-9). Null values are not stored but may advance the observed time."""
        if value is None:
            if self._counts_null_values and ts > self.observed_time:
                self.observed_time = ts
                self.min_live_ts = self._min_live_for(ts)
            return
        if ts > self.observed_time:
            self.observed_time = ts
            self.min_live_ts = live = self._min_live_for(ts)
        else:
            live = self.min_live_ts
        if ts < live:  # even at a new observed time: a zero retention keeps nothing
            return
        entry = self._records.get(key)
        if entry is None:
            self._records[key] = ([ts], [value])
            return
        times, values = entry
        if times[0] < live:
            expired = bisect_left(times, live)
            del times[:expired]
            del values[:expired]
        if not times or ts >= times[-1]:
            times.append(ts)
            values.append(value)
        else:
            at = bisect_right(times, ts)
            times.insert(at, ts)
            values.insert(at, value)

    def fetch(self, key: Key, time_from: int, time_to: int) -> tuple[list[int], list[Value], int, int]:
        """Records of ``key`` with ``time_from <= ts <= time_to`` (both inclusive) that have not expired, in
        (ts, insertion) order (spec SS-2, SS-3, SS-7): ``times[start:end]`` and ``values[start:end]`` of the
        returned ``(times, values, start, end)`` (indices rather than slices: this is the join's hot path)."""
        entry = self._records.get(key)
        if entry is None:
            return _NO_RECORDS
        times, values = entry
        live = self.min_live_ts
        start = bisect_left(times, time_from if time_from > live else live)
        return times, values, start, bisect_right(times, time_to, start)

    def snapshot(self) -> dict[str, object]:
        """Observed time and the records a fetch could still return, per key, as plain data."""
        live = self.min_live_ts
        return {
            "observed_time": self.observed_time,
            "records": [
                [key, ts, value]
                for key, (times, values) in self._records.items()
                for ts, value in zip(times, values, strict=True)
                if ts >= live
            ],
        }
