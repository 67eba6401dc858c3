"""``kjoin run`` under faults and bad input: nothing finished is lost, every error is named, exit codes
mean one thing each (0 agrees, 1 differs, 2 input error, 3 could not complete).

The interruption tests run ``kjoin run`` as a real process that sends itself SIGINT or SIGTERM at a named
point (``$KJOIN_SIGNAL_AT``: while Spark starts, right after a candidate call, while the results are
written) and check that the results file is valid, says the run is incomplete and why, keeps every case the
run finished, and that the report of it says incomplete.
"""

from __future__ import annotations

import io
import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from kjoin.conformance.cli import main
from kjoin.conformance.documents.results import load_results
from support.harness_scenarios import SMALL_SCENARIOS, write_scenarios
from support.tiers import HEAVY, spark_group

pytestmark = spark_group("spark-faults")  # with test_faults_candidates (one SparkSession)

KJOIN = [sys.executable, "-m", "kjoin.conformance"]


def _kjoin(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(list(argv), stdout=out, stderr=err)
    return code, out.getvalue(), err.getvalue()


def _bad_lines(tmp_path: Path) -> Path:
    good = SMALL_SCENARIOS[0]
    lines = [
        dict(good, id="bad-version", kafka="2.x"),
        dict(good, id="too-new", kafka="99.0"),
        dict(good, id="empty-version", kafka=""),
        dict(good, id="outer-st", join="stream-table", variant="outer", window=None),
        dict(good, id="grace-0101", kafka="0.10.1"),
        dict(good, id="tt-window", join="table-table"),
        dict(good, id="ts-too-big", records=[{"side": "left", "key": "k", "value": "A", "ts": 2**63}]),
        dict(good, id="surrogate", records=[{"side": "left", "key": "k", "value": "\ud800", "ts": 1}]),
    ]
    path = tmp_path / "bad.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    return path


def test_run_with_only_invalid_scenarios_is_an_input_error_and_starts_nothing(tmp_path: Path) -> None:
    code, out, err = _kjoin(
        "run",
        "--candidate",
        "support.fixture_candidates:oracle_on_driver",
        "--scenarios",
        str(_bad_lines(tmp_path)),
    )
    assert code == 2, err
    assert out == ""
    messages = [line for line in err.splitlines() if "bad.jsonl:" in line]
    assert len(messages) == 8, err
    for scenario, field in [
        ("bad-version", "kafka"),
        ("too-new", "kafka"),
        ("empty-version", "kafka"),
        ("outer-st", "variant"),
        ("grace-0101", "kafka"),
        ("tt-window", "window"),
        ("ts-too-big", "records[0].ts"),
        ("surrogate", "records[0].value"),
    ]:
        assert any(f"[{scenario}] field {field}:" in line for line in messages), (scenario, err)
    assert "no valid scenarios to run" in err


def test_run_with_some_invalid_scenarios_checks_the_valid_ones_and_exits_2(
    tmp_path: Path, spark: object
) -> None:
    scenarios = write_scenarios(tmp_path / "good.jsonl")
    results = tmp_path / "results.json"
    code, out, err = _kjoin(
        "run",
        "--candidate",
        "support.fixture_candidates:oracle_on_driver",
        "--scenarios",
        str(scenarios),
        str(_bad_lines(tmp_path)),
        "--results",
        str(results),
        "--spark-master",
        "local[2]",
    )
    assert code == 2, out + err
    document = load_results(results)
    assert document["complete"] and document["summary"]["by_status"] == {"pass": len(SMALL_SCENARIOS)}


def test_run_exit_codes_agree_differ_and_crash(tmp_path: Path, spark: object) -> None:
    scenarios = str(write_scenarios(tmp_path / "small.jsonl"))
    common = ["--scenarios", scenarios, "--spark-master", "local[2]"]
    assert _kjoin("run", "--candidate", "support.fixture_candidates:oracle_on_driver", *common)[0] == 0
    assert _kjoin("run", "--candidate", "support.fixture_candidates:window_off_by_one", *common)[0] == 1
    code, out, _ = _kjoin("run", "--candidate", "support.faulty_candidates:exits", *common)
    assert code == 3, out
    assert "the candidate called sys.exit(0)" in out


SIGNALLED = [("SIGINT", "spark-starting"), ("SIGTERM", "call-finished")] + (
    [("SIGTERM", "spark-starting"), ("SIGINT", "call-finished")] if HEAVY else []
)
"""A signal at a named point of the run (``$KJOIN_SIGNAL_AT``): while the JVM starts (signals are held
then, and must be acted on once it is up) and right after the first candidate call; ``nox -s heavy`` adds
the other signal at each point (each case starts a ``kjoin run`` process and its JVM)."""


def _signalled_run(tmp_path: Path, at: str, candidate: str, *extra: str) -> subprocess.CompletedProcess[str]:
    scenarios = write_scenarios(tmp_path / "small.jsonl")
    command = [*KJOIN, "run", "--candidate", candidate, "--scenarios", str(scenarios), *extra]
    env = dict(os.environ, PYTHONUNBUFFERED="1", KJOIN_SIGNAL_AT=at)
    # SIGINT ignored by the parent (a shell's background job) must not make the run ignore it
    return subprocess.run(
        command, capture_output=True, text=True, env=env, timeout=600, preexec_fn=_ignore_sigint
    )


def _ignore_sigint() -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)


@pytest.mark.system  # each case starts a kjoin run process and its JVM
@pytest.mark.parametrize(("signal_name", "point"), SIGNALLED)
def test_interrupted_run_keeps_what_finished_and_says_it_is_incomplete(
    signal_name: str, point: str, tmp_path: Path
) -> None:
    results, report = tmp_path / "results.json", tmp_path / "report"
    done = _signalled_run(
        tmp_path,
        f"{point}:{signal_name}",
        "support.faulty_candidates:slow_stream_table",
        "--results",
        str(results),
        "--spark-master",
        "local[2]",
    )
    assert done.returncode == 3, f"{point}\n{done.stdout}\n{done.stderr}"
    assert not results.with_name("results.json.partial").exists()
    document = load_results(results)
    assert document["complete"] is False
    assert signal_name in document["incomplete_reason"]
    finished = {case["id"] for case in document["cases"]}
    assert all(case["status"] == "pass" for case in document["cases"])
    assert not any(case_id.startswith("small-st-") for case_id in finished)  # the slow call never finished
    if point == "spark-starting":  # acted on as soon as the JVM was up: no candidate call ran
        assert document["calls"] == [] and finished == set()
    else:  # right after the first call (stream-stream): its record is kept, the next call never started
        assert [call["join"] for call in document["calls"]] == ["stream-stream"]
    assert f"{len(finished)} of {len(SMALL_SCENARIOS)} cases finished" in done.stderr
    code, _, _ = _kjoin("report", str(results), "--out", str(report))
    assert code == 0
    assert "incomplete" in (report / "index.html").read_text(encoding="utf-8").lower()


@pytest.mark.system  # a kjoin run process and its JVM
def test_a_signal_while_the_results_are_written_keeps_them_whole_and_names_what_was_not_written(
    tmp_path: Path,
) -> None:
    """As Kafka 2.4 no small scenario is claimed (no Spark starts): the run reaches its end at once."""
    results, report = tmp_path / "results.json", tmp_path / "report"
    done = _signalled_run(
        tmp_path,
        "results-writing:SIGINT",
        "support.fixture_candidates:oracle_on_driver",
        "--kafka",
        "2.4",
        "--results",
        str(results),
        "--report",
        str(report),
    )
    assert done.returncode == 3, done.stdout + done.stderr
    assert not results.with_name("results.json.partial").exists()
    document = load_results(results)
    assert document["complete"] is True and len(document["cases"]) == len(SMALL_SCENARIOS)
    assert f"results written to {results}" in done.stdout
    assert "SIGINT" in done.stderr and "before the report was written" in done.stderr
    assert not (report / "index.html").exists()
    assert "Traceback" not in done.stderr


def test_a_journal_left_by_a_killed_run_reads_as_incomplete(tmp_path: Path) -> None:
    from kjoin.conformance.documents.results import ResultsJournal

    journal = ResultsJournal(
        tmp_path / "results.json",
        {"spark_master": "local"},
        {"name": "x", "claim": {}, "declared_differences": []},
    )
    journal._handle.write('{"case": {"id": "cut-off')  # the process died in the middle of a line
    journal._handle.flush()
    document = load_results(tmp_path / "results.json")
    assert document["complete"] is False and document["cases"] == []
    assert "stopped before it could write its results" in document["incomplete_reason"]
