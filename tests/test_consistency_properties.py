"""Consistency properties of Kafka Streams joins (seed 002, "Join Processing"), checked on the oracle.

Seed 002 claims two kinds of eventual consistency:

* KTable-KTable: with ``t = f(T)`` the materialization of a changelog ``T``,
  ``join(f(T1), f(T2)) = f(join(T1, T2))`` for inner, left and outer joins.
* KStream-KStream: with ``s = g(S)`` the set of records of a stream, ``innerJoin(s1, s2) = g(innerJoin(S1,
  S2))`` within a window: the inner join does not depend on the order in which records arrive.

Each property runs once per era of the behaviour table (``oracle.behaviour.ERAS``), restricted to the
inputs for which the claim holds in that era; the docstrings say where and why.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable

import pytest
from hypothesis import given
from hypothesis import strategies as st
from msgspec.structs import replace

from kjoin.conformance.differential.profiles import active_profile
from kjoin.oracle import ERAS, JoinSpec, Output, Record, Versioning, Window, behaviour_for, run
from kjoin.oracle.records import Key, Value, Variant
from kjoin.strategies import histories, join_specs
from support.tiers import smoke_ends, tier_property_settings
from support.vacuity import exercised, witness

# Both tiers (support.tiers): the default tier runs each property for the oldest and the newest era it is
# about (smoke_ends) with fewer examples; the system tier every era at the profile's size.
pytestmark = pytest.mark.scaled

CONSISTENCY = tier_property_settings(active_profile())
"""The active fuzzing profile's examples per era (ci: 30, deep: 1,000; at most 15 in the default tier),
derandomized: the same examples on every run, so a failure reproduces."""

ERA_VERSIONS = [behaviour.era for behaviour in ERAS.values()]
VERSIONED_ERA_VERSIONS = [version for version in ERA_VERSIONS if behaviour_for(version).has_versioned_stores]

BIG_HISTORY_MS = 10_000
"""Versioned-store history far beyond the generated timestamps (0..100): no put is ever rejected (spec
VS-3)."""

STREAM_MAX_TS = 20
"""Stream records get timestamps in 0..20 and two keys, so that most histories have pairs within the
0..20 join windows (with 0..100 and three keys, four in five histories joined nothing)."""

BIG_GRACE_MS = 10_000
"""Stream-stream grace far beyond the generated timestamps: no window-store record ever expires (spec
SS-7)."""


def _materialize(updates: Iterable[tuple[Key, Value]]) -> dict[Key, object]:
    """``f`` of seed 002: apply a changelog in order; a null value (tombstone) deletes the key."""
    table: dict[Key, object] = {}
    for key, value in updates:
        if value is None:
            table.pop(key, None)
        else:
            table[key] = value
    return table


def _side_table(history: Iterable[Record], side: str) -> dict[Key, object]:
    """The final table of one side; null-key updates are skipped (KIP-77, spec TT-9)."""
    return _materialize((r.key, r.value) for r in history if r.side == side and r.key is not None)


def _materialize_outputs(outputs: Iterable[Output]) -> dict[Key, object]:
    return _materialize((o.key, o.value) for o in outputs)


Table = dict[Key, object]


def _relational_join(left: Table, right: Table, variant: Variant) -> Table:
    """The relational (SQL) equi-join of two keyed tables, as ``key -> (left value, right value)``."""
    if variant == "inner":
        keys = left.keys() & right.keys()
    elif variant == "left":
        keys = set(left)
    else:
        keys = left.keys() | right.keys()
    return {key: (left.get(key), right.get(key)) for key in keys}


def _table_histories(version: str, *, in_order: bool) -> st.SearchStrategy[tuple[Record, ...]]:
    """Table updates with tombstones; null keys too where Kafka skips them (0.10.2+), not where a null key
    makes the join fail (0.10.0/0.10.1 throw ``StreamsException``, spec TT-9)."""
    null_keys = not behaviour_for(version).null_key_fails_table_join
    return histories(min_size=2, in_order=in_order, null_keys=null_keys, null_values=True)


def _assert_join_commutes_with_materialization(
    spec: JoinSpec, history: tuple[Record, ...], version: str
) -> None:
    outputs = run(spec, history, behaviour_for(version))
    expected = _relational_join(_side_table(history, "left"), _side_table(history, "right"), spec.variant)
    witness("rows", bool(expected), len(expected))
    assert _materialize_outputs(outputs) == expected, (outputs, history)


@pytest.mark.parametrize("version", smoke_ends(ERA_VERSIONS))
@exercised(rows=0.3)
@CONSISTENCY
@given(spec=join_specs("table-table"), data=st.data())
def test_table_table_join_commutes_with_materialization_in_order(
    version: str, spec: JoinSpec, data: st.DataObject
) -> None:
    """Seed 002: ``join(f(T1), f(T2)) = f(join(T1, T2))`` for in-order updates, several keys and tombstones.

    Holds in every era. 0.10.2+ (KIP-77) forwards only what changes the result (spec TT-4, TT-5, TT-6, TT-7);
    0.10.0/0.10.1 forward a result for every update, a tombstone whenever there is nothing to join, which
    materializes to the same table (deleting an absent key is a no-op).
    """
    history = data.draw(_table_histories(version, in_order=True))
    _assert_join_commutes_with_materialization(spec, history, version)


@pytest.mark.parametrize("version", smoke_ends(ERA_VERSIONS))
@exercised(rows=0.3)
@CONSISTENCY
@given(spec=join_specs("table-table"), data=st.data())
def test_table_table_join_commutes_with_materialization_out_of_order_unversioned(
    version: str, spec: JoinSpec, data: st.DataObject
) -> None:
    """Seed 002, "a late arrival in either stream can update the join result": with unversioned tables the
    property holds for any timestamps, because both the tables and the join follow offset order
    (seed 004 "Background"; spec TT-1, ST-5). Timestamps only change the output timestamps."""
    history = data.draw(_table_histories(version, in_order=False))
    _assert_join_commutes_with_materialization(spec, history, version)


@pytest.mark.parametrize("version", smoke_ends(VERSIONED_ERA_VERSIONS))
@exercised(rows=0.3)
@CONSISTENCY
@given(
    spec=join_specs("table-table"),
    versioned_sides=st.sampled_from([(True, True), (True, False), (False, True)]),
    data=st.data(),
)
def test_table_table_join_commutes_with_materialization_in_order_versioned(
    version: str, spec: JoinSpec, versioned_sides: tuple[bool, bool], data: st.DataObject
) -> None:
    """Seed 002 with versioned tables (3.5+, KIP-914): for in-order updates within history retention no
    update is out-of-order or rejected (spec VS-3, VS-5), so versioned tables materialize like
    unversioned ones and the property holds as in the unversioned case.

    Out-of-order updates are left out on purpose: a versioned side then follows timestamp order, except for
    the equal-timestamp tombstone rule of spec VS-7, which a plain "latest by timestamp" table does not model.
    """
    history = data.draw(_table_histories(version, in_order=True))
    left, right = versioned_sides
    spec = replace(spec, versioned=Versioning(left=left, right=right, history_ms=BIG_HISTORY_MS))
    _assert_join_commutes_with_materialization(spec, history, version)


def _joined_pairs(outputs: Iterable[Output], *, with_ts: bool) -> Counter[tuple[object, ...]]:
    """The multiset ``g(...)`` of seed 002: joined results as (key, value[, ts]), order forgotten."""
    return Counter((o.key, o.value, o.ts) if with_ts else (o.key, o.value) for o in outputs)


@st.composite
def _stream_join_cases(
    draw: st.DrawFn, version: str
) -> tuple[JoinSpec, tuple[Record, ...], tuple[Record, ...]]:
    """A stream-stream inner join spec, a history and a reordering of the same records.

    Stores are in-memory or RocksDB where the era offers both (2.4+, ``StreamJoined``). Windows are
    legacy (``JoinWindows.of``, one day of retention) or, where grace exists (2.1+), given a grace far
    beyond the generated timestamps: every record stays in its window store, so arrival order is
    the only thing that changes between the two runs.
    """
    behaviour = behaviour_for(version)
    graces = [None, BIG_GRACE_MS] if behaviour.join_windows_have_grace else [None]
    grace = draw(st.sampled_from(graces))
    stores = ["memory", "rocksdb"] if behaviour.stream_joins_can_use_in_memory_stores else ["rocksdb"]
    spec = draw(join_specs("stream-stream", variants=["inner"], stores=stores, grace=grace))
    history = draw(
        histories(
            min_size=2,
            in_order=False,
            max_ts=STREAM_MAX_TS,
            max_keys=2,
            null_keys=True,
            null_values=not behaviour.null_stream_values_are_joined,
        )
    )
    reordered = tuple(draw(st.permutations(history)))
    return spec, history, reordered


def _windowed_inner_join(history: Iterable[Record], window: Window) -> list[Output]:
    """``innerJoin(s1, s2)`` of seed 002 on the record *sets*: every left/right pair with the same non-null
    key and non-null values whose timestamps satisfy ``l.ts - before <= r.ts <= l.ts + after``
    (spec SS-2), with the 2.3+ result timestamp ``max(l.ts, r.ts)``. ``cause`` is unused (-1)."""
    lefts = [r for r in history if r.side == "left" and r.key is not None and r.value is not None]
    rights = [r for r in history if r.side == "right" and r.key is not None and r.value is not None]
    return [
        Output(key=left.key, value=(left.value, right.value), ts=max(left.ts, right.ts), cause=-1)
        for left in lefts
        for right in rights
        if left.key == right.key and left.ts - window.before <= right.ts <= left.ts + window.after
    ]


@pytest.mark.parametrize("version", smoke_ends(ERA_VERSIONS))
@exercised(joined=0.3)
@CONSISTENCY
@given(data=st.data())
def test_stream_stream_inner_join_is_independent_of_arrival_order(version: str, data: st.DataObject) -> None:
    """Seed 002: ``innerJoin(s1, s2) = g(innerJoin(S1, S2))``: the multiset of joined pairs equals the
    windowed join of the two record sets, so it does not depend on the order in which records arrive, as
    long as all of them stay within store retention.

    Holds in every era, with two restrictions where Kafka really differs:

    * Output timestamps are compared only where a joined result carries ``max(left ts, right ts)`` (2.3+,
      KAFKA-6455); before, it carries the ts of whichever record arrived second (spec SS-4).
    * In 0.10.0/0.10.1 a null-value record probes the other side and is joined but never stored
      (spec SS-11), so its results depend on order: those eras get no null values here (see
      ``test_stream_stream_inner_join_with_null_values_depends_on_order_before_kip77``).
    """
    spec, history, reordered = data.draw(_stream_join_cases(version))
    assert spec.window is not None
    behaviour = behaviour_for(version)
    with_ts = behaviour.stream_join_ts_is_max_of_inputs
    in_order = _joined_pairs(run(spec, history, behaviour), with_ts=with_ts)
    shuffled = _joined_pairs(run(spec, reordered, behaviour), with_ts=with_ts)
    relational = _joined_pairs(_windowed_inner_join(history, spec.window), with_ts=with_ts)
    witness("joined", bool(relational), sum(relational.values()))
    assert in_order == relational, history
    assert shuffled == relational, reordered


@pytest.mark.parametrize("version", ["0.10.0", "0.10.1"])
def test_stream_stream_inner_join_with_null_values_depends_on_order_before_kip77(version: str) -> None:
    """The counterexample that restricts the property above in 0.10.0/0.10.1: a null-value left record is
    joined with right records already stored (``null - R0``) but is never stored itself, so a right record
    arriving after it finds nothing (spec SS-11; KIP-77 table "Old Join Semantics", ts 7 and 12)."""
    spec = JoinSpec(join="stream-stream", variant="inner", window=Window(before=10, after=10))
    null_first = (Record("left", "k1", None, 1), Record("right", "k1", "R0", 2))
    right_first = (null_first[1], null_first[0])
    behaviour = behaviour_for(version)
    assert run(spec, null_first, behaviour) == []
    assert [(o.key, o.value) for o in run(spec, right_first, behaviour)] == [("k1", (None, "R0"))]
