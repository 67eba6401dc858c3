"""KStream-KStream windowed join of one Kafka task, as Kafka Streams 3.1+ runs it.

Topology: each side's record goes to that side's join processor, which probes the *other* side's window
store, and is then put into its own side's window store (``KStreamJoinWindow``). The left processor looks
``before`` back and ``after`` ahead, the right one the reverse; values reach the joiner as
``(left, right)``.

State of the task (``processor.STREAM_STREAM_STATE``):

* two window stores, ``(key, ts, seq) -> value``: retention ``before + after + grace`` (the legacy
  ``JoinWindows.of`` without grace: ``before + after + max(1 day - 2 * before, 0)``), a record visible while
  ``ts > observed - retention``, where ``observed`` is the largest timestamp put into that store; in-memory
  stores count null-value puts towards it, RocksDB stores skip them;
* for left/outer joins with ``JoinWindows.ofTimeDifference*`` (a grace, not the deprecated
  ``of().grace()``): the outer store of held non-joined records, ``(ts, side, key, seq) -> value``, with the
  shared stream time and ``minTime``. A record with no partner is held until its window plus grace has
  closed; a later partner deletes it; every in-order record runs the *emission pass* first.

No timers: Kafka emits held records when a record arrives, not when time passes, so the port does the same
(``timeMode="None"``); Spark's watermark plays no part.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from kjoin.conformance.candidates.stateful.state import StoreView

__all__ = ["StreamStreamTask", "WindowSpec"]

DAY_MS = 24 * 60 * 60 * 1000
RIGHT, LEFT = 0, 1
"""Side byte of a held record: the outer store orders right before left at one timestamp."""

Emit = tuple[Any, Any, Any, int]
"""``(key, left value, right value, ts)``: one joined or non-joined result."""


@dataclass(frozen=True)
class WindowSpec:
    """One scenario's join: variant, window, store kind and the era's behaviour (flags of the era table in
    ``oracle.behaviour``, named as there; the intended run has the bug flags off)."""

    variant: str
    before: int
    after: int
    grace: int | None
    legacy: bool
    stores: str
    era: Any
    """The scenario's ``Behaviour``: only its flags are read."""

    @property
    def retention(self) -> int:
        """Both window stores' retention (``JoinWindows#size() + gracePeriodMs()``)."""
        size = self.before + self.after
        if self.grace is None:
            return size + max(DAY_MS - 2 * self.before, 0)
        return size + self.grace

    @property
    def spurious_free(self) -> bool:
        """Held non-joined records (3.1+): left/outer joins over ``ofTimeDifference*`` windows."""
        held = self.variant in ("left", "outer") and self.grace is not None and not self.legacy
        return held and bool(self.era.has_spurious_free_outer_joins)

    def live_from(self, observed: int) -> int:
        """The smallest timestamp a fetch can still return, given the store's observed time: exact for
        in-memory stores and RocksDB 3.4+, else whole segments of ``max(retention / 2, 60 s)`` expire."""
        if self.stores == "memory" or self.era.rocksdb_window_expiry_is_exact:
            return observed - self.retention + 1
        interval = max(self.retention // 2, 60_000)
        return max(observed - self.retention, 0) // interval * interval


class _Side:
    """What one join processor knows: its side, its window bounds, whether it is outer."""

    __slots__ = ("is_left", "join_after", "join_before", "outer", "side")

    def __init__(self, is_left: bool, join_before: int, join_after: int, outer: bool) -> None:
        self.is_left = is_left
        self.side = LEFT if is_left else RIGHT
        self.join_before = join_before
        self.join_after = join_after
        self.outer = outer


class StreamStreamTask:
    """The join's processors over one task's state, loaded for a micro-batch (see the module docstring)."""

    def __init__(self, spec: WindowSpec, clock: dict[str, Any], left: StoreView, right: StoreView,
                 held: StoreView | None) -> None:  # fmt: skip
        self.spec = spec
        self.clock = clock
        self.stores = {LEFT: left, RIGHT: right}
        self.held = held if spec.spurious_free else None
        self.sides = {
            LEFT: _Side(True, spec.before, spec.after, spec.variant in ("left", "outer")),
            RIGHT: _Side(False, spec.after, spec.before, spec.variant == "outer"),
        }
        self._by_key = {side: _index(store) for side, store in self.stores.items()}

    # --- one record through KStreamJoinWindow and the join processor -------------------------------------

    def process(self, side_name: str, key: str | None, value: str | None, ts: int) -> list[Emit]:
        """The results one input record forwards, in order."""
        side = self.sides[LEFT if side_name == "left" else RIGHT]
        clock, era = self.clock, self.spec.era
        out: list[Emit] = []
        if key is None or value is None:
            if era.null_records_advance_stream_time:  # 3.7+: the shared tracker moves before any check
                clock["stream_time"] = max(clock["stream_time"], ts)
            if key is None and side.outer and value is not None and era.left_joins_forward_null_keys:
                out.append(_pair(side, None, value, None, ts))  # KIP-962: forwarded, not joined
            elif key is not None:  # dropped by the processor, but the window store still sees the put
                self._put(side.side, key, None, ts)
            return out
        clock["stream_time"] = max(clock["stream_time"], ts)
        if self.held is not None and ts == clock["stream_time"]:
            out.extend(self._emit_closed(side))
        other = RIGHT if side.is_left else LEFT
        time_to = max(0, ts + side.join_after)
        partners = self._fetch(other, key, max(0, ts - side.join_before), time_to)
        for partner_ts, partner_value in partners:
            self._release(other, key, partner_ts)
            out.append(_pair(side, key, value, partner_value, max(ts, partner_ts)))
        if not partners and side.outer:
            if self.held is None or time_to < clock["stream_time"]:
                out.append(_pair(side, key, value, None, ts))
            else:
                self._hold(side.side, key, value, ts)
        self._put(side.side, key, value, ts)
        return out

    # --- window stores ---------------------------------------------------------------------------------

    def _observed(self, side: int) -> int:
        return int(self.clock["left_observed" if side == LEFT else "right_observed"])

    def _live_from(self, side: int) -> int:
        """The smallest timestamp a fetch of ``side``'s store can still return."""
        return self.spec.live_from(self._observed(side))

    def _put(self, side: int, key: str, value: str | None, ts: int) -> None:
        """``WindowStore#put`` with retained duplicates: a new entry per put, unless already expired."""
        name = "left_observed" if side == LEFT else "right_observed"
        if value is None:
            if self.spec.stores == "memory" or not self.spec.era.rocksdb_join_stores_skip_null_values:
                self.clock[name] = max(self.clock[name], ts)  # RocksDB skips them since KAFKA-9921
            return
        self.clock[name] = max(self.clock[name], ts)
        if ts < self._live_from(side):
            return
        seq = self.clock["next_seq"]
        self.clock["next_seq"] = seq + 1
        self.stores[side].put((key, ts, seq), (value,))
        self._by_key[side].setdefault(key, []).append((ts, seq, value))

    def _fetch(self, side: int, key: str, time_from: int, time_to: int) -> list[tuple[int, str]]:
        """Live records of ``key`` with ``time_from <= ts <= time_to``, in (ts, insertion) order."""
        low = max(time_from, self._live_from(side))
        found = sorted(entry for entry in self._by_key[side].get(key, ()) if low <= entry[0] <= time_to)
        return [(ts, value) for ts, _, value in found]

    def expire(self) -> None:
        """Drop records no fetch can return any more (Kafka drops them with their segment)."""
        for side, store in self.stores.items():
            live = self._live_from(side)
            for entry in [entry for entry in store if entry[1] < live]:
                store.remove(entry)

    # --- the outer store and the emission pass ----------------------------------------------------------

    def _hold(self, side: int, key: str, value: str, ts: int) -> None:
        """Hold a non-joined record and lower ``minTime`` to its timestamp."""
        assert self.held is not None
        seq = self.clock["next_seq"]
        self.clock["next_seq"] = seq + 1
        self.held.put((ts, side, key, seq), (value,))
        min_time = self.clock["min_time"]
        self.clock["min_time"] = ts if min_time is None else min(min_time, ts)

    def _release(self, side: int, key: str, ts: int) -> None:
        """A match deletes the partner's held list under ``(ts, side, key)`` (``putIfAbsent(key, null)``)."""
        if self.held is not None:
            for entry in [e for e in self.held if e[0] == ts and e[1] == side and e[2] == key]:
                self.held.remove(entry)

    def _closes_at(self, side: int) -> int:
        """A held record of ``side`` is open while ``ts + this >= streamTime`` (KAFKA-15417: the left side
        looks ``after`` ahead, the right side ``before``)."""
        assert self.spec.grace is not None
        return (self.spec.after if side == LEFT else self.spec.before) + self.spec.grace

    def _emit_closed(self, processor: _Side) -> list[Emit]:
        """The emission pass an in-order record runs before its own results."""
        assert self.held is not None and self.spec.grace is not None
        clock, stream_time = self.clock, self.clock["stream_time"]
        held = sorted(self.held, key=lambda k: (k[0], k[1], k[2].encode("utf-8"), k[3]))
        min_time = clock["min_time"]
        if not self.spec.era.outer_join_closes_each_side_by_its_own_bound:
            return self._emit_closed_before_3_8(processor, held)
        if not self.spec.era.outer_join_min_time_is_last_visited:
            # as designed (3.8+, KAFKA-15417): every closed record goes, whichever processor runs the pass
            return self._emit([k for k in held if k[0] + self._closes_at(k[1]) < stream_time])
        if min_time is None or min_time + processor.join_after + self.spec.grace >= stream_time:
            return []
        # As shipped (3.8+): walk the store in order, emit closed records, step over open ones, stop once
        # both sides showed an open one; minTime ends at the last record visited.
        clock["min_time"] = None
        open_sides: set[int] = set()
        emitted = []
        for entry in held:
            clock["min_time"] = entry[0]
            if len(open_sides) == 2:
                break
            if entry[0] + self._closes_at(entry[1]) >= stream_time:
                open_sides.add(entry[1])
                continue
            emitted.append(entry)
        return self._emit(emitted)

    def _emit_closed_before_3_8(self, processor: _Side, held: list[tuple[Any, ...]]) -> list[Emit]:
        """3.1-3.7: skip while ``minTime >= streamTime - lookBack - grace`` (``lookBack``: ``before`` for the
        left processor, ``after`` for the right one); else emit in store order until the first record with
        ``ts + joinAfter + grace >= streamTime`` (the running processor's ``joinAfter`` for both sides),
        where ``minTime`` stops (at the last record when all go)."""
        assert self.spec.grace is not None
        clock, stream_time, grace = self.clock, self.clock["stream_time"], self.spec.grace
        look_back = processor.join_before
        if clock["min_time"] is None or clock["min_time"] >= stream_time - look_back - grace:
            return []
        clock["min_time"] = None
        emitted = []
        for entry in held:
            clock["min_time"] = entry[0]
            if entry[0] + processor.join_after + grace >= stream_time:
                break
            emitted.append(entry)
        return self._emit(emitted)

    def _emit(self, entries: list[tuple[Any, ...]]) -> list[Emit]:
        """Forward and delete held records: ``(v, null)`` / ``(null, v)`` at the record's own timestamp."""
        assert self.held is not None
        out = []
        for entry in entries:
            ts, side, key, _ = entry
            (value,) = self.held.entries[entry]
            out.append((key, value, None, ts) if side == LEFT else (key, None, value, ts))
            self.held.remove(entry)
        return out


def _pair(side: _Side, key: str | None, value: str, other: str | None, ts: int) -> Emit:
    return (key, value, other, ts) if side.is_left else (key, other, value, ts)


def _index(store: StoreView) -> dict[str, list[tuple[int, int, str]]]:
    """A window store's entries per record key, for ``fetch``."""
    by_key: dict[str, list[tuple[int, int, str]]] = {}
    for (key, ts, seq), (value,) in store.entries.items():
        by_key.setdefault(key, []).append((ts, seq, value))
    return by_key
