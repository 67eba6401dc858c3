"""Which behaviour flags scenarios reach (``conformance.differential.reach``), without Spark.

The CI profile reaches every flag in force in every era ``spark-reference`` claims: for each rule of an era
there is a generated scenario on which an oracle with that one rule of another era says something else.
The flags the oracle calls not in force are really inert there: no scenario reaches them.

Each era's generated scenarios cost a few CPU-seconds: the default tier checks the newest claimed era
(and one era for the inert flags), the system tier every one (``support.tiers.default_tier_keeps``).
"""

from __future__ import annotations

from functools import cache

import pytest

from kjoin.conformance.catalogue import Case, load_cases
from kjoin.conformance.catalogue.load import CATALOGUE_ROOT
from kjoin.conformance.differential.generate import generate_cases
from kjoin.conformance.differential.profiles import PROFILES
from kjoin.conformance.differential.reach import decisive_flags, flag_reach
from kjoin.conformance.protocol import load_candidate
from kjoin.oracle.behaviour import READ_ONLY_WHERE, behaviour_for, flags_for, flags_in_force
from kjoin.oracle.records import JOIN_KINDS
from support.tiers import default_tier_keeps

CLAIM = load_candidate("spark-reference").claim


@cache
def _ci_cases(version: str) -> tuple[Case, ...]:
    profile = PROFILES["ci"]
    return tuple(
        case
        for join in JOIN_KINDS
        for case in generate_cases(join, version, profile=profile, seed=profile.seed, claim=CLAIM).cases
    )


@pytest.mark.parametrize("version", default_tier_keeps(CLAIM.kafka, keep={CLAIM.kafka[-1]}))
def test_ci_profile_reaches_every_flag_in_force(version: str) -> None:
    reach = flag_reach(version, _ci_cases(version))
    assert reach.scenarios > 300 and len(reach.in_force) >= 11
    assert reach.missed == (), (
        f"the ci profile's {reach.scenarios} scenarios as Kafka {version} never make these flags decisive: "
        f"{', '.join(reach.missed)}"
    )


@pytest.mark.parametrize("version", default_tier_keeps(["0.10.1", "2.3", "3.1", "3.9", "4.3"], keep={"4.3"}))
def test_flags_not_in_force_are_inert(version: str) -> None:
    behaviour = behaviour_for(version)
    for case in _ci_cases(version):
        idle = [name for name in flags_for(case.join) if name not in flags_in_force(case.join, behaviour)]
        assert decisive_flags(case, idle) == [], f"{case.id}: a flag called not in force decides it"


def test_in_force_reads_the_era() -> None:
    assert "rocksdb_segments_expire_by_retention" in flags_in_force("stream-stream", behaviour_for("3.3"))
    assert "rocksdb_segments_expire_by_retention" not in flags_in_force("stream-stream", behaviour_for("3.4"))
    assert "outer_join_min_time_is_last_visited" not in flags_in_force("stream-stream", behaviour_for("3.7"))
    assert "outer_join_min_time_is_last_visited" in flags_in_force("stream-stream", behaviour_for("3.9"))
    assert "has_versioned_stores" not in flags_in_force("table-table", behaviour_for("3.4"))
    assert "has_versioned_stores" in flags_in_force("table-table", behaviour_for("3.5"))
    assert "null_key_fails_table_join" not in flags_in_force("table-table", behaviour_for("0.10.1"))
    assert "null_key_fails_table_join" in flags_in_force("table-table", behaviour_for("0.10.2"))
    assert set(READ_ONLY_WHERE) <= (
        set(flags_for("stream-stream")) | set(flags_for("fk")) | set(flags_for("stream-globaltable"))
    )
    fails = "null_mapped_key_fails_global_join"
    assert fails not in flags_in_force("stream-globaltable", behaviour_for("1.0"))
    assert fails in flags_in_force("stream-globaltable", behaviour_for("2.6"))
    assert fails not in flags_in_force("stream-globaltable", behaviour_for("2.7"))


def test_a_catalogue_case_reaches_the_rule_it_was_written_for() -> None:
    path = CATALOGUE_ROOT / "stream_stream" / "rocksdb-segment-expiry-before-3-4.toml"
    cases = load_cases([path]).cases
    reached = {name for case in cases for name in decisive_flags(case)}
    assert "rocksdb_window_expiry_is_exact" in reached


def test_nothing_is_reached_without_scenarios() -> None:
    reach = flag_reach("3.9", ())
    assert reach.scenarios == 0 and reach.in_force == () and reach.missed == ()
