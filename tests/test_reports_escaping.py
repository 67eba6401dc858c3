"""Values in results documents are data from users and candidates: every page shows them as text. Hostile
scenario ids, keys, values, names, reasons, errors, versions, statuses, explanations and call output give
no element, attribute or script, lone surrogates cannot break the page's encoding, and file names stay
plain."""

from __future__ import annotations

import html
import io
import json
import re
from pathlib import Path
from typing import Any

import pytest

from kjoin.conformance.checker import CandidateFailure
from kjoin.conformance.cli import main
from kjoin.conformance.documents.comparison import compare_documents
from kjoin.conformance.protocol import DeclaredDifference
from kjoin.oracle.records import Output
from kjoin.reports import render_report, write_comparison
from kjoin.reports.scenario_page import scenario_file
from support.html_pages import assert_inert
from support.report_documents import FakeCandidate, document_of, make_case, outcome_of, with_outputs

SCRIPT = "<script>alert(1)</script>"
BREAKOUT = '"><img src=x onerror=alert(2)>'
QUOTE = "' onmouseover='alert(3)"
SURROGATE = "bad \udcff text"


@pytest.fixture(scope="module")
def hostile_document() -> dict[str, Any]:
    case = make_case(
        f"ss-{SCRIPT}",
        [
            ("left", BREAKOUT, SCRIPT, 1),
            ("right", BREAKOUT, QUOTE, 4),
            ("left", "k2", BREAKOUT, 30),
            ("left", "k2", "C", 60),
        ],
    )
    wrong = with_outputs(
        case, [Output(BREAKOUT, (SCRIPT, None), 1, 0), Output(QUOTE, (BREAKOUT, SURROGATE), 4, 1)]
    )
    failing = make_case("ss-fails", [("left", "k", "A", 1)])
    declared = DeclaredDifference(f"ss-{SCRIPT}*", f"reason {BREAKOUT}", kafka=(QUOTE,))
    outcomes = [
        outcome_of(case, wrong),
        outcome_of(failing, CandidateFailure(SCRIPT, f"Traceback {BREAKOUT}")),
    ]
    candidate = FakeCandidate(name=SCRIPT, declared_differences=(declared,))
    document: dict[str, Any] = document_of(outcomes, candidate)
    edited = json.loads(json.dumps(document["cases"][1]))
    edited.update(
        id=f"edited-{QUOTE}",
        scenario=f"edited-{QUOTE}",
        kafka=f'3.9"{SCRIPT}',
        status=SCRIPT,
        source=BREAKOUT,
        reason=SCRIPT,
        mode=BREAKOUT,
        about={"description": SCRIPT, "features": [BREAKOUT], "errata": [{"row": 1, "seed_shows": SCRIPT,
               "kafka_does": BREAKOUT, "evidence": QUOTE}],
               "reference": {"title": SCRIPT, "url": "javascript:alert(4)", "section": BREAKOUT,
                             "info": SCRIPT}},
        explanation={"at": 0, "why": SCRIPT, "emitted": [], "before": [], "after": [
            {"title": SCRIPT, "columns": [BREAKOUT], "rows": [[QUOTE]], "note": SCRIPT}]},
        first_divergence={"kind": SCRIPT, "at": 0, "expected": None, "actual": None, "detail": BREAKOUT},
    )  # fmt: skip
    document["cases"].append(edited)
    document["run"]["spark_master"] = SCRIPT
    document["calls"] = [{"join": SCRIPT, "batch": BREAKOUT, "cases": 1, "status": BREAKOUT, "message": QUOTE,
                          "stdout": SCRIPT, "stderr": SURROGATE}]  # fmt: skip
    document["divergence_kinds"][SCRIPT] = BREAKOUT
    return document


@pytest.fixture(scope="module")
def hostile_pages(hostile_document: dict[str, Any]) -> dict[str, str]:
    return render_report(hostile_document)


def test_report_pages_have_plain_file_names(hostile_pages: dict[str, str]) -> None:
    assert len(hostile_pages) == 4
    assert all(re.fullmatch(r"(s/)?[A-Za-z0-9._-]+\.html", name) for name in hostile_pages)


def test_index_page_shows_hostile_values_as_text(hostile_pages: dict[str, str]) -> None:
    index = hostile_pages["index.html"]
    text = assert_inert(index, scripts=1)  # the filter script only
    assert f"kjoin report: {SCRIPT}" in text
    assert f"ss-{SCRIPT}" in text and f"reason {BREAKOUT}" in text and f"edited-{QUOTE}" in text
    assert html.escape(SCRIPT) in index and SCRIPT not in index
    index.encode("utf-8")  # a lone surrogate is written as its replacement character


@pytest.mark.parametrize("scenario", [f"ss-{SCRIPT}", "ss-fails", f"edited-{QUOTE}"])
def test_scenario_pages_show_hostile_values_as_text(hostile_pages: dict[str, str], scenario: str) -> None:
    page = hostile_pages[scenario_file(scenario)]
    text = assert_inert(page, scripts=0)
    assert scenario in text
    assert SCRIPT not in page and "<img" not in page
    page.encode("utf-8")


def test_scenario_page_shows_hostile_inputs_and_outputs_as_text(hostile_pages: dict[str, str]) -> None:
    text = assert_inert(hostile_pages[scenario_file(f"ss-{SCRIPT}")], scripts=0)
    assert f"{BREAKOUT}: {SCRIPT}" in text  # an input row (two keys: keys shown)
    assert f"+ {QUOTE}: {BREAKOUT} - bad \ufffd text @4" in text  # the candidate's unexpected output


def test_hostile_links_and_explanations_stay_text(hostile_pages: dict[str, str]) -> None:
    page = hostile_pages[scenario_file(f"edited-{QUOTE}")]
    text = assert_inert(page, scripts=0)
    assert f"Why: {SCRIPT}" in text and "errata" in text.lower()
    assert 'href="javascript:alert(4)"' in page  # shown as a link the page's policy cannot follow into script
    assert "script-src" not in page.split("Content-Security-Policy", 1)[1].split(">", 1)[0]


def test_comparison_page_shows_hostile_values_as_text(
    hostile_document: dict[str, Any], tmp_path: Path
) -> None:
    other = json.loads(json.dumps(hostile_document))
    other["cases"][0]["status"] = "pass"
    comparison = compare_documents(hostile_document, other, old_label=SCRIPT, new_label=BREAKOUT)
    page = write_comparison(comparison, tmp_path).read_text(encoding="utf-8")
    text = assert_inert(page, scripts=0)
    assert SCRIPT in text and BREAKOUT in text


def test_diff_versions_pages_show_hostile_scenarios_as_text(tmp_path: Path) -> None:
    line = {
        "id": f"x-{SCRIPT}",
        "kafka": "3.9",
        "join": "stream-stream",
        "variant": "left",
        "window": {"before": 10, "after": 10, "grace": None},
        "records": [
            {"side": "left", "key": BREAKOUT, "value": SCRIPT, "ts": 1},
            {"side": "right", "key": BREAKOUT, "value": QUOTE, "ts": 2},
        ],
    }
    source = tmp_path / "hostile.jsonl"
    source.write_text(json.dumps(line) + "\n")
    argv = ["diff-versions", "0.10.1", "0.10.2", "--scenarios", str(source), "--out", str(tmp_path / "d")]
    err = io.StringIO()
    code = main(argv, stdout=io.StringIO(), stderr=err)
    assert code == 0, err.getvalue()
    pages = sorted((tmp_path / "d").rglob("*.html"))
    assert len(pages) == 2
    for path in pages:
        assert re.fullmatch(r"[A-Za-z0-9._-]+\.html", path.name)
        text = assert_inert(path.read_text(), scripts=1 if path.name == "index.html" else 0)
        assert f"x-{SCRIPT}" in text
