"""Candidate loading and validation, claims, declared differences, rendering, case results (no Spark)."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest
from msgspec import structs

from kjoin.conformance.catalogue import Case, case_id, load_cases
from kjoin.conformance.checker import Emitted, check
from kjoin.conformance.documents.outcomes import CaseOutcome
from kjoin.conformance.documents.results import case_result
from kjoin.conformance.harness.claims import declared_difference_for, unclaimed_because
from kjoin.conformance.harness.text import render_outcome
from kjoin.conformance.protocol import (
    CandidateLoadError,
    Claim,
    DeclaredDifference,
    candidate_names,
    load_candidate,
    validate_candidate,
)
from kjoin.oracle.records import JoinSpec, Output, Record, Versioning, Window
from support.fixture_candidates import OracleOnDriver

NOT_A_CANDIDATE = object()


def ss_case(variant: str = "left", kafka: str = "3.9", scenario: str = "ss-left-x") -> Case:
    records = (Record("left", "k", "A", 3), Record("right", "k", "a", 4))
    spec = JoinSpec("stream-stream", variant, Window(before=1, after=1, grace=0), stores="memory")
    return Case(case_id(scenario, variant, kafka, False), scenario, kafka, False, spec, records)


def test_load_candidate_resolves_module_attr_and_calls_a_factory() -> None:
    loaded = load_candidate("support.fixture_candidates:window_off_by_one")
    assert (loaded.name, loaded.widen_after) == ("window-off-by-one", 1)


def test_load_candidate_resolves_registered_entry_point_names() -> None:
    assert candidate_names()["spark-native"] == "kjoin.conformance.candidates.spark_native:candidate"
    assert load_candidate("spark-native").name == "spark-native"


@pytest.mark.parametrize(
    ("name", "message"),
    [
        ("no-such-candidate", "unknown candidate 'no-such-candidate'"),
        ("kjoin.no_such_module:x", "cannot import module 'kjoin.no_such_module'"),
        ("support.fixture_candidates:nothing", "has no attribute 'nothing'"),
        ("test_candidate_protocol:NOT_A_CANDIDATE", "lacks name, claim"),
    ],
)
def test_load_candidate_explains_what_is_wrong_when_name_is_unusable(name: str, message: str) -> None:
    with pytest.raises(CandidateLoadError, match=message):
        load_candidate(name)


def test_unclaimed_because_names_the_property_outside_the_claim() -> None:
    claim = Claim(joins=frozenset({"stream-stream"}), variants=frozenset({"inner"}), kafka=("3.9",))
    assert unclaimed_because(claim, ss_case("inner", "4.0")) is None
    assert unclaimed_because(claim, ss_case("left")) == "not claimed: left stream-stream joins"
    assert "Kafka 3.7 (era 3.7)" in str(unclaimed_because(claim, ss_case("inner", "3.7")))
    # a claimed version covers another only where the join kind's semantics agree: 4.0.0 brought back the
    # foreign-key bug 3.9.1 had fixed (KAFKA-16394)
    fk = ss_case("inner", "4.0")
    fk = structs.replace(
        fk, spec=structs.replace(fk.spec, join="fk", window=None, fk_extractor="colon-prefix")
    )
    fk_claim = replace(claim, joins=frozenset({"fk"}), kafka=("3.9.1",))
    assert "Kafka 4.0 (era 4.0.0)" in str(unclaimed_because(fk_claim, fk))
    assert unclaimed_because(fk_claim, structs.replace(fk, kafka="4.0.1")) is None
    versioned = ss_case("inner")
    versioned = structs.replace(
        versioned,
        spec=structs.replace(
            versioned.spec, join="stream-table", versioned=Versioning(right=True, history_ms=5)
        ),
    )
    assert unclaimed_because(replace(claim, joins=frozenset({"stream-table"})), versioned) == (
        "not claimed: versioned tables"
    )


def test_declared_difference_for_matches_glob_join_variant_and_era() -> None:
    broad = DeclaredDifference("ss-*", "Spark never emits eager left results", variants=frozenset({"left"}))
    old = DeclaredDifference("*", "old era only", kafka=("3.5",))
    candidate = replace(OracleOnDriver(), declared_differences=(old, broad))
    assert declared_difference_for(candidate, ss_case("left")) is broad
    assert declared_difference_for(candidate, ss_case("inner")) is None
    assert declared_difference_for(candidate, ss_case("inner", "3.5.1")) is old


def test_load_cases_retargets_each_scenario_once_when_kafka_is_given(tmp_path: Path) -> None:
    line = {
        "id": "s1",
        "join": "stream-stream",
        "variant": "inner",
        "window": {"before": 1, "grace": 0},
        "records": [{"side": "left", "key": 1, "value": "A", "ts": 1}],
    }
    path = tmp_path / "s.jsonl"
    path.write_text("\n".join(json.dumps(dict(line, kafka=v)) for v in ("3.5", "3.9")) + "\n{bad\n")
    own = load_cases([path])
    assert [c.id for c in own.cases] == ["s1[inner-3.5]", "s1[inner-3.9]"]
    assert len(own.errors) == 1 and "s.jsonl:3 [?] field (line): is not valid JSON" in str(own.errors[0])
    retargeted = load_cases([path], kafka="3.7")
    assert [(c.id, c.kafka) for c in retargeted.cases] == [("s1[inner-3.7]", "3.7")]


def test_render_outcome_shows_missing_extra_and_the_first_divergent_input() -> None:
    case = ss_case()
    kafka = Emitted((Output("k", ("A", "a"), 4, 1),), causes_known=True)
    got = Emitted((Output("k", ("A", None), 3, 1),), causes_known=True)
    verdict = check(kafka, got, "exact")
    text = render_outcome(CaseOutcome(case, "fail", "exact", verdict, kafka, got))
    assert "first divergence at input #1 right k: a @4" in text
    assert "why: Kafka joins these records" in text
    assert "k: A - a @4" in text and "k: A - null @3" in text
    assert ">>" in text and "Kafka emits" in text and "candidate emits" in text


def test_case_result_is_plain_json_with_the_first_divergence_input() -> None:
    case = ss_case()
    kafka = Emitted((Output("k", ("A", "a"), 4, 1),), causes_known=True)
    got = Emitted(())
    outcome = CaseOutcome(case, "fail", "multiset", check(kafka, got, "multiset"), kafka, got)
    result = json.loads(json.dumps(case_result(outcome)))
    assert result["first_divergence"]["kind"] == "missing-output"
    first_input = {"index": 1, "side": "right", "key": "k", "value": "a", "ts": 4}
    assert result["first_divergence"]["input"] == first_input
    assert result["expected"] == [{"key": "k", "value": ["A", "a"], "ts": 4, "cause": 1}]
    assert result["explanation"]["at"] == 1 and result["explanation"]["why"]
    assert result["timeline"] == {"stream_time": [3, 4]}


SS = frozenset({"stream-stream"})


@pytest.mark.parametrize(
    ("claim", "message"),
    [
        (
            Claim(joins=frozenset({"stream-streams"}), variants=frozenset({"inner"}), kafka=("3.9",)),
            "claim.joins: 'stream-streams' is not one of",
        ),
        (
            Claim(joins=SS, variants=frozenset({"full"}), kafka=("3.9",)),
            "claim.variants: 'full' is not one of",
        ),
        (Claim(joins=SS, variants=frozenset({"inner"}), kafka=()), "claim.kafka names no Kafka version"),
        (Claim(joins=frozenset(), variants=frozenset({"inner"}), kafka=("3.9",)), "claim.joins is empty"),
        (
            Claim(joins=SS, variants=frozenset({"inner"}), kafka=(" 3.9",)),
            "claim.kafka: ' 3.9' is not a Kafka version",
        ),
        (
            Claim(joins=SS, variants=frozenset({"inner"}), kafka=("3.9",), stores=frozenset({"disk"})),
            "claim.stores: 'disk' is not one of",
        ),
    ],
    ids=["unknown-join", "unknown-variant", "no-versions", "no-joins", "version-with-space", "unknown-store"],
)
def test_validate_candidate_refuses_a_claim_that_would_check_nothing(claim: Claim, message: str) -> None:
    with pytest.raises(CandidateLoadError, match=message):
        validate_candidate("claiming", replace(OracleOnDriver(), claim=claim))
