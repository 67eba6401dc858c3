"""A candidate that breaks never takes the run down: each fault kind on real local Spark.

Every fault is confined to what it breaks: a call that fails as a whole is bisected down to the scenarios
that cause it (the rest keep their real verdicts), a hanging call is cancelled by the timeout, a stopped
SparkSession is replaced, and what the candidate prints is captured per call. The small scenario file has
four stream-stream cases and two stream-table cases; the faults break the stream-stream call.

The default tier checks one fault of each shape (a call that raises, a bad row in one scenario, what a
candidate prints); the other kinds, the timeout and the stopped session are system tests (support.tiers).
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from pyspark.sql import SparkSession

from kjoin.conformance.catalogue import Case, load_cases
from kjoin.conformance.differential.fuzz import fuzz
from kjoin.conformance.documents.outcomes import CaseOutcome
from kjoin.conformance.harness.compositions import STORE_SHAPE
from kjoin.conformance.harness.outcomes import HarnessRun
from kjoin.conformance.harness.spark_session import start_session
from support.faulty_candidates import FAULTS, POISONED
from support.harness_scenarios import write_scenarios
from support.tiers import default_tier_keeps, spark_group

pytestmark = spark_group("spark-faults")  # with test_faults_run (one SparkSession)


@pytest.fixture(scope="module")
def spark() -> Iterator[SparkSession]:
    yield start_session("local[2]")


@pytest.fixture(scope="module")
def cases(tmp_path_factory: pytest.TempPathFactory) -> tuple[Case, ...]:
    loaded = load_cases([write_scenarios(tmp_path_factory.mktemp("scenarios") / "small.jsonl")])
    assert loaded.errors == ()
    return loaded.cases


class Run:
    """One harness run of a faulty candidate over the small cases (the session factory gives the module's
    SparkSession while it lives, a new one once a candidate stopped it)."""

    def __init__(self, fault: str, cases: tuple[Case, ...], timeout: float = 300) -> None:
        self.harness = HarnessRun(FAULTS[fault](), lambda: start_session("local[2]"), timeout=timeout)
        self.outcomes: list[CaseOutcome] = self.harness.outcomes(cases)
        self.batches = self.harness.batches
        self.by_status: dict[str, set[str]] = {}
        for outcome in self.outcomes:
            self.by_status.setdefault(outcome.status, set()).add(outcome.case.scenario)

    def errors(self) -> list[CaseOutcome]:
        return [outcome for outcome in self.outcomes if outcome.status == "error"]


def _run(fault: str, spark: SparkSession, cases: tuple[Case, ...], timeout: float = 300) -> Run:
    return Run(fault, cases, timeout)


STREAM_STREAM = {"small-ss-inner", "small-ss-inner-edge", "small-ss-left-legacy", "small-ss-left-grace"}
STREAM_TABLE = {"small-st-inner", "small-st-left"}


@pytest.mark.parametrize(
    ("fault", "message"),
    [
        ("raises", "ValueError: this candidate is broken on purpose"),
        *(
            pytest.param(fault, message, marks=pytest.mark.system)
            for fault, message in [
                ("exits", "the candidate called sys.exit(0)"),
                ("interrupts", "KeyboardInterrupt"),
                ("not-a-frame", "run() must return a pyspark DataFrame, got list"),
                ("wrong-type", "output column 'ts' has type string, expected long"),
                ("stray-rows", "scenario_id(s) the harness did not send: no-such-scenario"),
            ]
        ),
    ],
)
def test_a_call_that_fails_as_a_whole_fails_only_its_join_kind(
    fault: str, message: str, spark: SparkSession, cases: tuple[Case, ...]
) -> None:
    run = _run(fault, spark, cases)
    assert run.by_status["error"] == STREAM_STREAM
    assert run.by_status["pass"] >= STREAM_TABLE
    details = [
        outcome.verdict.first.detail for outcome in run.errors() if outcome.verdict and outcome.verdict.first
    ]
    assert len(details) == len(STREAM_STREAM) and all(message in detail for detail in details), details
    assert any(call.status == "error" and message in call.message for call in run.batches)


@pytest.mark.parametrize(
    "fault", default_tier_keeps(["udf-fails-for-one", "kills-worker", "bad-idx"], keep={"bad-idx"})
)
def test_a_fault_in_one_scenario_is_isolated_to_that_scenario(
    fault: str, spark: SparkSession, cases: tuple[Case, ...]
) -> None:
    run = _run(fault, spark, cases)
    assert run.by_status["error"] == {POISONED}, run.by_status
    assert run.by_status["pass"] >= (STREAM_STREAM - {POISONED}) | STREAM_TABLE


@pytest.mark.system  # starts a second JVM
def test_a_candidate_that_stops_spark_gets_a_new_session_for_the_next_call(
    spark: SparkSession, cases: tuple[Case, ...]
) -> None:
    run = _run("stops-spark", spark, cases)
    assert run.by_status["error"] == STREAM_STREAM and run.by_status["pass"] >= STREAM_TABLE
    assert run.harness.session.restarts >= 1


@pytest.mark.system  # starts a second JVM
def test_fuzzing_a_candidate_that_stops_spark_carries_on_with_a_new_session() -> None:
    """The fuzzer gives each evaluation the session it started, and a new one once a candidate stopped it:
    the stream-table calls that come after a stream-stream call stopped Spark (the store-shape batches
    come after the joint ones) still run and pass."""
    report = fuzz(
        FAULTS["stops-spark"](),
        lambda: start_session("local[2]"),
        kafka="3.9",
        examples=2,
        joins=["stream-stream", "stream-table"],
        shrink_failures=0,
    )
    statuses: dict[str, set[str]] = {}
    for outcome in report.outcomes:
        statuses.setdefault(outcome.case.spec.join, set()).add(outcome.status)
    assert statuses == {"stream-stream": {"error"}, "stream-table": {"pass"}}
    assert any(outcome.case.batch == STORE_SHAPE for outcome in report.outcomes if outcome.status == "pass")


HANG_TIMEOUT_S = 60
"""The calls' timeout in the hanging-candidate test."""


@pytest.mark.system  # a minute's wait for the timeout
def test_a_call_that_never_returns_is_cancelled_by_the_timeout(
    spark: SparkSession, cases: tuple[Case, ...]
) -> None:
    # The timeout applies to every call: long enough for the stream-table call that must pass on a machine at
    # load 35 (20 s cancelled it there), short enough to keep the wait for the hanging call (a sleep) cheap.
    run = _run("hangs", spark, cases, timeout=HANG_TIMEOUT_S)
    assert run.by_status["error"] == STREAM_STREAM and run.by_status["pass"] >= STREAM_TABLE, run.by_status
    [timed_out] = [call for call in run.batches if call.status == "timeout"]
    assert f"did not finish within {HANG_TIMEOUT_S} s" in timed_out.message
    first = run.errors()[0].verdict
    assert first is not None and first.first is not None and "timeout" in first.first.detail


def test_what_a_candidate_prints_is_captured_per_call(
    spark: SparkSession, cases: tuple[Case, ...], capsys: pytest.CaptureFixture[str]
) -> None:
    run = _run("prints", spark, cases)
    assert set(run.by_status) == {"pass"}
    stream_stream = next(call for call in run.batches if call.join == "stream-stream")
    assert stream_stream.stdout == "candidate says hello on stdout\n"
    assert stream_stream.stderr == "candidate complains on stderr\n"
    captured = capsys.readouterr()
    assert "candidate says hello" not in captured.out + captured.err


def test_faults_cover_twelve_kinds() -> None:
    assert len(FAULTS) >= 12
