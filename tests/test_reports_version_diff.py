"""Version diffs from the oracle alone: KIP-77's "current vs suggested" (0.10.1 vs 0.10.2), the
spurious-free left/outer joins (3.0 vs 3.1) and a join one version lacks, as documents, pages and
``kjoin diff-versions``."""

from __future__ import annotations

import io
from pathlib import Path

from kjoin.conformance.catalogue import load_cases
from kjoin.conformance.cli import main
from kjoin.conformance.documents.version_diff import provenance_rank, version_diff
from kjoin.reports import write_version_diff
from kjoin.reports.version_diff_page import diff_page_file, render_diff_index, render_diff_scenario_page
from kjoin.scenarios import CATALOGUE_ROOT
from support.html_pages import assert_inert, diff_rows, td

KIP77_LEFT = CATALOGUE_ROOT / "stream_stream" / "kip77-left.toml"
DOCS_GRACE5 = CATALOGUE_ROOT / "stream_stream" / "docs-grace5.toml"


def test_kip77_left_join_shows_removed_null_results_and_added_right_triggers() -> None:
    diff = version_diff(load_cases([KIP77_LEFT], kafka="0.10.1").cases, "0.10.1", "0.10.2")
    [entry] = diff["scenarios"]
    assert (entry["scenario"], [v["status"] for v in entry["variants"]]) == ("ss-kip77-left", ["differs"])
    page = render_diff_scenario_page(diff, entry)
    # KIP-77 left join: remove all left null-value triggers (red), add triggers on the right input (green)
    assert td(page, "m-missing") == [
        "\u2212 null - null @1",
        "\u2212 null - a @7",
        "\u2212 null - b @7",
        "\u2212 null - a @12",
        "\u2212 null - b @12",
        "\u2212 null - c @12",
    ]
    added = ["A - a @4", "A - b @6", "B - b @6", "A - c @10", "B - c @10", "C - c @10", "A - d @14",
             "B - d @14", "C - d @14"]  # fmt: skip
    assert td(page, "m-unexpected") == [f"+ {output}" for output in added]
    rows = diff_rows(page)
    assert rows[0] == "#tsleftrightleft (0.10.1)left (0.10.2)"
    assert rows[4] == "34a+ A - a @4"  # input 3 (right a @4): nothing in 0.10.1, A - a in 0.10.2
    assert rows[5] == "45BB - a @5B - a @5"  # unchanged results have no background
    svg = page.split('<svg class="timeline"', 1)[1]
    assert "<title>k: A - a @4 (only Kafka 0.10.2, emitted at input #3)</title>" in svg


def test_spurious_free_joins_change_left_and_outer_not_inner() -> None:
    diff = version_diff(load_cases([DOCS_GRACE5], kafka="3.0").cases, "3.0", "3.1")
    assert diff["changed_flags"] == ["has_spurious_free_outer_joins"]
    [entry] = diff["scenarios"]
    assert [(v["variant"], v["status"]) for v in entry["variants"]] == [
        ("inner", "same"),
        ("left", "differs"),
        ("outer", "differs"),
    ]
    page = render_diff_scenario_page(diff, entry)
    # 3.0 emits non-joined results at once (legacy grace semantics); 3.1 holds them until the window closes
    assert td(page, "m-missing") == [
        "\u2212 A - null @3",
        "\u2212 A - null @3",
        "\u2212 null - f @80",
        "\u2212 G - null @100",
        "\u2212 G - null @100",
    ]
    assert td(page, "m-unexpected") == []
    # E - null @40 and F - null @60: emitted by both, but by 3.1 only when stream time passes their window
    assert td(page, "m-order") == ["~ E - null @40", "~ E - null @40", "~ F - null @60", "~ F - null @60"] * 2
    assert diff_rows(page)[-1] == "18100G\u2212 G - null @100~ F - null @60\u2212 G - null @100~ F - null @60"
    index = render_diff_index(diff)
    # a difference between versions is information: a neutral "differs", never a failure colour
    body = index.split("<body>", 1)[1]
    assert "st-fail" not in body and "st-error" not in body
    assert (
        '<span class="st st-differs">differs</span>' in index
        and '<span class="st st-same">same</span>' in index
    )
    assert "<code>has_spurious_free_outer_joins</code>" in index


def test_equal_eras_give_no_difference() -> None:
    diff = version_diff(load_cases([KIP77_LEFT, DOCS_GRACE5], kafka="3.1").cases, "3.1", "3.4")
    assert diff["counts"]["differ"] == 0
    assert {v["status"] for e in diff["scenarios"] for v in e["variants"]} == {"same"}


def test_a_join_one_version_lacks_differs_with_the_reason(tmp_path: Path) -> None:
    fk = CATALOGUE_ROOT / "foreign_key" / "kip213-lhs-workflow.toml"
    diff = version_diff(load_cases([fk]).cases, "2.3", "2.4")
    [entry] = diff["scenarios"]
    assert {v["status"] for v in entry["variants"]} == {"differs"}
    assert (
        entry["variants"][0]["older"] is None
        and "Kafka 2.3 has no such join" in entry["variants"][0]["reason"]
    )
    write_version_diff(diff, tmp_path)
    page = (tmp_path / diff_page_file(entry["scenario"])).read_text()
    assert "Kafka 2.3 has no such join" in assert_inert(page, scripts=0)


def test_diff_versions_command_lists_differing_scenarios_and_writes_pages(tmp_path: Path) -> None:
    out = io.StringIO()
    argv = ["diff-versions", "0.10.1", "0.10.2", "--id", "ss-kip77-*", "--out", str(tmp_path)]
    code = main(argv, stdout=out, stderr=io.StringIO())
    assert code == 0
    lines = out.getvalue().splitlines()
    assert (
        lines[0] == "Kafka 0.10.1 (era 0.10.1) vs 0.10.2 (era 0.10.2): 4 scenarios, 4 with different outputs"
    )
    changed = [line.split(" (", 1)[0] for line in lines if line.startswith("changed: ")]
    assert changed == [
        f"changed: {flag}"
        for flag in (
            "null_stream_values_are_joined",
            "left_join_is_symmetric",
            "has_stream_table_inner_join",
            "has_global_table_joins",
            "table_joins_forward_every_update",
            "null_key_fails_table_join",
        )
    ]
    # each changed flag in a sentence, with its evidence, from the era table's own documentation
    assert (
        "changed: left_join_is_symmetric (off in 0.10.1, on in 0.10.2): KIP-77 (0.10.2, KAFKA-4001): both "
        "sides of a left stream-stream join probe the other side." in out.getvalue()
    )
    assert "  (every flag and its evidence: docs/semantics/eras.md)" in lines
    assert lines[-5:] == [
        "  ss-kip77-current: inner, left, outer",
        "  ss-kip77-inner: inner",
        "  ss-kip77-left: left",
        "  ss-kip77-outer: outer",
        f"pages written to {tmp_path / 'index.html'}",
    ]
    index = (tmp_path / "index.html").read_text()
    assert '<a href="https://issues.apache.org/jira/browse/KAFKA-4001">KAFKA-4001</a>' in index
    assert "<code>left_join_is_symmetric</code> (off \u2192 on): KIP-77 (0.10.2, KAFKA-4001)" in index
    assert len(list((tmp_path / "s").glob("*.html"))) == 4


def test_documented_tables_come_before_edge_cases_and_traces() -> None:
    diff = version_diff(load_cases(kafka="3.0").cases, "3.0", "3.1", ids=["ss-*", "docs-ss-*"])
    ranks = [provenance_rank(entry) for entry in diff["scenarios"]]
    assert ranks == sorted(ranks) and ranks[0] == 0 and ranks[-1] == 3
    assert diff["scenarios"][0]["about"]["reference"]["document"] == "join-semantics-wiki"
    index = render_diff_index(diff)
    differing = [a.split('">', 1)[1] for a in index.split('<a href="s/')[1:]]
    assert differing[0].startswith("ss-docs-grace5<")  # the documentation's table, before generated traces


def test_diff_versions_command_exits_2_when_no_scenario_matches(tmp_path: Path) -> None:
    err = io.StringIO()
    argv = ["diff-versions", "3.0", "3.1", "--id", "no-such-*", "--out", str(tmp_path)]
    code = main(argv, stdout=io.StringIO(), stderr=err)
    assert (code, err.getvalue()) == (2, "kjoin: diff-versions: no scenario matches no-such-*\n")


def test_diff_versions_command_exits_2_on_an_unknown_version(tmp_path: Path) -> None:
    err = io.StringIO()
    code = main(["diff-versions", "latest", "3.9", "--out", str(tmp_path)], stdout=io.StringIO(), stderr=err)
    assert code == 2
    assert "latest" in err.getvalue()


def test_a_global_table_joins_era_change_is_explained_with_its_ticket_and_its_inputs_named(
    tmp_path: Path,
) -> None:
    """KAFKA-10277 (2.7): the version diff of a stream-GlobalKTable scenario names the flag with its ticket,
    and its page calls the inputs the stream and the global table (they were 'left' and 'right')."""
    source = CATALOGUE_ROOT / "stream_globaltable" / "null-mapped-key-left-join.toml"
    diff = version_diff(load_cases([source], kafka="2.6").cases, "2.6", "2.7")
    assert diff["changed_flags"] == ["global_join_drops_by_mapped_key"]
    [entry] = diff["scenarios"]
    assert [(v["variant"], v["status"]) for v in entry["variants"]] == [("left", "differs")]
    page = render_diff_scenario_page(diff, entry)
    assert diff_rows(page)[0] == "#tsstreamglobal tableleft (2.6)left (2.7)"
    assert td(page, "m-missing") == ["\u2212 :A - null @2"]
    out = io.StringIO()
    code = main(
        ["diff-versions", "2.6", "2.7", "--id", "gt-*", "--out", str(tmp_path)],
        stdout=out,
        stderr=io.StringIO(),
    )
    assert code == 0
    assert (
        "changed: global_join_drops_by_mapped_key (off in 2.6, on in 2.7): KAFKA-10277 (2.7.0)"
        in out.getvalue()
    )
