"""Seed-table files load strictly: every bundled file loads, and every malformed file gives a ScenarioError
naming the file, the scenario id, the field and the bad value, without stopping the other files."""

from __future__ import annotations

from pathlib import Path

import pytest

from kjoin.conformance.scenario_files import (
    FEATURES,
    ExpectedItem,
    ScenarioError,
    compare_block,
    compare_outputs,
    load_catalogue,
    load_scenario,
)
from kjoin.oracle.records import JoinSpec, Output, Record, Window
from kjoin.scenarios import CATALOGUE_ROOT

VALID = """\
id = "ss-test"
description = "a small valid stream-stream table"
join = "stream-stream"
variants = ["inner", "left"]
features = ["null-values"]
window = { before = 100, after = 100 }

input = '''
#  | ts | side  | key | value
0  |  1 | left  | k   | A
1  |  2 | right | k   | a
2  |  3 | left  | k   | null
'''

[source]
seed = "000_47b3376171c693f3.txt"
section = "a section"
info = '''
ts | left | right | innerJoin | leftJoin
'''

[[expected]]
kafka = "0.10.2"
describes = "0.10.2"
timestamps = true
outputs = '''
# | inner | left
0 |  | A - null @1
1 | A - a @2 | k: A - a @2
'''

[[errata]]
row = 1
variant = "left"
kafka = "0.10.2"
seed_shows = "x"
kafka_does = "y"
evidence = "z"
"""

SEED_IDS = {
    "ss-kip77-current", "ss-kip77-inner", "ss-kip77-left", "ss-kip77-outer", "ss-docs-grace5",
    "ss-docs-kip77", "ss-docs-old", "st-kip77-current", "st-kip77-suggested", "st-docs-kip77",
    "st-docs-old", "tt-kip77-current", "tt-kip77-tombstones", "tt-docs-kip77", "tt-docs-old",
}  # fmt: skip
"""The seed tables of KIP-77 (seed 000) and the Join Semantics page (seed 001, without its FK table)."""
OUT = "expected[0] (kafka 0.10.2) outputs"


def _write(root: Path, text: str, name: str = "stream_stream/x.toml") -> Path:
    path = root / "scenarios" / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def _error(tmp_path: Path, text: str) -> ScenarioError:
    path = _write(tmp_path, text)
    with pytest.raises(ScenarioError) as caught:
        load_scenario(path, "scenarios/stream_stream/x.toml")
    return caught.value


def _assert_names(error: ScenarioError, field: str, value: object, scenario: str | None = "ss-test") -> None:
    message = str(error)
    assert message.startswith(f"scenarios/stream_stream/x.toml [{scenario or '?'}] "), message
    assert error.field == field, message
    assert error.value == value, message
    assert f"field {field}: {value!r}" in message


def test_scenario_files_bundled_catalogue_loads_without_errors() -> None:
    catalogue = load_catalogue(CATALOGUE_ROOT)
    assert catalogue.errors == (), "\n".join(str(error) for error in catalogue.errors)
    assert {scenario.id for scenario in catalogue.scenarios} >= SEED_IDS


def test_scenario_files_bundled_seed_tables_keep_seed_text_and_state_errata() -> None:
    scenarios = {s.id: s for s in load_catalogue(CATALOGUE_ROOT).scenarios}
    assert "\u0410" in scenarios["ss-kip77-current"].source.info  # the seed's Cyrillic A stays in info
    records = scenarios["ss-kip77-current"].records
    assert all(record.value is None or record.value.isascii() for record in records)
    grace = scenarios["ss-docs-grace5"]
    assert {erratum.row for erratum in grace.errata} >= {16, 17, 18}
    assert [(row, item.value) for row, item in grace.expected[0].outputs["left"]][-2:] == [
        (17, ("E", None)),
        (18, ("F", None)),
    ]


def test_scenario_files_valid_file_parses_records_outputs_and_spec(tmp_path: Path) -> None:
    scenario = load_scenario(_write(tmp_path, VALID))
    assert scenario.records == (
        Record("left", "k", "A", 1),
        Record("right", "k", "a", 2),
        Record("left", "k", None, 3),
    )
    block = scenario.expected[0]
    assert block.label == "0.10.2" and block.variants == ("inner", "left") and not block.intended
    assert block.outputs["inner"] == ((1, ExpectedItem("k", ("A", "a"), 2)),)
    assert block.outputs["left"] == (
        (0, ExpectedItem("k", ("A", None), 1)),
        (1, ExpectedItem("k", ("A", "a"), 2, key_given=True)),
    )
    assert scenario.spec("left") == JoinSpec(join="stream-stream", variant="left", window=Window(100, 100))
    assert scenario.errata[0].row == 1 and scenario.errata[0].kafka == "0.10.2"
    assert set(scenario.features) <= set(FEATURES)


def test_scenario_files_output_keys_default_to_the_emitting_row_and_can_be_null(tmp_path: Path) -> None:
    text = VALID.replace("0  |  1 | left  | k   | A", "0  |  1 | left  | null | A").replace(
        "1 | A - a @2 | k: A - a @2", "1 | A - a @2 | null: A - a @2"
    )
    scenario = load_scenario(_write(tmp_path, text))
    assert scenario.records[0].key is None
    assert scenario.expected[0].outputs["left"][0] == (0, ExpectedItem(None, ("A", None), 1))
    assert scenario.expected[0].outputs["left"][1] == (1, ExpectedItem(None, ("A", "a"), 2, key_given=True))


def test_scenario_files_timestamps_false_leaves_ts_unstated(tmp_path: Path) -> None:
    text = VALID.replace("timestamps = true", "timestamps = false").replace(" @1", "").replace(" @2", "")
    block = load_scenario(_write(tmp_path, text)).expected[0]
    assert block.outputs["left"][0] == (0, ExpectedItem("k", ("A", None), None))


@pytest.mark.parametrize(
    ("old", "new", "field", "value"),
    [
        ('features = ["null-values"]', 'features = ["null-values"]\ncolour = "red"', "colour", "red"),
        ('features = ["null-values"]', 'features = ["nul-values"]', "features", "nul-values"),
        ('variants = ["inner", "left"]', 'variants = ["inner", "full"]', "variants", "full"),
        ('join = "stream-stream"', 'join = "stream-stream-join"', "join", "stream-stream-join"),
        ('id = "ss-test"\n', 'id = "ss-test"\nflags = ["handmade"]\n', "flags", "handmade"),
        ("window = { before = 100, after = 100 }", "", "window", None),
        ("window = { before = 100, after = 100 }", "window = { before = -1 }", "window.before", -1),
        ('seed = "000_47b3376171c693f3.txt"', 'seed = "seeds/000.txt"', "source.seed", "seeds/000.txt"),
        ('kafka = "0.10.2"\n', 'kafka = "0.9"\n', "kafka", "0.9"),
        ("timestamps = true\n", "", "timestamps", None),
        ("row = 1\n", "row = 3\n", "row", 3),
        ('kafka = "0.10.2"\nseed_shows', 'kafka = "3.9"\nseed_shows', "kafka", "3.9"),
        ('variant = "left"', 'variant = "outer"', "variant", "outer"),
    ],
    ids=[
        "unknown-top-level-key", "unknown-feature", "unknown-variant", "unknown-join", "unknown-flag",
        "missing-window", "negative-window", "seed-path", "unknown-version", "missing-timestamps",
        "erratum-row-past-input", "erratum-unknown-block", "erratum-unknown-variant",
    ],
)  # fmt: skip
def test_scenario_files_bad_field_raises_error_naming_file_scenario_and_field(
    tmp_path: Path, old: str, new: str, field: str, value: object
) -> None:
    assert old in VALID
    _assert_names(_error(tmp_path, VALID.replace(old, new, 1)), field, value)


@pytest.mark.parametrize(
    ("old", "new", "location", "field", "value", "problem"),
    [
        ("2  |  3 | left", "3  |  3 | left", "input line 4", "#", "3", "expected row 2"),
        ("| k   | A", "| k   | \u0410", "input row 0", "value", "\u0410", "U+0410 CYRILLIC CAPITAL LETTER A"),
        ("1  |  2 | right | k ", "1  |  2 | right | \u0441 ", "input row 1", "key", "\u0441", "U+0441"),
        ("| k   | A", "| k   | A\u2022", "input row 0", "value", "A\u2022", "non-ASCII character U+2022"),
        ("| k   | A", "| k   | A B", "input row 0", "value", "A B", "not an ASCII word"),
        ("| right | k", "| middle | k", "input row 1", "side", "middle", "not left or right"),
        ("1 | A - a @2 |", "3 | A - a @2 |", f"{OUT} line 3", "#", "3", "points past"),
        ("0 |  | A - null @1", "1 |  | A - null @1", f"{OUT} line 3", "#", "1", "after row 1"),
        ("| A - a @2 | k:", "| A - a | k:", f"{OUT} row 1", "inner", "A - a", "no '@ts'"),
        ("| A - a @2 | k:", "| \u0412 - a @2 | k:", f"{OUT} row 1", "inner", "\u0412",
         "U+0412 CYRILLIC CAPITAL LETTER VE (looks like Latin 'B')"),
        ("| A - a @2 | k:", "| A-a @2 | k:", f"{OUT} row 1", "inner", "A-a @2", "is not 'LEFT - RIGHT'"),
        ("# | inner | left", "# | inner | outer", OUT, "header", "# | inner | outer", "variants inner, left"),
    ],
    ids=[
        "non-contiguous-row", "cyrillic-value", "cyrillic-key", "bullet", "space-in-value", "unknown-side",
        "output-past-input", "output-rows-not-increasing", "missing-ts", "cyrillic-output",
        "pair-without-spaces", "output-header",
    ],
)  # fmt: skip
def test_scenario_files_bad_cell_raises_error_naming_row_and_field(
    tmp_path: Path, old: str, new: str, location: str, field: str, value: str, problem: str
) -> None:
    assert old in VALID
    error = _error(tmp_path, VALID.replace(old, new, 1))
    _assert_names(error, field, value)
    assert error.location == location, str(error)
    assert problem in str(error)


def test_scenario_files_ts_with_timestamps_false_is_an_error(tmp_path: Path) -> None:
    error = _error(tmp_path, VALID.replace("timestamps = true", "timestamps = false"))
    _assert_names(error, "left", "A - null @1")
    assert "timestamps = false" in error.problem


def test_scenario_files_cyrillic_error_message_reads_like_the_example(tmp_path: Path) -> None:
    error = _error(tmp_path, VALID.replace("2  |  3 | left  | k   | null", "2  |  3 | left  | k   | \u0410"))
    assert str(error).startswith(
        "scenarios/stream_stream/x.toml [ss-test] input row 2, field value: '\u0410' contains non-ASCII "
        "look-alike letter U+0410 CYRILLIC CAPITAL LETTER A"
    )


def test_scenario_files_key_after_table_header_is_rejected_with_hint(tmp_path: Path) -> None:
    text = VALID.replace("window = { before = 100, after = 100 }\n", "").replace(
        "[source]", "[window]\nbefore = 100\nstores = 'memory'\n\n[source]"
    )
    error = _error(tmp_path, text)
    _assert_names(error, "window.stores", "memory")
    assert "before the first [table] header" in error.problem


def test_scenario_files_missing_or_bad_id_names_the_field(tmp_path: Path) -> None:
    error = _error(tmp_path, VALID.replace('id = "ss-test"', 'id = "SS Test"'))
    _assert_names(error, "id", "SS Test", scenario=None)


def test_scenario_files_invalid_toml_is_a_scenario_error(tmp_path: Path) -> None:
    error = _error(tmp_path, VALID + "\nthis is = = not toml\n")
    assert error.field == "toml" and "not valid TOML" in error.problem


def test_scenario_files_duplicate_era_block_is_rejected(tmp_path: Path) -> None:
    block = VALID[VALID.index("[[expected]]") : VALID.index("[[errata]]")]
    error = _error(tmp_path, VALID.replace("[[errata]]", block + "[[errata]]"))
    _assert_names(error, "kafka", "0.10.2")
    assert error.location == "expected[1]"


def test_scenario_files_catalogue_reports_every_bad_file_and_keeps_the_good_ones(tmp_path: Path) -> None:
    _write(tmp_path, VALID, "stream_stream/good.toml")
    _write(tmp_path, VALID.replace('id = "ss-test"', 'id = "ss-other"'), "stream_stream/a-other.toml")
    bad = VALID.replace('features = ["null-values"]', 'features = ["bogus"]')
    _write(tmp_path, bad, "stream_stream/bad.toml")
    _write(tmp_path, VALID, "stream_stream/z-duplicate.toml")
    _write(tmp_path, VALID.replace('id = "ss-test"', 'id = "ss-misplaced"'), "table_table/wrong-folder.toml")
    _write(tmp_path, VALID, "elsewhere.toml")
    _write(tmp_path, "id: ss-yaml", "stream_stream/notes.yaml")
    catalogue = load_catalogue(tmp_path / "scenarios")
    assert sorted(s.id for s in catalogue.scenarios) == ["ss-other", "ss-test"]
    messages = sorted(str(error) for error in catalogue.errors)
    assert len(messages) == 5, messages
    for start in (
        "scenarios/elsewhere.toml [?] field file",
        "scenarios/stream_stream/bad.toml [ss-test] field features: 'bogus'",
        "scenarios/stream_stream/notes.yaml [?] field file",
        "scenarios/stream_stream/z-duplicate.toml [ss-test] field id",
        "scenarios/table_table/wrong-folder.toml [ss-misplaced] field join",
    ):
        assert any(message.startswith(start) for message in messages), (start, messages)


def _out(cause: int, left: str | None, right: str | None, ts: int, key: str = "k") -> Output:
    return Output(key=key, value=(left, right), ts=ts, cause=cause)


def test_compare_block_matching_outputs_pass(tmp_path: Path) -> None:
    block = load_scenario(_write(tmp_path, VALID)).expected[0]
    assert compare_block(block, "left", [_out(0, "A", None, 1), _out(1, "A", "a", 2)]).ok


def test_compare_outputs_result_emitted_at_another_row_is_wrong_trigger() -> None:
    expected = [(1, ExpectedItem("k", ("E", None), 40))]
    comparison = compare_outputs(expected, [_out(2, "E", None, 40)])
    assert [(d.kind, d.row, d.actual.cause if d.actual else None) for d in comparison.divergences] == [
        ("wrong-trigger", 1, 2)
    ]


def test_compare_outputs_distinguishes_timestamp_value_missing_and_unexpected() -> None:
    expected = [
        (0, ExpectedItem("k", ("A", None), 1)),
        (1, ExpectedItem("k", ("A", "a"), 2)),
        (2, ExpectedItem("k", ("B", "b"), 3)),
    ]
    actual = [_out(0, "A", None, 9), _out(1, "A", "x", 2), _out(3, "C", None, 4)]
    kinds = [(d.kind, d.row) for d in compare_outputs(expected, actual).divergences]
    assert kinds == [
        ("wrong-timestamp", 0),
        ("wrong-value", 1),
        ("missing-output", 2),
        ("unexpected-output", 3),
    ]


def test_compare_outputs_reordered_row_is_out_of_order() -> None:
    expected = [(0, ExpectedItem("k", ("A", "a"), 2)), (0, ExpectedItem("k", ("B", "a"), 2))]
    comparison = compare_outputs(expected, [_out(0, "B", "a", 2), _out(0, "A", "a", 2)])
    assert [d.kind for d in comparison.divergences] == ["out-of-order"]


def test_compare_outputs_ignores_unstated_timestamps_but_not_keys() -> None:
    expected = [(0, ExpectedItem("k", ("A", None), None))]
    assert compare_outputs(expected, [_out(0, "A", None, 123)]).ok
    assert not compare_outputs(expected, [_out(0, "A", None, 123, key="j")]).ok
