"""The results file as written: one compact JSON document, streamed a line per top-level field and a line per
case, byte-identical for the same cases; files written indented (by earlier versions) read back the same."""

from __future__ import annotations

import json
from pathlib import Path

from kjoin.conformance.documents.results import (
    ResultsJournal,
    candidate_json,
    case_result,
    load_results,
    write_json_atomically,
)
from support.report_documents import RUN, FakeCandidate, answered_by_version, make_case, outcome_of

ROWS = [("left", "k", "A", 1), ("right", "k", "a", 4), ("left", "k", "B", 30)]


def _write(path: Path) -> dict[str, object]:
    journal = ResultsJournal(path, RUN, candidate_json(FakeCandidate()))
    for variant in ("inner", "left", "outer"):
        case = make_case(f"ss-{variant}", ROWS, variant=variant)
        journal.add(case_result(outcome_of(case, answered_by_version("3.0")(case))))
    return journal.finish()


def test_results_are_one_compact_document_with_a_line_per_case(tmp_path: Path) -> None:
    document = _write(tmp_path / "results.json")
    text = (tmp_path / "results.json").read_text(encoding="utf-8")
    assert json.loads(text) == document
    lines = text.splitlines()
    fields = [name for name in document if name != "cases"]
    assert [
        json.loads("{" + line.removeprefix("{").rstrip(",") + "}").popitem()[0]
        for line in lines[: len(fields)]
    ] == fields
    assert lines[len(fields)] == '"cases":['
    cases = [json.loads(line.rstrip(",")) for line in lines[len(fields) + 1 : -1]]
    assert cases == document["cases"] and lines[-1] == "]}"
    assert ": " not in lines[0] and "\n " not in text  # compact, no indentation
    _write(tmp_path / "again.json")
    assert (tmp_path / "again.json").read_bytes() == (tmp_path / "results.json").read_bytes()


def test_an_indented_results_file_of_an_earlier_version_reads_the_same(tmp_path: Path) -> None:
    document = _write(tmp_path / "results.json")
    write_json_atomically(tmp_path / "indented.json", document)  # how files were written before
    assert "\n " in (tmp_path / "indented.json").read_text(encoding="utf-8")
    assert load_results(tmp_path / "indented.json") == load_results(tmp_path / "results.json") == document
