"""The bundled ``spark-reference`` candidate against the oracle on generated scenarios (every join kind,
self-joins included).

Under the CI profile: ``kjoin fuzz``'s default, the profile's scenarios per join kind as the newest claimed
version and a share as every other claimed version, one candidate call per join kind; and the newest
claimed version alone, a tenth of the scenarios (both in the system tier: the default tier's spark-reference
check is its golden traces, tests/test_spark_reference.py). Under the deep
profile: the full count as every Kafka version the candidate claims, one run each. A failure is shrunk and
shown in full (first divergence and trace), so the message is the smallest scenario to debug.
"""

from __future__ import annotations

from dataclasses import replace

import pytest
from pyspark.sql import SparkSession

from kjoin.conformance.cli.fuzz import render_report
from kjoin.conformance.differential.fuzz import fuzz
from kjoin.conformance.differential.generate import offered_variants
from kjoin.conformance.differential.profiles import FuzzProfile, active_profile
from kjoin.conformance.protocol import load_candidate
from kjoin.oracle.behaviour import behaviour_for
from kjoin.oracle.records import JOIN_KINDS, VARIANTS
from support.tiers import spark_group

pytestmark = spark_group("spark")  # the spark-reference group: golden traces, catalogue, fuzzing

REFERENCE = load_candidate("spark-reference")
NEWEST = REFERENCE.claim.kafka[-1]
VERSIONS: list[object] = (
    [pytest.param(None, marks=pytest.mark.system), pytest.param(NEWEST, marks=pytest.mark.system)]
    if active_profile().name == "ci"
    else list(REFERENCE.claim.kafka)
)
"""CI profile: every claimed era at once (``kjoin fuzz``'s default) and the newest claimed version alone,
both in the system tier (issue 24's CPU budget: the newest version's run, at a tenth, cost 86 CPU-s in the
default tier); deep profile: each claimed version at full size."""
DEFAULT_TIER_SHARE = 10
"""The newest-version run draws a tenth of the profile's scenarios per join kind (it was the default tier's
run: a third, 50 per join kind, cost 78 CPU-s); the every-claimed-era run draws the full count for the newest
version."""


@pytest.mark.parametrize("kafka", VERSIONS, ids=lambda version: version or "every-claimed-era")
def test_spark_reference_agrees_with_the_oracle_on_generated_scenarios(
    kafka: str | None, spark: SparkSession, fuzz_profile: FuzzProfile, fuzz_seed: int
) -> None:
    if kafka is not None and fuzz_profile.name == "ci":
        fuzz_profile = replace(fuzz_profile, examples=fuzz_profile.examples // DEFAULT_TIER_SHARE)
    report = fuzz(REFERENCE, lambda: spark, kafka=kafka, profile=fuzz_profile, seed=fuzz_seed)
    generated = [batch for batch in report.generated if batch.kafka == report.kafka]
    # each claimed join kind, then the self-joins (a second stream-stream batch: Claim.self_joins), then
    # the boundary scenarios of the newest era (docs/testing.md): 3.8+ minTime, versioned gaps
    claimed = [join for join in JOIN_KINDS if join in REFERENCE.claim.joins]
    main, boundary = generated[: len(claimed) + 1], generated[len(claimed) + 1 :]
    assert [batch.join for batch in main] == [*claimed, "stream-stream"]
    assert all(case.spec.self_join for case in main[-1].cases) and main[-1].cases
    assert [(batch.join, batch.strategy.split("(")[0]) for batch in boundary] == [
        ("stream-stream", "kjoin.strategies.min_time_boundary_scenarios"),
        ("stream-table", "kjoin.strategies.versioned_gap_scenarios"),
    ]
    assert all(batch.cases for batch in boundary)
    behaviour = behaviour_for(report.kafka)
    offered = [batch for batch in main if offered_variants(batch.join, behaviour, VARIANTS)]
    assert offered and all(len(batch.cases) >= fuzz_profile.examples // 2 for batch in offered)
    if kafka is None:  # every other claimed version was fuzzed too, each with scenarios
        assert set(report.older) | {report.kafka} == set(REFERENCE.claim.kafka)
        fuzzed = {batch.kafka for batch in report.generated if batch.cases}
        assert fuzzed == set(REFERENCE.claim.kafka)
    # one candidate call per join kind at least: the self-joins go with the other stream-stream cases
    assert report.candidate_calls >= len({batch.join for batch in offered})
    again = (
        f"kjoin fuzz --candidate spark-reference{f' --kafka {kafka}' if kafka else ''} --seed {fuzz_seed} "
        f"--profile {fuzz_profile.name} --examples {fuzz_profile.examples} --save scenarios/regressions"
    )
    assert not report.failures, render_report(report, again)
