"""Claims run as what they claim (docs/candidates.md, "Claims"), no Spark: the version that claims a case,
the catalogue's statements of other eras run once as the claimed version, and which releases each claimed
era ran as (the run summary, the pytest plugin, the results document and the report)."""

from __future__ import annotations

from dataclasses import replace

import msgspec
import pytest

from kjoin.conformance.catalogue import Case, case_id, load_cases
from kjoin.conformance.documents.outcomes import CaseOutcome, kafka_outputs
from kjoin.conformance.documents.results import candidate_json, case_result, results_document
from kjoin.conformance.harness.claims import as_claimed, at_commit_points, claimed_version, unclaimed_because
from kjoin.conformance.harness.text import render_ran_as
from kjoin.conformance.protocol import Claim, ran_as
from kjoin.oracle.behaviour import era_of
from kjoin.oracle.records import JoinSpec, Record, Settings, Window
from kjoin.reports.index_page import render_index_page
from support.fixture_candidates import OracleOnDriver
from support.report_documents import answered_by_version, outcome_of

ALL_JOINS = frozenset({"stream-stream", "stream-table", "table-table", "fk"})
ALL_VARIANTS = frozenset({"inner", "left", "outer"})
CLAIM_39 = Claim(
    joins=ALL_JOINS, variants=ALL_VARIANTS, kafka=("3.9",), versioned=True, stream_table_grace=True
)


def tt_case(kafka: str, scenario: str = "tt-a", value: str = "a") -> Case:
    records = (Record("left", "k", "A", 1), Record("right", "k", value, 2))
    spec = JoinSpec("table-table", "inner", None, stores="memory")
    return Case(
        case_id(scenario, "inner", kafka, False), scenario, kafka, False, spec, records, source="t.jsonl"
    )


def ss_case(kafka: str, scenario: str = "ss-a") -> Case:
    records = (Record("left", "k", "A", 1), Record("right", "k", "a", 2))
    spec = JoinSpec("stream-stream", "inner", Window(before=5, after=5, grace=0), stores="memory")
    return Case(
        case_id(scenario, "inner", kafka, False), scenario, kafka, False, spec, records, source="t.jsonl"
    )


@pytest.mark.parametrize(
    ("claimed", "case", "version"),
    [
        (("3.9",), tt_case("3.8.1"), "3.9"),  # the claimed era (3.8.0 to 3.9.0)
        (("3.9",), tt_case("3.5.2"), "3.9"),  # table-table joins are the same from 3.5 on
        (("3.9",), tt_case("4.4.0"), "3.9"),
        (("3.9",), tt_case("3.4"), None),  # no versioned tables before 3.5
        (("3.9",), ss_case("3.7"), None),  # 3.8 changed when held outer records close (KAFKA-15417)
        (("3.9",), ss_case("4.4.0"), "3.9"),
        (("3.7", "3.9"), tt_case("3.5.2"), "3.7"),  # the nearest claimed version: the oldest after it
        (("3.7", "3.9"), tt_case("4.4.0"), "3.9"),  # the newest before it
        (("3.9", "3.7"), tt_case("3.6"), "3.7"),  # whatever order the claim lists them in
    ],
)
def test_the_version_that_claims_a_case(claimed: tuple[str, ...], case: Case, version: str | None) -> None:
    assert claimed_version(claimed, case) == version


def test_a_case_of_another_era_with_the_same_semantics_runs_once_as_the_claimed_version() -> None:
    stated = [tt_case("3.5.2"), tt_case("3.9"), tt_case("4.4.0"), tt_case("4.4.0", "tt-b"), ss_case("3.7")]
    claimed = as_claimed(CLAIM_39, stated)
    assert [(case.id, case.kafka, case.source) for case in claimed.cases] == [
        ("tt-a[inner-3.9]", "3.9", "t.jsonl"),  # stated for 3.9 itself: kept as it is
        ("tt-b[inner-3.9]", "3.9", "t.jsonl"),  # stated only for 4.4.0: runs as 3.9
        ("ss-a[inner-3.7]", "3.7", "t.jsonl"),  # not claimed: stays, reported "not claimed"
    ]
    assert claimed.folded == 2  # tt-a as 3.5.2 and as 4.4.0: the same inputs, so the same check as 3.9
    assert claimed.cases[1].expected is None  # 4.4.0's stated outputs are not 3.9's statement
    assert unclaimed_because(CLAIM_39, claimed.cases[2]) is not None


def test_a_retargeted_case_with_other_inputs_keeps_its_own_release() -> None:
    stated = [tt_case("3.9"), tt_case("4.4.0", value="other")]
    claimed = as_claimed(CLAIM_39, stated)
    assert [case.id for case in claimed.cases] == ["tt-a[inner-3.9]", "tt-a[inner-4.4.0]"]
    assert claimed.folded == 0
    releases = [case.kafka for case in claimed.cases]
    assert ran_as(CLAIM_39.kafka, releases) == [
        {"claimed": ["3.9"], "era": "3.8", "releases": {"3.9": 1}},
        {"claimed": [], "era": "4.0.1", "releases": {"4.4.0": 1}},
    ]


def test_a_claim_of_every_era_runs_the_catalogue_as_stated() -> None:
    from kjoin.conformance.candidates.spark_reference import CLAIM

    cases = load_cases().cases
    claimed = as_claimed(CLAIM, cases)
    assert claimed.cases == cases and claimed.folded == 0


def test_the_catalogue_claimed_as_39_runs_each_scenario_once_as_39_and_the_oracle_agrees() -> None:
    """The premise of running a statement of another era as the claimed version: the flags of its join kind
    are the same, so the oracle says the same for it as for its own release (checked on the catalogue)."""
    cases = load_cases().cases
    claimed = as_claimed(CLAIM_39, cases)
    run = [case for case in claimed.cases if unclaimed_because(CLAIM_39, case) is None]
    assert {case.kafka for case in run} == {"3.9"}
    assert len({case.id for case in claimed.cases}) == len(claimed.cases)
    before = [case for case in cases if unclaimed_because(CLAIM_39, case) is None]
    assert len(run) + claimed.folded == len(before)
    assert claimed.folded > len(run)  # most of the catalogue states a scenario for many releases
    moved = [case for case in before if era_of(case.kafka) != "3.8"]
    by_id = {case.id: case for case in run}
    for case in moved:
        as_39 = by_id[case_id(case.scenario, case.variant, "3.9", case.intended)]
        assert (as_39.spec, as_39.records) == (case.spec, case.records)
        assert kafka_outputs(as_39) == kafka_outputs(case), case.id


def test_ran_as_lists_each_claimed_era_with_its_releases_oldest_first() -> None:
    releases = ["4.4.0", "4.0.2", "4.4.0", "3.9", "4.3"]
    entries = ran_as(("3.9", "4.3", "4.0.1", "3.5"), releases)
    assert entries == [
        {"claimed": ["3.9"], "era": "3.8", "releases": {"3.9": 1}},
        {"claimed": ["4.3", "4.0.1"], "era": "4.0.1", "releases": {"4.0.2": 1, "4.3": 1, "4.4.0": 2}},
        {"claimed": ["3.5"], "era": "3.5", "releases": {}},
    ]
    assert render_ran_as(entries, folded=7) == [
        "Kafka releases run, per claimed era:",
        "  3.9 (era 3.8): 3.9 (1 case)",
        "  4.3, 4.0.1 (era 4.0.1): 4.0.2 (1 case), 4.3 (1 case), 4.4.0 (2 cases)",
        "  3.5 (era 3.5): no claimed case",
        "  (7 cases stated for releases of other eras with the same semantics ran once, as the claimed "
        "version)",
    ]


def test_the_results_document_and_the_report_say_which_releases_each_claimed_era_ran_as() -> None:
    candidate = OracleOnDriver(claim=replace(CLAIM_39, kafka=("3.9", "3.5")))
    claimed = as_claimed(candidate.claim, [tt_case("4.4.0"), ss_case("3.7")])
    as_39, old = claimed.cases
    reason = unclaimed_because(candidate.claim, old)
    assert reason is not None
    outcomes = [
        outcome_of(as_39, answered_by_version("3.9")(as_39)),
        CaseOutcome(old, "not-claimed", reason=reason),
    ]
    document = results_document({}, candidate_json(candidate), [case_result(outcome) for outcome in outcomes])
    assert document["summary"]["ran_as"] == [
        {"claimed": ["3.9"], "era": "3.8", "releases": {"3.9": 1}},
        {"claimed": ["3.5"], "era": "3.5", "releases": {}},
    ]
    page = render_index_page(document)
    assert "Kafka releases run, per claimed era:" in page
    assert "<li>claimed 3.9 (era 3.8): ran as 3.9 (1 case)</li>" in page
    assert "<li>claimed 3.5 (era 3.5): ran as no claimed case</li>" in page


def test_commit_point_claims_take_production_settings_of_the_table_joins_they_compare_at_that_level() -> None:
    """``commit_points`` claims every table join's production settings (all compared at commit-points);
    ``record_caches`` claims cached table-table scenarios only, the rest staying as they were."""
    cached = msgspec.structs.replace(
        tt_case("3.9"),
        spec=msgspec.structs.replace(tt_case("3.9").spec, settings=Settings(cache_max_bytes=1024)),
    )
    committing = msgspec.structs.replace(
        tt_case("3.9"), records=tuple(msgspec.structs.replace(r, commit=True) for r in tt_case("3.9").records)
    )
    stream = msgspec.structs.replace(
        ss_case("3.9"),
        spec=msgspec.structs.replace(ss_case("3.9").spec, settings=Settings(cache_max_bytes=1024)),
    )
    production = "not claimed: production settings (record cache, commit points, emit throttle)"
    port = replace(CLAIM_39, commit_points=True)
    assert [at_commit_points(port, case) for case in (tt_case("3.9"), cached, committing, stream)] == [
        True,
        True,
        True,
        False,
    ]
    assert [unclaimed_because(port, case) for case in (cached, committing, stream)] == [
        None,
        None,
        production,
    ]
    caches = replace(CLAIM_39, record_caches=True)
    assert [at_commit_points(caches, case) for case in (tt_case("3.9"), cached, committing, stream)] == [
        False,
        True,
        False,
        False,
    ]
    assert [unclaimed_because(caches, case) for case in (cached, committing)] == [None, production]
    assert unclaimed_because(CLAIM_39, cached) == production
