"""``kjoin.strategies.min_time_boundary_scenarios`` draws the shape it claims (issue 23, the survivor
``outer_store.py:98 2 -> 3`` of docs/mutation-report.md), and ``kjoin fuzz`` adds its scenarios without
changing any other generated scenario."""

from __future__ import annotations

from dataclasses import replace

import pytest
from hypothesis.errors import InvalidArgument

from kjoin.conformance.differential.fuzz import generated_batches
from kjoin.conformance.differential.generate import draw_examples, generate_min_time_cases
from kjoin.conformance.differential.profiles import PROFILES
from kjoin.conformance.protocol import Claim
from kjoin.oracle import JoinSpec, Record
from kjoin.oracle.driver import JoinDriver
from kjoin.strategies import min_time_boundary_scenarios

DRAWN = draw_examples(min_time_boundary_scenarios(), 60, 11)


def _held_phase(spec: JoinSpec, records: tuple[Record, ...]) -> list[Record]:
    """The records drawn to be held: those before the first whose ts passes the grace (the trigger)."""
    assert spec.window is not None and spec.window.grace is not None
    return [record for record in records if record.ts <= spec.window.grace]


def test_scenarios_are_spurious_free_outer_and_left_joins_in_time_order() -> None:
    assert {spec.variant for spec, _ in DRAWN} == {"outer", "left"}
    for spec, records in DRAWN:
        window = spec.window
        assert spec.join == "stream-stream" and window is not None and window.grace is not None
        assert not window.legacy and max(window.before, window.after) <= 3
        assert [record.ts for record in records] == sorted(record.ts for record in records)
        assert all(record.key is not None and record.value is not None for record in records)


def test_several_records_per_side_are_held_before_the_trigger() -> None:
    for spec, records in DRAWN:
        held = _held_phase(spec, records)
        per_side = {side: sum(record.side == side for record in held) for side in ("left", "right")}
        assert all(3 <= count <= 5 for count in per_side.values()), per_side
        assert len(records) > len(held)  # the trigger and the steps come after


def test_outer_passes_stop_before_the_last_held_entry() -> None:
    """In an outer join, the trigger's pass stops (both sides open) with held entries past the stop entry:
    ``minTime`` after it lies before the last entry held at the pass (3.8+ as released)."""
    outer = [(spec, records) for spec, records in DRAWN if spec.variant == "outer"]
    stopped = 0
    for spec, records in outer:
        driver = JoinDriver(spec, kafka="3.9")
        held = _held_phase(spec, records)
        for record in [*held, records[len(held)]]:
            before = driver.snapshot()["outer"]
            driver.pipe(record.side, record.key, record.value, record.ts)
        assert isinstance(before, dict)
        after = driver.snapshot()["outer"]
        assert isinstance(after, dict)
        last_held = max(entry[0] for entry in before["held"])
        stopped += after["min_time"] < last_held
    assert stopped >= 0.75 * len(outer), f"{stopped} of {len(outer)}"


def test_later_records_step_across_the_early_return_bound() -> None:
    """After the trigger, stream time sits on or 1 ms past ``minTime + joinAfter + grace`` of the
    stepping record's processor, for ``minTime`` one of the held timestamps."""
    for spec, records in DRAWN:
        window = spec.window
        assert window is not None and window.grace is not None
        held = _held_phase(spec, records)
        held_times = {record.ts for record in held}
        for step in records[len(held) + 1 : len(held) + 2]:
            join_after = window.after if step.side == "left" else window.before
            candidates = {step.ts - join_after - window.grace - nudge for nudge in (0, 1)}
            trigger = records[len(held)].ts
            assert candidates & held_times or step.ts == trigger, (spec, records)


@pytest.mark.parametrize(
    ("arguments", "named"),
    [
        ({"variants": ["inner"]}, "variants"),
        ({"min_per_side": 0}, "min_per_side"),
        ({"max_per_side": 2}, "max"),
    ],
)
def test_bad_arguments_are_named(arguments: dict[str, object], named: str) -> None:
    with pytest.raises(InvalidArgument, match=named):
        min_time_boundary_scenarios(**arguments)  # type: ignore[arg-type]  # checked when built


CLAIM = Claim(
    joins=frozenset({"stream-stream", "fk"}), variants=frozenset({"inner", "left", "outer"}), kafka=("3.9",)
)


def test_fuzz_adds_the_min_time_scenarios_and_changes_no_other() -> None:
    profile = replace(PROFILES["ci"], examples=12)
    without = generated_batches(CLAIM, [("3.9", 12), ("3.7", 8)], replace(profile, min_time_examples=0), 5)
    added = generated_batches(CLAIM, [("3.9", 12), ("3.7", 8)], profile, 5)
    new = [batch for batch in added if batch not in without]
    assert [batch for batch in added if batch in without] == list(without)
    # 3.9: the minTime scenarios; 3.7 (held records close by the processor's bound): the pass-stop ones
    # (tests/test_pass_stop_strategy.py)
    [min_time, pass_stop] = new
    assert min_time.kafka == "3.9" and min_time.join == "stream-stream"
    assert len(min_time.cases) >= 10 and all(c.scenario.startswith("fuzz-mt-5-") for c in min_time.cases)
    assert pass_stop.kafka == "3.7" and all(c.scenario.startswith("fuzz-ps-5-") for c in pass_stop.cases)
    assert not generate_min_time_cases("3.0", profile=profile, seed=5, claim=CLAIM).cases
    inner_only = replace(CLAIM, variants=frozenset({"inner"}))
    assert not generate_min_time_cases("3.9", profile=profile, seed=5, claim=inner_only).cases
