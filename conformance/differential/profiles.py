"""Fuzzing profiles: how much to generate and how hard to shrink, for CI and for nightly runs.

A profile is plain data. ``ci`` keeps a run to a few Spark jobs per candidate (one candidate call per join
kind to find failures, one per shrink round); ``deep`` generates many more, longer scenarios over more keys
and shrinks more failures. The pytest option ``--kjoin-profile`` (or ``$KJOIN_PROFILE``) picks the profile of
the differential tests and of the oracle property tests; ``kjoin fuzz --profile`` the command's. Seeds are
fixed by default so that every run of a profile checks the same scenarios (docs/testing.md); a nightly job
passes its own (``--kjoin-seed``, ``$KJOIN_SEED``, ``kjoin fuzz --seed``) and prints it.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from hypothesis import settings

__all__ = [
    "PROFILES",
    "PROFILE_ENV",
    "SEED_ENV",
    "FuzzProfile",
    "active_profile",
    "active_seed",
    "profile_named",
    "property_settings",
]

PROFILE_ENV = "KJOIN_PROFILE"
SEED_ENV = "KJOIN_SEED"


@dataclass(frozen=True, slots=True)
class FuzzProfile:
    """How much one fuzzing run does."""

    name: str
    examples: int
    """Generated scenarios per join kind."""
    max_size: int
    """Records per generated scenario, at most."""
    max_keys: int
    """Keys per side (``k1..``), at most."""
    shrink_failures: int
    """Failing scenarios shrunk per run (the smallest first, one join kind after another)."""
    shrink_rounds: int
    """Reduction rounds per failure, at most (each round is one candidate call per join kind)."""
    round_reductions: int
    """Reductions tried per failure in one round, at most."""
    property_examples: int
    """``max_examples`` of each oracle property test (and era)."""
    seed: int
    """The seed used when none is given."""
    min_time_examples: int = 0
    """Scenarios per fuzzed 3.1+ version, at most (besides ``examples``; a version fuzzed with fewer
    ``examples`` gets as many): stream-stream outer and left joins around where the emission pass stops,
    ``strategies.min_time_boundary_scenarios`` (3.8+) or ``strategies.pass_stop_boundary_scenarios``
    (3.1-3.7; ``generate.generate_min_time_cases``)."""
    versioned_gap_examples: int = 0
    """Scenarios of ``strategies.versioned_gap_scenarios`` per fuzzed 3.5+ version, at most (besides
    ``examples``; a version fuzzed with fewer ``examples`` gets as many): stream-table joins looking into a
    versioned table's gap filled by an out-of-order put (``generate.generate_versioned_gap_cases``)."""


PROFILES: dict[str, FuzzProfile] = {
    "ci": FuzzProfile(
        name="ci",
        examples=150,
        max_size=8,
        max_keys=2,
        shrink_failures=1,
        shrink_rounds=10,
        round_reductions=400,
        property_examples=30,
        seed=20240601,
        min_time_examples=24,
        versioned_gap_examples=12,
    ),
    "deep": FuzzProfile(
        name="deep",
        examples=2000,
        max_size=14,
        max_keys=3,
        shrink_failures=5,
        shrink_rounds=40,
        round_reductions=1500,
        property_examples=1000,
        seed=20240601,
        min_time_examples=300,
        versioned_gap_examples=150,
    ),
}
"""The bundled profiles by name."""


def profile_named(name: str) -> FuzzProfile:
    """The profile called ``name``; ``ValueError`` names the known ones."""
    try:
        return PROFILES[name]
    except KeyError:
        raise ValueError(f"unknown fuzzing profile {name!r} (known: {', '.join(PROFILES)})") from None


def active_profile() -> FuzzProfile:
    """The profile named by ``$KJOIN_PROFILE`` (set by ``--kjoin-profile``), else ``ci``."""
    return profile_named(os.environ.get(PROFILE_ENV, "").strip() or "ci")


def active_seed(profile: FuzzProfile) -> int:
    """The seed in ``$KJOIN_SEED`` (set by ``--kjoin-seed``), else ``profile.seed``."""
    text = os.environ.get(SEED_ENV, "").strip()
    if not text:
        return profile.seed
    try:
        return int(text)
    except ValueError:
        raise ValueError(f"{SEED_ENV}={text!r} is not an integer seed") from None


def property_settings(profile: FuzzProfile) -> settings:
    """Hypothesis settings of the oracle property tests under ``profile``: derandomized (the same examples
    on every run), no example database (nothing outside the repository changes the examples), no deadline
    (a shared CI machine is slow at times)."""
    from hypothesis import HealthCheck, settings

    return settings(
        max_examples=profile.property_examples,
        derandomize=True,
        database=None,
        deadline=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    )
