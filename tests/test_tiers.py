"""The test tiers of ``tests/conftest.py``: which of the project's own tests a command collects
(``--collect-only`` in a child pytest)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PLAIN = "tests/test_checker.py"  # no Spark, no Kafka
SPARK = "tests/test_spark_reference.py"  # the spark-reference group
SYSTEM = "tests/test_scale.py"  # a system test file


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:cacheprovider", *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode in (0, 5), done.stdout + done.stderr  # 5: nothing collected
    return done


def _collected(*args: str) -> set[str]:
    """The files of the tests a child pytest collects with ``args``."""
    return {line.split("::", 1)[0] for line in _run(*args).stdout.splitlines() if "::" in line}


SYSTEM_FILES = {
    "tests/test_catalogue_expectations.py",
    "tests/test_check_stated_tool.py",
    "tests/test_commit_points_kafka.py",
    "tests/test_commit_points_spark.py",
    "tests/test_consistency_properties.py",
    "tests/test_differential_planted_bugs.py",
    "tests/test_differential_reference.py",
    "tests/test_end_to_end_kafka.py",
    "tests/test_faults_candidates.py",
    "tests/test_faults_kafka.py",
    "tests/test_faults_probes.py",
    "tests/test_faults_run.py",
    "tests/test_faults_system.py",
    "tests/test_flag_reach.py",
    "tests/test_generation_reach.py",
    "tests/test_harness_spark.py",
    "tests/test_kafka_application.py",
    "tests/test_kafka_driver.py",
    "tests/test_kafka_eviction.py",
    "tests/test_kafka_settings.py",
    "tests/test_mutation_tool.py",
    "tests/test_native_tables_spark.py",
    "tests/test_oracle_fast_paths.py",
    "tests/test_oracle_properties.py",
    "tests/test_scale.py",
    "tests/test_scale_cluster.py",
    "tests/test_spark_reference.py",
    "tests/test_spark_reference_catalogue.py",
    "tests/test_spark_stateful.py",
    "tests/test_stateful_record_caches.py",
    "tests/test_streaming_adapter.py",
    "tests/test_streaming_example_loaded.py",
    "tests/test_tiers.py",
}
"""Every file with tests of the system tier (the ``system`` mark). Issue 24's CPU budget moved the Kafka
driver's tests but one, the planted-bug fuzzing, the runs that start a JVM of their own (``kjoin run``
under signals, the mutation tool, a second session), this file's whole-suite collections, and then (the
smoke tier) all but one small real-Spark check per candidate, most golden-trace cases of the oracle's
catalogue check, and the property tests' middle eras there."""

WHOLE_SUITE = pytest.mark.system  # a child pytest collecting every test: the catalogue loaded, 10,000 items


@pytest.mark.parametrize(
    ("args", "files"),
    [
        pytest.param(["-m", "not spark and not kafka", PLAIN, SPARK], {PLAIN}, id="fast-tier-drops-spark"),
        pytest.param(["-m", "spark", PLAIN, SPARK], {SPARK}, id="spark-only"),
        pytest.param(["tests", "-m", "system"], set(), id="default-tier-drops-system", marks=WHOLE_SUITE),
        pytest.param(
            ["--tier", "all", "tests", "-m", "system"], SYSTEM_FILES, id="all-has-system", marks=WHOLE_SUITE
        ),
        pytest.param(["--tier", "system", PLAIN, SYSTEM], {SYSTEM}, id="system-tier-only"),
        pytest.param([PLAIN, SYSTEM], {PLAIN, SYSTEM}, id="a-named-system-file-runs"),
    ],
)
def test_a_tier_collects_its_tests(args: list[str], files: set[str]) -> None:
    assert _collected(*args) == files


@WHOLE_SUITE
def test_the_default_tier_says_what_it_left_out() -> None:
    out = _run("tests", "-k", "test_checker").stdout
    assert "kjoin: this was the default tier" in out and "deselected" in out, out


def test_the_default_tier_keeps_one_kafka_driver_test_on_a_real_release() -> None:
    """Issue 24's budget: the Kafka driver's tests run in the system tier but one on a real release (and
    the usage error that needs no Maven); the same files under ``--tier all`` hold every one of them."""
    files = ("tests/test_kafka_driver.py", "tests/test_kafka_settings.py")
    default = {
        line.split("@", 1)[0]
        for line in _run("--tier", "default", *files).stdout.splitlines()
        if "::" in line
    }
    assert default == {
        "tests/test_kafka_driver.py::test_real_kafka_answers_each_release_as_the_scenario_states[4.3]",
        "tests/test_kafka_driver.py::test_kjoin_kafka_without_maven_is_a_usage_error",
    }
    every = [line for line in _run("--tier", "all", *files).stdout.splitlines() if "::" in line]
    assert len(every) > 20 and default < {line.split("@", 1)[0] for line in every}
