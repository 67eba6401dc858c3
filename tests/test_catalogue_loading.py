"""Scenario files load strictly: every bundled file loads, every malformed file or line gives a
ScenarioError naming the file, the scenario id, the field and the bad value, and the rest still loads."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from kjoin.conformance.catalogue import Case, ScenarioError, load_cases, load_file
from kjoin.conformance.catalogue.seed_tables import load_seed_table
from kjoin.conformance.catalogue.vocabulary import FEATURES
from kjoin.oracle.records import JoinSpec, Output, Record, Window

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
document = "KIP-77"
section = "a section"
info = '''
ts | left | right | innerJoin | leftJoin
'''

[[expected]]
kafka = "0.10.2"
describes = "0.10.2"
timestamps = true
outputs = '''
# | ts | inner | left
0 |  1 |  | A - null @1
1 |  2 | A - a @2 | k: A - a @2
'''

[[errata]]
row = 1
variant = "left"
kafka = "0.10.2"
seed_shows = "x"
kafka_does = "y"
evidence = "z"
"""

LINE = {
    "id": "t1", "kafka": "3.9", "join": "table-table", "variant": "left",
    "records": [{"side": "left", "key": "k", "value": "A", "ts": 1}],
    "expected": [{"key": "k", "value": ["A", None], "ts": 1}],
}  # fmt: skip
OUT = "expected[0] (kafka 0.10.2) outputs"


def _write(root: Path, text: str, name: str = "stream_stream/x.toml") -> Path:
    path = root / "scenarios" / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def _error(tmp_path: Path, text: str) -> ScenarioError:
    with pytest.raises(ScenarioError) as caught:
        load_seed_table(_write(tmp_path, text), "scenarios/stream_stream/x.toml")
    return caught.value


def _assert_names(error: ScenarioError, field: str, value: object, scenario: str | None = "ss-test") -> None:
    message = str(error)
    assert message.startswith(f"scenarios/stream_stream/x.toml [{scenario or '?'}] "), message
    assert error.field == field, message
    assert error.value == value, message
    assert f"field {field}: {'' if value is None else repr(value)}" in message


def _jsonl(tmp_path: Path, *lines: object, raw: bytes = b"") -> Path:
    path = tmp_path / "cases.jsonl"
    path.write_bytes(b"".join(json.dumps(line).encode() + b"\n" for line in lines) + raw)
    return path


def test_catalogue_bundled_files_load_without_errors() -> None:
    loaded = load_cases()
    assert loaded.errors == (), "\n".join(str(error) for error in loaded.errors)
    scenarios = {case.scenario for case in loaded.cases}
    assert {"ss-kip77-current", "ss-docs-grace5", "st-kip77-current", "tt-docs-kip77"} <= scenarios
    assert len(loaded.cases) > 2500


def test_catalogue_seed_tables_keep_seed_text_and_state_errata() -> None:
    cases = {case.id: case for case in load_cases().cases}
    kip77 = cases["ss-kip77-current[inner-0.10.1]"]
    assert kip77.about is not None and kip77.about.reference is not None
    assert "\u0410" in kip77.about.reference.info  # the seed's Cyrillic A stays in info
    assert all(record.value is None or record.value.isascii() for record in kip77.records)
    grace = cases["ss-docs-grace5[left-3.1]"]
    assert grace.about is not None and {erratum.row for erratum in grace.about.errata} >= {16, 17, 18}
    assert grace.expected is not None and grace.expected.causes_known
    assert [(o.cause, o.value) for o in grace.expected.outputs][-2:] == [(17, ("E", None)), (18, ("F", None))]


def test_catalogue_valid_seed_table_gives_one_case_per_block_and_variant(tmp_path: Path) -> None:
    cases = load_seed_table(_write(tmp_path, VALID))
    assert [case.id for case in cases] == ["ss-test[inner-0.10.2]", "ss-test[left-0.10.2]"]
    left = cases[1]
    assert left.records == (
        Record("left", "k", "A", 1),
        Record("right", "k", "a", 2),
        Record("left", "k", None, 3),
    )
    assert left.spec == JoinSpec(join="stream-stream", variant="left", window=Window(100, 100))
    assert left.expected is not None and left.expected.timestamps and left.expected.causes_known
    assert left.expected.outputs == (Output("k", ("A", None), 1, 0), Output("k", ("A", "a"), 2, 1))
    assert left.about is not None and left.about.errata[0].row == 1 and left.about.errata[0].kafka == "0.10.2"
    assert set(left.about.features) <= set(FEATURES)
    assert left.about.reference is not None and left.about.reference.document == "KIP-77"


def test_catalogue_legacy_grace_window_is_expressible(tmp_path: Path) -> None:
    text = VALID.replace(
        "window = { before = 100, after = 100 }", "window = { before = 5, grace = 7, legacy = true }"
    )
    window = load_seed_table(_write(tmp_path, text))[0].spec.window
    assert window == Window(before=5, after=5, grace=7, legacy=True)


def test_catalogue_output_keys_default_to_the_emitting_row_and_can_be_null(tmp_path: Path) -> None:
    text = VALID.replace("0  |  1 | left  | k   | A", "0  |  1 | left  | null | A").replace(
        "1 |  2 | A - a @2 | k: A - a @2", "1 |  2 | A - a @2 | null: A - a @2"
    )
    left = load_seed_table(_write(tmp_path, text))[1]
    assert left.records[0].key is None
    assert left.expected is not None
    assert left.expected.outputs == (Output(None, ("A", None), 1, 0), Output(None, ("A", "a"), 2, 1))


def test_catalogue_timestamps_false_leaves_ts_unstated(tmp_path: Path) -> None:
    text = VALID.replace("timestamps = true", "timestamps = false").replace(" @1", "").replace(" @2", "")
    expected = load_seed_table(_write(tmp_path, text))[1].expected
    assert expected is not None and not expected.timestamps


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
        (
            "window = { before = 100, after = 100 }",
            "window = { before = 9223372036854775808 }",
            "window.before",
            2**63,
        ),
        ('document = "KIP-77"', 'document = "seeds/000.txt"', "source.document", "seeds/000.txt"),
        ('kafka = "0.10.2"\n', 'kafka = "0.9"\n', "kafka", "0.9"),
        ('kafka = "0.10.2"\n', 'kafka = " 0.10.2"\n', "kafka", " 0.10.2"),
        ('kafka = "0.10.2"\n', 'kafka = "99.0"\n', "kafka", "99.0"),
        ("timestamps = true\n", "", "timestamps", None),
        ("row = 1\n", "row = 3\n", "row", 3),
        ('kafka = "0.10.2"\nseed_shows', 'kafka = "3.9"\nseed_shows', "kafka", "3.9"),
        ('variant = "left"', 'variant = "outer"', "variant", "outer"),
        (
            'variants = ["inner", "left"]',
            'variants = ["inner", "left", "outer", "outer"]',
            "variants",
            ["inner", "left", "outer", "outer"],
        ),
    ],
    ids=[
        "unknown-top-level-key",
        "unknown-feature",
        "unknown-variant",
        "unknown-join",
        "unknown-flag",
        "missing-window",
        "negative-window",
        "window-beyond-long",
        "unknown-document",
        "unknown-version",
        "version-with-space",
        "version-too-new",
        "missing-timestamps",
        "erratum-row-past-input",
        "erratum-unknown-block",
        "erratum-unknown-variant",
        "variant-twice",
    ],
)
def test_catalogue_bad_field_raises_error_naming_file_scenario_and_field(
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
        (
            "0  |  1 | left",
            "0  |  9223372036854775808 | left",
            "input row 0",
            "ts",
            "9223372036854775808",
            "is not a timestamp",
        ),
        ("1 |  2 | A - a @2 |", "3 |  2 | A - a @2 |", f"{OUT} line 3", "#", "3", "points past"),
        ("0 |  1 |  | A - null @1", "1 |  2 |  | A - null @1", f"{OUT} line 3", "#", "1", "after row 1"),
        (
            "1 |  2 | A - a @2 |",
            "1 |  3 | A - a @2 |",
            f"{OUT} line 3",
            "ts",
            "3",
            "timestamp of input row 1",
        ),
        ("| A - a @2 | k:", "| A - a | k:", f"{OUT} row 1", "inner", "A - a", "no '@ts'"),
        (
            "| A - a @2 | k:",
            "| \u0412 - a @2 | k:",
            f"{OUT} row 1",
            "inner",
            "\u0412",
            "U+0412 CYRILLIC CAPITAL LETTER VE (looks like Latin 'B')",
        ),
        ("| A - a @2 | k:", "| A-a @2 | k:", f"{OUT} row 1", "inner", "A-a @2", "is not 'LEFT - RIGHT'"),
        (
            "# | ts | inner | left",
            "# | ts | inner | outer",
            OUT,
            "header",
            "# | ts | inner | outer",
            "variants inner, left",
        ),
        ("# | ts | inner | left", "# | inner | left", OUT, "header", "# | inner | left", "'# | ts'"),
    ],
    ids=[
        "non-contiguous-row",
        "cyrillic-value",
        "cyrillic-key",
        "bullet",
        "space-in-value",
        "unknown-side",
        "ts-beyond-long",
        "output-past-input",
        "output-rows-not-increasing",
        "output-ts-column-wrong",
        "missing-ts",
        "cyrillic-output",
        "pair-without-spaces",
        "output-header",
        "output-header-without-ts",
    ],
)
def test_catalogue_bad_cell_raises_error_naming_row_and_field(
    tmp_path: Path, old: str, new: str, location: str, field: str, value: str, problem: str
) -> None:
    assert old in VALID
    error = _error(tmp_path, VALID.replace(old, new, 1))
    _assert_names(error, field, value)
    assert error.location == location, str(error)
    assert problem in str(error)


def test_catalogue_ts_with_timestamps_false_is_an_error(tmp_path: Path) -> None:
    error = _error(tmp_path, VALID.replace("timestamps = true", "timestamps = false"))
    _assert_names(error, "left", "A - null @1")
    assert "timestamps = false" in error.problem


def test_catalogue_cyrillic_error_message_reads_like_the_example(tmp_path: Path) -> None:
    error = _error(tmp_path, VALID.replace("2  |  3 | left  | k   | null", "2  |  3 | left  | k   | \u0410"))
    assert str(error).startswith(
        "scenarios/stream_stream/x.toml [ss-test] input row 2, field value: '\u0410' contains non-ASCII "
        "look-alike letter U+0410 CYRILLIC CAPITAL LETTER A"
    )


def test_catalogue_key_after_table_header_is_rejected_with_hint(tmp_path: Path) -> None:
    text = VALID.replace("window = { before = 100, after = 100 }\n", "").replace(
        "[source]", "[window]\nbefore = 100\nstores = 'memory'\n\n[source]"
    )
    error = _error(tmp_path, text)
    _assert_names(error, "window.stores", "memory")
    assert "before the first [table] header" in error.problem


def test_catalogue_missing_or_bad_id_names_the_field(tmp_path: Path) -> None:
    _assert_names(
        _error(tmp_path, VALID.replace('id = "ss-test"', 'id = "SS Test"')), "id", "SS Test", scenario=None
    )


def test_catalogue_invalid_toml_is_a_scenario_error(tmp_path: Path) -> None:
    error = _error(tmp_path, VALID + "\nthis is = = not toml\n")
    assert error.field == "(file)" and "not valid TOML" in error.problem


def test_catalogue_duplicate_era_block_is_rejected(tmp_path: Path) -> None:
    block = VALID[VALID.index("[[expected]]") : VALID.index("[[errata]]")]
    error = _error(tmp_path, VALID.replace("[[errata]]", block + "[[errata]]"))
    _assert_names(error, "kafka", "0.10.2")
    assert error.location == "expected[1]"


def test_catalogue_scenario_its_own_version_cannot_run_is_an_input_error(tmp_path: Path) -> None:
    text = VALID.replace("window = { before = 100, after = 100 }", "window = { before = 100, grace = 5 }")
    text = text.replace('kafka = "0.10.2"\ndescribes', 'kafka = "0.10.1"\ndescribes').replace(
        'kafka = "0.10.2"\nseed_shows', 'kafka = "0.10.1"\nseed_shows'
    )
    loaded = load_file(_write(tmp_path, text))
    assert loaded.cases == ()
    assert len(loaded.errors) == 2 and all(error.field == "kafka" for error in loaded.errors)
    assert "grace" in str(loaded.errors[0])


def test_catalogue_folder_reports_every_bad_file_and_keeps_the_good_ones(tmp_path: Path) -> None:
    _write(tmp_path, VALID, "stream_stream/good.toml")
    _write(tmp_path, VALID.replace('id = "ss-test"', 'id = "ss-other"'), "stream_stream/a-other.toml")
    _write(
        tmp_path,
        VALID.replace('features = ["null-values"]', 'features = ["bogus"]'),
        "stream_stream/bad.toml",
    )
    _write(tmp_path, VALID, "stream_stream/z-duplicate.toml")
    loaded = load_cases([tmp_path / "scenarios"])
    assert sorted({case.scenario for case in loaded.cases}) == ["ss-other", "ss-test"]
    messages = sorted(str(error) for error in loaded.errors)
    assert len(messages) == 3, messages
    assert any("bad.toml [ss-test] field features: 'bogus'" in message for message in messages)
    assert (
        sum(
            "z-duplicate.toml [ss-test] field id" in message and "already defined" in message
            for message in messages
        )
        == 2
    )


def test_catalogue_bundled_files_must_sit_in_their_join_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import kjoin.conformance.catalogue.load as load

    root = tmp_path / "scenarios"
    monkeypatch.setattr(load, "CATALOGUE_ROOT", root)
    _write(tmp_path, VALID.replace('id = "ss-test"', 'id = "ss-misplaced"'), "table_table/wrong-folder.toml")
    _write(tmp_path, VALID, "elsewhere.toml")
    messages = sorted(str(error) for error in load_cases(root=root).errors)
    assert len(messages) == 2, messages
    assert messages[0].startswith("scenarios/elsewhere.toml [?] field (file)")
    assert (
        "wrong-folder.toml [ss-misplaced] field join" in messages[1]
        and "belongs in stream_stream/" in messages[1]
    )


def test_catalogue_jsonl_line_becomes_a_case_with_order_only_expectations(tmp_path: Path) -> None:
    (case,) = load_file(_jsonl(tmp_path, dict(LINE, source="provenance kept"))).cases
    assert isinstance(case, Case) and case.id == "t1[left-3.9]" and case.line == 1
    assert case.expected is not None and not case.expected.causes_known
    assert case.expected.outputs == (Output("k", ("A", None), 1, -1),)
    assert case.extra["source"] == "provenance kept"


@pytest.mark.parametrize(
    ("line", "field", "problem"),
    [
        (dict(LINE, kafka="2.x"), "kafka", "is not a Kafka version"),
        (dict(LINE, kafka="99.0"), "kafka", "newer than the era table knows"),
        (dict(LINE, kafka=""), "kafka", "is not a Kafka version"),
        (dict(LINE, kafka=" 3.9"), "kafka", "is not a Kafka version"),
        (dict(LINE, join="stream-table", variant="outer"), "variant", "is not one of inner, left"),
        (dict(LINE, window={"before": 1}), "window", "not allowed for a table-table join"),
        (
            dict(LINE, records=[{"side": "left", "key": "k", "value": "A", "ts": 2**63}]),
            "records[0].ts",
            "from 0 to",
        ),
        (
            dict(LINE, records=[{"side": "left", "key": "k", "value": "\ud800", "ts": 1}]),
            "records[0].value",
            "surrogate",
        ),
        (dict(LINE, expected=[{"key": "k", "value": ["A"], "ts": 1}]), "expected[0].value", "[left, right]"),
        (dict(LINE, expected=[{"key": "k", "ts": 1}]), "expected[0].value", "is missing"),
        (dict(LINE, extra={"note": "\udfff"}), "extra.note", "surrogate"),
    ],
    ids=[
        "version-not-a-version",
        "version-too-new",
        "version-empty",
        "version-with-space",
        "outer-stream-table",
        "window-on-table-join",
        "ts-beyond-long",
        "lone-surrogate-value",
        "malformed-expected-value",
        "expected-without-value",
        "lone-surrogate-in-provenance",
    ],
)
def test_catalogue_bad_jsonl_line_is_an_error_naming_line_and_field(
    tmp_path: Path, line: dict[str, object], field: str, problem: str
) -> None:
    loaded = load_file(_jsonl(tmp_path, LINE, line, LINE | {"id": "t3"}))
    assert [case.scenario for case in loaded.cases] == ["t1", "t3"]
    (error,) = loaded.errors
    assert error.line == 2 and error.field == field, str(error)
    assert problem in str(error)


def test_catalogue_one_bad_line_costs_one_line(tmp_path: Path) -> None:
    nested = b"[" * 1000 + b"]" * 1000 + b"\n"
    path = _jsonl(tmp_path, LINE, raw=b"\xff\xfe not utf-8\n" + nested + b"{not json\n")
    path.write_bytes(path.read_bytes() + json.dumps(LINE | {"id": "t9"}).encode() + b"\n")
    loaded = load_file(path)
    assert [case.scenario for case in loaded.cases] == ["t1", "t9"]
    problems = [(error.line, error.problem) for error in loaded.errors]
    assert [line for line, _ in problems] == [2, 3, 4]
    assert (
        "not UTF-8" in problems[0][1]
        and "deeper than" in problems[1][1]
        and "not valid JSON" in problems[2][1]
    )


def test_catalogue_duplicate_ids_in_one_file_are_errors(tmp_path: Path) -> None:
    loaded = load_cases([_jsonl(tmp_path, LINE, LINE)])
    assert len(loaded.cases) == 1
    (error,) = loaded.errors
    assert error.field == "id" and error.line == 2 and "already defined at" in str(error)


def test_catalogue_retargeting_keeps_one_case_per_scenario_and_variant_without_expectations() -> None:
    loaded = load_cases(kafka="3.9")
    assert loaded.errors == ()
    assert all(case.kafka == "3.9" and case.expected is None for case in loaded.cases)
    assert len({case.id for case in loaded.cases}) == len(loaded.cases)


def test_catalogue_bad_kafka_argument_is_one_error() -> None:
    loaded = load_cases(kafka="nine")
    assert loaded.cases == () and loaded.errors[0].field == "kafka"
