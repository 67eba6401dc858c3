"""The differential-testing machinery without Spark: generation, shrinking, regression files, the command's
argument checks. The candidate is replaced by the planted bugs' perturbations evaluated in-process (the same
function their Spark jobs run), so these tests are fast; test_differential_planted_bugs.py runs them on Spark.
"""

from __future__ import annotations

import io
import json
from collections.abc import Sequence
from dataclasses import replace
from functools import cache
from pathlib import Path

import pytest

from kjoin.conformance.catalogue import Case
from kjoin.conformance.catalogue.portable import case_from_json, output_to_json
from kjoin.conformance.checker import Emitted, check
from kjoin.conformance.cli import main
from kjoin.conformance.differential.fuzz import Counterexample
from kjoin.conformance.differential.generate import draw_examples, generate_cases
from kjoin.conformance.differential.profiles import PROFILES, FuzzProfile, profile_named
from kjoin.conformance.differential.regressions import (
    RegressionFormatError,
    read_regressions,
    regression_line,
    write_regression,
)
from kjoin.conformance.differential.shrink import Shrunk, complexity, reductions, shrink
from kjoin.conformance.documents.outcomes import CaseOutcome, kafka_outputs
from kjoin.conformance.protocol import Claim
from kjoin.oracle import behaviour_for
from kjoin.strategies import join_histories
from support.planted_bugs import PLANTED, bugged_run

CLAIM = PLANTED["trigger-ts"].claim
SMALL = replace(PROFILES["ci"], examples=40)


def _in_process(bug: str, calls: list[int]):  # type: ignore[no-untyped-def]
    """An ``Evaluate`` that checks cases against the planted ``bug`` without Spark, counting its calls."""

    def evaluate(cases: Sequence[Case]) -> dict[str, CaseOutcome]:
        calls.append(len(cases))
        outcomes = {}
        for case in cases:
            expected = kafka_outputs(case)
            assert not isinstance(expected, str)
            actual = tuple(bugged_run(bug, case.spec, case.records, behaviour_for(case.kafka)))
            verdict = check(expected, Emitted(actual, causes_known=True), "exact")
            outcomes[case.id] = CaseOutcome(
                case, verdict.status, "exact", verdict, expected, Emitted(actual, causes_known=True)
            )
        return outcomes

    return evaluate


def _failures(bug: str, profile: FuzzProfile = SMALL, seed: int = 20240601) -> list[CaseOutcome]:
    claim = PLANTED[bug].claim
    cases = [
        case
        for join in sorted(claim.joins)
        for case in generate_cases(join, "3.9", profile=profile, seed=seed, claim=claim).cases
    ]
    outcomes = _in_process(bug, [])(cases)
    return sorted((o for o in outcomes.values() if o.status == "fail"), key=lambda o: complexity(o.case))


def test_generate_cases_draws_the_same_scenarios_for_the_same_seed() -> None:
    first = generate_cases("table-table", "3.9", profile=SMALL, seed=7, claim=CLAIM)
    generate_cases.cache_clear()  # draw again, not from the cache
    again = generate_cases("table-table", "3.9", profile=SMALL, seed=7, claim=CLAIM)
    assert again is not first
    other = generate_cases("table-table", "3.9", profile=SMALL, seed=8, claim=CLAIM)
    assert first == again and len(first.cases) > 20
    assert [c.records for c in first.cases] != [c.records for c in other.cases]


def test_generate_cases_draws_only_what_the_claim_covers() -> None:
    claim = Claim(
        joins=frozenset({"stream-stream"}),
        variants=frozenset({"left"}),
        kafka=("3.9",),
        stores=frozenset({"memory"}),
    )
    generated = generate_cases("stream-stream", "3.9", profile=SMALL, seed=1, claim=claim).cases
    assert generated and {c.spec.variant for c in generated} == {"left"}
    assert {c.spec.stores for c in generated} == {"memory"}
    unversioned = replace(CLAIM, joins=frozenset({"table-table"}), versioned=False)
    tables = generate_cases("table-table", "3.9", profile=SMALL, seed=1, claim=unversioned).cases
    assert tables and all(c.spec.versioned is None for c in tables)


def test_generate_cases_draws_nothing_for_a_join_the_era_lacks() -> None:
    generated = generate_cases("fk", "2.3", profile=SMALL, seed=1, claim=PLANTED["tombstone-dropped"].claim)
    assert generated.cases == ()


def test_join_histories_label_every_value_uniquely_and_never_go_below_zero() -> None:
    for history in draw_examples(join_histories("fk", min_size=1, null_keys=True), 60, seed=3):
        labels = [r.value.split(":")[-1] for r in history if r.value is not None]
        assert labels == [f"{r.side[0].upper()}{i}" for i, r in enumerate(history) if r.value is not None]
        assert all(r.ts >= 0 for r in history)
        assert all(":" in r.value for r in history if r.side == "left" and r.value is not None)


def test_reductions_are_distinct_and_simpler_than_the_case() -> None:
    [failing, *_] = _failures("trigger-ts")
    case = failing.case
    found = reductions(case, limit=1000)
    assert found and len({(c.spec, c.records) for c in found}) == len(found)
    assert all(complexity(c) < complexity(case) for c in found)
    assert [complexity(c) for c in found] == sorted(complexity(c) for c in found)


@pytest.mark.parametrize("bug", ["trigger-ts", "versioned-latest"])
def test_shrink_reduces_a_planted_bug_to_at_most_six_records_one_call_per_round(bug: str) -> None:
    failing = _failures(bug, profile=PROFILES["ci"])
    assert failing, f"the ci profile finds no {bug}"
    calls: list[int] = []
    [shrunk] = shrink(failing[:1], _in_process(bug, calls), rounds=10, limit=400)
    assert shrunk.minimal.status == "fail"
    assert len(shrunk.minimal.case.records) <= 6
    assert len(shrunk.minimal.case.records) <= len(shrunk.original.case.records)
    assert len(calls) in (shrunk.rounds, shrunk.rounds + 1)  # one call per round, the last may find nothing


def test_shrink_keeps_the_failure_when_nothing_smaller_fails() -> None:
    [failing, *_] = _failures("null-keys-dropped")
    [once] = shrink([failing], _in_process("null-keys-dropped", []), rounds=10, limit=400)
    [twice] = shrink([once.minimal], _in_process("null-keys-dropped", []), rounds=10, limit=400)
    assert twice.rounds == 0 and twice.minimal is once.minimal


@cache
def _counterexample(bug: str = "trigger-ts") -> Counterexample:
    [failing, *_] = _failures(bug)
    [shrunk] = shrink([failing], _in_process(bug, []), rounds=10, limit=400)
    return Counterexample(shrunk, 20240601, "kjoin.strategies.join_scenarios(...)")


def test_write_regression_is_deterministic_and_keeps_provenance(tmp_path: Path) -> None:
    counterexample = _counterexample()
    first = write_regression(tmp_path / "a", counterexample, candidate="trigger-ts")
    second = write_regression(tmp_path / "b", counterexample, candidate="trigger-ts")
    assert first.name == second.name and first.read_bytes() == second.read_bytes()
    line = json.loads(first.read_text())
    assert line["flags"] == ["generated"] and line["seed"] == 20240601 and line["candidate"] == "trigger-ts"
    assert line["strategy"].startswith("kjoin.strategies.join_scenarios") and "found" not in line
    assert line["divergence"]["kind"] == "wrong-timestamp"
    dated = regression_line(counterexample, candidate="trigger-ts", found="2024-06-01")
    assert dated["found"] == "2024-06-01" and dated["id"] == line["id"]


def test_read_regressions_gives_back_the_scenario_and_its_expected_outputs(tmp_path: Path) -> None:
    path = write_regression(tmp_path, _counterexample(), candidate="trigger-ts")
    [regression] = read_regressions(path)
    assert regression.candidate == "trigger-ts" and regression.seed == 20240601 and regression.found is None
    expected = kafka_outputs(regression.case)
    assert not isinstance(expected, str)
    assert [output_to_json(output) for output in expected.outputs] == regression.expected
    line = json.loads(path.read_text())
    assert case_from_json(line, "saved").records == regression.case.records


def test_read_regressions_rejects_a_line_without_provenance(tmp_path: Path) -> None:
    path = write_regression(tmp_path, _counterexample(), candidate="trigger-ts")
    line = json.loads(path.read_text())
    del line["seed"]
    path.write_text(json.dumps(line) + "\n")
    with pytest.raises(RegressionFormatError, match="missing provenance field 'seed'"):
        read_regressions(path)


def test_kjoin_check_accepts_a_saved_regression(tmp_path: Path) -> None:
    path = write_regression(tmp_path, _counterexample(), candidate="trigger-ts")
    out = io.StringIO()
    assert main(["check", str(path)], stdout=out, stderr=io.StringIO()) == 0
    assert "pass" in out.getvalue()


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        (["--examples", "0"], "--examples: must be at least 1, got 0"),
        (["--found", "yesterday"], "--found: 'yesterday' is not a date (YYYY-MM-DD)"),
        (["--kafka", "9.9"], "--kafka: "),
        (["--candidate", "no.such.module:thing"], "--candidate: "),
    ],
)
def test_kjoin_fuzz_rejects_bad_arguments_before_starting_spark(arguments: list[str], message: str) -> None:
    err = io.StringIO()
    argv = ["fuzz", "--candidate", "support.planted_bugs:trigger_ts", *arguments]
    assert main(argv, stdout=io.StringIO(), stderr=err) == 2
    assert message in err.getvalue()


def test_profile_named_lists_the_known_profiles() -> None:
    assert profile_named("deep").examples > profile_named("ci").examples
    with pytest.raises(ValueError, match="known: ci, deep"):
        profile_named("nightly")


def test_shrunk_case_ids_are_unique_within_a_round() -> None:
    [failing, *_] = _failures("window-off-by-one", profile=PROFILES["ci"])
    seen: list[str] = []

    def record_ids(cases: Sequence[Case]) -> dict[str, CaseOutcome]:
        ids = [case.id for case in cases]
        assert len(set(ids)) == len(ids)
        seen.extend(ids)
        return _in_process("window-off-by-one", [])(cases)

    result: list[Shrunk] = shrink([failing], record_ids, rounds=3, limit=400)
    assert seen and result[0].minimal.case.scenario.startswith(failing.case.scenario)


def test_kjoin_fuzz_draws_self_joins_for_a_candidate_that_claims_them() -> None:
    """A claim with ``self_joins`` gets generated self-joins besides its two-sided stream-stream joins (kjoin
    fuzz drew none before); a claim without them gets none."""
    from kjoin.conformance.differential.fuzz import generated_batches

    joins = frozenset({"stream-stream", "stream-globaltable"})
    plain = Claim(joins=joins, variants=frozenset({"inner", "left", "outer"}), kafka=("3.9",))
    profile = replace(PROFILES["ci"], examples=12)
    without = generated_batches(plain, [("3.9", 12)], profile, 7)
    with_self = generated_batches(replace(plain, self_joins=True), [("3.9", 12)], profile, 7)
    # the third: the 3.8+ minTime scenarios of a stream-stream outer/left claim (generate_min_time_cases)
    assert [batch.join for batch in without] == ["stream-stream", "stream-globaltable", "stream-stream"]
    assert all(case.scenario.startswith("fuzz-mt-") for case in without[2].cases)
    assert not any(case.spec.self_join for batch in without for case in batch.cases)
    assert with_self[:2] == without[:2] and with_self[3:] == without[2:]
    [self_joins] = with_self[2:3]
    assert self_joins.cases and all(case.spec.self_join for case in self_joins.cases)
    assert all(case.scenario.startswith("fuzz-sj-") for case in self_joins.cases)
    assert {case.spec.optimization for case in self_joins.cases} == {"none", "all"}
