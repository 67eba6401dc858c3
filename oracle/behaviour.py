"""Kafka Streams join behaviour as named flags, and the era table that sets them per version.

The join modules read flags (``if behaviour.left_join_is_symmetric:``), never version numbers
(docs/semantics/eras.md). Version numbers appear only in ``ERAS`` below and in the version registry after it
(``NEWEST_PATCHES``; docs/semantics/eras.md, "Known releases"). Each era is built from the one before with
``msgspec.structs.replace``, so the table reads as the changelog of Kafka's join semantics.

Flags listed in ``BUG_FLAGS`` model places where real Kafka departs from its documented semantics.
They are on for the affected versions, so by default the oracle says what that Kafka really does;
``behaviour_for(version, intended=True)`` turns them off and gives the documented semantics.
"""

from __future__ import annotations

import re
from functools import cache
from typing import Any

import msgspec
from msgspec.structs import replace

from kjoin.errors import KjoinError

__all__ = [
    "BUG_FLAGS",
    "CAPABILITY_FLAGS",
    "ERAS",
    "FAILURE_FLAGS",
    "NEWEST_CHECKED",
    "NEWEST_PATCHES",
    "PRODUCTION_FLAGS",
    "READ_ONLY_WHERE",
    "SELF_JOIN_FLAGS",
    "Behaviour",
    "UnknownVersionError",
    "behaviour_for",
    "era_of",
    "flags_in_force",
    "known_version",
    "one_release_per_era",
    "parse_version",
    "release_of",
    "version_problem",
]

DAY_MS = 24 * 60 * 60 * 1000


class Behaviour(msgspec.Struct, frozen=True, gc=False):
    """The join semantics of one Kafka Streams era. Every flag cites where it comes from.

    A frozen ``msgspec.Struct`` (docs/kafka.md, "The oracle's other types as structs"): it compares, hashes,
    pickles and prints as a frozen dataclass would, and ``msgspec.structs.replace`` copies it."""

    era: str
    """Label of the era (the first version that behaves like this), for messages and reports only."""

    # --- stream-stream and stream-table: null handling -------------------------------------------
    null_stream_values_are_joined: bool
    """0.10.0/0.10.1: a stream record with a null value still probes the other side and is joined
    (``joiner(null, other)``; left/outer with no match gives ``joiner(null, null)``); it is never stored.
    KIP-77 (0.10.2) drops null-value stream records. spec SS-11, ST-4."""

    null_key_fails_left_stream_join: bool
    """0.10.0 only: ``KStream#leftJoin(KStream)`` wires the left stream straight to the join processor,
    which throws ``StreamsException`` on a null key. spec SS-10."""

    left_joins_forward_null_keys: bool
    """KIP-962 (3.7, KAFKA-12317/KAFKA-14748): a null-key record with a non-null value on the preserved
    side of a left/outer stream-stream join, or on the stream of a left stream-table join, is forwarded
    at once as ``joiner(v, null)`` / ``joiner(null, v)`` with key null and its own ts. Before 3.7 null keys
    are dropped. A left stream-globaltable join keeps such a record too and looks up its mapped key (source
    ``KStreamKTableJoinProcessor#maybeDropRecord``, commit b5c2497). spec SS-10, ST-4, GT-5."""

    null_records_advance_stream_time: bool
    """3.7+: the stream-stream join advances its shared stream time before the null-key/null-value
    checks, so dropped records still move stream time (side effect of KIP-962). spec SS-17."""

    # --- stream-stream ----------------------------------------------------------------------------
    left_join_is_symmetric: bool
    """KIP-77 (0.10.2, KAFKA-4001): both sides of a left stream-stream join probe the other side.
    Before, only left records probe; right records are only stored. spec SS-12."""

    stream_join_ts_is_max_of_inputs: bool
    """2.3 (KAFKA-6455): a joined stream-stream result carries ``max(left ts, right ts)``; before, the
    triggering record's ts. Non-joined results always carry their own record's ts. spec SS-4, SS-5."""

    join_windows_have_grace: bool
    """2.1 (KIP-328): ``JoinWindows#grace`` exists and the window stores retain ``before + after + grace``;
    before 2.1 they retain ``max(1 day, before + after)`` and no grace can be given.
    spec SS-6, SS-15."""

    has_spurious_free_outer_joins: bool
    """3.1 (KAFKA-10847/KAFKA-12909): ``JoinWindows.ofTimeDifferenceAndGrace`` exists and makes left/outer
    stream-stream joins hold non-joined records until the window plus grace closes ("spurious-free").
    3.0 ships the code disabled and has no such API: a given grace means ``of(d).grace(g)``, eager.
    Includes the asymmetric look-back fix of the 3.1 branch head (KAFKA-13721). spec SS-14, SS-23."""

    outer_join_closes_each_side_by_its_own_bound: bool
    """3.8 (KAFKA-15417): a held left record closes when stream time > ts + after + grace and a held
    right record when stream time > ts + before + grace; 3.1-3.7 close every held record with the
    triggering processor's bound and stop at the first open one. spec SS-22, SS-23."""

    outer_join_min_time_is_last_visited: bool
    """BUG, 3.8+ (spec SS-24, SS-25, golden README): after an emission pass the processor
    keeps the ts of the last held record it visited, not the earliest still waiting, so closed records
    can wait for later trigger records. Intended: the earliest record still held."""

    outer_join_emit_throttle_resyncs_to_wall_clock: bool
    """3.5 (KAFKA-13817): each emission pass the throttle lets through sets the next time to emit to the wall
    clock plus the emit interval; 3.1-3.4 only the first pass does, and each later one adds the interval to
    the previous next time, so after a long wall-clock advance every trigger record runs a pass until it
    catches up. Only an emit interval above 0 (``Settings.emit_interval_ms``) makes it matter. spec PR-2."""

    rocksdb_window_expiry_is_exact: bool
    """3.4 (KAFKA-12960 follow-up): RocksDB window stores filter expired records exactly; before, they
    expire whole segments (segment interval ``max(retention / 2, 60 s)``). In-memory stores are always
    exact. spec SS-7, SS-8."""

    rocksdb_segments_expire_by_retention: bool
    """2.1 (KAFKA-7072): a RocksDB window store keeps the segments from ``(observed - retention) / interval``
    on; before, it keeps a fixed three segments (the newest and the two before it). The two differ only when
    the retention is odd (``before + after`` odd and over a day). spec SS-8."""

    rocksdb_join_stores_skip_null_values: bool
    """2.5.1/2.6 (KAFKA-9921): a RocksDB join window store (retained duplicates) ignores a null-value put
    entirely; before, the put (a no-op delete) still advanced the store's observed time and rolled its
    segments, like the in-memory store always does. spec SS-9."""

    stream_joins_can_use_in_memory_stores: bool
    """2.4 (KIP-479, KAFKA-8558 ``StreamJoined``): a stream-stream join can be given in-memory window
    stores; before, its stores are always RocksDB. spec SS-9."""

    legacy_join_grace_is_set_by_of: bool
    """3.0 (KIP-633, KAFKA-13021): with no grace given, ``JoinWindows.of(before)`` fixes the grace at
    ``max(24 h - 2 * before, 0)`` and ``.after()`` keeps it; 2.1-2.8 derive it as ``max(1 day, before + after)
    - (before + after)``, so asymmetric windows retain a different span. spec SS-15."""

    self_join_is_rewritten_by_optimization: bool
    """KAFKA-14209 (3.4.0): with ``topology.optimization=all`` the optimizer rewrites every stream-stream join
    of a stream with itself (``s.join|leftJoin|outerJoin(s, ...)``, whatever the variant and window) into one
    ``KStreamKStreamSelfJoin`` processor over one window store: inner-join results only, each record also
    joined with itself. Before 3.4, and with optimization off, the join keeps its two window stores.
    Only self-join scenarios read it (``SELF_JOIN_FLAGS``). spec SJ-1 to SJ-6."""

    # --- stream-table -----------------------------------------------------------------------------
    has_stream_table_inner_join: bool
    """KIP-77 (0.10.2): ``KStream#join(KTable)`` exists; 0.10.0/0.10.1 only have the left join.
    spec ST-3."""

    has_stream_table_grace: bool
    """KIP-923 (3.6): ``Joined#withGracePeriod`` buffers stream records by time before the lookup;
    requires a versioned table. spec ST-7, ST-8."""

    # --- stream-globaltable -----------------------------------------------------------------------
    has_global_table_joins: bool
    """KIP-99 (0.10.2, KAFKA-4490): ``StreamsBuilder#globalTable`` and ``KStream#join/leftJoin(GlobalKTable,
    KeyValueMapper, ValueJoiner)``. spec GT-1."""

    null_mapped_key_fails_global_join: bool
    """0.10.2-1.0.0: the join looks a null mapped key up in the global store, which throws (the stream thread
    dies). KAFKA-6378 (1.0.1, 1.1.0) makes a null mapped key "no match". spec GT-4."""

    global_join_drops_by_mapped_key: bool
    """KAFKA-10277 (2.7.0): the stream-globaltable join drops a record whose *mapped* key is null (also in a
    left join, which before joined it with null) and joins a null-key record whose mapped key is not null
    (before, every null-key record was dropped). spec GT-4."""

    global_left_join_keeps_null_mapped_keys: bool
    """KAFKA-19208 (4.0.1, 4.1.0; not in 3.9.x): a left stream-globaltable join emits ``joiner(v, null)`` for
    a record whose mapped key is null, whatever its key (KIP-962 as specified; 3.7-4.0.0 kept only null-key
    records). spec GT-5."""

    # --- table-table ------------------------------------------------------------------------------
    table_joins_forward_every_update: bool
    """0.10.0/0.10.1: every table update forwards a result, a tombstone when there is nothing to join.
    KIP-77 (0.10.2) forwards only when needed. spec TT-3."""

    null_key_fails_table_join: bool
    """0.10.0/0.10.1: a null-key update reaching a KTable-KTable join processor throws ``StreamsException``
    (Kafka fails on the input). From KIP-77 (0.10.2) null keys are skipped. spec TT-9."""

    table_join_ts_is_max_of_inputs: bool
    """2.3 (KIP-258 timestamped stores): a table-table result carries ``max(record ts, other side's
    stored ts)`` when the other side exists; before, the triggering record's ts. spec TT-8."""

    # --- record caches (production settings) ------------------------------------------------------
    record_cache_skips_deletes_of_absent_keys: bool
    """2.2 (KAFKA-7652 part III; the era table places it at 2.3, its next era): a cache flush forwards nothing
    for a delete of a key the store below does not hold, so with caching on a table join never sees a
    tombstone of an absent key. The oracle models caches only where this is on; before 2.2 a flush forwards
    every dirty entry. Only ``Settings.cache_max_bytes`` above 0 makes it matter. spec PR-6."""

    thread_cache_size_is_a_running_total: bool
    """3.4 (KAFKA-14415 "Faster ThreadCache"): the thread's record cache keeps its size as a running total
    that an operation on one store's cache updates when the operation returns, so an eviction's flush, and
    the reads and writes it causes in other stores' caches, still count the evicted entries; before, the size
    is the sum of the stores' caches when it is read. Only a cache that fills up between commits
    (``Settings.commit_interval_ms`` above 0) makes it matter. spec PR-9."""

    # --- versioned stores -------------------------------------------------------------------------
    has_versioned_stores: bool
    """KIP-889/KIP-914 (3.5): tables can be materialized in versioned stores; joins then use timestamped
    lookups (stream-table) and drop out-of-order updates of a versioned side (table-table, FK).
    spec VS-1, ST-6, TT-10, FK-11."""

    # --- foreign-key ------------------------------------------------------------------------------
    has_foreign_key_join: bool
    """KIP-213 (2.4): ``KTable#join/leftJoin(KTable, foreignKeyExtractor, joiner)``. spec FK-1."""

    fk_left_join_keeps_null_foreign_keys: bool
    """KIP-962 (3.7): a left FK join emits ``joiner(left, null)`` for a left row whose foreign key is null
    (and retracts its old subscription); before, such rows are skipped. spec FK-5."""

    fk_left_join_repeats_results: bool
    """BUG KAFKA-16394, 3.7.0-3.9.0 and 4.0.0 (fixed in 3.9.1, 4.0.1, 4.1.0): a left FK join sends
    ``DELETE_KEY_AND_PROPAGATE`` for the old foreign key on every change, so a foreign-key change emits an
    extra ``[left, null]`` before the new result and a left delete emits its tombstone twice. Intended: one
    result per change. spec FK-5, FK-12; golden ``fk-left-000003@4.0.2`` (fixed) vs ``@3.9`` (bug)."""

    fk_inner_join_skips_null_foreign_key_changes: bool
    """BUG KAFKA-16407 and KAFKA-16434, 2.4-3.9.0 and 4.0.0 (fixed in 3.9.1, 4.0.1, 4.1.0): an inner FK join
    skips a left update whose old or new foreign key is null: a change from a null foreign key never
    subscribes, and a change to a null foreign key keeps the old result. Intended (and fixed): the first
    subscribes (``PROPAGATE_ONLY_IF_FK_VAL_AVAILABLE``), the second retracts the old subscription with
    ``DELETE_KEY_AND_PROPAGATE`` (a tombstone). spec FK-4, FK-13."""

    fk_inner_join_tombstones_unchanged_foreign_keys: bool
    """2.4-3.9.0 and 4.0.0: an inner FK join answers a left update that keeps its foreign key with
    ``PROPAGATE_NULL_IF_NO_FK_VAL_AVAILABLE``, so an update whose foreign key has no right value emits a
    tombstone every time; from 3.9.1, 4.0.1 and 4.1.0 (the KAFKA-16407 fix) it answers only a join
    (``PROPAGATE_ONLY_IF_FK_VAL_AVAILABLE``). spec FK-4, FK-13; golden ``fk-inner-000001@4.3.1`` (no
    tombstone at ts 80) vs ``@3.9``."""


BUG_FLAGS: frozenset[str] = frozenset(
    {
        "outer_join_min_time_is_last_visited",
        "fk_left_join_repeats_results",
        "fk_inner_join_skips_null_foreign_key_changes",
    }
)
"""Flags that model Kafka bugs; ``intended=True`` turns them off."""


def _eras() -> dict[tuple[int, ...], Behaviour]:
    old = Behaviour(
        era="0.10.0",
        null_stream_values_are_joined=True,
        null_key_fails_left_stream_join=True,
        left_joins_forward_null_keys=False,
        null_records_advance_stream_time=False,
        left_join_is_symmetric=False,
        stream_join_ts_is_max_of_inputs=False,
        join_windows_have_grace=False,
        has_spurious_free_outer_joins=False,
        outer_join_closes_each_side_by_its_own_bound=False,
        outer_join_min_time_is_last_visited=False,
        outer_join_emit_throttle_resyncs_to_wall_clock=False,
        rocksdb_window_expiry_is_exact=False,
        rocksdb_segments_expire_by_retention=False,
        rocksdb_join_stores_skip_null_values=False,
        stream_joins_can_use_in_memory_stores=False,
        legacy_join_grace_is_set_by_of=False,
        self_join_is_rewritten_by_optimization=False,
        has_stream_table_inner_join=False,
        has_stream_table_grace=False,
        has_global_table_joins=False,
        null_mapped_key_fails_global_join=True,
        global_join_drops_by_mapped_key=False,
        global_left_join_keeps_null_mapped_keys=False,
        table_joins_forward_every_update=True,
        null_key_fails_table_join=True,
        table_join_ts_is_max_of_inputs=False,
        record_cache_skips_deletes_of_absent_keys=False,
        thread_cache_size_is_a_running_total=False,
        has_versioned_stores=False,
        has_foreign_key_join=False,
        fk_left_join_keeps_null_foreign_keys=False,
        fk_left_join_repeats_results=False,
        fk_inner_join_skips_null_foreign_key_changes=True,
        fk_inner_join_tombstones_unchanged_foreign_keys=True,
    )
    v0101 = replace(old, era="0.10.1", null_key_fails_left_stream_join=False)
    kip77 = replace(
        v0101,
        era="0.10.2",
        null_stream_values_are_joined=False,
        left_join_is_symmetric=True,
        has_stream_table_inner_join=True,
        table_joins_forward_every_update=False,
        null_key_fails_table_join=False,
        has_global_table_joins=True,
    )
    v101 = replace(kip77, era="1.0.1", null_mapped_key_fails_global_join=False)
    v21 = replace(v101, era="2.1", join_windows_have_grace=True, rocksdb_segments_expire_by_retention=True)
    v23 = replace(
        v21,
        era="2.3",
        stream_join_ts_is_max_of_inputs=True,
        table_join_ts_is_max_of_inputs=True,
        record_cache_skips_deletes_of_absent_keys=True,
    )
    v24 = replace(v23, era="2.4", has_foreign_key_join=True, stream_joins_can_use_in_memory_stores=True)
    v251 = replace(v24, era="2.5.1", rocksdb_join_stores_skip_null_values=True)
    v27 = replace(v251, era="2.7", global_join_drops_by_mapped_key=True)
    v30 = replace(v27, era="3.0", legacy_join_grace_is_set_by_of=True)
    v31 = replace(v30, era="3.1", has_spurious_free_outer_joins=True)
    v34 = replace(
        v31,
        era="3.4",
        rocksdb_window_expiry_is_exact=True,
        self_join_is_rewritten_by_optimization=True,
        thread_cache_size_is_a_running_total=True,
    )
    v35 = replace(
        v34, era="3.5", has_versioned_stores=True, outer_join_emit_throttle_resyncs_to_wall_clock=True
    )
    v36 = replace(v35, era="3.6", has_stream_table_grace=True)
    v37 = replace(
        v36,
        era="3.7",
        left_joins_forward_null_keys=True,
        null_records_advance_stream_time=True,
        fk_left_join_keeps_null_foreign_keys=True,
        fk_left_join_repeats_results=True,
    )
    v38 = replace(
        v37,
        era="3.8",
        outer_join_closes_each_side_by_its_own_bound=True,
        outer_join_min_time_is_last_visited=True,
    )
    # The foreign-key fixes of KAFKA-16394/16407/16434 shipped in 3.9.1 and 4.0.1 (and 4.1.0), after 4.0.0 was
    # released without them: version order is not release order, so 4.0.0 has an era of its own.
    fk_fixed = {
        "fk_left_join_repeats_results": False,
        "fk_inner_join_skips_null_foreign_key_changes": False,
        "fk_inner_join_tombstones_unchanged_foreign_keys": False,
    }
    v391 = replace(v38, era="3.9.1", **fk_fixed)
    v400 = replace(v38, era="4.0.0")
    v401 = replace(v391, era="4.0.1", global_left_join_keeps_null_mapped_keys=True)
    return {
        (0, 10, 0): old,
        (0, 10, 1): v0101,
        (0, 10, 2): kip77,
        (1, 0, 1): v101,
        (2, 1): v21,
        (2, 3): v23,
        (2, 4): v24,
        (2, 5, 1): v251,
        (2, 7): v27,
        (3, 0): v30,
        (3, 1): v31,
        (3, 4): v34,
        (3, 5): v35,
        (3, 6): v36,
        (3, 7): v37,
        (3, 8): v38,
        (3, 9, 1): v391,
        (4, 0, 0): v400,
        (4, 0, 1): v401,
    }


ERAS: dict[tuple[int, ...], Behaviour] = _eras()
"""First version of each era -> its behaviour. A version belongs to the latest era not after it."""

_VERSION = re.compile(r"^(\d+)\.(\d+)(?:\.(\d+))?$")


class UnknownVersionError(KjoinError, ValueError):
    """A version string the era table cannot place."""


@cache
def parse_version(version: str) -> tuple[int, ...]:
    """``"0.10.2"`` -> ``(0, 10, 2)``, ``"3.9"`` -> ``(3, 9)``; rejects anything else."""
    match = _VERSION.match(version.strip()) if isinstance(version, str) else None
    if match is None:
        raise UnknownVersionError(f"not a Kafka version: {version!r} (expected e.g. '0.10.1', '3.9')")
    return tuple(int(part) for part in match.groups() if part is not None)


# --- the version registry: which releases the oracle knows, their eras, the newest checked -----------------
# Every part of the project asks these (docs/semantics/eras.md, "Known releases"), none keeps its own list.

NEWEST_PATCHES: dict[str, str] = {
    "2.4": "2.4.1", "2.5": "2.5.1", "2.6": "2.6.3", "2.7": "2.7.2", "2.8": "2.8.2", "3.0": "3.0.2",
    "3.1": "3.1.2", "3.2": "3.2.3", "3.3": "3.3.2", "3.4": "3.4.1", "3.5": "3.5.2", "3.6": "3.6.2",
    "3.7": "3.7.2", "3.8": "3.8.1", "3.9": "3.9.2", "4.0": "4.0.2", "4.1": "4.1.2", "4.2": "4.2.2",
    "4.3": "4.3.1", "4.4": "4.4.0",
}  # fmt: skip
"""Each minor line's newest patch release on Maven Central, each checked against real Kafka Streams
(``kjoin verify``, ``tools/verify_matrix.py``). Lines before 2.4 (no foreign-key joins, no in-memory join
stores) are not listed and take any patch number."""

NEWEST_CHECKED: str = max(NEWEST_PATCHES.values(), key=lambda release: parse_version(release))
"""The newest release checked against real Kafka Streams. Every release after it is refused (one rule,
docs/semantics/eras.md "Known releases"): its semantics are unknown until ``kjoin verify`` has run it."""


def known_version(version: str) -> tuple[int, ...]:
    """``version`` parsed, if the registry knows it: from 0.10.0 (the first joins) up to the newest checked
    release, and within a listed line up to that line's newest checked patch; else ``UnknownVersionError``
    saying why."""
    wanted = parse_version(version)
    reason = _unknown_because(wanted)
    if reason is not None:
        raise UnknownVersionError(f"{version!r} is not a Kafka version the oracle knows: {reason}")
    return wanted


def version_problem(version: object) -> str | None:
    """Why ``version`` is not a Kafka release the registry knows, as the end of a sentence about a field
    (``None`` if it knows it). Exact text only: ``" 3.9"`` is refused, never read as another version."""
    if not isinstance(version, str) or not _VERSION.match(version):
        return "is not a Kafka version (write it like '3.9' or '0.10.1')"
    reason = _unknown_because(parse_version(version))
    return None if reason is None else f"is not a Kafka version the oracle knows: {reason}"


def _unknown_because(wanted: tuple[int, ...]) -> str | None:
    """Why the registry does not know the parsed version ``wanted`` (``None`` if it does)."""
    if wanted < (0, 10, 0):
        return "Kafka Streams has no joins before 0.10.0"
    line = ".".join(map(str, wanted[:2]))
    newest = NEWEST_PATCHES.get(line, NEWEST_CHECKED)
    if _padded(wanted, (0, 0, 0)) <= parse_version(newest):
        return None
    which = "release" if newest == NEWEST_CHECKED else f"{line} release"
    return (
        f"newer than the era table knows (the newest {which} checked against real Kafka Streams is {newest}; "
        "docs/semantics/eras.md)"
    )


def era_of(version: str) -> str | None:
    """The era (its first version, as ``Behaviour.era``) of a known ``version``; ``None`` if the registry
    does not know it."""
    try:
        return behaviour_for(version).era
    except UnknownVersionError:
        return None


def one_release_per_era(since: str = "0.10.0") -> tuple[str, ...]:
    """One release per era, oldest first, from ``since``'s era on: each era's first release, its name."""
    names = [ERAS[first].era for first in sorted(ERAS)]
    return tuple(names[names.index(behaviour_for(since).era) :])


def release_of(version: str) -> str:
    """The release a version names on Maven Central: a listed minor line is its newest patch (``4.3`` ->
    ``4.3.1``), anything else as written (surrounding spaces removed)."""
    version = version.strip()
    return NEWEST_PATCHES.get(version, version)


@cache
def behaviour_for(version: str, *, intended: bool = False) -> Behaviour:
    """The behaviour of Kafka Streams ``version`` (a release the registry knows, ``known_version``); with
    ``intended`` the bug flags are off."""
    wanted = known_version(version)
    behaviour = next(ERAS[first] for first in sorted(ERAS, reverse=True) if first <= _padded(wanted, first))
    if intended:
        off: dict[str, Any] = dict.fromkeys(BUG_FLAGS, False)
        behaviour = replace(behaviour, **off)
    return behaviour


def _padded(version: tuple[int, ...], like: tuple[int, ...]) -> tuple[int, ...]:
    """Compare ``3.9`` with ``0.10.2`` fairly: pad the shorter tuple with zeros."""
    width = max(len(version), len(like))
    return version + (0,) * (width - len(version))


def flag_names() -> list[str]:
    """All behaviour flag names, in declaration order."""
    return [name for name in Behaviour.__struct_fields__ if name != "era"]


_SS, _ST, _TT, _FK, _GT = "stream-stream", "stream-table", "table-table", "fk", "stream-globaltable"

FLAG_JOINS: dict[str, frozenset[str]] = {
    "null_stream_values_are_joined": frozenset({_SS, _ST}),
    "null_key_fails_left_stream_join": frozenset({_SS}),
    "left_joins_forward_null_keys": frozenset({_SS, _ST, _GT}),
    "null_records_advance_stream_time": frozenset({_SS}),
    "left_join_is_symmetric": frozenset({_SS}),
    "stream_join_ts_is_max_of_inputs": frozenset({_SS}),
    "join_windows_have_grace": frozenset({_SS}),
    "has_spurious_free_outer_joins": frozenset({_SS}),
    "outer_join_closes_each_side_by_its_own_bound": frozenset({_SS}),
    "outer_join_min_time_is_last_visited": frozenset({_SS}),
    "outer_join_emit_throttle_resyncs_to_wall_clock": frozenset({_SS}),
    "rocksdb_window_expiry_is_exact": frozenset({_SS}),
    "rocksdb_segments_expire_by_retention": frozenset({_SS}),
    "rocksdb_join_stores_skip_null_values": frozenset({_SS}),
    "stream_joins_can_use_in_memory_stores": frozenset({_SS}),
    "legacy_join_grace_is_set_by_of": frozenset({_SS}),
    "self_join_is_rewritten_by_optimization": frozenset({_SS}),
    "has_stream_table_inner_join": frozenset({_ST}),
    "has_stream_table_grace": frozenset({_ST}),
    "has_global_table_joins": frozenset({_GT}),
    "null_mapped_key_fails_global_join": frozenset({_GT}),
    "global_join_drops_by_mapped_key": frozenset({_GT}),
    "global_left_join_keeps_null_mapped_keys": frozenset({_GT}),
    "table_joins_forward_every_update": frozenset({_TT}),
    "null_key_fails_table_join": frozenset({_TT}),
    "table_join_ts_is_max_of_inputs": frozenset({_TT}),
    "record_cache_skips_deletes_of_absent_keys": frozenset({_TT, _FK}),
    "thread_cache_size_is_a_running_total": frozenset({_TT}),
    "has_versioned_stores": frozenset({_ST, _TT, _FK}),
    "has_foreign_key_join": frozenset({_FK}),
    "fk_left_join_keeps_null_foreign_keys": frozenset({_FK}),
    "fk_left_join_repeats_results": frozenset({_FK}),
    "fk_inner_join_skips_null_foreign_key_changes": frozenset({_FK}),
    "fk_inner_join_tombstones_unchanged_foreign_keys": frozenset({_FK}),
}
"""The join kinds whose outputs each flag can change (reports name only the flags that apply)."""


@cache
def flags_for(join: str) -> tuple[str, ...]:
    """The behaviour flags that apply to ``join``, in declaration order."""
    return tuple(name for name in flag_names() if join in FLAG_JOINS[name])


CAPABILITY_FLAGS: frozenset[str] = frozenset(
    {
        "join_windows_have_grace",
        "stream_joins_can_use_in_memory_stores",
        "has_stream_table_inner_join",
        "has_stream_table_grace",
        "has_global_table_joins",
        "has_versioned_stores",
        "has_foreign_key_join",
        "record_cache_skips_deletes_of_absent_keys",
    }
)
"""Flags that say whether a join, an API or a store exists. Where one is off, the era refuses every input
that needs it, so there is no output for it to change."""

FAILURE_FLAGS: frozenset[str] = frozenset(
    {"null_key_fails_left_stream_join", "null_key_fails_table_join", "null_mapped_key_fails_global_join"}
)
"""Flags that make Kafka fail on an input. Where one is on, the era has no output for that input (the
oracle refuses it, and no candidate is checked on it)."""

READ_ONLY_WHERE: dict[str, tuple[str, bool]] = {
    # outer_store.HeldRecords: the 3.8 walk is the only one that keeps minTime at the last visited record.
    "outer_join_min_time_is_last_visited": ("outer_join_closes_each_side_by_its_own_bound", True),
    # The held records (and their shared stream time) exist only in spurious-free joins.
    "outer_join_closes_each_side_by_its_own_bound": ("has_spurious_free_outer_joins", True),
    "null_records_advance_stream_time": ("has_spurious_free_outer_joins", True),
    "outer_join_emit_throttle_resyncs_to_wall_clock": ("has_spurious_free_outer_joins", True),
    # foreign_key: only the 3.7+ left-join instructions retract with DELETE_KEY_AND_PROPAGATE.
    "fk_left_join_repeats_results": ("fk_left_join_keeps_null_foreign_keys", True),
    # The spurious-free fix needs an ofTimeDifferenceAndGrace window, and a window needs grace for that.
    "has_spurious_free_outer_joins": ("join_windows_have_grace", True),
    # global_table: from 2.7 a null mapped key is dropped before any lookup, so it can no longer fail.
    "null_mapped_key_fails_global_join": ("global_join_drops_by_mapped_key", False),
    # ... and a left join keeps a null mapped key only in that check (before 2.7 it joins it anyway).
    "global_left_join_keeps_null_mapped_keys": ("global_join_drops_by_mapped_key", True),
    # window_store: exact expiry replaces both segment rules.
    "rocksdb_segments_expire_by_retention": ("rocksdb_window_expiry_is_exact", False),
}
"""Flags the join modules read only where another flag has a given value: ``flag -> (other, value)``."""


PRODUCTION_FLAGS: frozenset[str] = frozenset(
    {
        "outer_join_emit_throttle_resyncs_to_wall_clock",
        "record_cache_skips_deletes_of_absent_keys",
        "thread_cache_size_is_a_running_total",
    }
)
"""Flags only production settings (``records.Settings``: a record cache, a commit interval, an emit
throttle) make decisive: under the test driver's settings no input can tell their two values apart."""


SELF_JOIN_FLAGS: frozenset[str] = frozenset({"self_join_is_rewritten_by_optimization"})
"""Flags only a self-join scenario (``JoinSpec.self_join``) reads: no other input can tell their values
apart."""


def flags_in_force(
    join: str, behaviour: Behaviour, *, production: bool = False, self_join: bool = False
) -> tuple[str, ...]:
    """The flags of ``join`` whose value in ``behaviour``'s era can change an output: every flag that applies
    to ``join`` except a capability the era lacks, a failure the era has, a flag its other flags leave
    unread, unless ``production`` (some input has production settings) the ``PRODUCTION_FLAGS``, and unless
    ``self_join`` (some input is a self-join) the ``SELF_JOIN_FLAGS``."""
    in_force = []
    for name in flags_for(join):
        if name in PRODUCTION_FLAGS and not production:
            continue
        if name in SELF_JOIN_FLAGS and not self_join:
            continue
        if name in CAPABILITY_FLAGS and not getattr(behaviour, name):
            continue
        if name in FAILURE_FLAGS and getattr(behaviour, name):
            continue
        needed = READ_ONLY_WHERE.get(name)
        if needed is not None and getattr(behaviour, needed[0]) != needed[1]:
            continue
        in_force.append(name)
    return tuple(in_force)
