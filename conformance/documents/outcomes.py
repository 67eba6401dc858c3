"""What checking one case found (``CaseOutcome``), and the oracle's side of it: Kafka's outputs, the
equivalence level a case is compared at, and its status:

* ``pass`` / ``fail``: the candidate agrees / differs;
* ``error``: the candidate failed on the case (crashed, timed out, returned unusable rows): a
  ``candidate-error`` divergence carries the message;
* ``declared``: it differs and a ``DeclaredDifference`` covers the case (shown with its reason);
* ``unexpected-pass``: a strict declared difference that did not show up;
* ``unknown``: the requested equivalence level cannot be decided;
* ``not-claimed``: outside the candidate's ``Claim`` (never a failure);
* ``not-applicable``: that Kafka version has no such join (the oracle says why).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, get_args

from kjoin.conformance.catalogue import Case
from kjoin.conformance.checker import CandidateFailure, Emitted, Mode, Verdict, check
from kjoin.conformance.documents.vocabulary import FAILING, OutcomeStatus
from kjoin.conformance.kafka_segments import TABLE_JOINS, kafka_segments
from kjoin.conformance.protocol import DeclaredDifference
from kjoin.oracle.behaviour import UnknownVersionError, behaviour_for
from kjoin.oracle.engine import run
from kjoin.oracle.errors import OracleError

__all__ = [
    "EQUIVALENCES",
    "Answer",
    "CaseOutcome",
    "Equivalence",
    "checked",
    "kafka_outputs",
    "resolve_mode",
    "status_of",
]

Equivalence = Literal["auto", "exact", "key-order", "multiset", "commit-points", "table"]
EQUIVALENCES: tuple[Equivalence, ...] = get_args(Equivalence)
Answer = Emitted | CandidateFailure
"""A candidate's answer for one case: its outputs, or why it gave none."""


@dataclass(frozen=True, slots=True)
class CaseOutcome:
    """What checking one case found. ``reason`` explains not-claimed, not-applicable and unknown."""

    case: Case
    status: OutcomeStatus
    mode: Mode | None = None
    verdict: Verdict | None = None
    expected: Emitted | None = None
    answer: Answer | None = None
    reason: str = ""
    declared: DeclaredDifference | None = None

    @property
    def failing(self) -> bool:
        """Whether this outcome makes the run fail."""
        return self.status in FAILING


def resolve_mode(requested: Equivalence, case: Case, answer: Answer, *, commit_points: bool = False) -> Mode:
    """``auto`` is ``commit-points`` for table results of a candidate that claims ``commit_points`` (a
    micro-batch port; the harness also says so for cached table-table scenarios of a candidate that claims
    ``record_caches``: ``harness.claims.at_commit_points``), else ``exact`` when the candidate reports
    ``idx``, else ``multiset``; ``table`` applies to table results only (stream results are compared as
    multisets then)."""
    if requested == "auto" and commit_points and case.join in TABLE_JOINS:
        return "commit-points"
    if requested == "auto":
        return "exact" if isinstance(answer, Emitted) and answer.causes_known else "multiset"
    if requested == "table" and case.join not in TABLE_JOINS:
        return "multiset"
    return requested


def kafka_outputs(case: Case) -> Emitted | str:
    """What Kafka ``case.kafka`` emits, from the oracle (causes known), or why it emits nothing: that Kafka
    has no such join, or fails on the input."""
    try:
        outputs = run(case.spec, case.records, behaviour_for(case.kafka, intended=case.intended))
    except (OracleError, UnknownVersionError) as error:
        return f"not applicable: {error}"
    return Emitted(tuple(outputs), causes_known=True)


def checked(expected: Emitted, answer: Answer, mode: Mode, case: Case) -> Verdict:
    """The verdict of ``answer`` at ``mode``: against ``expected``, or, at ``commit-points``, against what
    Kafka emits between commit points (``kafka_segments``); ``unknown`` when the oracle cannot say that
    (e.g. a cache it does not model in that era)."""
    if mode != "commit-points":
        return check(expected, answer, mode)
    behaviour = behaviour_for(case.kafka, intended=case.intended)
    try:
        return check(expected, answer, mode, segments=kafka_segments(case.spec, case.records, behaviour))
    except OracleError as error:
        return Verdict("unknown", mode, reason=f"commit points cannot be checked: {error}")


def status_of(verdict: Verdict, answer: Answer, declared: DeclaredDifference | None) -> OutcomeStatus:
    """A checked case's status: a candidate failure is ``error`` (never covered by a declaration); a
    declared difference turns a failure into ``declared`` and a strict one turns a pass into
    ``unexpected-pass``."""
    if isinstance(answer, CandidateFailure):
        return "error"
    if verdict.status == "unknown":
        return "unknown"
    if declared is None:
        return verdict.status
    if verdict.status == "fail":
        return "declared"
    return "unexpected-pass" if declared.strict else "pass"
