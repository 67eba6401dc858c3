"""The KTable-KTable foreign-key join (KIP-213) of one Kafka task, as Kafka Streams' processors run it.

A left change goes through the *subscription send* processor (``SubscriptionSendProcessorSupplier``),
which turns ``(new, old)`` into subscription messages ``(fk, pk, instruction, hash of new)``. The right
side's *subscription receive/join* processors store or delete the subscription ``(fk, pk)`` and answer
from the right table; a right change answers every subscriber of its key (``ForeignTableJoinProcessor``),
in primary-key byte order. Each response is resolved on the left side by the *response join*: dropped
unless its hash is the hash of the left row's current value, else a join or a tombstone (spec FK-1 to
FK-13). Every message an input record causes is handled before the next record, so the results come out
in Kafka's order for that record.

In production the join spans two tasks (spec TK-3): the left table and the response join are
partitioned by primary key, the subscription store and the right table by foreign key, with repartition
topics between them. Here the catalogue's scenarios are single-partition and the whole flow runs in one
task; a production port needs two stateful operators with a repartition (by ``fk``, then back by ``pk``)
between them.
"""

from __future__ import annotations

import hashlib
from typing import Any

from kjoin.conformance.candidates.stateful.state import StoreView
from kjoin.conformance.candidates.stateful.versioned import PlainTable

__all__ = ["ForeignKeyJoinTask", "foreign_key"]

Emit = tuple[Any, Any, Any, int, bool]
"""``(key, left value, right value, ts, tombstone)``."""

DELETE_NO_PROPAGATE = "DELETE_KEY_NO_PROPAGATE"
DELETE_AND_PROPAGATE = "DELETE_KEY_AND_PROPAGATE"
PROPAGATE_NULL = "PROPAGATE_NULL_IF_NO_FK_VAL_AVAILABLE"
PROPAGATE_ONLY = "PROPAGATE_ONLY_IF_FK_VAL_AVAILABLE"

Message = tuple[str | None, str]
"""A subscription message's foreign key and instruction (the pk, hash and ts are the left record's)."""


def foreign_key(value: str, extractor: str) -> str | None:
    """The scenario's extractor (spec FK-2): ``colon-prefix`` takes the text before the first ``:``,
    ``pipe-suffix`` the text after the last ``|``; an empty key is a null foreign key."""
    fk = value.rpartition("|")[2] if extractor == "pipe-suffix" else value.partition(":")[0]
    return fk or None


def value_hash(value: str | None) -> str | None:
    """The hash a subscription carries: 128 bits of the serialized value (Kafka: Murmur3), null for a
    deleted row."""
    return None if value is None else hashlib.blake2b(value.encode("utf-8"), digest_size=16).hexdigest()


class ForeignKeyJoinTask:
    """``left.join|leftJoin(right, extractor, joiner)``; ``era`` is ``kjoin.oracle.behaviour``'s flags."""

    def __init__(self, variant: str, extractor: str, left: PlainTable, right: PlainTable,
                 subscriptions: StoreView, era: Any) -> None:  # fmt: skip
        self.left_join = variant == "left"
        self.extractor = extractor
        self.left, self.right = left, right
        self.subscriptions = subscriptions
        self.keeps_null_fks = self.left_join and bool(era.fk_left_join_keeps_null_foreign_keys)
        self.repeats = bool(era.fk_left_join_repeats_results)
        # before 3.7 a left join skips null foreign keys and re-answers unchanged ones (the old design)
        self.skips_null_fks = self.left_join or bool(era.fk_inner_join_skips_null_foreign_key_changes)
        unchanged = era.fk_inner_join_tombstones_unchanged_foreign_keys
        self.tombstones_unchanged = self.left_join or bool(unchanged)

    def process(self, side: str, key: str | None, value: str | None, ts: int) -> list[Emit]:
        if key is None:  # FK-3: dropped by the table source
            return []
        if side == "right":
            return self._right_change(key, value, ts)
        change = self.left.update(key, value, ts)
        if change is None or not change[1]:  # FK-11: rejected or not the latest: nothing is sent
            return []
        out: list[Emit] = []
        digest = value_hash(value)
        for fk, instruction in self._instructions(change[0], value):
            response = self._subscription(fk, key, instruction, digest, ts)
            if response is not None:
                out.extend(self._resolve(key, *response))
        return out

    # --- the subscription send processor (left side) ---------------------------------------------------

    def _instructions(self, old: str | None, new: str | None) -> list[Message]:
        """FK-4, FK-5, FK-12, FK-13: the messages of a left change ``(new, old)``, in order."""
        o = None if old is None else foreign_key(old, self.extractor)
        n = None if new is None else foreign_key(new, self.extractor)
        if self.keeps_null_fks:  # 3.7+ left joins (KIP-962)
            if old is None:
                return [] if new is None else [(n, PROPAGATE_NULL)]
            if o is not None and n != o:
                first = DELETE_AND_PROPAGATE if self.repeats else DELETE_NO_PROPAGATE
                return [(o, first), (n, PROPAGATE_NULL)]
            return [(n, PROPAGATE_NULL)]
        if old is None or o is None:
            if old is not None and self.skips_null_fks:
                return []
            if new is None or n is None:
                return []
            return [(n, PROPAGATE_NULL if self.left_join else PROPAGATE_ONLY)]
        if new is None:
            return [(o, DELETE_AND_PROPAGATE)]
        if n is None:
            return [] if self.skips_null_fks else [(o, DELETE_AND_PROPAGATE)]
        if n != o:
            return [(o, DELETE_NO_PROPAGATE), (n, PROPAGATE_NULL)]
        return [(n, PROPAGATE_NULL if self.tombstones_unchanged else PROPAGATE_ONLY)]

    # --- the subscription receive and join processors (right side) -------------------------------------

    def _subscription(self, fk: str | None, pk: str, instruction: str, digest: str | None,
                      ts: int) -> tuple[str | None, str | None, int] | None:  # fmt: skip
        """FK-6: update the subscription store, answer from the right table: ``(hash, right value, ts)``
        or nothing. A message for a null foreign key is not stored and answered with a null value."""
        if fk is None:
            if instruction != PROPAGATE_NULL:
                return None
            return digest, None, ts
        if instruction in (DELETE_NO_PROPAGATE, DELETE_AND_PROPAGATE):
            self.subscriptions.remove((fk, pk))
        else:
            self.subscriptions.put((fk, pk), (digest, ts))
        found = self.right.latest(fk)
        out_ts = ts if found is None else max(ts, found[1])
        if instruction == DELETE_AND_PROPAGATE:
            return digest, None, out_ts
        if instruction == PROPAGATE_NULL or (instruction == PROPAGATE_ONLY and found is not None):
            return digest, None if found is None else found[0], out_ts
        return None

    def _right_change(self, fk: str, value: str | None, ts: int) -> list[Emit]:
        """FK-8: a right change answers every subscriber of ``fk`` (primary-key byte order) at its own ts."""
        change = self.right.update(fk, value, ts)
        if change is None or not change[1]:  # FK-11
            return []
        subscribers = sorted((entry for entry in self.subscriptions if entry[0] == fk),
                             key=lambda entry: str(entry[1]).encode("utf-8"))  # fmt: skip
        out: list[Emit] = []
        for entry in subscribers:
            stored = self.subscriptions.entries[entry]
            digest = None if stored[0] is None else str(stored[0])
            out.extend(self._resolve(str(entry[1]), digest, value, ts))
        return out

    # --- the response join processor (left side) -------------------------------------------------------

    def _resolve(self, pk: str, digest: str | None, right: str | None, ts: int) -> list[Emit]:
        """FK-7: drop a stale response, else a tombstone or ``joiner(current, right)``."""
        current = self.left.latest(pk)
        value = None if current is None else current[0]
        if value_hash(value) != digest:
            return []
        if right is None and (not self.left_join or value is None):
            return [(pk, None, None, ts, True)]
        return [(pk, value, right, ts, False)]
