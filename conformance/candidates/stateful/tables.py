"""KStream-KTable and KTable-KTable joins of one Kafka task, as Kafka Streams 3.1+ runs them.

State of the task: one table per table side (``versioned.PlainTable`` or ``versioned.VersionedTable``),
and for a stream-table join with a grace period the stream-side buffer. Updates with a null key are
dropped by the table source.

* Stream-table (spec ST-1 to ST-9): a stream record looks its key up in the table and joins at its own
  timestamp; table updates only change the table. Null keys and null values are dropped, except that a
  3.7+ left join forwards a null-key record at once (KIP-962). A versioned table is read as of the stream
  record's timestamp (KIP-914). With ``Joined#withGracePeriod`` (KIP-923) stream records wait in a buffer,
  ordered by (ts, key, arrival), until the buffer's stream time (its largest buffered timestamp) is
  ``grace`` past them; a record already that late is joined at once.
* Table-table (spec TT-1 to TT-10): an update is applied to its own table, giving ``(new, old)``, and
  joined with the other table's current value by KIP-77's rules (forward only what changed the result),
  at ``max(update ts, other side's ts)`` when the other side has a value (KIP-258). A versioned side drops
  an update that is not the key's latest, and a rejected put forwards nothing.
"""

from __future__ import annotations

from typing import Any

from kjoin.conformance.candidates.stateful.state import StoreView
from kjoin.conformance.candidates.stateful.versioned import PlainTable

__all__ = ["StreamTableTask", "TableTableTask"]

Emit = tuple[Any, Any, Any, int, bool]
"""``(key, left value, right value, ts, tombstone)``."""

_NOTHING = object()
"""A join processor's decision to forward nothing."""


class StreamTableTask:
    """A KStream (left) joined with a KTable (right)."""

    def __init__(self, variant: str, table: PlainTable, grace: int | None, buffer: StoreView,
                 clock: dict[str, Any], forwards_null_keys: bool) -> None:  # fmt: skip
        self.left_join = variant == "left"
        self.forwards_null_keys = forwards_null_keys and self.left_join
        self.table = table
        self.grace = grace
        self.buffer = buffer
        self.clock = clock

    def process(self, side: str, key: str | None, value: str | None, ts: int) -> list[Emit]:
        if side == "right":
            if key is not None:
                self.table.update(key, value, ts)
            return []
        if key is None:
            return [(None, value, None, ts, False)] if self.forwards_null_keys and value is not None else []
        if value is None:
            return []
        if self.grace is None:
            return self._join(key, value, ts)
        return self._through_buffer(key, value, ts)

    def _join(self, key: str, value: str, ts: int) -> list[Emit]:
        found = self.table.as_of(key, ts)
        if found is None and not self.left_join:
            return []
        return [(key, value, None if found is None else found[0], ts, False)]

    def _through_buffer(self, key: str, value: str, ts: int) -> list[Emit]:
        """KIP-923: join a record already ``grace`` behind the buffer's stream time at once, else buffer it;
        then join, in buffer order, every buffered record that the buffer's stream time has passed by
        ``grace``, with the table as it is now."""
        assert self.grace is not None
        out: list[Emit] = []
        stream_time = int(self.clock["stream_time"])
        if stream_time - self.grace > ts:
            out.extend(self._join(key, value, ts))
        else:
            seq = self.clock["next_seq"]
            self.clock["next_seq"] = seq + 1
            self.buffer.put((ts, key, seq), (value,))
            stream_time = self.clock["stream_time"] = max(stream_time, ts)
        due = [entry for entry in self.buffer if entry[0] <= stream_time - self.grace]
        for entry in sorted(due, key=lambda e: (e[0], str(e[1]).encode("utf-8"), e[2])):
            (buffered,) = self.buffer.entries[entry]
            self.buffer.remove(entry)
            out.extend(self._join(str(entry[1]), str(buffered), int(entry[0])))
        return out


class TableTableTask:
    """Two KTables joined on their keys: ``inner``, ``left`` or ``outer``."""

    def __init__(self, variant: str, left: PlainTable, right: PlainTable) -> None:
        self.variant = variant
        self.tables = {"left": left, "right": right}

    def process(self, side: str, key: str | None, value: str | None, ts: int) -> list[Emit]:
        if key is None:
            return []
        own, other = self.tables[side], self.tables["right" if side == "left" else "left"]
        change = own.update(key, value, ts)
        if change is None or not change[1]:  # rejected, or not the key's latest: nothing is forwarded
            return []
        found = other.latest(key)
        other_value = None if found is None else found[0]
        result = _decide(self.variant, side == "left", value, change[0], other_value)
        if result is _NOTHING:
            return []
        out_ts = max(ts, found[1]) if found is not None else ts
        if result is None:
            return [(key, None, None, out_ts, True)]
        assert isinstance(result, tuple)
        return [(key, result[0], result[1], out_ts, False)]


def _decide(variant: str, is_left: bool, new: str | None, old: str | None, other: str | None) -> object:
    """What the updated side's join processor forwards: ``(left, right)``, ``None`` (a tombstone) or
    ``_NOTHING`` (KTableKTable{Inner,Left,Right,Outer}Join; a left join's right side is a "right join")."""

    def pair(mine: str | None, theirs: str | None) -> tuple[str | None, str | None]:
        return (mine, theirs) if is_left else (theirs, mine)

    if variant == "inner" or (variant == "left" and not is_left):
        if other is None:
            return _NOTHING
        if new is None:
            return None if variant == "inner" else pair(new, other)
        return pair(new, other)
    # left join's left side, and both sides of an outer join
    if new is None and other is None:
        return _NOTHING if old is None else None
    if variant == "left" and new is None:
        return None
    return pair(new, other)
