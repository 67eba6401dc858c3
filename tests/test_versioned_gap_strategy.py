"""``kjoin.strategies.versioned_gap_scenarios`` draws the shape it claims (issue 23, the survivor
``versioned.py:115 >= -> >`` of docs/mutation-report-stateful.md), and ``kjoin fuzz`` adds its scenarios
without changing any other generated scenario."""

from __future__ import annotations

from dataclasses import replace

import pytest
from hypothesis.errors import InvalidArgument

from kjoin.conformance.differential.fuzz import generated_batches
from kjoin.conformance.differential.generate import draw_examples, generate_versioned_gap_cases
from kjoin.conformance.differential.profiles import PROFILES
from kjoin.conformance.protocol import Claim
from kjoin.oracle import Record
from kjoin.oracle.driver import JoinDriver
from kjoin.strategies import versioned_gap_scenarios

DRAWN = draw_examples(versioned_gap_scenarios(), 60, 11)


def _gap(records: tuple[Record, ...]) -> tuple[int, int, int]:
    """The index of the put that fills ``k1``'s gap, the delete's ts and the current value's ts."""
    table = [(index, record) for index, record in enumerate(records) if record.side == "right"]
    table = [(index, record) for index, record in table if record.key == "k1"]
    deleted = next(record.ts for _, record in table if record.value is None)
    current = max(record.ts for _, record in table)
    filling = next(index for index, record in table if record.ts == deleted and record.value is not None)
    return filling, deleted, current


def test_scenarios_are_stream_table_joins_over_a_versioned_table_covering_every_put() -> None:
    assert {spec.variant for spec, _ in DRAWN} == {"inner", "left"}
    for spec, records in DRAWN:
        assert spec.join == "stream-table" and spec.window is None
        assert spec.versioned is not None and spec.versioned.right and not spec.versioned.left
        puts = [record.ts for record in records if record.side == "right" and record.key == "k1"]
        assert max(puts) - min(puts) <= spec.versioned.history_ms


def test_a_put_lands_exactly_on_an_earlier_delete_before_the_current_value_then_lookups_in_the_gap() -> None:
    for _, records in DRAWN:
        filling, deleted, current = _gap(records)
        assert deleted + 1 < current
        assert any(record.ts == current for record in records[:filling] if record.side == "right")
        after = [record for record in records[filling + 1 :] if record.side == "left"]
        assert after and all(record.key == "k1" and deleted <= record.ts < current for record in after)


def test_the_oracle_joins_each_lookup_in_the_gap_with_the_put_that_filled_it() -> None:
    """Spec VS-6: the put at the versions' end fills the gap up to the current value, so every stream
    record looking into it after the put joins a value put at or after the delete (a port that leaves
    the version empty finds nothing); one looking before the put finds the gap (nothing)."""
    looked_before = 0
    for spec, records in DRAWN:
        filling, _, _ = _gap(records)
        driver = JoinDriver(spec, kafka="3.9")
        refilled = {record.value for record in records[filling:] if record.side == "right"}
        for index, record in enumerate(records):
            driver.pipe(record.side, record.key, record.value, record.ts)
            outputs = driver.read_outputs()
            if record.side != "left" or record.key != "k1":
                continue
            if index > filling:
                assert [output.value for output in outputs] == [(record.value, outputs[0].value[1])]  # type: ignore[index]
                assert outputs[0].value is not None and outputs[0].value[1] in refilled
            else:
                looked_before += 1
                expected = [] if spec.variant == "inner" else [(record.value, None)]
                assert [output.value for output in outputs] == expected
    assert looked_before > 0


def test_bad_arguments_are_refused() -> None:
    with pytest.raises(InvalidArgument):
        versioned_gap_scenarios(variants=[])
    with pytest.raises(InvalidArgument):
        versioned_gap_scenarios(variants=["outer"])


def test_generated_for_claims_with_versioned_stream_table_joins_as_3_5_plus_only() -> None:
    ci = PROFILES["ci"]
    claim = Claim(
        kafka=("3.9",),
        joins=frozenset({"stream-table"}),
        variants=frozenset({"inner", "left"}),
        versioned=True,
    )
    drawn = generate_versioned_gap_cases("3.9", profile=ci, seed=1, claim=claim)
    assert (
        drawn.drawn == ci.versioned_gap_examples and 0 < len(drawn.cases) <= drawn.drawn
    )  # duplicates dropped
    assert all(case.scenario.startswith("fuzz-vg-1-") for case in drawn.cases)
    assert not generate_versioned_gap_cases("3.4", profile=ci, seed=1, claim=claim).cases
    unversioned = replace(claim, versioned=False)
    assert not generate_versioned_gap_cases("3.9", profile=ci, seed=1, claim=unversioned).cases


def test_fuzz_adds_them_after_the_other_batches_and_changes_none_of_those() -> None:
    ci = PROFILES["ci"]
    claim = Claim(
        kafka=("3.9",),
        joins=frozenset({"stream-table", "table-table"}),
        variants=frozenset({"inner", "left"}),
        versioned=True,
    )
    plan = [("3.9", 10)]
    with_gaps = generated_batches(claim, plan, ci, ci.seed)
    without = generated_batches(claim, plan, replace(ci, versioned_gap_examples=0), ci.seed)
    assert with_gaps[: len(without)] == without
    extra = with_gaps[len(without) :]
    assert [batch.join for batch in extra] == ["stream-table"]
    assert extra[0].drawn == 10 and all("fuzz-vg-" in case.id for case in extra[0].cases)
