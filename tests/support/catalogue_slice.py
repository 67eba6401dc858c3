"""The bundled catalogue, loaded once per process, and the representative slice of it that the default tier
runs on Spark (the whole catalogue runs in the system tier; docs/testing.md, "Test tiers")."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from functools import cache

from kjoin.conformance.catalogue import Case, CaseSet, load_cases

GOLDEN = "scenarios/golden/"
"""Where the captured traces of real Kafka releases live (most of the catalogue's cases)."""
GOLDEN_EVERY = 16
"""The slice keeps every 16th golden-trace scenario (by id)."""


@cache
def bundled_catalogue() -> CaseSet:
    """``load_cases()`` of the bundled catalogue, once per process (several test modules parametrize over
    it when they are collected)."""
    return load_cases()


def catalogue_slice(cases: Sequence[Case], golden_every: int = GOLDEN_EVERY) -> tuple[Case, ...]:
    """Every hand-written case (seed tables, edge cases, Kafka's own tests, regressions) and the cases of
    every ``golden_every``-th golden-trace scenario of each release's trace file, by id: every join kind,
    era and store of the hand-written files, and captured traces of every release, at about a seventh of
    the cases."""
    by_file: dict[str, set[str]] = defaultdict(set)
    for case in cases:
        if case.source.startswith(GOLDEN):
            by_file[case.source].add(case.scenario)
    kept = {scenario for scenarios in by_file.values() for scenario in sorted(scenarios)[::golden_every]}
    return tuple(case for case in cases if not case.source.startswith(GOLDEN) or case.scenario in kept)
