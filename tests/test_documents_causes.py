"""The first divergence's causing input: the input whose effect first differs (up to the symptom, the
candidate emits what Kafka would had it never seen that input), tested on a candidate that ignores deletes;
the marker of the report and the terminal sit on it; "why" as a structured value."""

from __future__ import annotations

from kjoin.conformance.catalogue import load_cases
from kjoin.conformance.documents.causes import causing_input
from kjoin.conformance.documents.results import case_result
from kjoin.conformance.harness.text import render_outcome
from kjoin.reports import render_report
from kjoin.reports.scenario_page import scenario_file
from kjoin.scenarios import CATALOGUE_ROOT
from support.html_pages import cells, td
from support.report_documents import (
    answered_by_version,
    answered_ignoring,
    document_of,
    ignores_deletes,
    make_case,
    outcome_of,
)

# R k:b, then R k:null deletes it (Kafka emits nothing: table updates do not trigger a stream-table join);
# L k:A then finds no table value in Kafka, while a candidate that ignored the delete joins A - b
ROWS = [("right", "k", "b", 1), ("right", "k", None, 2), ("left", "k", "A", 3)]


def _ignoring_deletes(rows, join="stream-table", variant="inner"):  # type: ignore[no-untyped-def]
    case = make_case("deletes", rows, join=join, variant=variant)
    return outcome_of(case, answered_ignoring(ignores_deletes)(case))


def test_the_ignored_delete_is_the_causing_input_not_the_first_visible_symptom() -> None:
    outcome = _ignoring_deletes(ROWS)
    assert outcome.verdict is not None and outcome.verdict.first is not None
    assert outcome.verdict.first.at == 2  # where it shows: L k:A joins the deleted b
    first = case_result(outcome)["first_divergence"]
    assert first["at"] == 2 and first["input"]["index"] == 2
    assert {k: first["cause"][k] for k in ("index", "side", "key", "value", "ts")} == {
        "index": 1,
        "side": "right",
        "key": "k",
        "value": None,
        "ts": 2,
    }
    assert "never seen input #1 right k: null @2 (a delete)" in first["cause"]["text"]


def test_a_divergence_that_shows_where_it_starts_has_no_earlier_cause() -> None:
    # table-table: the delete itself emits a tombstone in Kafka, so the first divergence shows at the delete
    rows = [("left", "k", "A", 1), ("right", "k", "b", 2), ("right", "k", None, 3)]
    outcome = _ignoring_deletes(rows, join="table-table")
    assert outcome.verdict is not None and outcome.verdict.first is not None
    first = outcome.verdict.first
    assert first.at == 2
    assert outcome.expected is not None and isinstance(outcome.answer, type(outcome.expected))
    assert causing_input(outcome.case, outcome.expected, outcome.answer, first) == 2
    assert "cause" not in case_result(outcome)["first_divergence"]
    # a wrong timestamp rule is not an ignored input: nothing before the symptom explains it
    case = make_case(
        "ts", [("left", "k", "A", 5), ("right", "k", "b", 3)], join="table-table", variant="inner"
    )
    older = outcome_of(case, answered_by_version("2.2")(case))
    assert "cause" not in case_result(older)["first_divergence"]


def test_over_the_catalogue_every_earlier_cause_of_a_candidate_ignoring_deletes_is_a_delete() -> None:
    cases = [c for c in load_cases([CATALOGUE_ROOT / "stream_table"]).cases if c.kafka == "3.9"]
    answer = answered_ignoring(ignores_deletes)
    causes = []
    for case in cases:
        first = case_result(outcome_of(case, answer(case)))["first_divergence"]
        if first is not None and "cause" in first:
            causes.append((case.id, first["cause"]["index"], first["at"]))
            assert first["cause"]["value"] is None, case.id  # the ignored delete, not a symptom
            assert first["cause"]["index"] < first["at"]
    assert len(causes) >= 3, causes


def test_the_report_and_the_terminal_mark_the_causing_input() -> None:
    outcome = _ignoring_deletes(ROWS)
    page = render_report(document_of([outcome]))[scenario_file("deletes")]
    marked = [cell for cell in cells(page, "tr") if "first" in cell.css]
    assert len(marked) == 1 and td(page, "idx")[1] == "\u25b6 1"  # the delete's row, input #1
    assert marked[0].attrs["title"] == "first divergence of inner: it starts here and shows at input #2"
    assert (
        "\u25b6 Where it starts: up to input #2, the candidate emits what Kafka would had it never seen"
        in page
    )
    text = render_outcome(outcome)
    assert "it starts at input #1 right k: null @2: up to input #2" in text
    assert ">>  1" in text and ">>  2" not in text


def test_why_is_a_structured_value_with_the_rule_and_its_link() -> None:
    outcome = _ignoring_deletes(ROWS)
    why = case_result(outcome)["explanation"]["why"]
    # the state that decides it: the deleted table row the lookup no longer finds
    assert why["text"] == (
        "Kafka does not emit k: A - b @3: when stream record k@3 is looked up, the table holds no k, so the "
        "inner join emits nothing."
    )
    assert why["rule"] == {
        "id": "ST-3",
        "title": "Inner and left joins",
        "link": "docs/semantics/stream-table.md#st-3-inner-and-left-joins",
    }
    assert why["numbers"] == {"input": 2, "ts": 3}
    page = render_report(document_of([outcome]))[scenario_file("deletes")]
    assert "spec ST-3</span>" in page
