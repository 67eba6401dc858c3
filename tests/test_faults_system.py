"""Failures of the system, told apart from the candidate's (on real local Spark): a call that fails the way
Spark does when a Python worker cannot connect back is retried, never bisected, never blamed on the
candidate; if it keeps failing, the run stops with exit 3 and the cause in one line, no Java stack trace on
the terminal. A call whose candidate's own system (a broker) stops under it ends at once, not when the
call gives up. A corrupt input file of ``kjoin replay`` is the user's input: exit 2, one line naming it.

The worker timeout is raised by a test candidate with Spark's own message (``WORKER_TIMEOUT``): a real one
needs an overloaded machine, and the harness tells it apart by that message alone.
"""

from __future__ import annotations

import io
import time
from pathlib import Path

import pytest
from pyspark.sql import SparkSession

from kjoin.conformance.catalogue import load_cases
from kjoin.conformance.cli import main
from kjoin.conformance.documents.results import load_results
from kjoin.conformance.harness.outcomes import HarnessRun
from kjoin.conformance.harness.spark_session import start_session
from kjoin.conformance.harness.system_failures import SystemFailure
from support.faulty_candidates import SYSTEM_STOPPED, system_dies_under_call, worker_timeout
from support.harness_scenarios import SMALL_SCENARIOS, write_scenarios
from support.tiers import spark_group

pytestmark = spark_group("spark-faults")  # with test_faults_run (one SparkSession)

STREAM_STREAM_CASES = sum(1 for scenario in SMALL_SCENARIOS if scenario["join"] == "stream-stream")


@pytest.fixture(autouse=True)
def quick_retries(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("kjoin.conformance.harness.calls.RETRY_DELAYS_S", (0.1, 0.2))


def _kjoin(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(list(argv), stdout=out, stderr=err)
    return code, out.getvalue(), err.getvalue()


def test_a_call_failing_for_a_system_cause_is_retried_whole_not_bisected(
    tmp_path: Path, spark: SparkSession
) -> None:
    cases = load_cases([write_scenarios(tmp_path / "small.jsonl")]).cases
    harness = HarnessRun(worker_timeout(1), lambda: start_session("local[2]"))
    outcomes = harness.outcomes(cases)
    assert {outcome.status for outcome in outcomes} == {"pass"}
    calls = [call for call in harness.batches if call.join == "stream-stream"]
    assert [(call.status, call.cases) for call in calls] == [
        ("error", STREAM_STREAM_CASES),
        ("ok", STREAM_STREAM_CASES),
    ]
    assert calls[0].system is not None and "Python worker" in calls[0].system


def test_a_lasting_system_failure_ends_the_run_with_exit_3_in_one_line(
    tmp_path: Path, spark: SparkSession
) -> None:
    results = tmp_path / "results.json"
    code, out, err = _kjoin(
        "run",
        "--candidate",
        "support.faulty_candidates:worker_timeout_always",
        "--scenarios",
        str(write_scenarios(tmp_path / "small.jsonl")),
        "--results",
        str(results),
        "--spark-master",
        "local[2]",
    )
    assert code == 3, out + err
    stopped = [line for line in err.splitlines() if line.startswith("kjoin: run: ")]
    assert len(stopped) == 1, err
    assert "a Spark Python worker did not start in time (the machine is overloaded)" in stopped[0]
    assert "org.apache.spark.SparkException: Python worker failed to connect back." in stopped[0]
    assert "Spark's log: " in stopped[0]
    assert "\tat " not in out + err and "Traceback" not in out + err
    document = load_results(results)
    assert document["complete"] is False
    assert "Python worker did not start in time" in document["incomplete_reason"]
    assert not any(case["status"] == "error" for case in document["cases"])  # never the candidate's
    stream_stream = [call for call in document["calls"] if call["join"] == "stream-stream"]
    assert [call["cases"] for call in stream_stream] == [STREAM_STREAM_CASES] * 3  # retried whole, twice


@pytest.mark.system
def test_a_call_whose_own_system_stops_under_it_ends_at_once(tmp_path: Path, spark: SparkSession) -> None:
    cases = load_cases([write_scenarios(tmp_path / "small.jsonl")]).cases
    candidate = system_dies_under_call()
    harness = HarnessRun(candidate, lambda: start_session("local[2]"))
    started = time.monotonic()
    try:
        with pytest.raises(SystemFailure) as failure:
            harness.outcomes(cases)
        waited = time.monotonic() - started
    finally:
        candidate.release.set()  # the call left behind ends
    assert str(failure.value) == SYSTEM_STOPPED and not failure.value.retry
    assert waited < 60, waited  # the call itself would wait ten minutes
    [call] = harness.batches  # not retried, not bisected
    assert (call.join, call.status, call.cases, call.system) == (
        "stream-stream",
        "error",
        STREAM_STREAM_CASES,
        SYSTEM_STOPPED,
    )


def test_replay_of_a_corrupt_parquet_file_names_it_in_one_line(tmp_path: Path, spark: SparkSession) -> None:
    corrupt = tmp_path / "topics.parquet"
    corrupt.write_bytes(b"PAR1 not really parquet PAR1")
    code, out, err = _kjoin(
        "replay",
        "--candidate",
        "spark-reference",
        "--input",
        str(corrupt),
        "--left-topic",
        "l",
        "--right-topic",
        "r",
        "--join",
        "stream-stream",
        "--variant",
        "inner",
        "--spark-master",
        "local[2]",
    )
    assert code == 2, out + err
    assert err.count("\n") == 1, err
    assert err.startswith(
        f"kjoin: replay: {corrupt}: cannot be read: corrupt, or not the format it is read as"
    )
    assert "\tat " not in out + err
