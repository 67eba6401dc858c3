"""The verdict: which Kafka era's semantics a candidate's outputs match best, per join kind and variant.
The fake candidates answer every case (asked as Kafka 3.9) with the oracle's outputs as another version."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

import pytest

from kjoin.conformance.harness.cases import Case, load_cases
from kjoin.conformance.harness.outcomes import CaseOutcome
from kjoin.reports.document import results_from_json
from kjoin.reports.verdict import ERA_VERSIONS, era_range_label, verdicts
from kjoin.reports.write import render_report
from kjoin.scenarios import CATALOGUE_ROOT
from support.report_documents import answered_by_version, document_of, outcome_of


def _cases(folder: str) -> tuple[Case, ...]:
    return load_cases([CATALOGUE_ROOT / folder], kafka="3.9").cases


def _document(cases: Sequence[Case], version: str, *, causes: bool = True) -> dict[str, Any]:
    answer = answered_by_version(version, causes=causes)
    return json.loads(json.dumps(document_of([outcome_of(case, answer(case)) for case in cases])))


def _verdict(document: dict[str, Any], variant: str) -> dict[str, Any]:
    [found] = [v for v in document["verdicts"] if v["variant"] == variant]
    return found


@pytest.fixture(scope="module")
def stream_stream() -> tuple[Case, ...]:
    return _cases("stream_stream")


def test_verdict_finds_eager_left_join_of_a_candidate_answering_as_3_0(
    stream_stream: tuple[Case, ...],
) -> None:
    left = _verdict(_document(stream_stream, "3.0"), "left")
    assert left["best"] == ["2.1", "2.3", "2.4", "2.5.1", "3.0"]
    assert left["summary"] == (
        "left stream-stream join (run as Kafka 3.9) matches 2.1\u20133.0 (5/5 cases); "
        "not 0.10.0\u20130.10.2 (4/5; join_windows_have_grace, rocksdb_segments_expire_by_retention), "
        "not 3.1+ (4/5; has_spurious_free_outer_joins)"
    )


def test_verdict_finds_spurious_free_left_join_of_a_candidate_answering_as_3_9(
    stream_stream: tuple[Case, ...],
) -> None:
    document = _document(stream_stream, "3.9")
    for variant in ("left", "outer"):
        verdict = _verdict(document, variant)
        assert verdict["best"] == ["3.1", "3.4", "3.5", "3.6", "3.7", "3.8"]
        matches = f"{variant} stream-stream join (run as Kafka 3.9) matches 3.1+ (5/5 cases)"
        assert matches in verdict["summary"]
        assert "not 0.10.0\u20133.0 (4/5; has_spurious_free_outer_joins)" in verdict["summary"]
    inner = _verdict(document, "inner")
    assert inner["best"][0] == "2.1" and inner["best"][-1] == "3.8"  # inner joins did not change in 3.1


def test_verdict_scores_every_era_against_the_candidates_outputs(stream_stream: tuple[Case, ...]) -> None:
    left = _verdict(_document(stream_stream, "3.0"), "left")
    scores = {era["era"]: (era["matched"], era["applicable"]) for era in left["eras"]}
    assert list(scores) == [era for era, _ in ERA_VERSIONS]
    assert scores["3.0"] == (5, 5) and scores["3.1"] == (4, 5)
    assert scores["0.10.2"] == (4, 4) and scores["0.10.1"] == (0, 4)  # before 2.1 no window has a grace
    ranges = [(r["eras"], r["best"]) for r in left["ranges"]]
    assert ranges == [("0.10.0\u20130.10.2", False), ("2.1\u20133.0", True), ("3.1+", False)]


def test_verdict_without_emitting_inputs_compares_as_multisets(stream_stream: tuple[Case, ...]) -> None:
    left = _verdict(_document(stream_stream, "3.0", causes=False), "left")
    assert left["best"] == ["2.1", "2.3", "2.4", "2.5.1", "3.0"]


def test_verdict_of_a_stream_table_candidate_answering_as_0_10_1_skips_its_errors() -> None:
    document = _document(_cases("stream_table"), "0.10.1")
    assert {case["status"] for case in document["cases"] if case["variant"] == "inner"} == {"fail"}
    [left] = document["verdicts"]  # 0.10.1 has no inner stream-table join: every inner case is an error
    assert (left["variant"], left["best"]) == ("left", ["0.10.0", "0.10.1"])
    matches = "left stream-table join (run as Kafka 3.9) matches 0.10.0\u20130.10.1 (5/5 cases)"
    assert left["summary"].startswith(matches)


def test_verdict_ignores_cases_the_candidate_does_not_claim(stream_stream: tuple[Case, ...]) -> None:
    outcomes = [CaseOutcome(case, "not-claimed", reason="not claimed") for case in stream_stream]
    assert document_of(outcomes)["verdicts"] == []


def test_verdict_in_results_file_is_the_one_the_report_shows(stream_stream: tuple[Case, ...]) -> None:
    document = _document(stream_stream, "3.0")
    results = results_from_json(document, "results.json")
    assert [v.to_json() for v in verdicts(results.cases)] == document["verdicts"]
    index = render_report(results)["index.html"]
    assert "<td><b>2.1\u20133.0</b> (5/5)</td>" in index
    assert '3.1+ (4/5) <span class="muted">has_spurious_free_outer_joins</span>' in index


def test_era_range_label_names_single_eras_ranges_and_open_ends() -> None:
    assert era_range_label(["2.3"]) == "2.3"
    assert era_range_label(["0.10.2", "2.1", "2.3"]) == "0.10.2\u20132.3"
    assert era_range_label(["3.1", "3.4", "3.5", "3.6", "3.7", "3.8"]) == "3.1+"
