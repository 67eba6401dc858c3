"""Results documents for the report tests, built without Spark: cases from the catalogue or by hand, a
fake candidate's answers (e.g. the oracle's outputs as another Kafka version), and the harness's own
``case_result`` / ``results_document`` to write them, so the documents have the real schema.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from msgspec.structs import replace

from kjoin.conformance.catalogue import Case, case_id
from kjoin.conformance.checker import CandidateFailure, Emitted, Mode
from kjoin.conformance.documents.outcomes import CaseOutcome, checked, kafka_outputs, status_of
from kjoin.conformance.documents.results import candidate_json, case_result, results_document
from kjoin.conformance.protocol import Claim, DeclaredDifference
from kjoin.oracle.behaviour import behaviour_for
from kjoin.oracle.engine import run
from kjoin.oracle.errors import OracleError
from kjoin.oracle.records import JoinSpec, Output, Record, Window

__all__ = [
    "CLAIM_ALL",
    "FakeCandidate",
    "answered_by_version",
    "answered_ignoring",
    "document_of",
    "ignores_deletes",
    "make_case",
    "outcome_of",
    "retargeted",
    "with_outputs",
]

CLAIM_ALL = Claim(
    joins=frozenset({"stream-stream", "stream-table", "table-table", "fk"}),
    variants=frozenset({"inner", "left", "outer"}),
    kafka=("3.9",),
    versioned=True,
    stream_table_grace=True,
)

RUN = {
    "tool_version": "test",
    "pyspark_version": "test",
    "python_version": "3.11",
    "spark_master": "none",
    "kafka": None,
    "equivalence": "auto",
    "scenarios": ["(test)"],
}
"""Fixed run metadata (the real one names the installed versions)."""


@dataclass(frozen=True)
class FakeCandidate:
    """A candidate as the results file sees it (name, claim, declarations); never run."""

    name: str = "fake"
    claim: Claim = CLAIM_ALL
    declared_differences: tuple[DeclaredDifference, ...] = ()

    def run(self, spark: Any, inputs: Any, specs: Any) -> Any:
        raise NotImplementedError("report tests never run a candidate")


def make_case(
    scenario: str,
    records: Sequence[tuple[str, Any, str | None, int]],
    *,
    join: str = "stream-stream",
    variant: str = "left",
    kafka: str = "3.9",
    window: Window | None = None,
    intended: bool = False,
) -> Case:
    """A case from ``(side, key, value, ts)`` rows (stream-stream joins get a 10 ms window, grace 0)."""
    if join == "stream-stream" and window is None:
        window = Window(before=10, after=10, grace=0)
    spec = JoinSpec(join=join, variant=variant, window=window, stores="memory")  # type: ignore[arg-type]
    return Case(
        id=case_id(scenario, variant, kafka, intended),
        scenario=scenario,
        kafka=kafka,
        intended=intended,
        spec=spec,
        records=tuple(Record(*row) for row in records),
        source="tests/hand-built",
    )


def outcome_of(
    case: Case,
    answer: Emitted | CandidateFailure,
    *,
    mode: Mode = "exact",
    declared: DeclaredDifference | None = None,
) -> CaseOutcome:
    """Check ``answer`` against the oracle as the harness would (statuses pass, fail, declared)."""
    expected = kafka_outputs(case)
    assert not isinstance(expected, str), expected
    if isinstance(answer, Emitted) and not answer.causes_known and mode == "exact":
        mode = "multiset"
    verdict = checked(expected, answer, mode, case)
    status = status_of(verdict, answer, declared)
    reason = declared.reason if declared is not None else ""
    return CaseOutcome(case, status, mode, verdict, expected, answer, reason, declared)


def answered_by_version(version: str, *, causes: bool = True) -> Callable[[Case], Emitted | CandidateFailure]:
    """A fake candidate: the oracle's outputs for the case's inputs as Kafka ``version`` (a candidate error
    where that version has no such join)."""

    def answer(case: Case) -> Emitted | CandidateFailure:
        try:
            outputs = run(case.spec, case.records, behaviour_for(version, intended=case.intended))
        except OracleError as error:
            return CandidateFailure(f"no such join in Kafka {version}", f"OracleError: {error}")
        if not causes:
            outputs = [output._replace(cause=-1) for output in outputs]
        return Emitted(tuple(outputs), causes_known=causes)

    return answer


def answered_ignoring(
    ignored: Callable[[Case, int], bool], version: str = "3.9"
) -> Callable[[Case], Emitted]:
    """A fake candidate with a bug: it ignores the inputs ``ignored(case, index)`` picks (e.g. every
    delete) and otherwise is Kafka ``version``; causes are the original input indexes."""

    def answer(case: Case) -> Emitted:
        kept = [index for index in range(len(case.records)) if not ignored(case, index)]
        records = [case.records[index] for index in kept]
        outputs = run(case.spec, records, behaviour_for(version, intended=case.intended))
        return Emitted(tuple(o._replace(cause=kept[o.cause]) for o in outputs), causes_known=True)

    return answer


def ignores_deletes(case: Case, index: int) -> bool:
    """A table side's delete (a null value; the stream side of a stream-table join has none)."""
    record = case.records[index]
    table = case.join in ("table-table", "fk") or (case.join == "stream-table" and record.side == "right")
    return table and record.value is None


def document_of(outcomes: Iterable[CaseOutcome], candidate: FakeCandidate | None = None) -> dict[str, Any]:
    """The results document of ``outcomes`` (the harness's schema, fixed run metadata)."""
    return results_document(
        RUN,
        candidate_json(candidate or FakeCandidate()),
        [case_result(o) for o in outcomes],  # type: ignore[arg-type]
    )


def with_outputs(case: Case, outputs: Sequence[Output], *, causes: bool = True) -> Emitted:
    """An answer made of ``outputs`` (with or without their emitting inputs)."""
    if not causes:
        outputs = [output._replace(cause=-1) for output in outputs]
    return Emitted(tuple(outputs), causes_known=causes)


def retargeted(case: Case, kafka: str) -> Case:
    """``case`` run as another Kafka version (its id follows)."""
    return replace(case, kafka=kafka, id=case_id(case.scenario, case.variant, kafka, case.intended))
