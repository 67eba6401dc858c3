"""``kjoin.strategies.pass_stop_boundary_scenarios`` draws the shape it claims (issue 23, the survivor
``stream_stream.py:239 >= -> >`` of docs/mutation-report-stateful.md), and its scenarios tell a 3.1-3.7
emission pass that also emits at equality apart from Kafka's."""

from __future__ import annotations

from bisect import bisect_left
from dataclasses import replace

import pytest
from hypothesis.errors import InvalidArgument

from kjoin.conformance.differential.generate import draw_examples, generate_min_time_cases
from kjoin.conformance.differential.profiles import PROFILES
from kjoin.conformance.documents.outcomes import kafka_outputs
from kjoin.conformance.protocol import Claim
from kjoin.oracle import JoinSpec, Record
from kjoin.oracle.outer_store import HeldRecords
from kjoin.strategies import pass_stop_boundary_scenarios

DRAWN = draw_examples(pass_stop_boundary_scenarios(), 60, 11)


def _join_after(side: str, spec: JoinSpec) -> int:
    assert spec.window is not None
    return spec.window.after if side == "left" else spec.window.before


def test_scenarios_are_spurious_free_outer_and_left_joins() -> None:
    assert {spec.variant for spec, _ in DRAWN} == {"outer", "left"}
    for spec, records in DRAWN:
        window = spec.window
        assert spec.join == "stream-stream" and window is not None and window.grace is not None
        assert not window.legacy and max(window.before, window.after) <= 3
        assert all(record.key is not None and record.value is not None for record in records)


def _boundary(spec: JoinSpec, records: tuple[Record, ...]) -> tuple[Record, Record, Record] | None:
    """(target, boundary record, match) when the boundary record lands exactly on ``ts + joinAfter + grace``
    of a held record (its processor's ``joinAfter``) and the match is the other side's record under the
    target's key exactly at the window's far edge."""
    assert spec.window is not None and spec.window.grace is not None
    for index, step in enumerate(records[:-1]):
        match = records[index + 1]
        if any(record.key == step.key for record in records[:index]) or match.key == step.key:
            continue  # the boundary record has a key of its own
        for target in records[:index]:
            on_bound = step.ts == target.ts + _join_after(step.side, spec) + spec.window.grace
            far_edge = target.ts + (spec.window.after if target.side == "left" else spec.window.before)
            if on_bound and match.key == target.key and match.side != target.side and match.ts == far_edge:
                return target, step, match
    return None


def test_stream_time_lands_exactly_on_a_held_records_bound_then_its_match_follows() -> None:
    exact = [found for spec, records in DRAWN if (found := _boundary(spec, records)) is not None]
    assert len(exact) >= len(DRAWN) // 3, f"{len(exact)} of {len(DRAWN)}"
    assert all(target.ts > 0 for target, _, _ in exact)


def test_the_pass_runs_at_the_boundary() -> None:
    """Its processor's pass is not skipped there: ``minTime`` (0, the first held record) ``< streamTime -
    lookBack - grace``."""
    ran = 0
    for spec, records in DRAWN:
        found = _boundary(spec, records)
        if found is None:
            continue
        _, step, _ = found
        assert spec.window is not None and spec.window.grace is not None
        look_back = _join_after("right" if step.side == "left" else "left", spec)
        assert records[0].ts == 0 < step.ts - look_back - spec.window.grace
        ran += 1
    assert ran


def _emits_at_equality(self: HeldRecords, side: int, ts: int) -> int:
    """The mistake of ``stream_stream.py:239 >= -> >``: the pass also emits a record with ``ts + joinAfter
    + grace == streamTime``."""
    return bisect_left(self.slots[side], 2 * (ts + 1) + side)


CLAIM = Claim(joins=frozenset({"stream-stream"}), variants=frozenset({"left", "outer"}), kafka=("3.7",))

PASS_STOP_FLOOR = 4
"""Generated 3.1-3.7 pass-stop scenarios (ci profile, 10 per version) that must tell the mistake apart
(measured with the oracle: 7, 5, 5 of 10 for seeds 20240601, 1, 2 in 3.1, 3.4 and 3.7)."""


@pytest.mark.parametrize(("kafka", "seed"), [("3.7", PROFILES["ci"].seed), ("3.4", 1), ("3.1", 2)])
def test_the_scenarios_tell_apart_a_pass_that_emits_at_equality(
    kafka: str, seed: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    cases = generate_min_time_cases(kafka, profile=PROFILES["ci"], seed=seed, claim=CLAIM, examples=10).cases
    assert cases and all(case.scenario.startswith(f"fuzz-ps-{seed}-") for case in cases)
    right = {case.id: kafka_outputs(case) for case in cases}
    with monkeypatch.context() as patched:
        patched.setattr(HeldRecords, "count_before", _emits_at_equality)
        wrong = {case.id: kafka_outputs(case) for case in cases}
    told_apart = [case_id for case_id in right if right[case_id] != wrong[case_id]]
    assert len(told_apart) >= PASS_STOP_FLOOR, f"{len(told_apart)} of {len(cases)}"


def test_a_claim_without_outer_or_left_draws_none() -> None:
    inner_only = replace(CLAIM, variants=frozenset({"inner"}))
    assert not generate_min_time_cases("3.7", profile=PROFILES["ci"], seed=5, claim=inner_only).cases


@pytest.mark.parametrize(
    ("arguments", "named"),
    [
        ({"variants": ["inner"]}, "variants"),
        ({"min_per_side": 0}, "min_per_side"),
        ({"max_per_side": 0}, "max"),
    ],
)
def test_bad_arguments_are_named(arguments: dict[str, object], named: str) -> None:
    with pytest.raises(InvalidArgument, match=named):
        pass_stop_boundary_scenarios(**arguments)  # type: ignore[arg-type]  # checked when built
