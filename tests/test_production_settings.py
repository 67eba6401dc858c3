"""The oracle's model of production settings (docs/semantics/production.md, spec PR-n), as properties.

The outputs of single behaviours are scenario files (``scenarios/*/emit-throttle-*.toml``,
``scenarios/*/record-cache-*.toml``, run by ``kjoin check``). What stays here holds over many generated
inputs, in every era that has the behaviour: the default settings change nothing, the throttle keeps joined
results and only moves, keeps back or drops non-joined ones, and a wall clock that moves by the interval per
record undoes it (spec PR-4); a cache flushed after every record only drops the outputs of deletes of absent
keys (spec PR-6), never changes a stream-table join (spec PR-5), and what the oracle does not model it
refuses (spec PR-7).
"""

from __future__ import annotations

import random
import re
from collections import Counter
from collections.abc import Iterator
from itertools import pairwise

import msgspec
import pytest
from msgspec.structs import replace

from kjoin.oracle import behaviour_for, run
from kjoin.oracle.behaviour import flags_in_force
from kjoin.oracle.engine import processor_for
from kjoin.oracle.errors import UnmodelledSettingsError
from kjoin.oracle.records import JoinSpec, Output, Record, Settings, Versioning, Window

SPURIOUS_FREE_VERSIONS = ("3.1", "3.4", "3.5", "3.7", "3.9", "4.4")
"""One version per era of the spurious-free join, and the newest line."""

INTERVALS = (1, 100, 1000)


def _inputs(seed: int) -> Iterator[tuple[JoinSpec, list[Record]]]:
    """Generated left/outer spurious-free joins: a few keys, timestamps moving mostly forward with some
    out-of-order records, and a wall clock that stays put, moves by less than or more than an interval, or
    is not given for a record (no advance)."""
    rng = random.Random(seed)
    for _ in range(60):
        window = Window(rng.randint(0, 6), rng.randint(0, 6), rng.randint(0, 4))
        spec = JoinSpec("stream-stream", rng.choice(("left", "outer")), window, stores="memory")
        ts = wall = 0
        records = []
        for index in range(rng.randint(1, 24)):
            ts = max(0, ts + rng.randint(-3, 6))
            wall += rng.choice((0, 0, 50, 400, 1000, 2500))
            side = rng.choice(("left", "right"))
            records.append(
                Record(side, rng.choice("abc"), f"v{index}", ts, wall if rng.random() < 0.8 else None)
            )
        yield spec, records


def _with(spec: JoinSpec, **settings: int) -> JoinSpec:
    return replace(spec, settings=Settings(**settings))


def _joined(outputs: list[Output]) -> list[tuple[object, ...]]:
    return [(o.key, o.value, o.ts, o.cause) for o in outputs if o.value is not None and None not in o.value]


def _non_joined(outputs: list[Output]) -> list[Output]:
    return [o for o in outputs if o.value is not None and None in o.value]


@pytest.mark.parametrize("version", SPURIOUS_FREE_VERSIONS)
def test_default_settings_ignore_the_wall_clock(version: str) -> None:
    """Spec PR-2: with the interval at 0 (the default) no pass is skipped, whatever the wall clock says."""
    behaviour = behaviour_for(version)
    for spec, records in _inputs(seed=1):
        without_clock = [Record(r.side, r.key, r.value, r.ts) for r in records]
        assert run(spec, records, behaviour) == run(spec, without_clock, behaviour)


@pytest.mark.parametrize("version", SPURIOUS_FREE_VERSIONS)
@pytest.mark.parametrize("intended", [False, True])
def test_the_throttle_only_delays_or_drops_non_joined_results(version: str, intended: bool) -> None:
    """Spec PR-4: joined results are the same, in the same order and from the same records; every non-joined
    result is a record's own value with its own key and timestamp, emitted at most once per input record;
    values and timestamps never change."""
    behaviour = behaviour_for(version, intended=intended)
    throttled_somewhere = False
    for spec, records in _inputs(seed=2):
        free = run(spec, records, behaviour)
        for interval in INTERVALS:
            throttled = run(_with(spec, emit_interval_ms=interval), records, behaviour)
            assert _joined(throttled) == _joined(free)
            inputs = Counter(
                (r.key, (r.value, None) if r.side == "left" else (None, r.value), r.ts) for r in records
            )
            emitted = Counter((o.key, o.value, o.ts) for o in _non_joined(throttled))
            assert not emitted - inputs, "a non-joined result that is no input record's own"
            throttled_somewhere |= throttled != free
    assert throttled_somewhere, "no generated input was throttled: the generator misses the rule"


@pytest.mark.parametrize("version", SPURIOUS_FREE_VERSIONS)
def test_a_wall_clock_moving_by_the_interval_per_record_undoes_the_throttle(version: str) -> None:
    """Spec PR-4: when each record comes at least one interval after the one before, every pass runs."""
    behaviour = behaviour_for(version)
    for spec, records in _inputs(seed=3):
        for interval in INTERVALS:
            paced = [
                msgspec.structs.replace(r, wall_clock=i * interval + i // 3) for i, r in enumerate(records)
            ]
            assert run(_with(spec, emit_interval_ms=interval), paced, behaviour) == run(
                spec, records, behaviour
            )


@pytest.mark.parametrize("version", SPURIOUS_FREE_VERSIONS)
def test_without_wall_clock_advance_only_the_first_pass_runs(version: str) -> None:
    """Spec PR-2: the first pass sets the next time to emit to the interval, which a wall clock that never
    moves does not reach: every non-joined result not emitted at once by its own record (spec SS-20) comes
    from one pass."""
    behaviour = behaviour_for(version)
    for spec, records in _inputs(seed=4):
        still = [Record(r.side, r.key, r.value, r.ts) for r in records]
        outputs = run(_with(spec, emit_interval_ms=1000), still, behaviour)
        passes = {o.cause for o in _non_joined(outputs) if not _emitted_at_once(spec, still, o)}
        assert len(passes) <= 1, f"non-joined results from several passes: {sorted(passes)}"


def _emitted_at_once(spec: JoinSpec, records: list[Record], output: Output) -> bool:
    """Whether ``output`` is its cause's own non-joined result, emitted at once because that record's window
    had already ended when it came (spec SS-20), not by a pass."""
    record = records[output.cause]
    own = (record.value, None) if record.side == "left" else (None, record.value)
    assert spec.window is not None
    stream_time = max((r.ts for r in records[: output.cause]), default=-1)
    join_after = spec.window.after if record.side == "left" else spec.window.before
    return output.value == own and output.ts == record.ts and record.ts + join_after < stream_time


def test_the_next_time_to_emit_is_in_the_state() -> None:
    """Spec PR-2: a throttled join shows its next time to emit; one with interval 0 does not."""
    spec = JoinSpec("stream-stream", "left", Window(0, 0, 0), stores="memory")
    records = [Record("left", "a", "A", 0, 0), Record("left", "b", "B", 1, 250)]
    throttled = processor_for(_with(spec, emit_interval_ms=1000), behaviour_for("3.9"))
    for index, record in enumerate(records):
        throttled.process(index, record)
    outer = throttled.snapshot()["outer"]
    assert isinstance(outer, dict) and outer["next_time_to_emit"] == 1250
    free = processor_for(spec, behaviour_for("3.9"))
    free.process(0, records[0])
    free_outer = free.snapshot()["outer"]
    assert isinstance(free_outer, dict) and "next_time_to_emit" not in free_outer


def test_the_resync_flag_is_in_force_only_with_production_settings() -> None:
    """The flag of spec PR-3 cannot change an output under the test driver's settings."""
    flag = "outer_join_emit_throttle_resyncs_to_wall_clock"
    assert flag not in flags_in_force("stream-stream", behaviour_for("3.9"))
    assert flag in flags_in_force("stream-stream", behaviour_for("3.9"), production=True)
    assert flag in flags_in_force("stream-stream", behaviour_for("3.4"), production=True)
    assert flag not in flags_in_force("stream-stream", behaviour_for("3.0"), production=True)


# --- record caches (spec PR-5 to PR-7) ------------------------------------------------------------------

CACHE = 10 * 1024 * 1024
CACHED_VERSIONS = ("2.4", "3.4", "3.7", "3.9", "4.0.0", "4.4")


def _table_inputs(seed: int, join: str) -> Iterator[tuple[JoinSpec, list[Record]]]:
    """Generated table-table and foreign-key joins with deletes of present and absent keys, repeated
    values and out-of-order updates, some with a versioned side."""
    rng = random.Random(seed)
    variants = ("inner", "left", "outer") if join == "table-table" else ("inner", "left")
    for _ in range(80):
        versioned = Versioning(rng.random() < 0.4, rng.random() < 0.4, 5) if rng.random() < 0.3 else None
        spec = JoinSpec(join, rng.choice(variants), versioned=versioned)  # type: ignore[arg-type]
        records = []
        for _ in range(rng.randint(1, 14)):
            side = rng.choice(("left", "right"))
            if join == "fk" and side == "left":
                key, value = rng.choice(("k1", "k2")), rng.choice((None, "f1:A", "f2:B", "f1:C"))
            elif join == "fk":
                key, value = rng.choice(("f1", "f2")), rng.choice((None, "x", "y"))
            else:
                key, value = rng.choice(("k1", "k2")), rng.choice((None, "a", "b"))
            records.append(Record(side, key, value, rng.randint(0, 20)))  # type: ignore[arg-type]
        yield spec, records


def _is_subsequence(part: list[Output], whole: list[Output]) -> bool:
    rest = iter(whole)
    return all(any(item == candidate for candidate in rest) for item in part)


@pytest.mark.parametrize("join", ["table-table", "fk"])
@pytest.mark.parametrize("version", CACHED_VERSIONS)
def test_a_cache_flushed_after_every_record_only_drops_the_outputs_of_deletes_of_absent_keys(
    join: str, version: str
) -> None:
    """Spec PR-6: with a commit after every record the cached join emits a subsequence of the uncached
    join's outputs, and every output it drops was caused by a delete of a key its (unversioned) table did not
    hold; versioned sides are never cached (spec PR-5)."""
    behaviour = behaviour_for(version)
    dropped_somewhere = False
    for spec, records in _table_inputs(seed=5, join=join):
        if spec.versioned is not None and not behaviour.has_versioned_stores:
            continue
        uncached = run(spec, records, behaviour)
        cached = run(_with(spec, cache_max_bytes=CACHE), records, behaviour)
        assert _is_subsequence(cached, uncached)
        absent_deletes = _deletes_of_absent_keys(spec, records)
        for output in Counter(uncached) - Counter(cached):
            assert output.cause in absent_deletes, (
                f"{output} dropped, but its cause is no delete of an absent key"
            )
        dropped_somewhere |= cached != uncached
    assert dropped_somewhere, "no generated input had a delete of an absent key that mattered"


def _deletes_of_absent_keys(spec: JoinSpec, records: list[Record]) -> set[int]:
    """Indexes of the deletes of a key that the record's own table does not hold at that point, on a side
    that is not versioned (what the cache flush skips)."""
    held: dict[tuple[str, object], bool] = {}
    found = set()
    for index, record in enumerate(records):
        versioned = spec.versioned is not None and spec.versioned.of(record.side)
        if record.value is None and not held.get((record.side, record.key)) and not versioned:
            found.add(index)
        held[record.side, record.key] = record.value is not None
    return found


@pytest.mark.parametrize("version", CACHED_VERSIONS)
def test_a_cache_never_changes_a_stream_table_join(version: str) -> None:
    """Spec PR-5: the stream side forwards; the table is read through the cache, whatever the schedule."""
    behaviour = behaviour_for(version)
    for spec, records in _table_inputs(seed=6, join="table-table"):
        stream_table = replace(spec, join="stream-table", variant="left", versioned=None)
        produced = _with(stream_table, cache_max_bytes=CACHE, commit_interval_ms=30_000)
        assert run(produced, records, behaviour) == run(stream_table, records, behaviour)


@pytest.mark.parametrize("join", ["table-table", "fk"])
def test_the_oracle_refuses_a_cache_it_does_not_model(join: str) -> None:
    """Spec PR-6, PR-8, PR-9: a foreign-key join's cache under a commit interval, a cache before 2.3, and a
    table with keys whose serialized size the driver decides are refused, not answered wrongly; a commit
    interval without a cache changes nothing."""
    spec = JoinSpec(join, "left")  # type: ignore[arg-type]
    records = [Record("left", "k1", "f1:A", 1), Record("right", "f1", None, 2)]
    if join == "fk":
        with pytest.raises(UnmodelledSettingsError, match=re.escape("commit.interval.ms = 100")):
            run(_with(spec, cache_max_bytes=CACHE, commit_interval_ms=100), records, behaviour_for("3.9"))
    else:  # foreign-key joins start at 2.4
        with pytest.raises(UnmodelledSettingsError, match=re.escape("from Kafka 2.3")):
            run(_with(spec, cache_max_bytes=CACHE), records, behaviour_for("2.1"))
        # Under a commit interval a key's serialized size decides evictions: a table with string and integer
        # keys is refused (spec PR-9); with a commit after every record the size does not matter (PR-7).
        mixed = [Record("left", "k1", "A", 1), Record("left", 2, "B", 2)]
        with pytest.raises(UnmodelledSettingsError, match="both string and integer keys"):
            run(_with(spec, cache_max_bytes=CACHE, commit_interval_ms=100), mixed, behaviour_for("3.9"))
        assert run(_with(spec, cache_max_bytes=CACHE), mixed, behaviour_for("3.9")) == run(
            spec, mixed, behaviour_for("3.9")
        )
    no_cache = run(_with(spec, commit_interval_ms=100), records, behaviour_for("3.9"))
    assert no_cache == run(spec, records, behaviour_for("3.9"))


def _out(key: str, left: str | None, right: str | None, ts: int, cause: int) -> Output:
    return Output(key, (left, right), ts, cause)


def _cached(join: str, variant: str, interval: int = 30_000) -> JoinSpec:
    spec = JoinSpec(join, variant)  # type: ignore[arg-type]
    return _with(spec, cache_max_bytes=CACHE, commit_interval_ms=interval)


@pytest.mark.parametrize("version", CACHED_VERSIONS)
def test_a_commit_flushes_merged_updates_left_first_and_the_close_flushes_the_rest(version: str) -> None:
    """Spec PR-8: between commits the updates of a key merge into one dirty entry (newest value and ts); a
    commit flushes the left store, then the right one, each change looking the other side up through its
    cache, so a key dirty on both sides emits twice; the closing commit flushes what is left."""
    records = [
        Record("left", "k", "A", 1),
        Record("right", "k", "x", 2),
        Record("left", "k", "B", 3),
        Record("left", "k", "C", 4, commit=True),
        Record("right", "k", None, 5),
        Record("left", "j", "D", 6),
    ]
    # At the commit after #3: left k = C (ts 4) meets right k = x (dirty, ts 2): C-x at max(4, 2); then right
    # k = x meets the flushed left C: C-x again at max(2, 4). At the close after #5: left j = D meets no
    # right j: D-null at 6; right k's delete (the store below holds x) meets left C: C-null at max(5, 4).
    expected = [
        _out("k", "C", "x", 4, 3),
        _out("k", "C", "x", 4, 3),
        _out("j", "D", None, 6, 5),
        _out("k", "C", None, 5, 5),
    ]
    assert run(_cached("table-table", "left"), records, behaviour_for(version)) == expected


def test_a_delete_after_an_insert_between_commits_emits_nothing() -> None:
    """Spec PR-6, PR-8: the key's dirty entry is a delete and the store below never held the key: nothing is
    flushed. Without the merge (a commit after every record) the left join emits A-null and a tombstone."""
    records = [Record("left", "k", "A", 1), Record("left", "k", None, 2)]
    assert run(_cached("table-table", "left"), records, behaviour_for("3.9")) == []
    per_record = [_out("k", "A", None, 1, 0), Output("k", None, 2, 1)]
    assert run(_cached("table-table", "left", interval=0), records, behaviour_for("3.9")) == per_record


def test_a_rewritten_dirty_key_moves_to_the_end_of_the_flush_order() -> None:
    """Spec PR-8: a flush forwards the dirty keys in the order they were last written (``NamedCache#put``)."""
    records = [Record("left", "a", "A", 1), Record("left", "b", "B", 2), Record("left", "a", "A2", 3)]
    expected = [_out("b", "B", None, 2, 2), _out("a", "A2", None, 3, 2)]
    assert run(_cached("table-table", "outer"), records, behaviour_for("4.4")) == expected


def test_the_wall_clock_commits_once_it_is_more_than_the_interval_past_the_last_commit() -> None:
    """Spec PR-8: with a 100 ms interval, the records at wall clock 150 (150 - 0 > 100) and 251 (251 - 150 >
    100) are followed by a commit; 250 is exactly 100 past the commit at 150, so no commit."""
    walls = [0, 50, 150, 200, 250, 251]
    records = [Record("left", "k", f"v{i}", i, wall) for i, wall in enumerate(walls)]
    expected = [_out("k", "v2", None, 2, 2), _out("k", "v5", None, 5, 5)]
    assert run(_cached("table-table", "left", interval=100), records, behaviour_for("3.9")) == expected


def test_a_versioned_side_forwards_at_once_and_reads_the_cached_side_through_its_cache() -> None:
    """Spec PR-5, PR-8: a versioned right table is not cached, so its update joins at once with the left
    table's newest (still dirty) value; the left update reaches the join only at the close."""
    spec = replace(_cached("table-table", "inner"), versioned=Versioning(right=True, history_ms=100))
    records = [Record("left", "k", "A", 1), Record("right", "k", "x", 2)]
    expected = [_out("k", "A", "x", 2, 1), _out("k", "A", "x", 2, 1)]
    assert run(spec, records, behaviour_for("3.9")) == expected


@pytest.mark.parametrize("version", CACHED_VERSIONS)
def test_a_commit_after_every_record_is_the_test_drivers_schedule(version: str) -> None:
    """Spec PR-7, PR-8: under a commit interval, a ``commit`` on every record gives what the test driver's
    schedule (interval 0) gives."""
    behaviour = behaviour_for(version)
    for spec, records in _table_inputs(seed=7, join="table-table"):
        if spec.versioned is not None and not behaviour.has_versioned_stores:
            continue
        every = [msgspec.structs.replace(r, commit=True) for r in records]
        produced = _with(spec, cache_max_bytes=CACHE, commit_interval_ms=30_000)
        assert run(produced, every, behaviour) == run(_with(spec, cache_max_bytes=CACHE), records, behaviour)


ENTRY = 1 + 9 + 4 + 45
"""A left entry of a one-letter key and value (PR-9): key 1, timestamp 8 + value 1, topic `left`, 45."""


@pytest.mark.parametrize("version", CACHED_VERSIONS)
def test_an_evicted_dirty_entry_flushes_its_store_at_once(version: str) -> None:
    """Spec PR-9: two one-letter entries (2 x 59 bytes) fit in 120 bytes, a third does not. #2 evicts the
    least recently used, a, which is dirty: the left store flushes a, then b and c, at #2. #3 reads b (now
    clean, the newest) and writes B2 (60 bytes: 119 in all); the close flushes it."""
    records = [
        Record("left", "a", "A", 1),
        Record("left", "b", "B", 2),
        Record("left", "c", "C", 3),
        Record("left", "b", "B2", 4),
    ]
    expected = [
        _out("a", "A", None, 1, 2),
        _out("b", "B", None, 2, 2),
        _out("c", "C", None, 3, 2),
        _out("b", "B2", None, 4, 3),
    ]
    spec = _with(JoinSpec("table-table", "left"), cache_max_bytes=2 * ENTRY + 2, commit_interval_ms=30_000)
    assert run(spec, records, behaviour_for(version)) == expected


@pytest.mark.parametrize("version", CACHED_VERSIONS)
def test_eviction_takes_the_least_recently_used_entry_reads_included(version: str) -> None:
    """Spec PR-9: after the commit at #1, a and b are clean; #2 reads and rewrites a (the newest now), so #3
    evicts the clean b (nothing flushed) and #4 the dirty a, whose flush forwards a, then the other dirty
    entries c and d (#4's own, written just before) at #4. #5 reads and rewrites c; the close flushes it."""
    records = [
        Record("left", "a", "A", 1),
        Record("left", "b", "B", 2, commit=True),
        Record("left", "a", "A3", 3),
        Record("left", "c", "C", 4),
        Record("left", "d", "D", 5),
        Record("left", "c", "C2", 6),
    ]
    expected = [
        _out("a", "A", None, 1, 1),
        _out("b", "B", None, 2, 1),
        _out("a", "A3", None, 3, 4),
        _out("c", "C", None, 4, 4),
        _out("d", "D", None, 5, 4),
        _out("c", "C2", None, 6, 5),
    ]
    spec = _with(JoinSpec("table-table", "left"), cache_max_bytes=2 * ENTRY + 2, commit_interval_ms=30_000)
    assert run(spec, records, behaviour_for(version)) == expected


@pytest.mark.parametrize("join", ["table-table", "fk"])
@pytest.mark.parametrize("version", CACHED_VERSIONS)
def test_with_a_commit_after_every_record_the_cache_size_does_not_matter(join: str, version: str) -> None:
    """Spec PR-7: evictions then flush only the current record's entry, a moment early, with the same
    ``Change``; clean entries leave without a trace."""
    behaviour = behaviour_for(version)
    for spec, records in _table_inputs(seed=8, join=join):
        if spec.versioned is not None and not behaviour.has_versioned_stores:
            continue
        large = run(_with(spec, cache_max_bytes=CACHE), records, behaviour)
        for size in (1, 60, 130, 200):
            assert run(_with(spec, cache_max_bytes=size), records, behaviour) == large


def test_the_driver_flushes_the_caches_when_closed() -> None:
    """Spec PR-8: ``JoinDriver.close`` is the application's closing commit."""
    from kjoin.oracle import JoinDriver

    driver = JoinDriver(_cached("table-table", "inner"), kafka="3.9")
    driver.pipe("left", "k", "A", 1)
    driver.pipe("right", "k", "x", 2)
    assert driver.read_outputs() == []
    driver.close()
    assert driver.read_outputs() == [_out("k", "A", "x", 2, 1), _out("k", "A", "x", 2, 1)]


# --- generation (kjoin verify --production) ------------------------------------------------------------


@pytest.mark.parametrize("version", ["3.7.2", "4.4.0"])
def test_production_generation_draws_the_mixes_and_reaches_the_rules(version: str) -> None:
    """``kjoin verify --production`` draws caches and throttles on and off, wall clocks that never go back and
    move by 0, less than and more than the interval, and scenarios whose outputs the settings change."""
    from kjoin.conformance.differential.generate import generate_cases
    from kjoin.conformance.differential.profiles import PROFILES
    from kjoin.conformance.kafka.verify import EVERYTHING

    profile = PROFILES["ci"]
    behaviour = behaviour_for(version)
    seen: Counter[str] = Counter()
    for join in ("stream-stream", "table-table"):
        drawn = generate_cases(
            join, version, profile=profile, seed=profile.seed, claim=EVERYTHING, examples=60, production=True
        )  # type: ignore[arg-type]
        for case in drawn.cases:
            settings = case.spec.settings
            seen["cache"] += settings.cache_max_bytes > 0
            seen["throttle"] += settings.emit_interval_ms > 0
            walls = [0] + [r.wall_clock for r in case.records if r.wall_clock is not None]
            assert walls == sorted(walls)
            steps = {later - earlier for earlier, later in pairwise(walls)}
            seen["less than the interval"] += any(0 < step < 1000 for step in steps)
            seen["more than the interval"] += any(step > 1000 for step in steps)
            default = replace(case.spec, settings=Settings())
            seen[f"{join} changed"] += run(case.spec, case.records, behaviour) != run(
                default, case.records, behaviour
            )
    assert all(
        seen[name] > 0 for name in ("cache", "throttle", "less than the interval", "more than the interval")
    )
    assert seen["stream-stream changed"] > 0 and seen["table-table changed"] > 0, seen
