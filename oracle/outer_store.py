"""Held non-joined records of a spurious-free left/outer stream-stream join, and the emission pass.

3.1+ with ``JoinWindows.ofTimeDifference*`` (SEMANTICS.md §1.7): a left/outer record that finds no partner
is not emitted at once but *held* in the join's outer store until its window plus grace has closed; a
later partner deletes it. Both join processors share this store and one clock (``streamTime``,
``minTime``). Every in-order record (``ts == streamTime``) runs an *emission pass* before its own join
results, which emits the held records whose window has closed, in store order.

Store order is the order of the serialized store key ``ts (8 bytes BE) | side (right=0, left=1) | key
bytes``, then insertion order within one key (``ListValueStore``): ts ascending, right before left, key
bytes ascending (unsigned, shorter prefix first). Key bytes are what Kafka's serdes write: UTF-8 for a
string key; for an int key we use the 8-byte big-endian two's complement of ``Serdes.Long()`` (Kafka's
integration tests use ``Long`` keys; ``Serdes.Integer()`` orders every 32-bit value the same way:
non-negative keys ascending, then negative ones).
"""

from __future__ import annotations

from bisect import bisect_left, insort
from collections.abc import Callable, Iterable, Iterator
from itertools import islice

from oracle.behaviour import Behaviour
from oracle.records import Key, Output, Value, Window

__all__ = ["LEFT_SIDE", "RIGHT_SIDE", "HeldRecords", "OuterJoinBuffer", "outer_store_key_bytes"]

RIGHT_SIDE = 0
"""Side byte of a held right record (``TimestampedKeyAndJoinSideSerializer``: ``isLeftSide ? 1 : 0``)."""
LEFT_SIDE = 1
"""Side byte of a held left record."""

_StoreKey = tuple[int, int, bytes]
"""``(ts, side byte, key bytes)``: sorts like the serialized outer-store key."""


def outer_store_key_bytes(key: Key) -> bytes:
    """The key as Kafka's serde writes it: UTF-8 for ``str``, 8-byte big-endian (``Long``) for ``int``."""
    if type(key) is str:
        return key.encode("utf-8")
    if isinstance(key, int):
        return key.to_bytes(8, "big", signed=True)
    raise TypeError(f"a held record needs a str or int key, got {key!r}")


class HeldRecords:
    """The outer store: per store key the list of held values, and per side the store keys in order.

    ``lists`` maps a store key ``(ts, side, key bytes)`` to ``(key, values in insertion order)``; read it,
    change it only through the methods."""

    __slots__ = ("_by_side", "lists")

    def __init__(self) -> None:
        self.lists: dict[_StoreKey, tuple[Key, list[Value]]] = {}
        self._by_side: tuple[list[_StoreKey], list[_StoreKey]] = ([], [])

    def __len__(self) -> int:
        return len(self.lists)

    def hold(self, ts: int, side: int, key: Key, value: Value) -> None:
        """Append ``value`` to the list stored under ``(ts, side, key)`` (``ListValueStore#put``)."""
        store_key = (ts, side, key.encode("utf-8") if type(key) is str else outer_store_key_bytes(key))
        entry = self.lists.get(store_key)
        if entry is not None:
            entry[1].append(value)
            return
        self.lists[store_key] = (key, [value])
        order = self._by_side[side]
        if not order or store_key > order[-1]:
            order.append(store_key)
        else:
            insort(order, store_key)

    def release(self, side: int, key: Key, partner_times: list[int]) -> None:
        """Each join match deletes the whole list under ``(partner ts, side, key)`` if there is one
        (``putIfAbsent(key, null)`` on the list store, SEMANTICS.md §1.7 step 4)."""
        key_bytes = outer_store_key_bytes(key)
        lists = self.lists
        for ts in partner_times:
            store_key = (ts, side, key_bytes)
            if lists.pop(store_key, None) is not None:
                order = self._by_side[side]
                del order[bisect_left(order, store_key)]

    def earliest_ts(self, side: int) -> int | None:
        """Timestamp of the first held record of ``side``, or ``None`` when that side holds nothing."""
        order = self._by_side[side]
        return order[0][0] if order else None

    def ordered_keys(self) -> Iterable[_StoreKey]:
        """Store keys in store order: ts ascending, right before left, key bytes ascending."""
        right, left = self._by_side
        if not right:
            return left
        if not left:
            return right
        return _merged(right, left)

    def drop_first(self, right_count: int, left_count: int) -> None:
        """Delete the first ``right_count`` right and ``left_count`` left lists (the emitted ones)."""
        for side, count in ((RIGHT_SIDE, right_count), (LEFT_SIDE, left_count)):
            if count:
                order = self._by_side[side]
                for store_key in order[:count]:
                    del self.lists[store_key]
                del order[:count]

    def snapshot(self) -> list[list[object]]:
        """``[ts, side, key, value]`` per held value, in store order."""
        return [
            [ts, "left" if side == LEFT_SIDE else "right", self.lists[(ts, side, key_bytes)][0], value]
            for ts, side, key_bytes in self.ordered_keys()
            for value in self.lists[(ts, side, key_bytes)][1]
        ]


class OuterJoinBuffer:
    """State shared by both processors of a spurious-free left/outer join (SEMANTICS.md §1.7).

    ``stream_time`` is the largest ts seen by either processor (``-1`` before any). ``min_time`` is Kafka's
    ``TimeTracker#minTime``; ``None`` stands for ``Long.MAX_VALUE``, its value only when the last pass found
    the store empty and nothing was held since, so ``None`` implies an empty store (and Kafka's overflowing
    early-return sum for it in 3.8+ makes no difference).
    """

    __slots__ = ("_after", "_before", "_grace", "emit_closed", "held", "min_time", "stream_time")

    def __init__(self, window: Window, behaviour: Behaviour) -> None:
        assert window.grace is not None, "only JoinWindows.ofTimeDifference* has a spurious-free buffer"
        self._before = window.before
        self._after = window.after
        self._grace = window.grace
        self.held = HeldRecords()
        self.stream_time = -1
        self.min_time: int | None = None
        self.emit_closed: Callable[[bool, int, list[Output]], None]
        """The emission pass an in-order record runs before its own join results (SEMANTICS.md §1.7),
        ``emit_closed(left_processor, cause, outputs)``: this era's variant, chosen once from the flags.
        ``left_processor`` says which processor runs it; its ``joinAfter`` (``after`` for the left one,
        ``before`` for the right one) enters the early return and, before 3.8, the close condition."""
        if not behaviour.outer_join_closes_each_side_by_its_own_bound:
            self.emit_closed = self._emit_closed_by_processor_bound
        elif behaviour.outer_join_min_time_is_last_visited:
            self.emit_closed = self._emit_closed_with_stale_min_time
        else:
            self.emit_closed = self._emit_closed_at_first_closing_record

    def hold(self, ts: int, side: int, key: Key, value: Value) -> None:
        """Hold a non-joined record and lower ``minTime`` to its ts (SEMANTICS.md §1.7 step 5)."""
        self.held.hold(ts, side, key, value)
        if self.min_time is None or ts < self.min_time:
            self.min_time = ts

    def _emit_closed_by_processor_bound(
        self, left_processor: bool, cause: int, outputs: list[Output]
    ) -> None:
        """3.1-3.7: skip the pass while ``minTime >= streamTime - lookBack - grace`` (``lookBack`` =
        ``before`` for the left processor, ``after`` for the right one, KAFKA-13721); otherwise emit held
        records in store order until the first with ``ts + joinAfter + grace >= streamTime``, the same
        bound for both sides' records; ``minTime`` ends at the ts of that first open record."""
        look_back = self._before if left_processor else self._after
        join_after = self._after if left_processor else self._before
        if self.min_time is None or self.min_time >= self.stream_time - look_back - self._grace:
            return
        last_open = self.stream_time - join_after - self._grace
        self.min_time = None
        emitted = [0, 0]
        held = self.held
        for store_key in held.ordered_keys():
            ts, side, _ = store_key
            self.min_time = ts
            if ts >= last_open:
                break
            _emit_non_joined(held.lists[store_key], side, ts, cause, outputs)
            emitted[side] += 1
        self.held.drop_first(emitted[RIGHT_SIDE], emitted[LEFT_SIDE])

    def _emit_closed_with_stale_min_time(
        self, left_processor: bool, cause: int, outputs: list[Output]
    ) -> None:
        """3.8+ as shipped (BUG flag ``outer_join_min_time_is_last_visited``): skip the pass while
        ``minTime + joinAfter + grace >= streamTime``; the pass leaves ``minTime`` at the ts of the last
        record it *visited* (it walks on past open records), not the earliest one still held."""
        join_after = self._after if left_processor else self._before
        if self.min_time is None or self.min_time + join_after + self._grace >= self.stream_time:
            return
        self.min_time = self._emit_each_side_closed(cause, outputs)

    def _emit_closed_at_first_closing_record(
        self, left_processor: bool, cause: int, outputs: list[Output]
    ) -> None:
        """3.8+ intended: run the pass whenever a held record has closed, judged by the earliest record
        still held on each side, so every closed record is emitted by the first in-order record whose
        stream time closes it, whichever processor runs it. ``minTime`` is not needed."""
        held = self.held
        earliest_left = held.earliest_ts(LEFT_SIDE)
        earliest_right = held.earliest_ts(RIGHT_SIDE)
        if not (
            (earliest_left is not None and self._left_record_closed(earliest_left))
            or (earliest_right is not None and self._right_record_closed(earliest_right))
        ):
            return
        self._emit_each_side_closed(cause, outputs)

    def _left_record_closed(self, ts: int) -> bool:
        """3.8+ (KAFKA-15417): a held left record closes when ``streamTime > ts + after + grace``."""
        return ts + self._after + self._grace < self.stream_time

    def _right_record_closed(self, ts: int) -> bool:
        """3.8+ (KAFKA-15417): a held right record closes when ``streamTime > ts + before + grace``."""
        return ts + self._before + self._grace < self.stream_time

    def _emit_each_side_closed(self, cause: int, outputs: list[Output]) -> int | None:
        """3.8+ loop (KAFKA-15417): walk the store in order, emit closed records, step over open ones, and
        stop once both sides have shown an open record. A left record is still open while ``ts + after +
        grace >= streamTime``, a right one while ``ts + before + grace >= streamTime`` (so it closes only when
        stream time is strictly greater). Returns the ts of the last record visited (``None`` if none).

        Within one side records close in ts order, so the emitted records are a prefix of each side."""
        left_open = right_open = False
        last_visited: int | None = None
        emitted = [0, 0]
        held = self.held
        left_last_open = self.stream_time - self._after - self._grace
        right_last_open = self.stream_time - self._before - self._grace
        for store_key in held.ordered_keys():
            ts, side, _ = store_key
            last_visited = ts
            if left_open and right_open:
                break
            if side == LEFT_SIDE:
                if ts >= left_last_open:
                    left_open = True
                    continue
            elif ts >= right_last_open:
                right_open = True
                continue
            _emit_non_joined(held.lists[store_key], side, ts, cause, outputs)
            emitted[side] += 1
        held.drop_first(emitted[RIGHT_SIDE], emitted[LEFT_SIDE])
        return last_visited

    def snapshot(self) -> dict[str, object]:
        """Stream time, ``minTime`` (``None`` = ``Long.MAX_VALUE``) and the held records in store order."""
        return {"stream_time": self.stream_time, "min_time": self.min_time, "held": self.held.snapshot()}


def _merged(first: list[_StoreKey], second: list[_StoreKey]) -> Iterator[_StoreKey]:
    """Lazy merge of two sorted lists (a pass usually stops early, so nothing is merged in advance)."""
    i = j = 0
    first_len, second_len = len(first), len(second)
    while i < first_len and j < second_len:
        if first[i] < second[j]:
            yield first[i]
            i += 1
        else:
            yield second[j]
            j += 1
    yield from islice(first, i, None)
    yield from islice(second, j, None)


def _emit_non_joined(
    held: tuple[Key, list[Value]], side: int, ts: int, cause: int, outputs: list[Output]
) -> None:
    """A closed held record is emitted as ``joiner(v, null)`` / ``joiner(null, v)`` with its own ts
    (SEMANTICS.md §1.3), one output per held value, in insertion order."""
    key, values = held
    for value in values:
        outputs.append(Output(key, (value, None) if side == LEFT_SIDE else (None, value), ts, cause))
