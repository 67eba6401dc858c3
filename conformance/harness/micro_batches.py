"""Micro-batch splits: how many processing steps a streaming candidate is fed per micro-batch, as a test
dimension (docs/streaming.md#micro-batch-splits).

A streaming candidate (the ``streaming_candidate`` adapter, ``spark-stateful``) is fed a scenario's records
in micro-batches. Kafka Streams has no micro-batches: a port must give the same answer however its input
is cut, and a port that loses a clock or a held record between micro-batches only shows it where a
boundary falls. ``--steps-per-batch 1,2,8,random:SEED`` runs every case under each split:

* ``N``: ``N`` records per micro-batch (a boundary before record ``N``, ``2N``, ...);
* ``random:SEED``: micro-batches of one to ``RANDOM_MOST`` records, drawn per case from ``SEED`` and the
  case's scenario, variant and version (the same case gets the same split in every run).

A case run under a split carries it (``Case.micro_batches``, the record indices that start a micro-batch)
and its id ends in ``@<split>``; a candidate that can be fed given splits (``MicroBatched``) gets them
per call (``micro_batched``). Pure Python: no Spark here.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

from msgspec.structs import replace

from kjoin.conformance.catalogue import Case, MicroBatches, case_id
from kjoin.conformance.harness.compositions import batch_suffix
from kjoin.conformance.protocol import Candidate

__all__ = [
    "NOT_STREAMING",
    "RANDOM_MOST",
    "MicroBatched",
    "Split",
    "default_split",
    "is_micro_batched",
    "kept_records",
    "micro_batched",
    "parse_splits",
    "plan_of",
    "split_case_id",
    "split_cases",
    "with_default_split",
    "without_start",
]

NOT_STREAMING = (
    "candidate {name!r} is not fed in micro-batches (a streaming_candidate job or spark-stateful is; "
    "docs/streaming.md#micro-batch-splits)"
)
"""Why ``--steps-per-batch`` does not apply to a candidate (``name``)."""

RANDOM_MOST = 4
"""The most records in one micro-batch of a ``random:SEED`` split (short scenarios get boundaries too)."""


@runtime_checkable
class MicroBatched(Protocol):
    """A candidate fed in micro-batches: ``steps_per_batch`` records per micro-batch unless told otherwise;
    ``with_micro_batches`` returns the same candidate feeding each scenario id of ``plan`` its own
    micro-batches (the record indices that start one)."""

    steps_per_batch: int

    def with_micro_batches(self, plan: Mapping[str, tuple[int, ...]]) -> Any: ...


def is_micro_batched(candidate: object) -> bool:
    """Whether ``candidate`` can be fed given micro-batch splits."""
    return isinstance(candidate, MicroBatched)


@dataclass(frozen=True, slots=True)
class Split:
    """One ``--steps-per-batch`` item: ``size`` records per micro-batch, or a random split from ``seed``."""

    label: str
    size: int | None = None
    seed: int | None = None

    def starts(self, case: Case) -> tuple[int, ...]:
        """The record indices of ``case`` that begin a micro-batch under this split."""
        count = len(case.records)
        if self.size is not None:
            return tuple(range(self.size, count, self.size))
        drawer = random.Random(f"{self.seed}:{case.scenario}:{case.variant}:{case.kafka}:{case.intended}")
        starts: list[int] = []
        at = drawer.randint(1, RANDOM_MOST)
        while at < count:
            starts.append(at)
            at += drawer.randint(1, RANDOM_MOST)
        return tuple(starts)

    def of(self, case: Case) -> MicroBatches:
        return MicroBatches(self.label, self.starts(case))


def parse_splits(text: str) -> tuple[Split, ...]:
    """``"1,2,8,random:7"`` as splits; ``ValueError`` says which item is wrong and why."""
    splits: list[Split] = []
    for item in (part.strip() for part in text.split(",")):
        if item.startswith("random:"):
            seed = item.removeprefix("random:")
            if not seed.lstrip("-").isdigit():
                raise ValueError(f"{item!r}: the seed after 'random:' must be an integer")
            splits.append(Split(f"random:{int(seed)}", seed=int(seed)))
        elif item.isdigit() and int(item) >= 1:
            splits.append(Split(str(int(item)), size=int(item)))
        else:
            raise ValueError(f"{item!r} is neither a number of steps (1 or more) nor random:SEED")
    labels = [split.label for split in splits]
    if len(set(labels)) != len(labels):
        raise ValueError(f"{text!r} names a split twice")
    return tuple(splits)


def default_split(candidate: object) -> Split | None:
    """The split a micro-batched candidate uses when given none (``None`` for other candidates)."""
    if not is_micro_batched(candidate):
        return None
    size = int(candidate.steps_per_batch)  # type: ignore[attr-defined]
    return Split(str(size), size=size)


def split_case_id(case: Case) -> str:
    """``case``'s id from its scenario, variant, version, split (``...@8`` under a split) and batch
    composition (``...~left-versioned-batch``, ``compositions.batch_suffix``)."""
    plain = case_id(case.scenario, case.variant, case.kafka, case.intended)
    split = "" if case.micro_batches is None else f"@{case.micro_batches.split}"
    return f"{plain}{split}{batch_suffix(case)}"


def split_cases(cases: Iterable[Case], splits: Sequence[Split]) -> list[Case]:
    """Every case under every split (ids ``<id>@<split>``), split by split in the cases' order."""
    listed = list(cases)
    return [_under(case, split.of(case)) for split in splits for case in listed]


def with_default_split(cases: Iterable[Case], candidate: object) -> list[Case]:
    """``cases`` carrying the micro-batches a micro-batched ``candidate`` feeds them by default (ids kept),
    so that results say where the boundaries were; other candidates' cases unchanged."""
    split = default_split(candidate)
    if split is None:
        return list(cases)
    return [case if case.micro_batches else replace(case, micro_batches=split.of(case)) for case in cases]


def _under(case: Case, micro_batches: MicroBatches) -> Case:
    split = replace(case, micro_batches=micro_batches)
    return replace(split, id=split_case_id(split))


def micro_batched(candidate: Candidate, cases: Sequence[Case]) -> Candidate:
    """``candidate`` told each case's micro-batches when it can be fed them and some case has them."""
    plan = plan_of(cases)
    if not plan or not is_micro_batched(candidate):
        return candidate
    fed: Candidate = candidate.with_micro_batches(plan)  # type: ignore[attr-defined]
    return fed


def without_start(micro_batches: MicroBatches, start: int) -> MicroBatches:
    """The split with the boundary before record ``start`` removed (its two micro-batches merged)."""
    return MicroBatches(micro_batches.split, tuple(s for s in micro_batches.starts if s != start))


def kept_records(micro_batches: MicroBatches, kept: Sequence[int]) -> MicroBatches:
    """The split of a case reduced to the records ``kept`` (indices in increasing order): a
    boundary stays between two kept records that were in different micro-batches."""
    batch = [micro_batches.batch_of(index) for index in kept]
    starts = tuple(position for position in range(1, len(kept)) if batch[position] != batch[position - 1])
    return MicroBatches(micro_batches.split, starts)


def plan_of(cases: Iterable[Case]) -> Mapping[str, tuple[int, ...]]:
    """Each case id's micro-batch starts (cases without a split left out)."""
    return {case.id: case.micro_batches.starts for case in cases if case.micro_batches is not None}
