"""Held non-joined records of a spurious-free left/outer stream-stream join, and the emission pass.

3.1+ with ``JoinWindows.ofTimeDifference*`` (spec SS-14, SS-16): a left/outer record that finds no partner
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

A pass emits, per side, the held records below a timestamp bound, and the walk it replaces is kept as the
reference of ``conformance/tests/test_oracle_fast_paths.py``, which checks the two agree.

Production settings (spec PR-1 to PR-3): a pass that would run is skipped while the wall clock at which the
record is processed is before the *next time to emit*, which each pass that runs moves on by the emit
interval (``Settings.emit_interval_ms``; 0, the test driver's setting, never skips a pass).
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right, insort
from collections.abc import Callable

from kjoin.oracle.behaviour import Behaviour
from kjoin.oracle.records import Key, Output, Value, Window, new_output

__all__ = ["LEFT_SIDE", "RIGHT_SIDE", "HeldRecords", "OuterJoinBuffer", "outer_store_key_bytes"]

RIGHT_SIDE = 0
"""Side byte of a held right record (``TimestampedKeyAndJoinSideSerializer``: ``isLeftSide ? 1 : 0``)."""
LEFT_SIDE = 1
"""Side byte of a held left record."""

_Bucket = dict[Key, list[Value]]
"""The keys held at one slot, each with its values in insertion order."""


def outer_store_key_bytes(key: Key) -> bytes:
    """The key as Kafka's serde writes it: UTF-8 for ``str``, 8-byte big-endian (``Long``) for ``int``."""
    if type(key) is str:
        return key.encode("utf-8")
    if isinstance(key, int):
        return key.to_bytes(8, "big", signed=True)
    raise TypeError(f"a held record needs a str or int key, got {key!r}")


class HeldRecords:
    """The outer store, laid out by slot and key.

    A *slot* is ``2 * ts + side byte``: one number that orders like the ``ts | side`` prefix of the
    serialized store key (ts ascending, right before left); ``slot >> 1`` is the ts, ``slot & 1`` the side.
    ``slots[side]`` is the sorted list of the slots that side holds records at, and ``at[slot]`` the keys
    held there with their values (``{key: [value, ...]}``). Store order is then: slots ascending (ts
    ascending, at one ts right before left), and at one slot keys by their bytes (sorted only when emitted).
    Keys are dict keys as they come, so holding and releasing a record serialize nothing, and "a side's
    records below a timestamp" is a prefix of its ``slots``, found by bisection: a pass costs what it
    emits, not what is held. Read the fields; change them only through the methods."""

    __slots__ = ("at", "slots")

    def __init__(self) -> None:
        self.slots: tuple[list[int], list[int]] = ([], [])
        self.at: dict[int, _Bucket] = {}

    def __len__(self) -> int:
        """The number of store keys ``(ts, side, key)`` held."""
        return sum(len(bucket) for bucket in self.at.values())

    def hold(self, ts: int, side: int, key: Key, value: Value) -> None:
        """Append ``value`` to the list stored under ``(ts, side, key)`` (``ListValueStore#put``)."""
        slot = 2 * ts + side
        bucket = self.at.get(slot)
        if bucket is None:
            self.at[slot] = {key: [value]}
            slots = self.slots[side]
            if not slots or slot > slots[-1]:
                slots.append(slot)
            else:
                insort(slots, slot)
            return
        values = bucket.get(key)
        if values is None:
            bucket[key] = [value]
        else:
            values.append(value)

    def release(self, side: int, key: Key, partner_times: list[int]) -> None:
        """Each join match deletes the whole list under ``(partner ts, side, key)`` if there is one
        (``putIfAbsent(key, null)`` on the list store, spec SS-19)."""
        at = self.at
        for ts in partner_times:
            slot = 2 * ts + side
            bucket = at.get(slot)
            if bucket is not None and bucket.pop(key, None) is not None and not bucket:
                del at[slot]
                slots = self.slots[side]
                del slots[bisect_left(slots, slot)]

    def earliest_ts(self, side: int) -> int | None:
        """Timestamp of the first held record of ``side``, or ``None`` when that side holds nothing."""
        slots = self.slots[side]
        return slots[0] >> 1 if slots else None

    def count_before(self, side: int, ts: int) -> int:
        """How many of ``side``'s slots hold records with a timestamp below ``ts`` (a prefix of them)."""
        return bisect_left(self.slots[side], 2 * ts + side)

    def emit_first(self, right_count: int, left_count: int, cause: int, outputs: list[Output]) -> None:
        """Emit and delete the records at the first ``right_count`` right and ``left_count`` left slots, in
        store order: each held value as ``joiner(v, null)`` / ``joiner(null, v)`` with its own ts
        (spec SS-5), the values of one key in insertion order."""
        right, left = self.slots
        emitted = right[:right_count] + left[:left_count]
        emitted.sort()  # a merge of two sorted runs
        del right[:right_count]
        del left[:left_count]
        for slot in emitted:
            ts, bucket = slot >> 1, self.at.pop(slot)
            is_left = slot & 1 == LEFT_SIDE
            for key in bucket if len(bucket) == 1 else sorted(bucket, key=outer_store_key_bytes):
                for value in bucket[key]:
                    outputs.append(new_output((key, (value, None) if is_left else (None, value), ts, cause)))

    def ts_where_walk_stops_at_first_kept(self, right_count: int, left_count: int) -> int | None:
        """The ts of the record where a store-order walk that emits the records at the first ``right_count``
        right and ``left_count`` left slots and breaks at the first record it keeps stops (3.1-3.7 pass):
        that first kept record, or the last record if it keeps none; ``None`` for an empty store."""
        right, left = self.slots
        first_kept = right[right_count : right_count + 1] + left[left_count : left_count + 1]
        return min(first_kept) >> 1 if first_kept else self._last_ts()

    def ts_where_walk_stops_after_both_sides_kept(self, right_count: int, left_count: int) -> int | None:
        """The ts of the record where a store-order walk that emits the records at the first ``right_count``
        right and ``left_count`` left slots and steps over the others stops (3.8+ pass): the entry right
        after the later of the two sides' first kept entries, once it has seen both; the last entry when
        nothing follows it or when a side keeps nothing; ``None`` for an empty store.

        The walk visits *values*, not keys: ``ListValueStore#all`` yields each value of a key's list as
        its own entry, so when the later first kept key holds two values (or its slot holds two keys) the
        walk stops at the same ts (spec SS-24; scenario ``stale-min-time-counts-each-held-value``)."""
        right, left = self.slots
        if right_count == len(right) or left_count == len(left):
            return self._last_ts()
        later = max(right[right_count], left[left_count])
        bucket = self.at[later]
        if len(bucket) > 1 or len(next(iter(bucket.values()))) > 1:
            return later >> 1  # the next value of that key, or the next key at the same slot
        following = []  # the first slot after ``later`` on each side (slots of the two sides never tie)
        for slots in self.slots:
            index = bisect_right(slots, later)
            if index < len(slots):
                following.append(slots[index])
        return min(following) >> 1 if following else later >> 1

    def _last_ts(self) -> int | None:
        """The ts of the last record in store order, ``None`` if nothing is held."""
        last = [slots[-1] for slots in self.slots if slots]
        return max(last) >> 1 if last else None

    def snapshot(self) -> list[list[object]]:
        """``[ts, side, key, value]`` per held value, in store order."""
        return [
            [slot >> 1, "left" if slot & 1 == LEFT_SIDE else "right", key, value]
            for slot in sorted(self.at)
            for key in sorted(self.at[slot], key=outer_store_key_bytes)
            for value in self.at[slot][key]
        ]


class OuterJoinBuffer:
    """State shared by both processors of a spurious-free left/outer join (spec SS-16, SS-17).

    ``stream_time`` is the largest ts seen by either processor (``-1`` before any). ``min_time`` is Kafka's
    ``TimeTracker#minTime``; ``None`` stands for ``Long.MAX_VALUE``, its value only when the last pass found
    the store empty and nothing was held since, so ``None`` implies an empty store (Kafka's early-return sum
    for it overflows in 3.8+, so an empty pass runs: it changes nothing but the emit throttle, spec PR-2).

    ``wall_clock`` is the wall-clock time (ms since the start of the run) of the record being processed, and
    ``next_time_to_emit`` Kafka's ``TimeTracker#nextTimeToEmit`` (0 until the first pass): the emit throttle
    of spec PR-1 to PR-3, off when ``emit_interval`` is 0.
    """

    __slots__ = (
        "_after",
        "_before",
        "_emit_interval",
        "_grace",
        "_resyncs_to_wall_clock",
        "emit_closed",
        "held",
        "min_time",
        "next_time_to_emit",
        "stream_time",
        "wall_clock",
    )

    def __init__(self, window: Window, behaviour: Behaviour, emit_interval: int = 0) -> None:
        assert window.grace is not None, "only JoinWindows.ofTimeDifference* has a spurious-free buffer"
        self._before = window.before
        self._after = window.after
        self._grace = window.grace
        self._emit_interval = emit_interval
        self._resyncs_to_wall_clock = behaviour.outer_join_emit_throttle_resyncs_to_wall_clock
        self.held = HeldRecords()
        self.stream_time = -1
        self.min_time: int | None = None
        self.wall_clock = 0
        self.next_time_to_emit = 0
        self.emit_closed: Callable[[bool, int, list[Output]], None]
        """The emission pass an in-order record runs before its own join results (spec SS-18),
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
        """Hold a non-joined record and lower ``minTime`` to its ts (spec SS-20)."""
        self.held.hold(ts, side, key, value)
        if self.min_time is None or ts < self.min_time:
            self.min_time = ts

    def _throttled(self) -> bool:
        """Whether the emit throttle skips a pass that would otherwise run now (spec PR-1, PR-2); when it does
        not, the pass runs and the next time to emit moves on. Kafka checks this after the early return on
        ``minTime``, so a skipped pass changes nothing, ``minTime`` included.

        3.5+ (KAFKA-13817) the next time to emit is the pass's wall clock plus the interval. 3.1-3.4 the first
        pass sets it so, and every later one adds the interval to it, so after a long wall-clock advance
        passes run at every trigger record until it catches up with the wall clock (spec PR-2)."""
        now = self.wall_clock
        if now < self.next_time_to_emit:
            return True
        if self._resyncs_to_wall_clock or self.next_time_to_emit == 0:
            self.next_time_to_emit = now
        self.next_time_to_emit += self._emit_interval
        return False

    def _emit_closed_by_processor_bound(
        self, left_processor: bool, cause: int, outputs: list[Output]
    ) -> None:
        """3.1-3.7: skip the pass while ``minTime >= streamTime - lookBack - grace`` (``lookBack`` =
        ``before`` for the left processor, ``after`` for the right one, KAFKA-13721); otherwise emit held
        records in store order until the first with ``ts + joinAfter + grace >= streamTime``, the same
        bound for both sides' records; ``minTime`` ends at the ts of that first open record (or of the last
        record, when all were emitted).

        The store is ts-ordered, so the records before the first open one are, per side, those with ``ts <
        streamTime - joinAfter - grace``: a prefix of each side's keys."""
        look_back = self._before if left_processor else self._after
        join_after = self._after if left_processor else self._before
        if self.min_time is None or self.min_time >= self.stream_time - look_back - self._grace:
            return
        if self._emit_interval and self._throttled():
            return
        last_open = self.stream_time - join_after - self._grace
        held = self.held
        right_count = held.count_before(RIGHT_SIDE, last_open)
        left_count = held.count_before(LEFT_SIDE, last_open)
        self.min_time = held.ts_where_walk_stops_at_first_kept(right_count, left_count)
        held.emit_first(right_count, left_count, cause, outputs)

    def _emit_closed_with_stale_min_time(
        self, left_processor: bool, cause: int, outputs: list[Output]
    ) -> None:
        """3.8+ as shipped (BUG flag ``outer_join_min_time_is_last_visited``): skip the pass while
        ``minTime + joinAfter + grace >= streamTime``; the pass leaves ``minTime`` at the ts of the last
        record it *visited* (it walks on past open records), not the earliest one still held."""
        join_after = self._after if left_processor else self._before
        if self.min_time is None:
            # Nothing is held and minTime is Long.MAX_VALUE: the sum below overflows to a negative number
            # unless joinAfter + grace is 0, so the pass runs over the empty store. It emits nothing, but it
            # takes the emit throttle's turn (spec PR-2).
            if join_after + self._grace <= 0 or not self._emit_interval:
                return
            self._throttled()
            return
        if self.min_time + join_after + self._grace >= self.stream_time:
            return
        if self._emit_interval and self._throttled():
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
        if self._emit_interval and self._throttled():
            return
        self._emit_each_side_closed(cause, outputs)

    def _left_record_closed(self, ts: int) -> bool:
        """3.8+ (KAFKA-15417): a held left record closes when ``streamTime > ts + after + grace``."""
        return ts + self._after + self._grace < self.stream_time

    def _right_record_closed(self, ts: int) -> bool:
        """3.8+ (KAFKA-15417): a held right record closes when ``streamTime > ts + before + grace``."""
        return ts + self._before + self._grace < self.stream_time

    def _emit_each_side_closed(self, cause: int, outputs: list[Output]) -> int | None:
        """3.8+ pass (KAFKA-15417): walk the store in order, emit closed records, step over open ones, and
        stop once both sides have shown an open record. A left record is still open while ``ts + after +
        grace >= streamTime``, a right one while ``ts + before + grace >= streamTime`` (so it closes only when
        stream time is strictly greater). Returns the ts of the last record visited (``None`` if none).

        Within one side records close in ts order, so the closed records are a prefix of each side's keys,
        and the walk emits all of them: each comes before its side's first open record, hence before the
        walk stops."""
        held = self.held
        right_count = held.count_before(RIGHT_SIDE, self.stream_time - self._before - self._grace)
        left_count = held.count_before(LEFT_SIDE, self.stream_time - self._after - self._grace)
        last_visited = held.ts_where_walk_stops_after_both_sides_kept(right_count, left_count)
        held.emit_first(right_count, left_count, cause, outputs)
        return last_visited

    def snapshot(self) -> dict[str, object]:
        """Stream time, ``minTime`` (``None`` = ``Long.MAX_VALUE``), the held records in store order and, with
        the emit throttle on, the next time to emit."""
        state: dict[str, object] = {
            "stream_time": self.stream_time,
            "min_time": self.min_time,
            "held": self.held.snapshot(),
        }
        if self._emit_interval:
            state["next_time_to_emit"] = self.next_time_to_emit
        return state
