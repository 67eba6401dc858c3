"""Era comparison pages from the oracle alone: KIP-77's "current vs suggested" (0.10.1 vs 0.10.2) and
the spurious-free left/outer joins (3.0 vs 3.1), for catalogue scenarios and the command line."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from test_reports_rendering import diff_rows, td

from kjoin.conformance.cli import main
from kjoin.conformance.harness.cases import load_cases
from kjoin.reports.era_diff import EraDiffError, era_diffs, render_era_pages, write_era_diff
from kjoin.reports.scenario_page import scenario_file
from kjoin.scenarios import CATALOGUE_ROOT

KIP77_LEFT = CATALOGUE_ROOT / "stream_stream" / "kip77-left-current-vs-suggested.toml"
DOCS_GRACE5 = CATALOGUE_ROOT / "stream_stream" / "docs-left-outer-spurious-free.toml"


def test_era_diff_kip77_left_join_shows_removed_null_results_and_added_right_triggers() -> None:
    [diff] = era_diffs(load_cases([KIP77_LEFT], kafka="0.10.1").cases, "0.10.1", "0.10.2")
    assert (diff.scenario, [v.status for v in diff.variants]) == ("ss-kip77-left", ["differs"])
    page = render_era_pages([diff], "0.10.1", "0.10.2")[scenario_file("ss-kip77-left")]
    # KIP-77 left join: remove all left null-value triggers (red), add triggers on the right input (green)
    assert td(page, "m-missing") == [
        "\u2212 null - null @1",
        "\u2212 null - a @7",
        "\u2212 null - b @7",
        "\u2212 null - a @12",
        "\u2212 null - b @12",
        "\u2212 null - c @12",
    ]
    added = [
        "A - a @4",
        "A - b @6",
        "B - b @6",
        "A - c @10",
        "B - c @10",
        "C - c @10",
        "A - d @14",
        "B - d @14",
        "C - d @14",
    ]
    assert td(page, "m-unexpected") == [f"+ {output}" for output in added]
    rows = diff_rows(page)
    assert rows[0] == "#tsleftrightleft (0.10.1)left (0.10.2)"
    assert rows[4] == "34a+ A - a @4"  # input 3 (right a @4): nothing in 0.10.1, A - a in 0.10.2
    assert rows[5] == "45BB - a @5B - a @5"  # unchanged results have no background
    assert "left: differs (6 removed, 9 added)" in page


def test_era_diff_spurious_free_joins_change_left_and_outer_not_inner() -> None:
    [diff] = era_diffs(load_cases([DOCS_GRACE5], kafka="3.0").cases, "3.0", "3.1")
    assert [(v.variant, v.status) for v in diff.variants] == [
        ("inner", "same"),
        ("left", "differs"),
        ("outer", "differs"),
    ]
    page = render_era_pages([diff], "3.0", "3.1")[scenario_file(diff.scenario)]
    # 3.0 emits non-joined results at once (legacy grace semantics); 3.1 holds them until the window closes
    assert td(page, "m-missing") == [
        "\u2212 A - null @3",
        "\u2212 A - null @3",
        "\u2212 null - f @80",
        "\u2212 G - null @100",
        "\u2212 G - null @100",
    ]
    assert td(page, "m-unexpected") == []
    assert diff_rows(page)[-1] == "18100G\u2212 G - null @100F - null @60\u2212 G - null @100F - null @60"
    index = render_era_pages([diff], "3.0", "3.1")["index.html"]
    assert td(index, "st-pass") == ["same"] and td(index, "st-fail") == ["differs", "differs"]


def test_era_diff_of_equal_eras_finds_no_difference() -> None:
    diffs = era_diffs(load_cases([KIP77_LEFT, DOCS_GRACE5], kafka="3.1").cases, "3.1", "3.4")
    assert [diff.differs for diff in diffs] == [False, False]


def test_era_diff_reports_a_join_one_version_lacks(tmp_path: Path) -> None:
    fk = CATALOGUE_ROOT / "foreign_key" / "kip213-lhs-workflow.toml"
    run = write_era_diff("2.3", "2.4", tmp_path, paths=[fk])
    [diff] = run.diffs
    assert {v.status for v in diff.variants} == {"differs"}
    assert isinstance(diff.variants[0].older, str) and "no such join" in diff.variants[0].older
    assert "Kafka 2.3 has no such join" in (tmp_path / scenario_file(diff.scenario)).read_text()


def test_write_era_diff_rejects_an_unknown_version(tmp_path: Path) -> None:
    with pytest.raises(EraDiffError, match="not a Kafka version: 'latest'"):
        write_era_diff("latest", "3.9", tmp_path)


def test_diff_versions_command_lists_differing_scenarios_and_writes_pages(tmp_path: Path) -> None:
    out = io.StringIO()
    argv = ["diff-versions", "0.10.1", "0.10.2", "--id", "ss-kip77-*", "--out", str(tmp_path)]
    code = main(argv, stdout=out, stderr=io.StringIO())
    assert code == 0
    assert out.getvalue() == (
        "Kafka 0.10.1 vs 0.10.2: 4 scenarios, 4 with different outputs\n"
        "  ss-kip77-current: inner, left, outer\n  ss-kip77-inner: inner\n  ss-kip77-left: left\n"
        f"  ss-kip77-outer: outer\npages written to {tmp_path / 'index.html'}\n"
    )
    assert len(list((tmp_path / "s").glob("*.html"))) == 4


def test_diff_versions_command_exits_2_when_no_scenario_matches(tmp_path: Path) -> None:
    err = io.StringIO()
    argv = ["diff-versions", "3.0", "3.1", "--id", "no-such-*", "--out", str(tmp_path)]
    code = main(argv, stdout=io.StringIO(), stderr=err)
    assert (code, err.getvalue()) == (2, "kjoin: diff-versions: no scenario matches no-such-*\n")
