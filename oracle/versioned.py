"""The tables behind table-backed joins: a plain timestamped table and a versioned store (KIP-889/914).

Both tables answer the questions the join processors ask (spec ST-6, TT-10, FK-11, VS-1):

* ``update(key, value, ts)`` applies one source-topic record the way ``KTableSource`` does: it reads the
  key's current value (the ``old`` part of the forwarded ``Change``), writes to the store and says what is
  forwarded: ``(old value, is_latest)``, or ``None`` when the store rejects the write (nothing is forwarded).
* ``get(key)`` is the current ``(value, ts)`` of a key, or ``None`` (never stored, or deleted).
* ``VersionedTable.get_as_of(key, as_of)`` is the timestamped lookup of a stream-table join (3.5+).

Null keys never reach a table: the join modules skip them first (``KTableSource`` drops them).

The versioned table models ``RocksDBVersionedStore`` as one timeline per key instead of its time segments:
the *latest value* (Kafka's latest-value store; never a tombstone) plus the *history* (the segments'
contents collapsed into one list of ``[valid_from, next valid_from)`` versions ending at ``history.end``).
Every branch of ``put`` below mirrors one case of the store's put procedure, so the oracle reproduces its
edge cases: a gap between two versions reads as null, a degenerate tombstone ``[t, t)`` marks a deleted
key, and a tombstone with the latest value's own timestamp deletes that value without recording anything
(spec VS-7). Versions older than the history retention are kept, not expired: no
lookup the store answers can reach them (an in-window lookup only needs versions valid after
``observedStreamTime - history``; an expired lookup consults the latest value only), so keeping them
changes no result.
"""

from __future__ import annotations

from bisect import bisect_right
from enum import Enum
from typing import Protocol

from kjoin.oracle.records import Key, Value

__all__ = ["PlainTable", "PutStatus", "Table", "TableUpdate", "VersionedTable", "table_for"]

TableUpdate = tuple[Value, bool]
"""What ``KTableSource`` forwards for an accepted update besides the new value: ``(old value, is_latest)``."""

_NO_TIMESTAMP = -1
"""``observedStreamTime`` of a store that has seen no put yet (Kafka's ``ConsumerRecord.NO_TIMESTAMP``)."""


class Table(Protocol):
    """What a join needs from the table behind one of its sides."""

    def update(self, key: Key, value: Value, ts: int) -> TableUpdate | None:
        """Apply a source-topic record; ``(old value, is_latest)`` to forward, or ``None`` if rejected."""
        ...

    def get(self, key: Key) -> tuple[str, int] | None:
        """The current ``(value, ts)`` of ``key``, or ``None``."""
        ...

    def snapshot(self) -> dict[str, object]:
        """The table's contents as plain data."""
        ...


class PlainTable:
    """An unversioned (timestamped) key-value table: the last update wins, whatever its timestamp.

    Out-of-order updates simply overwrite, a tombstone deletes, and every update is forwarded as the latest
    (spec ST-5, TT-1). The stored ts is the update's own ts; it is the
    "other side's stored ts" of the table-table max-ts rule (2.3+, KIP-258).
    """

    __slots__ = ("_rows",)

    def __init__(self) -> None:
        self._rows: dict[Key, tuple[str, int]] = {}

    def update(self, key: Key, value: Value, ts: int) -> TableUpdate | None:
        """Overwrite (or delete) ``key``; forward the previous value, always as the latest."""
        rows = self._rows
        old = rows.pop(key, None) if value is None else rows.get(key)
        if value is not None:
            rows[key] = (value, ts)
        return (None if old is None else old[0]), True

    def get(self, key: Key) -> tuple[str, int] | None:
        """The current ``(value, ts)`` of ``key``."""
        return self._rows.get(key)

    def snapshot(self) -> dict[str, object]:
        """``{key: {"value", "ts"}}`` for every live key."""
        return {repr(key): {"value": value, "ts": ts} for key, (value, ts) in self._rows.items()}


class PutStatus(Enum):
    """The outcome of a versioned put (``RocksDBVersionedStore#put`` return codes, spec VS-3, VS-5)."""

    REJECTED = "rejected"
    """Older than ``observedStreamTime - history``: not stored (``NOT_PUT``), so nothing is forwarded."""

    LATEST = "latest"
    """The key's newest version (validTo undefined): forwarded with ``isLatest = true``."""

    HISTORICAL = "historical"
    """Stored before a version or tombstone the store already has (finite validTo): ``isLatest = false``."""


# Module-level aliases: reading an Enum member through its class is slow on Python 3.11 (hot path).
_REJECTED, _LATEST, _HISTORICAL = PutStatus.REJECTED, PutStatus.LATEST, PutStatus.HISTORICAL


class _History:
    """The older versions of one key: ``values[i]`` is valid from ``starts[i]`` until ``starts[i + 1]``
    (the last one until ``end``). A ``None`` value is a tombstone; ``starts`` is non-decreasing."""

    __slots__ = ("end", "starts", "values")

    def __init__(self, start: int, value: Value, end: int) -> None:
        self.starts = [start]
        self.values: list[Value] = [value]
        self.end = end

    def append_as_newest(self, valid_from: int, valid_to: int, value: Value) -> None:
        """Add a version after all others; a gap since ``end`` is filled with a tombstone (the segment
        format's ``insertAsLatest``: a gap means the key was deleted in between)."""
        if self.end != valid_from:
            self.starts.append(self.end)
            self.values.append(None)
        self.starts.append(valid_from)
        self.values.append(value)
        self.end = valid_to

    def prepend_as_oldest(self, valid_from: int, value: Value) -> None:
        """Add a version valid until the current oldest one starts (``insertAsEarliest``)."""
        self.starts.insert(0, valid_from)
        self.values.insert(0, value)

    def put_within(self, ts: int, value: Value) -> None:
        """Store a version at ``ts`` inside the recorded span ``[starts[0], end)``: it replaces a version
        starting at ``ts``, or splits the version valid at ``ts`` (whose validTo it inherits)."""
        index = bisect_right(self.starts, ts) - 1
        if self.starts[index] == ts:
            self.values[index] = value
        else:
            self.starts.insert(index + 1, ts)
            self.values.insert(index + 1, value)

    def value_at(self, as_of: int) -> tuple[str, int] | None:
        """The version valid at ``as_of`` as ``(value, valid_from)``; a tombstone or a time outside the
        recorded span reads as ``None``."""
        if as_of >= self.end or as_of < self.starts[0]:
            return None
        index = bisect_right(self.starts, as_of) - 1
        value = self.values[index]
        return None if value is None else (value, self.starts[index])

    def as_data(self) -> dict[str, object]:
        """Every recorded version with its validity interval, for snapshots."""
        bounds = [*self.starts[1:], self.end]
        versions = [
            {"value": value, "from": start, "to": end}
            for start, end, value in zip(self.starts, bounds, self.values, strict=True)
        ]
        return {"versions": versions, "end": self.end}


class VersionedTable:
    """A versioned key-value store with history retention ``history_ms`` (3.5+; spec VS-2, VS-4).

    ``observed_stream_time`` is one value for the whole store: the largest ts of any accepted put, over all
    keys, tombstones included.
    """

    __slots__ = ("_history", "_latest", "history_ms", "observed_stream_time")

    def __init__(self, history_ms: int) -> None:
        self.history_ms = history_ms
        self.observed_stream_time = _NO_TIMESTAMP
        self._latest: dict[Key, tuple[str, int]] = {}
        self._history: dict[Key, _History] = {}

    # --- the operations joins use ------------------------------------------------------------------

    def update(self, key: Key, value: Value, ts: int) -> TableUpdate | None:
        """``KTableSource`` on a versioned store: read the current value, put, and forward
        ``(old, is_latest)`` unless the put was rejected (then nothing is stored or forwarded, spec VS-3)."""
        old = self._latest.get(key)
        status = self.put(key, value, ts)
        if status is _REJECTED:
            return None
        return (None if old is None else old[0]), status is _LATEST

    def get(self, key: Key) -> tuple[str, int] | None:
        """The latest version of ``key`` as ``(value, ts)``; ``None`` if it is deleted (spec VS-8)."""
        return self._latest.get(key)

    def get_as_of(self, key: Key, as_of: int) -> tuple[str, int] | None:
        """The version of ``key`` valid at ``as_of`` as ``(value, valid_from)``, or ``None`` (spec VS-9).

        Past the history retention only the latest value is consulted, and returned iff its ts ≤ ``as_of``.
        """
        latest = self._latest.get(key)
        if latest is not None and latest[1] <= as_of:
            return latest
        if self.is_older_than_history(as_of):
            return None
        history = self._history.get(key)
        return None if history is None else history.value_at(as_of)

    def is_older_than_history(self, ts: int) -> bool:
        """``ts < observedStreamTime - history``: puts are rejected and lookups see only the latest value."""
        return ts < self.observed_stream_time - self.history_ms

    # --- the store's put procedure -----------------------------------------------------------------

    def put(self, key: Key, value: Value, ts: int) -> PutStatus:
        """Store ``value`` (``None``: a tombstone) for ``key`` at ``ts`` (``RocksDBVersionedStore#put``)."""
        observed = self.observed_stream_time
        if ts < observed - self.history_ms:  # is_older_than_history, inlined on the hot path
            return _REJECTED
        if ts > observed:
            self.observed_stream_time = ts
        latest = self._latest.get(key)
        if latest is not None and ts >= latest[1]:
            self._put_as_latest_replacing(key, value, ts, latest)
            return _LATEST
        history = self._history.get(key)
        valid_to = None if latest is None else latest[1]
        if history is not None and history.end > ts:
            if history.starts[0] <= ts:
                history.put_within(ts, value)
                return _HISTORICAL
            valid_to = history.starts[0]
        if valid_to is None:
            self._put_after_all_versions(key, value, ts, history)
            return _LATEST
        self._put_before(key, value, ts, valid_to, history)
        return _HISTORICAL

    def _put_as_latest_replacing(self, key: Key, value: Value, ts: int, latest: tuple[str, int]) -> None:
        """A put at or after the latest value's ts becomes the latest. A later ts moves the old latest value
        into the history (valid until ``ts``); an equal ts overwrites it, so a tombstone with the same ts
        deletes it and records nothing (spec VS-7)."""
        latest_value, latest_ts = latest
        if ts > latest_ts:
            history = self._history.get(key)
            if history is None:
                self._history[key] = _History(latest_ts, latest_value, ts)
            else:
                history.append_as_newest(latest_ts, ts, latest_value)
        if value is None:
            del self._latest[key]
        else:
            self._latest[key] = (value, ts)

    def _put_after_all_versions(self, key: Key, value: Value, ts: int, history: _History | None) -> None:
        """No latest value and nothing recorded after ``ts``: a value becomes the latest value; a tombstone is
        recorded as the end of the history (a degenerate ``[ts, ts)`` tombstone if there is none)."""
        if value is not None:
            self._latest[key] = (value, ts)
        elif history is None:
            self._history[key] = _History(ts, None, ts)
        elif history.end != ts:
            history.append_as_newest(history.end, ts, None)

    def _put_before(self, key: Key, value: Value, ts: int, valid_to: int, history: _History | None) -> None:
        """An out-of-order put that lands before the next recorded version (or tombstone) at ``valid_to``:
        it is stored as a historical version ``[ts, valid_to)``."""
        if history is None:
            self._history[key] = _History(ts, value, valid_to)
        elif history.end <= ts:
            history.append_as_newest(ts, valid_to, value)
        else:
            history.prepend_as_oldest(ts, value)

    def snapshot(self) -> dict[str, object]:
        """Observed stream time, then per key its latest value and its recorded history."""
        keys = list(self._latest) + [key for key in self._history if key not in self._latest]
        rows: dict[str, object] = {}
        for key in keys:
            latest = self._latest.get(key)
            history = self._history.get(key)
            rows[repr(key)] = {
                "latest": None if latest is None else {"value": latest[0], "ts": latest[1]},
                "history": None if history is None else history.as_data(),
            }
        return {
            "observed_stream_time": self.observed_stream_time,
            "history_ms": self.history_ms,
            "keys": rows,
        }


def table_for(versioned: bool, history_ms: int) -> PlainTable | VersionedTable:
    """The table behind one join side: versioned (3.5+, spec VS-1) or plain."""
    return VersionedTable(history_ms) if versioned else PlainTable()
