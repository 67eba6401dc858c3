"""The report in a real browser (headless Chromium through Selenium and chromedriver): the matrix and its
filters work (controls and ``#filter:`` links from the summary), missing and unexpected outputs are red
and green, the timeline draws, hostile values stay inert text, and the pages load nothing from the
network and log no console errors.

Skipped only outside CI when Chromium is not installed; with ``CI=true`` a missing browser is a failure,
so CI cannot go green without running it (Debian: ``apt-get install -y chromium chromium-driver``).
``KJOIN_SCREENSHOTS=DIR`` also saves a screenshot of each page the tests open.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from selenium.common.exceptions import NoAlertPresentException
from selenium.webdriver import Chrome

from kjoin.conformance.checker import CandidateFailure
from kjoin.oracle.records import Output
from kjoin.reports import write_report
from kjoin.reports.assets import MISSING_BACKGROUND, UNEXPECTED_BACKGROUND
from kjoin.reports.scenario_page import scenario_file
from support.browser import BrowserMissing, find_browser, headless_chromium
from support.report_documents import FakeCandidate, document_of, make_case, outcome_of, with_outputs

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
def browser(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Chrome]:
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
    write_report(document_of(outcomes, FakeCandidate(name=HOSTILE)), folder)
    return folder


def _open(browser: Chrome, page: Path, fragment: str = "") -> None:
    browser.get(page.as_uri() + fragment)
    try:
        alert = browser.switch_to.alert.text
    except NoAlertPresentException:
        alert = None
    assert alert is None  # nothing in the page opened an alert
    shots = os.environ.get("KJOIN_SCREENSHOTS")
    if shots:
        Path(shots).mkdir(parents=True, exist_ok=True)
        browser.save_screenshot(str(Path(shots) / f"{page.stem}{fragment.replace(':', '_')}.png"))


def _severe(browser: Chrome) -> list[dict[str, Any]]:
    return [entry for entry in browser.get_log("browser") if entry.get("level") == "SEVERE"]


def _visible(browser: Chrome) -> list[str]:
    return list(
        browser.execute_script(
            "return Array.from(document.querySelectorAll('#rows tbody tr')).filter(r => !r.hidden)"
            ".map(r => r.cells[0].textContent);"
        )
    )


def test_browser_index_matrix_renders_and_filters(browser: Chrome, report: Path) -> None:
    _open(browser, report / "index.html")
    assert len(_visible(browser)) == 3
    colours = browser.execute_script(
        "return Array.from(document.querySelectorAll('#rows td[class^=st-]'))"
        ".map(td => [td.className, getComputedStyle(td).backgroundColor]);"
    )
    assert sorted(map(tuple, colours)) == [("st-error", "rgb(207, 34, 46)")] + [
        ("st-fail", "rgb(207, 34, 46)")
    ] * 2 + [("st-pass", "rgb(218, 251, 225)")]
    shown = browser.execute_script(
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
    resources = browser.execute_script("return performance.getEntriesByType('resource').length")
    assert resources == 0  # offline
    assert _severe(browser) == []


def test_browser_summary_links_open_the_filtered_matrix(browser: Chrome, report: Path) -> None:
    _open(browser, report / "index.html")
    link = browser.execute_script(
        "var a = Array.from(document.querySelectorAll('table.summary a'))"
        ".find(a => a.getAttribute('href') === '#filter:j=stream-stream,d=candidate-error');"
        "a.click(); return a.getAttribute('href');"
    )
    assert link == "#filter:j=stream-stream,d=candidate-error"
    assert _visible(browser) == ["ss-broken"]
    selected = browser.execute_script(
        "return Array.from(document.querySelectorAll('select[data-filter]')).map(s => s.value);"
    )
    assert selected == ["stream-stream", "", "", "candidate-error", ""]  # the last: the cause shape
    _open(browser, report / "index.html", "#filter:s=failing")  # a link from outside the page
    assert sorted(_visible(browser)) == [f"hostile-{HOSTILE}", "ss-broken", "ss-small"]
    _open(browser, report / "index.html", "#filter:c=unexpected-non-joined")  # a diagnosis line's link
    assert _visible(browser) == ["ss-small"]
    assert _severe(browser) == []


def test_browser_scenario_page_shows_missing_red_unexpected_green_and_the_timeline(
    browser: Chrome, report: Path
) -> None:
    _open(browser, report / scenario_file("ss-small"))
    found = browser.execute_script(
        "function cells(css) { return Array.from(document.querySelectorAll('table.diff td.' + css))"
        ".map(td => [td.textContent, getComputedStyle(td).backgroundColor]); }"
        "var first = document.querySelector('table.diff tr.first td');"
        "var svg = document.querySelector('svg.timeline');"
        "return [cells('m-missing'), cells('m-unexpected'), getComputedStyle(first).borderTopColor,"
        " first.textContent, svg.getBoundingClientRect().width > 400,"
        " svg.querySelectorAll('.out-missing').length, svg.querySelectorAll('.out-unexpected').length];"
    )
    assert found == [
        [["\u2212 B - null @30", _rgb(MISSING_BACKGROUND)]],
        [["+ A - null @1", _rgb(UNEXPECTED_BACKGROUND)]],
        "rgb(207, 34, 46)",
        "\u25b6 0",
        True,
        1,
        1,
    ]
    assert _severe(browser) == []


def test_browser_keeps_hostile_values_inert(browser: Chrome, report: Path) -> None:
    for page, scripts in (
        (report / "index.html", 1),
        (report / scenario_file(f"hostile-{HOSTILE}"), 0),
        (report / scenario_file("ss-broken"), 0),
    ):
        _open(browser, page)
        text, script_count, images, handlers = browser.execute_script(
            "return [document.body.textContent, document.querySelectorAll('script').length,"
            " document.querySelectorAll('img').length,"
            " Array.from(document.querySelectorAll('*')).filter(e => Array.from(e.attributes)"
            "   .some(a => a.name.startsWith('on'))).length];"
        )
        assert HOSTILE in text, page
        assert (script_count, images, handlers) == (scripts, 0, 0), page
        assert _severe(browser) == [], page
    _open(browser, report / scenario_file(f"hostile-{HOSTILE}"))
    assert f"+ {HOSTILE} - {BREAKOUT} @2" in browser.execute_script("return document.body.textContent")
