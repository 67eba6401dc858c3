"""Production settings in both scenario formats (issue 26): a scenario's ``settings``, a record's
``wall_clock`` and ``commit`` decode into the oracle's records, round-trip through the portable line, and
bad input is an error naming file, line, scenario and field while the rest still loads."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from kjoin.conformance.catalogue import ScenarioError, load_file
from kjoin.conformance.catalogue.portable import case_from_json, case_json
from kjoin.conformance.catalogue.seed_tables import load_seed_table
from kjoin.conformance.documents.results import spec_json
from kjoin.oracle.records import JoinSpec, Record, Settings

RECORDS = [
    {"side": "left", "key": "k", "value": "A", "ts": 1, "wall_clock": 0},
    {"side": "right", "key": "k", "value": "a", "ts": 2, "commit": True},
    {"side": "left", "key": "k", "value": "B", "ts": 3, "wall_clock": 1500},
]
LINE: dict[str, Any] = {
    "id": "p1", "kafka": "4.4", "join": "table-table", "variant": "left",
    "settings": {"cache_max_bytes": 10485760, "emit_interval_ms": 1000},
    "records": RECORDS,
}  # fmt: skip


def _jsonl(tmp_path: Path, *lines: object) -> Path:
    path = tmp_path / "cases.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    return path


def test_portable_settings_and_wall_clock_decode_into_the_oracle_records(tmp_path: Path) -> None:
    (case,) = load_file(_jsonl(tmp_path, LINE)).cases
    assert case.spec.settings == Settings(cache_max_bytes=10485760, emit_interval_ms=1000)
    assert case.records == (
        Record("left", "k", "A", 1, wall_clock=0),
        Record("right", "k", "a", 2, commit=True),
        Record("left", "k", "B", 3, wall_clock=1500),
    )
    again = case_from_json(json.loads(json.dumps(case_json(case))), "again")
    assert again.spec == case.spec and again.records == case.records


def test_portable_line_without_settings_is_written_as_before() -> None:
    plain = dict(LINE, records=[{"side": "left", "key": "k", "value": "A", "ts": 1}])
    del plain["settings"]
    line = case_json(case_from_json(plain, "x"))
    assert "settings" not in line and line["records"] == plain["records"]


@pytest.mark.parametrize(
    ("change", "field", "value", "problem"),
    [
        ({"settings": {"commit_interval_ms": -1}}, "settings.commit_interval_ms", -1, "from 0 to"),
        ({"settings": {"cache_max_bytes": 1.5}}, "settings.cache_max_bytes", 1.5, "whole number"),
        ({"settings": {"emit_interval_ms": True}}, "settings.emit_interval_ms", True, "whole number"),
        ({"settings": {"emit_interval": 1000}}, "settings.emit_interval", 1000, "unknown key"),
        ({"settings": [1]}, "settings", [1], "must be a table"),
        ({"records": [dict(RECORDS[0], wall_clock=-5)]}, "records[0].wall_clock", -5, "from 0 to"),
        ({"records": [dict(RECORDS[0], wall_clock="1")]}, "records[0].wall_clock", "1", "whole number"),
        ({"records": [dict(RECORDS[0], commit=1)]}, "records[0].commit", 1, "true or false"),
        (
            {"records": [RECORDS[2], RECORDS[1], RECORDS[0]]},
            "records[2].wall_clock",
            0,
            "goes back in time",
        ),
    ],
    ids=[
        "negative-interval",
        "non-integer",
        "bool-for-int",
        "unknown-settings-key",
        "settings-not-a-table",
        "negative-wall-clock",
        "wall-clock-text",
        "commit-not-bool",
        "decreasing-wall-clock",
    ],
)
def test_portable_bad_settings_are_input_errors_and_the_rest_loads(
    tmp_path: Path, change: dict[str, Any], field: str, value: object, problem: str
) -> None:
    loaded = load_file(_jsonl(tmp_path, LINE | {"id": "p0"}, LINE | change, LINE | {"id": "p2"}))
    assert [case.scenario for case in loaded.cases] == ["p0", "p2"]
    (error,) = loaded.errors
    assert (error.line, error.scenario_id, error.field, error.value) == (2, "p1", field, value), str(error)
    assert str(error).startswith(f"{tmp_path / 'cases.jsonl'}:2 [p1] ") and problem in str(error)


TOML = """\
id = "tt-settings"
description = "a table-table join under production settings"
join = "table-table"
variants = ["left"]
features = []

input = '''
#  | ts | side  | key | value | wall_clock | commit
0  |  1 | left  | k   | A     | 0          |
1  |  2 | right | k   | a     |            | commit
2  |  3 | left  | k   | B     | 1500       |
'''

[settings]
cache_max_bytes = 10485760
emit_interval_ms = 1000

[source]
document = "kjoin-spec"
section = "TT-1"

[[expected]]
kafka = "4.4"
describes = "4.4"
timestamps = true
outputs = '''
# | ts | left
0 |  1 | A - null @1
'''
"""


def _toml(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "x.toml"
    path.write_text(text, encoding="utf-8")
    return path


def test_toml_settings_table_and_input_columns_decode_like_the_portable_line(tmp_path: Path) -> None:
    (case,) = load_seed_table(_toml(tmp_path, TOML))
    (portable,) = load_file(_jsonl(tmp_path, LINE)).cases
    assert case.spec.settings == portable.spec.settings
    assert case.records == portable.records


def test_toml_input_may_carry_wall_clock_alone(tmp_path: Path) -> None:
    text = TOML.replace(" | commit\n", "\n", 1).replace("|          |\n", "|\n").replace("| commit\n", "\n")
    text = text.replace("| 0          |\n", "| 0\n").replace("| 1500       |\n", "| 1500\n")
    (case,) = load_seed_table(_toml(tmp_path, text))
    assert [record.wall_clock for record in case.records] == [0, None, 1500]
    assert not any(record.commit for record in case.records)


@pytest.mark.parametrize(
    ("old", "new", "location", "field", "value"),
    [
        ("emit_interval_ms = 1000", "commit_interval_ms = -1", "", "settings.commit_interval_ms", -1),
        ("emit_interval_ms = 1000", "commit_interval_ms = 1.5", "", "settings.commit_interval_ms", 1.5),
        ("emit_interval_ms = 1000", "commit_interval_ms = true", "", "settings.commit_interval_ms", True),
        ("emit_interval_ms = 1000", "commit_every = 3", "", "settings.commit_every", 3),
        ("| 1500       |", "| 0x10       |", "input row 2", "wall_clock", "0x10"),
        ("| 1500       |", "| -3         |", "input row 2", "wall_clock", "-3"),
        ("| 0          |", "| 2000       |", "input row 2", "wall_clock", 1500),
        ("|            | commit", "|            | yes", "input row 1", "commit", "yes"),
        ("| wall_clock | commit", "| commit | wall_clock", "input", "header", None),
    ],
    ids=[
        "negative-interval",
        "non-integer",
        "bool-for-int",
        "unknown-settings-key",
        "wall-clock-not-a-number",
        "negative-wall-clock",
        "decreasing-wall-clock",
        "commit-not-commit",
        "columns-out-of-order",
    ],
)
def test_toml_bad_settings_name_scenario_and_field(
    tmp_path: Path, old: str, new: str, location: str, field: str, value: object
) -> None:
    assert old in TOML
    with pytest.raises(ScenarioError) as caught:
        load_seed_table(_toml(tmp_path, TOML.replace(old, new, 1)))
    error = caught.value
    assert (error.scenario_id, error.location, error.field) == ("tt-settings", location, field), str(error)
    if value is not None:
        assert error.value == value, str(error)


def test_results_spec_carries_settings_only_when_not_default() -> None:
    plain = JoinSpec("table-table", "left")
    assert "settings" not in spec_json(plain)
    cached = JoinSpec("table-table", "left", settings=Settings(cache_max_bytes=100))
    assert spec_json(cached)["settings"] == {"cache_max_bytes": 100}
