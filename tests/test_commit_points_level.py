"""The commit-points level wired to the oracle and the documents (no Spark): which cases ``auto`` compares at
it, Kafka's segments from the oracle, the results document and the report."""

from __future__ import annotations

import json

import msgspec

from kjoin.conformance.checker import Emitted
from kjoin.conformance.documents.outcomes import resolve_mode
from kjoin.conformance.kafka_segments import kafka_segments
from kjoin.oracle.behaviour import behaviour_for, era_of, parse_version
from kjoin.oracle.engine import run
from kjoin.oracle.records import Output
from kjoin.reports import render_report
from kjoin.reports.scenario_page import explained_by, scenario_file
from support.commit_points import MICRO_BATCH, PORT
from support.report_documents import FakeCandidate, document_of, make_case, outcome_of, with_outputs

ROWS = [("left", "k1", "A", 1), ("right", "k1", "a", 2), ("left", "k2", "B", 3), ("right", "k2", "b", 4)]


def test_auto_compares_table_results_of_a_micro_batch_port_at_commit_points() -> None:
    table = make_case("tt-small", ROWS, join="table-table", variant="inner")
    stream = make_case("st-small", ROWS, join="stream-table", variant="inner")
    answer = Emitted((), causes_known=True)
    assert resolve_mode("auto", table, answer, commit_points=True) == "commit-points"
    assert resolve_mode("auto", stream, answer, commit_points=True) == "exact"
    assert resolve_mode("auto", table, answer) == "exact"
    assert resolve_mode("exact", table, answer, commit_points=True) == "exact"
    assert resolve_mode("commit-points", stream, answer) == "commit-points"


def test_stream_segments_are_the_outputs_of_the_records_between_two_commits() -> None:
    case = make_case("st-small", ROWS, join="stream-table", variant="left")
    behaviour = behaviour_for("3.9")
    outputs = run(case.spec, case.records, behaviour)
    segments = kafka_segments(case.spec, case.records, behaviour)
    assert (segments.inputs, segments.merge_repeats) == (4, False)
    assert list(segments.segment(0, 4)) == outputs
    assert [o.cause for o in segments.segment(1, 3)] == [o.cause for o in outputs if 1 <= o.cause < 3]


def test_a_stream_join_regrouped_across_keys_within_a_batch_passes_and_says_which_commits() -> None:
    case = make_case("st-small", ROWS, join="stream-table", variant="left")
    kafka = run(case.spec, case.records, behaviour_for("3.9"))  # k1: A - null @1, k2: B - null @3
    assert [o.key for o in kafka] == ["k1", "k2"]
    swapped = with_outputs(case, [kafka[1], kafka[0]], causes=False)
    outcome = outcome_of(case, swapped, mode="commit-points")
    assert (outcome.status, outcome.verdict and outcome.verdict.commit_points) == ("pass", (3,))
    document = json.loads(json.dumps(document_of([outcome], FakeCandidate())))
    [result] = document["cases"]
    assert (result["mode"], result["commit_points"]) == ("commit-points", [3])
    page = render_report(document, all_pages=True)[scenario_file("st-small")]  # a passing case's page
    assert "compared as commit-points" in page
    assert explained_by([3]) in page


def test_an_output_no_commit_points_explain_is_reported_with_its_evidence() -> None:
    case = make_case("st-small", ROWS, join="stream-table", variant="left")
    kafka = run(case.spec, case.records, behaviour_for("3.9"))
    wrong = Output("k2", ("B", "b"), 3, -1)
    outcome = outcome_of(case, with_outputs(case, [kafka[0], wrong], causes=False), mode="commit-points")
    assert outcome.status == "fail"
    assert outcome.verdict is not None
    [divergence] = outcome.verdict.divergences
    assert (divergence.kind, divergence.actual, divergence.expected) == (
        "unexplained-output",
        wrong,
        kafka[1],
    )
    document = json.loads(json.dumps(document_of([outcome], FakeCandidate())))
    [result] = document["cases"]
    assert result["first_divergence"]["kind"] == "unexplained-output"
    assert result["commit_points"] == [2]  # a commit after #2 would flush k1: A - null and k2: B - null
    page = render_report(document)[scenario_file("st-small")]
    assert "unexplained-output" in page
    assert "no commit points make Kafka emit k2: B - b @3" in page


def test_table_segments_come_from_the_oracle_with_caches_and_no_commit_points_of_the_scenario() -> None:
    case = make_case("tt-micro-batch", MICRO_BATCH, join="table-table", variant="inner")
    # the scenario's own commit points: ignored
    records = tuple(msgspec.structs.replace(record, commit=True) for record in case.records)
    segments = kafka_segments(case.spec, records, behaviour_for("3.9"))
    assert (segments.inputs, segments.merge_repeats) == (6, True)
    c_a = ("k1", ("C", "a"), 4)
    assert [o[:3] for o in segments.segment(2, 4)] == [c_a]  # B merged into C: one flush of k1
    assert [o[:3] for o in segments.segment(1, 4)] == [c_a, c_a]  # k1 dirty in both tables: flushed twice
    assert [o[:3] for o in segments.segment(4, 5)] == []  # right k2 with no left value: nothing to join


def test_a_micro_batch_port_passes_and_the_uncached_changelog_fails_where_a_cache_merges() -> None:
    case = make_case("tt-micro-batch", MICRO_BATCH, join="table-table", variant="inner")
    port = list(PORT)
    found = outcome_of(case, with_outputs(case, port, causes=False), mode="commit-points")
    assert (found.status, found.verdict and found.verdict.commit_points) == ("pass", (1, 5))
    changelog = outcome_of(case, with_outputs(case, port, causes=False), mode="multiset")
    assert changelog.verdict is not None  # Kafka's changelog without a cache also has k1: B - a @3
    assert [(d.kind, d.expected and d.expected[:3]) for d in changelog.verdict.divergences] == [
        ("missing-output", ("k1", ("B", "a"), 3))
    ]


def test_a_delete_of_an_absent_key_is_an_output_no_commit_points_explain() -> None:
    """Without a cache Kafka emits a tombstone for a delete of an absent left key while the right side has
    a value (TT-4); every cache flush skips that delete (PR-6), whatever the commit points."""
    case = make_case("tt-delete", [("right", "k", "a", 1), ("left", "k", None, 2)], join="table-table",
                     variant="inner")  # fmt: skip
    uncached = run(case.spec, case.records, behaviour_for("3.9"))
    assert [o[:3] for o in uncached] == [("k", None, 2)]
    found = outcome_of(case, with_outputs(case, uncached, causes=False), mode="commit-points")
    assert found.status == "fail" and found.verdict is not None
    [divergence] = found.verdict.divergences
    assert (divergence.kind, divergence.actual, divergence.expected) == (
        "unexplained-output",
        uncached[0]._replace(cause=-1),
        None,
    )


def test_the_verdict_names_the_eras_whose_caches_explain_a_micro_batch_port() -> None:
    """The results document's verdict scores the port at commit-points against every era (eras with the same
    table-join flags scored once): every era with record caches (2.3+) explains it, none before."""
    case = make_case("tt-micro-batch", MICRO_BATCH, join="table-table", variant="inner")
    port = list(PORT)
    outcome = outcome_of(case, with_outputs(case, port, causes=False), mode="commit-points")
    [verdict] = document_of([outcome], FakeCandidate())["verdicts"]
    scored = {era["era"]: (era["matched"], era["applicable"]) for era in verdict["eras"]}
    assert {era for era, (matched, _) in scored.items() if matched} == {
        era for era in scored if era_of(era) is not None and parse_version(era) >= (2, 3)
    }
    assert all(applicable == 0 for era, (_, applicable) in scored.items() if parse_version(era) < (2, 3))


def test_an_unexplained_output_is_explained_by_its_commit_points_not_by_one_inputs_state() -> None:
    case = make_case("tt-delete", [("right", "k", "a", 1), ("left", "k", None, 2)], join="table-table",
                     variant="inner")  # fmt: skip
    uncached = run(case.spec, case.records, behaviour_for("3.9"))
    outcome = outcome_of(case, with_outputs(case, uncached, causes=False), mode="commit-points")
    [result] = document_of([outcome], FakeCandidate())["cases"]
    assert result["first_divergence"]["kind"] == "unexplained-output"
    assert result["explanation"] is None
