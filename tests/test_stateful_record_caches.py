"""spark-stateful on the catalogue's table-table scenarios under a record cache, on real Spark (system tier).
It keeps no record cache: it emits Kafka's changelog as if it committed after every record. It claims these
scenarios at level ``commit-points`` (``Claim.record_caches``), which explains that changelog wherever no
cache would have dropped an output (the commit points it names are checked by running the oracle's Kafka
committing at exactly those points), and names the first output no commit points explain where one would
(its strict declared difference, docs/stateful.md)."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Sequence

import msgspec
import pytest
from msgspec.structs import replace
from pyspark.sql import SparkSession

from kjoin.conformance.candidates.spark_stateful import CLAIM, NO_RECORD_CACHE, SparkStateful
from kjoin.conformance.catalogue import Case, load_cases
from kjoin.conformance.checker import Emitted
from kjoin.conformance.documents.outcomes import CaseOutcome
from kjoin.conformance.harness.claims import at_commit_points, unclaimed_because
from kjoin.conformance.harness.outcomes import HarnessRun
from kjoin.conformance.kafka_segments import DEFAULT_CACHE_MAX_BYTES, DEFAULT_COMMIT_INTERVAL_MS
from kjoin.oracle.behaviour import behaviour_for
from kjoin.oracle.engine import run
from kjoin.oracle.records import Key, Output, Settings
from kjoin.reports import render_report
from kjoin.reports.scenario_page import explained_by, scenario_file
from kjoin.scenarios import CATALOGUE_ROOT
from support.report_documents import document_of

pytestmark = [pytest.mark.system, pytest.mark.xdist_group("spark-stateful")]


@pytest.fixture(scope="module")
def outcomes(spark: SparkSession) -> list[CaseOutcome]:
    files = sorted((CATALOGUE_ROOT / "table_table").glob("record-cache-*.toml"))
    cases = [case for case in load_cases(files).cases if case.spec.settings.cache_max_bytes > 0]
    assert len(files) >= 6 and all(unclaimed_because(CLAIM, case) is None for case in cases)
    return HarnessRun(SparkStateful(), lambda: spark).outcomes(cases)


def test_cached_table_table_scenarios_are_compared_at_commit_points(outcomes: list[CaseOutcome]) -> None:
    assert all(at_commit_points(CLAIM, outcome.case) for outcome in outcomes)
    assert {outcome.mode for outcome in outcomes} == {"commit-points"}
    statuses = Counter(outcome.status for outcome in outcomes)
    assert set(statuses) == {"pass", "declared"} and statuses["pass"] > statuses["declared"], statuses
    for outcome in outcomes:
        assert outcome.verdict is not None
        if outcome.status == "pass":
            # some commit points explain it (a commit after every record does; the search names one schedule),
            # the last one the end of the input, and Kafka committing at exactly those points emits, per
            # commit and key, what the candidate emitted for the records up to it
            commits = outcome.verdict.commit_points
            assert commits and commits[-1] == len(outcome.case.records) - 1, outcome.case.id
            assert isinstance(outcome.answer, Emitted) and outcome.answer.causes_known, outcome.case.id
            kafka = _kafka_committing_at(outcome.case, commits)
            assert _per_commit_and_key(kafka, commits) == _per_commit_and_key(
                outcome.answer.outputs, commits
            ), (outcome.case.id, commits)


def _kafka_committing_at(case: Case, commits: tuple[int, ...]) -> list[Output]:
    """The oracle's Kafka (``engine.run``, its ordinary entry point) with the scenario's tables behind record
    caches that nothing evicts and a commit after each of the input indexes ``commits`` only (the level's
    Kafka, docs/semantics/commit-points.md CP-1; ``kafka_segments`` for the search's side)."""
    settings = Settings(
        cache_max_bytes=max(case.spec.settings.cache_max_bytes, DEFAULT_CACHE_MAX_BYTES),
        commit_interval_ms=DEFAULT_COMMIT_INTERVAL_MS,
        emit_interval_ms=case.spec.settings.emit_interval_ms,
    )
    records = [
        msgspec.structs.replace(record, commit=index in commits, wall_clock=None)
        for index, record in enumerate(case.records)
    ]
    behaviour = behaviour_for(case.kafka, intended=case.intended)
    return run(replace(case.spec, settings=settings), records, behaviour)


def _per_commit_and_key(outputs: Sequence[Output], commits: tuple[int, ...]) -> list[dict[Key, list[object]]]:
    """``outputs`` split by the commit that ends the interval holding their cause, then by key, in order,
    an identical repeat of a key within one commit counted once (spec CP-2)."""
    blocks: list[dict[Key, list[object]]] = []
    after = -1
    for commit in commits:
        block: dict[Key, list[object]] = {}
        for output in outputs:
            if after < output.cause <= commit:
                seen = block.setdefault(output.key, [])
                if not seen or seen[-1] != (output.value, output.ts):
                    seen.append((output.value, output.ts))
        blocks.append(block)
        after = commit
    return blocks


def test_where_a_cache_drops_a_delete_the_report_names_the_output_no_commit_points_explain(
    outcomes: list[CaseOutcome],
) -> None:
    declared = [outcome for outcome in outcomes if outcome.status == "declared"]
    assert {outcome.case.scenario for outcome in declared} == {
        "tt-record-cache-drops-delete-of-absent-key",
        "tt-record-cache-drops-repeat-of-previous-result",
    }
    for outcome in declared:
        assert outcome.declared is not None and outcome.declared.reason == NO_RECORD_CACHE
        assert outcome.verdict is not None
        assert [d.kind for d in outcome.verdict.divergences] == ["unexplained-output"], outcome.case.id
    document = json.loads(json.dumps(document_of(outcomes, SparkStateful())))
    pages = render_report(document, all_pages=True)
    assert (
        "no commit points make Kafka emit"
        in pages[scenario_file("tt-record-cache-drops-delete-of-absent-key")]
    )
    passing = next(o for o in outcomes if o.case.scenario == "tt-record-cache-merges-updates-between-commits")
    assert passing.verdict is not None and passing.verdict.commit_points is not None
    page = pages[scenario_file("tt-record-cache-merges-updates-between-commits")]
    assert explained_by(passing.verdict.commit_points) in page
