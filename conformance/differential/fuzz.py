"""One fuzzing run: generate scenarios, check a candidate on all of them at once, shrink the failures.

1. ``generate_cases`` draws the profile's number of scenarios per claimed join kind, and as many self-joins
   when claimed (the candidate's ``Claim`` decides join kinds, variants, stores, versioned tables,
   stream-table grace and self-joins; ``generated_batches``) as the newest
   claimed version, and, unless one version is asked for, half as many again spread over the other
   claimed versions (at least ``MIN_PER_ERA`` each): every era a candidate claims is fuzzed. Stream-stream
   outer and left joins as 3.1+ also get scenarios around where the emission pass stops
   (``generate_min_time_cases``: ids ``fuzz-mt-...`` for 3.8+'s ``minTime``, ``fuzz-ps-...`` for 3.1-3.7),
   and stream-table joins over versioned tables as
   3.5+ scenarios whose out-of-order put fills a gap in a key's versions (``generate_versioned_gap_cases``,
   ids ``fuzz-vg-...``).
2. One ``HarnessRun`` checks them all: one candidate call per join kind, the oracle for what Kafka emits,
   the checker for the verdict, declared differences honoured (a declared difference is not a failure).
   Unless ``store_shape_batches`` is off, the scenarios of the join kinds that read versioned tables are
   checked again in batches of one store shape (which sides are versioned), one more call per shape whose
   versioned sides differ from the joint batch's (``harness.compositions``): a candidate whose answer
   depends on what else is in its batch is caught.
3. Up to ``shrink_failures`` failing cases (the smallest first, taking join kinds in turn) are shrunk
   together by ``conformance.differential.shrink``: one candidate call per join kind per round, then
   its final pass to a local minimum (no record, key or micro-batch boundary can go). A case that failed
   only in its store-shape batch is shrunk in store-shape batches (each reduction with the reductions of
   its own shape); one that failed in the joint batch too is shrunk as a joint case.

The run is deterministic for the same candidate, seed, profile and hypothesis version; it reads no clock
except to report how long it took (``FuzzReport.seconds``, never saved).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from kjoin.conformance.catalogue import Case
from kjoin.conformance.differential.generate import (
    Generated,
    generate_cases,
    generate_min_time_cases,
    generate_versioned_gap_cases,
)
from kjoin.conformance.differential.profiles import PROFILES, FuzzProfile
from kjoin.conformance.differential.shrink import Evaluate, Shrunk, complexity, local_minimum, shrink
from kjoin.conformance.documents.outcomes import CaseOutcome
from kjoin.conformance.harness.calls import SessionKeeper
from kjoin.conformance.harness.compositions import STORE_SHAPE, batch_groups, batch_suffix, by_store_shape
from kjoin.conformance.harness.micro_batches import Split, split_cases, with_default_split
from kjoin.conformance.harness.outcomes import HarnessRun
from kjoin.conformance.protocol import Candidate, Claim
from kjoin.oracle.behaviour import parse_version
from kjoin.oracle.records import JOIN_KINDS, JoinKind

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

__all__ = [
    "MIN_PER_ERA",
    "Counterexample",
    "FuzzReport",
    "fuzz",
    "fuzzed_versions",
    "generated_batches",
    "harness_evaluator",
]

MIN_PER_ERA = 8
"""Scenarios per join kind drawn at least for each older claimed version."""


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
    """What one run did and found: ``kafka`` the main version, ``older`` the other claimed versions also
    fuzzed. ``seconds`` is wall time (diagnostics; never saved)."""

    candidate: str
    kafka: str
    older: tuple[str, ...]
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
    """Check cases with one ``HarnessRun`` per evaluation (it calls the candidate per join kind and batch
    composition itself, ``compositions.batch_groups``), the cases taken group by group (the joint cases,
    then each store shape's) so the calls come in that order; appends the number of calls to ``calls``.
    A run per evaluation, not one for the whole fuzzing: a run keeps the answers it got, and each
    evaluation (the drawn cases, then each shrinking round's reductions) makes batches of its own."""

    def evaluate(cases: Sequence[Case]) -> dict[str, CaseOutcome]:
        harness = HarnessRun(candidate, spark)
        grouped = [case for group in batch_groups(cases) for case in group]
        found = {outcome.case.id: outcome for outcome in harness.outcomes(grouped)}
        calls.append(len(harness.batches))
        return found

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
    splits: Sequence[Split] = (),
    store_shape_batches: bool = True,
) -> FuzzReport:
    """Fuzz ``candidate`` as Kafka ``kafka``, or (default) as every version it claims, the newest with the
    profile's count (see the module's docstring); ``seed`` defaults to the profile's. ``joins`` narrows the
    claimed join kinds; ``examples`` and ``shrink_failures`` override the profile's. ``splits``: run every
    scenario under each micro-batch split (a micro-batched candidate only; without, such a candidate's
    cases carry its default split). ``store_shape_batches``: also check each scenario in a batch of its
    store shape only (see the module's docstring). ``spark`` is called when the candidate first runs, and
    again only if a candidate stopped the session it gave."""
    started = time.perf_counter()
    claim = candidate.claim
    count = profile.examples if examples is None else examples
    plan = fuzzed_versions(claim.kafka, count) if kafka is None else [(kafka, count)]
    chosen_seed = profile.seed if seed is None else seed
    generated = generated_batches(claim, plan, profile, chosen_seed, joins=joins, intended=intended)
    session = SessionKeeper(
        spark
    ).get  # one session for every evaluation, a new one if a candidate stopped it
    calls: list[int] = []
    evaluate = harness_evaluator(candidate, session, calls)
    drawn = [case for batch in generated for case in batch.cases]
    cases = split_cases(drawn, splits) if splits else with_default_split(drawn, candidate)
    if store_shape_batches:
        cases += by_store_shape(cases)
    checked = evaluate(cases) if cases else {}
    outcomes = tuple(checked[case.id] for case in cases)
    failing = _needing_their_batch(outcomes)
    limit = profile.shrink_failures if shrink_failures is None else shrink_failures
    chosen = _to_shrink(failing, limit)
    rounds = shrink(chosen, evaluate, rounds=profile.shrink_rounds, limit=profile.round_reductions)
    shrunk = local_minimum(rounds, evaluate)
    strategies = {(case.scenario, batch.kafka): batch.strategy for batch in generated for case in batch.cases}
    counterexamples = _distinct(
        Counterexample(item, chosen_seed, strategies[item.original.case.scenario, item.original.case.kafka])
        for item in shrunk
    )
    return FuzzReport(
        candidate=candidate.name,
        kafka=plan[0][0],
        older=tuple(version for version, _ in plan[1:]),
        intended=intended,
        profile=profile,
        seed=chosen_seed,
        generated=generated,
        outcomes=outcomes,
        counterexamples=counterexamples,
        candidate_calls=sum(calls),
        seconds=time.perf_counter() - started,
    )


def generated_batches(
    claim: Claim,
    plan: Sequence[tuple[str, int]],
    profile: FuzzProfile,
    seed: int,
    *,
    joins: Sequence[JoinKind] | None = None,
    intended: bool = False,
) -> tuple[Generated, ...]:
    """The scenarios to fuzz: for each (version, count) of ``plan``, ``count`` scenarios of each claimed
    join kind (narrowed by ``joins``), as many self-joins when the claim covers them (``Claim.self_joins``;
    spec SJ-1), and, for stream-stream outer and left joins as 3.1+, up to the profile's
    ``min_time_examples`` scenarios around where the emission pass stops (``generate_min_time_cases``),
    and, for stream-table joins over versioned tables as 3.5+, up to ``versioned_gap_examples`` scenarios
    looking into a gap an out-of-order put fills (``generate_versioned_gap_cases``); both drawn apart, so
    the others are the same with or without them."""
    wanted = [join for join in JOIN_KINDS if join in claim.joins and (joins is None or join in joins)]
    kinds = [(join, False) for join in wanted]
    if claim.self_joins and "stream-stream" in wanted:
        kinds.append(("stream-stream", True))
    batches: list[Generated] = []
    for version, share in plan:
        batches.extend(
            generate_cases(
                join,
                version,
                profile=profile,
                seed=seed,
                claim=claim,
                examples=share,
                intended=intended,
                self_join=self_join,
            )
            for join, self_join in kinds
        )
        boundaries = (
            ("stream-stream", profile.min_time_examples, generate_min_time_cases),
            ("stream-table", profile.versioned_gap_examples, generate_versioned_gap_cases),
        )
        for join, most, generator in boundaries:
            if join in wanted and most:
                found = generator(
                    version,
                    profile=profile,
                    seed=seed,
                    claim=claim,
                    examples=min(most, share),
                    intended=intended,
                )
                if found.cases:
                    batches.append(found)
    return tuple(batches)


def fuzzed_versions(claimed: Sequence[str], examples: int) -> list[tuple[str, int]]:
    """(version, scenarios per join kind): the newest claimed version with ``examples``, then each other
    claimed version, newest first, with an equal share of half as many again (at least ``MIN_PER_ERA``)."""
    versions = sorted(dict.fromkeys(claimed), key=parse_version, reverse=True)
    older = versions[1:]
    share = max(MIN_PER_ERA, -(-examples // 2 // len(older))) if older else 0
    return [(versions[0], examples), *((version, min(share, examples)) for version in older)]


def _needing_their_batch(outcomes: Sequence[CaseOutcome]) -> list[CaseOutcome]:
    """The failing outcomes, less those of a store-shape batch whose joint twin fails too (the same
    scenario; it is shrunk as a joint case)."""
    failing = [outcome for outcome in outcomes if outcome.status == "fail"]
    joint = {outcome.case.id for outcome in failing if outcome.case.batch != STORE_SHAPE}
    return [
        outcome
        for outcome in failing
        if outcome.case.batch != STORE_SHAPE or _joint_id(outcome.case) not in joint
    ]


def _joint_id(case: Case) -> str:
    """The id of the joint twin of a store-shape case (its id without ``~<shape>-batch``)."""
    return case.id.removesuffix(batch_suffix(case))


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
        content = (case.spec, case.records, case.kafka, case.intended, case.micro_batches)
        if content not in seen:
            seen.add(content)
            kept.append(item)
    return tuple(kept)
