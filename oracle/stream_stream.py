"""KStream-KStream windowed join (inner, left, outer) in every era: spec SS-1.

Topology (spec SS-1): each side's records go through ``KStreamJoinWindow`` (forward to that side's join
processor, then put into the side's own window store) and the join processor probes the *other* side's
store. The left processor looks ``before`` back and ``after`` ahead; the right one the reverse. Values
always reach the joiner as ``(left, right)``.

Eras, each read from a ``Behaviour`` flag where it matters:

* 0.10.0/0.10.1 (spec SS-11, SS-12): a left join is one-sided (right records are only stored); null values
  are joined.
* KIP-77, 0.10.2-3.0 and, on any later version, the legacy ``JoinWindows.of`` API (``grace=None``)
  (spec SS-13): a left/outer record with no partner is emitted at once, "spurious" results included.
* 3.1+ with ``ofTimeDifference*`` (a grace given) (spec SS-14, SS-20): non-joined records are held in the
  outer store (``oracle.outer_store``) until their window plus grace closes, then emitted by the next in-order
  record before its own results. A record whose window already ended (``ts + joinAfter < streamTime``)
  is emitted at once: that test ignores grace. With an emit interval (``Settings.emit_interval_ms``) a pass
  runs only once the records' wall clock has moved on far enough (spec PR-1 to PR-3).

Window stores, retention and expiry per store kind live in ``oracle.window_store`` (spec SS-6, SS-7, SS-8,
SS-9).
"""

from __future__ import annotations

from kjoin.oracle.behaviour import Behaviour
from kjoin.oracle.errors import UnsupportedJoinError
from kjoin.oracle.outer_store import LEFT_SIDE, RIGHT_SIDE, OuterJoinBuffer
from kjoin.oracle.records import JoinSpec, Key, Output, Record, Value, Window, new_output
from kjoin.oracle.window_store import JoinWindowStore, join_store_retention

__all__ = ["StreamStreamJoin"]


class _Processor:
    """One side's join processor: its own store (``None`` if the side has no ``KStreamJoinWindow``), the
    store it probes (``None`` if it never probes), its window bounds and whether it is outer."""

    __slots__ = (
        "is_left",
        "join_after",
        "join_before",
        "other_side",
        "other_store",
        "outer",
        "own_store",
        "side",
    )

    def __init__(
        self,
        *,
        is_left: bool,
        own_store: JoinWindowStore | None,
        other_store: JoinWindowStore | None,
        join_before: int,
        join_after: int,
        outer: bool,
    ) -> None:
        self.is_left = is_left
        self.side = LEFT_SIDE if is_left else RIGHT_SIDE
        self.other_side = RIGHT_SIDE if is_left else LEFT_SIDE
        self.own_store = own_store
        self.other_store = other_store
        self.join_before = join_before
        self.join_after = join_after
        self.outer = outer


class StreamStreamJoin:
    """``left.join|leftJoin|outerJoin(right, joiner, windows)`` as one state machine (spec SS-1)."""

    def __init__(self, spec: JoinSpec, behaviour: Behaviour) -> None:
        window = spec.window
        if window is None:
            raise UnsupportedJoinError("a stream-stream join needs a join window (before, after, grace)")
        retention = join_store_retention(window, behaviour)
        variant = spec.variant
        left_outer = variant in ("left", "outer")
        right_outer = variant == "outer"
        one_sided = variant == "left" and not behaviour.left_join_is_symmetric
        self._right_store = JoinWindowStore(retention, spec.stores, behaviour)
        self._left_store = None if one_sided else JoinWindowStore(retention, spec.stores, behaviour)
        self._left = _Processor(
            is_left=True,
            own_store=self._left_store,
            other_store=self._right_store,
            join_before=window.before,
            join_after=window.after,
            outer=left_outer,
        )
        self._right = _Processor(
            is_left=False,
            own_store=self._right_store,
            other_store=self._left_store,
            join_before=window.after,
            join_after=window.before,
            outer=right_outer,
        )
        self._buffer = (
            OuterJoinBuffer(window, behaviour, spec.settings.emit_interval_ms)
            if left_outer and _is_time_difference_window(window) and behaviour.has_spurious_free_outer_joins
            else None
        )
        self._null_key_fails = variant == "left" and behaviour.null_key_fails_left_stream_join
        self._forwards_null_keys = behaviour.left_joins_forward_null_keys
        self._null_values_joined = behaviour.null_stream_values_are_joined
        self._time_before_null_checks = behaviour.null_records_advance_stream_time
        self._ts_is_max = behaviour.stream_join_ts_is_max_of_inputs

    def process(self, index: int, record: Record) -> list[Output]:
        """One input record through ``KStreamJoinWindow`` and its side's join processor (spec SS-18,
        its steps 1-4; earlier eras skip the steps they lack).

        The probe of the other store runs inline (the hot path): over ``[max(0, ts - joinBefore),
        max(0, ts + joinAfter)]``, both ends inclusive (spec SS-2), one joined result per partner in (ts,
        insertion) order, with ts ``max(ts, partner ts)`` from 2.3 and the record's ts before (spec SS-4);
        each match deletes the partner's held entry (spec SS-19). With no partner an outer processor emits
        ``joiner(v, null)`` at once or holds it (spec SS-13, SS-20)."""
        processor = self._left if record.side == "left" else self._right
        key, value, ts = record.key, record.value, record.ts
        buffer = self._buffer
        if buffer is not None and record.wall_clock is not None:
            buffer.wall_clock = record.wall_clock  # the emit throttle's clock (spec PR-1)
        if key is None or (value is None and not self._null_values_joined):
            return self._null_record(processor, key, value, ts, index)
        outputs: list[Output] = []
        if buffer is not None and ts >= buffer.stream_time:
            # Steps 1 and 3: stream time follows the record, and an in-order record (ts == streamTime) runs
            # the emission pass before its own results.
            buffer.stream_time = ts
            buffer.emit_closed(processor.is_left, index, outputs)
        other_store = processor.other_store
        if other_store is not None:
            # Kafka clamps both bounds at 0, which changes nothing here: timestamps are never negative.
            time_to = ts + processor.join_after
            times, values, start, end = other_store.fetch(key, ts - processor.join_before, time_to)
            if start < end:
                if buffer is not None:  # step 4: held partners are not emitted as non-joined
                    buffer.held.release(processor.other_side, key, times[start:end])
                ts_is_max = self._ts_is_max
                is_left = processor.is_left
                for at in range(start, end):
                    other_ts = times[at]
                    pair = (value, values[at]) if is_left else (values[at], value)
                    result_ts = other_ts if ts_is_max and other_ts > ts else ts
                    outputs.append(new_output((key, pair, result_ts, index)))
            elif processor.outer:
                if buffer is None or time_to < buffer.stream_time:
                    pair = (value, None) if processor.is_left else (None, value)
                    outputs.append(new_output((key, pair, ts, index)))
                else:
                    buffer.hold(ts, processor.side, key, value)
        own_store = processor.own_store
        if own_store is not None:
            own_store.put(key, value, ts)
        return outputs

    def _null_record(
        self, processor: _Processor, key: Key, value: Value, ts: int, index: int
    ) -> list[Output]:
        """A record with a null key, or a null value the era does not join (spec SS-10, SS-11). From 3.7 it
        still advances the shared stream time (spec SS-17: it moves before the null checks), but it never runs
        an emission pass itself."""
        buffer = self._buffer
        if buffer is not None and self._time_before_null_checks and ts > buffer.stream_time:
            buffer.stream_time = ts
        if key is None:
            return self._null_key_record(processor, value, ts, index)
        return self._drop_null_value(processor, key, ts)

    def _null_key_record(self, processor: _Processor, value: Value, ts: int, index: int) -> list[Output]:
        """A null-key record is never stored (spec SS-10). 0.10.0's left join fails on a left one;
        3.7+ (KIP-962) forwards it from an outer processor as ``joiner(v, null)`` / ``joiner(null, v)``
        with key null and its own ts; otherwise it is dropped."""
        if self._null_key_fails and processor.is_left:
            raise UnsupportedJoinError(
                "Kafka 0.10.0's KStream#leftJoin(KStream) wires the left stream straight to the join "
                "processor, which throws StreamsException on a null key (spec SS-10)"
            )
        if self._forwards_null_keys and processor.outer and value is not None:
            pair = (value, None) if processor.is_left else (None, value)
            return [Output(None, pair, ts, index)]
        return []

    def _drop_null_value(self, processor: _Processor, key: Key, ts: int) -> list[Output]:
        """KIP-77 (0.10.2+): the join processor drops a null value, but ``KStreamJoinWindow`` still hands it
        to the side's store, whose observed time it may advance (spec SS-9, SS-11)."""
        if processor.own_store is not None:
            processor.own_store.put(key, None, ts)
        return []

    def commit(self, index: int) -> list[Output]:
        """A commit: this join has no record cache to flush (spec PR-5)."""
        return []

    def snapshot(self) -> dict[str, object]:
        """Window stores (observed time, live records), and for a spurious-free join the shared stream
        time, ``minTime`` and held records."""
        return {
            "left_store": None if self._left_store is None else self._left_store.snapshot(),
            "right_store": self._right_store.snapshot(),
            "outer": None if self._buffer is None else self._buffer.snapshot(),
        }


def _is_time_difference_window(window: Window) -> bool:
    """``ofTimeDifferenceAndGrace``/``WithNoGrace``: a grace given, and not through the deprecated
    ``JoinWindows.of(...).grace(...)`` (spec SS-14: only those windows enable the 3.1+ fix)."""
    return window.grace is not None and not window.legacy
