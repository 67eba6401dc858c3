"""The report in a real browser (headless Chromium through chromedriver's W3C WebDriver API): the matrix
and its filters work, missing and unexpected rows are red and green, hostile values stay inert text, the
pages load nothing from the network and log no console errors.

Skipped only outside CI when Chromium is not installed; with ``CI=true`` a missing browser is a failure,
so CI cannot go green without running it (Debian: ``apt-get install -y chromium chromium-driver``).
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from kjoin.conformance.checker import CandidateFailure
from kjoin.conformance.harness.results import write_results
from kjoin.oracle.records import Output
from kjoin.reports.assets import MISSING_BACKGROUND, UNEXPECTED_BACKGROUND
from kjoin.reports.scenario_page import scenario_file
from kjoin.reports.write import write_report
from support.report_documents import FakeCandidate, document_of, make_case, outcome_of, with_outputs
from support.webdriver_client import BrowserMissing, WebDriver, find_browser, headless_chromium

HOSTILE = "<script>alert(1)</script>"
BREAKOUT = '"><img src=x onerror=alert(2)>'
ROWS = [("left", "k", "A", 1), ("right", "k", "a", 4), ("left", "k", "B", 30), ("left", "k", "C", 60)]


def _rgb(colour: str) -> str:
    """``#ffd7d5`` as a computed style reads it: ``rgb(255, 215, 213)``."""
    red, green, blue = (int(colour[i : i + 2], 16) for i in (1, 3, 5))
    return f"rgb({red}, {green}, {blue})"


def _in_ci() -> bool:
    return os.environ.get("CI", "").strip().lower() in ("true", "1", "yes")


@pytest.fixture(scope="module")
def browser(tmp_path_factory: pytest.TempPathFactory) -> Iterator[WebDriver]:
    try:
        find_browser()
    except BrowserMissing as missing:
        if _in_ci():
            pytest.fail(f"CI=true but the report's browser test cannot run: {missing}", pytrace=False)
        pytest.skip(f"{missing} (not in CI; with CI=true this fails)")
    with headless_chromium(tmp_path_factory.mktemp("chromium")) as driver:
        yield driver


@pytest.fixture(scope="module")
def report(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("report")
    left = make_case("ss-small", ROWS)
    inner = make_case("ss-small", ROWS, variant="inner")
    hostile = make_case(f"hostile-{HOSTILE}", [("left", BREAKOUT, HOSTILE, 1), ("right", BREAKOUT, "a", 2)])
    broken = make_case("ss-broken", ROWS)
    outcomes = [
        outcome_of(left, with_outputs(left, [Output("k", ("A", None), 1, 0), Output("k", ("A", "a"), 4, 1)])),
        outcome_of(inner, with_outputs(inner, [Output("k", ("A", "a"), 4, 1)])),
        outcome_of(hostile, with_outputs(hostile, [Output(BREAKOUT, (HOSTILE, BREAKOUT), 2, 1)])),
        outcome_of(broken, CandidateFailure(HOSTILE, BREAKOUT)),
    ]
    write_results(folder / "results.json", document_of(outcomes, FakeCandidate(name=HOSTILE)))
    write_report(folder / "results.json", folder)
    return folder


def _open(browser: WebDriver, page: Path) -> None:
    browser.open(page.as_uri())
    assert browser.alert_text() is None  # nothing in the page opened an alert


def _severe(browser: WebDriver) -> list[dict[str, Any]]:
    return [entry for entry in browser.console() if entry.get("level") == "SEVERE"]


def test_browser_index_matrix_renders_and_filters(browser: WebDriver, report: Path) -> None:
    _open(browser, report / "index.html")
    rows = browser.execute("return document.querySelectorAll('#rows tbody tr').length")
    assert rows == 3
    colours = browser.execute(
        "return Array.from(document.querySelectorAll('#rows td[class^=st-]'))"
        ".map(td => [td.className, getComputedStyle(td).backgroundColor]);"
    )
    assert sorted(map(tuple, colours)) == [("st-fail", "rgb(207, 34, 46)")] * 3 + [
        ("st-pass", "rgb(218, 251, 225)")
    ]
    shown = browser.execute(
        "var s = document.querySelector('select[data-filter=s]'); s.value = 'pass';"
        "s.dispatchEvent(new Event('change'));"
        "var visible = Array.from(document.querySelectorAll('#rows tbody tr')).filter(r => !r.hidden)"
        ".map(r => r.cells[0].textContent);"
        "var q = document.getElementById('q'); s.value = ''; s.dispatchEvent(new Event('change'));"
        "q.value = 'HOSTILE'; q.dispatchEvent(new Event('input'));"
        "var found = Array.from(document.querySelectorAll('#rows tbody tr')).filter(r => !r.hidden)"
        ".map(r => r.cells[0].textContent);"
        "return [visible, found, document.getElementById('shown').textContent];"
    )
    assert shown == [["ss-small"], [f"hostile-{HOSTILE}"], "1 of 3 rows shown"]
    assert browser.execute("return performance.getEntriesByType('resource').length") == 0  # offline
    assert _severe(browser) == []


def test_browser_scenario_page_shows_missing_rows_red_and_unexpected_rows_green(
    browser: WebDriver, report: Path
) -> None:
    _open(browser, report / scenario_file("ss-small"))
    found = browser.execute(
        "function cells(css) { return Array.from(document.querySelectorAll('table.diff td.' + css))"
        ".map(td => [td.textContent, getComputedStyle(td).backgroundColor]); }"
        "var first = document.querySelector('table.diff tr.first td');"
        "return [cells('m-missing'), cells('m-unexpected'), getComputedStyle(first).borderTopColor,"
        " first.textContent];"
    )
    assert found == [
        [["\u2212 B - null @30", _rgb(MISSING_BACKGROUND)]],
        [["+ A - null @1", _rgb(UNEXPECTED_BACKGROUND)]],
        "rgb(207, 34, 46)",
        "\u25b6 0",
    ]
    assert _severe(browser) == []


def test_browser_keeps_hostile_values_inert(browser: WebDriver, report: Path) -> None:
    for page, scripts in (
        (report / "index.html", 1),
        (report / scenario_file(f"hostile-{HOSTILE}"), 0),
        (report / scenario_file("ss-broken"), 0),
    ):
        _open(browser, page)
        found = browser.execute(
            "return [document.body.textContent, document.querySelectorAll('script').length,"
            " document.querySelectorAll('img').length,"
            " Array.from(document.querySelectorAll('*')).filter(e => Array.from(e.attributes)"
            "   .some(a => a.name.startsWith('on'))).length];"
        )
        text, script_count, images, handlers = found
        assert HOSTILE in text, page
        assert (script_count, images, handlers) == (scripts, 0, 0), page
        assert _severe(browser) == [], page
    _open(browser, report / scenario_file(f"hostile-{HOSTILE}"))
    assert f"+ {HOSTILE} - {BREAKOUT} @2" in browser.execute("return document.body.textContent")
