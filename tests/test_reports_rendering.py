"""The HTML report rendered from results documents built without Spark: the index (what fails by join and
divergence kind, the matrix with filters and hints), seed-shaped scenario tables with missing (red) and
unexpected (green) outputs, the first divergence with why Kafka emits what it emits and its state, stale
pages, determinism, and the ``kjoin report`` command."""

from __future__ import annotations

import io
import json
import re
from pathlib import Path
from typing import Any

import pytest

from kjoin.conformance.checker import CandidateFailure
from kjoin.conformance.cli import main
from kjoin.conformance.documents.outcomes import CaseOutcome
from kjoin.conformance.documents.results import write_json_atomically
from kjoin.conformance.protocol import DeclaredDifference
from kjoin.oracle.records import Output
from kjoin.reports import render_report, write_report
from kjoin.reports.scenario_page import group_anchor, scenario_file
from support.html_pages import cells, diff_rows, td
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


@pytest.fixture(scope="module")
def mixed_document() -> dict[str, Any]:
    """A failing left case (the candidate emits an eager A - null and no B - null), a passing inner one, a
    declared and a not-claimed case, and a candidate error."""
    left = make_case("ss-small", ROWS)
    wrong = with_outputs(left, [Output("k", ("A", None), 1, 0), Output("k", ("A", "a"), 4, 1)])
    inner = make_case("ss-small", ROWS, variant="inner")
    declared_case = make_case("ss-declared", ROWS, variant="outer")
    declared = DeclaredDifference("ss-declared", "Spark emits outer results eagerly")
    broken = make_case("ss-broken", ROWS)
    unclaimed = make_case("fk-unclaimed", [("left", "k", "f1:L", 1)], join="fk", variant="inner")
    outcomes = [
        outcome_of(left, wrong),
        outcome_of(inner, with_outputs(inner, [Output("k", ("A", "a"), 4, 1)])),
        outcome_of(declared_case, with_outputs(declared_case, []), declared=declared),
        outcome_of(broken, CandidateFailure("boom in the candidate", "Traceback: line 1")),
        CaseOutcome(unclaimed, "not-claimed", reason="not claimed: fk joins"),
    ]
    return document_of(outcomes, FakeCandidate(declared_differences=(declared,)))


@pytest.fixture(scope="module")
def pages(mixed_document: dict[str, Any]) -> dict[str, str]:
    return render_report(json.loads(json.dumps(mixed_document)))


def test_report_has_an_index_and_a_page_per_scenario_that_needs_attention(
    pages: dict[str, str], mixed_document: dict[str, Any]
) -> None:
    # a scenario whose cases all pass or were not checked (fk-unclaimed) gets a page only on demand: a green
    # run of the whole catalogue is one index page, not a thousand (issue 24)
    scenarios = ("ss-small", "ss-declared", "ss-broken")
    assert sorted(pages) == sorted(["index.html", *(scenario_file(s) for s in scenarios)])
    links = {cell.attrs.get("href") for cell in cells(pages["index.html"], "a")}
    assert {scenario_file(s) + "#as-3.9-" in str(links) for s in scenarios} == {True}
    assert scenario_file("fk-unclaimed") not in str(links)
    assert "<td>fk-unclaimed</td>" in pages["index.html"]
    assert "--all-pages</code> writes them" in pages["index.html"]
    every = render_report(mixed_document, all_pages=True)
    assert sorted(every) == sorted([*pages, scenario_file("fk-unclaimed")])
    assert scenario_file("fk-unclaimed") + "#as-3.9-" in every["index.html"]
    assert "--all-pages</code> writes them" not in every["index.html"]


def test_index_headline_counts_failing_cases_and_statuses(pages: dict[str, str]) -> None:
    index = pages["index.html"]
    assert '<span class="st st-fail">2 cases fail</span> of 5' in index  # the fail and the error
    headline = index.split('<p class="verdict-line">', 1)[1].split("<details>", 1)[0]
    # every status with its count, failing ones first, each a link to the filtered matrix
    assert [c.text for c in cells(headline, "a")] == ["fail", "error", "declared", "pass", "not-claimed"]
    assert 'href="#filter:s=fail"' in headline


def test_index_counts_failures_by_join_and_divergence_kind_with_filter_links(pages: dict[str, str]) -> None:
    index = pages["index.html"]
    section = index.split("<h2>What fails</h2>", 1)[1].split("</table>", 1)[0]
    rows = [cell.text for cell in cells(section, "tr")]
    assert rows == ["joinunexpected-outputcandidate-errorall failing", "stream-stream112"]
    hrefs = [cell.attrs["href"] for cell in cells(section, "a")]
    assert hrefs == [
        "#filter:j=stream-stream,d=unexpected-output",
        "#filter:j=stream-stream,d=candidate-error",
        "#filter:j=stream-stream,s=failing",
    ]
    headers = {cell.text: cell.attrs.get("title") for cell in cells(section, "th")}
    assert headers["unexpected-output"] == "the candidate emits this output; Kafka does not"


def test_index_matrix_rows_carry_filter_tokens_kinds_and_hints(pages: dict[str, str]) -> None:
    index = pages["index.html"]
    matrix = index.split('<table id="rows" class="matrix">', 1)[1].split("</table>", 1)[0]
    rows = [cell for cell in cells(matrix, "tr")][1:]
    # failing rows first
    assert [row.text for row in rows] == [
        "ss-brokenstream-stream3.9error",
        "ss-smallstream-stream3.9passfail unexpected-output",
        "fk-unclaimedfk3.9not-claimed",
        "ss-declaredstream-stream3.9declared missing-output",
    ]
    small = rows[1].attrs
    assert (small["data-j"], small["data-k"], small["data-s"], small["data-d"]) == (
        "stream-stream",
        "3.9",
        "fail failing pass",
        "unexpected-output",
    )
    failing = [cell for cell in cells(matrix, "td") if "st-fail" in cell.css]
    assert failing[0].attrs["title"] == (
        "the candidate emits k: A - null @1 while processing input #0; Kafka does not"
    )
    unclaimed = [cell for cell in cells(matrix, "td") if "st-not-claimed" in cell.css]
    assert unclaimed[0].attrs["title"] == "not claimed: fk joins"
    filters = [s for s in index.split("<select")[1:]]
    assert [f.split('data-filter="')[1][0] for f in filters] == ["j", "k", "s", "d", "c"]
    assert small["data-c"] == "missing-non-joined unexpected-non-joined"  # its divergences' cause shapes


def test_index_verdicts_name_the_matching_era_and_the_flags_that_rule_others_out(
    pages: dict[str, str],
) -> None:
    index = pages["index.html"]
    section = index.split("<h2>Which Kafka semantics the candidate matches</h2>", 1)[1].split("<h2>", 1)[0]
    assert (
        "inner stream-stream join (run as Kafka 3.9) matches 2.4+ (1/1 cases); not 0.10.0\u20132.3 (0/1; "
        "stream_joins_can_use_in_memory_stores)"
    ) in section
    best = [c.text for c in cells(section, "tr") if c.text.startswith("stream-streaminner")]
    assert best and "matches 2.4+ (1/1)" in best[0]
    assert '<span class="best">1/1</span>' in section  # best eras highlighted
    assert '<span class="close">0/1</span>' in section  # the left join matches no era: closest only


def test_index_shows_the_claim_and_declared_differences(pages: dict[str, str]) -> None:
    index = pages["index.html"]
    assert "Spark emits outer results eagerly" in index
    assert "<td>stream_table_grace</td><td>True</td>" in index


def test_scenario_page_marks_missing_output_red_and_unexpected_output_green(pages: dict[str, str]) -> None:
    page = pages[scenario_file("ss-small")]
    assert td(page, "m-missing") == ["\u2212 B - null @30"]
    assert td(page, "m-unexpected") == ["+ A - null @1"]
    # seed shape: # | ts | left | right | one column per variant (inner first), outputs beside their input
    assert diff_rows(page) == [
        "#tsleftrightinner: Kafka vs candidateleft: Kafka vs candidate",
        "\u25b6 01A+ A - null @1",
        "14aA - a @4A - a @4",
        "230B",
        "360C\u2212 B - null @30",
    ]


def test_scenario_page_explains_the_first_divergence_with_kafkas_state(pages: dict[str, str]) -> None:
    page = pages[scenario_file("ss-small")]
    first = [(row.attrs.get("class"), row.attrs.get("title")) for row in cells(page, "tr")]
    assert ("first", "first divergence of left") in first
    assert "left: first divergence at input #0 left k: A @1: unexpected-output" in page
    assert (
        "Why: Kafka still holds k: A - null @1: it closes when stream time passes 11; stream time is 1."
        in page
    )
    after = page.split("<h4>after input #0</h4>", 1)[1]
    held = after.split("<b>held non-joined records (outer store)</b>", 1)[1].split("</table>", 1)[0]
    assert [c.text for c in cells(held, "tr")] == ["sidekeyvaluets", "leftkA1"]


def test_scenario_page_draws_the_timeline(pages: dict[str, str]) -> None:
    page = pages[scenario_file("ss-small")]
    svg = page.split('<svg class="timeline"', 1)[1].split("</svg>", 1)[0]
    assert "<title>k: B - null @30 (only Kafka, emitted at input #3)</title>" in svg
    assert "<title>k: A - null @1 (only the candidate, emitted at input #0)</title>" in svg
    assert "<title>window [-9, 11] of A@1</title>" in svg
    assert "<title>stream time 30 after input #2</title>" in svg


def test_scenario_page_shows_candidate_error_and_declared_reason(pages: dict[str, str]) -> None:
    broken = pages[scenario_file("ss-broken")]
    assert "<h4>Candidate error (left)</h4><pre>boom in the candidate\nTraceback: line 1</pre>" in broken
    declared = pages[scenario_file("ss-declared")]
    assert "declared difference: Spark emits outer results eagerly" in declared
    assert td(declared, "m-missing") == ["\u2212 A - a @4", "\u2212 B - null @30"]  # C waits for stream time


def test_scenario_page_folds_versions_that_were_not_checked(mixed_document: dict[str, Any]) -> None:
    page = render_report(mixed_document, all_pages=True)[scenario_file("fk-unclaimed")]
    assert "<summary>1 Kafka versions not checked (not claimed or not applicable)</summary>" in page


def test_scenario_page_puts_outputs_without_emitting_input_in_unknown_row() -> None:
    case = make_case("ss-no-idx", ROWS)
    outputs = [Output("k", ("A", "a"), 4, 1), Output("k", ("Z", None), 99, 1)]
    document = document_of([outcome_of(case, with_outputs(case, outputs, causes=False))])
    page = render_report(document)[scenario_file("ss-no-idx")]
    assert diff_rows(page)[-1] == "?emitting input unknown+ k: Z - null @99"
    assert td(page, "m-missing") == ["\u2212 B - null @30"]


def test_incomplete_run_is_said_on_top_of_every_page(mixed_document: dict[str, Any]) -> None:
    document = dict(mixed_document, complete=False, incomplete_reason="stopped by SIGTERM")
    pages = render_report(document)
    assert "<b>Incomplete run:</b> stopped by SIGTERM." in pages["index.html"]
    assert all('<span class="st st-unknown">incomplete run</span>' in page for page in pages.values())


def test_report_is_byte_identical_when_written_twice(mixed_document: dict[str, Any], tmp_path: Path) -> None:
    first, second = tmp_path / "one", tmp_path / "two"
    write_report(mixed_document, first)
    write_report(json.loads(json.dumps(mixed_document)), second)
    files = sorted(p.relative_to(first) for p in first.rglob("*") if p.is_file())
    assert len(files) == 5  # the index, three scenario pages and the manifest
    for relative in files:
        assert (first / relative).read_bytes() == (second / relative).read_bytes(), relative


def test_rewriting_a_report_removes_pages_of_scenarios_that_are_gone(
    mixed_document: dict[str, Any], tmp_path: Path
) -> None:
    (tmp_path / "notes.txt").write_text("mine")
    write_report(mixed_document, tmp_path)
    fewer = dict(mixed_document, cases=[c for c in mixed_document["cases"] if c["scenario"] != "ss-broken"])
    progress: list[tuple[int, int]] = []
    write_report(fewer, tmp_path, progress=lambda done, total: progress.append((done, total)))
    assert not (tmp_path / scenario_file("ss-broken")).exists()
    assert (tmp_path / scenario_file("ss-small")).exists()
    assert (tmp_path / "notes.txt").read_text() == "mine"  # nothing the report did not write is touched
    assert progress[-1] == (3, 3)


def _results(path: Path, document: dict[str, Any]) -> Path:
    write_json_atomically(path, document)
    return path


def test_report_command_writes_the_report_of_two_results_files(tmp_path: Path) -> None:
    case = make_case("ss-small", ROWS)
    old = retargeted(case, "3.0")
    a = _results(tmp_path / "a.json", document_of([outcome_of(case, with_outputs(case, []))]))
    b = _results(tmp_path / "b.json", document_of([outcome_of(old, with_outputs(old, []))]))
    out, err = io.StringIO(), io.StringIO()
    code = main(["report", str(a), str(b), "--out", str(tmp_path / "r")], stdout=out, stderr=err)
    assert code == 0, err.getvalue()
    assert out.getvalue() == f"report written to {tmp_path / 'r' / 'index.html'}\n"
    page = (tmp_path / "r" / scenario_file("ss-small")).read_text()
    assert "as Kafka 3.0 (era 3.0)" in page and "as Kafka 3.9 (era 3.8)" in page


def test_report_command_refuses_results_of_two_candidates(tmp_path: Path) -> None:
    case = make_case("ss-small", ROWS)
    old = retargeted(case, "3.0")
    a = _results(tmp_path / "a.json", document_of([outcome_of(case, with_outputs(case, []))]))
    other = document_of([outcome_of(old, with_outputs(old, []))], FakeCandidate(name="another"))
    b = _results(tmp_path / "b.json", other)
    err = io.StringIO()
    code = main(["report", str(a), str(b), "--out", str(tmp_path / "r")], stdout=io.StringIO(), stderr=err)
    assert code == 2
    assert "results of different candidates (another, fake)" in err.getvalue()


def test_report_command_exits_2_naming_an_unreadable_file(tmp_path: Path) -> None:
    (tmp_path / "bad.json").write_text("{not json")
    err = io.StringIO()
    code = main(
        ["report", str(tmp_path / "bad.json"), "--out", str(tmp_path / "r")], stdout=io.StringIO(), stderr=err
    )
    assert code == 2
    assert err.getvalue().startswith(f"kjoin: report: {tmp_path / 'bad.json'}: not a JSON document")


def test_report_command_reports_a_journal_left_by_a_killed_run(
    mixed_document: dict[str, Any], tmp_path: Path
) -> None:
    from kjoin.conformance.documents.results import ResultsJournal

    journal = ResultsJournal(tmp_path / "results.json", mixed_document["run"], mixed_document["candidate"])
    for case in mixed_document["cases"][:2]:
        journal.add(case)
    # killed here: no finish(), only results.json.partial exists
    out, err = io.StringIO(), io.StringIO()
    code = main(
        ["report", str(tmp_path / "results.json"), "--out", str(tmp_path / "r")], stdout=out, stderr=err
    )
    assert code == 0
    assert "the run is incomplete" in err.getvalue()
    index = (tmp_path / "r" / "index.html").read_text()
    assert "<b>Incomplete run:</b>" in index and "of 2</p>" in index


def test_identical_blocks_of_several_releases_are_shown_once_with_the_releases_listed() -> None:
    # the same answer (an eager A - null) for a left join run as 3.8, 3.9 and 4.0, where Kafka emits the
    # same: one block; run as 3.7 (another answer), a block of its own
    base = make_case("ss-same", ROWS)
    wrong = [Output("k", ("A", None), 1, 0), Output("k", ("A", "a"), 4, 1)]
    outcomes = [outcome_of(retargeted(base, v), with_outputs(base, wrong)) for v in ("3.8", "3.9", "4.0")]
    other = retargeted(base, "3.7")
    outcomes.append(outcome_of(other, with_outputs(other, [Output("k", ("A", "a"), 4, 1)])))
    page = render_report(document_of(outcomes))[scenario_file("ss-same")]
    headings = re.findall(r"<h2[^>]*>(as Kafka [^<]*)</h2>", page)
    assert headings == ["as Kafka 4.0, 3.9, 3.8 (eras 4.0.0, 3.8)", "as Kafka 3.7 (era 3.7)"]
    assert "The same for these 3 releases" in page
    assert page.count("<h4>Divergences of left") == 2  # the merged block once, 3.7's block once
    for version in ("3.8", "3.9", "4.0", "3.7"):  # every release keeps its anchor (the index links to it)
        assert f'id="{group_anchor(version, False)}"' in page
