"""A harness run: which cases a candidate claims, its answers (batched per join kind), and each outcome.

``HarnessRun`` is shared by the pytest plugin and ``kjoin run``. It starts Spark only when a claimed case
is first checked, runs the candidate once per join kind over every registered case of that kind (once more
per store shape for the cases that state a store-shape batch, ``compositions.batch_groups``;
docs/testing.md, "Batch compositions"), caches the answers, and turns each case into a ``CaseOutcome``
(``kjoin.conformance.documents.outcomes`` lists the statuses).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from kjoin.conformance.catalogue import Case
from kjoin.conformance.checker import Emitted
from kjoin.conformance.documents.outcomes import (
    EQUIVALENCES,
    Answer,
    CaseOutcome,
    Equivalence,
    checked,
    kafka_outputs,
    resolve_mode,
    status_of,
)
from kjoin.conformance.harness.calls import Caller, CallProgress, CallRecord, SessionKeeper
from kjoin.conformance.harness.claims import at_commit_points, declared_difference_for, unclaimed_because
from kjoin.conformance.harness.compositions import batch_groups
from kjoin.conformance.protocol import Candidate, DeclaredDifference

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

__all__ = ["HarnessRun"]


@dataclass
class HarnessRun:
    """One candidate checked over registered cases, with one lazily started (and, if the candidate stops
    it, restarted) SparkSession and guarded calls (``harness.calls``)."""

    candidate: Candidate
    spark_factory: Callable[[], SparkSession]
    equivalence: Equivalence = "auto"
    timeout: float | None = None
    on_call: Callable[[dict[str, Any]], None] | None = None
    _registered: dict[str, Case] = field(default_factory=dict)
    _expected: dict[str, Emitted | str] = field(default_factory=dict)
    _answers: dict[str, Answer] = field(default_factory=dict)
    _caller: Caller | None = None

    def __post_init__(self) -> None:
        if self.equivalence not in EQUIVALENCES:
            allowed = ", ".join(EQUIVALENCES)
            raise ValueError(f"equivalence must be one of {allowed}, got {self.equivalence!r}")
        self.session = SessionKeeper(self.spark_factory)
        self._caller = Caller(self.candidate, self.session, self.timeout, on_call=self.on_call)

    @property
    def spark(self) -> SparkSession:
        """The run's SparkSession, started on first use."""
        return self.session.get()

    def watch(self, on_wait: Callable[[CallProgress], None] | None) -> None:
        """Call ``on_wait`` about once a second while a candidate call runs (progress of its Spark tasks)."""
        assert self._caller is not None
        self._caller.on_wait = on_wait

    @property
    def batches(self) -> list[CallRecord]:
        """Every candidate call so far."""
        assert self._caller is not None
        return self._caller.records

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

    def expected(self, case: Case) -> Emitted | str:
        """The oracle's outputs for ``case``, or the reason that Kafka has no such join."""
        if case.id not in self._expected:
            self._expected[case.id] = kafka_outputs(case)
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
            self._run_batch_of(case)
        answer = self._answers[case.id]
        mode = resolve_mode(
            self.equivalence, case, answer, commit_points=at_commit_points(self.candidate.claim, case)
        )
        verdict = checked(expected, answer, mode, case)
        declared = self.declared_for(case)
        status = status_of(verdict, answer, declared)
        reason = verdict.reason if status == "unknown" else (declared.reason if declared else "")
        return CaseOutcome(case, status, mode, verdict, expected, answer, reason, declared)

    def outcomes(self, cases: Sequence[Case]) -> list[CaseOutcome]:
        """Every case's outcome, in the given order (each join kind runs once)."""
        self.register(cases)
        return [self.outcome(case) for case in cases]

    def _run_batch_of(self, case: Case) -> None:
        """One candidate call over the registered, claimed, applicable cases without answers of ``case``'s
        join kind and batch composition (``compositions.batch_groups``: the joint cases together, a
        store-shape case with the cases of its shape)."""
        pending = [
            other
            for other in self._registered.values()
            if other.join == case.join
            and other.id not in self._answers
            and self.unclaimed_because(other) is None
            and not isinstance(self.expected(other), str)
        ]
        batch = next(group for group in batch_groups(pending) if any(other.id == case.id for other in group))
        assert self._caller is not None
        self._answers.update(self._caller.answers(case.join, batch))
