"""Every run writes a report: ``kjoin run --report DIR`` and the pytest plugin's ``--kjoin-report DIR``, on
real local Spark with the harness's small scenarios and a deliberately wrong fixture candidate."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from kjoin.conformance.cli import main
from kjoin.reports.scenario_page import scenario_file
from support.harness_scenarios import write_scenarios
from support.html_pages import td
from support.results_schema import schema_errors
from support.tiers import spark_group

pytest_plugins = ["pytester"]
pytestmark = spark_group("spark-harness")  # with test_harness_spark: the harness and its reports

WRONG = "support.fixture_candidates:window_off_by_one"


@pytest.fixture(scope="module")
def scenario_file_path(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_scenarios(tmp_path_factory.mktemp("scenarios") / "small.jsonl")


def _check_report(folder: Path) -> None:
    document = json.loads((folder / "results.json").read_text())
    assert not schema_errors(document)  # docs/results-schema.json describes what the writer wrote
    assert document["summary"]["by_status"] == {"fail": 1, "pass": 5}
    assert {v["join"] for v in document["verdicts"]} == {"stream-stream", "stream-table"}
    index = (folder / "index.html").read_text()
    assert td(index, "st-fail") == ["fail wrong-timestamp"] or td(index, "st-fail")[0].startswith("fail ")
    page = (folder / scenario_file("small-ss-inner-edge")).read_text()
    assert td(page, "m-unexpected") == ["+ A - a @7"]  # joined one millisecond past the window


def test_kjoin_run_report_writes_results_and_report(scenario_file_path: Path, tmp_path: Path) -> None:
    out, err = io.StringIO(), io.StringIO()
    argv = [
        "run",
        "--candidate",
        WRONG,
        "--scenarios",
        str(scenario_file_path),
        "--spark-master",
        "local[2]",
        "--report",
        str(tmp_path),
    ]
    assert main(argv, stdout=out, stderr=err) == 1
    # stderr carries progress lines only: a stage that lasts ten seconds (a loaded machine) gets one
    assert all(" elapsed" in line for line in err.getvalue().splitlines()), err.getvalue()
    lines = out.getvalue().splitlines()
    assert lines[-2:] == [
        f"results written to {tmp_path / 'results.json'}",
        f"report written to {tmp_path / 'index.html'}",
    ]
    _check_report(tmp_path)


def test_pytest_plugin_kjoin_report_writes_results_and_report(
    pytester: pytest.Pytester, scenario_file_path: Path
) -> None:
    folder = pytester.path / "report"
    run = pytester.runpytest_inprocess(  # in process: reuses this worker's SparkSession, no second JVM
        "--candidate",
        WRONG,
        "--kjoin-scenarios",
        str(scenario_file_path),
        "--spark-master",
        "local[2]",
        "--kjoin-report",
        str(folder),
        "-p",
        "no:cacheprovider",
    )
    run.assert_outcomes(passed=5, failed=1)
    _check_report(folder)
