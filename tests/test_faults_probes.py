"""Fault probes of the command line that need no Spark: bad options refused up front (exit 2, naming the
option, nothing started), output paths that cannot be written refused as usage errors, hostile text from
results files escaped on the terminal."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from kjoin.conformance.cli import main
from support.report_documents import answered_by_version, document_of, make_case, outcome_of, with_outputs

SCALE = ["scale", "--candidate", "spark-reference", "--records", "10", "--join", "stream-stream"]
SCALE += ["--variant", "inner"]


def _kjoin(*argv: str, stdin: str = "") -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(list(argv), stdin=io.StringIO(stdin), stdout=out, stderr=err)
    return code, out.getvalue(), err.getvalue()


@pytest.fixture
def no_spark(monkeypatch: pytest.MonkeyPatch) -> None:
    """Starting Spark fails the test: the probes must be refused before."""

    def refuse(*args: object, **kwargs: object) -> None:
        raise AssertionError("Spark was started")

    monkeypatch.setattr("kjoin.conformance.harness.spark_session.start_session", refuse)


@pytest.mark.parametrize(
    ("option", "value", "problem"),
    [
        ("--null-share", "2", "must be a share between 0 and 1, got 2"),
        ("--late-share", "-1", "must be a share between 0 and 1, got -1"),
        ("--late-share", "a tenth", "'a tenth' is not a number"),
        ("--skew", "0", "must be above 0, got 0"),
        ("--max-lateness", "-5", "must be 0 or more, got -5"),
    ],
)
def test_scale_refuses_impossible_shares_up_front(
    option: str, value: str, problem: str, no_spark: None
) -> None:
    code, out, err = _kjoin(*SCALE, option, value)
    assert code == 2, err
    assert out == ""
    assert err.count("\n") == 1 and f"argument {option}: {problem}" in err


def test_output_paths_that_cannot_be_written_are_usage_errors(tmp_path: Path, no_spark: None) -> None:
    a_file = tmp_path / "a-file"
    a_file.write_text("not a folder\n", encoding="utf-8")
    candidate = ["--candidate", "support.fixture_candidates:oracle_on_driver"]
    probes = [
        (["run", *candidate, "--report", str(a_file)], "--report", "is a file, not a folder"),
        (
            ["run", *candidate, "--results", str(a_file / "results.json")],
            "--results",
            "is a file, not a folder",
        ),
        (["run", *candidate, "--results", str(tmp_path)], "--results", "is a folder, not a file"),
        ([*SCALE, "--report", str(a_file / "sub")], "--report", "is a file, not a folder"),
        (["report", str(a_file), "--out", str(a_file)], "--out", "is a file, not a folder"),
    ]
    for argv, option, problem in probes:
        code, _, err = _kjoin(*argv)
        assert code == 2, (argv, err)
        assert f"argument {option}:" in err and problem in err, (argv, err)
        assert "internal error" not in err and "Traceback" not in err


def test_a_read_only_folder_is_refused_as_an_output(tmp_path: Path, no_spark: None) -> None:
    """``/proc`` cannot be written, even by root (a mode bit would not stop root)."""
    code, _, err = _kjoin("run", "--candidate", "x:y", "--results", "/proc/kjoin/results.json")
    assert code == 2, err
    assert "argument --results: /proc/kjoin/results.json: cannot write in /proc" in err


def _results(path: Path, scenario: str, *, agrees: bool) -> Path:
    case = make_case(scenario, [("left", "k", "A", 1), ("right", "k", "a", 2)], variant="inner")
    answer = answered_by_version("3.9")(case) if agrees else with_outputs(case, [])
    path.write_text(json.dumps(document_of([outcome_of(case, answer)])), encoding="utf-8")
    return path


def test_compare_escapes_hostile_case_ids_on_the_terminal(tmp_path: Path) -> None:
    hostile = "evil\x1b[2J\x1b]0;owned\x07\x00\u202etxt.exe\rhidden"
    old = _results(tmp_path / "old.json", hostile, agrees=True)
    new = _results(tmp_path / "new.json", hostile, agrees=False)
    code, out, err = _kjoin("compare", str(old), str(new))
    assert code == 1, err
    assert not any(char in out for char in "\x1b\x07\x00\u202e\r")
    assert "evil\\x1b[2J\\x1b]0;owned\\x07\\x00\\u202etxt.exe\\rhidden[inner-3.9]: pass -> fail" in out


def test_kafka_validates_the_release_before_any_maven_build(monkeypatch: pytest.MonkeyPatch) -> None:
    def no_build(*args: object, **kwargs: object) -> None:
        raise AssertionError("the driver was built")

    monkeypatch.setattr("kjoin.conformance.cli.kafka.KafkaDriver", no_build)
    code, out, err = _kjoin("kafka", "--version", "9.9", stdin='{"id": "x"}\n')
    assert code == 2 and out == ""
    assert err.startswith("kjoin: kafka: --version: ") and "'9.9'" in err
    assert "newer than the era table knows" in err
    assert err.count("\n") == 1


CORRUPT_PARQUET = (
    "An error occurred while calling o51.load.\n"
    ": org.apache.spark.SparkException: [FAILED_READ_FILE.CANNOT_READ_FILE_FOOTER] Encountered error while "
    "reading file file:/data/topics/part-0.parquet. Could not read footer. Please ensure that the file is in "
    "either ORC or Parquet format.\n"
    "If not, please convert it to a valid format. SQLSTATE: KD001\n"
    "\tat org.apache.spark.sql.errors.QueryExecutionErrors$.cannotReadFooterForFileError("
    "QueryExecutionErrors.scala:1109)\n"
)
"""PySpark 4.3's error for a corrupt Parquet file (a ``Py4JJavaError``'s text, stack trace shortened)."""


def test_spark_errors_are_summarised_in_one_line_naming_the_system_cause() -> None:
    from kjoin.conformance.harness.system_failures import one_line, system_cause
    from kjoin.conformance.scale.data import unreadable_input
    from support.faulty_candidates import WORKER_TIMEOUT

    assert (
        system_cause(WORKER_TIMEOUT)
        == "a Spark Python worker did not start in time (the machine is overloaded)"
    )
    assert (
        one_line(WORKER_TIMEOUT) == "org.apache.spark.SparkException: Python worker failed to connect back."
    )
    assert system_cause(CORRUPT_PARQUET) is None  # the user's file, not the system
    assert unreadable_input(RuntimeError(CORRUPT_PARQUET)) == (
        "/data/topics/part-0.parquet: cannot be read: corrupt, or not the format it is read as "
        "(Spark: FAILED_READ_FILE.CANNOT_READ_FILE_FOOTER)"
    )
    assert system_cause("ValueError: this candidate is broken on purpose") is None
    assert one_line("the candidate called sys.exit(0)\nTraceback (most recent call last):\n  ...") == (
        "the candidate called sys.exit(0)"
    )


@pytest.mark.system
@pytest.mark.kafka
def test_a_corrupt_jar_is_named_with_its_path_from_what_java_and_javac_say(tmp_path: Path) -> None:
    import subprocess

    from kjoin.conformance.harness.system_failures import SystemFailure
    from kjoin.conformance.kafka.maven import check_jars

    jar = tmp_path / "repository" / "kafka-streams-3.9.1.jar"
    jar.parent.mkdir()
    jar.write_bytes(bytes(range(256)) * 8)
    source = tmp_path / "Uses.java"
    source.write_text(
        "public class Uses { org.apache.kafka.streams.KafkaStreams streams; }\n", encoding="utf-8"
    )
    for command in (["java", "-jar", str(jar)], ["javac", "-d", str(tmp_path), "-cp", str(jar), str(source)]):
        done = subprocess.run(command, capture_output=True, text=True, timeout=300, check=False)
        assert done.returncode != 0
        with pytest.raises(SystemFailure) as failure:
            check_jars(done.stdout + done.stderr)
        assert str(failure.value).startswith(f"{jar} is corrupt ("), (command, str(failure.value))
        assert "delete it and run again" in str(failure.value)


def test_verify_and_kafka_announce_the_first_maven_build(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from kjoin.conformance.kafka.driver import DriverError

    def stop(*args: object, **kwargs: object) -> None:
        raise DriverError("stopped here by the test")

    monkeypatch.setenv("KJOIN_CACHE", str(tmp_path / "empty-cache"))
    monkeypatch.setattr("kjoin.conformance.kafka.verify.driver_info", stop)
    monkeypatch.setattr("kjoin.conformance.cli.kafka.KafkaDriver", stop)
    for argv, prefix in [
        (["verify", "--kafka", "4.4"], "kjoin: verify: "),
        (["kafka", "--version", "4.4"], "kjoin: kafka: "),
    ]:
        code, _, err = _kjoin(*argv)
        assert code == 2, err
        first, *_ = err.splitlines()
        assert first.startswith(prefix + "building the Kafka Streams 4.4.0 driver with Maven (first use"), err
        assert "stopped here by the test" in err


@pytest.mark.system
@pytest.mark.kafka
def test_verify_counts_the_scenarios_real_kafka_answered(tmp_path: Path) -> None:
    from kjoin.conformance.catalogue import load_cases
    from kjoin.conformance.differential.profiles import profile_named
    from kjoin.conformance.kafka.verify import verify_cases
    from support.harness_scenarios import SMALL_SCENARIOS, write_scenarios

    cases = load_cases([write_scenarios(tmp_path / "small.jsonl")], kafka="4.4.0").cases
    counted: list[tuple[int, int]] = []
    verify_cases("4.4.0", cases, profile=profile_named("ci"), counted=lambda *done: counted.append(done))
    total = len(SMALL_SCENARIOS)
    assert counted == [(done, total) for done in range(1, total + 1)]


def test_run_progress_counts_only_the_cases_the_candidate_runs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Not-claimed cases are no work: counted, they would finish at once and make the estimate grow."""
    import dataclasses

    from kjoin.conformance.catalogue import load_cases
    from kjoin.conformance.cli import run as run_command
    from kjoin.conformance.cli.common import Streams
    from kjoin.conformance.harness.outcomes import CaseOutcome, HarnessRun
    from support.fixture_candidates import CLAIM_ALL_39, oracle_on_driver
    from support.harness_scenarios import SMALL_SCENARIOS, write_scenarios

    stages: list[tuple[str, int]] = []

    class Recorded:
        def __init__(self, stream: object, label: str, total: int, **options: object) -> None:
            stages.append((label, total))

        def __enter__(self) -> Recorded:
            return self

        def __exit__(self, *exc: object) -> None:
            pass

        def advance(self, count: int = 1) -> None:
            pass

    monkeypatch.setattr(run_command, "Progress", Recorded)
    claim = dataclasses.replace(CLAIM_ALL_39, joins=frozenset({"stream-stream"}))
    candidate = dataclasses.replace(oracle_on_driver(), claim=claim)
    harness = HarnessRun(candidate, lambda: pytest.fail("no Spark: the outcomes are stubbed"))
    monkeypatch.setattr(harness, "outcome", lambda case: CaseOutcome(case, "pass"))
    cases = load_cases([write_scenarios(tmp_path / "small.jsonl")], kafka="3.9").cases
    streams = Streams(io.StringIO(), io.StringIO(), io.StringIO())
    assert len(list(run_command._checked(harness, cases, streams))) == len(SMALL_SCENARIOS)
    stream_stream = sum(1 for scenario in SMALL_SCENARIOS if scenario["join"] == "stream-stream")
    assert stages == [("stream-stream", stream_stream)]  # the not-claimed stream-table cases: no stage
