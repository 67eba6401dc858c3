"""Values in results files are data from users and candidates: every page shows them as text. Hostile
scenario ids, keys, values, names, reasons, errors, versions and statuses give no element, attribute or
script, and file names stay plain."""

from __future__ import annotations

import html
import io
import json
import re
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest

from kjoin.conformance.checker import CandidateFailure
from kjoin.conformance.cli import main
from kjoin.conformance.protocol import DeclaredDifference
from kjoin.oracle.records import Output
from kjoin.reports.document import results_from_json
from kjoin.reports.write import render_report
from support.report_documents import FakeCandidate, document_of, make_case, outcome_of, with_outputs

SCRIPT = "<script>alert(1)</script>"
BREAKOUT = '"><img src=x onerror=alert(2)>'
QUOTE = "' onmouseover='alert(3)"


class _Tags(HTMLParser):
    """Start tags with their attributes, and all text (entities decoded)."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, list[tuple[str, str | None]]]] = []
        self.text: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, attrs))

    def handle_data(self, data: str) -> None:
        self.text.append(data)


def parsed(page: str) -> _Tags:
    parser = _Tags()
    parser.feed(page)
    return parser


def assert_inert(page: str, *, scripts: int) -> str:
    """No injected element or event attribute; only our own scripts. Returns the page's text."""
    tags = parsed(page)
    names = [tag for tag, _ in tags.tags]
    assert names.count("script") == scripts
    assert "img" not in names
    assert not [name for _, attrs in tags.tags for name, _ in attrs if name.startswith("on")]
    assert '<meta http-equiv="Content-Security-Policy" content="default-src &#x27;none&#x27;' in page
    return "".join(tags.text)


@pytest.fixture(scope="module")
def hostile_pages() -> dict[str, str]:
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
        case, [Output(BREAKOUT, (SCRIPT, None), 1, 0), Output(QUOTE, (BREAKOUT, QUOTE), 4, 1)]
    )
    failing = make_case("ss-fails", [("left", "k", "A", 1)])
    declared = DeclaredDifference(f"ss-{SCRIPT}*", f"reason {BREAKOUT}", kafka=(QUOTE,))
    outcomes = [
        outcome_of(case, wrong, declared=declared),
        outcome_of(failing, CandidateFailure(SCRIPT, f"Traceback {BREAKOUT}")),
    ]
    candidate = FakeCandidate(name=SCRIPT, declared_differences=(declared,))
    document: dict[str, Any] = json.loads(json.dumps(document_of(outcomes, candidate)))
    edited = json.loads(json.dumps(document["cases"][1]))
    edited.update(
        id=f"edited-{QUOTE}",
        scenario=f"edited-{QUOTE}",
        kafka=f'3.9"{SCRIPT}',
        status=SCRIPT,
        source=BREAKOUT,
        reason=SCRIPT,
        mode=BREAKOUT,
    )
    document["cases"].append(edited)
    document["run"]["spark_master"] = SCRIPT
    return render_report(results_from_json(document, "hostile.json"))


def test_report_pages_have_plain_file_names(hostile_pages: dict[str, str]) -> None:
    assert len(hostile_pages) == 4
    assert all(re.fullmatch(r"(s/)?[A-Za-z0-9._-]+\.html", name) for name in hostile_pages)


def test_index_page_shows_hostile_values_as_text(hostile_pages: dict[str, str]) -> None:
    index = hostile_pages["index.html"]
    text = assert_inert(index, scripts=1)  # the filter script only
    assert f"kjoin report: {SCRIPT}" in text
    assert f"ss-{SCRIPT}" in text and f"reason {BREAKOUT}" in text and f"edited-{QUOTE}" in text
    assert html.escape(SCRIPT) in index and SCRIPT not in index


@pytest.mark.parametrize("scenario", [f"ss-{SCRIPT}", "ss-fails", f"edited-{QUOTE}"])
def test_scenario_pages_show_hostile_values_as_text(hostile_pages: dict[str, str], scenario: str) -> None:
    from kjoin.reports.scenario_page import scenario_file

    page = hostile_pages[scenario_file(scenario)]
    text = assert_inert(page, scripts=0)
    assert scenario in text
    assert SCRIPT not in page and "<img" not in page


def test_scenario_page_shows_hostile_inputs_and_outputs_as_text(hostile_pages: dict[str, str]) -> None:
    from kjoin.reports.scenario_page import scenario_file

    text = assert_inert(hostile_pages[scenario_file(f"ss-{SCRIPT}")], scripts=0)
    assert f"{BREAKOUT}: {SCRIPT}" in text  # an input row (two keys: keys shown)
    assert f"+ {QUOTE}: {BREAKOUT} - {QUOTE} @4" in text  # the candidate's unexpected output
    assert f"declared difference: reason {BREAKOUT}" in text


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
    code = main(argv, stdout=io.StringIO(), stderr=io.StringIO())
    assert code == 0
    pages = sorted((tmp_path / "d").rglob("*.html"))
    assert len(pages) == 2
    for path in pages:
        assert re.fullmatch(r"[A-Za-z0-9._-]+\.html", path.name)
        text = assert_inert(path.read_text(), scripts=1 if path.name == "index.html" else 0)
        assert f"x-{SCRIPT}" in text
