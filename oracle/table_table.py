"""KTable-KTable (equi) join: each side's update is joined with the other side's current value.

spec TT-1. An update of either table is first applied to that table the way ``KTableSource`` does
(``oracle.versioned``), giving a ``Change(new, old, isLatest)``; that side's join processor then looks the
key up in the *other* table (its latest value) and decides what to forward, by the rule tables below:

* 0.10.0/0.10.1 (``_ALWAYS_FORWARD_RULES``): every update forwards something, a tombstone when there is
  nothing to join; the output carries the update's ts. A null key fails the join.
* 0.10.2+ (KIP-77, ``_KIP77_RULES``): forward only when the result changed or must be retracted. Null keys
  are skipped.
* 2.3+ (KIP-258): a result carries ``max(update ts, other side's stored ts)`` when the other side has a value.
* 3.5+ (KIP-914): an update of a versioned side is dropped by its processor when it is not the key's latest
  version, and not forwarded at all when the store rejects it (older than its history, spec TT-10, VS-3).
* With a record cache (production settings, ``oracle.record_cache``): an update of a cached side only
  writes its cache; each commit flushes the left cache, then the right one, and every flushed change runs
  that side's processor as an update would, looking the other side up through its cache. A delete of a key
  a cached side does not hold is never flushed (spec PR-6, PR-7, PR-8).

Outputs are ``(leftValue, rightValue)`` pairs or ``None`` (a tombstone), keyed by the update's key.
"""

from __future__ import annotations

from collections.abc import Callable
from enum import Enum

from kjoin.oracle.behaviour import Behaviour
from kjoin.oracle.errors import UnsupportedJoinError
from kjoin.oracle.record_cache import CachedTable, cached_sources
from kjoin.oracle.records import JoinSpec, Key, Output, Record, Side, Value, Variant, new_output
from kjoin.oracle.thread_cache import ThreadCache
from kjoin.oracle.versioned import PlainTable, VersionedTable, table_for

__all__ = ["TableTableJoin"]


class _Forward(Enum):
    NOTHING = "nothing"
    """A processor decision: forward nothing for this update."""


_NOTHING = _Forward.NOTHING

_Result = tuple[Value, Value] | None | _Forward
"""A processor decision: a ``(left, right)`` pair, ``None`` (a tombstone), or ``_NOTHING``."""

_Rule = Callable[[Value, Value, Value], _Result]
"""One join processor's decision from ``(new value, old value, other side's current value)``."""


_Table = PlainTable | VersionedTable | CachedTable


class _Processor:
    """One side's join processor: its own table, the other side's table, and the rule it applies."""

    __slots__ = ("cache", "drops_out_of_order", "other", "own", "rule")

    def __init__(self, own: _Table, other: _Table, rule: _Rule) -> None:
        self.own = own
        self.other = other
        self.rule = rule
        self.drops_out_of_order = isinstance(own, VersionedTable)
        """KIP-914 (3.5+): a versioned side's processor drops updates that are not the latest (spec TT-10)."""
        self.cache = own if isinstance(own, CachedTable) else None
        """Its own table's record cache: updates wait in it for a flush (spec PR-5)."""


class TableTableJoin:
    """Two KTables joined on their keys; ``spec.variant`` is inner, left or outer (module docstring)."""

    __slots__ = ("_cached", "_index", "_null_key_fails", "_outputs", "_processors", "_ts_is_max")

    def __init__(self, spec: JoinSpec, behaviour: Behaviour) -> None:
        versioning = spec.versioned
        history_ms = versioning.history_ms if versioning is not None else 0
        cached = dict(zip(("left", "right"), cached_sources(spec, behaviour), strict=True))
        thread = ThreadCache(
            spec.settings.cache_max_bytes, running_total=behaviour.thread_cache_size_is_a_running_total
        )
        exact_sizes = spec.settings.commit_interval_ms > 0

        def table(side: Side) -> _Table:
            if cached[side]:
                # The table's cache forwards to its side's processor (built below) when it flushes.
                def forward(key: Key, new: Value, old: Value, ts: int) -> None:
                    self._join(self._processors[side], key, new, old, ts)

                return CachedTable(thread, side, forward, exact_sizes=exact_sizes)
            return table_for(versioning is not None and versioning.of(side), history_ms)

        left, right = table("left"), table("right")
        rules = _ALWAYS_FORWARD_RULES if behaviour.table_joins_forward_every_update else _KIP77_RULES
        self._processors: dict[Side, _Processor] = {
            "left": _Processor(left, right, rules[spec.variant, "left"]),
            "right": _Processor(right, left, rules[spec.variant, "right"]),
        }
        self._cached = [p.cache for p in self._processors.values() if p.cache is not None]
        """The cached tables in flush order: the left table's store is registered first (spec PR-8)."""
        self._null_key_fails = behaviour.null_key_fails_table_join
        self._ts_is_max = behaviour.table_join_ts_is_max_of_inputs
        self._index = 0
        self._outputs: list[Output] = []
        """What the current record or commit has emitted so far, in emission order."""

    def process(self, index: int, record: Record) -> list[Output]:
        """Apply the update to its table, then run that side's join processor (spec TT-1); a cached side
        only writes its cache, which forwards what an eviction flushes (spec PR-5, PR-9)."""
        key, new, ts = record.key, record.value, record.ts
        if key is None:
            if self._null_key_fails:
                raise UnsupportedJoinError(
                    "a null key fails KTable-KTable joins in Kafka 0.10.0/0.10.1 (spec TT-9)"
                )
            return []
        self._index, self._outputs = index, []
        processor = self._processors[record.side]
        if processor.cache is not None:
            processor.cache.update(key, new, ts)
            return self._outputs
        change = processor.own.update(key, new, ts)
        if change is None:
            return []
        old, is_latest = change
        if not is_latest and processor.drops_out_of_order:
            return []
        self._join(processor, key, new, old, ts)
        return self._outputs

    def commit(self, index: int) -> list[Output]:
        """Flush the caches, left then right; each flushed change runs its side's processor (spec PR-8)."""
        self._index, self._outputs = index, []
        for cache in self._cached:
            cache.flush()
        return self._outputs

    def _join(self, processor: _Processor, key: Key, new: Value, old: Value, ts: int) -> None:
        """One side's join processor on ``Change(new, old)`` at ``ts``: look the key up in the other table (a
        read through a cache may evict and emit first) and forward what the rule decides (spec TT-1)."""
        other = processor.other.get(key)
        if other is None:
            result = processor.rule(new, old, None)
        else:
            result = processor.rule(new, old, other[0])
            if self._ts_is_max and other[1] > ts:
                ts = other[1]
        if result is not _NOTHING:
            self._outputs.append(new_output((key, result, ts, self._index)))

    def snapshot(self) -> dict[str, object]:
        """Both tables' contents (versions and observed stream time for a versioned side, the store below and
        the dirty entries for a cached side)."""
        return {
            "left": self._processors["left"].own.snapshot(),
            "right": self._processors["right"].own.snapshot(),
        }


# --- 0.10.0/0.10.1: every update forwards (spec TT-3) ------------------------------------------------------
# The join of the new value with the other side's value, or a tombstone when the join has no result.


def _old_inner_left(new: Value, _old: Value, right: Value) -> _Result:
    """Inner, left update: ``joiner(new, right)`` if both are non-null, else a tombstone."""
    return None if new is None or right is None else (new, right)


def _old_inner_right(new: Value, _old: Value, left: Value) -> _Result:
    """Inner, right update: ``joiner(left, new)`` if both are non-null, else a tombstone."""
    return None if new is None or left is None else (left, new)


def _old_left_left(new: Value, _old: Value, right: Value) -> _Result:
    """Left join, left update: ``joiner(new, right)`` if the new left value is non-null, else a tombstone."""
    return None if new is None else (new, right)


def _old_left_right(new: Value, _old: Value, left: Value) -> _Result:
    """Left join, right update: ``joiner(left, new)`` if the left value is non-null, else a tombstone."""
    return None if left is None else (left, new)


def _old_outer_left(new: Value, _old: Value, right: Value) -> _Result:
    """Outer, left update: ``joiner(new, right)`` if either is non-null, else a tombstone."""
    return None if new is None and right is None else (new, right)


def _old_outer_right(new: Value, _old: Value, left: Value) -> _Result:
    """Outer, right update: ``joiner(left, new)`` if either is non-null, else a tombstone."""
    return None if new is None and left is None else (left, new)


_ALWAYS_FORWARD_RULES: dict[tuple[Variant, Side], _Rule] = {
    ("inner", "left"): _old_inner_left,
    ("inner", "right"): _old_inner_right,
    ("left", "left"): _old_left_left,
    ("left", "right"): _old_left_right,
    ("outer", "left"): _old_outer_left,
    ("outer", "right"): _old_outer_right,
}


# --- 0.10.2+ (KIP-77): forward only when needed (spec TT-4, TT-5, TT-6, TT-7) ------------------------------


def _inner_left(new: Value, _old: Value, right: Value) -> _Result:
    """Inner, left update: nothing while the right side is null; else ``joiner(new, right)``, or a tombstone
    if the new left value is null."""
    if right is None:
        return _NOTHING
    return None if new is None else (new, right)


def _inner_right(new: Value, _old: Value, left: Value) -> _Result:
    """Inner, right update: nothing while the left side is null; else ``joiner(left, new)``, or a tombstone
    if the new right value is null."""
    if left is None:
        return _NOTHING
    return None if new is None else (left, new)


def _left_join_left(new: Value, old: Value, right: Value) -> _Result:
    """Left join, left update: nothing if the left value was and stays null while the right side is null;
    else ``joiner(new, right)`` (right may be null), or a tombstone if the new left value is null."""
    if new is None:
        return _NOTHING if old is None and right is None else None
    return (new, right)


def _left_join_right(new: Value, _old: Value, left: Value) -> _Result:
    """Left join, right update (``KTableKTableRightJoin``): nothing while the left side is null; else
    ``joiner(left, new)``, even when the new right value is null (``A - null``, not a tombstone)."""
    return _NOTHING if left is None else (left, new)


def _outer_left(new: Value, old: Value, right: Value) -> _Result:
    """Outer, left update: with the right side null, nothing if the left value was and stays null, a
    tombstone if it became null, else ``joiner(new, null)``; with the right side present, always
    ``joiner(new, right)`` (``null - b`` when the new left value is null)."""
    if right is None and new is None:
        return _NOTHING if old is None else None
    return (new, right)


def _outer_right(new: Value, old: Value, left: Value) -> _Result:
    """Outer, right update: the mirror image of ``_outer_left`` (``A - null``, tombstone, ``null - b``)."""
    if left is None and new is None:
        return _NOTHING if old is None else None
    return (left, new)


_KIP77_RULES: dict[tuple[Variant, Side], _Rule] = {
    ("inner", "left"): _inner_left,
    ("inner", "right"): _inner_right,
    ("left", "left"): _left_join_left,
    ("left", "right"): _left_join_right,
    ("outer", "left"): _outer_left,
    ("outer", "right"): _outer_right,
}
