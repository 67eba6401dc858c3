"""A harness run: which cases a candidate claims, its answers (batched per join kind), and each outcome.

``HarnessRun`` is shared by the pytest plugin and ``kjoin run``. It starts Spark only when a claimed case
is first checked, runs the candidate once per join kind over every registered case of that kind, caches
the answers, and turns each case into a ``CaseOutcome``:

* ``pass`` / ``fail``: the candidate agrees / differs (or failed: ``candidate-error``);
* ``declared``: it differs and a ``DeclaredDifference`` covers the case (shown with its reason);
* ``unexpected-pass``: a strict declared difference that did not show up;
* ``unknown``: the requested equivalence level cannot be decided;
* ``not-claimed``: outside the candidate's ``Claim`` (never a failure);
* ``not-applicable``: that Kafka version has no such join (the oracle says why).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal, get_args

from kjoin.conformance.candidate import (
    Candidate,
    DeclaredDifference,
    declared_difference_for,
    unclaimed_because,
)
from kjoin.conformance.checker import CandidateFailure, Emitted, Mode, Verdict, check
from kjoin.conformance.harness.batching import Answer, run_batch
from kjoin.conformance.harness.cases import Case, expected_outputs
from kjoin.oracle.behaviour import UnknownVersionError
from kjoin.oracle.errors import OracleError
from kjoin.oracle.records import Output

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

__all__ = [
    "EQUIVALENCES",
    "OUTCOME_STATUSES",
    "BatchRecord",
    "CaseOutcome",
    "Equivalence",
    "HarnessRun",
    "OutcomeStatus",
    "resolve_mode",
    "status_of",
]

Equivalence = Literal["auto", "exact", "key-order", "multiset", "table"]
EQUIVALENCES: tuple[Equivalence, ...] = get_args(Equivalence)
OutcomeStatus = Literal[
    "pass", "fail", "declared", "unexpected-pass", "unknown", "not-claimed", "not-applicable"
]
OUTCOME_STATUSES: tuple[OutcomeStatus, ...] = get_args(OutcomeStatus)
FAILING: frozenset[OutcomeStatus] = frozenset({"fail", "unexpected-pass"})
TABLE_JOINS = frozenset({"table-table", "fk"})


@dataclass(frozen=True, slots=True)
class CaseOutcome:
    """What checking one case found. ``reason`` explains not-claimed, not-applicable and unknown."""

    case: Case
    status: OutcomeStatus
    mode: Mode | None = None
    verdict: Verdict | None = None
    expected: tuple[Output, ...] | None = None
    answer: Answer | None = None
    reason: str = ""
    declared: DeclaredDifference | None = None

    @property
    def failing(self) -> bool:
        """Whether this outcome makes the run fail."""
        return self.status in FAILING


@dataclass(frozen=True, slots=True)
class BatchRecord:
    """One candidate call (diagnostics, not part of results files: wall time is not reproducible)."""

    join: str
    cases: int
    jobs: int | None
    seconds: float


def resolve_mode(requested: Equivalence, case: Case, answer: Answer) -> Mode:
    """``auto`` is ``exact`` when the candidate reports ``idx``, else ``multiset``; ``table`` applies to
    table results only (stream results are compared as multisets then)."""
    if requested == "auto":
        return "exact" if isinstance(answer, Emitted) and answer.causes_known else "multiset"
    if requested == "table" and case.join not in TABLE_JOINS:
        return "multiset"
    return requested


@dataclass
class HarnessRun:
    """One candidate checked over registered cases, with one lazily started SparkSession."""

    candidate: Candidate
    spark_factory: Callable[[], SparkSession]
    equivalence: Equivalence = "auto"
    batches: list[BatchRecord] = field(default_factory=list)
    _registered: dict[str, Case] = field(default_factory=dict)
    _expected: dict[str, tuple[Output, ...] | str] = field(default_factory=dict)
    _answers: dict[str, Answer] = field(default_factory=dict)
    _spark: SparkSession | None = None

    def __post_init__(self) -> None:
        if self.equivalence not in EQUIVALENCES:
            allowed = ", ".join(EQUIVALENCES)
            raise ValueError(f"equivalence must be one of {allowed}, got {self.equivalence!r}")

    @property
    def spark(self) -> SparkSession:
        """The run's SparkSession, started on first use."""
        if self._spark is None:
            self._spark = self.spark_factory()
        return self._spark

    def unclaimed_because(self, case: Case) -> str | None:
        """Why ``case`` is outside the candidate's claim, or ``None``."""
        return unclaimed_because(self.candidate.claim, case)

    def declared_for(self, case: Case) -> DeclaredDifference | None:
        """The declared difference covering ``case``, if any."""
        return declared_difference_for(self.candidate, case)

    def register(self, cases: Iterable[Case]) -> None:
        """Cases whose answers are wanted; each join kind's registered cases go to the candidate together."""
        for case in cases:
            self._registered.setdefault(case.id, case)

    def expected(self, case: Case) -> tuple[Output, ...] | str:
        """The oracle's outputs for ``case``, or the reason that Kafka has no such join."""
        if case.id not in self._expected:
            try:
                self._expected[case.id] = expected_outputs(case)
            except (OracleError, UnknownVersionError) as error:
                self._expected[case.id] = f"not applicable: {error}"
        return self._expected[case.id]

    def outcome(self, case: Case) -> CaseOutcome:
        """Check one case (running the candidate over its join kind first if needed)."""
        self.register([case])
        unclaimed = self.unclaimed_because(case)
        if unclaimed is not None:
            return CaseOutcome(case, "not-claimed", reason=unclaimed)
        expected = self.expected(case)
        if isinstance(expected, str):
            return CaseOutcome(case, "not-applicable", reason=expected)
        if case.id not in self._answers:
            self._run_join_kind(case.join)
        answer = self._answers[case.id]
        mode = resolve_mode(self.equivalence, case, answer)
        verdict = check(expected, answer, mode, timestamps=case.timestamps)
        declared = self.declared_for(case)
        status = status_of(verdict, answer, declared)
        reason = verdict.reason if status == "unknown" else (declared.reason if declared else "")
        return CaseOutcome(case, status, mode, verdict, expected, answer, reason, declared)

    def outcomes(self, cases: Sequence[Case]) -> list[CaseOutcome]:
        """Every case's outcome, in the given order (each join kind runs once)."""
        self.register(cases)
        return [self.outcome(case) for case in cases]

    def _run_join_kind(self, join: str) -> None:
        """One candidate call over the registered, claimed, applicable cases of ``join`` without answers."""
        from kjoin.conformance.harness.spark_session import jobs_started

        batch = [
            case for case in self._registered.values()
            if case.join == join and case.id not in self._answers
            and self.unclaimed_because(case) is None and not isinstance(self.expected(case), str)
        ]
        spark = self.spark
        jobs_before, started = jobs_started(spark), time.perf_counter()
        self._answers.update(run_batch(spark, self.candidate, batch))
        jobs_after = jobs_started(spark)
        jobs = None if jobs_before is None or jobs_after is None else jobs_after - jobs_before
        self.batches.append(BatchRecord(join, len(batch), jobs, time.perf_counter() - started))


def status_of(verdict: Verdict, answer: Answer, declared: DeclaredDifference | None) -> OutcomeStatus:
    """A checked case's status: a declared difference turns a failure into ``declared`` (never a
    candidate error) and a strict one turns a pass into ``unexpected-pass``."""
    if verdict.status == "unknown":
        return "unknown"
    if isinstance(answer, CandidateFailure) or declared is None:
        return verdict.status
    if verdict.status == "fail":
        return "declared"
    return "unexpected-pass" if declared.strict else "pass"

