"""A stream joined with itself, ``s.join|leftJoin|outerJoin(s, joiner, windows)``: spec SJ-1 to SJ-6
(docs/semantics/self-join.md).

One input topic; every record is a ``left`` record of it. What runs depends on the topology (spec SJ-1):

* **Unrewritten** (optimization off, or before 3.4): the ordinary two-store join of spec SS-1 with the one
  stream on both sides. The source hands each record first to the left side (``KStreamJoinWindow`` of the
  "this" store: the left processor probes the right store, then the record is put into the left store) and
  then to the right side (the right processor probes the left store, which now holds the record itself, then
  the record is put into the right store). So the oracle runs ``StreamStreamJoin`` with each record given
  twice, as a left and then as a right record (spec SJ-2).
* **Rewritten** (3.4+, ``topology.optimization=all``, KAFKA-14209): one ``KStreamKStreamSelfJoin`` processor
  over the "this" store, for every variant: inner-join results only (spec SJ-3, SJ-4, SJ-5).
"""

from __future__ import annotations

import msgspec

from kjoin.oracle.behaviour import Behaviour
from kjoin.oracle.errors import UnsupportedJoinError
from kjoin.oracle.records import JoinSpec, Output, Record, new_output
from kjoin.oracle.stream_stream import StreamStreamJoin
from kjoin.oracle.window_store import JoinWindowStore, join_store_retention

__all__ = ["RewrittenSelfJoin", "UnrewrittenSelfJoin", "self_join_for"]


def self_join_for(spec: JoinSpec, behaviour: Behaviour) -> UnrewrittenSelfJoin | RewrittenSelfJoin:
    """The processor Kafka builds for a self-join (spec SJ-1): the single-store rewrite with
    ``optimization = "all"`` from 3.4 (whatever the variant), else the two-store join."""
    if spec.optimization == "all" and behaviour.self_join_is_rewritten_by_optimization:
        return RewrittenSelfJoin(spec, behaviour)
    return UnrewrittenSelfJoin(spec, behaviour)


def _only_left(record: Record) -> None:
    if record.side != "left":
        raise UnsupportedJoinError(
            "a self-join has one input stream: every record is a left record (docs/semantics/self-join.md)"
        )


class UnrewrittenSelfJoin:
    """The two-store join of one stream with itself: each record runs through the left side, then through
    the right side (spec SJ-2)."""

    def __init__(self, spec: JoinSpec, behaviour: Behaviour) -> None:
        self._join = StreamStreamJoin(msgspec.structs.replace(spec, self_join=False), behaviour)

    def process(self, index: int, record: Record) -> list[Output]:
        """The record as a left record, then the same record as a right record (spec SJ-2)."""
        _only_left(record)
        outputs = self._join.process(index, record)
        outputs.extend(self._join.process(index, msgspec.structs.replace(record, side="right")))
        return outputs

    def commit(self, index: int) -> list[Output]:
        """A commit: a stream-stream join has no record cache to flush (spec PR-5)."""
        return []

    def snapshot(self) -> dict[str, object]:
        """The two window stores (each holds every record of the stream) and the held records."""
        return self._join.snapshot()


class RewrittenSelfJoin:
    """``KStreamKStreamSelfJoin`` (3.4+): one window store, one processor, inner-join results whatever the
    variant (spec SJ-3 to SJ-5)."""

    def __init__(self, spec: JoinSpec, behaviour: Behaviour) -> None:
        window = spec.window
        if window is None:
            raise UnsupportedJoinError("a stream-stream join needs a join window (before, after, grace)")
        self._before = window.before
        self._after = window.after
        self._retention = join_store_retention(window, behaviour)
        self._store = JoinWindowStore(self._retention, spec.stores, behaviour)
        self._stream_time = -1  # the processor's own TimeTracker (ConsumerRecord.NO_TIMESTAMP at first)

    def process(self, index: int, record: Record) -> list[Output]:
        """One record: ``KStreamJoinWindow`` hands it to the self-join processor, then puts it into the store
        (spec SJ-3). A null key or value is skipped by the processor (spec SJ-6); a null value still reaches
        the store's put (spec SS-9)."""
        _only_left(record)
        key, value, ts = record.key, record.value, record.ts
        if key is None:
            return []
        if value is None:
            self._store.put(key, None, ts)
            return []
        if ts > self._stream_time:
            self._stream_time = ts
        outputs: list[Output] = []
        # The first pass: the record as the left value, each stored record within [ts - before, ts + after]
        # as the right value (spec SJ-4).
        times, values, start, end = self._store.fetch(key, ts - self._before, ts + self._after)
        for at in range(start, end):
            outputs.append(new_output((key, (value, values[at]), max(ts, times[at]), index)))
        # The second pass: each stored record within [ts - after, ts + before] as the left value, the record
        # as the right value; the record's pairing with itself comes before the first later partner, or last
        # (spec SJ-5). It is left out once the record is too old for the store (``emitSelfRecord``).
        self_pair = new_output((key, (value, value), ts, index))
        self_due = ts > self._stream_time - self._retention + 1
        times, values, start, end = self._store.fetch(key, ts - self._after, ts + self._before)
        for at in range(start, end):
            other_ts = times[at]
            if self_due and other_ts > ts:
                outputs.append(self_pair)
                self_due = False
            outputs.append(new_output((key, (values[at], value), max(ts, other_ts), index)))
        if self_due:
            outputs.append(self_pair)
        self._store.put(key, value, ts)
        return outputs

    def commit(self, index: int) -> list[Output]:
        """A commit: a stream-stream join has no record cache to flush (spec PR-5)."""
        return []

    def snapshot(self) -> dict[str, object]:
        """The one window store and the processor's stream time."""
        return {"store": self._store.snapshot(), "stream_time": self._stream_time}
