"""KStream-GlobalKTable join: stream records look their *mapped* key up in a global table.

``stream.join|leftJoin(globalTable, keyMapper, joiner)`` (spec GT-1 to GT-7). The left side is the stream,
the right side the global table's topic. The test driver applies a global-table record to the global store
as soon as it is piped, so the table is read in processing order exactly like a KStream-KTable join's
(spec GT-3); it is never versioned (Kafka refuses a versioned global store) and has no grace period.

What a stream record ``(k, v)`` with mapped key ``m = keyMapper(k, v)`` does, per era (spec GT-4, GT-5):

* a null value is dropped in every era;
* 0.10.2-2.6: a null key is dropped; a null ``m`` fails the join before 1.0.1 (KAFKA-6378) and is "no
  match" from 1.0.1 (inner: dropped, left: ``joiner(v, null)``);
* 2.7+ (KAFKA-10277): a null ``m`` is dropped, also by a left join; a null key with a non-null ``m`` joins;
* 3.7+ (KIP-962): a left join keeps a null-key record and joins it with null when ``m`` is null;
* 4.0.1+ (KAFKA-19208): a left join keeps every record whose ``m`` is null, as ``joiner(v, null)``.

A result has the stream record's key (null included), the value ``(v, tableValue)`` and the stream record's
timestamp (spec GT-6).
"""

from __future__ import annotations

from kjoin.oracle.behaviour import Behaviour
from kjoin.oracle.errors import UnsupportedJoinError
from kjoin.oracle.records import JoinSpec, Key, Output, Record, mapped_key_of, new_output
from kjoin.oracle.versioned import PlainTable

__all__ = ["GlobalTableJoin"]


class GlobalTableJoin:
    """One KStream (left side) joined with one GlobalKTable (right side); see the module docstring."""

    __slots__ = ("_behaviour", "_is_left_join", "_mapper", "_table")

    def __init__(self, spec: JoinSpec, behaviour: Behaviour) -> None:
        _check_join_exists(spec, behaviour)
        self._behaviour = behaviour
        self._is_left_join = spec.variant == "left"
        self._mapper = spec.key_mapper
        self._table = PlainTable()

    def process(self, index: int, record: Record) -> list[Output]:
        """A global-table record updates the table at once and emits nothing (a null-key one is skipped,
        spec GT-3); a stream record is joined (spec GT-4 to GT-6)."""
        if record.side == "right":
            if record.key is not None:
                self._table.update(record.key, record.value, record.ts)
            return []
        if record.value is None:
            return []
        mapped = mapped_key_of(record.key, record.value, self._mapper)
        if not self._is_kept(record.key, mapped):
            return []
        found = None if mapped is None else self._table.get(mapped)
        if found is None and not self._is_left_join:
            return []
        table_value = None if found is None else found[0]
        return [new_output((record.key, (record.value, table_value), record.ts, index))]

    def _is_kept(self, key: Key, mapped: Key) -> bool:
        """Whether a stream record with a non-null value reaches the lookup (spec GT-4, GT-5); a kept record
        with a null mapped key finds nothing."""
        behaviour = self._behaviour
        if not behaviour.global_join_drops_by_mapped_key:
            if key is None:
                return False
            if mapped is None and behaviour.null_mapped_key_fails_global_join:
                raise UnsupportedJoinError(
                    "a null mapped key fails the KStream-GlobalKTable join before 1.0.1 (the global store "
                    f"refuses a null key; KAFKA-6378; era {behaviour.era}; spec GT-4)"
                )
            return mapped is not None or self._is_left_join
        if mapped is not None:
            return True
        if not self._is_left_join:
            return False
        return behaviour.global_left_join_keeps_null_mapped_keys or (
            key is None and behaviour.left_joins_forward_null_keys
        )

    def commit(self, index: int) -> list[Output]:
        """A commit: nothing to forward (table updates never emit, so a cache in front of the global store
        changes no output; spec GT-3)."""
        return []

    def snapshot(self) -> dict[str, object]:
        """The global table."""
        return {"table": self._table.snapshot()}


def _check_join_exists(spec: JoinSpec, behaviour: Behaviour) -> None:
    """Refuse what Kafka has no API for: GlobalKTables before 0.10.2 (KIP-99), an outer join, a versioned
    global table, a window (spec GT-1)."""
    if not behaviour.has_global_table_joins:
        raise UnsupportedJoinError(f"GlobalKTable joins need Kafka 0.10.2+ (KIP-99; era {behaviour.era})")
    if spec.variant == "outer":
        raise UnsupportedJoinError("a KStream-GlobalKTable join is inner or left; there is no outer join")
    if spec.versioned is not None and (spec.versioned.left or spec.versioned.right):
        raise UnsupportedJoinError(
            "a GlobalKTable cannot be versioned (Kafka refuses versioned global stores)"
        )
    if spec.window is not None:
        raise UnsupportedJoinError("a KStream-GlobalKTable join has no window and no grace period")
