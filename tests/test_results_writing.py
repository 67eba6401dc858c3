"""The results file as written: one compact JSON document, streamed a line per top-level field, a line per
case and a line per shared value (version 3's pools), byte-identical for the same cases; files written
indented (by earlier versions) and version 2 files read back the same."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from kjoin.conformance.documents.comparison import compare_documents
from kjoin.conformance.documents.results import (
    ResultsError,
    ResultsJournal,
    candidate_json,
    case_result,
    expand_case,
    load_results,
    write_json_atomically,
)
from kjoin.conformance.harness.calls import CallRecord
from kjoin.reports import render_report
from support.report_documents import RUN, FakeCandidate, answered_by_version, make_case, outcome_of

ROWS = [("left", "k", "A", 1), ("right", "k", "a", 4), ("left", "k", "B", 30)]


def _write(path: Path, calls: tuple[CallRecord, ...] = ()) -> dict[str, object]:
    journal = ResultsJournal(path, RUN, candidate_json(FakeCandidate()))
    for variant in ("inner", "left", "outer"):
        case = make_case(f"ss-{variant}", ROWS, variant=variant)
        journal.add(case_result(outcome_of(case, answered_by_version("3.0")(case))))
    for call in calls:
        journal.add_call(call.to_json())
    return journal.finish()


def test_results_are_one_compact_document_with_a_line_per_case(tmp_path: Path) -> None:
    document = _write(tmp_path / "results.json")
    text = (tmp_path / "results.json").read_text(encoding="utf-8")
    written = json.loads(text)
    assert load_results(tmp_path / "results.json") == document and written["version"] == 3
    lines = text.splitlines()
    fields = [name for name in document if name != "cases"]
    assert [
        json.loads("{" + line.removeprefix("{").rstrip(",") + "}").popitem()[0]
        for line in lines[: len(fields)]
    ] == fields
    assert lines[len(fields)] == '"cases":['
    count = len(document["cases"])
    cases = [json.loads(line.rstrip(",")) for line in lines[len(fields) + 1 : len(fields) + 1 + count]]
    assert cases == written["cases"] and lines[len(fields) + 1 + count] == "],"
    for case in cases:
        expand_case(case, written["pools"], "results.json")
    assert cases == document["cases"] and lines[-1] == "]}}"
    assert ": " not in lines[0] and "\n " not in text  # compact, no indentation
    _write(tmp_path / "again.json")
    assert (tmp_path / "again.json").read_bytes() == (tmp_path / "results.json").read_bytes()


def test_a_value_cases_share_is_written_once(tmp_path: Path) -> None:
    """Version 3: the cases of a scenario share its records (and a passing case's outputs are Kafka's), so
    records, spec, expected and actual are written once in ``pools`` and the cases hold their index."""
    document = _write(tmp_path / "results.json")
    written = json.loads((tmp_path / "results.json").read_text(encoding="utf-8"))
    assert [case["records"] for case in written["cases"]] == [0, 0, 0]  # three variants of one scenario
    assert written["pools"]["records"] == [document["cases"][0]["records"]]
    assert all(isinstance(case[field], int) for case in written["cases"] for field in ("spec", "expected"))
    same = [case for case in document["cases"] if case["actual"] == case["expected"]]
    assert same and all(
        packed["actual"] == packed["expected"]
        for packed, case in zip(written["cases"], document["cases"], strict=True)
        if case in same
    )
    broken = dict(written, cases=[dict(written["cases"][0], records=7)])
    (tmp_path / "broken.json").write_text(json.dumps(broken), encoding="utf-8")
    with pytest.raises(ResultsError, match=r"broken.json: case '.*' field 'records': 7 is not an entry of"):
        load_results(tmp_path / "broken.json")


def test_a_results_file_of_version_2_reads_the_same(tmp_path: Path) -> None:
    """Version 2 wrote every case in full (no pools): ``kjoin report`` and ``compare`` still read it."""
    document = _write(tmp_path / "results.json")
    older = dict(document, version=2)
    (tmp_path / "v2.json").write_text(json.dumps(older), encoding="utf-8")
    assert load_results(tmp_path / "v2.json") == older
    (tmp_path / "v1.json").write_text(json.dumps(dict(document, version=1)), encoding="utf-8")
    with pytest.raises(ResultsError, match="results version 1 is not supported"):
        load_results(tmp_path / "v1.json")


def test_an_indented_results_file_of_an_earlier_version_reads_the_same(tmp_path: Path) -> None:
    document = _write(tmp_path / "results.json")
    write_json_atomically(tmp_path / "indented.json", document)  # how files were written before
    assert "\n " in (tmp_path / "indented.json").read_text(encoding="utf-8")
    assert load_results(tmp_path / "indented.json") == load_results(tmp_path / "results.json") == document


def test_a_journal_writes_a_shared_value_once_and_reads_back_whole(tmp_path: Path) -> None:
    """Issue 24: the variants of one large scenario each wrote its records (and Kafka's outputs) into the
    journal in full. Now each value goes in once, as a pool line before the first case that uses it."""
    path = tmp_path / "results.json"
    journal = ResultsJournal(path, RUN, candidate_json(FakeCandidate()))
    sides = ("right", "left")
    rows = [(sides[number % 2], f"k{number % 7}", f"v{number}", number) for number in range(400)]
    for variant in ("inner", "left", "outer"):
        case = make_case("big", rows, variant=variant)
        journal.add(case_result(outcome_of(case, answered_by_version("3.0")(case))))
    lines = [json.loads(line) for line in journal.journal.read_text(encoding="utf-8").splitlines()]
    records = [line["entry"] for line in lines if line.get("pool") == "records"]
    assert records == [next(iter(journal.cases.values()))["records"]]  # once, not once per variant
    assert [line["case"]["records"] for line in lines if "case" in line] == [0, 0, 0]
    document = load_results(path)  # the run was killed here: the journal is read back
    assert document["complete"] is False
    assert {case["id"]: case for case in document["cases"]} == journal.cases


def test_a_call_says_its_batch_and_a_file_written_before_that_reads_reports_and_compares_the_same(
    tmp_path: Path,
) -> None:
    """A ``calls`` entry names the store shape of a store-shape batch's call (``batch``, null for the joint
    batch), as the terminal does; a file of an earlier kjoin has no ``batch`` in its calls and reads,
    reports and compares as it did: a call without one shows as the joint call always showed."""
    joint, shaped = (
        CallRecord("stream-stream", 3, "ok"),
        CallRecord("stream-stream", 1, "ok", shape="unversioned"),
    )
    document = _write(tmp_path / "results.json", (joint, shaped))
    assert load_results(tmp_path / "results.json") == document
    assert [call["batch"] for call in document["calls"]] == [None, "unversioned"]  # type: ignore[attr-defined]
    index = render_report(document)["index.html"]
    assert "<td>stream-stream</td>" in index and "<td>stream-stream (unversioned batch)</td>" in index

    current = _write(tmp_path / "current.json", (joint,))
    older = dict(current, calls=[{k: v for k, v in joint.to_json().items() if k != "batch"}])
    (tmp_path / "older.json").write_text(json.dumps(older), encoding="utf-8")
    assert load_results(tmp_path / "older.json") == older
    assert render_report(older) == render_report(current)
    labels = {"old_label": "older.json", "new_label": "current.json"}
    assert compare_documents(older, current, **labels) == compare_documents(current, current, **labels)

    broken = dict(current, calls=[dict(joint.to_json(), batch="sideways")])
    (tmp_path / "broken.json").write_text(json.dumps(broken), encoding="utf-8")
    with pytest.raises(ResultsError, match=r"broken.json: calls\[0\] field 'batch': 'sideways' is not null"):
        load_results(tmp_path / "broken.json")
