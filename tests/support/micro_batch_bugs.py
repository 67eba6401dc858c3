"""Copies of ``spark-stateful`` with a bug between micro-batches: test fixtures ONLY, never products.

``spark-stateful``'s join code (``KafkaTaskProcessor`` and the tasks it runs) is plain Python over Spark
state variables. Here it runs without ``transformWithStateInPandas``: a ``mapInPandas`` job (one Spark
task, pure Python inside) feeds each scenario's micro-batches, in order, to one processor whose state
variables are dicts. Exactly the micro-batches ``spark-stateful`` would get: ``steps_per_batch`` records
each, or a case's own split (``with_micro_batches``; docs/streaming.md#micro-batch-splits). With
``bug=None`` it is a faithful copy (a test checks it agrees with Kafka); the bugs are what a port that keeps
something outside Spark's state loses between two micro-batches:

* ``clock-lost``: the task's stream time and ``minTime`` are kept in a field of the processor, not in the
  ``clock`` state: every micro-batch starts with a fresh clock (the window stores' observed times and
  the insertion counter survive);
* ``held-lost``: the outer store of held non-joined records is a Python dict of the processor, not a
  ``MapState``: what a micro-batch holds is gone in the next one.

Neither shows on a scenario that fits one micro-batch: only where a boundary falls.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from functools import partial
from typing import TYPE_CHECKING, Any

from kjoin.conformance.catalogue import Case
from kjoin.conformance.checker import check
from kjoin.conformance.differential.shrink import Evaluate
from kjoin.conformance.documents.outcomes import CaseOutcome, kafka_outputs
from kjoin.conformance.harness.micro_batches import plan_of
from kjoin.conformance.protocol import INPUT_SCHEMA, SPEC_SCHEMA, Claim, DeclaredDifference

if TYPE_CHECKING:
    import pandas as pd
    from pyspark.sql import DataFrame, SparkSession

__all__ = ["MICRO_BATCH_BUGS", "MicroBatchBug", "clock_lost", "faithful", "held_lost", "in_process"]

BUGS = ("clock-lost", "held-lost")

CLAIM = Claim(
    joins=frozenset({"stream-stream"}),
    variants=frozenset({"inner", "left", "outer"}),
    kafka=("3.9",),
    stores=frozenset({"memory", "rocksdb"}),
)


class _Value:
    """A ``ValueState`` kept in a dict; ``forget`` names fields reset on every write (the planted bug)."""

    def __init__(self, forget: Mapping[int, Any] | None = None) -> None:
        self.row: tuple[Any, ...] | None = None
        self.forget = dict(forget or {})

    def exists(self) -> bool:
        return self.row is not None

    def get(self) -> tuple[Any, ...] | None:
        return self.row

    def update(self, row: tuple[Any, ...]) -> None:
        self.row = tuple(self.forget.get(position, value) for position, value in enumerate(row))


class _Map:
    """A ``MapState`` kept in a dict; ``volatile``: nothing written survives the micro-batch (the bug)."""

    def __init__(self, volatile: bool = False) -> None:
        self.entries: dict[tuple[Any, ...], tuple[Any, ...]] = {}
        self.volatile = volatile

    def iterator(self) -> Iterator[tuple[tuple[Any, ...], tuple[Any, ...]]]:
        return iter(list(self.entries.items()))

    def updateValue(self, key: tuple[Any, ...], value: tuple[Any, ...]) -> None:
        if not self.volatile:
            self.entries[tuple(key)] = tuple(value)

    def removeKey(self, key: tuple[Any, ...]) -> None:
        self.entries.pop(tuple(key), None)


class _Handle:
    """The ``StatefulProcessorHandle`` calls ``KafkaTaskProcessor.init`` makes, over dicts."""

    def __init__(self, bug: str | None) -> None:
        self.bug = bug

    def getValueState(self, name: str, schema: str) -> _Value:
        from kjoin.conformance.candidates.stateful.state import NO_TIMESTAMP

        lost = self.bug == "clock-lost" and name == "clock"
        return _Value({0: NO_TIMESTAMP, 1: None} if lost else None)  # stream_time, min_time

    def getMapState(self, name: str, key: str, value: str) -> _Map:
        return _Map(volatile=self.bug == "held-lost" and name == "outer_store")


@dataclass(frozen=True)
class MicroBatchBug:
    """``spark-stateful``'s join code fed in micro-batches in pure Python, with ``bug`` (or none)."""

    name: str
    bug: str | None
    claim: Claim = CLAIM
    declared_differences: tuple[DeclaredDifference, ...] = ()
    steps_per_batch: int = 8
    micro_batch_plan: Mapping[str, tuple[int, ...]] = field(default_factory=dict, compare=False)

    def with_micro_batches(self, plan: Mapping[str, tuple[int, ...]]) -> MicroBatchBug:
        return replace(self, micro_batch_plan=dict(plan))

    def run(self, spark: SparkSession, inputs: DataFrame, specs: DataFrame) -> DataFrame:
        from kjoin.conformance.candidates.stateful.processor import OUTPUT_DDL

        rows = inputs.join(specs, "scenario_id").coalesce(1)
        work = partial(_scenarios, self.bug, self.steps_per_batch, dict(self.micro_batch_plan))
        return rows.mapInPandas(work, OUTPUT_DDL)


MICRO_BATCH_BUGS: dict[str, MicroBatchBug] = {name: MicroBatchBug(f"stateful-{name}", name) for name in BUGS}
"""The planted micro-batch bugs by name."""


def faithful() -> MicroBatchBug:
    """The copy without a bug: ``--candidate support.micro_batch_bugs:faithful``."""
    return MicroBatchBug("stateful-copy", None)


def clock_lost() -> MicroBatchBug:
    """``--candidate support.micro_batch_bugs:clock_lost``."""
    return MICRO_BATCH_BUGS["clock-lost"]


def held_lost() -> MicroBatchBug:
    """``--candidate support.micro_batch_bugs:held_lost``."""
    return MICRO_BATCH_BUGS["held-lost"]


def _scenarios(
    bug: str | None, per_batch: int, plan: dict[str, tuple[int, ...]], frames: Iterator[pd.DataFrame]
) -> Iterator[pd.DataFrame]:
    """Every scenario of the partition (runs on a Spark worker)."""
    import pandas as pd

    from kjoin.conformance.candidates.stateful.processor import OUTPUT_COLUMNS

    frame = pd.concat(list(frames), ignore_index=True)
    records = frame.astype(object).where(frame.notna(), None).to_dict("records")
    yield pd.DataFrame(_emitted(bug, per_batch, plan, records), columns=OUTPUT_COLUMNS)


def _emitted(
    bug: str | None, per_batch: int, plan: Mapping[str, tuple[int, ...]], records: Sequence[dict[str, Any]]
) -> list[tuple[Any, ...]]:
    """What the copy emits for every scenario of ``records`` (input and spec columns each), fed micro-batch
    by micro-batch: ``per_batch`` records each, or a scenario's own split in ``plan``."""
    from kjoin.conformance.candidates.stateful.processor import KafkaTaskProcessor

    by_scenario: dict[str, list[dict[str, Any]]] = {}
    for record in sorted(records, key=lambda record: (str(record["scenario_id"]), int(record["idx"]))):
        by_scenario.setdefault(str(record["scenario_id"]), []).append(record)
    out: list[tuple[Any, ...]] = []
    for scenario, ordered in by_scenario.items():
        processor = KafkaTaskProcessor(str(ordered[0]["join"]))
        processor.init(_Handle(bug))  # type: ignore[arg-type]
        starts = plan.get(scenario)
        batches: dict[int, list[dict[str, Any]]] = {}
        for record in ordered:
            index = int(record["idx"])
            number = index // per_batch if starts is None else sum(start <= index for start in starts)
            batches.setdefault(number, []).append(record)
        for number in sorted(batches):
            out += processor.process_batch(scenario, batches[number])
    return out


def in_process(candidate: MicroBatchBug, calls: list[int] | None = None) -> Evaluate:
    """An ``Evaluate`` (``differential.shrink``) that checks cases against ``candidate`` without Spark: the
    same function its Spark job runs, over the harness's own input rows, answers split and checked the way
    the harness does (exact, as the candidate reports ``idx`` and ``seq``); counts calls in ``calls``."""

    def evaluate(cases: Sequence[Case]) -> dict[str, CaseOutcome]:
        from kjoin.conformance.harness.batching import _Row, _split, input_rows, spec_rows

        if calls is not None:
            calls.append(len(cases))
        specs = {row[0]: dict(zip(_names(SPEC_SCHEMA), row, strict=True)) for row in spec_rows(cases)}
        records = [
            {**specs[row[0]], **dict(zip(_names(INPUT_SCHEMA), row, strict=True))}
            for row in input_rows(cases)
        ]
        plan = {**candidate.micro_batch_plan, **plan_of(cases)}
        rows = [_Row(*row) for row in _emitted(candidate.bug, candidate.steps_per_batch, plan, records)]
        answers = _split(rows, cases, True)
        outcomes = {}
        for case in cases:
            expected = kafka_outputs(case)
            assert not isinstance(expected, str), expected
            answer = answers[case.id]
            verdict = check(expected, answer, "exact")
            outcomes[case.id] = CaseOutcome(case, verdict.status, "exact", verdict, expected, answer)
        return outcomes

    return evaluate


def _names(schema: str) -> list[str]:
    return [column.split()[0] for column in schema.split(",")]
