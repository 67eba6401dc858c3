"""spark-native's table-table port on real Spark (system tier): one ``applyInPandasWithState`` query, three
processing steps per micro-batch, emits what its model (``native_tables.port_outputs``, checked over the whole
catalogue in tests/test_native_tables.py) says; the harness compares it at level ``commit-points`` and the
report shows the commit points that explain a passing case and the first output no commit points explain in
a declared one (docs/semantics/commit-points.md, CP-4)."""

from __future__ import annotations

import json

import pytest
from pyspark.sql import SparkSession

from kjoin.conformance.candidates.native_tables import port_outputs
from kjoin.conformance.candidates.spark_native import CLAIM, TWO_FLUSHES, SparkNative
from kjoin.conformance.catalogue import load_cases
from kjoin.conformance.checker import Emitted
from kjoin.conformance.documents.outcomes import CaseOutcome
from kjoin.conformance.harness.claims import as_claimed
from kjoin.conformance.harness.outcomes import HarnessRun
from kjoin.reports import render_report
from kjoin.reports.scenario_page import explained_by, scenario_file
from kjoin.scenarios import CATALOGUE_ROOT
from support.report_documents import document_of

pytestmark = [pytest.mark.system, pytest.mark.xdist_group("spark-streaming")]

MERGES = "tt-record-cache-merges-updates-between-commits"
CASES = {
    f"{MERGES}[inner-3.9]",  # passes: the merged updates are one flush
    f"{MERGES}[left-3.9]",  # declared: k's tables both change in the last micro-batch
    "tt-docs-kip77[outer-3.9]",  # passes: 16 inputs, six micro-batches
}


@pytest.fixture(scope="module")
def outcomes(spark: SparkSession) -> dict[str, CaseOutcome]:
    files = ("record-cache-merges-updates-between-commits.toml", "docs-kip77.toml")
    loaded = load_cases([CATALOGUE_ROOT / "table_table" / name for name in files])
    cases = [case for case in as_claimed(CLAIM, loaded.cases).cases if case.id in CASES]
    assert {case.id for case in cases} == CASES
    return {outcome.case.id: outcome for outcome in HarnessRun(SparkNative(), lambda: spark).outcomes(cases)}


def test_the_spark_job_emits_what_its_model_says(outcomes: dict[str, CaseOutcome]) -> None:
    for outcome in outcomes.values():
        case = outcome.case
        assert isinstance(outcome.answer, Emitted) and outcome.answer.causes_known
        model = port_outputs(case.variant, [(r.side, r.key, r.value, r.ts) for r in case.records])
        emitted = [
            (o.key, (None, None, True, o.ts) if o.value is None else (*o.value, False, o.ts), o.cause)
            for o in outcome.answer.outputs
        ]
        assert emitted == model, case.id


def test_passing_cases_name_their_commit_points_and_the_report_shows_them(
    outcomes: dict[str, CaseOutcome],
) -> None:
    merged = outcomes[f"{MERGES}[inner-3.9]"]
    assert (merged.mode, merged.status) == ("commit-points", "pass")
    assert merged.verdict is not None and merged.verdict.commit_points
    assert merged.verdict.commit_points[-1] == len(merged.case.records) - 1  # the end of the input
    document = json.loads(json.dumps(document_of(list(outcomes.values()), SparkNative())))
    page = render_report(document, all_pages=True)[scenario_file(MERGES)]
    assert explained_by(merged.verdict.commit_points) in page


def test_a_declared_case_shows_the_first_output_no_commit_points_explain(
    outcomes: dict[str, CaseOutcome],
) -> None:
    left = outcomes[f"{MERGES}[left-3.9]"]
    assert left.status == "declared" and left.declared is not None and left.declared.reason == TWO_FLUSHES
    assert left.verdict is not None
    [divergence] = left.verdict.divergences
    # Kafka's last commit flushes k twice (C - null @4 from the left store, @5 from the right store's delete);
    # the port emits one row, C - null @5: no commit points make Kafka emit it where the port does
    assert divergence.kind == "unexplained-output" and divergence.actual is not None
    assert divergence.actual[:3] == ("k", ("C", None), 5)
    document = json.loads(json.dumps(document_of([left], SparkNative())))
    page = render_report(document)[scenario_file(MERGES)]
    assert "unexplained-output" in page
    assert "no commit points make Kafka" in page
