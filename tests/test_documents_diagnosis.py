"""The diagnosis roll-up: each divergence sorted into a cause shape by a pure classifier over the typed
divergence, the case's inputs and Kafka's outputs; a run's shapes counted with the spec rule they concern,
whose links point at real headings of docs/semantics."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from kjoin.conformance.checker import Divergence
from kjoin.conformance.documents.diagnosis import diagnose, roll_up, shape_of
from kjoin.conformance.documents.outcomes import kafka_outputs
from kjoin.conformance.documents.rules import RULES, anchor
from kjoin.oracle.records import Output, Window
from support.report_documents import (
    answered_by_version,
    answered_ignoring,
    document_of,
    ignores_deletes,
    make_case,
    outcome_of,
)

SPEC = Path(__file__).resolve().parents[1] / "docs" / "semantics"


def _shapes(case, answer) -> dict[str, int]:  # type: ignore[no-untyped-def]
    outcome = outcome_of(case, answer)
    assert outcome.verdict is not None and outcome.expected is not None
    found: dict[str, int] = diagnose(case, outcome.expected.outputs, outcome.verdict.divergences)["shapes"]
    return found


def test_every_rule_links_to_a_heading_of_the_spec() -> None:
    for rule in RULES.values():
        path, fragment = rule.link.split("#")
        text = (SPEC.parent.parent / path).read_text(encoding="utf-8")
        headings = {anchor(h) for h in re.findall(r"^#{2,3} (.+)$", text, re.MULTILINE)}
        assert fragment in headings, rule


def test_a_candidate_that_ignores_table_deletes_misses_tombstones_and_joins_deleted_values() -> None:
    # L k:A, R k:b joins; R k:null deletes b (Kafka: a tombstone); L k:C then finds no right value (Kafka:
    # another tombstone, which the candidate answers with C - b: a wrong value)
    rows = [("left", "k", "A", 1), ("right", "k", "b", 2), ("right", "k", None, 3), ("left", "k", "C", 4)]
    case = make_case("tt-deletes", rows, join="table-table", variant="inner")
    shapes = _shapes(case, answered_ignoring(ignores_deletes)(case))
    assert shapes == {"missing-tombstone": 1, "deleted-value-used": 1}


def test_a_stream_table_candidate_ignoring_deletes_joins_the_deleted_value() -> None:
    rows = [("right", "k", "b", 1), ("right", "k", None, 2), ("left", "k", "A", 3)]
    case = make_case("st-deletes", rows, join="stream-table", variant="inner")
    assert _shapes(case, answered_ignoring(ignores_deletes)(case)) == {"deleted-value-used": 1}


def test_joined_results_with_the_triggers_timestamp_fit_the_timestamp_rule_of_2_3() -> None:
    rows = [("left", "k", "A", 5), ("right", "k", "b", 3)]
    case = make_case("tt-ts", rows, join="table-table", variant="inner")
    assert _shapes(case, answered_by_version("2.2")(case)) == {"trigger-timestamp": 1}


def test_null_key_records_dropped_by_the_candidate_fit_the_null_key_shape() -> None:
    rows = [("left", None, "A", 1), ("left", "k", "B", 2)]
    case = make_case("ss-null", rows, join="stream-stream", variant="left", window=Window(10, 10, grace=0))
    shapes = _shapes(case, answered_ignoring(lambda c, i: c.records[i].key is None)(case))
    assert shapes == {"null-key": 1}


def test_a_record_dropped_for_lateness_fits_the_late_record_shape() -> None:
    rows = [("left", "k", "A", 100), ("right", "k", "b", 40), ("right", "k", "c", 95)]
    case = make_case("ss-late", rows, join="stream-stream", variant="inner", window=Window(60, 60, grace=5))
    shapes = _shapes(case, answered_ignoring(lambda c, i: i == 1)(case))
    assert shapes == {"late-record": 1}


def test_non_joined_results_released_at_once_fit_the_held_result_shape() -> None:
    rows = [("left", "k", "A", 1), ("left", "j", "B", 30), ("right", "z", "x", 100)]
    case = make_case("ss-eager", rows, join="stream-stream", variant="left", window=Window(5, 5, grace=0))
    # Kafka 3.0 emits A - null and B - null at once (#0, #1); 3.9 holds each until a later record closes its
    # window (#1, #2)
    assert _shapes(case, answered_by_version("3.0")(case)) == {"held-result-early": 2}


def test_swapped_values_and_duplicates_are_named() -> None:
    case = make_case("hand", [("left", "k", "A", 1), ("right", "k", "b", 2)], variant="inner")
    kafka = [Output("k", ("A", "b"), 2, 1)]
    swapped = Divergence("wrong-value", kafka[0], Output("k", ("b", "A"), 2, 1), 1)
    again = Divergence("unexpected-output", None, Output("k", ("A", "b"), 2, 1), 1)
    other = Divergence("unexpected-output", None, Output("k", ("A", "c"), 2, 1), 1)
    assert [getattr(shape_of(case, kafka, d), "id", None) for d in (swapped, again, other)] == [
        "swapped-values",
        "duplicate",
        None,
    ]


def test_the_roll_up_says_every_missing_output_is_a_tombstone_with_its_rule() -> None:
    rows = [("left", "k", "A", 1), ("right", "k", "b", 2), ("right", "k", None, 3), ("left", "k", "C", 4)]
    answer = answered_ignoring(ignores_deletes)
    cases = [make_case(f"tt-{n}", rows, join="table-table", variant="inner") for n in range(3)]
    document = document_of(outcome_of(case, answer(case)) for case in cases)
    entries = {entry["shape"]: entry for entry in document["summary"]["diagnosis"]}
    tombstones = entries["missing-tombstone"]
    said = "every missing output is a tombstone (a delete Kafka forwards) (3 in 3 cases)"
    assert tombstones["text"] == said
    assert (tombstones["divergences"], tombstones["of_kind"], tombstones["cases"]) == (3, 3, 3)
    assert [r["id"] for r in tombstones["rules"]] == ["TT-1"]
    assert tombstones["rules"][0]["link"].startswith("docs/semantics/table-table.md#tt-1-")
    stale = entries["deleted-value-used"]
    said = "every unexpected output or wrong value joins a value an earlier delete removed (3 in 3 cases)"
    assert stale["text"] == said


def test_the_roll_up_counts_part_of_a_kind_and_ignores_passing_cases() -> None:
    def diagnosis(tombstones: int, missing: int) -> dict[str, dict[str, int]]:
        return {"shapes": {"missing-tombstone": tombstones}, "kinds": {"missing-output": missing}}

    cases = [
        {"status": "fail", "join": "fk", "diagnosis": diagnosis(2, 5)},
        {"status": "pass", "join": "fk", "diagnosis": None},
        {"status": "declared", "join": "fk", "diagnosis": diagnosis(9, 9)},
    ]
    [entry] = roll_up(cases)
    assert entry["text"] == "2 of 5 missing outputs are tombstones (deletes Kafka forwards) (1 case)"
    assert [r["id"] for r in entry["rules"]] == ["FK-4"]


@pytest.mark.parametrize("join", ["stream-stream", "table-table"])
def test_a_passing_case_has_no_diagnosis(join: str) -> None:
    case = make_case("ok", [("left", "k", "A", 1), ("right", "k", "b", 2)], join=join, variant="inner")
    expected = kafka_outputs(case)
    assert not isinstance(expected, str)
    document = document_of([outcome_of(case, expected)])
    assert document["cases"][0]["diagnosis"] is None
    assert document["summary"]["diagnosis"] == []


def test_the_report_index_lists_the_shapes_with_their_rule_and_a_filter_link() -> None:
    from kjoin.reports import render_report

    rows = [("right", "k", "b", 1), ("right", "k", None, 2), ("left", "k", "A", 3)]
    case = make_case("st-deletes", rows, join="stream-table", variant="inner")
    index = render_report(document_of([outcome_of(case, answered_ignoring(ignores_deletes)(case))]))[
        "index.html"
    ]
    section = index.split("<h2>What the divergences have in common</h2>", 1)[1].split("<h2>", 1)[0]
    assert (
        "every unexpected output or wrong value joins a value an earlier delete removed (1 in 1 case)"
        in section
    )
    assert "spec ST-5</span>" in section and "docs/semantics/stream-table.md#st-5-table-updates" in section
    assert 'href="#filter:c=deleted-value-used"' in section
    assert 'data-c="deleted-value-used"' in index


def test_the_run_summary_on_the_terminal_prints_each_shape_with_its_rule() -> None:
    from kjoin.conformance.harness.text import render_diagnosis

    rows = [("right", "k", "b", 1), ("right", "k", None, 2), ("left", "k", "A", 3)]
    case = make_case("st-deletes", rows, join="stream-table", variant="inner")
    document = document_of([outcome_of(case, answered_ignoring(ignores_deletes)(case))])
    assert render_diagnosis(document["summary"]["diagnosis"]) == [
        "What the divergences have in common:",
        "  every unexpected output or wrong value joins a value an earlier delete removed (1 in 1 case); "
        "spec ST-5 (docs/semantics/stream-table.md#st-5-table-updates)",
    ]
