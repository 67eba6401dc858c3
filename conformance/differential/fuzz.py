"""One fuzzing run: generate scenarios, check a candidate on all of them at once, shrink the failures.

1. ``generate_cases`` draws the profile's number of scenarios per claimed join kind (the candidate's
   ``Claim`` decides join kinds, variants, stores, versioned tables and stream-table grace).
2. One ``HarnessRun`` checks them all: one candidate call per join kind, the oracle for what Kafka emits,
   the checker for the verdict, declared differences honoured (a declared difference is not a failure).
3. Up to ``shrink_failures`` failing cases (the smallest first, taking join kinds in turn) are shrunk
   together by ``conformance.differential.shrink``: one candidate call per join kind per round.

The run is deterministic for the same candidate, seed, profile and hypothesis version; it reads no clock
except to report how long it took (``FuzzReport.seconds``, never saved).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from kjoin.conformance.catalogue import Case
from kjoin.conformance.differential.generate import Generated, generate_cases
from kjoin.conformance.differential.profiles import PROFILES, FuzzProfile
from kjoin.conformance.differential.shrink import Evaluate, Shrunk, complexity, shrink
from kjoin.conformance.harness.outcomes import CaseOutcome, HarnessRun
from kjoin.conformance.protocol import Candidate
from kjoin.oracle.behaviour import parse_version
from kjoin.oracle.records import JOIN_KINDS, JoinKind

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

__all__ = ["Counterexample", "FuzzReport", "fuzz", "harness_evaluator"]


@dataclass(frozen=True, slots=True)
class Counterexample:
    """A shrunk failure, with how its original scenario was drawn."""

    shrunk: Shrunk
    seed: int
    strategy: str

    @property
    def minimal(self) -> CaseOutcome:
        return self.shrunk.minimal


@dataclass(frozen=True, slots=True)
class FuzzReport:
    """What one run did and found. ``seconds`` is wall time (diagnostics; never saved)."""

    candidate: str
    kafka: str
    intended: bool
    profile: FuzzProfile
    seed: int
    generated: tuple[Generated, ...]
    outcomes: tuple[CaseOutcome, ...]
    counterexamples: tuple[Counterexample, ...]
    candidate_calls: int
    seconds: float

    @property
    def failures(self) -> tuple[CaseOutcome, ...]:
        """The generated cases on which the candidate fails."""
        return tuple(outcome for outcome in self.outcomes if outcome.status == "fail")


def harness_evaluator(candidate: Candidate, spark: Callable[[], SparkSession], calls: list[int]) -> Evaluate:
    """Check cases with a fresh ``HarnessRun`` (one candidate call per join kind), appending the number of
    candidate calls it made to ``calls``."""

    def evaluate(cases: Sequence[Case]) -> dict[str, CaseOutcome]:
        harness = HarnessRun(candidate, spark)
        outcomes = harness.outcomes(cases)
        calls.append(len(harness.batches))
        return {outcome.case.id: outcome for outcome in outcomes}

    return evaluate


def fuzz(
    candidate: Candidate,
    spark: Callable[[], SparkSession],
    *,
    kafka: str | None = None,
    seed: int | None = None,
    profile: FuzzProfile = PROFILES["ci"],
    examples: int | None = None,
    joins: Sequence[JoinKind] | None = None,
    intended: bool = False,
    shrink_failures: int | None = None,
) -> FuzzReport:
    """Fuzz ``candidate`` as Kafka ``kafka`` (default: the newest version it claims) with ``seed`` (default:
    the profile's). ``joins`` narrows the claimed join kinds; ``examples`` and ``shrink_failures`` override
    the profile's. ``spark`` is called at most once, when the candidate first runs."""
    started = time.perf_counter()
    claim = candidate.claim
    version = kafka or max(claim.kafka, key=parse_version)
    chosen_seed = profile.seed if seed is None else seed
    wanted = [join for join in JOIN_KINDS if join in claim.joins and (joins is None or join in joins)]
    generated = tuple(
        generate_cases(
            join,
            version,
            profile=profile,
            seed=chosen_seed,
            claim=claim,
            examples=examples,
            intended=intended,
        )
        for join in wanted
    )
    session = _once(spark)
    calls: list[int] = []
    evaluate = harness_evaluator(candidate, session, calls)
    cases = [case for batch in generated for case in batch.cases]
    checked = evaluate(cases) if cases else {}
    outcomes = tuple(checked[case.id] for case in cases)
    failing = [outcome for outcome in outcomes if outcome.status == "fail"]
    limit = profile.shrink_failures if shrink_failures is None else shrink_failures
    chosen = _to_shrink(failing, limit)
    shrunk = shrink(chosen, evaluate, rounds=profile.shrink_rounds, limit=profile.round_reductions)
    strategies = {batch.join: batch.strategy for batch in generated}
    counterexamples = _distinct(
        Counterexample(item, chosen_seed, strategies[item.original.case.join]) for item in shrunk
    )
    return FuzzReport(
        candidate=candidate.name,
        kafka=version,
        intended=intended,
        profile=profile,
        seed=chosen_seed,
        generated=generated,
        outcomes=outcomes,
        counterexamples=counterexamples,
        candidate_calls=sum(calls),
        seconds=time.perf_counter() - started,
    )


def _once(factory: Callable[[], SparkSession]) -> Callable[[], SparkSession]:
    """``factory`` called at most once; later calls return its first result."""
    made: list[SparkSession] = []

    def get() -> SparkSession:
        if not made:
            made.append(factory())
        return made[0]

    return get


def _to_shrink(failing: Sequence[CaseOutcome], limit: int) -> list[CaseOutcome]:
    """Up to ``limit`` failures, the smallest of each join kind first, then the next smallest, and so on."""
    by_join: dict[str, list[CaseOutcome]] = {}
    for outcome in sorted(failing, key=lambda o: (complexity(o.case), o.case.id)):
        by_join.setdefault(outcome.case.join, []).append(outcome)
    chosen: list[CaseOutcome] = []
    depth = 0
    while len(chosen) < limit and any(depth < len(group) for group in by_join.values()):
        chosen.extend(group[depth] for group in by_join.values() if depth < len(group))
        depth += 1
    return chosen[:limit]


def _distinct(counterexamples: Iterable[Counterexample]) -> tuple[Counterexample, ...]:
    """Counterexamples whose minimal scenarios differ (several failures often shrink to the same one)."""
    seen: set[object] = set()
    kept: list[Counterexample] = []
    for item in counterexamples:
        case = item.minimal.case
        content = (case.spec, case.records, case.kafka, case.intended)
        if content not in seen:
            seen.add(content)
            kept.append(item)
    return tuple(kept)
