"""A stream joined with itself, ``s.join|leftJoin|outerJoin(s, joiner, windows)`` (spec SJ-1 to SJ-6).

One input topic; every record is a ``left`` record of it. Which topology runs (spec SJ-1): from 3.4, with
``topology.optimization=all``, the optimizer rewrites every self-join, whatever its variant, into one
``KStreamKStreamSelfJoin`` processor over one window store (``RewrittenSelfJoinTask``); otherwise the
ordinary two-store join runs with the one stream on both sides (``UnrewrittenSelfJoinTask``).
"""

from __future__ import annotations

from kjoin.conformance.candidates.stateful.stream_stream import LEFT, Emit, StreamStreamTask

__all__ = ["RewrittenSelfJoinTask", "UnrewrittenSelfJoinTask"]


class UnrewrittenSelfJoinTask:
    """The two-store join of one stream with itself (spec SJ-2): the source hands each record first to the
    left ("this") side, which probes the right store and then stores the record in the left store, then to
    the right side, which probes the left store (now holding the record itself) and stores it in the right
    store. So a record runs through ``StreamStreamTask`` as a left record, then as a right record."""

    def __init__(self, join: StreamStreamTask) -> None:
        self.join = join

    def process(self, side: str, key: str | None, value: str | None, ts: int) -> list[Emit]:
        return [*self.join.process("left", key, value, ts), *self.join.process("right", key, value, ts)]

    def expire(self) -> None:
        self.join.expire()


class RewrittenSelfJoinTask(StreamStreamTask):
    """``KStreamKStreamSelfJoin`` (3.4+, spec SJ-3 to SJ-6): the ``left`` window store only (the right
    store and the outer store stay empty), the task clock's ``stream_time`` as the processor's own stream
    time, joined results only for every variant."""

    def process(self, side: str, key: str | None, value: str | None, ts: int) -> list[Emit]:
        """Skip a null key or value (a null value still reaches the store's put, SS-9), else probe twice
        (SJ-4, SJ-5), then put the record into the store."""
        if key is None:
            return []
        if value is None:
            self._put(LEFT, key, None, ts)
            return []
        spec, clock = self.spec, self.clock
        stream_time = clock["stream_time"] = max(clock["stream_time"], ts)
        # SJ-4: the record as the left value, each stored record in [ts - before, ts + after] as the right
        out: list[Emit] = [
            (key, value, partner, max(ts, partner_ts))
            for partner_ts, partner in self._fetch(
                LEFT, key, max(0, ts - spec.before), max(0, ts + spec.after)
            )
        ]
        # SJ-5: each stored record in [ts - after, ts + before] as the left value, the record as the right;
        # its pairing with itself before the first later partner, or last, unless it is near the end of
        # retention by the processor's stream time
        self_due = ts > stream_time - spec.retention + 1
        for partner_ts, partner in self._fetch(LEFT, key, max(0, ts - spec.after), max(0, ts + spec.before)):
            if self_due and partner_ts > ts:
                out.append((key, value, value, ts))
                self_due = False
            out.append((key, partner, value, max(ts, partner_ts)))
        if self_due:
            out.append((key, value, value, ts))
        self._put(LEFT, key, value, ts)
        return out
