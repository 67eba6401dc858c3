"""Batch compositions: which other cases a candidate gets a case with, as a test dimension of the fuzzer
(docs/testing.md, "Batch compositions").

A candidate gets every case of a join kind in one call (``HarnessRun``). A port may choose a path per call:
spark-reference skips its versioned-table machinery when no scenario of the batch has a versioned table.
Kafka Streams has no batches, so a port must answer a case the same whatever else is in its batch; one
whose answer depends on its batch mates shows it only in a batch that takes the other path. Beside the
joint batch (every case of a join kind), the fuzzer checks each case again in a batch of the cases of its
own *store shape* only, the sides in a versioned store (``STORE_SHAPES``), in the join kinds that read
versioned tables (table-table, foreign-key, stream-table). A shape's batch is made only when the versioned
sides it holds differ from the joint batch's (``VERSIONED_SIDES``): a port that chooses its path by which
sides of its batch are versioned takes the joint batch's path for a batch with the same sides. So the
joint batch of one shape makes none, and a two-sided shape beside one-sided ones makes none either: its
sides (left, right, both on one scenario) are the joint batch's. Each batch costs one candidate call, about
as much Spark work for twenty scenarios as for two hundred (docs/testing.md, "Batch compositions").

A case so checked carries ``Case.batch == STORE_SHAPE`` and its id ends in ``~<shape>-batch``
(``...[inner-4.0.1]~left-versioned-batch``). Its shape is read from its specification each time, so a
shrunk case that lost a versioned side is checked with the cases of its new shape. The shapes and the id
suffix are case data (``catalogue.batches``): a saved counterexample states its batch (``batch`` in its
line), and ``HarnessRun`` (``kjoin run``, the pytest plugin) calls the candidate per ``batch_groups`` too.
Pure Python: no Spark.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Final

from msgspec.structs import replace

from kjoin.conformance.catalogue import Case
from kjoin.conformance.catalogue.batches import STORE_SHAPE, STORE_SHAPES, batch_suffix, store_shape

__all__ = [
    "STORE_SHAPE",
    "STORE_SHAPES",
    "VERSIONED_SIDES",
    "batch_groups",
    "batch_suffix",
    "by_store_shape",
    "composition_words",
    "store_shape",
]

VERSIONED_SIDES: Final = {
    "unversioned": frozenset[str](),
    "left-versioned": frozenset({"left"}),
    "right-versioned": frozenset({"right"}),
    "both-versioned": frozenset({"left", "right", "both"}),
}
"""What a batch of each shape holds for a port to branch on: a left versioned table, a right one, a
scenario with both."""


def by_store_shape(cases: Iterable[Case]) -> list[Case]:
    """Copies of ``cases`` to check in batches of one store shape (``Case.batch``, ids ``...~<shape>-batch``):
    those of a shape whose versioned sides differ from the joint batch of its join kind (the union of its
    shapes' sides; see the module's docstring). In the cases' order."""
    listed = list(cases)
    joint: dict[str, frozenset[str]] = {}
    for case in listed:
        joint[case.join] = joint.get(case.join, frozenset()) | VERSIONED_SIDES[store_shape(case)]
    return [
        _in_shape_batch(case) for case in listed if VERSIONED_SIDES[store_shape(case)] != joint[case.join]
    ]


def _in_shape_batch(case: Case) -> Case:
    marked = replace(case, batch=STORE_SHAPE)
    return replace(marked, id=case.id + batch_suffix(marked))


def batch_groups(cases: Sequence[Case]) -> list[list[Case]]:
    """``cases`` as the groups to check with one ``HarnessRun`` each (one candidate call per join kind in
    a group): the joint cases together, then the store-shape cases of each shape (empty groups left out)."""
    joint = [case for case in cases if case.batch != STORE_SHAPE]
    shaped = [
        [case for case in cases if case.batch == STORE_SHAPE and store_shape(case) == shape]
        for shape in STORE_SHAPES
    ]
    return [group for group in (joint, *shaped) if group]


def composition_words(case: Case) -> str:
    """The batch a case was checked in, for messages: ``in the joint batch of its join kind`` or ``in a
    batch of left-versioned scenarios only``."""
    if case.batch == STORE_SHAPE:
        return f"in a batch of {store_shape(case)} scenarios only"
    return "in the joint batch of its join kind"
