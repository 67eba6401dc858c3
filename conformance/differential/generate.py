"""Draw N scenarios deterministically from the hypothesis strategies, as harness cases.

How: ``draw_examples`` runs a small ``@given`` collector under ``@seed`` with only the *generate* phase (no
example database, no shrinking, no health checks) and keeps what it was given, in short runs from seeds
derived from the given one (see there why). Why this way:

* it uses hypothesis's public API only (``given``, ``seed``, ``settings``, ``Phase``); ``strategy.example()``
  is meant for the REPL (it warns, and its examples are not reproducible), and ``ConjectureData`` is
  internal and changes between releases;
* the scenarios come from the same composable strategies the property tests use
  (``kjoin.strategies.join_scenarios``), with hypothesis's bias towards edge cases (equal
  timestamps, shared keys, boundary window sizes), which a hand-written ``random.Random`` generator would
  have to re-create;
* shrinking is not hypothesis's here: a candidate answers through Spark, and hypothesis shrinks one example
  at a time (hundreds of Spark jobs). ``conformance.differential.shrink`` reduces a failing scenario in
  batched rounds instead.

A seed reproduces the same scenarios with the same hypothesis version (``hypothesis.__version__`` is
recorded with every saved counterexample); the saved scenario itself is the durable record.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import TypeVar

import hypothesis
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from kjoin.conformance.catalogue import Case, case_id
from kjoin.conformance.differential.profiles import FuzzProfile
from kjoin.conformance.documents.outcomes import kafka_outputs
from kjoin.conformance.protocol import Claim
from kjoin.oracle.behaviour import Behaviour, behaviour_for, version_problem
from kjoin.oracle.records import JOIN_KINDS, STORE_KINDS, JoinKind, JoinSpec, Record, Variant
from kjoin.strategies import (
    JOIN_VARIANTS,
    as_self_joins,
    join_scenarios,
    min_time_boundary_scenarios,
    pass_stop_boundary_scenarios,
    versioned_gap_scenarios,
    with_production_settings,
)

__all__ = [
    "JOIN_ABBREVIATIONS",
    "RUN_LENGTH",
    "Generated",
    "draw_examples",
    "generate_cases",
    "generate_min_time_cases",
    "generate_versioned_gap_cases",
    "offered_variants",
    "strategy_label",
]

T = TypeVar("T")

JOIN_ABBREVIATIONS: dict[str, str] = {
    "stream-stream": "ss",
    "stream-table": "st",
    "table-table": "tt",
    "fk": "fk",
    "stream-globaltable": "gt",
}
"""Short join-kind names used in generated scenario ids."""


RUN_LENGTH = 10
"""Examples per hypothesis run in ``draw_examples``."""


def draw_examples(strategy: st.SearchStrategy[T], count: int, seed: int) -> list[T]:
    """Up to ``count`` examples of ``strategy``, the same ones for the same ``seed`` (and hypothesis
    version). Fewer come back when the strategy has fewer distinct examples.

    The examples come from short runs of ``RUN_LENGTH`` examples, run ``i`` seeded ``seed * 100000 + i``:
    within one run hypothesis explores by varying the choices of earlier examples, so a long run keeps
    circling a few specifications (with one seed out of three, 150 stream-stream scenarios in one run
    never closed a window inside its grace period); short independent runs spread out.
    """
    if count < 0:
        raise ValueError(f"count={count!r} must not be negative")
    drawn: list[T] = []
    run = 0
    while len(drawn) < count:
        batch = _one_run(strategy, min(RUN_LENGTH, count - len(drawn)), seed * 100_000 + run)
        if not batch:
            break
        drawn.extend(batch)
        run += 1
    return drawn[:count]


def _one_run(strategy: st.SearchStrategy[T], count: int, seed: int) -> list[T]:
    """One hypothesis run of the generate phase only: no example database, no shrinking, no health
    checks; the examples given to a ``@given`` collector."""
    drawn: list[T] = []

    @settings(
        max_examples=count,
        phases=[Phase.generate],
        database=None,
        deadline=None,
        derandomize=False,
        suppress_health_check=list(HealthCheck),
    )
    @hypothesis.seed(seed)
    @given(strategy)
    def collect(example: T) -> None:
        drawn.append(example)

    collect()
    return drawn[:count]


def offered_variants(join: JoinKind, behaviour: Behaviour, variants: Sequence[str]) -> tuple[Variant, ...]:
    """The ``variants`` a ``join`` has in ``behaviour``'s era: none for a foreign-key join before 2.4
    (KIP-213), no stream-globaltable join before 0.10.2 (KIP-99), no stream-table inner join before 0.10.2
    (KIP-77)."""
    if join == "fk" and not behaviour.has_foreign_key_join:
        return ()
    if join == "stream-globaltable" and not behaviour.has_global_table_joins:
        return ()
    offered = [v for v in JOIN_VARIANTS[join] if v in variants]
    if join == "stream-table" and not behaviour.has_stream_table_inner_join:
        offered = [v for v in offered if v != "inner"]
    return tuple(offered)


def strategy_label(join: JoinKind, kafka: str, profile: FuzzProfile, variants: Sequence[str]) -> str:
    """How a generated scenario was drawn, as saved with a counterexample (``strategy``)."""
    return (
        f"kjoin.strategies.join_scenarios({join!r}, behaviour_for({kafka!r}), "
        f"variants={list(variants)!r}, max_size={profile.max_size}, max_keys={profile.max_keys})"
    )


@dataclass(frozen=True, slots=True)
class Generated:
    """The runnable cases drawn for one join kind, and how they were drawn."""

    join: JoinKind
    strategy: str
    seed: int
    cases: tuple[Case, ...]
    drawn: int
    """Examples drawn, including duplicates and scenarios that Kafka cannot run (dropped)."""
    kafka: str = ""
    """The Kafka version the cases run as."""


@lru_cache(maxsize=64)
def generate_cases(
    join: JoinKind,
    kafka: str,
    *,
    profile: FuzzProfile,
    seed: int,
    claim: Claim,
    examples: int | None = None,
    intended: bool = False,
    production: bool = False,
    self_join: bool = False,
) -> Generated:
    """``examples`` (default: the profile's) scenarios of ``join`` that ``claim`` covers, run as Kafka
    ``kafka``. Duplicates and scenarios the oracle refuses (that Kafka has no such join, or fails on the
    input) are dropped. Ids read ``fuzz-<ss|st|tt|fk|gt>-<seed>-<n>``. Results are cached per arguments (they
    are immutable and deterministic), so candidates claiming the same joins share one drawing. With
    ``production`` the scenarios also draw production settings and wall clocks
    (``strategies.with_production_settings``). With ``self_join`` (stream-stream only) they are self-joins
    (``strategies.as_self_joins``: one stream, optimization ``none`` or ``all``), ids ``fuzz-sj-...``."""
    if join not in JOIN_KINDS:
        raise ValueError(f"join={join!r} must be one of {', '.join(JOIN_KINDS)}")
    behaviour = _era(kafka, intended)
    variants = offered_variants(join, behaviour, sorted(claim.variants))
    label = strategy_label(join, kafka, profile, variants)
    if not variants:
        return Generated(join, label, seed, (), 0, kafka)
    strategy = join_scenarios(
        join,
        behaviour,
        variants=variants,
        min_size=max(1, profile.max_size // 2),
        max_size=profile.max_size,
        max_keys=profile.max_keys,
        stores=[store for store in STORE_KINDS if store in claim.stores],
        versioned=claim.versioned,
        stream_table_grace=claim.stream_table_grace,
    )
    if self_join:
        if join != "stream-stream":
            raise ValueError(f"self_join: a self-join is a stream-stream join, not {join!r}")
        strategy = as_self_joins(strategy)
        label = f"kjoin.strategies.as_self_joins({label})"
    if production:
        strategy = with_production_settings(strategy, behaviour)
        label = f"kjoin.strategies.with_production_settings({label}, behaviour_for({kafka!r}))"
    drawn = draw_examples(strategy, profile.examples if examples is None else examples, seed)
    kind = "sj" if self_join else JOIN_ABBREVIATIONS[join]
    return Generated(join, label, seed, _as_cases(drawn, kind, seed, kafka, intended), len(drawn), kafka)


MIN_TIME_ID = "mt"
"""The id part of ``generate_min_time_cases``' 3.8+ scenarios: ``fuzz-mt-<seed>-<n>``."""
PASS_STOP_ID = "ps"
"""The id part of ``generate_min_time_cases``' 3.1-3.7 scenarios: ``fuzz-ps-<seed>-<n>``."""


@lru_cache(maxsize=64)
def generate_min_time_cases(
    kafka: str,
    *,
    profile: FuzzProfile,
    seed: int,
    claim: Claim,
    examples: int | None = None,
    intended: bool = False,
) -> Generated:
    """``examples`` (default: the profile's ``min_time_examples``) stream-stream outer and left joins that
    ``claim`` covers, run as Kafka ``kafka``, around where the emission pass of its era stops:

    * 3.8+: ``strategies.min_time_boundary_scenarios``: several held records per side, then stream time
      stepped across ``minTime + joinAfter + grace`` of the pass (KAFKA-15417, spec SS-22 to SS-25); ids
      ``fuzz-mt-<seed>-<n>``;
    * 3.1-3.7: ``strategies.pass_stop_boundary_scenarios``: stream time stepped to exactly ``ts + joinAfter +
      grace`` of a held record, where the pass stops (spec SS-18), then the other side's record at the
      window's edge; ids ``fuzz-ps-<seed>-<n>``.

    None for an era without spurious-free outer joins (before 3.1) or for a claim without outer and left
    joins. Drawn apart from ``generate_cases``, so adding them changes none of the scenarios it draws for
    any profile or seed."""
    behaviour = _era(kafka, intended)
    variants = tuple(v for v in ("outer", "left") if v in claim.variants)
    stores = [store for store in STORE_KINDS if store in claim.stores]
    min_time = behaviour.outer_join_closes_each_side_by_its_own_bound
    name = "min_time_boundary_scenarios" if min_time else "pass_stop_boundary_scenarios"
    label = f"kjoin.strategies.{name}(variants={list(variants)!r}, stores={stores!r})"
    if "stream-stream" not in claim.joins or not variants or not stores:
        return Generated("stream-stream", label, seed, (), 0, kafka)
    if not behaviour.has_spurious_free_outer_joins:
        return Generated("stream-stream", label, seed, (), 0, kafka)
    if min_time:
        strategy = min_time_boundary_scenarios(variants=variants, stores=stores)
    else:
        strategy = pass_stop_boundary_scenarios(variants=variants, stores=stores)
    count = profile.min_time_examples if examples is None else examples
    drawn = draw_examples(strategy, count, seed)
    kind = MIN_TIME_ID if min_time else PASS_STOP_ID
    return Generated(
        "stream-stream", label, seed, _as_cases(drawn, kind, seed, kafka, intended), len(drawn), kafka
    )


VERSIONED_GAP_ID = "vg"
"""The id part of ``generate_versioned_gap_cases``' scenarios: ``fuzz-vg-<seed>-<n>``."""


@lru_cache(maxsize=64)
def generate_versioned_gap_cases(
    kafka: str,
    *,
    profile: FuzzProfile,
    seed: int,
    claim: Claim,
    examples: int | None = None,
    intended: bool = False,
) -> Generated:
    """``examples`` (default: the profile's ``versioned_gap_examples``) stream-table joins of
    ``strategies.versioned_gap_scenarios`` that ``claim`` covers, run as Kafka ``kafka``: a versioned
    table's key deleted and set again, an out-of-order put exactly at the delete's timestamp, and stream
    records looking into the gap it fills (spec VS-6, VS-9). None before 3.5 (no versioned stores) or for
    a claim without stream-table joins over versioned tables, or without inner and left joins.

    Drawn apart from ``generate_cases`` (ids ``fuzz-vg-<seed>-<n>``), so adding them changes none of the
    scenarios it draws for any profile or seed."""
    behaviour = _era(kafka, intended)
    variants = tuple(v for v in ("inner", "left") if v in claim.variants)
    label = f"kjoin.strategies.versioned_gap_scenarios(variants={list(variants)!r})"
    if "stream-table" not in claim.joins or not claim.versioned or not variants:
        return Generated("stream-table", label, seed, (), 0, kafka)
    if not behaviour.has_versioned_stores:
        return Generated("stream-table", label, seed, (), 0, kafka)
    count = profile.versioned_gap_examples if examples is None else examples
    drawn = draw_examples(versioned_gap_scenarios(variants=variants), count, seed)
    return Generated(
        "stream-table",
        label,
        seed,
        _as_cases(drawn, VERSIONED_GAP_ID, seed, kafka, intended),
        len(drawn),
        kafka,
    )


def _era(kafka: str, intended: bool) -> Behaviour:
    """The behaviour the generated cases run as: Kafka ``kafka``'s (``intended``: its documented semantics);
    ``ValueError`` for a version the oracle does not know."""
    problem = version_problem(kafka)
    if problem is not None:
        raise ValueError(f"kafka: {kafka!r} {problem}")
    return behaviour_for(kafka, intended=intended)


def _as_cases(
    drawn: Sequence[tuple[JoinSpec, tuple[Record, ...]]], kind: str, seed: int, kafka: str, intended: bool
) -> tuple[Case, ...]:
    """The distinct, runnable ``drawn`` scenarios as cases ``fuzz-<kind>-<seed>-<n>``."""
    seen: set[tuple[JoinSpec, tuple[Record, ...]]] = set()
    cases: list[Case] = []
    for spec, records in drawn:
        if (spec, records) in seen:
            continue
        seen.add((spec, records))
        scenario = f"fuzz-{kind}-{seed}-{len(cases):04d}"
        case = Case(
            id=case_id(scenario, spec.variant, kafka, intended),
            scenario=scenario,
            kafka=kafka,
            intended=intended,
            spec=spec,
            records=records,
            source=f"generated (seed {seed})",
        )
        if _runnable(case):
            cases.append(case)
    return tuple(cases)


def _runnable(case: Case) -> bool:
    """Whether the oracle can say what Kafka emits (it refuses joins Kafka lacks or fails on)."""
    return not isinstance(kafka_outputs(case), str)
