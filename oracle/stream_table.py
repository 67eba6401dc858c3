"""KStream-KTable join: stream records look the key up in the table; table updates only update it.

spec ST-3, ST-4, ST-6, ST-8, per era:

* 0.10.0/0.10.1: only ``leftJoin(KTable)`` exists. A null-key stream record is skipped; a null value is
  joined like any other (``joiner(null, tableValue)``).
* 0.10.2 (KIP-77): ``join(KTable)`` added; stream records with a null key or a null value are dropped.
* 3.5 (KIP-914): with a versioned table the lookup is timestamped, ``get(key, streamTs)`` (spec ST-6, VS-9).
* 3.6 (KIP-923): ``Joined#withGracePeriod`` (``spec.window.grace``) holds stream records in a time-ordered
  buffer before the lookup; it needs a versioned table whose history is at least the grace period.
* 3.7 (KIP-962): a left join forwards a null-key stream record with a non-null value at once as
  ``joiner(value, null)`` with key null, skipping the lookup.

The output key is the stream key, the value ``(streamValue, tableValue)`` and the timestamp the stream
record's own, in every era. Inner joins emit only when the table value is non-null, left joins always.
"""

from __future__ import annotations

import heapq

from kjoin.oracle.behaviour import Behaviour
from kjoin.oracle.errors import UnsupportedJoinError
from kjoin.oracle.records import JoinSpec, Key, Output, Record, new_output
from kjoin.oracle.versioned import PlainTable, VersionedTable

__all__ = ["StreamTableJoin"]

_NO_TIMESTAMP = -1
"""Stream time of an empty grace buffer (its store starts at Kafka's ``ConsumerRecord.NO_TIMESTAMP``)."""


class StreamTableJoin:
    """One KStream (left side) joined with one KTable (right side); see the module docstring."""

    __slots__ = (
        "_buffer",
        "_is_left_join",
        "_joins_null_values",
        "_null_key_joins",
        "_table",
        "_versioned_table",
    )

    def __init__(self, spec: JoinSpec, behaviour: Behaviour) -> None:
        _check_join_exists(spec, behaviour)
        versioning = spec.versioned
        versioned = versioning is not None and versioning.right
        history_ms = versioning.history_ms if versioning is not None else 0
        self._versioned_table = VersionedTable(history_ms) if versioned else None
        self._table: PlainTable | VersionedTable = self._versioned_table or PlainTable()
        self._is_left_join = spec.variant == "left"
        self._joins_null_values = behaviour.null_stream_values_are_joined
        self._null_key_joins = self._is_left_join and behaviour.left_joins_forward_null_keys
        grace = spec.window.grace if spec.window is not None else None
        self._buffer = None if grace is None else _grace_buffer(grace, versioned, history_ms, behaviour)

    def process(self, index: int, record: Record) -> list[Output]:
        """A table update changes the table and emits nothing; a stream record is joined (spec ST-1).

        A null-key table update is skipped (``KTableSource`` drops it; for 0.10.x, where Kafka's source was
        not checked for it, the oracle assumes the same: spec ST-5)."""
        if record.side == "right":
            if record.key is not None:
                self._table.update(record.key, record.value, record.ts)
            return []
        if self._is_dropped(record):
            return []
        if self._buffer is None:
            output = self._join(index, record)
            return [] if output is None else [output]
        return self._join_through_grace_buffer(index, record)

    def _is_dropped(self, record: Record) -> bool:
        """Null handling of stream records (spec ST-4): null keys are dropped, except that 3.7+ left
        joins forward a null key with a non-null value (KIP-962); null values are dropped from 0.10.2 on
        and joined before (``null_stream_values_are_joined``)."""
        if record.key is None:
            return not (self._null_key_joins and record.value is not None)
        return record.value is None and not self._joins_null_values

    def _join(self, index: int, record: Record) -> Output | None:
        """Look the stream key up and emit ``(streamValue, tableValue)`` at the stream record's ts; an inner
        join emits only when the table has a value (spec ST-2, ST-3)."""
        found = None if record.key is None else self._table_value_for(record.key, record.ts)
        if found is None and not self._is_left_join:
            return None
        return new_output((record.key, (record.value, None if found is None else found[0]), record.ts, index))

    def _table_value_for(self, key: Key, stream_ts: int) -> tuple[str, int] | None:
        """Versioned table (3.5+, KIP-914): the version valid at the stream record's ts (spec ST-6); otherwise
        the table's current value, whatever its ts."""
        if self._versioned_table is not None:
            return self._versioned_table.get_as_of(key, stream_ts)
        return self._table.get(key)

    def _join_through_grace_buffer(self, index: int, record: Record) -> list[Output]:
        """KIP-923 (3.6+, spec ST-8): a record already older than the buffer's grace deadline is joined at
        once; otherwise it is buffered, and every buffered record at or before the deadline is joined, in
        buffer order, with the table as it is now."""
        buffer = self._buffer
        assert buffer is not None
        if record.key is None:
            raise UnsupportedJoinError(
                "a null-key stream record reaching the KIP-923 grace buffer of a left join fails in Kafka "
                "(the buffer requires a non-null key; spec ST-9)"
            )
        outputs: list[Output] = []
        if not buffer.hold(record):
            output = self._join(index, record)
            if output is not None:
                outputs.append(output)
        for released in buffer.release_due():
            output = self._join(index, released)
            if output is not None:
                outputs.append(output)
        return outputs

    def commit(self, index: int) -> list[Output]:
        """A commit: this join has no record cache to flush (spec PR-5)."""
        return []

    def snapshot(self) -> dict[str, object]:
        """The table and, with a grace period, the buffer."""
        state: dict[str, object] = {"table": self._table.snapshot()}
        if self._buffer is not None:
            state["buffer"] = self._buffer.snapshot()
        return state


class _GraceBuffer:
    """The stream-side time-ordered buffer of KIP-923 (``RocksDBTimeOrderedKeyValueBuffer``, spec ST-8).

    Its stream time is the largest ts of the records *buffered* so far (records joined at once do not count).
    Records leave in ``(ts, serialized key, arrival)`` order once ``ts <= stream time - grace``.
    """

    __slots__ = ("_arrivals", "_heap", "grace", "stream_time")

    def __init__(self, grace: int) -> None:
        self.grace = grace
        self.stream_time = _NO_TIMESTAMP
        self._arrivals = 0
        self._heap: list[tuple[int, bytes, int, Record]] = []

    def hold(self, record: Record) -> bool:
        """Buffer ``record`` unless it is already past the deadline (``stream time - grace > ts``)."""
        if self.stream_time - self.grace > record.ts:
            return False
        self._arrivals += 1
        heapq.heappush(self._heap, (record.ts, _key_bytes(record.key), self._arrivals, record))
        self.stream_time = max(self.stream_time, record.ts)
        return True

    def release_due(self) -> list[Record]:
        """Remove and return every buffered record with ``ts <= stream time - grace``, in buffer order."""
        deadline = self.stream_time - self.grace
        heap = self._heap
        released = []
        while heap and heap[0][0] <= deadline:
            released.append(heapq.heappop(heap)[3])
        return released

    def snapshot(self) -> dict[str, object]:
        held = [{"key": r.key, "value": r.value, "ts": r.ts} for *_, r in sorted(self._heap)]
        return {"stream_time": self.stream_time, "grace": self.grace, "held": held}


def _check_join_exists(spec: JoinSpec, behaviour: Behaviour) -> None:
    """Refuse joins the era lacks: outer, and inner before 0.10.2 (KIP-77, spec ST-3); a versioned stream
    side."""
    if spec.variant == "outer":
        raise UnsupportedJoinError("a KStream-KTable join is inner or left; there is no outer join")
    if spec.variant == "inner" and not behaviour.has_stream_table_inner_join:
        raise UnsupportedJoinError(f"KStream#join(KTable) needs Kafka 0.10.2+ (KIP-77; era {behaviour.era})")
    if spec.versioned is not None and spec.versioned.left:
        raise UnsupportedJoinError("a KStream-KTable join's stream side is not a table; it has no versions")


def _grace_buffer(grace: int, versioned: bool, history_ms: int, behaviour: Behaviour) -> _GraceBuffer:
    """KIP-923 preconditions (spec ST-7): Kafka 3.6+, a versioned table, and grace no longer than its
    history."""
    if not behaviour.has_stream_table_grace:
        raise UnsupportedJoinError(f"stream-table grace needs Kafka 3.6+ (KIP-923; era {behaviour.era})")
    if not versioned:
        raise UnsupportedJoinError("a stream-table grace period needs a versioned table (KIP-923)")
    if grace > history_ms:
        raise UnsupportedJoinError(
            f"a stream-table grace period ({grace} ms) must not exceed the table's history ({history_ms} ms)"
        )
    return _GraceBuffer(grace)


def _key_bytes(key: Key) -> bytes:
    """The serialized key that orders buffered records with equal ts: UTF-8 for strings, big-endian two's
    complement for integers (4 bytes, as ``IntegerSerializer``, or 8 when they do not fit)."""
    if isinstance(key, str):
        return key.encode()
    assert key is not None
    width = 4 if -(2**31) <= key < 2**31 else 8
    return key.to_bytes(width, "big", signed=True)
