"""The HTML report rendered from hand-built results documents (no Spark): the index matrix and counts,
seed-shaped scenario tables with missing (red) and unexpected (green) rows, the first divergence with the
oracle's state, determinism, and input validation."""

from __future__ import annotations

import io
import json
import re
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest

from kjoin.conformance.checker import CandidateFailure
from kjoin.conformance.cli import main
from kjoin.conformance.harness.results import write_results
from kjoin.conformance.protocol import DeclaredDifference
from kjoin.oracle.records import Output
from kjoin.reports.document import ReportInputError, load_results, merge_results, results_from_json
from kjoin.reports.scenario_page import scenario_file
from kjoin.reports.write import render_report, write_report
from support.report_documents import (
    FakeCandidate,
    document_of,
    make_case,
    outcome_of,
    retargeted,
    with_outputs,
)

ROWS = [("left", "k", "A", 1), ("right", "k", "a", 4), ("left", "k", "B", 30), ("left", "k", "C", 60)]
# as Kafka 3.9 (window 10, grace 0): A - a @4 at input 1, B - null @30 at input 3


class _Cells(HTMLParser):
    """Every <td> and <tr> of a page: (tag, class, title, text)."""

    def __init__(self) -> None:
        super().__init__()
        self.found: list[tuple[str, str, str, str]] = []
        self._open: list[int] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in ("td", "tr"):
            named = dict(attrs)
            self.found.append((tag, named.get("class") or "", named.get("title") or "", ""))
            self._open.append(len(self.found) - 1)

    def handle_endtag(self, tag: str) -> None:
        if tag in ("td", "tr") and self._open:
            self._open.pop()

    def handle_data(self, data: str) -> None:
        for index in self._open:
            tag, css, title, text = self.found[index]
            self.found[index] = (tag, css, title, text + data)


def cells(page: str) -> list[tuple[str, str, str, str]]:
    parser = _Cells()
    parser.feed(page)
    return parser.found


def diff_rows(page: str) -> list[str]:
    """The texts of the rows of the page's seed-shaped table."""
    table = page.split('<table class="diff">', 1)[1].split("</table>", 1)[0]
    return [text for tag, _, _, text in cells(table) if tag == "tr"]


def td(page: str, css: str) -> list[str]:
    """The texts of the cells of class ``css``."""
    return [text for tag, klass, _, text in cells(page) if tag == "td" and css in klass.split()]


def _pages(document: dict[str, Any]) -> dict[str, str]:
    return render_report(results_from_json(json.loads(json.dumps(document)), "results.json"))


@pytest.fixture(scope="module")
def mixed_document() -> dict[str, Any]:
    """A failing left case (candidate: eager A - null, no B - null), a passing inner one, a declared and
    a not-claimed case, and a candidate error."""
    left = make_case("ss-small", ROWS)
    wrong = with_outputs(left, [Output("k", ("A", None), 1, 0), Output("k", ("A", "a"), 4, 1)])
    inner = make_case("ss-small", ROWS, variant="inner")
    declared_case = make_case("ss-declared", ROWS, variant="outer")
    declared = DeclaredDifference("ss-declared", "Spark emits outer results eagerly")
    broken = make_case("ss-broken", ROWS)
    outcomes = [
        outcome_of(left, wrong),
        outcome_of(inner, with_outputs(inner, [Output("k", ("A", "a"), 4, 1)])),
        outcome_of(declared_case, with_outputs(declared_case, []), declared=declared),
        outcome_of(broken, CandidateFailure("boom in the candidate", "Traceback: line 1")),
    ]
    from kjoin.conformance.harness.outcomes import CaseOutcome

    unclaimed = make_case("fk-unclaimed", [("left", "k", "f1:L", 1)], join="fk", variant="inner")
    outcomes.append(CaseOutcome(unclaimed, "not-claimed", reason="not claimed: fk joins"))
    return document_of(outcomes, FakeCandidate(declared_differences=(declared,)))


def test_report_index_counts_statuses_and_links_each_scenario_page(mixed_document: dict[str, Any]) -> None:
    pages = _pages(mixed_document)
    index = pages["index.html"]
    scenarios = ("ss-small", "ss-declared", "ss-broken", "fk-unclaimed")
    assert sorted(pages) == sorted(["index.html", *(scenario_file(s) for s in scenarios)])
    assert "5 cases: 1 " in index  # one of each status, in display order
    assert td(index, "st-fail") == ["fail", "fail"]  # ss-small left, ss-broken left
    assert td(index, "st-pass") == ["pass"]
    assert td(index, "st-declared") == ["declared"]
    assert td(index, "st-not-claimed") == ["not-claimed"]
    for scenario in ("ss-small", "ss-declared", "ss-broken", "fk-unclaimed"):
        assert f'href="{scenario_file(scenario)}"' in index
    assert "Spark emits outer results eagerly" in index  # the declaration, with its reason


def test_index_matrix_puts_variants_in_columns_and_versions_in_rows() -> None:
    case = make_case("ss-small", ROWS)
    old = retargeted(case, "3.0")
    inner = make_case("ss-small", ROWS, variant="inner")
    outcomes = [
        outcome_of(case, with_outputs(case, [])),
        outcome_of(old, with_outputs(old, [])),
        outcome_of(inner, with_outputs(inner, [Output("k", ("A", "a"), 4, 1)])),
    ]
    index = _pages(document_of(outcomes))["index.html"]
    rows = [text for tag, _, _, text in cells(index) if tag == "tr" and text.startswith("ss-small")]
    assert rows == ["ss-smallstream-stream3.0fail", "ss-smallstream-stream3.9passfail"]
    headers = index.split('<table id="rows">')[1].split("</thead>")[0]
    assert headers.index(">inner<") < headers.index(">left<")


def test_scenario_page_marks_missing_output_red_and_unexpected_output_green(
    mixed_document: dict[str, Any],
) -> None:
    page = _pages(mixed_document)[scenario_file("ss-small")]
    assert td(page, "m-missing") == ["\u2212 B - null @30"]
    assert td(page, "m-unexpected") == ["+ A - null @1"]
    rows = diff_rows(page)
    # seed shape: # | ts | left | right | one column per variant (inner first), outputs beside their input
    assert rows[0] == "#tsleftrightinner: Kafka vs candidateleft: Kafka vs candidate"
    assert rows[1] == "\u25b6 01A+ A - null @1"
    assert rows[2] == "14aA - a @4A - a @4"
    assert rows[4] == "360C\u2212 B - null @30"


def test_scenario_page_highlights_first_divergence_and_shows_oracle_state(
    mixed_document: dict[str, Any],
) -> None:
    page = _pages(mixed_document)[scenario_file("ss-small")]
    first_rows = [(css, title) for tag, css, title, _ in cells(page) if tag == "tr" and "first" in css]
    assert first_rows == [("first", "first divergence of left: unexpected-output")]
    assert "left: first divergence at input #0 (left k: A @1): unexpected-output" in page
    assert "Oracle state at input #0 (left)" in page
    assert "(empty: nothing processed yet)" in page  # before the first input
    assert "&quot;held&quot;" in page and "&quot;A&quot;" in page  # Kafka holds A after input #0


def test_scenario_page_shows_candidate_error_and_declared_reason(mixed_document: dict[str, Any]) -> None:
    pages = _pages(mixed_document)
    broken = pages[scenario_file("ss-broken")]
    assert "<h4>Candidate error (left)</h4><pre>boom in the candidate\nTraceback: line 1</pre>" in broken
    declared = pages[scenario_file("ss-declared")]
    assert "declared difference: Spark emits outer results eagerly" in declared
    assert td(declared, "m-missing") == ["\u2212 A - a @4", "\u2212 B - null @30"]


def test_scenario_page_puts_outputs_without_emitting_input_in_unknown_row() -> None:
    case = make_case("ss-no-idx", ROWS)
    outputs = [Output("k", ("A", "a"), 4, 1), Output("k", ("Z", None), 99, 1)]
    answer = with_outputs(case, outputs, causes=False)
    page = _pages(document_of([outcome_of(case, answer)]))[scenario_file("ss-no-idx")]
    assert diff_rows(page)[-1] == "?emitting input unknown+ k: Z - null @99"
    assert td(page, "m-missing") == ["\u2212 B - null @30"]


def test_report_is_byte_identical_when_written_twice(mixed_document: dict[str, Any], tmp_path: Path) -> None:
    results = tmp_path / "results.json"
    write_results(results, mixed_document)
    first, second = tmp_path / "one", tmp_path / "two"
    write_report(results, first)
    write_report([results], second)
    files = sorted(p.relative_to(first) for p in first.rglob("*") if p.is_file())
    assert len(files) == 5
    for relative in files:
        assert (first / relative).read_bytes() == (second / relative).read_bytes(), relative


def test_report_renders_a_results_file_without_inputs(mixed_document: dict[str, Any]) -> None:
    document = json.loads(json.dumps(mixed_document))
    for case in document["cases"]:
        del case["spec"], case["records"]
    pages = _pages(document)
    page = pages[scenario_file("ss-small")]
    assert "inputs not recorded in the results file" in page
    assert td(page, "m-missing") == ["\u2212 k: B - null @30"]  # still placed by input index, key shown
    assert diff_rows(page)[-1] == "3\u2212 k: B - null @30"
    assert "No case carries both the candidate" in pages["index.html"]  # no verdict without inputs


def test_load_results_rejects_another_schema_naming_the_file(tmp_path: Path) -> None:
    path = tmp_path / "other.json"
    path.write_text(json.dumps({"schema": "pytest-json", "version": 1}))
    with pytest.raises(ReportInputError, match=r"other\.json: schema: expected 'kjoin-results'"):
        load_results(path)


def test_load_results_rejects_a_bad_output_naming_case_and_field(
    mixed_document: dict[str, Any], tmp_path: Path
) -> None:
    document = json.loads(json.dumps(mixed_document))
    document["cases"][0]["actual"] = [{"key": "k", "value": "A", "ts": 1}]
    path = tmp_path / "results.json"
    path.write_text(json.dumps(document))
    where = re.escape(f"cases[0] '{document['cases'][0]['id']}'.actual[0].value: expected [left, right]")
    with pytest.raises(ReportInputError, match=where):
        load_results(path)


def test_merge_results_refuses_runs_of_two_candidates(mixed_document: dict[str, Any]) -> None:
    other = json.loads(json.dumps(mixed_document))
    other["candidate"]["name"] = "another"
    parts = [results_from_json(mixed_document, "a.json"), results_from_json(other, "b.json")]
    with pytest.raises(ReportInputError, match="different candidates"):
        merge_results(parts)


def test_report_command_writes_the_report_of_two_results_files(tmp_path: Path) -> None:
    case = make_case("ss-small", ROWS)
    old = retargeted(case, "3.0")
    write_results(tmp_path / "a.json", document_of([outcome_of(case, with_outputs(case, []))]))
    write_results(tmp_path / "b.json", document_of([outcome_of(old, with_outputs(old, []))]))
    out, err = io.StringIO(), io.StringIO()
    code = main(
        ["report", str(tmp_path / "a.json"), str(tmp_path / "b.json"), "--out", str(tmp_path / "r")],
        stdout=out,
        stderr=err,
    )
    assert (code, err.getvalue()) == (0, "")
    assert out.getvalue() == f"report written to {tmp_path / 'r' / 'index.html'}\n"
    page = (tmp_path / "r" / scenario_file("ss-small")).read_text()
    assert "as Kafka 3.0 (era 3.0)" in page and "as Kafka 3.9 (era 3.8)" in page


def test_report_command_exits_2_naming_an_unreadable_file(tmp_path: Path) -> None:
    (tmp_path / "bad.json").write_text("{not json")
    err = io.StringIO()
    code = main(
        ["report", str(tmp_path / "bad.json"), "--out", str(tmp_path / "r")], stdout=io.StringIO(), stderr=err
    )
    assert code == 2
    assert err.getvalue().startswith(f"kjoin: report: {tmp_path / 'bad.json'}: not valid JSON")
