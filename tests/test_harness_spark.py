"""The harness on real local Spark (``local[2]``): batching, validation, spark-native, and the pytest plugin
end to end. Few Spark jobs: each candidate runs once per join kind over small scenarios."""

from __future__ import annotations

import io
import json
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass, replace
from pathlib import Path

import pytest
from pyspark.sql import DataFrame, SparkSession

from kjoin.conformance.candidates.spark_native import SparkNative
from kjoin.conformance.catalogue import Case, load_cases
from kjoin.conformance.checker import CandidateFailure, Emitted
from kjoin.conformance.cli import main
from kjoin.conformance.documents.outcomes import CaseOutcome, status_of
from kjoin.conformance.documents.results import load_results
from kjoin.conformance.harness.batching import CallFailed, OutputSchemaError, run_batch, validated_output
from kjoin.conformance.harness.outcomes import HarnessRun
from kjoin.conformance.harness.spark_session import jobs_started, start_session
from kjoin.conformance.harness.text import render_outcome
from kjoin.conformance.protocol import Candidate
from support import fixture_candidates
from support.harness_scenarios import SMALL_SCENARIOS, write_scenarios
from support.results_schema import schema_errors
from support.tiers import spark_group

pytest_plugins = ["pytester"]
pytestmark = spark_group("spark-harness")  # with test_reports_run: the harness and its reports


@pytest.fixture(scope="module")
def spark() -> Iterator[SparkSession]:
    yield start_session("local[2]")


@pytest.fixture(scope="module")
def scenario_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_scenarios(tmp_path_factory.mktemp("scenarios") / "small.jsonl")


@pytest.fixture(scope="module")
def cases(scenario_file: Path) -> tuple[Case, ...]:
    loaded = load_cases([scenario_file])
    assert loaded.errors == ()
    return loaded.cases


@dataclass
class CountingCandidate:
    """Delegates to ``inner`` and counts the calls of ``run``."""

    inner: Candidate
    calls: int = 0

    def __post_init__(self) -> None:
        self.name, self.claim = self.inner.name, self.inner.claim
        self.declared_differences = self.inner.declared_differences

    def run(self, spark: SparkSession, inputs: DataFrame, specs: DataFrame) -> DataFrame:
        self.calls += 1
        return self.inner.run(spark, inputs, specs)


def outcomes_of(candidate: Candidate, spark: SparkSession, cases: tuple[Case, ...]) -> dict[str, CaseOutcome]:
    harness = HarnessRun(candidate, lambda: spark)
    return {outcome.case.scenario: outcome for outcome in harness.outcomes(cases)}


def test_harness_runs_candidate_once_per_join_kind_in_few_jobs(
    spark: SparkSession, cases: tuple[Case, ...]
) -> None:
    counting = CountingCandidate(fixture_candidates.oracle_on_driver())
    harness = HarnessRun(counting, lambda: spark)
    before = jobs_started(spark)
    outcomes = harness.outcomes(cases)
    assert [o.status for o in outcomes] == ["pass"] * len(cases)
    assert {o.mode for o in outcomes} == {"exact"}
    assert counting.calls == 2 and [b.join for b in harness.batches] == ["stream-stream", "stream-table"]
    after = jobs_started(spark)
    assert before is not None and after is not None and after - before <= 4 * counting.calls


def test_harness_fails_a_window_off_by_one_with_the_extra_row(
    spark: SparkSession, cases: tuple[Case, ...]
) -> None:
    outcomes = outcomes_of(fixture_candidates.window_off_by_one(), spark, cases)
    edge = outcomes["small-ss-inner-edge"]
    assert edge.status == "fail" and edge.verdict is not None
    [divergence] = edge.verdict.divergences
    assert (divergence.kind, divergence.actual.value, divergence.at) == ("unexpected-output", ("A", "a"), 1)
    assert outcomes["small-ss-inner"].status == "pass"


def test_run_batch_fails_every_case_when_a_column_is_missing(
    spark: SparkSession, cases: tuple[Case, ...]
) -> None:
    with pytest.raises(CallFailed, match=r"output lacks column\(s\) ts"):
        run_batch(spark, fixture_candidates.missing_ts_column(), cases[:2])
    outcomes = outcomes_of(fixture_candidates.missing_ts_column(), spark, cases[:2])
    assert {outcome.status for outcome in outcomes.values()} == {"error"}


def test_run_batch_fails_only_the_case_with_a_null_timestamp(
    spark: SparkSession, cases: tuple[Case, ...]
) -> None:
    stream_stream = cases[:4]
    answers = run_batch(spark, fixture_candidates.null_ts_in_one_case(), stream_stream)
    failed = {case_id for case_id, answer in answers.items() if isinstance(answer, CandidateFailure)}
    assert failed == {stream_stream[0].id}
    assert "ts is null (not allowed)" in answers[stream_stream[0].id].message  # type: ignore[union-attr]
    assert all(isinstance(answers[case.id], Emitted) for case in stream_stream[1:])


def test_harness_reports_candidate_error_with_traceback_when_run_raises(
    spark: SparkSession, cases: tuple[Case, ...]
) -> None:
    outcome = outcomes_of(fixture_candidates.raises_in_run(), spark, cases[:1])["small-ss-inner"]
    assert outcome.status == "error" and outcome.verdict is not None
    [divergence] = outcome.verdict.divergences
    assert divergence.kind == "candidate-error"
    assert "RuntimeError: fixture candidate fails on purpose" in divergence.detail
    assert "Traceback" in divergence.detail


def test_validated_output_names_a_column_of_the_wrong_type(spark: SparkSession) -> None:
    frame = spark.createDataFrame(
        [("s", "k", "A", None, False, "12")],
        "scenario_id string, key string, left string, right string, tombstone boolean, ts string",
    )
    with pytest.raises(OutputSchemaError, match="output column 'ts' has type string, expected long"):
        validated_output(frame)


@pytest.fixture(scope="module")
def native_outcomes(spark: SparkSession, cases: tuple[Case, ...]) -> dict[str, CaseOutcome]:
    return outcomes_of(SparkNative(), spark, cases)


def test_spark_native_agrees_where_spark_and_kafka_agree(native_outcomes: dict[str, CaseOutcome]) -> None:
    for scenario in ("small-ss-inner", "small-ss-inner-edge", "small-st-inner", "small-st-left"):
        outcome = native_outcomes[scenario]
        assert outcome.status == "pass", render_outcome(outcome)


def test_spark_native_shows_its_declared_differences(native_outcomes: dict[str, CaseOutcome]) -> None:
    legacy = native_outcomes["small-ss-left-legacy"]
    assert legacy.status == "declared", render_outcome(legacy)
    assert legacy.declared is not None and "eager" in legacy.declared.reason
    assert [d.kind for d in legacy.verdict.divergences] == ["missing-output"]  # type: ignore[union-attr]
    grace = native_outcomes["small-ss-left-grace"]
    assert grace.status == "declared"
    [extra] = grace.verdict.divergences  # type: ignore[union-attr]
    assert (extra.kind, extra.actual.value) == ("unexpected-output", ("B", None))  # type: ignore[union-attr]


def test_spark_native_fails_a_difference_that_is_not_declared(
    native_outcomes: dict[str, CaseOutcome],
) -> None:
    legacy = native_outcomes["small-ss-left-legacy"]
    assert legacy.status == "declared", render_outcome(legacy)  # a Spark failure shows its real cause here
    assert legacy.verdict is not None and legacy.answer is not None and legacy.declared is not None
    assert status_of(legacy.verdict, legacy.answer, None) == "fail"
    strict = replace(legacy.declared, strict=True)
    passing = native_outcomes["small-ss-inner"]
    assert passing.verdict is not None and passing.answer is not None
    assert status_of(passing.verdict, passing.answer, strict) == "unexpected-pass"


def test_pytest_plugin_fails_a_wrong_candidate_with_a_readable_diff(
    pytester: pytest.Pytester, scenario_file: Path
) -> None:
    results = pytester.path / "results.json"
    run = pytester.runpytest_inprocess(  # in process: reuses this process's SparkSession
        "--candidate",
        "support.fixture_candidates:window_off_by_one",
        "--kjoin-scenarios",
        str(scenario_file),
        "--spark-master",
        "local[2]",
        "--kjoin-results",
        str(results),
        "-p",
        "no:cacheprovider",
    )
    run.assert_outcomes(passed=5, failed=1)
    output = run.stdout.str()
    assert "small-ss-inner-edge[inner-3.9]" in output
    first = "first divergence at input #1 right k: a @7: unexpected-output: the candidate emits k: A - a @7"
    assert first in output
    assert "kind               input    Kafka emits    candidate emits" in output
    document = load_results(results)
    assert (document["schema"], document["version"], document["complete"]) == ("kjoin-results", 3, True)
    assert document["summary"]["by_status"] == {"fail": 1, "pass": 5}
    [failed] = [case for case in document["cases"] if case["status"] == "fail"]
    assert failed["first_divergence"]["input"]["index"] == 1


def test_kjoin_run_exits_0_when_all_agree_and_1_with_a_readable_diff_when_not(
    spark: SparkSession, scenario_file: Path, tmp_path: Path
) -> None:
    agree = io.StringIO()
    argv = [
        "run",
        "--candidate",
        "support.fixture_candidates:oracle_on_driver",
        "--scenarios",
        str(scenario_file),
        "--spark-master",
        "local[2]",
    ]
    assert main(argv, stdout=agree, stderr=io.StringIO()) == 0
    assert agree.getvalue().startswith("candidate oracle-on-driver\n")
    assert "stream-stream: 4 cases in one candidate call" in agree.getvalue()
    differ, results = io.StringIO(), tmp_path / "results.json"
    argv = [
        "run",
        "--candidate",
        "support.fixture_candidates:window_off_by_one",
        "--scenarios",
        str(scenario_file),
        "--results",
        str(results),
    ]
    assert main(argv, stdout=differ, stderr=io.StringIO()) == 1
    assert "small-ss-inner-edge[inner-3.9]" in differ.getvalue()
    assert "unexpected-output" in differ.getvalue()
    assert json.loads(results.read_text())["summary"]["by_status"] == {"fail": 1, "pass": 5}


@pytest.fixture(scope="module")
def other_era_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """``small-ss-inner-edge`` stated for 4.3.1 and 4.4.0 (the 4.0.1 era) and ``small-ss-inner`` for 3.9:
    stream-stream joins are the same in both eras, so a candidate claiming 3.9 claims all three."""
    lines = {line["id"]: line for line in SMALL_SCENARIOS}
    stated = [("small-ss-inner-edge", "4.3.1"), ("small-ss-inner-edge", "4.4.0"), ("small-ss-inner", "3.9")]
    path = tmp_path_factory.mktemp("eras") / "other-eras.jsonl"
    path.write_text("".join(json.dumps(dict(lines[name], kafka=kafka)) + "\n" for name, kafka in stated))
    return path


def test_kjoin_run_runs_a_claimed_era_as_what_it_claims_and_says_which_releases_ran(
    spark: SparkSession, other_era_file: Path, tmp_path: Path
) -> None:
    """window_off_by_one claims 3.9: the scenario stated for 4.3.1 and 4.4.0 runs once, as 3.9, its failure
    says "as Kafka 3.9", and the summary and the results say that claimed 3.9 ran as 3.9 (issue 24)."""
    out, results = io.StringIO(), tmp_path / "results.json"
    argv = ["run", "--candidate", "support.fixture_candidates:window_off_by_one"]
    argv += ["--scenarios", str(other_era_file), "--results", str(results), "--spark-master", "local[2]"]
    assert main(argv, stdout=out, stderr=io.StringIO()) == 1
    text = out.getvalue()
    assert "small-ss-inner-edge[inner-3.9]" in text
    assert "stream-stream inner join as Kafka 3.9 (era 3.8)" in text
    assert "as Kafka 4." not in text and "-4.4.0]" not in text and "-4.3.1]" not in text
    assert "Kafka releases run, per claimed era:\n  3.9 (era 3.8): 3.9 (2 cases)\n" in text
    assert "(1 case stated for releases of other eras with the same semantics ran once" in text
    document = json.loads(results.read_text())
    assert sorted(case["id"] for case in document["cases"]) == [
        "small-ss-inner-edge[inner-3.9]",
        "small-ss-inner[inner-3.9]",
    ]
    assert document["summary"]["ran_as"] == [{"claimed": ["3.9"], "era": "3.8", "releases": {"3.9": 2}}]


def test_pytest_plugin_says_which_releases_each_claimed_era_ran_as(
    pytester: pytest.Pytester, other_era_file: Path
) -> None:
    run = pytester.runpytest_inprocess(  # in process: reuses this process's SparkSession
        "--candidate",
        "support.fixture_candidates:oracle_on_driver",
        "--kjoin-scenarios",
        str(other_era_file),
        "--spark-master",
        "local[2]",
        "-p",
        "no:cacheprovider",
    )
    run.assert_outcomes(passed=2)
    run.stdout.fnmatch_lines(["*Kafka releases run, per claimed era:", "*  3.9 (era 3.8): 3.9 (2 cases)"])


@pytest.mark.system  # a kjoin run process and its JVM
def test_a_run_that_starts_spark_prints_no_spark_banner(scenario_file: Path) -> None:
    """A run that starts its own JVM prints only its progress on stderr: the JVM's start-up lines ("WARNING:
    Using incubator modules", ...) and whatever it prints later go to Spark's log, so they reach neither the
    terminal nor a failing test's captured output (issue 24)."""
    command = [sys.executable, "-m", "kjoin.conformance", "run", "--scenarios", str(scenario_file)]
    command += ["--candidate", "support.fixture_candidates:window_off_by_one", "--spark-master", "local[1]"]
    done = subprocess.run(
        command, cwd=Path(__file__).parent, capture_output=True, text=True, timeout=900, check=False
    )
    assert done.returncode == 1, done.stderr  # the candidate differs in one case
    assert "WARNING" not in done.stderr and "incubator" not in done.stderr, done.stderr
    assert all(" elapsed" in line for line in done.stderr.splitlines()), done.stderr


def test_kjoin_run_calls_a_store_shape_case_with_its_shape_only(
    spark: SparkSession, scenario_file: Path, tmp_path: Path
) -> None:
    """A saved regression stating ``"batch": "store-shape"`` (docs/scenario-format.md, "Batch composition")
    gets a table-table call of its own; its id and the results document say which batch it was in."""
    joint = {
        "id": "small-tt-versioned",
        "kafka": "3.9",
        "join": "table-table",
        "variant": "inner",
        "versioned": {"left": True, "right": True, "history_ms": 100},
        "records": [
            {"side": "left", "key": "k", "value": "L1", "ts": 2},
            {"side": "right", "key": "k", "value": "R1", "ts": 1},
        ],
    }
    left_only = {"left": True, "right": False, "history_ms": 100}
    shaped = dict(joint, id="small-tt-left-versioned", versioned=left_only)
    path = tmp_path / "batches.jsonl"
    path.write_text(json.dumps(joint) + "\n" + json.dumps(dict(shaped, batch="store-shape")) + "\n")
    out, err, results = io.StringIO(), io.StringIO(), tmp_path / "results.json"
    argv = ["run", "--candidate", "support.fixture_candidates:oracle_on_driver", "--scenarios", str(path)]
    code = main([*argv, "--results", str(results)], stdout=out, stderr=err)
    assert code == 0, out.getvalue() + err.getvalue()
    assert out.getvalue().count("table-table: 1 case in one candidate call") == 1
    assert out.getvalue().count("table-table (left-versioned batch): 1 case in one candidate call") == 1
    document = json.loads(results.read_text())
    assert schema_errors(document) == []
    ids = {case["id"]: case["status"] for case in document["cases"]}
    assert ids == {
        "small-tt-versioned[inner-3.9]": "pass",
        "small-tt-left-versioned[inner-3.9]~left-versioned-batch": "pass",
    }
    calls = [
        (call["batch"] or "", call["cases"]) for call in document["calls"] if call["join"] == "table-table"
    ]
    assert sorted(calls) == [("", 1), ("left-versioned", 1)]
