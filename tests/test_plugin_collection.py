"""The pytest plugin's collection (``pytest conformance`` without a candidate included) and the ``kjoin run``
usage errors (no Spark is started here)."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from kjoin.conformance.catalogue import load_cases
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


ROOT = Path(__file__).resolve().parent.parent
KIP77 = "scenarios/stream_stream/kip77-current.toml"


def _pytest_in_checkout(*arguments: str) -> subprocess.CompletedProcess[str]:
    """``pytest ARGUMENTS`` from the checkout, without a candidate (none in the environment either)."""
    environment = {key: value for key, value in os.environ.items() if key != "KJOIN_CANDIDATE"}
    return subprocess.run(
        [sys.executable, "-m", "pytest", *arguments, "-p", "no:cacheprovider"],
        cwd=ROOT,
        env=environment,
        capture_output=True,
        text=True,
        timeout=600,
    )


def test_pytest_conformance_collects_one_item_per_stated_case() -> None:
    """``pytest conformance`` without a candidate: one item per case whose file states Kafka's outputs, as
    ``kjoin check`` counts them (issue 24: it collected nothing and exited 5). Here on one folder of the
    catalogue (the whole one is CI's ``pytest conformance`` step: 8,409 items, about 7 CPU seconds to
    collect)."""
    folder = "scenarios/table_table"
    stated = [case for case in load_cases([ROOT / folder]).cases if case.expected is not None]
    done = _pytest_in_checkout("conformance", "--collect-only", "-q", "--kjoin-scenarios", folder)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr
    assert f"{len(stated)} tests collected" in done.stdout
    assert len(stated) > 50
    assert all(f"{case.source}::{case.id}" in done.stdout for case in stated)


def test_pytest_conformance_checks_global_table_joins_and_self_joins() -> None:
    """The join kinds of issue 25 as pytest items: every stated stream-globaltable case and every stated
    self-join case is one item (named by its case id, with its key mapper or topology.optimization in the
    case) and passes against the oracle."""
    paths = ["scenarios/stream_globaltable", *sorted(str(p.relative_to(ROOT)) for p in ROOT.glob(SELF_JOINS))]
    stated = [case for case in load_cases([ROOT / path for path in paths]).cases if case.expected is not None]
    assert {case.join for case in stated} == {"stream-globaltable", "stream-stream"}
    assert sum(case.spec.self_join for case in stated) >= 8
    scenario_options = [option for path in paths for option in ("--kjoin-scenarios", path)]
    done = _pytest_in_checkout("conformance", "-q", *scenario_options)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr
    assert f"{len(stated)} passed" in done.stdout


SELF_JOINS = "scenarios/stream_stream/self-join-*.toml"


def test_pytest_conformance_checks_the_stated_outputs_against_the_oracle(tmp_path: Path) -> None:
    done = _pytest_in_checkout("conformance", "--kjoin-scenarios", KIP77)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr
    assert "3 passed" in done.stdout
    wrong = tmp_path / "wrong.jsonl"
    stated = dict(json.loads(write_scenarios(tmp_path / "small.jsonl").read_text().splitlines()[0]))
    stated["expected"] = [{"key": "k", "value": ["A", "z"], "ts": 99}]
    wrong.write_text(json.dumps(stated) + "\n", encoding="utf-8")
    done = _pytest_in_checkout("conformance", "--kjoin-scenarios", str(wrong))
    assert done.returncode == pytest.ExitCode.TESTS_FAILED, done.stdout[-2000:] + done.stderr
    assert "1 failed" in done.stdout
    # where, the first divergence, then the trace with what the oracle emits
    assert f"{wrong}:1: stream-stream inner join as Kafka 3.9" in done.stdout
    assert (
        "unexpected-output at input #1: the oracle emits k: A - a @6 while processing input #1" in done.stdout
    )
    assert "the oracle" in done.stdout.split("unexpected-output at input #1", 1)[1]


def test_pytest_conformance_without_stated_outputs_fails_instead_of_collecting_nothing(
    tmp_path: Path,
) -> None:
    scenarios = write_scenarios(tmp_path / "small.jsonl")  # no ``expected``: nothing to check
    done = _pytest_in_checkout("conformance", "--kjoin-scenarios", str(scenarios))
    assert done.returncode == pytest.ExitCode.TESTS_FAILED
    assert "no scenario states what Kafka emits" in done.stdout


def test_a_candidate_named_in_the_projects_pyproject_is_checked(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("KJOIN_CANDIDATE", raising=False)
    scenarios = write_scenarios(pytester.path / "small.jsonl")
    pytester.makepyprojecttoml('[tool.kjoin]\ncandidate = "support.fixture_candidates:oracle_on_driver"\n')
    result = pytester.runpytest_subprocess(
        "--collect-only", "-q", "--kjoin-scenarios", str(scenarios), "-p", "no:cacheprovider"
    )
    result.stdout.fnmatch_lines(["*small.jsonl::small-ss-inner[[]inner-3.9[]]", "6 tests collected*"])


def test_a_malformed_tool_kjoin_table_is_a_usage_error(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("KJOIN_CANDIDATE", raising=False)
    pytester.makepyprojecttoml("[tool.kjoin]\ncandidate = 3\n")
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*pyproject.toml: [[]tool.kjoin[]] candidate must be a string, got 3*"])
