"""KStream-KTable and KTable-KTable joins of one Kafka task, as Kafka Streams 3.8+ runs them.

State of the task (``processor.TABLE_STATE``): one key-value table per table side, ``key -> (value, ts)``
(Kafka's timestamped key-value store). An update overwrites or, with a null value, deletes; updates with a
null key are dropped by the table source. Versioned tables (KIP-914) are not ported yet: a scenario with one
is not claimed.

* Stream-table: a stream record looks its key up in the table as it is now and joins at its own timestamp;
  table updates only change the table. Null keys and null values are dropped, except that a left join
  forwards a null-key record at once (KIP-962).
* Table-table: an update is applied to its own table, giving ``(new, old)``, and joined with the other
  table's current value by the rules of KIP-77 (forward only what changed the result); the result carries
  ``max(update ts, other side's ts)`` when the other side has a value (KIP-258).
"""

from __future__ import annotations

from typing import Any

from kjoin.conformance.candidates.stateful.state import StoreView

__all__ = ["StreamTableTask", "TableTableTask"]

Emit = tuple[Any, Any, Any, int, bool]
"""``(key, left value, right value, ts, tombstone)``."""

_NOTHING = object()
"""A join processor's decision to forward nothing."""


class StreamTableTask:
    """A KStream (left) joined with a KTable (right)."""

    def __init__(self, variant: str, table: StoreView) -> None:
        self.left_join = variant == "left"
        self.table = table

    def process(self, side: str, key: str | None, value: str | None, ts: int) -> list[Emit]:
        if side == "right":
            if key is not None:
                if value is None:
                    self.table.remove((key,))
                else:
                    self.table.put((key,), (value, ts))
            return []
        if key is None:
            return [(None, value, None, ts, False)] if self.left_join and value is not None else []
        if value is None:
            return []
        found = self.table.get((key,))
        if found is None and not self.left_join:
            return []
        return [(key, value, None if found is None else found[0], ts, False)]


class TableTableTask:
    """Two KTables joined on their keys: ``inner``, ``left`` or ``outer``."""

    def __init__(self, variant: str, left: StoreView, right: StoreView) -> None:
        self.variant = variant
        self.tables = {"left": left, "right": right}

    def process(self, side: str, key: str | None, value: str | None, ts: int) -> list[Emit]:
        if key is None:
            return []
        own, other = self.tables[side], self.tables["right" if side == "left" else "left"]
        previous = own.get((key,))
        old = None if previous is None else previous[0]
        if value is None:
            own.remove((key,))
        else:
            own.put((key,), (value, ts))
        found = other.get((key,))
        other_value = None if found is None else found[0]
        result = _decide(self.variant, side == "left", value, old, other_value)
        if result is _NOTHING:
            return []
        out_ts = max(ts, int(found[1])) if found is not None else ts
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
