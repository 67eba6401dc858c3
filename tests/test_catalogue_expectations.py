"""The oracle emits what every scenario file states Kafka emits: golden traces from real Kafka Streams,
Kafka's own join tests, the seed tables (errata record where the source table is wrong), the edge cases and
the saved regressions. One item per case (``<scenario>[<variant>-<kafka>]``, docs/scenario-format.md),
compared by the project's checker at the exact level; a failure prints the trace and the first divergence.

Golden traces of 3.7+ foreign-key left joins marked ``known_bug: KAFKA-16394`` are matched too: the oracle is
bug-compatible by default (``fk_left_join_repeats_results``).

The default tier checks every hand-written case and the golden traces of ``support.catalogue_slice`` (every
16th scenario of each release's trace file, as spark-reference's slice); the other golden-trace cases are
system tests, and only the items of the run's tier are built (``support.tiers.parametrize_by_tier``).
``pytest conformance`` checks every stated case too (CI runs both).
"""

from __future__ import annotations

import pytest

from kjoin.conformance.catalogue import Case
from kjoin.conformance.harness.text import describe_case, render_trace
from kjoin.conformance.stated import check_case
from kjoin.oracle import behaviour_for, run
from support.catalogue_slice import bundled_catalogue, catalogue_slice
from support.tiers import parametrize_by_tier

CASES = [case for case in bundled_catalogue().cases if case.expected is not None]
SMOKE = frozenset(map(id, catalogue_slice(CASES)))
"""The cases the default tier checks: every hand-written one, the golden traces of the slice."""


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    if "case" in metafunc.fixturenames:
        parametrize_by_tier(
            metafunc, "case", CASES, ids=lambda case: case.id, keep=lambda case: id(case) in SMOKE
        )


def _trace(case: Case) -> str:
    assert case.expected is not None
    outputs = run(case.spec, case.records, behaviour_for(case.kafka, intended=case.intended))
    columns = {"the oracle": outputs}
    if case.expected.causes_known:
        columns = {"the file": list(case.expected.outputs), **columns}
    return render_trace(case.records, columns)


def test_oracle_emits_what_the_scenario_file_states(case: Case) -> None:
    problem = check_case(case)
    assert problem is None, f"{case.where}: {describe_case(case)}\n{problem}\n{_trace(case)}"


def test_catalogue_states_expectations_for_every_source() -> None:
    sources = {case.source.split("/")[1] for case in CASES}
    assert {
        "golden",
        "kafka_tests",
        "regressions",
        "stream_stream",
        "stream_table",
        "table_table",
        "foreign_key",
    } <= sources
    kafka_tests = {case.scenario for case in CASES if case.source.startswith("scenarios/kafka_tests/")}
    assert len(kafka_tests) == 62
    golden = [case for case in CASES if case.source.startswith("scenarios/golden/")]
    assert len(golden) >= 2431 + 4 * 551 + 3 * 551
    releases = {case.kafka for case in golden}
    assert {"4.0.0", "4.0.2", "4.1.2", "4.2.2", "4.3.1", "3.9.2", "3.0.2", "3.5.2"} <= releases
    rocksdb = {
        case.kafka for case in golden if case.spec.stores == "rocksdb" and case.scenario.endswith("-rocksdb")
    }
    assert {"3.0.2", "3.5.2", "3.9.2", "4.3.1"} <= rocksdb
