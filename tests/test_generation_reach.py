"""What the generators reach, without Spark: the CI profile's stream-stream scenarios tell the oracle apart
from an oracle with the mistake that hid in spark-reference until real Kafka traces showed it (the 3.8+
emission pass leaving ``minTime`` at the second open record instead of the record after it; the saved
regression ``regression-spark-reference-ss-outer-100011``), and ``kjoin fuzz`` covers every claimed era.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import pytest

from kjoin.conformance.catalogue import Case, load_cases
from kjoin.conformance.differential.corners import (
    corners_of,
    fk_null_round_trip,
    fk_right_delete,
    fk_unsubscribe,
    offered_corners,
    ss_min_time_past_stop,
)
from kjoin.conformance.differential.fuzz import MIN_PER_ERA, fuzzed_versions
from kjoin.conformance.differential.generate import generate_cases, generate_min_time_cases
from kjoin.conformance.differential.profiles import PROFILES
from kjoin.conformance.documents.outcomes import kafka_outputs
from kjoin.conformance.protocol import load_candidate
from kjoin.oracle import JoinSpec, Record, behaviour_for
from kjoin.oracle.outer_store import HeldRecords
from support.tiers import default_tier_keeps, smoke_ends

REGRESSION = (
    Path(__file__).resolve().parents[1]
    / "scenarios"
    / "regressions"
    / "regression-spark-reference-ss-outer-100011.jsonl"
)
CLAIM = load_candidate("spark-reference").claim


def _stops_at_the_second_open_record(self: HeldRecords, right_count: int, left_count: int) -> int | None:
    """The mistake: ``minTime`` at the later of the two sides' first open records (Kafka's walk reads one
    record further before it stops)."""
    right, left = self.slots
    if right_count == len(right) or left_count == len(left):
        return self._last_ts()
    return max(right[right_count], left[left_count]) >> 1


def _differing(cases: Sequence[Case], monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The ids of the cases whose outputs the mistake changes."""
    right = {case.id: kafka_outputs(case) for case in cases}
    with monkeypatch.context() as patched:
        patched.setattr(
            HeldRecords, "ts_where_walk_stops_after_both_sides_kept", _stops_at_the_second_open_record
        )
        wrong = {case.id: kafka_outputs(case) for case in cases}
    return [case_id for case_id in right if right[case_id] != wrong[case_id]]


def test_the_mistake_changes_the_saved_regression(monkeypatch: pytest.MonkeyPatch) -> None:
    loaded = load_cases([REGRESSION])
    assert loaded.errors == () and len(loaded.cases) == 1
    assert _differing(loaded.cases, monkeypatch) == [loaded.cases[0].id]


@pytest.mark.parametrize("kafka", default_tier_keeps(["3.9", "4.3"], keep={"4.3"}))
def test_ci_profile_generates_scenarios_that_catch_the_mistake(
    kafka: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    profile = PROFILES["ci"]
    generated = generate_cases("stream-stream", kafka, profile=profile, seed=profile.seed, claim=CLAIM)
    differing = _differing(generated.cases, monkeypatch)
    assert differing, f"none of {len(generated.cases)} generated scenarios tells the mistake apart"


@pytest.mark.parametrize("seed", default_tier_keeps([1, 2, 3], keep={1}))
def test_other_seeds_catch_it_too(seed: int, monkeypatch: pytest.MonkeyPatch) -> None:
    profile = PROFILES["ci"]
    generated = generate_cases("stream-stream", "3.9", profile=profile, seed=seed, claim=CLAIM)
    assert _differing(generated.cases, monkeypatch)


def test_fuzzing_covers_every_claimed_version_newest_first() -> None:
    plan = fuzzed_versions(CLAIM.kafka, 150)
    assert plan[0] == ("4.0.1", 150)  # the newest era, by its first release (oracle.behaviour)
    assert {version for version, _ in plan} == set(CLAIM.kafka)
    assert all(count >= MIN_PER_ERA for _, count in plan[1:])
    assert sum(count for _, count in plan[1:]) <= 75 + MIN_PER_ERA * len(plan)
    assert fuzzed_versions(("3.9",), 40) == [("3.9", 40)]
    assert fuzzed_versions(("3.9", "2.4", "3.9"), 40) == [("3.9", 40), ("2.4", 20)]


CORNER_FLOOR = 5
"""Generated scenarios (ci profile, per era) that must reach each corner the era offers (measured minimum
7 of 122: versioned-same-ts-put:stream-table; docs/reach-report.md, "Corners reached")."""


# the default tier the oldest and the newest era; CI's system tier all of them (docs/testing.md)
@pytest.mark.parametrize(
    "version", smoke_ends(["2.4", "3.5", "3.6", "3.8", "3.9.1", "4.0.0", CLAIM.kafka[-1]])
)
def test_the_ci_profile_reaches_every_corner_where_kills_were_thin(version: str) -> None:
    """Issue 23: FK null round trips and unsubscribes, right-side FK deletes, KIP-923 grace clocked by
    either side, same-timestamp versioned puts in every join kind reading versioned tables, and 3.8+'s
    emission pass stopping before the last held entry (``ss-min-time-past-stop``)."""
    behaviour = behaviour_for(version)
    ci = PROFILES["ci"]
    cases = [
        case
        for join in ("stream-table", "table-table", "fk")
        for case in generate_cases(join, version, profile=ci, seed=ci.seed, claim=CLAIM).cases
    ]
    cases += generate_min_time_cases(version, profile=ci, seed=ci.seed, claim=CLAIM).cases
    reached = corners_of(cases, behaviour)
    assert set(reached) == {corner.name for corner in offered_corners(behaviour)}
    thin = {name: count for name, count in reached.items() if count < CORNER_FLOOR}
    assert not thin, f"{version}: corners reached by fewer than {CORNER_FLOOR} scenarios: {thin}"


def _fk(*records: tuple[str, str, str | None, int]) -> Case:
    spec = JoinSpec(join="fk", variant="inner")
    history = tuple(Record(side=side, key=key, value=value, ts=ts) for side, key, value, ts in records)  # type: ignore[arg-type]
    return Case(id="c", scenario="c", kafka="3.9", intended=False, spec=spec, records=history)


def test_corners_are_shapes_that_make_the_mistake_visible() -> None:
    round_trip = _fk(
        ("left", "p1", "f1:L0", 0),
        ("left", "p1", ":L1", 1),
        ("left", "p1", "f2:L2", 2),
        ("right", "f1", "R3", 3),
    )
    assert fk_null_round_trip(round_trip) and fk_unsubscribe(round_trip)
    no_old_update = _fk(("left", "p1", "f1:L0", 0), ("left", "p1", ":L1", 1), ("left", "p1", "f2:L2", 2))
    assert not fk_null_round_trip(no_old_update)
    changed = _fk(("left", "p1", "f1:L0", 0), ("left", "p1", "f2:L1", 1), ("right", "f1", None, 2))
    assert fk_unsubscribe(changed) and fk_right_delete(changed)
    assert not fk_right_delete(_fk(("right", "f1", None, 0), ("left", "p1", "f1:L1", 1)))


def _walks_to_the_end(self: HeldRecords, right_count: int, left_count: int) -> int | None:
    """The mistake of ``outer_store.py:98 2 -> 3`` (docs/mutation-report.md): the 3.8+ walk never stops,
    so ``minTime`` ends at the last entry's ts."""
    return self._last_ts()


def _told_apart(cases: Sequence[Case], monkeypatch: pytest.MonkeyPatch) -> set[str]:
    right = {case.id: kafka_outputs(case) for case in cases}
    with monkeypatch.context() as patched:
        patched.setattr(HeldRecords, "ts_where_walk_stops_after_both_sides_kept", _walks_to_the_end)
        wrong = {case.id: kafka_outputs(case) for case in cases}
    return {case_id for case_id in right if right[case_id] != wrong[case_id]}


MIN_TIME_FLOOR = 5
"""Generated ``minTime`` scenarios (ci profile, per 3.8+ era) that must tell the walk that never stops
apart (measured: 8 of 20 with the ci seed, 6 and 7 with seeds 1 and 2; docs/reach-report.md)."""


@pytest.mark.parametrize(("kafka", "seed"), [("3.8", PROFILES["ci"].seed), ("4.0.1", 1), ("4.0.0", 2)])
def test_min_time_scenarios_catch_a_walk_that_never_stops(
    kafka: str, seed: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The survivor of docs/mutation-report.md: the ``minTime`` scenarios tell it apart in several of
    theirs, and the corner ``ss-min-time-past-stop`` marks exactly the scenarios that do."""
    ci = PROFILES["ci"]
    drawn = generate_min_time_cases(kafka, profile=ci, seed=seed, claim=CLAIM).cases
    told_apart = _told_apart(drawn, monkeypatch)
    assert len(told_apart) >= MIN_TIME_FLOOR, f"{len(told_apart)} of {len(drawn)}"
    assert {case.id for case in drawn if ss_min_time_past_stop(case)} == told_apart


@pytest.mark.parametrize("kafka", ["3.8", "4.0.1"])
def test_the_general_ci_scenarios_miss_it(kafka: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Why it survived the fuzzer (ci profile and seed): no general stream-stream scenario tells it apart
    (other seeds' emission-pass scenarios do now and then)."""
    ci = PROFILES["ci"]
    plain = generate_cases("stream-stream", kafka, profile=ci, seed=ci.seed, claim=CLAIM).cases
    assert plain and not _told_apart(plain, monkeypatch)


def test_the_corner_marks_the_catalogue_files_that_kill_the_survivor(monkeypatch: pytest.MonkeyPatch) -> None:
    """The catalogue's ``stale-min-time-*`` scenarios kill the mutant; the corner marks those cases and
    only cases the mistake changes."""
    cases = [
        case for case in load_cases().cases if case.join == "stream-stream" and case.spec.variant == "outer"
    ]
    told_apart = _told_apart(cases, monkeypatch)
    marked = {case.id for case in cases if ss_min_time_past_stop(case)}
    assert marked == told_apart
    assert any(case_id.startswith("ss-stale-min-time") for case_id in marked)
