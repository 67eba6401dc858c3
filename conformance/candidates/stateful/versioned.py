"""The tables behind table-backed joins: a plain timestamped table and a versioned store (KIP-889/914).

Both answer what the join processors ask: ``update`` (the table source's put, giving the old value and
whether the update is the key's latest, or ``None`` when a versioned store rejects it), ``latest`` (the
current ``(value, ts)``) and, for stream-table joins on a versioned table, ``as_of`` (the value valid at a
stream record's timestamp).

A versioned table is kept as the specification describes the store (docs/semantics/versioned-stores.md,
VS-2 to VS-9), in three state variables per side: the *current* value of each key (``{side}_table``,
never a tombstone), its closed *versions* (``{side}_versions``: ``(key, from) -> value``, a version
lasting until the next one starts and the last one until the key's *end*) and that end
(``{side}_version_end``); the store's observed stream time is in the task's clock. Versions older than the
history are kept here (Kafka drops their segments): no lookup the store answers reaches them.
"""

from __future__ import annotations

from bisect import bisect_right, insort
from typing import Any

from kjoin.conformance.candidates.stateful.state import StoreView

__all__ = ["PlainTable", "VersionedTable"]

Found = tuple[str, int] | None
"""A key's value and the timestamp it is valid from, or nothing."""


class PlainTable:
    """A timestamped key-value table: the last update wins, whatever its timestamp; a tombstone deletes."""

    def __init__(self, current: StoreView) -> None:
        self.current = current

    def update(self, key: str, value: str | None, ts: int) -> tuple[str | None, bool] | None:
        old = self.latest(key)
        if value is None:
            self.current.remove((key,))
        else:
            self.current.put((key,), (value, ts))
        return (None if old is None else old[0]), True

    def latest(self, key: str) -> Found:
        found = self.current.get((key,))
        return None if found is None else (str(found[0]), int(found[1]))

    def as_of(self, key: str, ts: int) -> Found:
        return self.latest(key)


class VersionedTable(PlainTable):
    """A versioned key-value store with history retention ``history_ms`` (see the module docstring)."""

    def __init__(self, current: StoreView, versions: StoreView, ends: StoreView, history_ms: int,
                 clock: dict[str, Any], clock_field: str) -> None:  # fmt: skip
        super().__init__(current)
        self.versions_view, self.ends = versions, ends
        self.history_ms = history_ms
        self.clock, self.clock_field = clock, clock_field
        self.starts: dict[str, list[int]] = {}
        for key, start in versions:
            insort(self.starts.setdefault(key, []), start)

    # --- what the joins ask ------------------------------------------------------------------------------

    def update(self, key: str, value: str | None, ts: int) -> tuple[str | None, bool] | None:
        """VS-3, VS-5, VS-6: reject a put older than the history, else store it as latest or historical."""
        observed = int(self.clock[self.clock_field])
        if ts < observed - self.history_ms:
            return None
        self.clock[self.clock_field] = max(observed, ts)
        current = self.latest(key)
        old = None if current is None else current[0]
        end = self._end(key)
        if current is not None and ts >= current[1]:
            if ts > current[1]:  # the current value becomes the closed version [c, ts)
                self._close(key, current[1], current[0], ts)
            self._set_current(key, value, ts)  # at the same ts: overwritten, or forgotten (VS-7)
            return old, True
        if current is None and (end is None or ts >= end):
            if value is not None:
                self._set_current(key, value, ts)
            elif end is None:  # a tombstone for a key without anything: recorded as [ts, ts)
                self._add_version(key, ts, None)
                self._set_end(key, ts)
            elif end < ts:
                self._add_version(key, end, None)
                self._set_end(key, ts)
            return old, True
        self._put_historical(key, value, ts, current, end)
        return old, False

    def as_of(self, key: str, ts: int) -> Found:
        """VS-9: the current value if valid at ``ts``; beyond the history nothing; else the key read at
        ``ts`` (VS-4)."""
        current = self.latest(key)
        if current is not None and current[1] <= ts:
            return current
        if ts < int(self.clock[self.clock_field]) - self.history_ms:
            return None
        starts, end = self.starts.get(key), self._end(key)
        if not starts or end is None or ts >= end or ts < starts[0]:
            return None
        start = starts[bisect_right(starts, ts) - 1]
        (value,) = self.versions_view.entries[(key, start)]
        return None if value is None else (str(value), start)

    # --- the store's put cases ---------------------------------------------------------------------------

    def _put_historical(self, key: str, value: str | None, ts: int, current: Found, end: int | None) -> None:
        """VS-6: the put becomes the version ``[ts, next boundary)``; a version starting at ``ts`` is
        replaced, one containing ``ts`` now ends there; in the gap between the end and the current value,
        the gap before ``ts`` becomes a tombstone and the versions now end at the current value's
        timestamp."""
        if end is None or ts >= end:
            assert current is not None, "a put after every version without a current value is latest"
            if end is not None and end < ts:
                self._add_version(key, end, None)
            self._add_version(key, ts, value)
            self._set_end(key, current[1])
            return
        self._add_version(key, ts, value)

    def _close(self, key: str, start: int, value: str, until: int) -> None:
        end = self._end(key)
        if end is not None and end != start:  # a gap before the closed version reads as a tombstone
            self._add_version(key, end, None)
        self._add_version(key, start, value)
        self._set_end(key, until)

    def _set_current(self, key: str, value: str | None, ts: int) -> None:
        if value is None:
            self.current.remove((key,))
        else:
            self.current.put((key,), (value, ts))

    def _add_version(self, key: str, start: int, value: str | None) -> None:
        starts = self.starts.setdefault(key, [])
        if (key, start) not in self.versions_view.entries:
            insort(starts, start)
        self.versions_view.put((key, start), (value,))

    def _end(self, key: str) -> int | None:
        found = self.ends.get((key,))
        return None if found is None else int(found[0])

    def _set_end(self, key: str, end: int) -> None:
        self.ends.put((key,), (end,))
