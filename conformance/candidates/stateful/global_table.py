"""KStream-GlobalKTable join of one Kafka task (spec GT-1 to GT-7, docs/semantics/global-table.md).

``stream.join|leftJoin(globalTable, keyMapper, joiner)``: the left side is the stream, the right side the
global table's topic. Every task keeps its own replica of the global table (the ``global_table`` state
variable, keyed by the table key) and is fed *every* global-table record, in processing order among the
task's stream records (``query``: the global topic's rows are replicated to every task group), as Kafka's
global thread updates the one global store before the stream record that follows (spec GT-3). So a task
needs no other task's state: the stream needs no co-partitioning with the table.

A table record replaces or deletes (tombstone) its key's value and emits nothing; a null-key one is
skipped. A stream record ``(k, v)`` is mapped to a table key ``m`` by the scenario's key mapper (GT-2), kept
or dropped by the era's null rules (GT-4, GT-5) and joined with the table's current value for ``m`` (GT-7),
at its own timestamp and with its own key (GT-6); a left join joins with null when nothing is found.
"""

from __future__ import annotations

from typing import Any

from kjoin.conformance.candidates.stateful.versioned import PlainTable
from kjoin.errors import KjoinError

__all__ = ["GlobalTableTask", "NullMappedKeyError", "mapped_key"]

Emit = tuple[Any, Any, Any, int, bool]
"""``(key, left value, right value, ts, tombstone)``."""


class NullMappedKeyError(KjoinError, ValueError):
    """Before 1.0.1 a null mapped key fails the join (the global store refuses a null key, spec GT-4)."""


def mapped_key(key: str | None, value: str | None, mapper: str) -> str | None:
    """The table key the scenario's ``KeyValueMapper`` picks (spec GT-2): ``key`` the record's key,
    ``colon-prefix`` the value's text before the first ``:`` (all of it without one; empty is null),
    ``comma-second`` the second field of ``value.split(",")`` as Java splits (trailing empty fields dropped;
    null without one), ``always-null`` null. A null value maps to null but with ``key``."""
    if mapper == "key":
        return key
    if value is None or mapper == "always-null":
        return None
    if mapper == "colon-prefix":
        return value.partition(":")[0] or None
    if mapper != "comma-second":
        raise ValueError(f"unknown key mapper {mapper!r}")
    fields = value.split(",")
    while fields and not fields[-1]:
        fields.pop()
    return fields[1] if len(fields) > 1 else None


class GlobalTableTask:
    """A KStream (left) joined with a GlobalKTable (right): ``inner`` or ``left``; ``era`` is
    ``kjoin.oracle.behaviour``'s flags for the scenario's release."""

    def __init__(self, variant: str, mapper: str, table: PlainTable, era: Any) -> None:
        self.left_join = variant == "left"
        self.mapper = mapper
        self.table = table
        self.era = era

    def process(self, side: str, key: str | None, value: str | None, ts: int) -> list[Emit]:
        if side == "right":
            if key is not None:
                self.table.update(key, value, ts)
            return []
        if value is None:
            return []
        table_key = mapped_key(key, value, self.mapper)
        if not self._joins(key, table_key):
            return []
        found = None if table_key is None else self.table.latest(table_key)
        if found is None and not self.left_join:
            return []
        return [(key, value, None if found is None else found[0], ts, False)]

    def _joins(self, key: str | None, table_key: str | None) -> bool:
        """Whether a stream record with a value is looked up, by the era's null rules (spec GT-4, GT-5)."""
        era = self.era
        if not era.global_join_drops_by_mapped_key:
            # up to 2.6 the processor tests the stream key; a null mapped key is then "no match" (1.0.1+)
            if key is None:
                return False
            if table_key is None and era.null_mapped_key_fails_global_join:
                raise NullMappedKeyError("a null mapped key fails the join before Kafka 1.0.1 (spec GT-4)")
            return True
        # 2.7+ (KAFKA-10277) the mapped key: kept when it is not null; a null one only by a left join that
        # keeps it, every such record from 4.0.1 (KAFKA-19208), a null-key one from 3.7 (KIP-962)
        if table_key is not None:
            return True
        if not self.left_join:
            return False
        return bool(era.global_left_join_keeps_null_mapped_keys) or (
            key is None and bool(era.left_joins_forward_null_keys)
        )
