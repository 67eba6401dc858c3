"""The end-to-end job's own two-partition merge (``endtoend.ordering``) orders a task's records exactly as
the oracle's simulation of Kafka's ``PartitionGroup`` (spec TK-2), ties included, and a case put in that
order stays in it (TK-2 is idempotent on its own output). No Spark, no broker."""

from __future__ import annotations

import random

from kjoin.conformance.catalogue import load_cases
from kjoin.conformance.endtoend.ordering import SIDES, merge_positions
from kjoin.conformance.endtoend.topics import in_processing_order
from kjoin.oracle.tasks import processing_order
from kjoin.scenarios import CATALOGUE_ROOT


def _oracle(left: list[int], right: list[int]) -> list[tuple[str, int]]:
    return [(SIDES[queue], position) for queue, position in processing_order([left, right])]


def test_the_merge_agrees_with_the_oracle_on_random_partitions_with_many_ties() -> None:
    rng = random.Random(13)
    for _ in range(3000):
        left = [rng.randrange(6) for _ in range(rng.randrange(7))]
        right = [rng.randrange(6) for _ in range(rng.randrange(7))]
        assert merge_positions(left, right) == _oracle(left, right), (left, right)


def test_equal_head_timestamps_alternate_starting_with_left() -> None:
    assert merge_positions([5, 5, 5], [5, 5]) == [
        ("left", 0), ("right", 0), ("left", 1), ("right", 1), ("left", 2)
    ]  # fmt: skip
    assert merge_positions([5], [5], last="left") == [("right", 0), ("left", 0)]


def test_a_case_in_processing_order_keeps_it_and_its_sides_keep_their_order() -> None:
    loaded = load_cases([CATALOGUE_ROOT / "stream_stream", CATALOGUE_ROOT / "table_table"])
    reordered = 0
    for case in loaded.cases:
        ordered = in_processing_order(case)
        assert in_processing_order(ordered) is ordered
        for side in SIDES:
            kept = [r for r in ordered.records if r.side == side]
            assert kept == [r for r in case.records if r.side == side]
        if ordered is not case:
            reordered += 1
            assert ordered.expected is None and ordered.id == case.id
    assert reordered >= 20
