"""The pytest plugin's collection and the ``kjoin run`` usage errors (no Spark is started here)."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from kjoin.conformance.cli import main
from support.harness_scenarios import write_scenarios

pytest_plugins = ["pytester"]

REPORTS_PYSPARK = """
import sys

def pytest_sessionfinish(session):
    print("PYSPARK_IMPORTED", "pyspark" in sys.modules)
"""


def test_plugin_adds_nothing_and_imports_no_spark_without_a_candidate(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("KJOIN_CANDIDATE", raising=False)  # this suite may itself run with a candidate
    pytester.makeconftest(REPORTS_PYSPARK)
    pytester.makepyfile(test_one="def test_one():\n    assert True\n")
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider", "-s")
    result.assert_outcomes(passed=1)
    result.stdout.fnmatch_lines(["*PYSPARK_IMPORTED False*"])


def test_plugin_collects_one_item_per_case_named_by_the_environment(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    scenarios = write_scenarios(pytester.path / "small.jsonl")
    monkeypatch.setenv("KJOIN_CANDIDATE", "support.fixture_candidates:oracle_on_driver")
    result = pytester.runpytest_subprocess(
        "--collect-only", "-q", "--kjoin-scenarios", str(scenarios), "-p", "no:cacheprovider"
    )
    result.stdout.fnmatch_lines(
        [
            "*small.jsonl::small-ss-inner[[]inner-3.9[]]",
            "*small.jsonl::small-st-left[[]left-3.9[]]",
            "6 tests collected*",
        ]
    )


def test_plugin_collects_a_claimed_era_as_the_version_it_claims(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    """oracle_on_driver claims 3.9: a scenario stated for 3.5.2, 3.9 and 4.4.0 (table-table joins are the
    same in all three) is one item as 3.9; one stated only for 4.4.0 runs as 3.9 too (docs/candidates.md)."""
    line = {
        "join": "table-table",
        "variant": "inner",
        "records": [{"side": "left", "key": "k", "value": "A", "ts": 1}],
    }
    stated = [("tt-a", "3.5.2"), ("tt-a", "3.9"), ("tt-a", "4.4.0"), ("tt-b", "4.4.0")]
    scenarios = pytester.path / "stated.jsonl"
    scenarios.write_text(
        "".join(json.dumps(dict(line, id=name, kafka=kafka)) + "\n" for name, kafka in stated)
    )
    monkeypatch.setenv("KJOIN_CANDIDATE", "support.fixture_candidates:oracle_on_driver")
    result = pytester.runpytest_subprocess(
        "--collect-only", "-q", "--kjoin-scenarios", str(scenarios), "-p", "no:cacheprovider"
    )
    result.stdout.fnmatch_lines(
        ["*stated.jsonl::tt-a[[]inner-3.9[]]", "*stated.jsonl::tt-b[[]inner-3.9[]]", "2 tests collected*"]
    )


def test_plugin_turns_an_unknown_candidate_into_a_usage_error(pytester: pytest.Pytester) -> None:
    result = pytester.runpytest_subprocess("--candidate", "no-such-candidate", "-p", "no:cacheprovider")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*--candidate: unknown candidate 'no-such-candidate'*"])


THROUGH_KAFKA_MISUSE = [
    (["--kafka-feed", "backlog"], "*--kafka-feed needs --through-kafka*"),
    (["--through-kafka"], "*'spark-reference' has no job that reads Kafka*"),
]


@pytest.mark.parametrize(("arguments", "message"), THROUGH_KAFKA_MISUSE)
def test_plugin_through_kafka_usage_errors(
    pytester: pytest.Pytester, arguments: list[str], message: str
) -> None:
    """A batch candidate cannot run through Kafka; the Kafka options need ``--through-kafka``."""
    result = pytester.runpytest_subprocess(
        "--candidate", "spark-reference", *arguments, "-p", "no:cacheprovider"
    )
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines([message])


def test_kjoin_run_exits_2_for_an_unknown_candidate() -> None:
    stdout, stderr = io.StringIO(), io.StringIO()
    assert main(["run", "--candidate", "no-such-candidate"], stdout=stdout, stderr=stderr) == 2
    assert "unknown candidate 'no-such-candidate'" in stderr.getvalue()


def test_kjoin_run_exits_2_when_no_scenario_file_can_be_read(tmp_path: Path) -> None:
    stdout, stderr = io.StringIO(), io.StringIO()
    missing = tmp_path / "missing.jsonl"
    argv = ["run", "--candidate", "spark-native", "--scenarios", str(missing)]
    assert main(argv, stdout=stdout, stderr=stderr) == 2
    assert f"{missing} [?] field (path): does not exist" in stderr.getvalue()
