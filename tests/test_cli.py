"""The ``kjoin`` command line: the portable ``oracle --jsonl`` contract, the one-scenario table, ``check``."""

from __future__ import annotations

import io
import json
import select
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from kjoin.conformance.cli import COMMANDS, _build_parser, main
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
document = "kjoin-spec"
section = "TT-3"

[[expected]]
kafka = "3.9"
describes = "3.9"
timestamps = true
outputs = '''
# | ts | inner      | left
0 |  1 |            | A - null @1
1 |  2 | A - a @{ts} | A - a @2
'''
"""


def _toml(tmp_path: Path, ts: int) -> Path:
    path = tmp_path / "table_table" / f"two-updates-{ts}.toml"
    path.parent.mkdir(exist_ok=True)
    text = TT_TOML.replace("{ts}", str(ts)).replace("tt-cli-two-updates", f"tt-cli-two-updates-{ts}")
    path.write_text(text, encoding="utf-8")
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
    nested = "[" * 1000 + "]" * 1000
    stdin = "\n".join(["{not json", json.dumps(bad_variant), json.dumps(no_ts), nested, json.dumps(TT_INNER)])
    code, out, _ = _kjoin("oracle", "--jsonl", stdin=stdin + "\n")
    answers = _lines(out)
    assert code == 0
    assert [answer["id"] for answer in answers] == [
        None,
        "bad-variant",
        "no-ts",
        None,
        "tt-inner-two-updates",
    ]
    assert answers[0]["error"].startswith("stdin:1 [?] field (line): is not valid JSON")
    assert answers[1]["error"].startswith("stdin:2 [bad-variant] field variant: 'sideways' is not one of")
    assert answers[2]["error"] == "stdin:3 [no-ts] field records[0].ts: is missing"
    assert "deeper than 32 levels" in answers[3]["error"]
    assert answers[4] == {"id": "tt-inner-two-updates", "outputs": TT_INNER_OUTPUTS}


def test_oracle_jsonl_unknown_kafka_version_names_the_kafka_field() -> None:
    code, out, _ = _kjoin("oracle", "--jsonl", stdin=json.dumps(dict(TT_INNER, kafka="9.9")) + "\n")
    assert code == 0
    [answer] = _lines(out)
    assert answer["id"] == "tt-inner-two-updates"
    assert answer["error"].startswith(
        "stdin:1 [tt-inner-two-updates] field kafka: '9.9' is not a Kafka version"
    )


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


def test_oracle_file_prints_inputs_with_the_outputs_each_emitted_and_the_match() -> None:
    code, out, err = _kjoin("oracle", str(FK_DOCS), "--id", FK_DOCS_LEFT)
    assert (code, err) == (0, "")
    lines = out.splitlines()
    assert lines[0].startswith("fk join as Kafka 3.9 (era 3.8)")
    assert lines[1] == "variants left"
    header = next(line for line in lines if line.lstrip().startswith("#"))
    assert header.split() == ["#", "ts", "side", "key", "value", "left"]
    delete_row = next(line.split() for line in lines if line.split()[:2] == ["5", "5"])
    assert delete_row == ["5", "5", "left", "k", "null", "null", "@5;", "null", "@5"]  # KAFKA-16394: twice
    assert (
        lines[-1] == f"left: 13 outputs, as the file states ({FK_DOCS.relative_to(CATALOGUE_ROOT.parent)}:12)"
    )


def test_oracle_file_shows_every_variant_of_a_seed_table_side_by_side() -> None:
    code, out, _ = _kjoin("oracle", str(CATALOGUE_ROOT / "stream_stream" / "kip77-current.toml"))
    assert code == 0
    lines = out.splitlines()
    assert lines[0].startswith("ss-kip77-current: ")
    header = next(line for line in lines if line.lstrip().startswith("#"))
    assert header.split()[-3:] == ["inner", "left", "outer"]
    assert "A - null @3" in out and "k: A - null" not in out  # keys shown only where they differ
    assert [line.split(":")[0] for line in lines[-3:]] == ["inner", "left", "outer"]
    assert all("as the file states" in line for line in lines[-3:])


def test_oracle_file_kafka_override_drops_the_expected_comparison() -> None:
    code, out, _ = _kjoin("oracle", str(FK_DOCS), "--id", FK_DOCS_LEFT, "--kafka", "3.5")
    assert code == 0
    assert out.splitlines()[0].startswith("fk join as Kafka 3.5 (era 3.5)")
    assert out.splitlines()[-1] == "left: 10 outputs (the file states none for Kafka 3.5)"


def test_oracle_file_errors_name_the_file_and_field(tmp_path: Path) -> None:
    missing = tmp_path / "missing.jsonl"
    code, _, err = _kjoin("oracle", str(missing))
    assert code == 2 and str(missing) in err
    code, _, err = _kjoin("oracle", str(FK_DOCS), "--id", "no-such-id")
    assert code == 2
    assert "no scenario with id 'no-such-id'" in err
    code, _, err = _kjoin("oracle", str(FK_DOCS), "--kafka", "three")
    assert code == 2
    assert "--kafka" in err and "'three' is not a Kafka version" in err
    bad = tmp_path / "bad.jsonl"
    bad.write_text(json.dumps(dict(TT_INNER, window={"before": -1})) + "\n", encoding="utf-8")
    code, _, err = _kjoin("oracle", str(bad))
    assert code == 2
    assert f"{bad}:1 [tt-inner-two-updates] field window: " in err


def test_cli_usage_errors_exit_2() -> None:
    assert _kjoin("oracle")[0] == 2
    assert _kjoin("oracle", "--variant", "sideways", str(FK_DOCS))[0] == 2
    assert _kjoin("no-such-command")[0] == 2
    assert _kjoin("run", "--candidate", "no-such-candidate")[0] == 2
    assert _kjoin("diff-versions", "3.0", " 3.1x")[0] == 2


def test_bare_kjoin_prints_the_help_and_exits_0() -> None:
    """``kjoin`` alone is a request for help, not an error (issue 24)."""
    code, out, err = _kjoin()
    assert code == 0 and not err
    assert out.startswith("usage: kjoin")
    listed = [line.split()[0] for line in out.split("commands:", 1)[1].splitlines()[2:] if line[4:5] != " "]
    assert listed == [command.name for command in COMMANDS]


def test_version_prints_the_installed_version(capsys: pytest.CaptureFixture[str]) -> None:
    from importlib.metadata import version

    assert main(["--version"]) == 0
    assert capsys.readouterr().out == f"kjoin {version('kjoin-conformance')}\n"


@pytest.mark.parametrize("command", [command.name for command in COMMANDS])
def test_every_help_states_each_options_default(command: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main([command, "--help"]) == 0
    shown = " ".join(capsys.readouterr().out.split())
    subcommand = _build_parser(next(c for c in COMMANDS if c.name == command))._subparsers
    assert subcommand is not None
    parser = subcommand._group_actions[0].choices[command]  # type: ignore[attr-defined]
    options = [
        a for a in parser._actions if a.option_strings and a.default not in (None, False, [], "==SUPPRESS==")
    ]
    for action in options:
        formatter = parser._get_formatter()
        text = " ".join(formatter._format_action(action).split())
        assert "default" in text, f"kjoin {command} --help: {action.option_strings[0]} hides its default"
        assert text in shown


def test_verify_help_states_the_cache_sizes_that_application_mode_draws(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """``--cache``'s help states the sizes ``app_verify`` draws (it once said 60-400 bytes for 50 to 149)."""
    from kjoin.conformance.kafka.app_verify import CACHE_BYTES, SMALL_CACHE_BYTES

    assert main(["verify", "--help"]) == 0
    shown = " ".join(capsys.readouterr().out.split())
    assert f"drawn scenarios ({CACHE_BYTES // 2**20} MiB)" in shown
    assert f"caches of {SMALL_CACHE_BYTES[0]} to {SMALL_CACHE_BYTES[1] - 1} bytes" in shown


def test_run_through_kafka_refuses_a_candidate_without_a_kafka_job_before_starting_anything() -> None:
    code, _, err = _kjoin(
        "run", "--candidate", "spark-reference", "--through-kafka", "--scenarios", str(FK_DOCS)
    )
    assert code == 2
    assert "'spark-reference' has no job that reads Kafka: wrap a Structured Streaming job" in err
    code, _, err = _kjoin("run", "--candidate", "spark-reference", "--kafka-feed", "backlog")
    assert code == 2
    assert "--kafka-feed needs --through-kafka" in err


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
    assert code == 2  # an input error outranks a mismatch (both are listed)
    row = next(line.split() for line in out.splitlines() if line.startswith(str(path)))
    assert row[1:] == ["2", "1", "1", "1", "FAIL"]
    assert "tt-inner-two-updates[inner-3.9]" in out
    assert "wrong-timestamp at input #1: the file emits k: A - a @1, the oracle k: A - a @2" in out
    assert f"{path}:3 [?] field id: 3 must be a non-empty string" in out


def test_check_mismatch_alone_exits_1(tmp_path: Path) -> None:
    path = tmp_path / "wrong.jsonl"
    path.write_text(json.dumps(dict(TT_INNER, expected=[])) + "\n", encoding="utf-8")
    code, out, _ = _kjoin("check", str(path))
    assert code == 1 and "unexpected-output at input #1" in out


def test_check_reports_duplicate_ids(tmp_path: Path) -> None:
    path = tmp_path / "twice.jsonl"
    line = json.dumps(dict(TT_INNER, expected=TT_INNER_OUTPUTS))
    path.write_text(f"{line}\n{line}\n", encoding="utf-8")
    code, out, _ = _kjoin("check", str(path))
    assert code == 2 and "field id: 'tt-inner-two-updates' is already defined at" in out


def test_check_bundled_kafka_tests_folder_passes() -> None:
    code, out, _ = _kjoin("check", str(CATALOGUE_ROOT / "kafka_tests"))
    assert code == 0, out
    assert out.splitlines()[-1].split() == ["total", "62", "62", "0", "0", "pass"]


def test_kjoin_console_script_runs_the_portable_interface_in_a_subprocess() -> None:
    done = subprocess.run(
        [*_script(), "oracle", "--jsonl"],
        input=json.dumps(TT_INNER) + "\n{oops\n\udcff\n",
        capture_output=True,
        text=True,
        errors="surrogateescape",
        check=False,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    answers = _lines(done.stdout)
    assert answers[0] == {"id": "tt-inner-two-updates", "outputs": TT_INNER_OUTPUTS}
    assert answers[1]["error"].startswith("stdin:2 [?] field (line): is not valid JSON")
    assert len(answers) == 3 and "not UTF-8" in answers[2]["error"]


def _script() -> list[str]:
    script = Path(sys.executable).with_name("kjoin")
    return [str(script)] if script.exists() else [sys.executable, "-m", "kjoin.conformance"]


def test_the_script_reads_ascii_lines_as_bytes_and_other_utf8_lines_as_text_alike() -> None:
    """The script passes an ASCII line to the codec as the bytes read and decodes any other line first
    (cli/oracle.py): a scenario written with JSON escapes and the same scenario in plain UTF-8 get the same
    answer, and the same answer as in-process (text) reading gives."""
    unicode_keys = dict(TT_INNER, id="tt-unicode", records=[dict(r, key="ключ") for r in TT_INNER["records"]])
    escaped = json.dumps(unicode_keys)  # ASCII: "\u043a..."
    plain = json.dumps(unicode_keys, ensure_ascii=False)
    assert escaped.isascii() and not plain.isascii()
    done = subprocess.run(
        [*_script(), "oracle", "--jsonl"],
        input=f"{escaped}\n{plain}\n".encode(),
        capture_output=True,
        check=False,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    first, second = done.stdout.decode("utf-8").splitlines()
    assert first == second
    _, in_process, _ = _kjoin("oracle", "--jsonl", stdin=plain + "\n")
    assert in_process.splitlines() == [first]
    assert {output["key"] for output in json.loads(first)["outputs"]} == {"ключ"}


def test_the_script_names_an_output_it_cannot_write_in_one_line_exit_3() -> None:
    """``kjoin oracle --jsonl >/dev/full``: the system's failure, named in one line (no traceback), exit 3;
    the script ends at once after the command (``cli.console``), yet the failure is not lost."""
    with open("/dev/full", "wb") as full:
        done = subprocess.run(
            [*_script(), "oracle", "--jsonl"],
            input=(json.dumps(TT_INNER) + "\n").encode(),
            stdout=full,
            stderr=subprocess.PIPE,
            check=False,
            timeout=120,
        )
    assert done.returncode == 3
    assert done.stderr.decode() == "kjoin: could not write the output: [Errno 28] No space left on device\n"


def test_the_script_answers_each_line_as_soon_as_it_is_complete() -> None:
    """Lines are read a block at a time (cli/oracle.py), yet a line piped in while the writer keeps stdin
    open is answered at once: a caller can talk to the command one scenario at a time."""
    process = subprocess.Popen(
        [*_script(), "oracle", "--jsonl"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert process.stdin is not None and process.stdout is not None
    try:
        for number in (1, 2):
            process.stdin.write((json.dumps(dict(TT_INNER, id=f"tt-{number}")) + "\n").encode())
            process.stdin.flush()
            ready, _, _ = select.select([process.stdout], [], [], 60)  # stdin still open: no end of input
            assert ready, "no answer within 60 s while the line was complete"
            answer = json.loads(process.stdout.readline())
            assert answer == {"id": f"tt-{number}", "outputs": TT_INNER_OUTPUTS}
    finally:
        process.stdin.close()
        assert process.wait(timeout=120) == 0


class _FullDisk(io.StringIO):
    def write(self, text: str) -> int:
        raise OSError(28, "No space left on device")


def test_an_output_that_cannot_be_written_is_the_systems_failure_exit_3() -> None:
    err = io.StringIO()
    code = main(
        ["oracle", "--jsonl"], stdin=io.StringIO(json.dumps(TT_INNER) + "\n"), stdout=_FullDisk(), stderr=err
    )
    assert (code, err.getvalue()) == (
        3,
        "kjoin: could not write the output: [Errno 28] No space left on device\n",
    )


def test_oracle_file_runs_a_toml_scenario_as_its_first_block(tmp_path: Path) -> None:
    code, out, err = _kjoin("oracle", str(_toml(tmp_path, 2)))
    assert (code, err) == (0, "")
    lines = out.splitlines()
    assert lines[0] == "tt-cli-two-updates-2: two table updates joined by an inner and a left join"
    assert lines[-2].startswith("inner: 1 outputs, as the file states")
    assert lines[-1].startswith("left: 2 outputs, as the file states")


def test_oracle_file_reports_a_toml_scenario_that_differs(tmp_path: Path) -> None:
    code, out, _ = _kjoin("oracle", str(_toml(tmp_path, 7)))
    assert code == 1
    assert "inner: DIFFERS from the file" in out and "wrong-timestamp at input #1" in out


def test_oracle_file_bad_toml_names_the_file_and_field(tmp_path: Path) -> None:
    path = _toml(tmp_path, 2)
    path.write_text(path.read_text(encoding="utf-8").replace('join = "table-table"', 'join = "cross"'))
    code, out, err = _kjoin("oracle", str(path))
    assert (code, out) == (2, "")
    assert str(path) in err and "field join: 'cross'" in err


def test_check_counts_every_block_variant_of_a_toml_scenario(tmp_path: Path) -> None:
    good, bad = _toml(tmp_path, 2), _toml(tmp_path, 7)
    code, out, _ = _kjoin("check", str(good), str(bad))
    assert code == 1
    table = [line.split() for line in out.splitlines() if line.startswith(str(tmp_path))]
    rows = {cells[0]: cells[1:] for cells in table if len(cells) > 1}
    assert rows == {str(good): ["2", "2", "0", "0", "pass"], str(bad): ["2", "1", "1", "0", "FAIL"]}
    assert "tt-cli-two-updates-7[inner-3.9]" in out and "wrong-timestamp at input #1" in out


def test_progress_in_logs_writes_lines_for_long_work_only(monkeypatch: pytest.MonkeyPatch) -> None:
    import io as _io
    import types

    from kjoin.conformance.cli import common
    from kjoin.conformance.cli.common import Progress

    quiet = _io.StringIO()
    with Progress(quiet, "short", 3, interval=3600) as progress:
        for _ in range(3):
            progress.advance()
    assert quiet.getvalue() == ""  # work shorter than one interval leaves the log alone
    clock = [100.0]
    monkeypatch.setattr(common, "time", types.SimpleNamespace(monotonic=lambda: clock[0]))
    log = _io.StringIO()
    with Progress(log, "long", 10, unit="pages", interval=0) as progress:
        clock[0] += 60
        progress.update(1)  # a slow first item (a JVM starting): no rate yet
        clock[0] += 1
        progress.update(2, total=12)  # the total can become known on the way
        clock[0] += 2
        progress.update(4)  # 3 items in 3 s after the first: a basis, 1 s per item
        progress.note("2 Spark tasks running")
    assert log.getvalue().splitlines() == [
        "long: 1/10 pages, 1 min 00 s elapsed",
        "long: 2/12 pages, 1 min 01 s elapsed",
        "long: 4/12 pages, 1 min 03 s elapsed, about 8 s left",
        "long: 4/12 pages, 1 min 03 s elapsed, about 8 s left (2 Spark tasks running)",
        "long: 4/12 pages, 1 min 03 s elapsed, about 8 s left",
    ]
