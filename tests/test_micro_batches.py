"""Micro-batch splits as a test dimension (docs/streaming.md#micro-batch-splits), without Spark: parsing the
option, the splits, the feed's micro-batches, shrinking over the split to a local minimum, the results
document, the terminal and the report. The candidates are copies of spark-stateful's join code with a bug
between micro-batches (``support.micro_batch_bugs``), run in-process: the same function their Spark jobs
run. ``test_micro_batches_spark.py`` runs one through ``kjoin fuzz`` on Spark.
"""

from __future__ import annotations

import io
import json
from dataclasses import replace
from itertools import pairwise
from pathlib import Path

import pytest
from msgspec import structs

from kjoin.conformance.catalogue import Case, MicroBatches, load_cases
from kjoin.conformance.cli import main
from kjoin.conformance.differential.fuzz import Counterexample
from kjoin.conformance.differential.generate import generate_cases
from kjoin.conformance.differential.profiles import PROFILES
from kjoin.conformance.differential.regressions import read_regressions, write_regression
from kjoin.conformance.differential.shrink import complexity, local_minimum, removals, shrink
from kjoin.conformance.documents.results import candidate_json, case_result, results_document, run_metadata
from kjoin.conformance.harness.micro_batches import (
    RANDOM_MOST,
    Split,
    kept_records,
    parse_splits,
    split_cases,
    with_default_split,
)
from kjoin.conformance.harness.text import render_outcome
from kjoin.conformance.streaming.feed import micro_batches
from kjoin.reports.scenario_page import render_scenario_page
from support.micro_batch_bugs import CLAIM, MICRO_BATCH_BUGS, faithful, in_process
from support.results_schema import schema_errors

SPLITS = parse_splits("1,2,8,random:7")
LONG = replace(PROFILES["ci"], examples=60, max_size=14)
"""Scenarios longer than eight records: the default split of spark-stateful has boundaries in them."""


def _cases(profile=PROFILES["ci"]) -> tuple[Case, ...]:  # type: ignore[no-untyped-def]
    return generate_cases("stream-stream", "3.9", profile=profile, seed=20240601, claim=CLAIM).cases


def test_parse_splits_reads_sizes_and_seeded_random_splits() -> None:
    assert [s.label for s in SPLITS] == ["1", "2", "8", "random:7"]
    assert SPLITS[1] == Split("2", size=2) and SPLITS[3] == Split("random:7", seed=7)


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("0", "'0' is neither"),
        ("x", "'x' is neither"),
        ("random:a", "seed after"),
        ("2,2", "names a split twice"),
    ],
)
def test_parse_splits_says_what_is_wrong(text: str, problem: str) -> None:
    with pytest.raises(ValueError, match=problem):
        parse_splits(text)


def test_splits_cut_every_case_and_random_ones_are_repeatable() -> None:
    cases = _cases()
    split = split_cases(cases, SPLITS)
    assert len(split) == 4 * len(cases) and len({case.id for case in split}) == len(split)
    for case in split:
        assert case.micro_batches is not None and case.id.endswith(f"@{case.micro_batches.split}")
        starts = case.micro_batches.starts
        assert list(starts) == sorted(set(starts)) and all(0 < s < len(case.records) for s in starts)
        edges = [0, *starts, len(case.records)]
        sizes = [b - a for a, b in pairwise(edges)]
        if case.micro_batches.split == "random:7":
            assert all(1 <= size <= RANDOM_MOST for size in sizes)
        else:
            assert all(size == int(case.micro_batches.split) for size in sizes[:-1])
    assert split_cases(cases, SPLITS) == split
    other = split_cases(cases, parse_splits("random:8"))
    assert [c.micro_batches for c in other] != [c.micro_batches for c in split if c.id.endswith("random:7")]


def test_the_feed_puts_each_scenarios_own_micro_batches_together() -> None:
    rows = [(scenario, idx, "left", "k", "v", idx) for scenario in ("a", "b") for idx in range(5)]
    default = micro_batches(rows, steps_per_batch=2)
    assert [[(r[0], r[1]) for r in batch] for batch in default] == [
        [("a", 0), ("b", 0), ("a", 1), ("b", 1)],
        [("a", 2), ("b", 2), ("a", 3), ("b", 3)],
        [("a", 4), ("b", 4)],
    ]
    planned = micro_batches(rows, steps_per_batch=2, plan={"a": (1, 4)})
    assert [[(r[0], r[1]) for r in batch] for batch in planned] == [
        [("a", 0), ("b", 0), ("b", 1)],
        [("a", 1), ("a", 2), ("b", 2), ("a", 3), ("b", 3)],
        [("a", 4), ("b", 4)],
    ]


def test_a_faithful_copy_agrees_under_every_split_and_the_bugs_need_a_boundary() -> None:
    split = split_cases(_cases(), SPLITS)
    assert all(o.status == "pass" for o in in_process(faithful())(split).values())
    for bug in MICRO_BATCH_BUGS.values():
        failing = [o for o in in_process(bug)(split).values() if o.status == "fail"]
        assert failing, bug.name
        assert all(o.case.micro_batches is not None and o.case.micro_batches.starts for o in failing)
        whole = [structs.replace(o.case, micro_batches=MicroBatches("whole", ())) for o in failing]
        assert all(o.status == "pass" for o in in_process(bug)(whole).values()), bug.name


def test_removing_records_keeps_a_boundary_only_between_different_micro_batches() -> None:
    split = MicroBatches("2", (2, 4))
    assert kept_records(split, (0, 1, 4)) == MicroBatches("2", (2,))
    assert kept_records(split, (2, 3)) == MicroBatches("2", ())
    assert kept_records(split, (1, 2, 5)) == MicroBatches("2", (1, 2))


@pytest.mark.parametrize("bug", sorted(MICRO_BATCH_BUGS))
def test_a_bug_between_micro_batches_shrinks_to_a_local_minimum_with_its_boundary(bug: str) -> None:
    """The issue's case: under spark-stateful's own eight records per micro-batch, only scenarios longer
    than eight records fail; the counterexample must still shrink, to at most ten records, boundary kept."""
    candidate = MICRO_BATCH_BUGS[bug]
    cases = with_default_split(_cases(LONG), candidate)
    failing = sorted(
        (o for o in in_process(candidate)(cases).values() if o.status == "fail"),
        key=lambda o: complexity(o.case),
    )
    assert failing and all(len(o.case.records) > 8 for o in failing)
    evaluate = in_process(candidate)
    [rounds] = shrink(failing[:1], evaluate, rounds=10, limit=400)
    [shrunk] = local_minimum([rounds], evaluate)
    minimal = shrunk.minimal.case
    assert shrunk.minimal.status == "fail" and minimal.micro_batches is not None
    assert len(minimal.records) <= 10 and len(minimal.micro_batches.starts) >= 1
    neighbours = removals(minimal)
    assert neighbours and all(o.status == "pass" for o in evaluate(_unique(neighbours)).values())
    text = render_outcome(shrunk.minimal)
    assert f"boundaries before #{minimal.micro_batches.starts[0]}" in text and "batch" in text


def _unique(cases: list[Case]) -> list[Case]:
    return [structs.replace(case, id=f"{case.id}.{n}") for n, case in enumerate(cases)]


def test_the_final_pass_removes_what_the_rounds_left() -> None:
    candidate = MICRO_BATCH_BUGS["clock-lost"]
    failing = sorted(
        (o for o in in_process(candidate)(split_cases(_cases(), SPLITS)).values() if o.status == "fail"),
        key=lambda o: -len(o.case.records),
    )
    evaluate = in_process(candidate)
    [rounds] = shrink(failing[:1], evaluate, rounds=0, limit=400)  # the rounds stopped at once
    [final] = local_minimum([rounds], evaluate)
    assert final.final_steps >= 1
    assert len(final.minimal.case.records) < len(rounds.minimal.case.records)
    assert all(o.status == "pass" for o in evaluate(_unique(removals(final.minimal.case))).values())


def test_results_and_report_carry_the_split_and_mark_its_boundaries() -> None:
    candidate = MICRO_BATCH_BUGS["held-lost"]
    split = split_cases(_cases(), parse_splits("2,8"))
    outcomes = [o for o in in_process(candidate)(split).values() if o.status == "fail"]
    outcome = max(outcomes, key=lambda o: len(o.case.micro_batches.starts))  # type: ignore[union-attr]
    result = case_result(outcome)
    assert outcome.case.micro_batches is not None
    assert result["micro_batches"] == {"split": "2", "starts": list(outcome.case.micro_batches.starts)}
    run = run_metadata(master="local[1]", kafka=None, equivalence="auto", scenarios=["(generated)"])
    document = results_document(run, candidate_json(candidate), [result])
    assert not schema_errors(document), schema_errors(document)[:3]
    page = render_scenario_page(outcome.case.scenario, [result])
    assert "micro-batch split 2" in page and 'class="mb-boundary"' in page
    assert page.count('<tr class="mb-boundary">') == len(outcome.case.micro_batches.starts)
    assert "micro-batch 1 begins at input #2" in page


def test_kjoin_fuzz_and_run_refuse_splits_for_a_candidate_not_fed_in_micro_batches() -> None:
    for command in (["fuzz"], ["run"]):
        err = io.StringIO()
        argv = [*command, "--candidate", "support.planted_bugs:trigger_ts", "--steps-per-batch", "2"]
        assert main(argv, stdout=io.StringIO(), stderr=err) == 2
        assert "not fed in micro-batches" in err.getvalue()
    err = io.StringIO()
    argv = ["fuzz", "--candidate", "spark-stateful", "--steps-per-batch", "0"]
    assert main(argv, stdout=io.StringIO(), stderr=err) == 2
    assert "--steps-per-batch: '0' is neither a number of steps" in err.getvalue()


def test_a_saved_counterexample_keeps_its_split_and_a_bad_one_is_named(tmp_path: Path) -> None:
    candidate = MICRO_BATCH_BUGS["clock-lost"]
    failing = [o for o in in_process(candidate)(split_cases(_cases(), SPLITS)).values() if o.status == "fail"]
    evaluate = in_process(candidate)
    [shrunk] = local_minimum(shrink(failing[:1], evaluate, rounds=10, limit=400), evaluate)
    path = write_regression(tmp_path, Counterexample(shrunk, 20240601, "test"), candidate=candidate.name)
    [regression] = read_regressions(path)
    assert regression.case.micro_batches == shrunk.minimal.case.micro_batches
    [again] = evaluate([regression.case]).values()
    assert again.status == "fail"
    line = json.loads(path.read_text())
    line["micro_batches"]["starts"] = [0]
    bad = tmp_path / "bad.jsonl"
    bad.write_text(json.dumps(line) + "\n")
    loaded = load_cases([bad])
    assert not loaded.cases and "micro_batches.starts" in str(loaded.errors[0])
