"""The ``kjoin`` command line: the portable ``oracle --jsonl`` contract, the one-scenario table, ``check``."""

from __future__ import annotations

import io
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

from kjoin.conformance.cli import main
from kjoin.scenarios import CATALOGUE_ROOT

FK_DOCS = CATALOGUE_ROOT / "kafka_tests" / "fk.jsonl"
FK_DOCS_LEFT = "trunk-dsl-api-table-table-foreign-key-joins-left"

TT_INNER: dict[str, Any] = {
    "id": "tt-inner-two-updates",
    "kafka": "3.9",
    "join": "table-table",
    "variant": "inner",
    "records": [
        {"side": "left", "key": "k", "value": "A", "ts": 1},
        {"side": "right", "key": "k", "value": "a", "ts": 2},
    ],
}
TT_INNER_OUTPUTS = [{"key": "k", "value": ["A", "a"], "ts": 2}]


TT_TOML = """
id = "tt-cli-two-updates"
description = "two table updates joined by an inner and a left join"
join = "table-table"
variants = ["inner", "left"]
features = []

input = '''
# | ts | side  | key | value
0 |  1 | left  | k   | A
1 |  2 | right | k   | a
'''

[source]
seed = "000_47b3376171c693f3.txt"
section = "test fixture"
info = "none"

[[expected]]
kafka = "3.9"
describes = "3.9"
timestamps = true
outputs = '''
# | inner      | left
0 |            | A - null @1
1 | A - a @{ts} | A - a @2
'''
"""


def _toml(tmp_path: Path, ts: int) -> Path:
    path = tmp_path / "table_table" / f"two-updates-{ts}.toml"
    path.parent.mkdir(exist_ok=True)
    path.write_text(TT_TOML.replace("{ts}", str(ts)), encoding="utf-8")
    return path


def _kjoin(*argv: str, stdin: str = "") -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(list(argv), stdin=io.StringIO(stdin), stdout=out, stderr=err)
    return code, out.getvalue(), err.getvalue()


def _lines(text: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in text.splitlines()]


def _fk_docs_left() -> dict[str, Any]:
    lines = [json.loads(line) for line in FK_DOCS.read_text(encoding="utf-8").splitlines()]
    return next(line for line in lines if line["id"] == FK_DOCS_LEFT)


def test_oracle_jsonl_answers_every_scenario_line_in_order() -> None:
    second = dict(TT_INNER, id="second", variant="left")
    code, out, err = _kjoin("oracle", "--jsonl", stdin=f"{json.dumps(TT_INNER)}\n\n{json.dumps(second)}\n")
    assert (code, err) == (0, "")
    assert _lines(out) == [
        {"id": "tt-inner-two-updates", "outputs": TT_INNER_OUTPUTS},
        {"id": "second", "outputs": [{"key": "k", "value": ["A", None], "ts": 1}, *TT_INNER_OUTPUTS]},
    ]


def test_oracle_jsonl_malformed_lines_get_error_lines_naming_line_and_field() -> None:
    bad_variant = dict(TT_INNER, id="bad-variant", variant="sideways")
    no_ts = dict(TT_INNER, id="no-ts", records=[{"side": "left", "key": "k", "value": "A"}])
    stdin = "\n".join(["{not json", json.dumps(bad_variant), json.dumps(no_ts), json.dumps(TT_INNER)]) + "\n"
    code, out, _ = _kjoin("oracle", "--jsonl", stdin=stdin)
    answers = _lines(out)
    assert code == 0
    assert [answer["id"] for answer in answers] == [None, "bad-variant", "no-ts", "tt-inner-two-updates"]
    assert answers[0]["error"].startswith("line 1: not valid JSON")
    assert answers[1]["error"].startswith("line 2 'bad-variant'.variant:")
    assert answers[2]["error"] == "line 3 'no-ts'.records[0]: missing field 'ts'"
    assert answers[3] == {"id": "tt-inner-two-updates", "outputs": TT_INNER_OUTPUTS}


def test_oracle_jsonl_unknown_kafka_version_names_the_kafka_field() -> None:
    code, out, _ = _kjoin("oracle", "--jsonl", stdin=json.dumps(dict(TT_INNER, kafka="9.9")) + "\n")
    assert code == 0
    [answer] = _lines(out)
    assert answer["id"] == "tt-inner-two-updates"
    assert answer["error"].startswith("line 1 'tt-inner-two-updates'.kafka:")


def test_oracle_jsonl_join_missing_in_that_version_is_an_error_line() -> None:
    scenario = dict(_fk_docs_left(), kafka="2.2")
    code, out, _ = _kjoin("oracle", "--jsonl", stdin=json.dumps(scenario) + "\n")
    [answer] = _lines(out)
    assert code == 0
    assert set(answer) == {"id", "error"}
    assert "2.4" in answer["error"]


def test_oracle_jsonl_intended_turns_the_fk_left_join_bug_off() -> None:
    scenario = _fk_docs_left()
    stdin = json.dumps(scenario) + "\n"
    _, actual_out, _ = _kjoin("oracle", "--jsonl", stdin=stdin)
    code, intended_out, _ = _kjoin("oracle", "--jsonl", "--intended", stdin=stdin)
    [actual], [intended] = _lines(actual_out), _lines(intended_out)
    assert code == 0
    assert actual["outputs"] == scenario["expected"]
    # KAFKA-16394: 3.9 repeats [left, null] on an FK change and the tombstone on a delete; intended does not.
    repeated = [a for a, b in zip(actual["outputs"], actual["outputs"][1:], strict=False) if a == b]
    assert len(repeated) == 3
    assert len(intended["outputs"]) == len(actual["outputs"]) - 3
    assert all(a != b for a, b in zip(intended["outputs"], intended["outputs"][1:], strict=False))


def test_oracle_jsonl_refuses_a_file_argument() -> None:
    code, out, err = _kjoin("oracle", "--jsonl", str(FK_DOCS))
    assert (code, out) == (2, "")
    assert "stdin only" in err


def test_oracle_file_prints_inputs_with_the_outputs_each_emitted() -> None:
    code, out, err = _kjoin("oracle", str(FK_DOCS), "--id", FK_DOCS_LEFT)
    assert (code, err) == (0, "")
    lines = out.splitlines()
    assert lines[0] == f"{FK_DOCS_LEFT}: fk left join, Kafka 3.9 (era 3.8)"
    header = next(line for line in lines if line.startswith("#input"))
    assert header.split()[:5] == ["#input", "ts", "side", "key", "value"]
    assert header.split()[5:] == ["out", "key", "out", "value", "out", "ts"]
    delete_rows = [line.split() for line in lines if "(tombstone)" in line]
    first_row = ["5", "5", "left", "k", "null", "k", "(tombstone)", "5"]
    assert delete_rows == [first_row, ["k", "(tombstone)", "5"]]
    assert lines[-1] == "13 outputs; expected outputs (fk.jsonl, Kafka 3.9): match"


def test_oracle_file_variant_and_kafka_overrides_drop_the_expected_comparison() -> None:
    overrides = ["--variant", "inner", "--kafka", "3.5"]
    code, out, _ = _kjoin("oracle", str(FK_DOCS), "--id", FK_DOCS_LEFT, *overrides)
    assert code == 0
    assert out.splitlines()[0] == f"{FK_DOCS_LEFT}: fk inner join, Kafka 3.5 (era 3.5)"
    assert out.splitlines()[-1] == "8 outputs"


def test_oracle_file_errors_name_the_file_and_field(tmp_path: Path) -> None:
    missing = tmp_path / "missing.jsonl"
    assert _kjoin("oracle", str(missing))[0] == 2
    assert str(missing) in _kjoin("oracle", str(missing))[2]
    code, _, err = _kjoin("oracle", str(FK_DOCS), "--id", "no-such-id")
    assert code == 2
    assert f"{FK_DOCS}: id: no scenario with id 'no-such-id'" in err
    code, _, err = _kjoin("oracle", str(FK_DOCS), "--kafka", "three")
    assert code == 2
    assert f"{FK_DOCS}: kafka:" in err
    bad = tmp_path / "bad.jsonl"
    bad.write_text(json.dumps(dict(TT_INNER, window={"before": -1})) + "\n", encoding="utf-8")
    code, _, err = _kjoin("oracle", str(bad))
    assert code == 2
    assert f"{bad}:1 'tt-inner-two-updates'.window.before" in err


def test_cli_usage_errors_exit_2() -> None:
    assert _kjoin()[0] == 2
    assert _kjoin("oracle")[0] == 2
    assert _kjoin("oracle", "--variant", "sideways", str(FK_DOCS))[0] == 2
    assert _kjoin("no-such-command")[0] == 2


def test_check_passes_a_file_whose_expected_outputs_match(tmp_path: Path) -> None:
    path = tmp_path / "ok.jsonl"
    path.write_text(json.dumps(dict(TT_INNER, expected=TT_INNER_OUTPUTS)) + "\n", encoding="utf-8")
    code, out, _ = _kjoin("check", str(path))
    assert code == 0
    row = next(line.split() for line in out.splitlines() if line.startswith(str(path)))
    assert row[1:] == ["1", "1", "0", "0", "pass"]


def test_check_fails_on_a_mismatch_and_names_the_first_difference(tmp_path: Path) -> None:
    wrong = [{"key": "k", "value": ["A", "a"], "ts": 1}]
    path = tmp_path / "wrong.jsonl"
    lines = [dict(TT_INNER, expected=wrong), dict(TT_INNER, id="ok", expected=TT_INNER_OUTPUTS), {"id": 3}]
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    code, out, _ = _kjoin("check", str(path))
    assert code == 1
    row = next(line.split() for line in out.splitlines() if line.startswith(str(path)))
    assert row[1:] == ["3", "1", "1", "1", "FAIL"]
    assert "tt-inner-two-updates@3.9: output #0: expected 'k': A - a @1, got 'k': A - a @2" in out
    assert "line 3.id: expected a non-empty string, got 3" in out


def test_check_bundled_kafka_tests_folder_passes() -> None:
    code, out, _ = _kjoin("check", str(CATALOGUE_ROOT / "kafka_tests"))
    assert code == 0, out
    assert out.splitlines()[-1].split() == ["total", "62", "62", "0", "0", "pass"]


def test_kjoin_console_script_runs_the_portable_interface_in_a_subprocess() -> None:
    script = Path(sys.executable).with_name("kjoin")
    command = [str(script)] if script.exists() else [sys.executable, "-m", "kjoin.conformance.cli"]
    done = subprocess.run(
        [*command, "oracle", "--jsonl"],
        input=json.dumps(TT_INNER) + "\n{oops\n",
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert _lines(done.stdout)[0] == {"id": "tt-inner-two-updates", "outputs": TT_INNER_OUTPUTS}
    assert _lines(done.stdout)[1]["error"].startswith("line 2: not valid JSON")


def test_oracle_file_runs_a_toml_seed_table_as_its_first_block(tmp_path: Path) -> None:
    code, out, err = _kjoin("oracle", str(_toml(tmp_path, 2)))
    assert (code, err) == (0, "")
    lines = out.splitlines()
    assert lines[0] == "tt-cli-two-updates: table-table inner join, Kafka 3.9 (era 3.8)"
    assert lines[-1] == "1 outputs; expected outputs (two-updates-2.toml, block 3.9): match"
    code, out, _ = _kjoin("oracle", str(_toml(tmp_path, 2)), "--variant", "left")
    assert code == 0
    assert out.splitlines()[-1] == "2 outputs; expected outputs (two-updates-2.toml, block 3.9): match"


def test_oracle_file_reports_a_toml_seed_table_that_differs(tmp_path: Path) -> None:
    code, out, _ = _kjoin("oracle", str(_toml(tmp_path, 7)))
    assert code == 0
    assert out.splitlines()[-1] == "1 outputs; expected outputs (two-updates-7.toml, block 3.9): DIFFER"


def test_oracle_file_bad_toml_names_the_file_and_field(tmp_path: Path) -> None:
    path = _toml(tmp_path, 2)
    path.write_text(path.read_text(encoding="utf-8").replace('join = "table-table"', 'join = "cross"'))
    code, out, err = _kjoin("oracle", str(path))
    assert (code, out) == (2, "")
    assert str(path) in err
    assert "join" in err
    assert "'cross'" in err


def test_check_counts_every_block_variant_of_a_toml_seed_table(tmp_path: Path) -> None:
    good, bad = _toml(tmp_path, 2), _toml(tmp_path, 7)
    code, out, _ = _kjoin("check", str(good), str(bad))
    assert code == 1
    table = [line.split() for line in out.splitlines() if line.startswith(str(tmp_path))]
    rows = {cells[0]: cells[1:] for cells in table if len(cells) > 1}
    assert rows == {str(good): ["2", "2", "0", "0", "pass"], str(bad): ["2", "1", "1", "0", "FAIL"]}
    assert "tt-cli-two-updates[inner-3.9]: row 1: wrong-timestamp" in out
