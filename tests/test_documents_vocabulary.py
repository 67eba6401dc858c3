"""One notation and one set of vocabularies (issue 22): the two shapes an output or record comes in (the
oracle's objects, the documents' JSON) read the same, and the words the reports order by are the checker's,
the harness's and the oracle's."""

from __future__ import annotations

from typing import get_args, get_type_hints

from kjoin.conformance.catalogue import load_cases
from kjoin.conformance.checker import Divergence
from kjoin.conformance.documents.outcomes import CaseOutcome, kafka_outputs
from kjoin.conformance.documents.results import output_json
from kjoin.conformance.documents.vocabulary import (
    DIVERGENCE_KINDS,
    FAILING,
    KIND_ORDER,
    OUTCOME_STATUSES,
    STATUS_MEANINGS,
    STATUS_ORDER,
)
from kjoin.conformance.notation import show_item, show_output, show_output_json, show_record, show_record_json
from kjoin.oracle.records import JOIN_KINDS, VARIANTS, Output, Record
from kjoin.reports.model import JOIN_ORDER, VARIANT_ORDER
from kjoin.scenarios import CATALOGUE_ROOT
from support.report_documents import answered_by_version, document_of, outcome_of


def test_reports_order_join_kinds_and_variants_as_the_oracle() -> None:
    assert JOIN_ORDER == JOIN_KINDS
    assert VARIANT_ORDER == VARIANTS


def test_vocabularies_are_the_types_the_checker_and_outcomes_use() -> None:
    assert get_args(get_type_hints(Divergence)["kind"]) == KIND_ORDER == tuple(DIVERGENCE_KINDS)
    assert get_args(get_type_hints(CaseOutcome)["status"]) == OUTCOME_STATUSES == tuple(STATUS_MEANINGS)
    assert sorted(STATUS_ORDER) == sorted(OUTCOME_STATUSES)
    assert set(OUTCOME_STATUSES) > FAILING


def test_results_documents_carry_the_vocabularies_with_their_meanings() -> None:
    cases = load_cases([CATALOGUE_ROOT / "stream_stream" / "kip77-current.toml"]).cases
    answer = answered_by_version("2.8")
    document = document_of(outcome_of(case, answer(case)) for case in cases)
    assert document["divergence_kinds"] == dict(DIVERGENCE_KINDS)
    assert document["statuses"] == dict(STATUS_MEANINGS)
    kinds = {d["kind"] for case in document["cases"] for d in case["divergences"]}
    assert kinds and kinds <= set(KIND_ORDER)
    assert {case["status"] for case in document["cases"]} <= set(OUTCOME_STATUSES)


def test_notation_reads_the_same_from_objects_and_from_documents() -> None:
    shown = 0
    for case in load_cases([CATALOGUE_ROOT / "table_table"]).cases[:60]:
        expected = kafka_outputs(case)
        if isinstance(expected, str):
            continue
        for output in expected.outputs:
            data = output_json(output)
            assert data is not None
            assert show_output_json(data) == show_output(output)
            own = case.records[output.cause].key
            assert show_output_json(data, input_key=own) == show_output(output, with_key=output.key != own)
            shown += 1
        for index, record in enumerate(case.records):
            data = {"side": record.side, "key": record.key, "value": record.value, "ts": record.ts}
            assert show_record_json(data, index) == show_record(record, index)
    assert shown > 100


def test_notation_writes_the_seed_tables_cells() -> None:
    assert show_output(Output("k1", ("L1", None), 5, 0)) == "k1: L1 - null @5"
    assert show_output(Output(None, None, 7, 0)) == "null: null @7"
    assert show_output(Output("k", ("A", "b"), 3, 0), with_key=False) == "A - b @3"
    assert show_item("k", ("A", None), None) == "k: A - null"
    assert show_record(Record("left", "k1", None, 5), 3) == "#3 left k1: null @5"
    assert show_output_json({"key": 4, "value": [None, "R"], "ts": 2}) == "4: null - R @2"
    assert show_output_json(None) == ""
