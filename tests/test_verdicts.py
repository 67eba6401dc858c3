"""The verdict: which Kafka era's semantics a candidate's outputs match best, per join kind and variant.
The fake candidates answer every case (asked as Kafka 3.9) with the oracle's outputs as another version."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from kjoin.conformance.catalogue import Case, load_cases
from kjoin.conformance.documents import verdicts as verdicts_module
from kjoin.conformance.documents.outcomes import CaseOutcome
from kjoin.conformance.documents.results import (
    ResultsJournal,
    candidate_json,
    case_result,
    load_results,
    merge_documents,
    results_document,
)
from kjoin.conformance.documents.verdicts import ERA_VERSIONS, Scored, era_range_label, verdicts
from kjoin.reports import render_report
from kjoin.scenarios import CATALOGUE_ROOT
from support.report_documents import (
    RUN,
    FakeCandidate,
    answered_by_version,
    document_of,
    make_case,
    outcome_of,
    with_outputs,
)


def _cases(folder: str) -> tuple[Case, ...]:
    """The seed tables of a join kind (the KIP and documentation tables, not the edge cases)."""
    files = sorted((CATALOGUE_ROOT / folder).glob("docs-*.toml")) + sorted(
        (CATALOGUE_ROOT / folder).glob("kip*.toml")
    )
    return load_cases(files, kafka="3.9").cases


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
    assert left["best"] == ["2.1", "2.3", "2.4", "2.5.1", "2.7", "3.0"]
    assert left["exact"] is True
    assert left["summary"] == (
        "left stream-stream join (run as Kafka 3.9) matches 2.1\u20133.0 (5/5 cases); "
        "not 0.10.0\u20131.0.1 (4/5; join_windows_have_grace, rocksdb_segments_expire_by_retention), "
        "not 3.1+ (4/5; has_spurious_free_outer_joins)"
    )


def test_verdict_finds_spurious_free_left_join_of_a_candidate_answering_as_3_9(
    stream_stream: tuple[Case, ...],
) -> None:
    document = _document(stream_stream, "3.9")
    eras = [era for era, _ in ERA_VERSIONS]
    newest = eras[eras.index("3.1") :]
    for variant in ("left", "outer"):
        verdict = _verdict(document, variant)
        assert verdict["best"] == newest
        matches = f"{variant} stream-stream join (run as Kafka 3.9) matches 3.1+ (5/5 cases)"
        assert matches in verdict["summary"]
        assert "not 0.10.0\u20133.0 (4/5; has_spurious_free_outer_joins)" in verdict["summary"]
    inner = _verdict(document, "inner")
    assert inner["best"][0] == "2.1" and inner["best"][-1] == newest[-1]  # inner joins did not change in 3.1


def test_verdict_scores_every_era_against_the_candidates_outputs(stream_stream: tuple[Case, ...]) -> None:
    left = _verdict(_document(stream_stream, "3.0"), "left")
    scores = {era["era"]: (era["matched"], era["applicable"]) for era in left["eras"]}
    assert list(scores) == [era for era, _ in ERA_VERSIONS]
    assert scores["3.0"] == (5, 5) and scores["3.1"] == (4, 5)
    assert scores["0.10.2"] == (4, 4) and scores["0.10.1"] == (0, 4)  # before 2.1 no window has a grace
    ranges = [(r["eras"], r["best"]) for r in left["ranges"]]
    assert ranges == [("0.10.0\u20131.0.1", False), ("2.1\u20133.0", True), ("3.1+", False)]


def test_verdict_without_emitting_inputs_compares_as_multisets(stream_stream: tuple[Case, ...]) -> None:
    left = _verdict(_document(stream_stream, "3.0", causes=False), "left")
    assert left["best"] == ["2.1", "2.3", "2.4", "2.5.1", "2.7", "3.0"]


def test_verdict_of_a_stream_table_candidate_answering_as_0_10_1_skips_its_errors() -> None:
    document = _document(_cases("stream_table"), "0.10.1")
    assert {case["status"] for case in document["cases"] if case["variant"] == "inner"} == {"error"}
    [left] = document["verdicts"]  # 0.10.1 has no inner stream-table join: every inner case is an error
    assert (left["variant"], left["best"]) == ("left", ["0.10.0", "0.10.1"])
    matches = "left stream-table join (run as Kafka 3.9) matches 0.10.0\u20130.10.1 ("
    assert left["summary"].startswith(matches)


def test_an_era_without_the_join_is_never_the_closest() -> None:
    """No era matches (the candidate drops an output); eras that cannot run the case at all (in-memory
    stream join stores arrived in 2.4) must not win by having no divergences."""
    case = make_case("ss-one", [("left", "k", "A", 1), ("right", "k", "a", 4)], variant="inner")
    document = document_of([outcome_of(case, with_outputs(case, []))])
    [verdict] = document["verdicts"]
    assert verdict["exact"] is False
    assert verdict["best"][0] == "2.4"
    assert "comes closest to 2.4+ (0/1 cases)" in verdict["summary"]


def test_verdict_ignores_cases_the_candidate_does_not_claim(stream_stream: tuple[Case, ...]) -> None:
    outcomes = [CaseOutcome(case, "not-claimed", reason="not claimed") for case in stream_stream]
    assert document_of(outcomes)["verdicts"] == []


def test_verdict_flags_are_only_those_of_the_join_kind(stream_stream: tuple[Case, ...]) -> None:
    left = _verdict(_document(stream_stream, "3.0"), "left")
    assert "has_spurious_free_outer_joins" in left["flags"]
    assert not [flag for flag in left["flags"] if flag.startswith("fk_")]


def test_era_range_label_names_single_eras_ranges_and_open_ends() -> None:
    assert era_range_label(["2.3"]) == "2.3"
    assert era_range_label(["0.10.2", "2.1", "2.3"]) == "0.10.2\u20132.3"
    assert era_range_label([era for era, _ in ERA_VERSIONS][-3:]).endswith("+")


def test_the_verdict_says_what_the_behaviour_is_only_where_it_helps(stream_stream: tuple[Case, ...]) -> None:
    eager = _document(stream_stream, "3.0")
    left, inner = _verdict(eager, "left"), _verdict(eager, "inner")
    assert left["helps"] is True
    assert left["said"] == (
        "Your left stream-stream join behaves like Kafka 2.1\u20133.0, not like Kafka 3.9, on all 5 cases. "
        "Where they differ: in Kafka 3.9, JoinWindows.ofTimeDifferenceAndGrace exists and makes left/outer "
        'stream-stream joins hold non-joined records until the window plus grace closes ("spurious-free"); '
        "in Kafka 2.1\u20133.0, not (has_spurious_free_outer_joins)."
    )
    assert inner["helps"] is False
    assert inner["said"] == "Your inner stream-stream join behaves as Kafka 3.9 on all 5 cases."
    index = render_report(eager)["index.html"]
    section = index.split("<h2>Which Kafka semantics the candidate matches</h2>", 1)[1].split("<details>", 1)[
        0
    ]
    assert "Your left stream-stream join behaves like Kafka 2.1\u20133.0" in section
    assert "Your inner stream-stream join" not in section  # the scores per era stay folded below
    agreeing = _document(stream_stream, "3.9")
    assert not any(verdict["helps"] for verdict in agreeing["verdicts"])
    index = render_report(agreeing)["index.html"]
    assert "Nothing to learn here: no join behaves like another Kafka release" in index


def test_a_verdict_that_matches_no_release_says_the_divergences_are_the_candidates_own() -> None:
    case = make_case("ss-one", [("left", "k", "A", 1), ("right", "k", "a", 4)], variant="inner")
    [verdict] = document_of([outcome_of(case, with_outputs(case, []))])["verdicts"]
    assert verdict["helps"] is False
    assert verdict["said"] == (
        "Your inner stream-stream join: no Kafka release behaves like it on its one case; Kafka 3.9 agrees "
        "on 0, no other release on more. Its divergences are its own, not another release's semantics."
    )


def test_verdicts_are_sums_of_scores_kept_in_the_cases(
    stream_stream: tuple[Case, ...], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each case is scored against every era once, when its result is made (``era_scores``); reading a
    killed run's journal back and merging files then sum those scores and run no oracle, and give the
    verdicts computed from scratch. A document without kept scores (an earlier kjoin's) is scored again."""
    answer = answered_by_version("3.0")
    outcomes = [outcome_of(case, answer(case)) for case in stream_stream]
    from_scratch = verdicts([Scored(o.case, o.answer, o.mode) for o in outcomes])  # type: ignore[arg-type]
    journals = []
    for half in (0, 1):
        journal = ResultsJournal(tmp_path / f"r{half}.json", RUN, candidate_json(FakeCandidate()))
        for outcome in outcomes[half::2]:
            result = case_result(outcome)
            assert result["era_scores"] and sum(run[0] for run in result["era_scores"]) == len(ERA_VERSIONS)
            journal.add(result)
        journals.append(journal)
    older = [dict(case) for case in journals[0].cases.values()]
    for case in older:
        del case["era_scores"]

    def no_oracle(*args: object, **kwargs: object) -> None:
        raise AssertionError("the oracle ran while reading or merging results")

    monkeypatch.setattr(verdicts_module, "run", no_oracle)
    killed = load_results(journals[0].journal)
    merged = merge_documents([killed, journals[1].finish()], ["killed", "finished"])
    assert merged["verdicts"] == [verdict.to_json() for verdict in from_scratch]
    monkeypatch.undo()
    rescored = results_document(RUN, candidate_json(FakeCandidate()), [*older, *journals[1].cases.values()])
    assert rescored["verdicts"] == merged["verdicts"]
