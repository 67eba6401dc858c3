"""Run-to-run comparison of two results documents: improved, regressed, changed, added and removed cases,
changed verdicts, the terminal summary, the HTML page and ``kjoin compare``'s exit code."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pytest

from kjoin.conformance.catalogue import Case, load_cases
from kjoin.conformance.cli import main
from kjoin.conformance.documents.comparison import compare_documents, render_comparison
from kjoin.conformance.documents.results import write_json_atomically
from kjoin.conformance.protocol import DeclaredDifference
from kjoin.scenarios import CATALOGUE_ROOT
from support.html_pages import assert_inert, cells
from support.report_documents import answered_by_version, document_of, outcome_of, with_outputs

SEED_TABLES = sorted((CATALOGUE_ROOT / "stream_stream").glob("docs-*.toml")) + sorted(
    (CATALOGUE_ROOT / "stream_stream").glob("kip77-*.toml")
)
"""The stream-stream seed tables (the KIP and documentation tables, not the edge cases)."""


@pytest.fixture(scope="module")
def left_cases() -> list[Case]:
    """ss-docs-grace5 (spurious-free window), ss-docs-kip77, ss-docs-old, ss-kip77-current, ss-kip77-left
    (legacy windows: the same outputs in 3.0 and 3.9)."""
    cases = load_cases(SEED_TABLES, kafka="3.9").cases
    return [case for case in cases if case.variant == "left"]


def _document(cases: list[Case], version: str) -> dict[str, Any]:
    answer = answered_by_version(version)
    return json.loads(json.dumps(document_of([outcome_of(case, answer(case)) for case in cases])))


def test_compare_finds_an_improved_case_and_the_changed_verdict(left_cases: list[Case]) -> None:
    comparison = compare_documents(
        _document(left_cases, "3.0"), _document(left_cases, "3.9"), old_label="old", new_label="new"
    )
    assert comparison["counts"] == {
        "regressed": 0, "improved": 1, "changed": 0, "added": 0, "removed": 0, "unchanged": 4,
    }  # fmt: skip
    [change] = comparison["changes"]
    assert (change["id"], change["old"], change["new"]) == ("ss-docs-grace5[left-3.9]", "fail", "pass")
    assert change["note"] == "was: unexpected-output at input #2: k: A - null @3"
    [verdict] = comparison["verdicts"]
    assert verdict["label"] == "left stream-stream (run as 3.9)"
    assert "matches 2.1\u20133.0" in verdict["old"] and "matches 3.1+" in verdict["new"]


def test_compare_finds_regressions_added_and_removed_cases(left_cases: list[Case]) -> None:
    good = _document(left_cases, "3.9")
    answer = answered_by_version("0.10.1")
    declared = DeclaredDifference("ss-kip77-left", "0.10.1 semantics on purpose")
    kept = [case for case in left_cases if case.scenario != "ss-docs-old"]
    outcomes = [
        outcome_of(c, answer(c), declared=declared if c.scenario == declared.scenario else None) for c in kept
    ]
    extra = next(c for c in load_cases(SEED_TABLES, kafka="3.9").cases if c.variant == "inner")
    outcomes.append(outcome_of(extra, with_outputs(extra, [])))
    bad = json.loads(json.dumps(document_of(outcomes)))
    comparison = compare_documents(good, bad, old_label="good.json", new_label="bad.json")
    found = [(c["category"], c["id"], c["old"], c["new"]) for c in comparison["changes"]]
    regressed = [(category, case) for category, case, old, new in found if category == "regressed"]
    assert ("regressed", "ss-kip77-left[left-3.9]") in regressed  # a pass turned into a declared difference
    assert found[-2:] == [
        ("added", extra.id, None, "fail"),
        ("removed", "ss-docs-old[left-3.9]", "pass", None),
    ]
    text = render_comparison(comparison)
    counts = comparison["counts"]
    assert f"{counts['regressed']} regressed, 0 improved, 0 changed, 1 added, 1 removed" in text
    assert "  ss-kip77-left[left-3.9]: pass -> declared (" in text


def test_compare_notes_changed_outputs_under_the_same_status(left_cases: list[Case]) -> None:
    case = next(c for c in left_cases if c.scenario == "ss-kip77-left")
    first = document_of([outcome_of(case, with_outputs(case, []))])
    second = document_of([outcome_of(case, answered_by_version("0.10.1")(case))])
    comparison = compare_documents(first, second, old_label="a", new_label="b")
    [change] = comparison["changes"]
    assert (change["category"], change["old"], change["new"]) == ("changed", "fail", "fail")
    assert change["note"] == "the candidate's outputs changed"


def test_compare_command_exits_1_on_a_regression_and_writes_its_page(
    left_cases: list[Case], tmp_path: Path
) -> None:
    write_json_atomically(tmp_path / "old.json", _document(left_cases, "3.9"))
    write_json_atomically(tmp_path / "new.json", _document(left_cases, "3.0"))
    out = io.StringIO()
    argv = ["compare", str(tmp_path / "old.json"), str(tmp_path / "new.json"), "--out", str(tmp_path / "c")]
    assert main(argv, stdout=out, stderr=io.StringIO()) == 1
    lines = out.getvalue().splitlines()
    assert lines[2] == "1 regressed, 0 improved, 0 changed, 0 added, 0 removed, 4 unchanged"
    assert lines[-1] == f"comparison written to {tmp_path / 'c' / 'compare.html'}"
    page = (tmp_path / "c" / "compare.html").read_text()
    text = assert_inert(page, scripts=0)
    assert "Regressed (1)" in text and "Verdicts that moved" in text
    rows = [cell.text for cell in cells(page, "tr")]
    assert (
        "ss-docs-grace5[left-3.9]stream-streampassfailunexpected-output at input #2: k: A - null @3" in rows
    )
    reverse = ["compare", str(tmp_path / "new.json"), str(tmp_path / "old.json")]
    assert main(reverse, stdout=io.StringIO(), stderr=io.StringIO()) == 0
